"""Evaluation speed: Sounding vs pytrec_eval on the same synthetic run, in the same process.

    python benchmarks/eval_speed.py                      # 10,000 queries x 1,000 hits
    python benchmarks/eval_speed.py --queries 1000       # quicker

Synthetic, seeded data: 200,000 docids; per query 1,000 hits whose scores are rounded to 2 decimals in
[0, 20) (about one hit in five shares its score with another, so trec_eval's docid tie rule is exercised),
and 1-40 judgements with grades 0-3, half of them on retrieved documents.

Two comparisons, each the best of --repeat timings:
- in memory: `sounding.eval.evaluate(qrels, run, measures)` against
  `pytrec_eval.RelevanceEvaluator(qrels, names).evaluate(run)` on the same Run dict (pytrec_eval's time
  leaves out averaging its per-query output, so it is, if anything, flattered);
- from disk: `read_run(path)` + evaluate against a plain Python loop over the lines + pytrec_eval.
Every per-query value is compared with pytrec_eval's; the script fails if any differs by more than 1e-9.
Prints a table and one JSON line.

    python benchmarks/eval_speed.py --whole RUN QRELS --rounds 3   # whole commands, fresh processes

--whole compares whole processes on an existing run and its qrels, alternating in each round:
`sounding eval -m nDCG@10 -m R@100 -m AP --json`, end_to_end.py's pytrec_eval script (plain line loops,
RelevanceEvaluator, means) and `trec_eval -m ndcg_cut.10 -m recall.100 -m map` (when a binary is on PATH
or in $SOUNDING_TREC_EVAL). Per process: wall and CPU seconds, peak RSS, load; per round: the ratios.
The three commands' means must agree to 1e-12 (trec_eval's, printed to 4 decimals, to 5e-5).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pytrec_eval

from sounding.eval import evaluate, per_query_arrays, read_run, write_run
from sounding.trec import files as trec

MEASURES = {"nDCG@10": "ndcg_cut_10", "R@100": "recall_100", "RR": "recip_rank", "P@10": "P_10", "AP": "map"}


def synthetic(queries: int, hits: int, seed: int):
    rng = np.random.default_rng(seed)
    n_docs = 200_000
    names = np.array([f"d{i}" for i in range(n_docs)], dtype=object)
    qrels, run = {}, {}
    for i in range(queries):
        qid = f"q{i}"
        docs = rng.choice(n_docs, hits, replace=False)
        scores = np.round(rng.random(hits) * 20, 2)
        run[qid] = dict(zip(names[docs].tolist(), scores.tolist()))
        n_judged = int(rng.integers(1, 41))
        judged = np.concatenate([docs[rng.choice(hits, n_judged // 2, replace=False)],
                                 rng.choice(n_docs, n_judged - n_judged // 2)])
        qrels[qid] = dict(zip(names[judged].tolist(), rng.integers(0, 4, len(judged)).tolist()))
    return qrels, run


def plain_read(path: Path) -> dict:
    """How a run file is commonly read before pytrec_eval: a loop over lines, no checks."""
    run: dict = {}
    with open(path) as f:
        for line in f:
            q, _, d, _, s, _ = line.split()
            run.setdefault(q, {})[d] = float(s)
    return run


def best(fn, repeat: int):
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queries", type=int, default=10_000)
    ap.add_argument("--hits", type=int, default=1_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-disk", action="store_true", help="skip the from-disk comparison")
    ap.add_argument("--whole", nargs=2, metavar=("RUN", "QRELS"), help="compare whole commands on these files")
    ap.add_argument("--rounds", type=int, default=3, help="--whole: rounds, the commands alternating in each")
    args = ap.parse_args()
    if args.whole:
        return whole_commands(Path(args.whole[0]), Path(args.whole[1]), args.rounds)

    t = time.perf_counter()
    qrels, run = synthetic(args.queries, args.hits, args.seed)
    print(f"data: {args.queries} queries x {args.hits} hits, built in {time.perf_counter() - t:.1f} s", file=sys.stderr)
    names = set(MEASURES.values())

    # warm the numba reader once (compiled on first use, then cached on disk)
    trec._read_run_fast(b"q Q0 d 1 1.0 t\n")

    ours_s, ours = best(lambda: evaluate(qrels, run, list(MEASURES)), args.repeat)
    ref_s, ref = best(lambda: pytrec_eval.RelevanceEvaluator(qrels, names).evaluate(run), args.repeat)

    qids, values = per_query_arrays(qrels, run, list(MEASURES))
    max_diff = max(
        float(np.abs(values[m] - np.array([ref.get(q, {}).get(r, 0.0) for q in qids])).max()) for m, r in MEASURES.items()
    )
    rows = [("in memory: evaluate", ours_s, ref_s)]
    result = {
        "benchmark": "eval_speed", "queries": args.queries, "hits": args.hits, "seed": args.seed,
        "measures": list(MEASURES), "pytrec_eval_measures": sorted(names), "repeat": args.repeat,
        "in_memory": {"sounding_s": round(ours_s, 3), "pytrec_eval_s": round(ref_s, 3), "ratio": round(ref_s / ours_s, 2)},
        "max_abs_diff_vs_pytrec_eval": max_diff,
        "means": {k: round(v, 6) for k, v in ours.items()},
    }

    if not args.no_disk:
        with tempfile.TemporaryDirectory() as tmp:
            path = write_run(run, Path(tmp) / "bench.run")
            size_mb = path.stat().st_size / 1e6
            read_s, from_file = best(lambda: read_run(path), args.repeat)
            plain_s, _ = best(lambda: plain_read(path), args.repeat)
            assert from_file == run, "the run read back differs from the one written"
            disk_ours = read_s + ours_s
            disk_ref = plain_s + ref_s
        rows.append(("read the run file", read_s, plain_s))
        rows.append(("from disk: read + evaluate", disk_ours, disk_ref))
        result["file_mb"] = round(size_mb, 1)
        result["read"] = {"sounding_s": round(read_s, 3), "plain_loop_s": round(plain_s, 3), "ratio": round(plain_s / read_s, 2)}
        result["from_disk"] = {"sounding_s": round(disk_ours, 3), "pytrec_eval_s": round(disk_ref, 3),
                               "ratio": round(disk_ref / disk_ours, 2)}

    result["env"] = {
        "python": platform.python_version(), "numpy": np.__version__,
        "pytrec_eval": _version("pytrec-eval-terrier"), "numba": _version("numba"),
        "cpus": os.cpu_count(), "machine": platform.machine(),
    }
    print(f"\n{'':<28} {'sounding':>10} {'pytrec_eval':>12} {'ratio':>7}")
    print(f"{'':<28} {'':>10} {'(plain loop)':>12}")
    for label, a, b in rows:
        print(f"{label:<28} {a:>9.2f}s {b:>11.2f}s {b / a:>6.1f}x")
    print(f"max |difference| from pytrec_eval over all queries and measures: {max_diff:.1e}\n")
    print(json.dumps(result))
    return 0 if max_diff <= 1e-9 else 1


def whole_commands(run: Path, qrels: Path, rounds: int) -> int:
    import shutil
    import subprocess

    from end_to_end import PYTREC_SCRIPT, run_process, sounding

    trec_eval = os.environ.get("SOUNDING_TREC_EVAL") or shutil.which("trec_eval")
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "pytrec.py"
        script.write_text(PYTREC_SCRIPT)
        commands = {"sounding eval": sounding("eval", qrels, run, "-m", "nDCG@10", "-m", "R@100", "-m", "AP", "--json"),
                    "pytrec_eval script": [sys.executable, str(script), str(qrels), str(run)]}
        if trec_eval:
            commands["trec_eval"] = [trec_eval, "-m", "ndcg_cut.10", "-m", "recall.100", "-m", "map", str(qrels), str(run)]
        subprocess.run(commands["sounding eval"], capture_output=True, check=True)  # numba's cache, not timed
        results: dict[str, list[dict]] = {name: [] for name in commands}
        for r in range(rounds):
            for name, cmd in commands.items():
                results[name].append(run_process(cmd))
            line = "  ".join(f"{name} {results[name][-1]['seconds']:.2f} s (cpu {results[name][-1]['cpu_seconds']:.2f}, "
                             f"{results[name][-1]['peak_rss_mb']:.0f} MB, load {results[name][-1]['load_before']:.1f})"
                             for name in commands)
            print(f"round {r + 1}: {line}", file=sys.stderr)
    ours = json.loads(results["sounding eval"][0]["stdout"])
    peer = json.loads(results["pytrec_eval script"][0]["stdout"])
    names = {"nDCG@10": "ndcg_cut_10", "R@100": "recall_100", "AP": "map"}
    diff = max(abs(ours[m] - peer[p]) for m, p in names.items())
    te_diff = 0.0
    if trec_eval:
        te = {f[0]: float(f[2]) for f in (line.split() for line in results["trec_eval"][0]["stdout"].splitlines())
              if len(f) == 3 and f[0] in names.values()}
        te_diff = max(abs(ours[m] - te[p]) for m, p in names.items())
    summary = {"benchmark": "eval_speed --whole", "run": str(run), "rounds": rounds,
               "max_abs_diff_vs_pytrec_eval": diff, "max_abs_diff_vs_trec_eval_4dp": te_diff}
    for name, rs in results.items():
        summary[name] = [{k: v for k, v in x.items() if k not in ("stdout", "stderr")} for x in rs]
        if name != "sounding eval":
            summary[f"ratio {name} / sounding"] = [round(p["seconds"] / o["seconds"], 2)
                                                   for p, o in zip(rs, results["sounding eval"])]
            summary[f"cpu ratio {name} / sounding"] = [round(p["cpu_seconds"] / o["cpu_seconds"], 2)
                                                       for p, o in zip(rs, results["sounding eval"])]
    print(json.dumps(summary))
    return 0 if diff <= 1e-12 and te_diff <= 5e-5 else 1


def _version(dist: str) -> str:
    from importlib.metadata import version

    return version(dist)


if __name__ == "__main__":
    sys.exit(main())
