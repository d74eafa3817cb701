"""Exact dynamic pruning (search/windowed.py): the top k with pruning equals scoring every
posting, bit for bit, across many windows, both arithmetics, both sum layouts, both ways of
reading the non-essential lists, and ties at the threshold; and pruning does skip work."""
import numpy as np
import pytest

from sounding.datasets import Document
from sounding.index import build_index
from sounding.search import Searcher
from sounding.search.kernels import window
from sounding.search.kernels.selection import N_BUCKETS
from sounding.search.kernels.window import kth_bits


def zipf_corpus(tied: range, n_common: int) -> tuple[list[Document], list[tuple[str, str]]]:
    """6,000 documents over a Zipf vocabulary (common and rare terms), titles on most, the documents in
    `tied` identical (their tied scores straddle the top-k threshold); and queries: `n_common` of common
    terms, 40 mixed, 10 rare, and one matching the identical documents."""
    rng = np.random.default_rng(11)
    vocab = [f"w{i}x" for i in range(3000)]
    p = 1.0 / np.arange(1, 3001) ** 1.1
    p /= p.sum()
    docs = []
    for i in range(6000):
        text = " ".join(rng.choice(vocab, int(rng.integers(3, 60)), p=p))
        title = " ".join(rng.choice(vocab, 3, p=p)) if i % 4 else ""
        if i in tied:
            text, title = "w2990x w2991x w2992x", "w2993x"
        docs.append(Document(f"d{i:05d}", title, text, i + 1))
    common = [" ".join(rng.choice(vocab[:40], int(rng.integers(2, 9)))) for _ in range(n_common)]
    mixed = [" ".join(rng.choice(vocab, int(rng.integers(1, 12)), p=p)) for _ in range(40)]
    rare = [" ".join(rng.choice(vocab[500:], 2)) for _ in range(10)]
    queries = [(f"q{i}", t) for i, t in enumerate(common + mixed + rare + ["w2990x w2991x w2992x w2993x"])]
    return docs, queries


@pytest.fixture(scope="module")
def zipf_index(tmp_path_factory):
    """The Zipf corpus with 1,500 identical documents: ties beyond the threshold's compaction."""
    docs, queries = zipf_corpus(range(2000, 3500), 25)
    path = tmp_path_factory.mktemp("zipf") / "ix"
    build_index(docs, path, workers=1)
    return path, queries

@pytest.mark.parametrize("lookup_ratio", [0, 12, 10**9])  # always scan, the default, always look up
def test_pruned_equals_exhaustive(zipf_index, monkeypatch, lookup_ratio):
    path, queries = zipf_index
    monkeypatch.setattr(window, "WINDOW", 256)  # ~24 windows: thresholds carry across windows
    monkeypatch.setattr(window, "LOOKUP_RATIO", lookup_ratio)
    pruned, full = Searcher(path), Searcher(path)
    full.prune = False
    for layout in ("flat", "multifield"):
        for lucene in (False, True):
            for k in (1, 10, 100, 1000):
                a = pruned.search(queries, layout=layout, k=k, lucene_norms=lucene)
                b = full.search(queries, layout=layout, k=k, lucene_norms=lucene)
                assert np.array_equal(a.counts, b.counts), (layout, lucene, k)
                assert np.array_equal(a.docs, b.docs), (layout, lucene, k)
                assert np.array_equal(a.scores.view(np.uint32), b.scores.view(np.uint32)), (layout, lucene, k)
                if k <= 100:
                    assert pruned.postings_read < full.postings_read, (layout, lucene, k)


def test_ties_at_the_threshold_keep_the_id_order(zipf_index, monkeypatch):
    """1,500 documents share the best score of the last query: the top k are those with the highest
    id byte order (trec_eval's tie rule), however the windows cut them."""
    path, queries = zipf_index
    monkeypatch.setattr(window, "WINDOW", 128)
    s = Searcher(path)
    for k in (10, 1000):
        res = s.search(queries[-1:], k=k)
        ids = [s.index.docids[d] for d in res.docs[0]]
        assert len(set(res.scores[0].tolist())) == 1
        assert ids == [f"d{i:05d}" for i in range(3499, 3499 - k, -1)]


def test_kth_bits_is_the_exact_kth_largest():
    rng = np.random.default_rng(2)
    hist = np.empty(N_BUCKETS, np.int64)
    for trial in range(200):
        m = int(rng.integers(1, 5000))
        k = int(rng.integers(1, m + 1))
        scores = (rng.random(m) * 40).astype(np.float32)
        if trial % 2:
            scores = np.round(scores).astype(np.float32)  # many ties
        keys = (scores.view(np.uint32).astype(np.uint64) << np.uint64(32)) | np.arange(m, dtype=np.uint64)
        assert kth_bits(keys, m, k, hist) == np.sort(scores.view(np.uint32))[::-1][k - 1]
