"""Dataset profiles: features of a small BEIR-layout folder, the distance, stored BEIR shapes, the CLI."""
import json
import math

import pytest

import sounding.cli  # noqa: F401  (registers `profile`)
from sounding.cli import main
from sounding.experiment.profile import SHAPE_FEATURES, beir_profiles, distance, nearest, profile_dataset

BEIR_18 = {"trec-covid", "nfcorpus", "bioasq", "nq", "hotpotqa", "fiqa", "signal1m", "trec-news", "robust04",
           "arguana", "webis-touche2020", "cqadupstack", "quora", "dbpedia-entity", "scidocs", "fever",
           "climate-fever", "scifact"}


@pytest.fixture
def toy(tmp_path):
    """Four documents, two judged queries (one unjudged query that must not count)."""
    root = tmp_path / "toy"
    (root / "qrels").mkdir(parents=True)
    docs = [("d1", "Cats", "cats purr loudly"), ("d2", "", "dogs bark at night often"),
            ("d3", "Birds", "birds sing"), ("d4", "", "fish swim")]
    (root / "corpus.jsonl").write_text("".join(json.dumps({"_id": i, "title": t, "text": x}) + "\n" for i, t, x in docs))
    queries = [("q1", "why do cats purr"), ("q2", "dogs bark at night birds"), ("q3", "an unjudged query")]
    (root / "queries.jsonl").write_text("".join(json.dumps({"_id": i, "text": t}) + "\n" for i, t in queries))
    (root / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td3\t0\nq2\td2\t2\n")
    return root


def test_profile_of_a_small_folder(toy):
    p = profile_dataset(toy)
    assert p["docs"] == 4 and p["queries"] == 2
    assert p["query_words"] == 4.5  # (4 + 5) / 2: only judged queries
    assert p["doc_words"] == 3.5  # title + text: (4 + 5 + 3 + 2) / 4
    assert p["judgements_per_query"] == 1.5 and p["relevant_per_query"] == 1.0  # d3 is judged 0
    # q1: {why, do, cats, purr} vs d1 -> 2/4; q2: {dogs, bark, at, night, birds} vs d2 -> 4/5
    assert p["vocab_overlap"] == pytest.approx((0.5 + 0.8) / 2)
    # BM25 top 10: q1 finds d1 only (judged); q2 finds d2 (judged) and d3 (unjudged for q2)
    assert p["judged_at_10"] == pytest.approx((1.0 + 0.5) / 2)
    assert profile_dataset(toy, bm25=False)["judged_at_10"] is None


def test_distance_is_rms_of_log10_over_shared_features():
    a = {"docs": 1000, "queries": 100, "query_words": 10.0, "doc_words": None, "relevant_per_query": 1.0}
    b = {"docs": 100000, "queries": 100, "query_words": 10.0, "doc_words": 50.0}
    d, used = distance(a, b)
    assert used == ["docs", "queries", "query_words"]  # doc_words missing in a, relevant_per_query in b
    assert d == pytest.approx(math.sqrt(4 / 3))  # log10 differs by 2 on one of three features
    assert distance(b, a)[0] == d and distance(a, a)[0] == 0.0
    assert distance({"docs": 1}, {"queries": 1}) == (math.inf, [])


def test_nearest_orders_and_needs_enough_shared_features():
    cands = {"x": {"docs": 10, "queries": 10, "query_words": 10}, "y": {"docs": 100, "queries": 10, "query_words": 10},
             "z": {"docs": 10}}
    got = nearest({"docs": 10, "queries": 10, "query_words": 10}, cands, k=5)
    assert [n for n, _, _ in got] == ["x", "y"]  # z shares one feature only


def test_stored_beir_profiles():
    stored = beir_profiles()
    assert BEIR_18 <= set(stored) and set(stored) - BEIR_18 == {"msmarco"}
    for name, p in stored.items():
        assert p["source"].strip(), name
        assert all(p[f] is not None and p[f] > 0 for f in SHAPE_FEATURES), name
    # Table 1 of the BEIR paper (via its reproduction in the MoMA paper)
    assert stored["fiqa"]["query_words"] == 10.77 and stored["fiqa"]["doc_words"] == 132.32
    assert stored["trec-news"]["doc_words"] == 634.79 and stored["quora"]["doc_words"] == 11.44
    assert stored["climate-fever"]["docs"] == 5416593 and stored["trec-covid"]["relevant_per_query"] == 493.5
    assert stored["bioasq"]["relevant_per_query"] == 4.7 and stored["bioasq"]["query_words"] == 8.05
    assert stored["fiqa"]["judged_at_10"] is None and "BEIR paper" in stored["fiqa"]["source"]
    # computed from the real data
    assert stored["scifact"]["docs"] == 5183 and stored["scifact"]["queries"] == 300
    assert stored["arguana"]["judged_at_10"] is not None and stored["scifact"]["source"].startswith("computed")


def test_profile_cli_on_a_folder(toy, capsys):
    assert main(["profile", str(toy), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["profile"]["docs"] == 4 and len(out["nearest"]) == 5
    dists = [n["distance"] for n in out["nearest"]]
    assert dists == sorted(dists) and all(n["features"] for n in out["nearest"])
    assert main(["profile", str(toy), "--no-bm25", "--top", "3"]) == 0
    text = capsys.readouterr().out
    assert "profile of toy" in text and "nearest BEIR shapes" in text and "skipped (--no-bm25)" in text


def test_profile_cli_errors(tmp_path, toy, capsys):
    (toy / "corpus.jsonl").unlink()
    assert main(["profile", str(toy)]) == 2
    assert "no corpus" in capsys.readouterr().err


@pytest.mark.realdata
def test_scifact_matches_its_stored_shape_and_lists_other_sets(shared_data, beir_dir, capsys):
    beir_dir("scifact")
    assert main(["profile", "scifact", "--data-dir", str(shared_data), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert "scifact" not in [n["dataset"] for n in out["nearest"]] and len(out["nearest"]) == 5  # others only
    stored = beir_profiles()["scifact"]
    assert distance(out["profile"], stored)[0] < 1e-3
    for f in ("docs", "queries", "query_words", "doc_words", "relevant_per_query", "judged_at_10", "vocab_overlap"):
        assert out["profile"][f] == pytest.approx(stored[f], abs=1e-4), f
