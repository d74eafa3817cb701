"""report.html in a real browser (Debian's Chromium driven by Playwright for Python, 1400×900): the verdict
with its coloured marks in the first screen, the run explorer (a click on a query shows both top 10 lists
with grades and the query's terms highlighted), and every chart's text inside its SVG box. Skipped, saying
why, where Chromium or Playwright is missing."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from sounding.report import write_reports

REPO = Path(__file__).resolve().parents[1]
TINY = REPO / "tests" / "fixtures" / "tiny-beir"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
try:
    from playwright.sync_api import sync_playwright
except ImportError:  # the `test` extra installs it
    sync_playwright = None

pytestmark = [
    pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium not installed (Debian: apt-get install chromium)"),
    pytest.mark.skipif(sync_playwright is None, reason="playwright not installed (pip install -e '.[test]')"),
]
SCREEN = {"width": 1400, "height": 900}
LUCENE_FLAT, EXACT_FLAT, EXACT_MULTI = ("sounding.bm25.flat.anserini.lucene-norms", "sounding.bm25.flat.anserini",
                                        "sounding.bm25.multifield.anserini")
LONG = "sounding.bm25.multifield-max.anserini.lucene-norms"  # the longest setting name of the default grid


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        yield b
        b.close()


def open_page(browser, path: Path):
    page = browser.new_page(viewport=SCREEN)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.as_uri())
    return page, errors


def verdict_out(out: Path) -> Path:
    """scifact: a Lucene row equal to its figure, an exact row within 0.005, one beyond; a user system."""
    rng = np.random.default_rng(3)
    qids = [f"q{i}" for i in range(40)]
    base = rng.uniform(0.2, 0.8, len(qids))  # every system near it, query by query: paired differences are clear
    rows = []
    for setting, lucene, layout, ndcg, pub in ((LUCENE_FLAT, True, "flat", 0.67891, 0.6789),
                                               (EXACT_FLAT, False, "flat", 0.6777, 0.6789),
                                               (EXACT_MULTI, False, "multifield", 0.6500, 0.6647),
                                               (LONG, True, "multifield-max", 0.6634, None),
                                               ("user.mine", False, None, 0.55, None)):
        values = base + rng.normal(0, 0.01, len(qids))
        values += ndcg - values.mean()
        pq = f"per_query/scifact/{setting}.json"
        (out / pq).parent.mkdir(parents=True, exist_ok=True)
        (out / pq).write_text(json.dumps({"nDCG@10": dict(zip(qids, values.tolist()))}))
        rows.append({"dataset": "scifact", "setting": setting, "engine": "user" if layout is None else "sounding",
                     "arm": "user" if layout is None else "bm25", "layout": layout, "lucene_norms": lucene,
                     "k1": 0.9, "b": 0.4, "metrics": {"nDCG@10": float(values.mean()), "R@100": 0.9253,
                                                       "judged@10": 0.09 + 0.001 * len(rows)},
                     "per_query_file": pq,
                     "published": {"nDCG@10": pub, "R@100": 0.9253, "source": "Pyserini 2CR"} if pub else None})
    (out / "results.json").write_text(json.dumps(rows))
    (out / "run.json").write_text(json.dumps({"datasets": ["scifact"], "gate": {"passed": True, "failures": []}}))
    return write_reports(out)[1]


def test_the_verdict_with_coloured_marks_is_in_the_first_screen(browser, tmp_path):
    page, errors = open_page(browser, verdict_out(tmp_path))
    marks = page.evaluate("""() => [...document.querySelectorAll('#verdict td.mark')].map(td => {
        const r = td.getBoundingClientRect();
        return {text: td.textContent.trim(), verdict: td.dataset.verdict || '', bottom: r.bottom, right: r.right,
                color: getComputedStyle(td).color, background: getComputedStyle(td).backgroundColor};
    })""")
    assert len(marks) == 4 and not errors  # three published rows and the user system
    assert all(m["bottom"] <= SCREEN["height"] and m["right"] <= SCREEN["width"] for m in marks), marks
    by_text = {m["text"]: m for m in marks}
    assert set(by_text) == {"✓ equal", "✓ within ±0.005", "✗ beyond ±0.005 (nDCG@10)", "✗ worse"}

    def rgb(css: str) -> tuple[int, ...]:
        return tuple(int(x) for x in css[css.index("(") + 1:css.index(")")].split(",")[:3])

    for m in marks:
        r, g, b = rgb(m["color"])
        assert (g > r + 40) if m["text"].startswith("✓") else (r > g + 60), m  # green passes, red failures
        assert rgb(m["background"]) != (255, 255, 255)
    # the Lucene row apart from the exact ones, each table saying its arithmetic and tolerance
    captions = page.eval_on_selector_all("#verdict table caption", "cs => cs.map(c => c.textContent)")
    assert captions[0].startswith("Lucene arithmetic") and "4 decimals" in captions[0]
    assert captions[1].startswith("Exact arithmetic") and "±0.005" in captions[1]
    assert page.evaluate("document.querySelector('#verdict').getBoundingClientRect().top") < 200
    page.close()


def test_no_chart_text_outside_its_svg(browser, tmp_path):
    page, errors = open_page(browser, verdict_out(tmp_path))
    outside = page.evaluate("""() => {
        const bad = [];
        for (const svg of document.querySelectorAll('svg')) {
            const box = svg.getBoundingClientRect();
            for (const t of svg.querySelectorAll('text')) {
                const r = t.getBoundingClientRect();
                if (r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.top < box.top - 0.5
                    || r.bottom > box.bottom + 0.5) bad.push([t.textContent, r.left, r.right, box.left, box.right]);
            }
        }
        return [document.querySelectorAll('svg text').length, bad];
    }""")
    count, bad = outside
    assert count > 20 and not bad and not errors, bad
    # the longest label is drawn whole, and judged@10 (about 0.09) gets an axis fitted to it
    labels = page.eval_on_selector_all("svg text.label", "ts => ts.map(t => t.textContent)")
    assert "multifield-max.anserini.lucene-norms" in labels
    ticks = page.eval_on_selector_all("svg[aria-label='bar chart of judged@10'] text.tick",
                                      "ts => ts.map(t => t.textContent)")
    assert "0.1" in ticks and "1" not in ticks
    page.close()


@pytest.fixture(scope="module")
def explored(tmp_path_factory):
    """`sounding run` on the tiny fixture with a TF-IDF system of the user's: the report with its explorer."""
    from sounding.experiment import run_experiment
    from test_own_retriever import TfIdf

    out = tmp_path_factory.mktemp("explored")
    run_experiment([str(TINY)], out, layouts=["flat", "multifield"], params=["anserini"],
                   retrievers={"tfidf": TfIdf()}, log=lambda m: None)
    return out, write_reports(out)[1]


def test_the_explorer_shows_both_top_lists_with_grades_and_marked_terms(browser, explored):
    out, path = explored
    assert (out / "explorer" / "tiny-beir.json").is_file()
    page, errors = open_page(browser, path)
    page.wait_for_selector("#explorer:not([hidden])", timeout=15_000)
    # at first: the user's system against the best BM25 row
    assert page.eval_on_selector(".x-a", "s => s.options[s.selectedIndex].text") == "user.tfidf"
    assert page.eval_on_selector(".x-b", "s => s.options[s.selectedIndex].text").startswith("sounding.bm25.")
    page.locator("#explorer .x-queries tbody tr[data-qid='q1']").click()
    detail = page.locator("#explorer .x-detail")
    assert "how do viruses replicate in cells" in detail.locator(".x-query").inner_text()
    for side in ("a", "b"):
        hits = detail.locator(f".x-list-{side} li.hit")
        assert hits.count() >= 2
        grades = [hits.nth(i).locator(".grade").inner_text() for i in range(hits.count())]
        assert all(g.startswith("grade ") or g == "unjudged" for g in grades) and "unjudged" in grades
        assert any(g.startswith("grade ") for g in grades)
    marked = detail.locator("mark").all_inner_texts()
    # as the index matches: "replicate" is the stem "replic", so "replication" and "replicates" are marked; the
    # query's "viruses" is "virus" but the title's "Virus" is "viru" (Porter), so that one is not
    assert {"replication", "replicates", "cells"} <= set(marked) and "Virus" not in marked, marked
    assert not errors
    page.close()


def test_the_explorers_figures_are_the_reports(browser, explored):
    from sounding.eval.agreement import rbo
    from sounding.report import load_out
    from sounding.results import RANKING

    out, path = explored
    rows, _, per_query = load_out(out)
    page, _ = open_page(browser, path)
    page.wait_for_selector("#explorer:not([hidden])", timeout=15_000)
    a, b = (page.eval_on_selector(s, "s => s.options[s.selectedIndex].text") for s in (".x-a", ".x-b"))
    shown = page.eval_on_selector_all("#explorer .x-queries tbody tr", "trs => trs.map(tr => ({qid: tr.dataset.qid, "
                                      "cells: [...tr.cells].map(c => c.textContent)}))")
    files = {r["setting"]: r["per_query_file"] for r in rows if r["dataset"] == "tiny-beir"}
    lists = {s: json.loads((out / files[s]).read_text())[RANKING] for s in (a, b)}
    assert len(shown) == len(per_query[("tiny-beir", a)])
    diffs = []
    for row in shown:
        q, cells = row["qid"], row["cells"]
        va, vb = per_query[("tiny-beir", a)][q], per_query[("tiny-beir", b)][q]
        assert cells[2:5] == [f"{va:.4f}", f"{vb:.4f}", ("0.0000" if abs(va - vb) < 5e-5 else f"{va - vb:+.4f}")]
        assert cells[5] == f"{rbo(lists[a][q], lists[b][q]):.4f}"
        diffs.append(va - vb)
    assert diffs == sorted(diffs, reverse=True)  # sorted by Δ, A − B, largest first
    page.close()
