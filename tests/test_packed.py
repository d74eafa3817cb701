"""Packed postings (index/packed.py, search/kernels/windowed_packed.py): the blocks decode to the postings
they were made from, and search over a packed index gives what search over the raw index of the
same corpus gives, bit for bit and byte for byte in run files: every layout, both arithmetics,
k = 10/100/1000, pruning across many windows, each way of reading non-essential lists."""
import filecmp
import json

import numpy as np
import pytest

from sounding.datasets import Document, iter_corpus, load_dataset
from sounding.errors import SoundingError
from sounding.index import Index, build_index
from sounding.index.format import live_generation
from sounding.index.packed import BLOCK, decode_list, encode, first_blocks
from sounding.search import Searcher
from sounding.search.kernels import window, windowed_packed
from test_pruning import zipf_corpus

LAYOUTS = [("flat", False), ("flat", True), ("multifield", False), ("multifield", True),
           ("multifield-max", False), ("multifield-max", True), ("bm25f", False)]


def _same(a, b, what):
    assert np.array_equal(a.counts, b.counts), what
    assert np.array_equal(a.docs, b.docs), what
    assert np.array_equal(a.scores.view(np.uint32), b.scores.view(np.uint32)), what


def test_blocks_decode_to_their_postings():
    rng = np.random.default_rng(5)
    lengths = np.array([0, 1, 127, 128, 129, 300, 5, 0, 1000, 3], np.int64)
    docs, tfs = [], []
    for n in lengths:
        span = int(rng.choice([n + 1, 10 * n + 10, 2**32 - 1]))  # dense lists, sparse ones, gaps of 32 bits
        d = np.sort(rng.choice(span, int(n), replace=False)).astype(np.uint32)
        if n == 300:
            d = np.arange(300, dtype=np.uint32)  # consecutive: gaps of width 0
        docs.append(d)
        tfs.append(rng.choice([1, 2, 70_000, 2**32 - 1], int(n), p=[0.7, 0.2, 0.05, 0.05]).astype(np.uint32))
    docs, tfs = np.concatenate(docs), np.concatenate(tfs)
    last, width, n_words, words = encode(lengths, docs, tfs)
    offsets = np.concatenate([[0], np.cumsum(lengths)])[None, :]
    fb = first_blocks(offsets)
    assert fb[0, -1] == len(last) == int((-(-lengths // BLOCK)).sum())
    starts = np.concatenate([[0], np.cumsum(n_words)])
    words = np.concatenate([words, [0]]).astype(np.uint32)
    dbuf, tbuf = np.empty(1000, np.uint32), np.empty(1000, np.uint32)
    for t, n in enumerate(lengths):
        decode_list(fb, last, starts, width, words, 0, t, n, dbuf, tbuf)
        a = offsets[0, t]
        assert np.array_equal(dbuf[:n], docs[a : a + n]), t
        assert np.array_equal(tbuf[:n], tfs[a : a + n]), t
    assert width[:, 1].max() == 32 and width[:, 0].min() == 0


@pytest.fixture(scope="module")
def zipf_pair(tmp_path_factory):
    """One corpus (Zipf vocabulary, titles on most documents, a run of identical documents whose
    tied scores straddle the cut) indexed with raw and with packed postings."""
    docs, queries = zipf_corpus(range(2000, 2600), 20)
    root = tmp_path_factory.mktemp("packed")
    build_index(docs, root / "raw", workers=1, postings="raw")
    build_index(docs, root / "packed", workers=1, postings="packed")
    build_index(docs, root / "packed-spilled", workers=1, postings="packed", memory=30_000)  # many sorted runs
    queries = [*queries, (f"q{len(queries)}", "nothing")]
    return root, queries


def test_packed_index_is_smaller_and_the_same_at_any_memory_budget(zipf_pair):
    root, _ = zipf_pair
    raw, packed = Index(root / "raw"), Index(root / "packed")
    assert raw.postings == "raw" and packed.postings == "packed"
    assert packed.manifest.field_stats == raw.manifest.field_stats
    assert np.array_equal(packed.offsets, raw.offsets)
    assert packed.size_bytes() < 0.6 * raw.size_bytes()
    a, b = live_generation(root / "packed"), live_generation(root / "packed-spilled")
    names = sorted(p.name for p in a.iterdir())
    assert names == sorted(p.name for p in b.iterdir()) and "packed.npy" in names and "docs.npy" not in names
    for name in names:
        assert filecmp.cmp(a / name, b / name, shallow=False), name


@pytest.mark.parametrize("held", [True, False])  # lists held decoded (ListCache), or every block decoded in the kernel
@pytest.mark.parametrize("lookup_ratio", [0, 64, 10**9])  # always scan, the default, always look up
def test_packed_search_equals_raw(zipf_pair, monkeypatch, lookup_ratio, held):
    root, queries = zipf_pair
    monkeypatch.setattr(window, "WINDOW", 256)  # ~24 windows: skipping, bounds and cursors across windows
    monkeypatch.setattr(window, "LOOKUP_RATIO", lookup_ratio)
    if not held:
        monkeypatch.setattr(windowed_packed, "CACHE_BYTES", 0)
    raw, packed = Searcher(root / "raw"), Searcher(root / "packed")
    for layout, lucene in LAYOUTS:
        for k in (10, 100, 1000):
            what = (layout, lucene, k)
            _same(raw.search(queries, layout=layout, k=k, lucene_norms=lucene),
                  packed.search(queries, layout=layout, k=k, lucene_norms=lucene, threads=2), what)
    unpruned = Searcher(root / "packed")
    unpruned.prune = False
    for k in (10, 100):
        a = packed.search(queries, k=k)
        reads = packed.postings_read
        _same(a, unpruned.search(queries, k=k), k)
        if lookup_ratio == 0:  # (a look-up counts as a posting read: the count says little otherwise)
            assert reads < 0.9 * unpruned.postings_read  # pruning skips work on packed postings too


@pytest.mark.parametrize("min_reads, capacity", [(1, 1 << 30), (2, 20_000), (1, 0)])  # all held, some, none
def test_lists_held_decoded_give_the_same_bits(zipf_pair, monkeypatch, min_reads, capacity):
    """Lists held decoded (windowed_packed.ListCache: every list, a few that fit a small arena, none) are
    read in place of their blocks, beside clauses that still decode: the raw index's bits for every
    layout, across windows and threads, again and again as the cache fills."""
    root, queries = zipf_pair
    monkeypatch.setattr(window, "WINDOW", 256)
    monkeypatch.setattr(windowed_packed, "CACHE_MIN_READS", min_reads)
    monkeypatch.setattr(windowed_packed, "CACHE_BYTES", capacity)
    raw, packed = Searcher(root / "raw"), Searcher(root / "packed")
    for layout, lucene in LAYOUTS:  # the grouped kernels hold term frequencies, the sum kernel impacts
        for k, threads in ((10, 1), (1000, 2), (100, 1)):
            _same(raw.search(queries, layout=layout, k=k, lucene_norms=lucene),
                  packed.search(queries, layout=layout, k=k, lucene_norms=lucene, threads=threads), (layout, lucene, k))
        cache = packed.settings.last.value.held
        assert cache.used <= len(cache.docs) == capacity // (4 + cache.vals.itemsize)  # an id and a value a posting
        assert cache.vals.dtype == (np.uint16 if layout in ("bm25f", "multifield-max") else np.float32)
        if capacity == 0:
            assert cache.used == 0
        elif min_reads == 1:  # every list asked for is held whole
            assert 0 < cache.used and np.count_nonzero(cache._slot) == np.count_nonzero(cache._reads)
        else:  # the arena is full before every list asked for twice is in it
            assert 0 < cache.used and np.count_nonzero(cache._slot) < np.count_nonzero(cache._reads >= 2)


def test_packed_run_files_equal_raw_ones(zipf_pair, monkeypatch, tmp_path):
    root, queries = zipf_pair
    monkeypatch.setattr(window, "WINDOW", 512)
    raw, packed = Searcher(root / "raw"), Searcher(root / "packed")
    for layout in ("flat", "multifield"):
        for k in (10, 1000):
            opts = dict(layout=layout, k=k, lucene_norms=True, anserini_ties=True)
            a = raw.search(queries, **opts).write_run(tmp_path / "raw.run")
            b = packed.search(queries, **opts).write_run(tmp_path / "packed.run")
            assert a.read_bytes() == b.read_bytes(), (layout, k)


def test_wide_term_frequencies(tmp_path):
    """A term frequency past 65,535: raw postings keep uint32 and the multifield-max arithmetic follows
    that type; the packed index gives the same bits."""
    docs = [Document("a", "zeta", " ".join(["alpha"] * 70_000) + " beta", 1),
            Document("b", "alpha", "alpha beta beta", 2), Document("c", "", "beta gamma", 3)]
    build_index(docs, tmp_path / "raw", workers=1, postings="raw")
    build_index(docs, tmp_path / "packed", workers=1, postings="packed")
    assert Index(tmp_path / "raw").tfs.dtype == np.uint32
    raw, packed = Searcher(tmp_path / "raw"), Searcher(tmp_path / "packed")
    queries = [("q1", "alpha beta"), ("q2", "gamma zeta alpha")]
    for layout, lucene in LAYOUTS:
        _same(raw.search(queries, layout=layout, lucene_norms=lucene), packed.search(queries, layout=layout, lucene_norms=lucene),
              (layout, lucene))


def test_older_format_says_how_to_rebuild(zipf_pair, tmp_path):
    root, _ = zipf_pair
    import shutil

    shutil.copytree(root / "packed", tmp_path / "old")
    manifest = live_generation(tmp_path / "old") / "manifest.json"
    raw = json.loads(manifest.read_text())
    raw["version"] = 1
    manifest.write_text(json.dumps(raw))
    with pytest.raises(SoundingError, match=r"format version 1 is older .*rebuild it: sounding index .* --out .*old") as e:
        Index(tmp_path / "old", verify=False)
    assert "\n" not in str(e.value)


def test_postings_option_is_checked(tmp_path):
    docs = [Document("a", "", "alpha", 1)]
    with pytest.raises(SoundingError, match="unknown postings layout 'zip'"):
        build_index(docs, tmp_path / "x", postings="zip")
    with pytest.raises(SoundingError, match="raw"):
        build_index(docs, tmp_path / "y", postings="packed", positions=True)
    build_index(docs, tmp_path / "z", positions=True)
    assert Index(tmp_path / "z").postings == "raw"


@pytest.mark.realdata
def test_scifact_packed_equals_raw(shared_data, tmp_path_factory, monkeypatch):
    ds = load_dataset("scifact", data_dir=shared_data)
    root = tmp_path_factory.mktemp("scifact")
    build_index(iter_corpus(ds.corpus_path), root / "raw", postings="raw")
    build_index(iter_corpus(ds.corpus_path), root / "packed", postings="packed")
    queries = list(ds.queries.items())
    for size in (window.WINDOW, 512):  # one window, then ~10 (pruning across windows)
        monkeypatch.setattr(window, "WINDOW", size)
        raw, packed = Searcher(root / "raw"), Searcher(root / "packed")
        for layout, lucene in LAYOUTS:
            for k in (10, 100, 1000):
                opts = dict(layout=layout, k=k, lucene_norms=lucene, anserini_ties=lucene)
                a = raw.search(queries, **opts).write_run(root / "raw.run")
                b = packed.search(queries, threads=2, **opts).write_run(root / "packed.run")
                assert a.read_bytes() == b.read_bytes(), (window, layout, lucene, k)


def test_damaged_block_table_is_refused_before_decoding(zipf_pair, tmp_path):
    root, _ = zipf_pair
    import shutil

    shutil.copytree(root / "packed", tmp_path / "bad")
    gen = live_generation(tmp_path / "bad")
    width = np.load(gen / "blk_width.npy")
    width[len(width) // 2, 0] = 40  # wider than a 32-bit document id
    np.save(gen / "blk_width.npy", width)
    with pytest.raises(SoundingError, match="packed block table out of range"):
        Index(tmp_path / "bad", verify=False)
    with pytest.raises(SoundingError, match="checksum of blk_width.npy"):
        Index(tmp_path / "bad")


def test_synthetic_nq_shaped_corpus_packed_equals_raw(tmp_path, monkeypatch):
    """benchmarks/synthetic.py at a small scale (5,363 NQ-shaped documents, 268 queries), built with a
    budget that spills: packed and raw run files are the same bytes, pruning across windows."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    import synthetic

    synthetic.generate(tmp_path / "corpus", 0.002, seed=3)
    ds = load_dataset(str(tmp_path / "corpus"))
    for postings in ("raw", "packed"):
        build_index(iter_corpus(ds.corpus_path), tmp_path / postings, postings=postings, memory=200_000, workers=1)
    monkeypatch.setattr(window, "WINDOW", 512)
    raw, packed = Searcher(tmp_path / "raw"), Searcher(tmp_path / "packed")
    queries = list(ds.queries.items())
    for layout, lucene in LAYOUTS:
        for k in (10, 100, 1000):
            opts = dict(layout=layout, k=k, lucene_norms=lucene, anserini_ties=lucene)
            a = raw.search(queries, **opts).write_run(tmp_path / "raw.run")
            b = packed.search(queries, **opts).write_run(tmp_path / "packed.run")
            assert a.read_bytes() == b.read_bytes(), (layout, lucene, k)
            assert a.read_bytes().count(b"\n") > 200 * min(k, 20), (layout, lucene, k)  # hits for most queries


def test_kill_while_packed_postings_are_written_keeps_the_previous_index(tmp_path):
    """kill -9 once the merge is observably writing packed.npy: the previous generation stays live, and
    the next build leaves no partial folder or run behind."""
    import os
    import signal
    import subprocess
    import sys
    import time

    corpus = tmp_path / "c.jsonl"
    corpus.write_text("".join(json.dumps({"_id": f"d{i}", "title": "t", "text": f"alpha w{i} beta w{i % 97} " * 30}) + "\n"
                              for i in range(40_000)))
    build_index([Document("x", "t", "alpha", 1)], tmp_path / "ix", postings="packed")
    p = subprocess.Popen([sys.executable, "-m", "sounding", "index", str(corpus), "--out", str(tmp_path / "ix"),
                          "--workers", "1", "--memory", "0.002", "--postings", "packed"], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 120
    while p.poll() is None and time.monotonic() < deadline:
        if any(f.stat().st_size > 0 for f in (tmp_path / "ix").glob("gen-*.partial-*/packed.npy")):
            os.killpg(p.pid, signal.SIGKILL)
            break
        time.sleep(0.01)
    p.wait()
    assert p.returncode == -signal.SIGKILL  # killed mid-merge, not finished
    ix = Index(tmp_path / "ix")
    assert ix.n_docs == 1 and ix.postings == "packed"
    build_index([Document("y", "t", "beta", 1)], tmp_path / "ix", postings="packed")
    assert not [f for f in (tmp_path / "ix").rglob("*") if "partial" in f.name or f.name.startswith("run-")]
    assert Index(tmp_path / "ix").docids == ["y"]
