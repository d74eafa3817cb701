"""Proximity-bonus weight sweep and typo-tolerance recovery/cost on the real BEIR sets.

    python benchmarks/scoring_options.py --data-dir ../shared/datasets [--datasets scifact,nfcorpus]

Prints nDCG@10 / R@100 (BEIR convention) for each proximity weight and layout, the nDCG@10 of
clean queries, the same queries with one injected typo each (seeded), and those typo'd queries
with typo tolerance on; and single-thread queries/s of plain, proximity and typo search.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from test_scoring_options import one_edit_typo  # noqa: E402  (the tests' typo generator)

from sounding.datasets import load_dataset  # noqa: E402
from sounding.eval import evaluate  # noqa: E402
from sounding.index import build_index  # noqa: E402
from sounding.retrieval.search import Searcher  # noqa: E402

WEIGHTS = [0.0, 0.025, 0.05, 0.1, 0.2, 0.3, 0.5, 1.0]


def typo_queries(queries: dict[str, str], seed: int = 13) -> dict[str, str]:
    rng = random.Random(seed)
    out = {}
    for qid, text in queries.items():
        words = text.split()
        j = max(range(len(words)), key=lambda i: len(words[i]))
        if len(words[j]) >= 5:
            words[j] = one_edit_typo(words[j], rng)
        out[qid] = " ".join(words)
    return out


def qps(searcher, queries, repeats=3, **kw) -> float:
    searcher.search(queries, threads=1, **kw)  # warm-up
    times = sorted(searcher.search(queries, threads=1, **kw).seconds for _ in range(repeats))
    return len(queries) / times[len(times) // 2]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--datasets", default="scifact,nfcorpus")
    ap.add_argument("--out", default="bench-out/scoring_options.json")
    args = ap.parse_args()
    report = {}
    for name in args.datasets.split(","):
        ds = load_dataset(name, data_dir=args.data_dir)
        with tempfile.TemporaryDirectory() as tmp:
            build_index(ds.corpus(), tmp, positions=True)
            s = Searcher(tmp)

            def score(queries, **kw):
                m = evaluate(ds.qrels, s.search(queries, **kw).to_run(), ["nDCG@10", "R@100"], remove_self_hits=True)
                return round(m["nDCG@10"], 4), round(m["R@100"], 4)

            sweep = {layout: {w: score(ds.queries, layout=layout, proximity=w) for w in WEIGHTS}
                     for layout in ("flat", "multifield", "bm25f")}
            typoed = typo_queries(ds.queries)
            typos = {"clean": score(ds.queries)[0], "typo": score(typoed)[0], "typo+tolerance": score(typoed, typos=True)[0],
                     "clean+tolerance": score(ds.queries, typos=True)[0]}
            speed = {"plain": qps(s, ds.queries), "proximity 0.1": qps(s, ds.queries, proximity=0.1),
                     "typos": qps(s, ds.queries, typos=True)}
        report[name] = {"sweep": sweep, "typos": typos, "qps": speed}
        print(f"\n== {name} (nDCG@10 / R@100 by proximity weight)")
        print("weight  " + "  ".join(f"{layout:>16}" for layout in sweep))
        for w in WEIGHTS:
            print(f"{w:<7} " + "  ".join(f"{sweep[layout][w][0]:.4f} / {sweep[layout][w][1]:.4f}" for layout in sweep))
        print("typos (nDCG@10):", typos)
        print("queries/s, 1 thread, top 1000:", {k: round(v) for k, v in speed.items()})
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(report, indent=1))
    print(json.dumps(report))


if __name__ == "__main__":
    main()
