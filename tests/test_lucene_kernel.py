"""Lucene's arithmetic in the kernels on raw postings: the sum kernel and the multifield-max kernel read a
per-setting y = 1 + float32(tf)·(1/norm) per posting instead of tf and a gathered 1/norm. These tests
compute Lucene's float32 steps from tf and 1/norm here, with numpy, and check the kernels' scores
bit for bit against them."""
import numpy as np
import pytest

from sounding.datasets import Document
from sounding.index import build_index
from sounding.search import Searcher
from sounding.search.kernels import bounds, window


@pytest.fixture(scope="module")
def small_index(tmp_path_factory):
    """2,000 documents over a Zipf vocabulary, titles on most, some long texts (small norms, many
    distinct tf·(1/norm)); 40 queries of 1 to 8 terms, some repeated."""
    rng = np.random.default_rng(5)
    vocab = [f"t{i}z" for i in range(800)]
    p = 1.0 / np.arange(1, 801) ** 1.05
    p /= p.sum()
    docs = []
    for i in range(2000):
        text = " ".join(rng.choice(vocab, int(rng.integers(1, 300 if i % 7 == 0 else 40)), p=p))
        title = " ".join(rng.choice(vocab, int(rng.integers(1, 5)), p=p)) if i % 3 else ""
        docs.append(Document(f"doc{i:04d}", title, text, i))
    queries = [(f"q{i}", " ".join(rng.choice(vocab[:200], int(rng.integers(1, 9))))) for i in range(40)]
    path = tmp_path_factory.mktemp("lucene") / "ix"
    build_index(docs, path, workers=1)
    return path, queries


def test_lucene_y_is_lucenes_float32_steps():
    """Lucene's y per posting (bounds.LUCENE_Y, what the kernels read) is 1 + float32(tf)·(1/norm) in
    float32, bit for bit, and a block's maximum is the largest y in it."""
    rng = np.random.default_rng(0)
    n = 5000
    tfs = rng.integers(1, 70_000, n).astype(np.uint32)
    docs = rng.integers(0, 300, n).astype(np.uint32)
    norms = (1.0 / rng.uniform(0.3, 40.0, (1, 300))).astype(np.float32)
    span = bounds.Span(100, n, np.array([100]), np.array([n]), np.array([True]))
    out = np.zeros(n - 100, np.float32)
    maxima = np.zeros(-(-(n - 100) // bounds.BLOCK), np.float32)
    bounds.fill_lists(np.array([100]), np.array([n]), np.array([0]), span, docs, tfs, norms, bounds.LUCENE_Y, out, 100,
                      maxima)
    want = np.float32(1.0) + tfs[100:].astype(np.float32) * norms[0][docs[100:]]
    assert want.dtype == np.float32
    assert np.array_equal(out.view(np.uint32), want.view(np.uint32))
    padded = np.zeros(len(maxima) * bounds.BLOCK, np.float32)
    padded[: len(want)] = want
    assert np.array_equal(maxima, padded.reshape(-1, bounds.BLOCK).max(axis=1))


def _lucene_scores(s: Searcher, queries, layout: str, k1: float, b: float) -> list[np.ndarray]:
    """Every document's score per query, Lucene's float32 steps per posting from tf and 1/norm, added in
    float64 in the kernel's clause order (the sum layouts), or one sum per field and the larger kept
    (multifield-max, the query's order)."""
    from sounding.search import BM25Params
    from sounding.search.queries import make_clauses

    params = BM25Params(layout=layout, k1=k1, b=b, lucene_norms=True)
    setting = s.settings.get(params)
    ptr, c_field, c_term, c_weight, c_group, _ = make_clauses(s.collection, s.queries.analysed(queries, False, 0.5),
                                                               params.layout, setting, k1, True, s.settings.idf(True))
    n = s.index.n_docs
    out = []
    for q in range(len(queries)):
        sums = np.zeros((2, n), np.float64)
        for c in range(ptr[q], ptr[q + 1]):
            f, t = c_field[c], c_term[c]
            a, z = s.collection.offsets[f, t], s.collection.offsets[f, t + 1]
            d = s.collection.docs[a:z].astype(np.int64)
            w32 = np.float32(c_weight[c])
            y = np.float32(1.0) + s.collection.tfs[a:z].astype(np.float32) * setting.norms[f, d]
            sums[c_group[c], d] += (w32 - w32 / y).astype(np.float64)
        out.append(np.maximum(sums[0], sums[1]).astype(np.float32))
    return out


@pytest.mark.parametrize("layout", ["flat", "multifield", "multifield-max"])
@pytest.mark.parametrize("k1,b", [(0.9, 0.4), (1.2, 0.75)])
def test_lucene_kernel_scores_equal_lucenes_steps(small_index, monkeypatch, layout, k1, b):
    path, queries = small_index
    monkeypatch.setattr(window, "WINDOW", 256)  # several windows: pruning across them
    s = Searcher(path)
    k = 25
    res = s.search(queries, layout=layout, k1=k1, b=b, k=k, lucene_norms=True)
    ref = _lucene_scores(s, queries, layout, k1, b)
    checked = 0
    for q, want in enumerate(ref):
        n = int(res.counts[q])
        docs, got = res.docs[q, :n], res.scores[q, :n]
        assert np.array_equal(got.view(np.uint32), want[docs].view(np.uint32)), (layout, q)
        top = np.sort(want[want > 0])[::-1][:k]  # the best k scores, ties included
        assert np.array_equal(np.sort(got)[::-1], top), (layout, q)
        checked += n
    assert checked > 20 * len(queries)


def test_exact_sums_bound():
    """_exact_sums says yes only where any order of adding the parts gives the same float64, and no where
    the smallest possible part is too small beside the weights' sum (or may be 0)."""
    from sounding.search.kernels.grouped import _exact_sums

    field = np.zeros(4, np.int64)
    weights = np.array([9.5, 3.25, 0.7, 0.02])
    assert _exact_sums(field, weights, 0, 4, np.array([np.float32(1) + np.float32(1e-3)], np.float32))
    assert not _exact_sums(field, weights, 0, 4, np.array([np.float32(1) + np.float32(2.0 ** -23)], np.float32))
    assert not _exact_sums(field, weights, 0, 4, np.array([np.float32(1)], np.float32))  # a part may be 0
    rng = np.random.default_rng(3)
    min_y = np.array([np.float32(1) + np.float32(1e-3)], np.float32)
    w32 = weights.astype(np.float32)
    for _ in range(200):  # parts of documents, each clause's between its smallest and its weight
        y = (min_y[0] + rng.uniform(0, 5, 4).astype(np.float32)).astype(np.float32)
        parts = (w32 - w32 / y).astype(np.float64)
        sums = {sum(parts[list(p)]) for p in ([0, 1, 2, 3], [3, 2, 1, 0], [2, 0, 3, 1], [1, 3, 0, 2])}
        assert len(sums) == 1


def test_multifield_max_lucene_summed_again_without_the_bound(small_index, monkeypatch):
    """With no usable bound on Lucene's parts (min_y = 1) and the re-summing margin raised, every score near
    a float32 boundary is summed again in the query's order: the same bits as the bound's shortcut and as the
    exhaustive kernel."""
    from sounding.search.kernels import grouped

    path, queries = small_index
    monkeypatch.setattr(window, "WINDOW", 256)
    fast, full = Searcher(path), Searcher(path)
    full.prune = False
    opts = dict(layout="multifield-max", k=25, lucene_norms=True)
    a = fast.search(queries, **opts)
    monkeypatch.setattr(grouped, "ORDER_ULPS", 2.0 ** 40)
    slow = Searcher(path)
    make = slow.settings._make

    def unbounded(*args):
        setting = make(*args)
        setting.min_y[:] = 1.0
        return setting

    monkeypatch.setattr(slow.settings, "_make", unbounded)
    b, c = slow.search(queries, **opts), full.search(queries, **opts)
    for x, y in ((a, b), (a, c)):
        assert np.array_equal(x.counts, y.counts)
        assert np.array_equal(x.docs, y.docs)
        assert np.array_equal(x.scores.view(np.uint32), y.scores.view(np.uint32))
