"""Fusion: RRF, weighted RRF, linear (min-max), ties, sweep — every expected value computed by hand."""
import pytest

from sounding.errors import SoundingError
from sounding.eval import evaluate
from sounding.retrieval.fusion import fuse, linear, minmax, parse_method, rrf, sweep, weighted_rrf

LEX = {"q1": {"a": 3.0, "b": 2.0, "c": 1.0}}
DEN = {"q1": {"b": 0.9, "d": 0.8, "a": 0.1}}


def test_rrf_k60_by_hand():
    # ranks: lexical a1 b2 c3, dense b1 d2 a3
    out = rrf([LEX, DEN], k=60)["q1"]
    assert out["a"] == pytest.approx(1 / 61 + 1 / 63)
    assert out["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert out["c"] == pytest.approx(1 / 63)
    assert out["d"] == pytest.approx(1 / 62)
    assert list(out) == ["b", "a", "d", "c"]


def test_weighted_rrf_defaults_k10_ratio075_by_hand():
    out = weighted_rrf(LEX, DEN)["q1"]
    assert out["a"] == pytest.approx(0.25 / 11 + 0.75 / 13)  # 0.0804196
    assert out["b"] == pytest.approx(0.25 / 12 + 0.75 / 11)  # 0.0890152
    assert out["c"] == pytest.approx(0.25 / 13)
    assert out["d"] == pytest.approx(0.75 / 12)  # 0.0625: dense-only d beats lexical-only c
    assert list(out) == ["b", "a", "d", "c"]
    # ratio 0: lexical only (the dense arm adds nothing, dense-only d disappears)
    lex_only = weighted_rrf(LEX, DEN, semantic_ratio=0.0)["q1"]
    assert list(lex_only) == ["a", "b", "c"]
    assert lex_only["a"] == pytest.approx(1 / 11)


def test_linear_minmax_missing_doc_gets_zero_by_hand():
    # lexical minmax: a 1, b 0.5, c 0;  dense minmax: b 1, d (0.8-0.1)/0.8 = 0.875, a 0
    out = linear(LEX, DEN, alpha=0.5)["q1"]
    assert out == pytest.approx({"a": 0.5, "b": 0.75, "c": 0.0, "d": 0.4375})
    assert list(out) == ["b", "a", "d", "c"]
    out9 = linear(LEX, DEN, alpha=0.9)["q1"]
    assert out9 == pytest.approx({"a": 0.1, "b": 0.95, "c": 0.0, "d": 0.7875})


def test_minmax_constant_and_depth():
    assert minmax({"x": 2.0, "y": 2.0}) == {"x": 1.0, "y": 1.0}  # all-equal scores map to 1
    assert minmax({}) == {}
    # depth 2: only the top-2 (a, b) are normalised; c is outside the arm's top-k → missing
    assert minmax({"a": 3.0, "b": 2.0, "c": 1.0}, depth=2) == {"a": 1.0, "b": 0.0}


def test_ties_by_docid_descending_in_inputs_and_output():
    # inputs: equal scores rank by doc id descending (trec_eval): lexical y1 x2, dense x1 y2
    a = {"q": {"x": 1.0, "y": 1.0}}
    b = {"q": {"x": 2.0, "y": 1.0}}
    out = rrf([a, b], k=60)["q"]
    assert out["x"] == out["y"] == pytest.approx(1 / 61 + 1 / 62)
    assert list(out) == ["y", "x"]  # fused tie → doc id descending
    lin = linear({"q": {"m": 1.0}}, {"q": {"n": 5.0}}, alpha=0.5)["q"]
    assert lin == {"n": 0.5, "m": 0.5} and list(lin) == ["n", "m"]


def test_queries_missing_from_one_arm_and_cut():
    out = weighted_rrf({"q1": {"a": 1.0}}, {"q2": {"b": 1.0}})
    assert out["q1"] == pytest.approx({"a": 0.25 / 11})
    assert out["q2"] == pytest.approx({"b": 0.75 / 11})
    big = {"q": {f"d{i:03d}": float(i) for i in range(50)}}
    cut = rrf([big], k=60, k_out=5)["q"]
    assert list(cut) == ["d049", "d048", "d047", "d046", "d045"]


def test_parse_and_fuse_by_name():
    assert parse_method("wrrf") == ("wrrf", {})
    assert parse_method("wrrf-k20-r0.6") == ("wrrf", {"k": 20.0, "semantic_ratio": 0.6})
    assert parse_method("linear0.3") == ("linear", {"alpha": 0.3})
    assert parse_method("rrf-k40") == ("rrf", {"k": 40.0})
    assert fuse("rrf", LEX, DEN) == rrf([LEX, DEN], 60)
    assert fuse("wrrf", LEX, DEN) == weighted_rrf(LEX, DEN, 10, 0.75)
    assert fuse("linear0.9", LEX, DEN) == linear(LEX, DEN, 0.9)
    for bad in ("borda", "wrrf-x3", "linear-a"):
        with pytest.raises(SoundingError):
            parse_method(bad)
    with pytest.raises(SoundingError):
        linear(LEX, DEN, alpha=1.5)
    with pytest.raises(SoundingError):
        weighted_rrf(LEX, DEN, semantic_ratio=-0.1)


def test_sweep_rows_and_best():
    qrels = {"q1": {"d": 1, "b": 1}, "q2": {"x": 1}}
    lex = {"q1": {"a": 3.0, "b": 2.0, "c": 1.0}, "q2": {"x": 1.0, "y": 0.5}}
    den = {"q1": {"d": 0.9, "b": 0.8, "a": 0.1}, "q2": {"y": 0.9, "x": 0.2}}
    res = sweep(qrels, lex, den, rrf_ks=(10, 60), ratios=(0.5, 0.75), alphas=(0.5,))
    names = [r["setting"] for r in res.rows]
    assert names == ["lexical", "dense", "rrf-k10", "rrf-k60", "wrrf-k10-r0.5", "wrrf-k10-r0.75",
                     "wrrf-k60-r0.5", "wrrf-k60-r0.75", "linear-a0.5"]
    want = evaluate(qrels, weighted_rrf(lex, den, 10, 0.75), ["nDCG@10", "R@100"], remove_self_hits=True)
    row = res.row("wrrf-k10-r0.75")
    assert row["nDCG@10"] == pytest.approx(want["nDCG@10"]) and row["R@100"] == pytest.approx(want["R@100"])
    best = res.best("nDCG@10")
    assert best["method"] in ("rrf", "wrrf", "linear")
    assert best["nDCG@10"] == max(r["nDCG@10"] for r in res.rows if r["method"] not in ("lexical", "dense"))
