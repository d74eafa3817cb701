"""A BM25 setting's impacts and block maxima are made list by list, for the lists searches read:
the values equal those made for the whole postings span at once, and no order, split or
concurrency of the making changes a score."""
import threading
import time

import numpy as np
import pytest

from sounding.datasets import Document
from sounding.index import build_index
from sounding.search import Searcher
from sounding.search.kernels import bounds
from sounding.search import setting_build

WORDS = [f"w{i:03d}" for i in range(300)]


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    """Zipf-like term frequencies: lists from one posting to most documents, so blocks straddle lists
    and fields, and a few queries read a small part of the postings."""
    rng = np.random.default_rng(5)
    p = 1.0 / np.arange(1, len(WORDS) + 1)
    p /= p.sum()
    docs = [Document(f"d{i:05d}", " ".join(rng.choice(WORDS, 3, p=p)), " ".join(rng.choice(WORDS, int(rng.integers(5, 60)), p=p)),
                     i + 1) for i in range(2500)]
    root = tmp_path_factory.mktemp("setting") / "ix"
    build_index(docs, root, workers=1)
    return root


def _queries(seed: int, n: int, vocab: int = len(WORDS)) -> list[tuple[str, str]]:
    rng = np.random.default_rng(seed)
    return [(f"q{seed}-{i}", " ".join(rng.choice(WORDS[:vocab], int(rng.integers(1, 5))))) for i in range(n)]


def _reference(s: Searcher, setting) -> tuple[np.ndarray, np.ndarray]:
    """Every posting's score part over the setting's span and each block's maximum, made at once
    with numpy: the impact tf / (tf + norm) (or Lucene's y = 1 + tf·(1/norm)) of every field in the span when
    impacts are kept, else float32 tf·norm or tf / (tf + norm) of the searched fields (others 0)."""
    span, norms = setting.span, setting.norms
    parts = np.zeros(span.hi - span.base, np.float32)
    for g in range(len(span.field_lo)):
        a, z = max(span.base, int(span.field_lo[g])), min(span.hi, int(span.field_hi[g]))
        if a >= z or not span.field_on[g]:
            continue
        tf = s.collection.tfs[a:z].astype(np.float32)
        nd = norms[g][s.collection.docs[a:z]]
        mode = setting.mode
        parts[a - span.base : z - span.base] = (tf * nd if mode == bounds.PRODUCT else np.float32(1.0) + tf * nd
                                                if mode == bounds.LUCENE_Y else tf / (tf + nd))
    padded = np.zeros(len(setting.maxima) * bounds.BLOCK, np.float32)
    padded[: len(parts)] = parts
    return parts, padded.reshape(-1, bounds.BLOCK).max(axis=1)


@pytest.mark.parametrize("layout,lucene", [("flat", False), ("flat", True), ("multifield", False),
                                           ("multifield", True), ("multifield-max", False), ("bm25f", False)])
def test_lists_made_on_demand_equal_the_whole_span(index, layout, lucene):
    s = Searcher(index)
    s.search(_queries(1, 6, vocab=120), layout=layout, lucene_norms=lucene, k=10)
    s.search(_queries(2, 6), layout=layout, lucene_norms=lucene, k=10)  # a second batch: more lists
    setting = s.settings.last.value
    kept = {"multifield-max": bounds.KEEP_IMPACT64, "bm25f": bounds.KEEP_NORM}.get(layout, bounds.KEEP_PART)
    assert setting.kept == (bounds.KEEP_PART if lucene else kept)
    parts, maxima = _reference(s, setting)
    base, n_terms = setting.span.base, s.collection.offsets.shape[1] - 1
    made = np.flatnonzero(setting.filled)
    assert 0 < len(made) < np.count_nonzero(np.diff(s.collection.offsets, axis=1))  # some lists made, not all
    blocks = set()
    for key in made:
        f, t = divmod(int(key), n_terms)
        a, z = int(s.collection.offsets[f, t]), int(s.collection.offsets[f, t + 1])
        kept_here = setting.impacts[a - base : z - base]
        if setting.kept == bounds.KEEP_NORM:  # bm25f's default arithmetic: each posting's document norm
            assert np.array_equal(kept_here, setting.norms[f][s.collection.docs[a:z]]), (f, t)
        elif setting.kept == bounds.KEEP_IMPACT64:  # multifield-max's: float64 tf/(tf + norm), as numba
            tf = s.collection.tfs[a:z].astype(np.float64)         # makes uint + float32: in float64
            den = tf + setting.norms[f][s.collection.docs[a:z]].astype(np.float64)
            assert kept_here.dtype == np.float64
            assert np.array_equal(kept_here, tf / den), (f, t)
        elif len(setting.impacts):
            assert np.array_equal(setting.impacts[a - base : z - base], parts[a - base : z - base]), (f, t)
        blocks.update(range((a - base) >> bounds.BLOCK_SHIFT, ((z - 1 - base) >> bounds.BLOCK_SHIFT) + 1))
    blocks = np.array(sorted(blocks))
    assert np.array_equal(setting.maxima[blocks], maxima[blocks])
    unread = np.setdiff1d(np.arange(len(maxima)), blocks)
    assert len(unread) and not setting.maxima[unread].any()  # blocks of lists no query read: not made


@pytest.mark.parametrize("layout", ["flat", "multifield", "bm25f"])
def test_fill_order_split_and_threads_change_no_score(index, layout, monkeypatch):
    queries = _queries(3, 60)
    whole = Searcher(index).search(queries, layout=layout, k=50)
    one_by_one = Searcher(index)
    single = [one_by_one.search([q], layout=layout, k=50) for q in queries[::-1]][::-1]
    monkeypatch.setattr(setting_build, "FILL_MIN_POSTINGS", 1)  # many threads over a few lists each
    split = Searcher(index).search(queries, layout=layout, k=50, threads=2)
    for i in range(len(queries)):
        n = whole.counts[i]
        assert single[i].counts[0] == split.counts[i] == n
        assert np.array_equal(single[i].docs[0, :n], whole.docs[i, :n])
        assert np.array_equal(single[i].scores[0, :n], whole.scores[i, :n])
    assert np.array_equal(split.docs, whole.docs) and np.array_equal(split.scores, whole.scores)


def test_concurrent_searches_make_each_list_once(index, monkeypatch):
    made = []
    real = bounds.fill_lists

    def counting(starts, *args):
        made.extend(starts.tolist())
        time.sleep(0.05)  # a slow fill: the other searches reach the same lists meanwhile
        return real(starts, *args)

    monkeypatch.setattr(bounds, "fill_lists", counting)
    monkeypatch.setattr(setting_build, "FILL_MIN_POSTINGS", 1)
    batches = [_queries(10, 20)] * 2 + [_queries(11 + i, 20) for i in range(2)]  # overlapping lists
    expected = [Searcher(index).search(b, k=20).to_run() for b in batches]
    made.clear()
    s = Searcher(index)
    s.search([("warm", WORDS[0])], k=20)  # the setting exists before the threads race to fill its lists
    got = [None] * len(batches)
    barrier = threading.Barrier(len(batches))

    def run(i):
        barrier.wait()
        got[i] = s.search(batches[i], k=20).to_run()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(batches))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == expected
    assert len(made) == len(set(made)) > 0  # no list made twice


@pytest.mark.parametrize("layout,lucene", [("flat", False), ("multifield", True), ("bm25f", False)])
def test_prepare_makes_the_lists_a_search_then_only_reads(index, layout, lucene, monkeypatch):
    queries = _queries(20, 30)
    plain = Searcher(index).search(queries, layout=layout, lucene_norms=lucene, k=30)
    s = Searcher(index)
    s.search([], layout=layout, lucene_norms=lucene, k=30)  # the setting made, no list yet
    assert not s.settings.last.value.filled.any()
    assert s.prepare(queries, layout=layout, lucene_norms=lucene, k=30, threads=4) >= 0.0  # search-only options ignored
    filled = s.settings.last.value.filled.copy()
    assert filled.any()
    made = []
    real = bounds.fill_lists
    monkeypatch.setattr(bounds, "fill_lists", lambda starts, *a: made.extend(starts.tolist()) or real(starts, *a))
    got = s.search(queries, layout=layout, lucene_norms=lucene, k=30)
    assert made == [] and np.array_equal(s.settings.last.value.filled, filled)  # the search made no list
    assert np.array_equal(got.docs, plain.docs) and np.array_equal(got.scores, plain.scores)
    assert np.array_equal(got.counts, plain.counts)


def test_prepare_checks_the_setting_as_search_does(index):
    from sounding.errors import SoundingError

    s = Searcher(index)
    with pytest.raises(SoundingError, match="k1"):
        s.prepare(_queries(21, 3), k1=-1.0)
    with pytest.raises(SoundingError):
        s.prepare(_queries(21, 3), b=2.0)
    with pytest.raises(SoundingError, match="lucene_norms"):  # as search does
        s.prepare(_queries(21, 3), layout="bm25f", lucene_norms=True)
