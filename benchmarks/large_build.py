"""The large build of issue 34's targets, for benchmarks/bm25_peers.py `--large-build SCALE`: the
synthetic NQ-shaped corpus at SCALE (1.0: NQ size, 2,681,468 documents; benchmarks/synthetic.py)
indexed with packed postings (the form for large corpora) as `sounding index --memory 1` does, in a
fresh process: wall seconds, CPU seconds and the peak of the whole process tree's PSS; then that index's
whole `sounding search` (its 3,452 test queries at SCALE 1.0, top 1,000, 1 thread, the run file written)
in a fresh process: wall, CPU and peak RSS. The 1-minute load average is taken beside every figure.
With a baseline source tree (`--baseline-src`), each figure is taken for it too, the two alternated
run by run (which goes first alternates as well), and the runs must give the same index files and the
same run file.

Targets (issue 34): the build ≤ 90 s wall on 2 cores with the tree's peak ≤ 1.5 GiB; the whole search
≤ 5 s; and neither slower than the baseline.
"""
from __future__ import annotations

import filecmp
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
MEMORY_GIB = 1.0
TARGETS = {"build_s": 90.0, "build_peak_pss_gib": 1.5, "search_s": 5.0}


def _env(src: str | None) -> dict:
    env = dict(os.environ)
    src = src or str(HERE.parent / "src")
    env["PYTHONPATH"] = os.pathsep.join([src] + [p for p in [env.get("PYTHONPATH")] if p])
    return env


def whole_search(index: Path, queries: Path, run: Path, env: dict) -> dict:
    """`sounding search` of every query, top 1,000, 1 thread, in a fresh process."""
    cmd = [sys.executable, "-m", "sounding", "search", str(index), "--queries", str(queries), "--run", str(run),
           "--hits", "1000", "--threads", "1"]
    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - t0
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"search failed: {' '.join(cmd)}: {err.strip()[-300:]}")
    return {"search_s": round(seconds, 2), "search_cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
            "search_peak_rss_gib": round(usage.ru_maxrss / 2**20, 2), "search_load_at_start": round(load, 2)}


def _same_index(a: Path, b: Path) -> bool:
    ga, gb = (p / (p / "CURRENT").read_text().strip() for p in (a, b))
    names = sorted(x.name for x in ga.iterdir())
    if names != sorted(x.name for x in gb.iterdir()):
        return False
    # the manifest holds the source's path, which differs, and the format's version and seal (format 3 seals
    # the manifest with a digest; a commit before it writes format 2): its other fields are compared
    ma, mb = (json.loads((g / "manifest.json").read_text()) for g in (ga, gb))
    for m in (ma, mb):
        for key in ("source", "version", "digest"):
            m.pop(key, None)
    return ma == mb and all(filecmp.cmp(ga / n, gb / n, shallow=False) for n in names if n != "manifest.json")


def run(scale: float, args, baseline_src: str | None = None) -> dict:
    import synthetic

    folder = Path(args.work) / f"synthetic-{scale:g}-seed{args.seed}"
    meta = folder / "synthetic.json"
    if not meta.is_file() or json.loads(meta.read_text()).get("scale") != scale:
        print(f"generating synthetic corpus (scale {scale:g}) in {folder} ...", flush=True)
        synthetic.generate(folder, scale, args.seed)
    trees = [("sounding", None)] + ([("sounding-base", str(Path(baseline_src).resolve() / "src"))] if baseline_src else [])
    work = Path(args.work) / "indexes" / f"large-{scale:g}"
    out: dict = {"scale": scale, "memory_gib": MEMORY_GIB, "rows": [], "same_index": None, "same_run": None}
    print(f"\n== large build: synthetic-{scale:g}, packed postings, --memory {MEMORY_GIB} GiB, then its whole "
          f"`sounding search` (top 1,000, 1 thread); {args.large_repeats} run(s)", flush=True)
    for r in range(args.large_repeats):
        for name, src in (trees if r % 2 == 0 else trees[::-1]):
            index = work / name
            row = {"tree": name, "round": r + 1}
            row.update(synthetic.bench_build(folder / "corpus.jsonl.gz", index, "packed", MEMORY_GIB, env=_env(src)))
            row.update(whole_search(index, folder / "queries.jsonl", work / f"{name}.run", _env(src)))
            out["rows"].append(row)
            print(f"  {name:13s} build {row['build_s']:.1f} s (CPU {row['build_cpu_s']:.1f} s, tree peak "
                  f"{row['build_peak_pss_gib']:.2f} GiB; load at start {row['load_at_start']}); whole search "
                  f"{row['search_s']:.2f} s (CPU {row['search_cpu_s']:.2f} s, peak {row['search_peak_rss_gib']:.2f} "
                  f"GiB; load {row['search_load_at_start']:.2f})", flush=True)
    if baseline_src:
        out["same_index"] = _same_index(work / "sounding", work / "sounding-base")
        out["same_run"] = filecmp.cmp(work / "sounding.run", work / "sounding-base.run", shallow=False)
    if not args.keep_indexes:
        shutil.rmtree(work, ignore_errors=True)
    return out


def report(res: dict) -> str:
    lines = [f"\n### Large build: synthetic-{res['scale']:g} (SYNTHETIC, NQ-shaped), packed postings, "
             f"--memory {res['memory_gib']} GiB; whole `sounding search`, top 1,000, 1 thread\n",
             "| tree | round | build s | build CPU s | tree peak GiB | load (start) | search s | search CPU s | "
             "search peak GiB | load (start) |", "|---|---|---|---|---|---|---|---|---|---|"]
    for x in res["rows"]:
        lines.append(f"| {x['tree']} | {x['round']} | {x['build_s']} | {x['build_cpu_s']} | {x['build_peak_pss_gib']} | "
                     f"{x['load_at_start']} | {x['search_s']} | {x['search_cpu_s']} | {x['search_peak_rss_gib']} | "
                     f"{x['search_load_at_start']} |")
    ours = [x for x in res["rows"] if x["tree"] == "sounding"]
    lines.append("\nTargets:")
    for key, goal in TARGETS.items():
        best = min(x[key] for x in ours)
        lines.append(f"- {key} ≤ {goal}: best {best} ({'met' if best <= goal else 'missed'}), all runs "
                     f"{', '.join(str(x[key]) for x in ours)}")
    base = [x for x in res["rows"] if x["tree"] != "sounding"]
    if base:
        for key in ("build_s", "search_s"):
            a, b = sorted(x[key] for x in ours), sorted(x[key] for x in base)
            lines.append(f"- {key} no slower than the baseline: ours {a}, baseline {b} "
                         f"({'met' if a[len(a) // 2] <= b[len(b) // 2] else 'missed'} by the medians)")
        lines.append(f"- same index files as the baseline: {res['same_index']}; same run file: {res['same_run']}")
    return "\n".join(lines)
