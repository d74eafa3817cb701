"""A BM25 setting's arrays: norms, impacts, block maxima and idf, made once per setting and list by list.

What the kernels read besides the postings depends on k1, b, the layout and the arithmetic: each document's
length norm per field, the block maxima that bound what a clause can add in a window (kernels/bounds.py),
and, on raw postings, each posting's impact (or the norm, or Lucene's y) beside it. `SettingBuilder.get`
makes them for a `BM25Params` and keeps the last setting (a query-at-a-time caller repeats it); the impacts
and maxima of a list are made only when a search reads it (`fill`: a batch reads a fraction of the
postings), in up to SETUP_THREADS threads of compiled code. The layout's kind (layouts.py) says what is
kept; nothing here depends on a layout's name.
"""
from __future__ import annotations

import mmap
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from ..index.pages import release_pages
from . import bm25
from .collection import Collection
from .kernels import bounds, windowed_packed
from .layouts import Layout
from .params import BM25Params

IMPACT_BLOCK = 1 << 22  # postings per range of terms when computing packed block maxima (4 M)
SETUP_THREADS = 4  # at most, for a setting's impacts and maxima (compiled, no GIL): whatever cores the machine has, up to this
FILL_MIN_POSTINGS = 1 << 20  # postings a setting-building thread is given at least (fewer: not worth a thread)


def unwritten(n: int, dtype) -> np.ndarray:
    """n items of `dtype` whose memory is made page by page (4 KiB) as they are written: for arrays filled
    list by list, of which a search writes a part. numpy maps large arrays in 2 MiB transparent huge
    pages, and a list written anywhere in one makes all of it resident and zeroed: at NQ size the
    impacts of a third of the postings made ~565 MB resident instead of ~250 MB, and took longer."""
    size = n * np.dtype(dtype).itemsize
    if size < mmap.PAGESIZE:
        return np.zeros(n, dtype)
    buf = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    if hasattr(mmap, "MADV_NOHUGEPAGE"):
        buf.madvise(mmap.MADV_NOHUGEPAGE)  # where huge pages are on for every mapping
    return np.frombuffer(buf, dtype)


class LastSetting:
    """The arrays one BM25 setting needs (norms, impacts, block maxima, layout arrays), kept under the
    setting's key while it is searched again: a query-at-a-time caller repeats the setting, and
    rebuilding even the small parts cost ~20 µs a query. One setting at a time (memory): the previous
    one is let go before the next is made."""

    def __init__(self):
        self.key: tuple | None = None
        self.value = None

    def get(self, key: tuple, make):
        if self.key != key:
            self.key, self.value = None, None
            self.value = make()
            self.key = key
        return self.value


@dataclass
class SettingArrays:
    """What the kernels read for one BM25 setting besides the postings."""

    norms: np.ndarray  # per field and document: k1·(1−b+b·len/avg), Lucene's 1/norm, or 1/B_f (merged tf)
    lay_fields: np.ndarray  # the layout's fields (index field numbers) and their weights
    lay_weights: np.ndarray
    min_y: np.ndarray  # Lucene's arithmetic: 1 + each searched field's smallest 1/norm (grouped._exact_sums)
    impacts: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float32))  # per raw posting, from impact_base
    impact_base: int = 0
    maxima: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float32))  # per block, from maxima_base
    maxima_base: int = 0
    kept: int = bounds.KEEP_PART  # what `impacts` holds
    mode: int = bounds.IMPACT  # what a block maximum is the maximum of
    span: bounds.Span | None = None  # the postings the maxima cover
    filled: np.ndarray | None = None  # per (field, term): its impacts and maxima made (raw postings)
    hold: tuple | None = None  # packed postings: (lucene, tf dtype or None) of the lists held decoded
    lock: threading.Lock = field(default_factory=threading.Lock)
    held: windowed_packed.ListCache | None = None

    def list_cache(self, postings, lucene: bool, tf_dtype=None) -> windowed_packed.ListCache:
        """The lists of this setting held decoded (made on first use: one per BM25 setting, since the values
        are its impacts; term frequencies of `tf_dtype` if given)."""
        if self.held is None:
            with self.lock:
                if self.held is None:
                    self.held = windowed_packed.ListCache(postings, self.norms, lucene, windowed_packed.CACHE_BYTES,
                                                          tf_dtype)
        return self.held


class SettingBuilder:
    """The BM25 settings of one collection: the last setting's arrays kept, idf per arithmetic."""

    def __init__(self, coll: Collection):
        self.coll = coll
        self.last = LastSetting()
        self._idf: dict[bool, np.ndarray] = {}

    def get(self, params: BM25Params, *, prune: bool = True) -> SettingArrays:
        """The arrays of `params`' setting: the last one's when it is the same. Raw postings: impacts and
        block maxima are left unmade (`unwritten`: no memory) and made list by list as searches read them
        (`fill`); packed postings' maxima are made whole."""
        return self.last.get(params.setting_key,
                             lambda: self._make(params.layout, params.k1, params.b, params.lucene_norms, prune))

    def idf(self, lucene: bool) -> np.ndarray:
        """idf per field and term (n_fields, n_terms): float64, or Lucene's float32 when `lucene`."""
        if lucene not in self._idf:
            fn = bm25.idf_lucene if lucene else bm25.idf
            coll = self.coll
            self._idf[lucene] = np.stack([fn(coll.df[i], coll.field_stats[f].doc_count) for i, f in enumerate(coll.fields)])
        return self._idf[lucene]

    def _make(self, lay: Layout, k1: float, b: float, lucene: bool, prune: bool) -> SettingArrays:
        coll, kind = self.coll, lay.kind
        searched = [coll.fields.index(f) for f in lay.weights]
        norms = self.norms(lay, k1, b, lucene)
        setting = SettingArrays(norms, np.array(searched, dtype=np.int64),
                                np.array(list(lay.weights.values()), dtype=np.float64),
                                np.ones(len(coll.fields), np.float32))
        # block maxima bound what the kernel reads per posting: on raw postings the impacts tf/(tf + norm)
        # (sum kernel) or, with Lucene's arithmetic, y = 1 + tf·(1/norm) (sum and multifield-max kernels);
        # else tf·norm (merged tf: norm = 1/B_f; packed Lucene: 1/norm) or tf/(tf + norm)
        if coll.packed is not None:
            setting.maxima = self._packed_maxima(norms, searched, lucene or kind.merged_tf)
            # the kernels read lists held decoded (windowed_packed.ListCache): impacts for the sum kernel, tfs
            # for the grouped one; the exhaustive kernels (prune off) read the blocks
            if prune or not kind.grouped:
                setting.hold = (lucene, coll.tf_dtype if kind.grouped else None)
            return setting
        offsets = coll.offsets
        lo = int(min(offsets[f, 0] for f in searched))
        hi = int(max(offsets[f, -1] for f in searched))
        # the sum kernel reads impacts, not tfs; with Lucene's arithmetic the sum and multifield-max kernels read y;
        # multifield-max's default arithmetic reads float64 impacts (no division per posting), bm25f tfs and each
        # posting's document norm (1/B_f), kept per posting in the impacts' place: read in order, not gathered
        setting.mode = bounds.PRODUCT if kind.merged_tf else bounds.LUCENE_Y if lucene else bounds.IMPACT
        parts = not kind.grouped or lucene
        if not parts:
            setting.kept = bounds.KEEP_NORM if kind.merged_tf else bounds.KEEP_IMPACT64
        if parts or setting.kept != bounds.KEEP_PART:
            dtype = np.float64 if setting.kept == bounds.KEEP_IMPACT64 else np.float32
            setting.impacts, setting.impact_base = unwritten(hi - lo, dtype), lo
        if lucene:  # 1 + each searched field's smallest 1/norm: the least y (grouped._exact_sums)
            for f in searched if coll.n_docs else ():
                setting.min_y[f] = np.float32(1.0) + norms[f].min()
        # a block's maximum spans every field's postings in it when impacts are kept (an unread field's
        # norm is 0: impact 1), the searched fields' only otherwise
        on = np.ones(len(coll.fields), np.bool_) if parts else np.isin(np.arange(len(coll.fields)), searched)
        setting.span = bounds.Span(lo, hi, offsets[:, 0].copy(), offsets[:, -1].copy(), on)
        setting.maxima, setting.maxima_base = np.zeros(-(-(hi - lo) // bounds.BLOCK), np.float32), lo
        setting.filled = np.zeros(offsets.shape[0] * (offsets.shape[1] - 1), np.bool_)
        return setting

    def norms(self, lay: Layout, k1: float, b: float, lucene: bool) -> np.ndarray:
        """Per field and document: k1·(1−b+b·len/avg) (default), Lucene's 1/norm, or 1/B_f (merged tf)."""
        coll = self.coll
        # rows of fields the layout does not read stay zero pages: no memory, lengths unread
        norms = np.zeros((len(coll.fields), coll.n_docs), dtype=np.float32)
        for f, fname in enumerate(coll.fields):
            if fname not in lay.weights:
                continue
            st = coll.field_stats[fname]
            lengths = coll.index.lengths[f]
            avg = st.sum_length / st.doc_count if st.doc_count else 1.0
            if lay.kind.merged_tf:
                fb = lay.field_b.get(fname)
                fb = b if fb is None else fb
                norms[f] = 1.0 / (1.0 - fb + fb * lengths / avg)
            elif lucene:
                norms[f] = bm25.inverse_norm_lucene(lengths, st.sum_length, st.doc_count, k1, b)
            else:
                norms[f] = bm25.length_norm(lengths, avg, k1, b)
        return norms

    def fill(self, setting: SettingArrays, c_field: np.ndarray, c_term: np.ndarray, threads: int = SETUP_THREADS) -> float:
        """Make the impacts and block maxima of the (field, term) lists c_field[i], c_term[i] that this
        setting has not made yet: a search reads those of its clauses' lists only, and a batch of
        queries reads a fraction of the postings (a third at NQ size). Up to SETUP_THREADS threads over
        runs of lists (each posting's impact and each block's maximum made alone: the same bits
        whatever the split or order); one search at a time fills, so no list is made twice. Packed
        postings: the lists are decoded whole into the setting's held lists (windowed_packed.ListCache),
        as raw postings' impacts are made here: the setting's build, not the search.
        Returns the seconds spent (setting build, not search)."""
        coll = self.coll
        if setting.hold is not None and len(c_field):  # packed postings: decode the lists these queries read, once
            start = time.perf_counter()
            lucene, tf_dtype = setting.hold
            setting.list_cache(coll.packed, lucene, tf_dtype).held(c_field, c_term, 0, len(c_field))
            return time.perf_counter() - start
        filled = setting.filled
        if filled is None or not len(c_field):
            return 0.0
        n_terms = coll.offsets.shape[1] - 1
        keys = c_field * n_terms + c_term
        if filled[keys].all():
            return 0.0
        start = time.perf_counter()
        with setting.lock:
            keys = np.unique(keys)
            keys = keys[~filled[keys]]
            if not len(keys):  # another search made them while this one waited
                return time.perf_counter() - start
            fields, terms = np.divmod(keys, n_terms)
            starts, ends = coll.offsets[fields, terms], coll.offsets[fields, terms + 1]
            reach = np.cumsum(ends - starts)
            workers = min(threads, os.cpu_count() or 1, -(-int(reach[-1]) // FILL_MIN_POSTINGS))
            cuts = np.searchsorted(reach, np.linspace(0, reach[-1], workers + 1)[1:-1])
            parts = [(a, z) for a, z in zip([0, *cuts], [*cuts, len(keys)]) if z > a]

            def fill(part) -> None:
                a, z = part
                bounds.fill_lists(starts[a:z], ends[a:z], fields[a:z], setting.span, coll.docs, coll.tfs,
                                  setting.norms, setting.mode, setting.impacts, setting.impact_base,
                                  setting.maxima, setting.kept)

            if len(parts) > 1:
                with ThreadPoolExecutor(len(parts), thread_name_prefix="sounding-setting") as pool:
                    list(pool.map(fill, parts))
            else:
                fill(parts[0])
            filled[keys] = True
            if len(setting.impacts) and setting.kept == bounds.KEEP_PART:  # these parts are read, not tfs: let their pages go
                release_pages(coll.tfs[setting.span.base : setting.span.hi])
        return time.perf_counter() - start

    def _packed_maxima(self, norms: np.ndarray, fields: list[int], product: bool) -> np.ndarray:
        """Per packed block of `fields`: its largest impact (or float32 tf·norm where `product`), made in up
        to SETUP_THREADS threads over ranges of terms (each block alone: the same bits whatever the split)."""
        coll = self.coll
        fb = coll.index.first_blocks
        out = np.zeros(int(fb[-1, -1]), np.float32)
        n_terms = coll.offsets.shape[1] - 1
        parts = []
        for f in fields:
            reach = coll.offsets[f, 1:] - coll.offsets[f, 0]  # postings up to each term's end
            cuts = np.searchsorted(reach, np.arange(IMPACT_BLOCK, int(reach[-1]) if n_terms else 0, IMPACT_BLOCK))
            edges = np.unique(np.concatenate([[0], cuts, [n_terms]]))
            parts += [(f, int(a), int(z)) for a, z in zip(edges[:-1], edges[1:])]

        def fill(part) -> None:
            f, t0, t1 = part
            windowed_packed.packed_maxima(coll.packed, norms[f], f, t0, t1, product, out)

        workers = min(SETUP_THREADS, os.cpu_count() or 1, len(parts))
        if workers > 1:
            with ThreadPoolExecutor(workers, thread_name_prefix="sounding-maxima") as pool:
                list(pool.map(fill, parts))
        else:
            for part in parts:
                fill(part)
        return out
