"""Whole-command speed: what a user waits for, each command in a fresh process, beside its yardsticks.

    python benchmarks/end_to_end.py --data-dir DATASETS                      # scifact + eval
    python benchmarks/end_to_end.py --data-dir DATASETS --synthetic 1.0      # + NQ-size synthetic search

Each figure is one fresh process, timed from start to exit: seconds (wall), CPU seconds (user + sys),
peak RSS (the process's own maximum resident set, from wait4), and the 1-minute load average just before
it started (other jobs on the machine slow every figure; compare figures taken at similar load). Every
timed command runs `--repeat` times (default 3), alternated with its yardsticks (ours, peer, ours, peer,
…), and its median run is shown with every run's seconds: on a shared virtual machine one command's wall
time moves by ±20 % from minute to minute.

Cases:
- search, scifact × `--replicas` (default 100: 30,000 queries, the 300 test queries with ids `qid-r`),
  top 1000, 1 thread, run file written: `sounding search` against a bm25s (numba backend) script doing
  the same job: load its index, tokenise the queries, retrieve, write the run with an f-string loop.
  Both indexes are built beforehand (not timed).
- search, synthetic NQ-shaped corpus (`--synthetic SCALE`, benchmarks/synthetic.py; built and indexed
  beforehand, not timed): `sounding search` of its test queries at top 1000, 1 thread.
- run, the same synthetic corpus (`--synthetic`; skip with `--skip run`): `sounding run` of every BM25
  setting at 1 search thread (its index built beforehand, not timed), the whole command with its rows
  removed first so that every setting is computed, and each setting's span end to end (search, run file,
  scores, cross-check) from benchmarks/run_settings.py.
- eval, 10,000 queries × 1,000 hits (benchmarks/eval_speed.py's synthetic data, written as a run file
  beforehand), measures nDCG@10, R@100, AP: `sounding eval --json` against a pytrec_eval script (plain
  line loop, RelevanceEvaluator, means) and `trec_eval -m ndcg_cut.10 -m recall.100 -m map` when a
  trec_eval binary is on PATH. The means must agree to 1e-12 (else exit 1).

Prints a table and one JSON line. The figures are the machine's at the time; synthetic corpora give speed
and memory figures at NQ's shape, never effectiveness claims. This script imports neither numpy nor
Sounding: a child's peak RSS starts from its parent's (fork), so the parent stays small and builds its
data in child processes.
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

BM25S_SCRIPT = r'''
import json, sys
import bm25s, Stemmer
index, queries, out = sys.argv[1:4]
model = bm25s.BM25.load(index, load_corpus=False, show_progress=False, backend="numba")
docids = json.loads(open(index + "/docids.json").read())
qids, texts = [], []
for line in open(queries, encoding="utf-8"):
    q, _, t = line.rstrip("\n").partition("\t")
    qids.append(q); texts.append(t)
tokens = bm25s.tokenize(texts, stopwords="en", stemmer=Stemmer.Stemmer("english"), show_progress=False)
docs, scores = model.retrieve(tokens, k=min(1000, len(docids)), n_threads=1, show_progress=False)
with open(out, "w") as f:
    for q, ds, ss in zip(qids, docs.tolist(), scores.tolist()):
        f.write("".join(f"{q} Q0 {docids[d]} {r} {s:.6f} bm25s\n" for r, (d, s) in enumerate(zip(ds, ss), 1)))
'''

BM25S_INDEX_SCRIPT = r'''
import gzip, json, sys
import bm25s, Stemmer
corpus, out = sys.argv[1:3]
ids, texts = [], []
for line in gzip.open(corpus, "rt", encoding="utf-8"):
    d = json.loads(line)
    ids.append(d["_id"]); texts.append((d.get("title") or "") + " " + (d.get("text") or ""))
tokens = bm25s.tokenize(texts, stopwords="en", stemmer=Stemmer.Stemmer("english"), show_progress=False)
model = bm25s.BM25(k1=0.9, b=0.4, method="lucene", backend="numba")
model.index(tokens, show_progress=False)
model.save(out, show_progress=False)
open(out + "/docids.json", "w").write(json.dumps(ids))
'''

PYTREC_SCRIPT = r'''
import json, sys
import pytrec_eval
qrels_path, run_path = sys.argv[1:3]
qrels = {}
for line in open(qrels_path):
    q, _, d, g = line.split()
    qrels.setdefault(q, {})[d] = int(g)
run = {}
with open(run_path) as f:
    for line in f:
        q, _, d, _, s, _ = line.split()
        run.setdefault(q, {})[d] = float(s)
names = {"ndcg_cut_10", "recall_100", "map"}
per_q = pytrec_eval.RelevanceEvaluator(qrels, names).evaluate(run)
judged = [q for q, j in qrels.items() if j]
print(json.dumps({m: sum(per_q.get(q, {}).get(m, 0.0) for q in judged) / len(judged) for m in sorted(names)}))
'''


EVAL_DATA_SCRIPT = r'''
import sys
sys.path.insert(0, sys.argv[1])
from eval_speed import synthetic
from sounding.eval import write_run
qrels, run = synthetic(int(sys.argv[2]), 1000, 0)
write_run(run, sys.argv[3])
with open(sys.argv[4], "w") as f:
    f.write("".join(f"{q} 0 {d} {g}\n" for q, j in qrels.items() for d, g in j.items()))
'''


def user_env() -> dict:
    """The environment a command runs in, as on a user's machine: Python caches compiled bytecode (pip
    compiles an installed package's modules at install). Where PYTHONDONTWRITEBYTECODE is set (some
    sandboxes set it) every fresh process would compile each module of Sounding, numba and the yardsticks
    from source again (~0.1 s of a `sounding search`), which no installed copy does."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def run_process(cmd: list[str], *, cwd=None, env=None) -> dict:
    """Run one command in a fresh process: wall and CPU seconds, peak RSS, exit status, load before."""
    env = user_env() if env is None else env
    load = os.getloadavg()[0]
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=out, stderr=err, cwd=cwd, env=env)
        _, status, usage = os.wait4(p.pid, 0)
        seconds = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(errors="replace"), err.read().decode(errors="replace")
    rc = os.waitstatus_to_exitcode(status)
    if rc != 0:
        raise SystemExit(f"command failed ({rc}): {' '.join(map(str, cmd))}\n{stderr[-2000:]}")
    return {"seconds": round(seconds, 3), "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 3),
            "peak_rss_mb": round(usage.ru_maxrss / 1024, 1), "load_before": round(load, 2),
            "stdout": stdout.strip()[-2000:], "stderr": stderr.strip()[-2000:]}


def timed(*cmds: list[str], repeat: int) -> list[dict]:
    """Each command `repeat` times, alternated (a, b, a, b, …): per command its run of median wall time
    (the lower median for an even count), with every run's seconds under "runs"."""
    got: list[list[dict]] = [[] for _ in cmds]
    for _ in range(max(1, repeat)):
        for runs, cmd in zip(got, cmds):
            runs.append(run_process(cmd))
    return [{**sorted(runs, key=lambda r: r["seconds"])[(len(runs) - 1) // 2], "runs": [r["seconds"] for r in runs]}
            for runs in got]


def sounding(*args) -> list[str]:
    return [sys.executable, "-m", "sounding", *map(str, args)]


def replicated_queries(dataset: Path, replicas: int, out: Path) -> int:
    """The test queries of a BEIR dataset, `replicas` times with ids qid-r, as `qid<TAB>text`."""
    texts = {}
    for line in gzip.open(dataset / "queries.jsonl.gz", "rt", encoding="utf-8"):
        d = json.loads(line)
        texts[d["_id"]] = d["text"]
    test = []
    for i, line in enumerate(open(dataset / "qrels" / "test.tsv", encoding="utf-8")):
        q = line.split("\t")[0]
        if i and q not in test:
            test.append(q)
    with open(out, "w", encoding="utf-8") as f:
        for r in range(replicas):
            for q in test:
                f.write(f"{q}-{r}\t{' '.join(texts[q].split())}\n")
    return replicas * len(test)


def case_scifact(work: Path, data_dir: Path, replicas: int, rows: list, repeat: int) -> None:
    ds = data_dir / "beir" / "scifact"
    ix, bix = work / "scifact-ix", work / "scifact-bm25s"
    if not ix.exists():
        run_process(sounding("index", ds, "--out", ix))
    if not bix.exists():
        (work / "bm25s_index.py").write_text(BM25S_INDEX_SCRIPT)
        run_process([sys.executable, work / "bm25s_index.py", ds / "corpus.jsonl.gz", bix])
    (work / "bm25s_search.py").write_text(BM25S_SCRIPT)
    qfile = work / f"scifact-x{replicas}.tsv"
    n = replicated_queries(ds, replicas, qfile)
    run_process(sounding("search", ix, "-q", qfile, "--run", work / "warm.run", "--hits", "10"))  # numba cache
    ours, peer = timed(sounding("search", ix, "-q", qfile, "--run", work / "s.run", "--hits", "1000", "--threads", "1"),
                       [sys.executable, work / "bm25s_search.py", bix, qfile, work / "b.run"], repeat=repeat)
    rows.append(_row(f"search scifact x{replicas} ({n:,} q, top 1000)", "sounding search", ours, "bm25s script", peer, n))


def case_synthetic(work: Path, scale: float, rows: list, repeat: int) -> None:
    sdir, ix = work / f"synth-{scale}", work / f"synth-{scale}-ix"
    if not (sdir / "corpus.jsonl.gz").exists():
        subprocess.run([sys.executable, HERE / "synthetic.py", "--scale", str(scale), "--out", sdir], check=True)
    if not ix.exists():
        run_process(sounding("index", sdir / "corpus.jsonl.gz", "--out", ix))
    qfile = sdir / "queries.jsonl"
    n = sum(1 for _ in open(qfile))
    run_process(sounding("search", ix, "-q", qfile, "--run", work / "warm.run", "--hits", "10"))
    ours, = timed(sounding("search", ix, "-q", qfile, "--run", work / "synth.run", "--hits", "1000", "--threads", "1"),
                  repeat=repeat)
    rows.append(_row(f"search synthetic {scale} ({n:,} q, top 1000)", "sounding search", ours, None, None, n))


def case_run(work: Path, scale: float, rows: list, repeat: int) -> None:
    """`sounding run` on the synthetic corpus, every BM25 setting, 1 search thread, index built beforehand (not
    timed): the whole command in a fresh process (its rows removed first, so that every setting is computed:
    search, run file, scores, cross-check, then the reports), then each setting's span from
    benchmarks/run_settings.py in one more fresh process. Writes 14 run files (~1.9 GB at scale 1.0)."""
    sdir, out = work / f"synth-{scale}", work / f"run-synth-{scale}"
    if not (out / "indexes").exists():
        run_process(sounding("run", sdir, "--out", out, "--phase", "index"))
    command = shlex.join(sounding("run", sdir, "--out", out, "--phase", "search", "--threads", "1"))
    ours, = timed(["sh", "-c", f"rm -rf {shlex.quote(str(out / 'rows'))} && exec {command}"], repeat=repeat)
    spans = subprocess.run([sys.executable, HERE / "run_settings.py", sdir, out, "--threads", "1"], env=user_env(),
                           capture_output=True, text=True, check=True)
    settings = json.loads(spans.stdout.strip().splitlines()[-1])["settings"]
    n = sum(1 for _ in open(sdir / "queries.jsonl"))
    row = _row(f"run synthetic {scale} ({len(settings)} BM25 settings)", "sounding run", ours, None, None,
               n * len(settings))
    row["settings"] = [{k: x[k] for k in ("setting", "seconds", "search_seconds")} for x in settings]
    rows.append(row)


def case_eval(work: Path, queries: int, rows: list, repeat: int) -> None:
    run_path, qrels_path = work / f"eval-{queries}.run", work / f"eval-{queries}.qrels"
    if not run_path.exists():  # in its own process: this one stays small (a child's peak RSS starts from it)
        (work / "eval_data.py").write_text(EVAL_DATA_SCRIPT)
        subprocess.run([sys.executable, work / "eval_data.py", HERE, str(queries), run_path, qrels_path], check=True)
    (work / "pytrec.py").write_text(PYTREC_SCRIPT)
    run_process(sounding("eval", qrels_path, run_path, "-m", "nDCG@10", "--json"))  # numba cache
    trec_eval = os.environ.get("SOUNDING_TREC_EVAL") or shutil.which("trec_eval")
    cmds = [sounding("eval", qrels_path, run_path, "-m", "nDCG@10", "-m", "R@100", "-m", "AP", "--json"),
            [sys.executable, work / "pytrec.py", qrels_path, run_path]]
    if trec_eval:
        cmds.append([trec_eval, "-m", "ndcg_cut.10", "-m", "recall.100", "-m", "map", str(qrels_path), str(run_path)])
    ours, peer, *te = timed(*cmds, repeat=repeat)
    a, b = json.loads(ours["stdout"]), json.loads(peer["stdout"])
    diff = max(abs(a["nDCG@10"] - b["ndcg_cut_10"]), abs(a["R@100"] - b["recall_100"]), abs(a["AP"] - b["map"]))
    label = f"eval {queries:,} q x 1,000 hits, 3 measures"
    rows.append(_row(label, "sounding eval", ours, "pytrec_eval script", peer, None, diff))
    if te:
        rows.append(_row(label, "sounding eval", ours, "trec_eval", te[0], None))


def _row(case, ours_name, ours, peer_name, peer, queries, diff=None) -> dict:
    row = {"case": case, "ours": ours_name, "ours_result": {k: v for k, v in ours.items() if k not in ("stdout",)}}
    if queries:
        row["queries"] = queries
        row["ours_qps"] = round(queries / ours["seconds"], 1)
    if peer is not None:
        row["peer"] = peer_name
        row["peer_result"] = {k: v for k, v in peer.items() if k not in ("stdout", "stderr")}
        row["speedup"] = round(peer["seconds"] / ours["seconds"], 2)
        row["cpu_speedup"] = round(peer["cpu_seconds"] / ours["cpu_seconds"], 2)
        row["rss_ratio"] = round(ours["peak_rss_mb"] / peer["peak_rss_mb"], 2)
    if diff is not None:
        row["max_abs_diff_means"] = diff
    return row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", type=Path, default=os.environ.get("SOUNDING_DATA"), help="datasets folder (beir/scifact)")
    ap.add_argument("--work", type=Path, default=Path("bench-out/end_to_end"), help="indexes and files (kept between runs)")
    ap.add_argument("--replicas", type=int, default=100)
    ap.add_argument("--synthetic", type=float, default=None, help="also the synthetic corpus at this scale (1.0: NQ size)")
    ap.add_argument("--eval-queries", type=int, default=10_000)
    ap.add_argument("--skip", default="", help="comma-separated cases to skip: scifact, run, eval")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each timed command (alternated); the median is shown")
    args = ap.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    skip = set(filter(None, args.skip.split(",")))
    rows: list[dict] = []
    if "scifact" not in skip:
        if args.data_dir is None:
            raise SystemExit("--data-dir (or SOUNDING_DATA) is needed for the scifact case")
        case_scifact(args.work, Path(args.data_dir), args.replicas, rows, args.repeat)
    if args.synthetic:
        case_synthetic(args.work, args.synthetic, rows, args.repeat)
        if "run" not in skip:
            case_run(args.work, args.synthetic, rows, args.repeat)
    if "eval" not in skip:
        case_eval(args.work, args.eval_queries, rows, args.repeat)
    print(f"\n{'case':<46} {'ours':>9} {'CPU':>7} {'RSS MB':>7} {'load':>5} | {'peer':<18} {'s':>7} {'CPU':>7} "
          f"{'RSS MB':>7} {'load':>5} | {'ratio':>6}")
    for r in rows:
        o, p = r["ours_result"], r.get("peer_result")
        line = f"{r['case']:<46} {o['seconds']:>8.2f}s {o['cpu_seconds']:>6.2f}s {o['peak_rss_mb']:>7.0f} {o['load_before']:>5.1f} |"
        if p:
            line += (f" {r['peer']:<18} {p['seconds']:>6.2f}s {p['cpu_seconds']:>6.2f}s {p['peak_rss_mb']:>7.0f} "
                     f"{p['load_before']:>5.1f} | {r['speedup']:>5.2f}x")
        print(line)
        runs = f"runs: ours {', '.join(f'{x:.2f}' for x in o['runs'])} s"
        if p:
            runs += f"; peer {', '.join(f'{x:.2f}' for x in p['runs'])} s"
        print(f"{'':<46} {runs}")
        if "ours_qps" in r:
            print(f"{'':<46} {r['ours_qps']:>8,.0f} q/s   {o['stderr'].splitlines()[-1][:150] if o['stderr'] else ''}")
        if "max_abs_diff_means" in r:
            print(f"{'':<46} means equal to {r['max_abs_diff_means']:.1e}")
        for x in r.get("settings", []):  # `sounding run`: each setting's span (run_settings.py)
            print(f"{'':<46} {x['setting']:<52} {x['seconds']:>6.2f} s (search {x['search_seconds']:.2f} s)")
    print(json.dumps({"benchmark": "end_to_end", "cpus": os.cpu_count(), "rows": rows}))
    return 1 if any(r.get("max_abs_diff_means", 0.0) > 1e-12 for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
