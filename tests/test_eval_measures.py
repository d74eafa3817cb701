"""Measure names: ir_measures notation, common spellings, and clear errors."""
import pytest

from sounding.errors import SoundingError
from sounding.eval import Measure, parse_measure, parse_measures


@pytest.mark.parametrize(
    "text, canonical",
    [
        ("nDCG@10", "nDCG@10"), ("ndcg@10", "nDCG@10"), ("ndcg_cut_10", "nDCG@10"), ("ndcg_cut.10", "nDCG@10"),
        ("nDCG", "nDCG"), ("R@100", "R@100"), ("recall@100", "R@100"), ("recall_100", "R@100"),
        ("recall.100", "R@100"), ("P@10", "P@10"), ("P_10", "P@10"), ("MRR@100", "RR@100"), ("mrr@10", "RR@10"),
        ("RR", "RR"), ("recip_rank", "RR"), ("AP", "AP"), ("map", "AP"), ("map_cut_100", "AP@100"),
        ("AP@100", "AP@100"), ("Success@100", "Success@100"), ("success_10", "Success@10"),
        ("judged@10", "judged@10"), ("Judged@10", "judged@10"), (" nDCG@10 ", "nDCG@10"),
    ],
)
def test_spellings_map_to_canonical_names(text, canonical):
    assert str(parse_measure(text)) == canonical


@pytest.mark.parametrize("text", ["foo", "nDCG@", "nDCG@x", "bpref@10", "R", "P", "Success", "nDCG@0", "@10", "num_ret@10"])
def test_bad_names_are_user_errors_that_list_valid_measures(text):
    with pytest.raises(SoundingError) as e:
        parse_measure(text)
    assert "nDCG@k" in str(e.value) or "at least 1" in str(e.value)


def test_measure_is_a_small_frozen_value():
    m = Measure("nDCG", 10)
    assert str(m) == "nDCG@10" and m == parse_measure("ndcg_cut_10")
    with pytest.raises(AttributeError):
        m.k = 5  # frozen
    assert {m: 1}[parse_measure("ndcg@10")] == 1  # hashable


def test_pytrec_eval_names():
    assert [parse_measure(t).pytrec_eval_name for t in ("nDCG@10", "nDCG", "R@100", "P@5", "RR", "AP", "AP@100", "Success@1")] == [
        "ndcg_cut_10", "ndcg", "recall_100", "P_5", "recip_rank", "map", "map_cut_100", "success_1"]
    assert parse_measure("judged@10").pytrec_eval_name is None


def test_parse_measures_keeps_order_and_drops_repeats():
    assert [str(m) for m in parse_measures(["R@100", "ndcg@10", "nDCG@10", "recall_100"])] == ["R@100", "nDCG@10"]
    with pytest.raises(SoundingError):
        parse_measures([])
