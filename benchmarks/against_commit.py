"""This checkout against another commit's, alternated in fresh processes: does a change keep the speed?

    git worktree add ../base 0e5dcc6
    python benchmarks/against_commit.py --base ../base [--dataset scifact] [--rounds 5] [--json]

Each side runs from its own `src/` (PYTHONPATH), its modules' bytecode compiled first (`compileall`, as `pip
install` does: a module without a `.pyc`, e.g. under PYTHONDONTWRITEBYTECODE, is compiled in every process,
and the side with more modules would pay more), with its own index of the dataset built beforehand (not
timed: the index format may differ between commits) and its own numba cache, warmed by one untimed round.
Then `--rounds` rounds, each running every case once per side in fresh processes, the sides' order
alternating from round to round (A B, B A, ...). Cases:

- `search`: the whole `sounding search INDEX --queries QUERIES --hits 1000 --threads 1 --run RUN` command
  (every query of the dataset's queries file);
- `eval`: the whole `sounding eval QRELS RUN -m nDCG@10 -m R@100 --json` command (the run file `search` wrote);
- `per-query@10`, `per-query@1000`: one process opens `Searcher(INDEX)` and calls `search({qid: text}, k=...)`
  for each judged test query in turn, once untimed then timed (queries per second of the timed pass; the
  process's start-up and compiling are outside the timer);
- `batch@10`, `batch@1000`: one process opens `Searcher(INDEX)`, searches the same queries as one
  batch (1 thread) once untimed, then again and again for a second (queries per second).

The run files of both sides must be byte-identical (else exit 1). Prints each case's median seconds per
side with every round's figure, the ratio (this checkout / base: below 1 is faster) and the 1-minute load
average at the start and end.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]

PER_QUERY = r"""
import sys, time
from sounding.datasets import load_dataset
try:
    from sounding.retrieval.search import Searcher
except ImportError:
    from sounding.search import Searcher
index, dataset, k = sys.argv[1], sys.argv[2], int(sys.argv[3])
queries = load_dataset(dataset).queries
s = Searcher(index)
for q, t in queries.items():
    s.search({q: t}, k=k)
start = time.perf_counter()
for q, t in queries.items():
    s.search({q: t}, k=k)
print(len(queries) / (time.perf_counter() - start))
"""

BATCH = r"""
import sys, time
from sounding.datasets import load_dataset
try:
    from sounding.retrieval.search import Searcher
except ImportError:
    from sounding.search import Searcher
index, dataset, k = sys.argv[1], sys.argv[2], int(sys.argv[3])
items = list(load_dataset(dataset).queries.items())
s = Searcher(index)
s.search(items, k=k, threads=1)
passes, start = 0, time.perf_counter()
while passes == 0 or time.perf_counter() - start < 1.0:
    s.search(items, k=k, threads=1)
    passes += 1
print(passes * len(items) / (time.perf_counter() - start))
"""


def _env(src: Path, cache: Path) -> dict:
    return {**os.environ, "PYTHONPATH": str(src / "src"), "NUMBA_CACHE_DIR": str(cache)}


def _sounding(env: dict, *args: str, capture: bool = False) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "sounding", *args], env=env, check=True,
                          stdout=subprocess.PIPE if capture else subprocess.DEVNULL)
    return time.perf_counter() - start, (done.stdout or b"").decode()


def _in_process(code: str, env: dict, index: Path, dataset: str, k: int) -> float:
    out = subprocess.run([sys.executable, "-c", code, str(index), dataset, str(k)], env=env, check=True,
                         capture_output=True, text=True).stdout
    return float(out.split()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", type=Path, required=True, help="a checkout of the commit compared against")
    ap.add_argument("--dataset", default="scifact")
    ap.add_argument("--queries", default=None, help="queries file for search (default: $SOUNDING_DATA/beir/DATASET/"
                    "queries.jsonl.gz: every query, a file both commits read)")
    ap.add_argument("--qrels", default=None, help="qrels file for eval (default: $SOUNDING_DATA/beir/DATASET/qrels/test.tsv)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--work", type=Path, default=None, help="indexes, caches and runs (default: a temp folder)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    work = a.work or Path(tempfile.mkdtemp(prefix="against-commit-"))
    sides = {"this": HERE, "base": a.base.resolve()}
    envs, indexes, runs = {}, {}, {}
    for name, src in sides.items():
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(src / "src")], check=True, stdout=subprocess.DEVNULL)
        envs[name] = _env(src, work / name / "numba")
        indexes[name] = work / name / "index"
        runs[name] = work / name / "run.trec"
        if not indexes[name].exists():
            _sounding(envs[name], "index", a.dataset, "--out", str(indexes[name]))
    data = Path(os.environ.get("SOUNDING_DATA", ".")) / "beir" / a.dataset
    queries = a.queries or str(data / "queries.jsonl.gz")
    qrels = a.qrels or str(data / "qrels" / "test.tsv")
    cases = {
        "search": lambda n: _sounding(envs[n], "search", str(indexes[n]), "--queries", queries, "--hits", "1000",
                                      "--threads", "1", "--run", str(runs[n]))[0],
        "eval": lambda n: _sounding(envs[n], "eval", qrels, str(runs[n]), "-m", "nDCG@10", "-m", "R@100", "--json")[0],
        "per-query@10": lambda n: _in_process(PER_QUERY, envs[n], indexes[n], a.dataset, 10),
        "per-query@1000": lambda n: _in_process(PER_QUERY, envs[n], indexes[n], a.dataset, 1000),
        "batch@10": lambda n: _in_process(BATCH, envs[n], indexes[n], a.dataset, 10),
        "batch@1000": lambda n: _in_process(BATCH, envs[n], indexes[n], a.dataset, 1000),
    }
    for name in sides:  # warm-up: numba's caches filled, pages read
        for case in cases.values():
            case(name)
    if runs["this"].read_bytes() != runs["base"].read_bytes():
        print("run files differ between the two commits", file=sys.stderr)
        return 1
    load_start = os.getloadavg()[0]
    figures: dict[str, dict[str, list[float]]] = {c: {n: [] for n in sides} for c in cases}
    for r in range(a.rounds):
        order = list(sides) if r % 2 == 0 else list(sides)[::-1]
        for case, fn in cases.items():
            for name in order:
                figures[case][name].append(fn(name))
    load_end = os.getloadavg()[0]
    out = {"dataset": a.dataset, "rounds": a.rounds, "load": [load_start, load_end], "cases": {}}
    print(f"{a.dataset}: this checkout against {a.base} ({a.rounds} alternated rounds, load {load_start:.2f} → {load_end:.2f})")
    for case, per_side in figures.items():
        med = {n: statistics.median(v) for n, v in per_side.items()}
        qps = case.startswith(("per-query", "batch"))
        ratio = med["base"] / med["this"] if qps else med["this"] / med["base"]  # time ratio: < 1 is faster
        unit = "q/s" if qps else "s"
        out["cases"][case] = {"unit": unit, "median": med, "runs": per_side, "time_ratio": ratio}
        runs_txt = " | ".join(f"{n}: " + " ".join(f"{x:.3g}" for x in v) for n, v in per_side.items())
        print(f"  {case:15s} this {med['this']:.4g} {unit}, base {med['base']:.4g} {unit}, time ratio {ratio:.3f}  ({runs_txt})")
    if a.json:
        print(json.dumps(out))
    if a.work is None:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
