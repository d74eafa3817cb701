"""Reports of `sounding run`: Markdown + one self-contained HTML page, read back statically, compared with
reference output (tests/fixtures/report), and through a headless Chromium (rendered DOM, a screenshot, the
layout in a window 1400 px wide)."""
from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

from sounding.errors import SoundingError
from sounding.report import ResultTable, html_report, load_out, markdown_report, write_reports
from sounding.results import ResultRow

REPO = Path(__file__).resolve().parents[1]
FIXTURE = REPO / "tests" / "fixtures" / "report"  # pages rendered by an earlier version
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

FLAT_A = "sounding.bm25.flat.anserini"
MULTI_A = "sounding.bm25.multifield.anserini"
FLAT_L = "sounding.bm25.flat.lucene"
BM25S = "bm25s.bm25.flat.anserini"
SETTINGS = {  # setting -> (engine, layout, params, k1, b)
    FLAT_A: ("sounding", "flat", "anserini", 0.9, 0.4),
    MULTI_A: ("sounding", "multifield", "anserini", 0.9, 0.4),
    FLAT_L: ("sounding", "flat", "lucene", 1.2, 0.75),
    BM25S: ("bm25s", "flat", "anserini", 0.9, 0.4),
}
QUERIES = {"scifact": 30, "arguana": 30, "cqadupstack-android": 20, "cqadupstack-english": 40}
# nDCG@10 per dataset, in SETTINGS order; the per-query files are built to have exactly these means
NDCG = {
    "scifact": (0.6789, 0.6647, 0.6550, 0.6712),
    "arguana": (0.4142, 0.4012, 0.3970, 0.4100),
    "cqadupstack-android": (0.4000, 0.3800, 0.3700, 0.3950),
    "cqadupstack-english": (0.3000, 0.3100, 0.2900, 0.2950),
}
PUBLISHED = {  # (dataset, setting) -> published nDCG@10
    ("scifact", FLAT_A): 0.6789, ("scifact", MULTI_A): 0.6650,
    ("cqadupstack-android", FLAT_A): 0.3900, ("cqadupstack-english", FLAT_A): 0.3020,
}


def per_query_with_mean(rng, n: int, target: float) -> list[float]:
    """n values in [0, 1] whose mean is target: pairs (x, 2t - x) around it, shuffled."""
    lo, hi = max(0.0, 2 * target - 1), min(1.0, 2 * target)
    x = rng.uniform(lo, hi, n // 2)
    x[: n // 8] = lo  # some queries at the extremes, as real nDCG has
    values = np.concatenate([x, 2 * target - x])
    rng.shuffle(values)
    return values.tolist()


def make_out(out: Path) -> list[dict]:
    """A fixture OUT folder: results.json, run.json and per-query files for 4 datasets x 4 settings."""
    rows = []
    for dataset, n in QUERIES.items():
        for i, (setting, (engine, layout, params, k1, b)) in enumerate(SETTINGS.items()):
            rng = np.random.default_rng(len(rows) + 7)  # seeded: the same fixture every time
            qids = [f"q{j}" for j in range(n)]
            ndcg = per_query_with_mean(rng, n, NDCG[dataset][i])
            judged = rng.uniform(0.05, 0.9, n).tolist()
            raw_shift = 0.1 if dataset == "arguana" else 0.0  # own hits move ArguAna only
            pq = {"nDCG@10": dict(zip(qids, ndcg)), "judged@10": dict(zip(qids, judged)),
                  "nDCG@10/raw": {q: max(0.0, v - raw_shift) for q, v in zip(qids, ndcg)}}
            pq_file = f"per_query/{dataset}/{setting}.json"
            (out / pq_file).parent.mkdir(parents=True, exist_ok=True)
            (out / pq_file).write_text(json.dumps(pq))
            pub = PUBLISHED.get((dataset, setting))
            rows.append({
                "dataset": dataset, "engine": engine, "arm": "bm25", "layout": layout, "params": params,
                "k1": k1, "b": b, "lucene_norms": False, "setting": setting,
                "metrics": {"nDCG@10": NDCG[dataset][i],
                            "R@100": round(0.8 + 0.01 * i + 0.001 * n, 6), "R@1000": 0.95 - 0.01 * i,
                            "RR@100": float(rng.uniform(0.3, 0.7)), "judged@10": float(np.mean(judged))},
                "raw_metrics": {"nDCG@10": NDCG[dataset][i] - raw_shift},
                "n_queries": n, "crosscheck": {"ok": True, "max_diff": 0.0},
                "index_seconds": 1.4 if engine == "sounding" else None,
                "index_bytes": 7426260 if engine == "sounding" else None,
                "search_seconds": 0.08, "qps": n / 0.08,
                "run_file": f"runs/{dataset}/{setting}.trec", "per_query_file": pq_file,
                "published": {"nDCG@10": pub, "R@100": 0.9253, "source": "Pyserini 2CR beir.yaml"} if pub else None,
                "model": None,
            })
    (out / "results.json").write_text(json.dumps(rows, indent=1))
    (out / "run.json").write_text(json.dumps({
        "sounding_version": "0.1.0", "created": "2026-11-29T20:00:00+0000", "command": "sounding run scifact",
        "machine": {"cpu": "test cpu", "cores": 2, "python": "3.11.7"}, "datasets": list(QUERIES),
        "gate": {"passed": False, "failures": ["scifact sounding.bm25.flat.lucene: nDCG@10 below published"]},
    }))
    return rows


USER_TFIDF, USER_RUN = "user.tfidf", "user.run"


def make_full_out(out: Path) -> list[dict]:
    """make_out plus every section's optional material: judged-only scores and pool holes, two systems of the
    user (one with a paired test and published figures beside it, one without a reference), a model, an
    unverified dataset, queries without hits, a failed cross-check, and text that needs escaping."""
    rows = make_out(out)
    rng = np.random.default_rng(11)
    for r in rows:
        if r["dataset"] == "scifact":
            r["metrics"]["nDCG'@10"] = round(r["metrics"]["nDCG@10"] + 0.03, 6)
            r["metrics"]["bpref"] = round(float(rng.uniform(0.5, 0.9)), 6)
            r["pool"] = {"k": 10, "queries_with_unjudged": 12, "most_unjudged": [["q3", 7], ["q11", 5]],
                         "judged_nonrelevant": 0}
        if r["dataset"] == "arguana" and r["setting"] == FLAT_L:
            r["unverified_data"] = True
            r["queries_without_hits"] = 2
            r["crosscheck"] = {"ok": False, "max_diff": 0.0003}
    rows[0]["published"]["source"] = "Pyserini 2CR <beir.yaml> & \"quoted\" notes"
    rows[1]["model"] = {"name": "tiny <encoder>", "provenance": "trained on MS MARCO & friends"}
    for dataset, setting, kind, source, mean in (("scifact", USER_TFIDF, "retriever", "pkg.mod:TfIdf", 0.61),
                                                  ("scifact", USER_RUN, "run", "runs/a|b <x>.trec", 0.70),
                                                  ("arguana", USER_TFIDF, "retriever", "pkg.mod:TfIdf", 0.35)):
        n = QUERIES[dataset]
        qids = [f"q{j}" for j in range(n)]
        ndcg = per_query_with_mean(rng, n, mean)
        pq_file = f"per_query/{dataset}/{setting}.json"
        (out / pq_file).write_text(json.dumps({"nDCG@10": dict(zip(qids, ndcg))}))
        row = {"dataset": dataset, "engine": "sounding", "arm": "user", "kind": kind, "source": source,
               "setting": setting, "metrics": {"nDCG@10": mean, "judged@10": 0.41, "R@100": 0.77},
               "n_queries": n, "per_query_file": pq_file, "vs_bm25": None, "published_beside": []}
        if dataset == "scifact":
            row["metrics"].update({"nDCG'@10": mean + 0.05, "bpref": 0.8})
            row["pool"] = {"k": 10, "queries_with_unjudged": 20, "most_unjudged": [["q1", 9]],
                           "judged_nonrelevant": 0}
            row["vs_bm25"] = {"reference": FLAT_A, "n": n, "diff": mean - 0.6789, "ci_low": -0.08,
                              "ci_high": 0.05, "t_pvalue": 0.2 if kind == "run" else 0.00004,
                              "rand_pvalue": 0.21 if kind == "run" else 0.00002, "wins": 10, "ties": 5,
                              "losses": 15}
            row["published_beside"] = [{"condition": "splade", "title": "SPLADE <v2>", "nDCG@10": 0.699},
                                       {"condition": "bm25-flat", "title": "BM25 flat", "nDCG@10": 0.679}]
        rows.append(row)
    (out / "results.json").write_text(json.dumps(rows, indent=1))
    return rows


class Cells(HTMLParser):
    """Every <td> of a page: its attributes and its visible text."""

    def __init__(self, page: str):
        super().__init__()
        self.cells: list[dict] = []
        self._open: dict | None = None
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        if tag == "td":
            self._open = {**dict(attrs), "text": ""}
            self.cells.append(self._open)

    def handle_endtag(self, tag):
        if tag == "td":
            self._open = None

    def handle_data(self, data):
        if self._open is not None:
            self._open["text"] += data

    def find(self, **want) -> list[dict]:
        return [c for c in self.cells if all(c.get(f"data-{k}") == v for k, v in want.items())]


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = tmp_path_factory.mktemp("out")
    rows = make_out(out)
    md, page = write_reports(out)
    return {"out": out, "rows": rows, "md": md.read_text(), "html": page.read_text(), "html_path": page}


def check_cells_against_rows(cells: Cells, rows: list[dict]) -> int:
    """Every cell that shows a results.json figure holds it exactly and shows it to 4 decimals."""
    by_key = {(r["dataset"], r["setting"]): r for r in rows}
    checked = 0
    for c in cells.find(kind="run"):
        if "data-missing" in c:
            continue
        expected = ResultRow.from_dict(by_key[(c["data-dataset"], c["data-setting"])]).value(c["data-measure"])
        assert abs(float(c["data-value"]) - expected) <= 1e-12, c
        assert c["text"].strip() == f"{expected:.4f}", c
        checked += 1
    for c in cells.find(kind="published"):
        if "data-missing" not in c:
            expected = by_key[(c["data-dataset"], c["data-setting"])]["published"][c["data-measure"]]
            assert abs(float(c["data-value"]) - expected) <= 1e-12 and c["text"].strip() == f"{expected:.4f}"
            checked += 1
    return checked


def forum_mean(rows, setting, measure="nDCG@10") -> float:
    vals = [r["metrics"][measure] for r in rows if r["setting"] == setting and r["dataset"].startswith("cqadupstack-")]
    return sum(vals) / len(vals)


# -- static checks -------------------------------------------------------------------------------------
def test_files_written_and_mean_header_names_datasets(report):
    assert report["md"].startswith("# Sounding run report")
    header = "mean (scifact, arguana, cqadupstack)"
    assert header in report["md"] and header in report["html"]
    cells = Cells(report["html"])
    means = cells.find(kind="mean", setting=FLAT_A, measure="nDCG@10")
    assert means and all(c["data-datasets"] == "scifact,arguana,cqadupstack" for c in means)
    expected = (0.6789 + 0.4142 + (0.4000 + 0.3000) / 2) / 3
    assert float(means[0]["data-value"]) == pytest.approx(expected, abs=1e-12)
    assert means[0]["text"] == f"{expected:.4f}"


def test_cqadupstack_is_the_mean_of_forum_means(report):
    cells = Cells(report["html"])
    cqa = cells.find(kind="cqadupstack", setting=FLAT_A, measure="nDCG@10")
    assert cqa and cqa[0]["data-forums"] == "cqadupstack-android,cqadupstack-english"
    assert float(cqa[0]["data-value"]) == pytest.approx(0.35, abs=1e-12)  # (0.4000 + 0.3000) / 2
    assert cqa[0]["text"] == "0.3500"
    pooled = (0.4000 * 20 + 0.3000 * 40) / 60  # what a mean over all forum queries would give instead
    assert abs(float(cqa[0]["data-value"]) - pooled) > 0.01
    for s in SETTINGS:
        for c in cells.find(kind="cqadupstack", setting=s, measure="R@100"):
            assert float(c["data-value"]) == pytest.approx(forum_mean(report["rows"], s, "R@100"), abs=1e-12)
    assert "cqadupstack is the mean of its 2 sub-forum means" in report["md"]
    assert re.search(r"\| sounding\.bm25\.flat\.anserini \|.*\| 0\.3500 \|", report["md"])


def test_html_cells_hold_results_numbers(report):
    assert check_cells_against_rows(Cells(report["html"]), report["rows"]) >= 80


def test_best_value_per_dataset_is_highlighted(report):
    cells = Cells(report["html"])
    best = [c for c in cells.find(measure="nDCG@10", dataset="scifact", kind="run") if "best" in c.get("class", "")]
    assert {c["data-setting"] for c in best} == {FLAT_A}
    assert not [c for c in cells.find(measure="judged@10") if "best" in c.get("class", "")]


def test_html_is_self_contained(report):
    page = report["html"]
    refs = re.findall(r"""(?:src|href)\s*=\s*["']?([^"'\s>]+)""", page, flags=re.I)
    assert refs and all(r.startswith("#") for r in refs), refs  # only in-page anchors
    assert not re.search(r"url\(|@import|<script[^>]+src|<link", page, flags=re.I)
    assert "<svg" in page


def test_published_comparator_and_raw_sections(report):
    cells = Cells(report["html"])
    diff = cells.find(kind="published-diff", dataset="scifact", setting=MULTI_A, measure="nDCG@10")[0]
    assert float(diff["data-value"]) == pytest.approx(0.6647 - 0.6650, abs=1e-12) and diff["text"] == "-0.0003"
    exact = cells.find(kind="published-diff", dataset="scifact", setting=FLAT_A, measure="nDCG@10")[0]
    assert exact["text"] == "+0.0000 ✓"
    # cqadupstack against the mean of its forums' published figures
    pub = cells.find(kind="published-mean", dataset="cqadupstack", setting=FLAT_A, measure="nDCG@10")
    assert float(pub[0]["data-value"]) == pytest.approx((0.3900 + 0.3020) / 2, abs=1e-12)
    # bm25s beside Sounding at the same layout, k1 and b, never beside the Lucene parameters
    comp = cells.find(kind="comparator-diff", dataset="scifact", setting=BM25S, measure="nDCG@10")
    assert [float(c["data-value"]) for c in comp] == pytest.approx([0.6712 - 0.6789])
    # raw vs convention: only ArguAna differs
    raw = cells.find(kind="raw-diff", measure="nDCG@10")
    assert {c["data-dataset"] for c in raw} == {"arguana"} and len(raw) == 4
    assert all(c["text"] == "+0.1000" for c in raw)
    assert "compared with published figures" in report["md"]


def test_significance_against_best_published_setting(report):
    from sounding.eval.significance import compare, holm

    html_text = report["html"]
    assert f"scifact — reference {FLAT_A}: best published configuration (nDCG@10 0.6789" in html_text
    cells = Cells(html_text)
    rand = {c["data-setting"]: float(c["data-value"]) for c in cells.find(kind="p-rand", dataset="scifact")}
    assert set(rand) == {MULTI_A, FLAT_L, BM25S}  # everything but the reference
    adjusted = {c["data-setting"]: float(c["data-value"]) for c in cells.find(kind="p-rand-holm", dataset="scifact")}
    assert adjusted == pytest.approx(dict(zip(rand, holm(list(rand.values())))))
    # the same numbers as calling the significance module directly
    _, _, pq = load_out(report["out"])
    a, b = pq[("scifact", MULTI_A)], pq[("scifact", FLAT_A)]
    qids = sorted(a)
    direct = compare([a[q] for q in qids], [b[q] for q in qids])
    t = cells.find(kind="p-t", dataset="scifact", setting=MULTI_A)[0]
    assert float(t["data-value"]) == pytest.approx(direct.t_pvalue, rel=1e-12)
    assert rand[MULTI_A] == pytest.approx(direct.rand_pvalue, rel=1e-12)
    # forums have no published figure of their own... except FLAT_A, the reference there too
    assert f"cqadupstack-android — reference {FLAT_A}" in html_text


def test_gate_charts_and_operational(report):
    page, md = report["html"], report["md"]
    assert "Gate FAILED" in md and "nDCG@10 below published" in md
    assert page.count("<figure>") == len(QUERIES) + 3  # box plots per dataset + judged@10 per column
    assert "pool" in md and "judged@10" in md
    cells = Cells(page)
    qps = cells.find(kind="op", measure="qps", dataset="scifact", setting=FLAT_A)[0]
    assert float(qps["data-value"]) == pytest.approx(30 / 0.08) and qps["text"] == "375"
    assert cells.find(kind="op", measure="index_bytes", setting=BM25S, dataset="scifact")[0]["text"] == "—"


# -- the rendering against reference output ---------------------------------------------------------
class Visible(HTMLParser):
    """What a reader and a tool get from a page, markup aside: its text in order (whitespace collapsed,
    the style sheet left out), every data-* attribute set and every tooltip and chart label."""

    def __init__(self, page: str):
        super().__init__()
        self.text: list[str] = []
        self.data: list[dict[str, str]] = []
        self.labels: list[str] = []
        self._style = False
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self._style = tag == "style"
        if any(k.startswith("data-") for k in attrs):
            self.data.append({k: v for k, v in attrs.items() if k.startswith("data-")})
        self.labels += [attrs[k] for k in ("title", "aria-label") if k in attrs]

    def handle_endtag(self, tag):
        self._style = False

    def handle_data(self, data):
        text = " ".join(data.split())
        if text and not self._style:
            self.text.append(text)


@pytest.fixture(scope="module")
def full(tmp_path_factory):
    out = tmp_path_factory.mktemp("full")
    make_full_out(out)
    rows, meta, per_query = load_out(out)
    return {"md": markdown_report(rows, meta, per_query), "html": html_report(rows, meta, per_query)}


def test_markdown_equals_the_reference_byte_for_byte(full):
    assert full["md"] == (FIXTURE / "report.md").read_text(encoding="utf-8")


def test_html_shows_the_reference_text_and_values(full):
    ours, reference = Visible(full["html"]), Visible((FIXTURE / "report.html").read_text(encoding="utf-8"))
    assert ours.text == reference.text
    assert ours.data == reference.data and len(ours.data) > 400
    assert ours.labels == reference.labels


def test_html_escapes_the_rows_text(full):
    page = full["html"]
    assert "<beir.yaml>" not in page and "&lt;beir.yaml&gt; &amp;" in page
    assert "tiny <encoder>" not in page and "SPLADE <v2>" not in page
    assert 'runs/a|b &lt;x&gt;.trec' in page


# -- robustness ----------------------------------------------------------------------------------------
def test_optional_keys_missing_and_partial_coverage(tmp_path):
    rows = [
        {"dataset": "scifact", "setting": "sounding.bm25.flat.anserini", "metrics": {"nDCG@10": 0.6},
         "published": None, "model": {"name": "tiny-encoder", "provenance": "trained on MS MARCO, v1"}},
        {"dataset": "nfcorpus", "setting": "sounding.bm25.flat.anserini", "metrics": {"nDCG@10": 0.3}},
        {"dataset": "scifact", "setting": "pyserini.bm25.flat.anserini", "engine": "pyserini",
         "metrics": {"nDCG@10": 0.61, "judged@10": None}},
        {"dataset": "cqadupstack-android", "setting": "sounding.bm25.flat.anserini", "metrics": {"nDCG@10": 0.4}},
        {"dataset": "cqadupstack-english", "setting": "pyserini.bm25.flat.anserini", "engine": "pyserini",
         "metrics": {"nDCG@10": 0.3}},
    ]
    (tmp_path / "results.json").write_text(json.dumps(rows))
    md_path, page_path = write_reports(tmp_path)  # no run.json, no per-query files
    md, page = md_path.read_text(), page_path.read_text()
    assert "mean (scifact, nfcorpus, cqadupstack)" in md
    cells = Cells(page)
    # pyserini has neither nfcorpus nor the android forum: dashes, never a mean over fewer datasets
    assert cells.find(kind="mean", setting="pyserini.bm25.flat.anserini", measure="nDCG@10")[0]["text"] == "—"
    assert cells.find(kind="cqadupstack", setting="sounding.bm25.flat.anserini", measure="nDCG@10")[0]["text"] == "—"
    assert "tiny-encoder — trained on MS MARCO, v1" in md
    assert "No per-query files found" in md and "Gate not run" in md
    assert check_cells_against_rows(cells, rows) == 5


def test_markdown_report_from_rows_and_stale_per_query(tmp_path):
    rows = make_out(tmp_path)
    text = markdown_report(rows, {})
    assert "| setting | scifact | arguana | cqadupstack | mean (scifact, arguana, cqadupstack) |" in text
    _, meta, pq = load_out(tmp_path)
    pq[("scifact", FLAT_A)] = {q: 0.0 for q in pq[("scifact", FLAT_A)]}
    assert "the per-query file is stale" in markdown_report(rows, meta, pq)


def test_missing_results_is_a_clear_error(tmp_path):
    with pytest.raises(SoundingError, match="results.json: not found"):
        write_reports(tmp_path)
    (tmp_path / "results.json").write_text("{")
    with pytest.raises(SoundingError, match="not valid JSON"):
        write_reports(tmp_path)


def test_results_orders_sounding_first_and_notes_duplicates():
    rows = [{"dataset": "d", "setting": "bm25s.x", "engine": "bm25s", "metrics": {}},
            {"dataset": "d", "setting": "sounding.x", "metrics": {"nDCG@10": 0.1}},
            {"dataset": "d", "setting": "sounding.x", "metrics": {"nDCG@10": 0.2}}]
    res = ResultTable(rows)
    assert res.settings == ["sounding.x", "bm25s.x"]
    assert res.metric("d", "sounding.x", "nDCG@10") == 0.2 and "appears twice" in res.notes[0]


# -- headless Chromium ---------------------------------------------------------------------------------
def chromium(page: Path, profile: Path, *args: str) -> subprocess.CompletedProcess:
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--disable-dev-shm-usage", f"--user-data-dir={profile}", *args, page.as_uri()]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60)


@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium not installed (Debian: apt-get install chromium)")
def test_rendered_dom_and_screenshot(report, tmp_path):
    dom = chromium(report["html_path"], tmp_path / "profile", "--dump-dom")
    assert dom.returncode == 0, dom.stderr[-2000:]
    cells = Cells(dom.stdout)
    assert check_cells_against_rows(cells, report["rows"]) >= 80
    assert len(cells.cells) == len(Cells(report["html"]).cells)  # the browser dropped or moved nothing
    shot = tmp_path / "report.png"
    r = chromium(report["html_path"], tmp_path / "profile", f"--screenshot={shot}", "--window-size=1400,2000",
                 "--hide-scrollbars")
    assert r.returncode == 0 and shot.is_file(), r.stderr[-2000:]
    png = shot.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 30_000  # a blank 1400x2000 page is ~10 kB
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    assert (width, height) == (1400, 2000)
    artifacts = REPO / "test-artifacts"
    artifacts.mkdir(exist_ok=True)
    shutil.copy(shot, artifacts / "report.png")


# A probe added to a copy of the page (the report itself has no script): after layout it writes the window's
# width, the page's scroll width and, per table, its width and the width of the box it scrolls in.
LAYOUT_PROBE = """<script>{
  const root = document.documentElement;
  const tables = [...document.querySelectorAll("table")].map(t => ({
    caption: (t.caption ? t.caption.textContent : "") || t.closest("section").id,
    width: t.getBoundingClientRect().width, box: t.parentElement.getBoundingClientRect().width,
    box_right: t.parentElement.getBoundingClientRect().right, scrolls: t.parentElement.scrollWidth}));
  const probe = document.createElement("pre");
  probe.id = "layout";
  probe.textContent = JSON.stringify({viewport: root.clientWidth, page: root.scrollWidth, tables});
  document.body.append(probe);
}</script>"""


def layout_at_1400(page: str, tmp_path: Path) -> dict:
    """The page laid out by headless Chromium in a window 1400 px wide (scroll bars hidden)."""
    probe = tmp_path / "probe.html"
    probe.write_text(page.replace("</body>", LAYOUT_PROBE + "</body>"), encoding="utf-8")
    dom = chromium(probe, tmp_path / "profile", "--hide-scrollbars", "--window-size=1400,2000", "--dump-dom")
    assert dom.returncode == 0, dom.stderr[-2000:]
    found = re.search(r'<pre id="layout">(.*?)</pre>', dom.stdout, flags=re.S)
    assert found, dom.stdout[-2000:]
    layout = json.loads(html.unescape(found.group(1)))
    assert layout["viewport"] == 1400 and layout["tables"]
    return layout


@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium not installed (Debian: apt-get install chromium)")
def test_every_table_fits_a_1400px_window(full, tmp_path):
    """The widest tables of a report (15 columns: your systems against BM25; 11: pool bias) fit without
    scrolling, and nothing makes the page wider than the window."""
    layout = layout_at_1400(full["html"], tmp_path)
    assert layout["page"] <= 1400
    wide = [(t["caption"], t["width"], t["box"]) for t in layout["tables"] if t["width"] > t["box"] + 0.5]
    assert not wide, wide
    assert all(t["box_right"] <= 1400 for t in layout["tables"])


@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium not installed (Debian: apt-get install chromium)")
def test_a_table_wider_than_the_window_scrolls_in_its_own_box(tmp_path):
    """All of BEIR (19 dataset columns, CQADupStack as one, and the mean) by 6 settings: the main tables are
    wider than the window and scroll inside their box; the page itself does not get wider."""
    datasets = ["msmarco", "trec-covid", "nfcorpus", "nq", "hotpotqa", "fiqa", "arguana", "webis-touche2020",
                "quora", "dbpedia-entity", "scidocs", "fever", "climate-fever", "scifact", "bioasq", "signal1m",
                "trec-news", "robust04"] + [f"cqadupstack-{f}" for f in ("android", "english", "gaming", "gis")]
    settings = [*SETTINGS, "tantivy.bm25.flat.anserini", "pyserini.bm25.multifield.anserini"]
    rows = [{"dataset": d, "setting": s, "engine": s.split(".")[0], "arm": "bm25", "layout": s.split(".")[2],
             "k1": 0.9, "b": 0.4, "metrics": {"nDCG@10": 0.3 + 0.01 * i, "R@100": 0.7 + 0.01 * j}}
            for i, d in enumerate(datasets) for j, s in enumerate(settings)]
    layout = layout_at_1400(html_report(rows, {}), tmp_path)
    assert layout["page"] <= 1400
    scrolling = [t for t in layout["tables"] if t["width"] > t["box"] + 0.5]
    assert {t["caption"] for t in scrolling} >= {"nDCG@10", "R@100"}
    assert all(t["box_right"] <= 1400 and t["scrolls"] >= t["width"] - 0.5 for t in scrolling)


def test_reused_rows_are_listed_with_their_date(tmp_path):
    rows = make_out(tmp_path)
    rows[0].update(reused=True, computed="2026-11-28T10:00:00+00:00")
    rows[5].update(reused=True, computed="2026-11-27T09:00:00+00:00")
    md = markdown_report(rows, {})
    assert "2 of 16 rows were reused from earlier runs into this folder" in md
    assert f"| scifact | {FLAT_A} | 2026-11-28T10:00:00+00:00 |" in md
    assert f"| arguana | {MULTI_A} | 2026-11-27T09:00:00+00:00 |" in md
    assert "were reused" not in markdown_report(make_out(tmp_path / "fresh"), {})
