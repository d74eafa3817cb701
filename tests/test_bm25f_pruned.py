"""The pruned kernel of bm25f and multifield-max (search/grouped.py): run files byte for byte those of
scoring every posting term at a time (kernels.exhaustive: search_bm25f, search_sum), for raw and packed
postings, k = 10/100/1000, 1 and 2 threads, each way of reading the lists pruning leaves, across
many windows, on a tie-heavy Zipf corpus and on scifact; and pruning does skip postings."""
import numpy as np
import pytest

from sounding.datasets import iter_corpus, load_dataset
from sounding.index import build_index
from sounding.search import Searcher
from sounding.search.kernels import grouped, window
from test_pruning import zipf_corpus

SETTINGS = [("bm25f", False, None), ("bm25f", False, 1.0), ("multifield-max", False, None),
            ("multifield-max", True, None), ("multifield-max", False, 2.5)]


def _same_runs(pruned: Searcher, full: Searcher, queries, tmp_path, what, **opts):
    a = pruned.search(queries, **opts)
    b = full.search(queries, **opts)
    assert np.array_equal(a.counts, b.counts), what
    assert np.array_equal(a.docs, b.docs), what
    assert np.array_equal(a.scores.view(np.uint32), b.scores.view(np.uint32)), what
    ra, rb = a.write_run(tmp_path / "pruned.run"), b.write_run(tmp_path / "full.run")
    assert ra.read_bytes() == rb.read_bytes(), what


@pytest.fixture(scope="module")
def zipf_pair(tmp_path_factory):
    """The Zipf corpus with 1,500 identical documents (ties past the threshold's compaction), indexed
    with raw and with packed postings."""
    docs, queries = zipf_corpus(range(2000, 3500), 25)
    root = tmp_path_factory.mktemp("zipf-grouped")
    for postings in ("raw", "packed"):
        build_index(docs, root / postings, workers=1, postings=postings)
    return root, queries


@pytest.mark.parametrize("postings", ["raw", "packed"])
@pytest.mark.parametrize("lookup_ratio", [0, 64, 10**9])  # always scan, the default, always look up
def test_pruned_equals_exhaustive(zipf_pair, monkeypatch, tmp_path, postings, lookup_ratio):
    root, queries = zipf_pair
    monkeypatch.setattr(window, "WINDOW", 256)  # ~24 windows: thresholds and cursors carry across windows
    monkeypatch.setattr(window, "LOOKUP_RATIO", lookup_ratio)
    pruned, full = Searcher(root / postings), Searcher(root / postings)
    full.prune = False
    for layout, lucene, title_weight in SETTINGS:
        for k in (10, 100, 1000):
            for threads in (1, 2):
                what = (layout, lucene, title_weight, k, threads)
                _same_runs(pruned, full, queries, tmp_path, what, layout=layout, k=k, lucene_norms=lucene,
                           title_weight=title_weight, threads=threads)


def test_scores_summed_again_in_query_order(zipf_pair, monkeypatch, tmp_path):
    """Pruning adds a document's parts heaviest unit first; a score whose float32 could depend on that
    order is summed again in the query's order. With the margin raised, nearly every score is: the
    run files are still those of the term-at-a-time kernels (the re-summing itself is exact)."""
    root, queries = zipf_pair
    monkeypatch.setattr(window, "WINDOW", 512)
    monkeypatch.setattr(grouped, "ORDER_ULPS", 2.0 ** 40)
    for postings in ("raw", "packed"):
        pruned, full = Searcher(root / postings), Searcher(root / postings)
        full.prune = False
        for layout, lucene, title_weight in SETTINGS:
            for k in (10, 1000):
                _same_runs(pruned, full, queries, tmp_path, (postings, layout, lucene, k), layout=layout, k=k,
                           lucene_norms=lucene, title_weight=title_weight)


def test_impacts_stay_within_their_margin():
    """multifield-max's default arithmetic adds w·impact (impact = float64 tf/(tf + norm), made at setting
    build) where the term-at-a-time kernel adds (w·tf)/(tf + norm): two roundings each, so a part differs by
    under 4 ulps of itself, half the margin grouped.IMPACT_ULPS widens the re-sum check by. Over a million
    random weights, tfs and float32 norms the largest difference is also nonzero (the check is needed)."""
    rng = np.random.default_rng(7)
    n = 1_000_000
    w = rng.uniform(0.01, 30.0, n)
    tf = rng.integers(1, 300, n).astype(np.float64)
    norm = rng.uniform(0.05, 5.0, n).astype(np.float32).astype(np.float64)
    reference = w * tf / (tf + norm)
    impacts = w * (tf / (tf + norm))
    rel = np.abs(impacts - reference) / reference
    assert 0 < rel.max() <= grouped.IMPACT_ULPS / 2 * 2.0 ** -53


def test_pruning_skips_postings(zipf_pair, monkeypatch):
    """At k = 10 many postings of the common terms cannot change the top k: fewer are read than the
    query lists hold (a look-up counts as one)."""
    root, queries = zipf_pair
    monkeypatch.setattr(window, "WINDOW", 256)
    monkeypatch.setattr(window, "LOOKUP_RATIO", 0)
    s = Searcher(root / "raw")
    fields = s.index.manifest.fields
    df = np.diff(np.asarray(s.index.offsets), axis=1)
    for layout in ("bm25f", "multifield-max"):
        s.search(queries, layout=layout, k=10)
        total = 0
        for _, text in queries:
            for t in {s.index.term_ids[w] for w in s.analyze(text) if w in s.index.term_ids}:
                total += int(df[fields.index("title"), t] + df[fields.index("text"), t])
        assert s.postings_read < 0.9 * total, layout


def test_ties_at_the_threshold_keep_the_id_order(zipf_pair, monkeypatch):
    """1,500 documents share one score of the last query, above all but a few others: those in the top k
    are the ones with the highest id byte order, however the windows cut them, in both layouts."""
    root, queries = zipf_pair
    monkeypatch.setattr(window, "WINDOW", 128)
    s = Searcher(root / "packed")
    for layout in ("bm25f", "multifield-max"):
        for k in (10, 1000):
            res = s.search(queries[-1:], k=k, layout=layout)
            scores = res.scores[0, : res.counts[0]]
            values, counts = np.unique(scores, return_counts=True)
            tied = scores == values[counts.argmax()]
            ids = [s.index.docids[d] for d in res.docs[0, : res.counts[0]][tied]]
            assert len(ids) >= k - 5, (layout, k)
            assert ids == [f"d{i:05d}" for i in range(3499, 3499 - len(ids), -1)], (layout, k)


@pytest.mark.realdata
def test_scifact_pruned_equals_exhaustive(shared_data, tmp_path_factory, tmp_path, monkeypatch):
    ds = load_dataset("scifact", data_dir=shared_data)
    root = tmp_path_factory.mktemp("scifact-grouped")
    queries = list(ds.queries.items())
    for postings in ("raw", "packed"):
        build_index(iter_corpus(ds.corpus_path), root / postings, postings=postings)
        for size in (window.WINDOW, 512):  # one window, then ~10
            monkeypatch.setattr(window, "WINDOW", size)
            pruned, full = Searcher(root / postings), Searcher(root / postings)
            full.prune = False
            for layout, lucene, title_weight in SETTINGS[:4]:
                for k in (10, 100, 1000):
                    for threads in (1, 2):
                        what = (postings, window, layout, lucene, k, threads)
                        _same_runs(pruned, full, queries, tmp_path, what, layout=layout, k=k, lucene_norms=lucene,
                                   title_weight=title_weight, threads=threads)
