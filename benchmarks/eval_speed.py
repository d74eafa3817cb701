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

from sounding.eval import evaluate, per_query_arrays, read_run, trec, write_run

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
    args = ap.parse_args()

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


def _version(dist: str) -> str:
    from importlib.metadata import version

    return version(dist)


if __name__ == "__main__":
    sys.exit(main())
