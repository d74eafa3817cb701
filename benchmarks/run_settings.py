"""`sounding run` per setting: wall and CPU seconds of each BM25 setting, end to end, in one process.

    python benchmarks/run_settings.py DATASET OUT                           # every BM25 setting
    python benchmarks/run_settings.py DATASET OUT --layouts flat,multifield --params anserini --norms exact

DATASET is a name or a BEIR-layout folder (e.g. one made by benchmarks/synthetic.py). Build the index
first (`sounding run DATASET --out OUT --phase index`, not timed here); settings whose rows are already in
OUT are dropped before timing, so every setting is computed. A setting's time runs from the runner's log
line that starts it to the next one (or the end). The runner finishes a BM25 setting (run file, scores,
cross-check, row) in a second thread while the next one is searched, so that span is the setting's search
(its BM25 setting built first) plus any wait for the previous setting's finishing, and the last span holds
the last finishing; their sum is the whole call, and the mean per setting is printed too. Prints one line
per setting (wall, CPU, the row's search seconds), the 1-minute load average before and after, and one
JSON line.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import shutil
import sys
import time
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dataset")
    ap.add_argument("out", type=Path)
    ap.add_argument("--layouts", default=None)
    ap.add_argument("--params", default=None)
    ap.add_argument("--norms", default=None)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--run-format", choices=("trec", "gz"), default="trec")
    args = ap.parse_args(argv)
    # the collector's thresholds `sounding run` sets (sounding.cli.app.main): the settings are timed as the
    # command runs them; at Python's default, collections took ~5% of a grouped setting's time (perf, NQ size)
    gc.set_threshold(50_000, 20, 20)
    start, cpu0 = time.perf_counter(), time.process_time()
    load_before = os.getloadavg()[0]
    from sounding.experiment import run_experiment

    imports = time.perf_counter() - start
    shutil.rmtree(args.out / "rows", ignore_errors=True)  # recompute every setting
    marks: list[tuple[str, float, float]] = []
    res = run_experiment(
        [args.dataset], args.out, layouts=args.layouts.split(",") if args.layouts else None,
        params=args.params.split(",") if args.params else None, norms=args.norms, threads=args.threads,
        phase="search", **({"gzip_runs": True} if args.run_format == "gz" else {}),
        log=lambda m: marks.append((m, time.perf_counter(), time.process_time())))
    marks.append(("end", time.perf_counter(), time.process_time()))
    rows = {r["setting"]: r for r in (res.to_dicts() if hasattr(res, "to_dicts") else res.rows)}
    out = []
    print(f"load {load_before:.2f} before; imports {imports:.2f} s")
    for (m, t, c), (_, t2, c2) in zip(marks, marks[1:]):
        row = rows.get(m.rsplit(": ", 1)[-1])
        if row is None:
            continue
        out.append({"setting": row["setting"], "seconds": round(t2 - t, 3), "cpu_seconds": round(c2 - c, 3),
                    "search_seconds": round(row["search_seconds"], 3), "crosscheck": row["crosscheck"]})
        print(f"{row['setting']:<52} {t2 - t:6.2f} s  CPU {c2 - c:6.2f} s  search {row['search_seconds']:6.2f} s")
    total = time.perf_counter() - start
    if len(marks) > 1:
        (_, t0, c0), (_, t1, c1) = marks[0], marks[-1]
        print(f"settings: {t1 - t0:.2f} s, CPU {c1 - c0:.2f} s; per setting {(t1 - t0) / len(out):.2f} s "
              f"(CPU {(c1 - c0) / len(out):.2f} s)" if out else "no setting computed")
    print(f"load {os.getloadavg()[0]:.2f} after; whole process {total:.2f} s, CPU {time.process_time() - cpu0:.2f} s")
    print(json.dumps({"benchmark": "run_settings", "dataset": args.dataset, "load_before": load_before,
                      "load_after": os.getloadavg()[0], "seconds": round(total, 3),
                      "settings_seconds": round(marks[-1][1] - marks[0][1], 3), "settings": out}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
