"""A first `sounding run` against a warm one: no setting's q/s may be more than 2× below the warm run's, since
compiling the kernels (numba) is set-up, timed apart (results.json `setup_seconds`), never search time.

    python benchmarks/first_run.py [DATASET ...] [--rounds 2] [--work DIR] [--json] [sounding run options]

Each round runs `sounding run DATASET --out COLD` in a fresh process whose numba cache (NUMBA_CACHE_DIR) is an
empty folder, so every kernel is compiled, then `sounding run DATASET --out WARM` in another fresh process with
that cache now filled; both output folders are new, so nothing is reused. Per setting: the median q/s over the
rounds of each kind, their ratio, and the set-up seconds. Exits 1 when a ratio is above 2.
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

LIMIT = 2.0


def run(datasets: list[str], out: Path, cache: Path, extra: list[str]) -> tuple[dict[str, dict], float]:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    start = time.perf_counter()
    subprocess.run([shutil.which("sounding") or "sounding", "run", *datasets, "--out", str(out), *extra], env=env,
                   check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    rows = json.loads((out / "results.json").read_text())
    return {f"{r['dataset']} {r['setting']}": r for r in rows}, wall


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("datasets", nargs="*", default=["scifact"])
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--work", type=Path, help="folder for the output folders and caches (default: a temp folder)")
    ap.add_argument("--json", action="store_true")
    args, extra = ap.parse_known_args()  # any other option is `sounding run`'s (--layouts flat, --threads 1)
    work = args.work or Path(tempfile.mkdtemp(prefix="sounding-first-run-"))
    cold: dict[str, list[dict]] = {}
    warm: dict[str, list[dict]] = {}
    walls = {"cold": [], "warm": []}
    for i in range(args.rounds):
        cache = work / f"numba-cache-{i}"
        shutil.rmtree(cache, ignore_errors=True)
        cache.mkdir(parents=True)
        for kind, got in (("cold", cold), ("warm", warm)):
            out = work / f"{kind}-{i}"
            shutil.rmtree(out, ignore_errors=True)
            rows, wall = run(args.datasets, out, cache, extra)
            walls[kind].append(wall)
            for key, row in rows.items():
                got.setdefault(key, []).append(row)
    table = []
    for key in cold:
        qc = statistics.median(r["qps"] for r in cold[key] if r.get("qps"))
        qw = statistics.median(r["qps"] for r in warm[key] if r.get("qps"))
        setup = statistics.median(r.get("setup_seconds") or 0.0 for r in cold[key])
        table.append({"setting": key, "qps_first": qc, "qps_warm": qw, "ratio": qw / qc, "setup_first_s": setup,
                      "setup_warm_s": statistics.median(r.get("setup_seconds") or 0.0 for r in warm[key])})
    worst = max(t["ratio"] for t in table)
    result = {"datasets": args.datasets, "rounds": args.rounds, "load_average": os.getloadavg()[0],
              "wall_first_s": statistics.median(walls["cold"]), "wall_warm_s": statistics.median(walls["warm"]),
              "worst_ratio": worst, "settings": table}
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        print(f"{'setting':58} {'q/s first':>10} {'q/s warm':>10} {'warm/first':>10} {'set-up first':>13}")
        for t in table:
            print(f"{t['setting']:58} {t['qps_first']:>10,.0f} {t['qps_warm']:>10,.0f} {t['ratio']:>10.2f} "
                  f"{t['setup_first_s']:>11.2f} s")
        print(f"whole command: first {result['wall_first_s']:.1f} s, warm {result['wall_warm_s']:.1f} s; worst "
              f"ratio {worst:.2f} (limit {LIMIT}); load average {result['load_average']:.2f}")
    return 0 if worst <= LIMIT else 1


if __name__ == "__main__":
    sys.exit(main())
