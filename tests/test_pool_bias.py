"""Pool-bias measures: nDCG'@k (judged-only list, trec_eval -J) and bpref, by hand and against trec_eval.

Three references:
- hand-computed cases, which always run;
- pytrec_eval (trec_eval's C code in-process, full double precision), which always runs: every value to 1e-12;
- a trec_eval 10 binary, from $SOUNDING_TREC_EVAL or `trec_eval` on PATH (skipped, saying so, without one):
  `-q -c -J -m ndcg_cut.1,2,3,5,10 -m ndcg` and `-q -c -m bpref`, per query. A stock build prints 4
  decimals, so its values can only be matched to half a unit of the 4th decimal; a build that prints full
  precision (`%.17g` instead of `%6.4f` in meas_print_single.c) is matched to 1e-12. The tolerance follows
  from what the binary prints.
"""
import json
import math
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
import pytrec_eval
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sounding.errors import SoundingError
from sounding.eval import evaluate, parse_measure, per_query_arrays
from sounding.eval.metrics import unjudged_in_top
from sounding.experiment import run_experiment
from sounding.report import html_report, markdown_report
from trec_eval_binary import TREC_EVAL, binary_tolerance, needs_trec_eval, run_trec_eval

CUTS = (1, 2, 3, 5, 10)
DOCS = ["a", "b", "c", "d", "e", "f", "g", "9", "10", "100", "x1", "x2", "y", "q1", "q2"]


def ranked(docids):
    """A run for one query that ranks `docids` in the given order (distinct, descending scores)."""
    return {d: float(len(docids) - i) for i, d in enumerate(docids)}


# ------------------------------------------------------------------------------------------- by hand


def test_judged_only_list_drops_unjudged_and_negative_hits_then_ranks_again():
    # ranking x b n a y c; x and y unjudged, n graded -1 (in the pool, not judged): judged-only list b a c
    qrels = {"q": {"a": 1, "b": 0, "c": 2, "n": -1}}
    run = {"q": ranked(["x", "b", "n", "a", "y", "c"])}
    idcg = 2 + 1 / math.log2(3)
    r = evaluate(qrels, run, ["nDCG'@10", "nDCG'@1", "nDCG'@2", "nDCG'", "nDCG@10"])
    assert r["nDCG'@10"] == pytest.approx((1 / math.log2(3) + 2 / math.log2(4)) / idcg, abs=1e-12)
    assert r["nDCG'"] == r["nDCG'@10"]
    assert r["nDCG'@1"] == 0.0  # b, grade 0, heads the judged-only list
    assert r["nDCG'@2"] == pytest.approx((1 / math.log2(3)) / idcg, abs=1e-12)
    assert r["nDCG@10"] == pytest.approx((1 / math.log2(5) + 2 / math.log2(7)) / idcg, abs=1e-12)


def test_bpref_counts_judged_nonrelevant_above_each_relevant_hit():
    # R = 3 (a, b, c), N = 4 (n1..n4); ranking: a, x (unjudged), n1, b, n2, n3, c; d never retrieved
    qrels = {"q": {"a": 1, "b": 2, "c": 1, "n1": 0, "n2": 0, "n3": 0, "n4": 0}}
    run = {"q": ranked(["a", "x", "n1", "b", "n2", "n3", "c"])}
    # a: no non-relevant above -> 1; b: 1 above -> 1 - 1/min(4, 3); c: 3 above -> 1 - 3/3
    expected = (1 + (1 - 1 / 3) + 0) / 3
    assert evaluate(qrels, run, ["bpref"])["bpref"] == pytest.approx(expected, abs=1e-12)


def test_bpref_caps_the_non_relevant_count_at_r():
    # R = 1, N = 5: with 3 non-relevant above it, the relevant hit adds 1 - min(3, 1)/min(5, 1) = 0
    qrels = {"q": {"r": 1, **{f"n{i}": 0 for i in range(5)}}}
    assert evaluate(qrels, {"q": ranked(["n0", "n1", "n2", "r"])}, ["bpref"])["bpref"] == 0.0
    # N = 1 < R = 2: one non-relevant above the second relevant hit costs it 1/min(1, 2) = everything
    qrels = {"q": {"r1": 1, "r2": 1, "n": 0}}
    assert evaluate(qrels, {"q": ranked(["r1", "n", "r2"])}, ["bpref"])["bpref"] == pytest.approx(0.5)


def test_without_non_relevant_judgements_bpref_is_the_share_of_relevant_retrieved():
    # BEIR's scifact, nfcorpus and arguana qrels hold only positive grades: then the judged-only list holds
    # only relevant hits, bpref = relevant retrieved / R, and nDCG' ignores everything else in the ranking
    qrels = {"q": {"a": 1, "b": 1, "c": 1, "d": 1}}
    run = {"q": ranked([f"x{i}" for i in range(20)] + ["a", "c"])}
    r = evaluate(qrels, run, ["bpref", "nDCG'@10", "nDCG@10", "judged@10"])
    assert r["bpref"] == 0.5 and r["nDCG@10"] == 0.0 and r["judged@10"] == 0.0
    idcg = sum(1 / math.log2(i + 2) for i in range(4))
    assert r["nDCG'@10"] == pytest.approx((1 + 1 / math.log2(3)) / idcg, abs=1e-12)


def test_ties_order_the_judged_only_list_by_docid_descending_even_deep_in_the_ranking():
    # 50 unjudged hits ahead, then a, b, c tied: trec_eval order c, b, a (docid descending)
    run = {"q": {**{f"u{i:02d}": 10.0 - i / 100 for i in range(50)}, "a": 1.0, "b": 1.0, "c": 1.0}}
    qrels = {"q": {"a": 2, "b": 0, "c": 1}}
    idcg = 2 + 1 / math.log2(3)
    r = evaluate(qrels, run, ["nDCG'@1", "nDCG'@3", "bpref"])
    assert r["nDCG'@1"] == pytest.approx(1 / 2, abs=1e-12)  # c first; the ideal top 1 is a (grade 2)
    assert r["nDCG'@3"] == pytest.approx((1 + 2 / math.log2(4)) / idcg, abs=1e-12)  # c, b, a
    assert r["bpref"] == pytest.approx((1 + 0) / 2)  # c: nothing above; a: b above, 1 - 1/min(1, 2)


def test_grade_zero_only_missing_and_self_hit_queries():
    qrels = {"q1": {"a": 0, "b": 0}, "q2": {"a": 1}, "q3": {"q3": 1, "a": 1, "b": 0}}
    run = {"q1": ranked(["a", "b"]), "q3": ranked(["q3", "b", "a"])}
    r = evaluate(qrels, run, ["nDCG'@10", "bpref"], per_query=True)
    assert r["per_query"]["bpref"] == {"q1": 0.0, "q2": 0.0, "q3": 0.5}
    assert r["per_query"]["nDCG'@10"]["q1"] == 0.0 and r["per_query"]["nDCG'@10"]["q2"] == 0.0
    r = evaluate(qrels, run, ["bpref"], remove_self_hits=True, per_query=True)
    assert r["per_query"]["bpref"]["q3"] == 0.0  # q3 (relevant) dropped: a has b above, 1 - 1/min(1, 2)


@pytest.mark.parametrize("text, canonical", [
    ("nDCG'@10", "nDCG'@10"), ("ndcg'@10", "nDCG'@10"), ("nDCG(judged_only=True)@10", "nDCG'@10"),
    ("nDCG'", "nDCG'"), ("bpref", "bpref"), ("Bpref", "bpref"), ("BPREF", "bpref"),
    ("nDCG(judged_only=False)@10", "nDCG@10"),  # ir_measures' default, written out
])
def test_names(text, canonical):
    m = parse_measure(text)
    assert str(m) == canonical and m.judged_only == canonical.startswith("nDCG'")


@pytest.mark.parametrize("text", ["bpref@10", "nDCG''@10", "judged'@10", "nDCG'(judged_only=False)@10", "nDCG'@0"])
def test_bad_names_are_one_line_user_errors(text):
    with pytest.raises(SoundingError) as e:
        parse_measure(text)
    assert "\n" not in str(e.value)


# ---------------------------------------------------------------------------------------- random data


@st.composite
def collections(draw):
    """Graded qrels (-1..3) and runs with ties, unjudged hits, judged queries without hits, self hits."""
    qrels, run = {}, {}
    for q in draw(st.lists(st.sampled_from(["q1", "q2", "q3", "q4"]), min_size=1, max_size=4, unique=True)):
        if draw(st.booleans()) or not qrels:
            qrels[q] = draw(st.dictionaries(st.sampled_from(DOCS), st.integers(-1, 3), max_size=10))
        if draw(st.integers(0, 4)):
            run[q] = draw(st.dictionaries(st.sampled_from(DOCS), st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.0, -1.0, 0.25]),
                                          max_size=14))
    if not any(qrels.values()):
        qrels[next(iter(qrels))] = {"a": 1}
    return qrels, run


def without_self_hits(run):
    return {q: {d: s for d, s in h.items() if d != q} for q, h in run.items()}


PYTREC_PAIRS = [(f"nDCG'@{k}", f"ndcg_cut_{k}") for k in CUTS]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections(), st.booleans())
def test_matches_pytrec_eval_per_query(data, remove_self_hits):
    qrels, run = data
    names = [m for m, _ in PYTREC_PAIRS] + ["bpref"]
    qids, ours = per_query_arrays(qrels, run, names, remove_self_hits=remove_self_hits)
    judged = {q: j for q, j in qrels.items() if j}
    ref_run = {q: h for q, h in (without_self_hits(run) if remove_self_hits else run).items() if h}
    cond = pytrec_eval.RelevanceEvaluator(judged, {r for _, r in PYTREC_PAIRS}, judged_docs_only_flag=True)
    cond = cond.evaluate(ref_run)
    plain = pytrec_eval.RelevanceEvaluator(judged, {"bpref"}).evaluate(ref_run)
    for name, ref_name in PYTREC_PAIRS:
        expected = [cond.get(q, {}).get(ref_name, 0.0) for q in qids]  # -c: a judged query without hits is 0
        np.testing.assert_allclose(ours[name], expected, rtol=0, atol=1e-12, err_msg=f"{name} vs -J {ref_name}")
    expected = [plain.get(q, {}).get("bpref", 0.0) for q in qids]
    np.testing.assert_allclose(ours["bpref"], expected, rtol=0, atol=1e-12, err_msg="bpref")


# -- trec_eval 10 binary ------------------------------------------------------------------------------


@needs_trec_eval
def test_trec_eval_binary_is_version_10():
    version = subprocess.run([TREC_EVAL, "-v"], capture_output=True, text=True, timeout=30)
    assert "version 10" in version.stdout + version.stderr


@needs_trec_eval
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections(), st.booleans())
def test_matches_trec_eval_10_binary_per_query(data, remove_self_hits):
    qrels, run = data
    names = [f"nDCG'@{k}" for k in CUTS] + ["nDCG'", "bpref"]
    qids, ours = per_query_arrays(qrels, run, names, remove_self_hits=remove_self_hits)
    # trec_eval refuses a query judged only with negative grades (form_res_rels finds no relevance level);
    # Sounding scores it 0, as a query judged only with grade 0
    scorable = {q for q, j in qrels.items() if any(g >= 0 for g in j.values())}
    for i, q in enumerate(qids):
        if q not in scorable:
            assert all(v[i] == 0 for v in ours.values()), q
    judged = {q: j for q, j in qrels.items() if q in scorable}
    ref_run = {q: h for q, h in (without_self_hits(run) if remove_self_hits else run).items() if h and q in scorable}
    if not ref_run:  # trec_eval needs at least one result line; with none every value is 0
        assert all((v == 0).all() for v in ours.values())
        return
    cond = run_trec_eval(["-J", "-m", "ndcg_cut." + ",".join(map(str, CUTS)), "-m", "ndcg"], judged, ref_run)
    plain = run_trec_eval(["-m", "bpref"], judged, ref_run)
    tol = binary_tolerance()
    refs = [(f"nDCG'@{k}", cond, f"ndcg_cut_{k}") for k in CUTS] + [("nDCG'", cond, "ndcg"), ("bpref", plain, "bpref")]
    for name, printed, ref_name in refs:
        for i, q in enumerate(qids):
            if q not in scorable:
                continue
            text = printed.get((ref_name, q), "0")  # -c: a judged query without hits is 0
            assert abs(ours[name][i] - float(text)) <= tol, (name, q, ours[name][i], text)


# ------------------------------------------------------------------------------- rows, report, CLI


def test_unjudged_in_top_counts_holes_in_trec_order():
    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"c": 1}, "q3": {"q3": 1, "a": 0}}
    run = {"q1": {"x": 3.0, "a": 2.0, "y": 2.0, "b": 1.0}, "q3": {"q3": 5.0, "z": 1.0}}
    # q1 in trec order: x, y (tied with a, larger docid first), a, b
    assert unjudged_in_top(qrels, run, 1) == {"q1": 1, "q2": 0, "q3": 0}
    assert unjudged_in_top(qrels, run, 3) == {"q1": 2, "q2": 0, "q3": 1}
    assert unjudged_in_top(qrels, run, 1, remove_self_hits=True)["q3"] == 1  # q3's own hit dropped: z first
    with pytest.raises(SoundingError):
        unjudged_in_top(qrels, run, 0)


def make_beir(root):
    root.mkdir(parents=True)
    docs = {"d1": "virus replication in host cells", "d2": "protein folding chaperones",
            "d3": "tumor cells divide quickly", "d4": "virus proteins fold in cells", "d5": "cells under stress"}
    (root / "corpus.jsonl").write_text("".join(json.dumps({"_id": i, "title": "", "text": t}) + "\n"
                                               for i, t in docs.items()))
    queries = {"q1": "virus cells", "q2": "protein folding", "q3": "tumor cells"}
    (root / "queries.jsonl").write_text("".join(json.dumps({"_id": q, "text": t}) + "\n" for q, t in queries.items()))
    (root / "qrels").mkdir()
    (root / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td4\t1\nq1\td1\t0\nq2\td2\t2\nq3\td3\t1\n")
    return root


def test_sounding_run_rows_carry_the_pool_bias_measures_and_holes(tmp_path):
    data = make_beir(tmp_path / "toy")
    res = run_experiment([str(data)], tmp_path / "out", layouts=["flat"], params=["anserini"], log=lambda m: None)
    row = res.to_dicts()[0]
    assert {"nDCG'@10", "bpref", "judged@10"} <= set(row["metrics"])
    qrels = {"q1": {"d4": 1, "d1": 0}, "q2": {"d2": 2}, "q3": {"d3": 1}}
    from sounding.eval import read_run

    run = read_run(tmp_path / "out" / row["run_file"])
    assert row["metrics"]["nDCG'@10"] == evaluate(qrels, run, ["nDCG'@10"], remove_self_hits=True)["nDCG'@10"]
    holes = unjudged_in_top(qrels, run, 10, remove_self_hits=True)
    assert row["pool"]["judged_nonrelevant"] == 1 and row["pool"]["k"] == 10
    assert row["pool"]["queries_with_unjudged"] == sum(1 for n in holes.values() if n)
    assert row["pool"]["most_unjudged"] == sorted(([q, n] for q, n in holes.items() if n), key=lambda x: (-x[1], x[0]))
    per_query = json.loads((tmp_path / "out" / row["per_query_file"]).read_text())
    assert per_query["unjudged@10"] == holes and set(per_query["bpref"]) == {"q1", "q2", "q3"}


class Cells(HTMLParser):
    """Every <td> of a page: its attributes and visible text."""

    def __init__(self, page: str):
        super().__init__()
        self.cells: list[dict] = []
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        if tag == "td":
            self.cells.append({**dict(attrs), "text": ""})

    def handle_data(self, data):
        if self.cells and self.lasttag == "td":
            self.cells[-1]["text"] += data

    def one(self, **want) -> dict:
        found = [c for c in self.cells if all(c.get(f"data-{k}") == v for k, v in want.items())]
        assert len(found) == 1, (want, found)
        return found[0]


BM25, DENSE, HYBRID = "sounding.bm25.flat.anserini", "sounding.dense.minilm", "sounding.hybrid.minilm"


def pool_rows(nonrelevant: int = 0) -> list[dict]:
    figures = {  # setting -> (arm, nDCG@10, nDCG'@10, judged@10, bpref, most unjudged)
        BM25: ("bm25", 0.66, 0.70, 0.30, 0.90, [["q3", 6]]),
        DENSE: ("dense", 0.60, 0.75, 0.20, 0.92, [["q7", 9], ["q3", 8]]),
        HYBRID: ("hybrid", 0.68, 0.72, 0.25, 0.93, []),
    }
    return [{"dataset": "scifact", "setting": s, "engine": "sounding", "arm": arm,
             "metrics": {"nDCG@10": a, "nDCG'@10": b, "judged@10": j, "bpref": bp},
             "pool": {"k": 10, "queries_with_unjudged": len(worst), "most_unjudged": worst,
                      "judged_nonrelevant": nonrelevant}}
            for s, (arm, a, b, j, bp, worst) in figures.items()]


def test_report_pool_bias_section_places_gaps_and_holes():
    page, md = html_report(pool_rows(), {}), markdown_report(pool_rows(), {})
    assert "## Pool bias: judgement coverage and judged-only scores" in md and 'id="pool-bias"' in page
    cells = Cells(page)
    place = {s: (cells.one(kind="pool-place", setting=s, measure="nDCG@10")["text"],
                 cells.one(kind="pool-place", setting=s, measure="nDCG'@10")["text"],
                 cells.one(kind="pool-place-change", setting=s)["text"]) for s in (BM25, DENSE, HYBRID)}
    assert place == {BM25: ("2", "3", "-1"), DENSE: ("3", "1", "+2"), HYBRID: ("1", "2", "-1")}
    diff = cells.one(kind="pool-diff", setting=DENSE)
    assert float(diff["data-value"]) == pytest.approx(0.15) and diff["text"] == "+0.1500"
    gap = cells.one(kind="pool-gap", setting=DENSE, measure="nDCG'@10")
    assert float(gap["data-value"]) == pytest.approx(0.05)
    assert "sign flips: -0.0600 → +0.0500" in md and "| +0.0200 | +0.0200 | +0.0300 | gap unchanged |" in md
    assert "q7 (9), q3 (8)" in md and "q3 (6)" in md
    assert "the qrels hold no judged non-relevant document" in md
    assert "no judged non-relevant" not in markdown_report(pool_rows(nonrelevant=12), {})


def test_report_pool_bias_section_without_the_measures():
    rows = pool_rows()
    for r in rows:
        del r["metrics"]["nDCG'@10"], r["pool"]
    assert "nDCG'@10 is not recorded in this run." in markdown_report(rows, {})


def test_cli_eval_and_compare_take_the_judged_only_measures(tmp_path, capsys):
    from sounding.cli import main

    (tmp_path / "qrels").write_text("q1 0 a 1\nq1 0 b 0\nq2 0 c 2\nq2 0 e 0\nq3 0 d 1\n")
    (tmp_path / "a.run").write_text("q1 Q0 x 1 3.0 A\nq1 Q0 a 2 2.0 A\nq2 Q0 e 1 5.0 A\nq2 Q0 c 2 4.0 A\n"
                                    "q3 Q0 y 1 2.0 A\nq3 Q0 d 2 1.0 A\n")
    (tmp_path / "b.run").write_text("q1 Q0 b 1 3.0 B\nq1 Q0 a 2 2.0 B\nq2 Q0 c 1 5.0 B\nq3 Q0 z 1 1.0 B\n")
    qrels, a = str(tmp_path / "qrels"), str(tmp_path / "a.run")
    assert main(["eval", qrels, a, "-m", "nDCG'@10", "-m", "bpref", "-m", "nDCG@10", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert list(result) == ["nDCG'@10", "bpref", "nDCG@10"]
    assert result["nDCG'@10"] == pytest.approx((1 + 2 / math.log2(3) / 2 + 1) / 3)  # q1 a first, q2 e then c, q3 d
    assert result["bpref"] == pytest.approx((1 + 0 + 1) / 3)
    assert main(["compare", qrels, a, str(tmp_path / "b.run"), "-m", "nDCG'@10", "-m", "nDCG@10", "--json",
                 "--permutations", "200"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"nDCG'@10", "nDCG@10"} and out["nDCG'@10"]["mean_a"] == pytest.approx(result["nDCG'@10"])
    assert main(["eval", qrels, a, "-m", "bpref@10"]) == 2
    err = capsys.readouterr().err
    assert "bpref takes no cutoff" in err and err.count("\n") == 1  # one line, no traceback
