"""docs/report.png: the first screen (1400×900) of a real run's report.html, as docs/report.md shows it.

    python benchmarks/report_screenshot.py OUT docs/report.png

OUT is an output folder of `sounding run` (docs/report.md names the command of the committed picture); its
report is rewritten first. Headless Chromium (the system's, driven by Playwright for Python) takes the
screenshot, and Pillow reduces it to a 64-colour palette so that the PNG stays small (under 300 kB).
"""
from __future__ import annotations

import argparse
import io
import shutil
import sys
from pathlib import Path

LIMIT = 300_000


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", type=Path)
    ap.add_argument("png", type=Path)
    args = ap.parse_args()
    from PIL import Image
    from playwright.sync_api import sync_playwright

    from sounding.report import write_reports

    _, page = write_reports(args.out)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium") or shutil.which("chromium-browser"),
                                    args=["--no-sandbox", "--disable-gpu"])
        tab = browser.new_page(viewport={"width": 1400, "height": 900})
        tab.goto(page.resolve().as_uri(), wait_until="load")
        shot = tab.screenshot()
        browser.close()
    image = Image.open(io.BytesIO(shot)).convert("RGB").quantize(colors=64, method=Image.Quantize.MEDIANCUT)
    image.save(args.png, optimize=True)
    size = args.png.stat().st_size
    print(f"{args.png}: {image.size[0]}×{image.size[1]}, {size / 1000:.0f} kB")
    return 0 if size < LIMIT else 1


if __name__ == "__main__":
    sys.exit(main())
