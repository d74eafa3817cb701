"""Anserini's tie handling, compiled, against a line-by-line Python statement of what Pyserini does."""
import numpy as np
import pytest

from sounding.search.kernels.ties import apply_anserini_ties


def pyserini_reference(docs, scores, counts, k, rank):
    """Lucene's order (score desc, docid asc), the top k, ScoreTiesAdjusterReranker, then "%.6f"."""
    f32 = np.float32
    out_docs = np.full((len(docs), k), -1, dtype=np.int64)
    out_scores = np.zeros((len(docs), k), dtype=np.float64)
    out_n = np.minimum(counts, k)
    for q in range(len(docs)):
        n = int(counts[q])
        d, s = docs[q, :n], scores[q, :n]
        order = np.lexsort((rank[d].astype(np.int64), -s))[:k]
        prev, dup = None, 0
        for j, i in enumerate(order):
            r = f32(np.floor(float(s[i]) * 1e4 + 0.5) / 1e4)
            if j == 0 or f32(prev - r) > f32(1e-4):
                dup = 0
            else:
                dup += 1
                r = f32(r - f32(f32(1e-6) * dup))
            prev = r
            out_docs[q, j] = d[i]
            out_scores[q, j] = float(f"{float(r):.6f}")
    return out_docs, out_scores, out_n


@pytest.mark.parametrize("seed", range(6))
def test_equal_to_the_reference_on_ties_near_ties_and_cuts(seed):
    rng = np.random.default_rng(seed)
    for trial in range(60):
        nq, width, n_docs = int(rng.integers(1, 6)), int(rng.integers(1, 60)), 200
        k = int(rng.integers(1, width + 3))
        docs = np.full((nq, width), -1, np.int64)
        scores = np.zeros((nq, width), np.float32)
        counts = np.zeros(nq, np.int64)
        for q in range(nq):
            n = int(rng.integers(0, width + 1))
            counts[q] = n
            docs[q, :n] = rng.choice(n_docs, n, replace=False)
            base = rng.choice([0.0, 1.0, 2.5, 7.12345], n) + rng.choice([0, 1e-5, 3e-5, 1e-4, 2e-4, 0.3], n)
            base += rng.random(n) * 1e-3 if trial % 2 else 0.0  # near ties as well as exact ones
            scores[q, :n] = np.sort(base.astype(np.float32))[::-1]
        rank = rng.permutation(n_docs).astype(np.uint32)
        got = apply_anserini_ties(docs, scores, counts, k, rank)
        want = pyserini_reference(docs, scores, counts, k, rank)
        for g, w in zip(got, want):
            assert g.dtype == w.dtype and np.array_equal(g, w)


def test_printed_scores_without_strings():
    """rint(float32 × 10^6) / 10^6 is the double that Python's "%.6f" of the float32 reads back as."""
    rng = np.random.default_rng(7)
    vals = np.concatenate([rng.random(200_000).astype(np.float32) * 30,
                           (np.floor(rng.random(50_000) * 3e5 + 0.5) / 1e4).astype(np.float32),
                           (np.arange(0, 20_000) / 1e6).astype(np.float32),
                           np.array([0.0, 5e-7, 1.5e-6, 2.5e-6, -1e-6], np.float32)])
    text = np.array([float(f"{float(v):.6f}") for v in vals])
    assert np.array_equal(text.view(np.uint64), (np.rint(vals.astype(np.float64) * 1e6) / 1e6).view(np.uint64))


@pytest.mark.parametrize("layout", ["flat", "multifield", "multifield-max"])
def test_lucene_keeps_the_lowest_ids_of_ties_at_the_cut(tmp_path, layout):
    """Lucene keeps, of documents tied at the cut, those with the lowest ids, however many tie: here 12 documents
    score the same for k = 3 (more than 2k), and the kernels must cut in that order, not trec_eval's."""
    from sounding.datasets import Document
    from sounding.index import build_index
    from sounding.search import Searcher

    docs = [Document(f"d{i:02d}", "same title", "same words here", i + 1) for i in range(12)]
    docs += [Document("top", "same title", "same words here here here", 99)]
    build_index(docs, tmp_path / "ix", workers=1)
    searcher = Searcher(tmp_path / "ix")
    res = searcher.search({"q": "same words here"}, layout=layout, k=3, lucene_norms=True, anserini_ties=True)
    assert [d for d, _ in res.hits(0)] == ["top", "d00", "d01"]
    plain = searcher.search({"q": "same words here"}, layout=layout, k=3, lucene_norms=True)
    assert [d for d, _ in plain.hits(0)] == ["top", "d11", "d10"]  # trec_eval's order: ties by id descending


def test_shards_cut_ties_as_one_index(tmp_path):
    """A sharded index cuts ties at k in Lucene's order too: the same hits as one index, however many tie."""
    from sounding.datasets import Document
    from sounding.index import build_index
    from sounding.scale import ShardedSearcher, build_shards
    from sounding.search import Searcher

    docs = [Document(f"d{i:02d}", "same title", "same words here", i + 1) for i in range(12)]
    docs += [Document("top", "same title", "same words here here here", 99)]
    build_index(docs, tmp_path / "ix", workers=1)
    build_shards(docs, tmp_path / "sh", 3)
    one = Searcher(tmp_path / "ix").search({"q": "same words here"}, k=3, lucene_norms=True, anserini_ties=True)
    sharded = ShardedSearcher(tmp_path / "sh").search({"q": "same words here"}, k=3, lucene_norms=True,
                                                     anserini_ties=True)
    assert sharded.to_run() == one.to_run() and list(one.to_run()["q"]) == ["top", "d00", "d01"]


def test_lucene_ties_with_proximity_is_refused(tmp_path):
    from sounding.datasets import Document
    from sounding.errors import SoundingError
    from sounding.index import build_index
    from sounding.search import Searcher

    build_index([Document("a", "t", "x y", 1)], tmp_path / "ix", workers=1, positions=True)
    with pytest.raises(SoundingError, match="lucene_ties"):
        Searcher(tmp_path / "ix").search({"q": "x"}, k=1, lucene_ties=True, proximity=0.5)
