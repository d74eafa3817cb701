"""report.html's size and render time in Chromium: the issue's case is scifact + nfcorpus + arguana × the 14
BM25 settings + one system of the user's (the README's WordOverlap), which must give a page of at most 10 MB
that renders in at most 2 s.

    python benchmarks/report_page.py OUT                 # an output folder of `sounding run` (report rewritten)
    python benchmarks/report_page.py OUT --make          # first run that case into OUT (minutes)
    python benchmarks/report_page.py OUT --repeat 5 --json

Render time, per load of the page in a fresh tab of headless Chromium (1400×900, driven by Playwright for
Python with the system's browser): `load` is the page's load event (HTML parsed, laid out, inline SVG drawn)
from the start of navigation, `explorer` when the run explorer's data is inflated and its first query drawn.
The report's writing time (`write_reports`) is measured too. Exits 1 when a target is missed.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

TARGET_BYTES = 10_000_000
TARGET_SECONDS = 2.0
README_CLASS_MODULE = "mymodule"


def make(out: Path) -> None:
    """`sounding run scifact nfcorpus arguana` with every BM25 setting and the README's WordOverlap retriever."""
    import re

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    code = re.search(r"## Quickstart[^\n]*\n.*?```python\n(.*?)```", readme, re.S).group(1).split("result = ")[0]
    work = out.parent / f"{out.name}-module"
    work.mkdir(parents=True, exist_ok=True)
    (work / f"{README_CLASS_MODULE}.py").write_text(code)
    cmd = [shutil.which("sounding") or "sounding", "run", "scifact", "nfcorpus", "arguana", "--out", str(out.resolve()),
           "--layouts", "flat,multifield,multifield-max,bm25f", "--retriever",
           f"overlap={README_CLASS_MODULE}:WordOverlap"]
    subprocess.run(cmd, cwd=work, check=True)


def render_times(page: Path, repeat: int) -> list[dict]:
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    out = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
        for _ in range(repeat):
            tab = browser.new_page(viewport={"width": 1400, "height": 900})
            start = time.perf_counter()
            tab.goto(page.resolve().as_uri(), wait_until="load")
            loaded = time.perf_counter() - start
            tab.wait_for_selector("#explorer .x-detail .x-query", timeout=60_000)
            explorer = time.perf_counter() - start
            nav = tab.evaluate("JSON.stringify(performance.getEntriesByType('navigation')[0])")
            timing = json.loads(nav)
            out.append({"load_s": loaded, "load_event_s": timing["loadEventEnd"] / 1000, "explorer_s": explorer})
            tab.close()
        browser.close()
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", type=Path)
    ap.add_argument("--make", action="store_true", help="run the issue's case into OUT first")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if args.make:
        make(args.out)
    from sounding.report import write_reports

    t0 = time.perf_counter()
    _, page = write_reports(args.out)
    writing = time.perf_counter() - t0
    size = page.stat().st_size
    times = render_times(page, args.repeat)
    result = {"page": str(page), "bytes": size, "write_reports_s": writing,
              "load_event_s": statistics.median(t["load_event_s"] for t in times),
              "explorer_s": statistics.median(t["explorer_s"] for t in times), "runs": times,
              "load_average": os.getloadavg()[0]}
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        print(f"{page}: {size / 1e6:.2f} MB (target ≤ {TARGET_BYTES / 1e6:.0f} MB); written in {writing:.1f} s")
        print(f"render (median of {len(times)}): load event {result['load_event_s']:.2f} s, explorer ready "
              f"{result['explorer_s']:.2f} s (target ≤ {TARGET_SECONDS:.0f} s); load average "
              f"{result['load_average']:.2f}")
    return 0 if size <= TARGET_BYTES and result["load_event_s"] <= TARGET_SECONDS else 1


if __name__ == "__main__":
    sys.exit(main())
