"""Top-k selection kernels: the radix select + sort against numpy, and query-at-a-time search
(reused per-thread buffers) against batch search."""
import numpy as np
import pytest

from sounding.datasets import Document
from sounding.index import build_index
from sounding.search import Searcher
from sounding.search.kernels.selection import N_BUCKETS, select_top


@pytest.mark.parametrize("seed", range(3))
def test_select_top_equals_sorting_everything(seed):
    rng = np.random.default_rng(seed)
    hist = np.empty(N_BUCKETS, np.int64)
    for trial in range(100):
        n = int(rng.integers(0, 3000))
        k = int(rng.choice([1, 2, 10, 47, 48, 49, 100, 1000, 5000]))
        rank_bits = int(rng.integers(max(1, n).bit_length(), 25))
        scores = rng.random(n).astype(np.float32) * 30
        if trial % 3 == 0:  # few distinct scores: ties decided by the rank bits alone
            scores = np.round(scores / 10).astype(np.float32)
        spread = (1 << rank_bits) // max(n, 1)  # distinct ranks over the whole rank width
        ranks = (rng.permutation(n) * spread + rng.integers(0, spread)).astype(np.uint64)
        keys = (scores.view(np.uint32).astype(np.uint64) << np.uint64(rank_bits)) | ranks
        expected = np.sort(keys)[::-1][:k]
        out, tmp = np.empty(max(k, 1), np.uint64), np.empty(max(k, 1), np.uint64)
        m = select_top(keys.copy(), n, k, 31 + rank_bits, out, tmp, hist)
        assert m == len(expected)
        assert np.array_equal(out[:m], expected), (trial, n, k)


def test_query_at_a_time_equals_batch_for_every_layout(tmp_path):
    rng = np.random.default_rng(3)
    words = ["alpha", "beta", "gamma", "delta", "cell", "protein", "virus", "tumor", "gene", "the"]
    docs = [Document(f"d{i:04d}", " ".join(rng.choice(words, 2)), " ".join(rng.choice(words, 25)), i + 1)
            for i in range(1500)]
    build_index(docs, tmp_path / "ix")
    s = Searcher(tmp_path / "ix")
    queries = [(f"q{i}", " ".join(rng.choice(words, 3))) for i in range(40)]
    for layout in ("flat", "multifield", "multifield-max", "bm25f"):
        for k in (5, 1000, 2000):  # 2000 > documents: everything touched comes back
            batch = s.search(queries, layout=layout, k=k).to_run()
            single = {}
            for q in queries:  # buffers reused call after call must come back clean
                single.update(s.search([q], layout=layout, k=k).to_run())
            assert single == batch, (layout, k)
            assert all(len(h) == len(set(h)) for h in batch.values())


def test_negative_field_weight_is_refused(tmp_path):
    build_index([Document("a", "t", "x y", 1)], tmp_path / "ix")
    from sounding.errors import SoundingError

    with pytest.raises(SoundingError, match="title weight must be ≥ 0"):
        Searcher(tmp_path / "ix").search({"q": "x"}, layout="multifield", title_weight=-1.0)


def test_sparse_and_dense_queries_match_a_numpy_reference(tmp_path):
    """Queries touching few documents (the kernel's branchy first-touch path and two-stage ranking)
    and many (branch-free path, one-stage ranking): exact scores and order against numpy."""
    rng = np.random.default_rng(5)
    vocab = [f"w{i}x" for i in range(400)]
    p = 1.0 / np.arange(1, 401)
    p /= p.sum()
    docs = [Document(f"d{i:05d}", "", " ".join(rng.choice(vocab, 12, p=p)), i + 1) for i in range(4000)]
    build_index(docs, tmp_path / "ix", workers=1)
    s = Searcher(tmp_path / "ix")
    queries = [(f"r{i}", " ".join(rng.choice(vocab[300:], 2))) for i in range(10)]  # rare terms: sparse
    queries += [(f"c{i}", " ".join(rng.choice(vocab[:5], 3))) for i in range(10)]  # common terms: dense
    from sounding.search import BM25Params
    from sounding.search.queries import make_clauses

    params = BM25Params()
    setting = s.settings.get(params)
    for k in (10, 1000):
        res = s.search(queries, k=k)
        clauses = make_clauses(s.collection, s.queries.analyse_batch(tuple(t for _, t in queries), False, 0.5),
                               params.layout, setting, params.k1, False, s.settings.idf(False))
        ptr, c_field, c_term, c_weight = clauses[:4]
        for i in range(len(queries)):
            acc = np.zeros(s.index.n_docs)
            for c in range(ptr[i], ptr[i + 1]):
                lo, hi = s.collection.offsets[c_field[c], c_term[c]], s.collection.offsets[c_field[c], c_term[c] + 1]
                acc[s.collection.docs[lo:hi]] += c_weight[c] * setting.impacts[lo - setting.impact_base:hi - setting.impact_base]
            hit = np.flatnonzero(acc)
            scores = acc[hit].astype(np.float32)
            order = np.lexsort((-s.collection.rank[hit].astype(np.int64), -scores))[:k]
            n = int(res.counts[i])
            assert n == len(order)
            assert np.array_equal(res.docs[i, :n], hit[order])
            assert np.array_equal(res.scores[i, :n], scores[order])


def test_impacts_in_blocks_and_released_pages_change_nothing(tmp_path, monkeypatch):
    """Impacts are computed block by block and the term-frequency pages are then dropped from
    memory; a later search that reads term frequencies again must see the same values."""
    from sounding.search import setting_build

    rng = np.random.default_rng(9)
    words = ["alpha", "beta", "gamma", "delta", "cell", "protein", "virus", "tumor", "gene"]
    docs = [Document(f"d{i:04d}", " ".join(rng.choice(words, 2)), " ".join(rng.choice(words, 30)), i + 1)
            for i in range(3000)]
    build_index(docs, tmp_path / "ix", workers=1)
    queries = [(f"q{i}", " ".join(rng.choice(words, 3))) for i in range(20)]
    fresh = Searcher(tmp_path / "ix")
    expected = {lay: fresh.search(queries, layout=lay, lucene_norms=True).to_run() for lay in ("flat", "multifield-max")}
    expected["plain"] = fresh.search(queries, layout="flat").to_run()
    monkeypatch.setattr(setting_build, "IMPACT_BLOCK", 1000)  # many blocks, page releases in between
    s = Searcher(tmp_path / "ix")
    assert s.search(queries, layout="flat").to_run() == expected["plain"]
    for lay in ("flat", "multifield-max"):  # these read term frequencies after their pages were dropped
        assert s.search(queries, layout=lay, lucene_norms=True).to_run() == expected[lay]
