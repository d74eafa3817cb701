"""The arrays of one index that a search reads, and the statistics it scores with.

Opened once per `Searcher`: the postings (raw arrays or packed blocks, as the kernels take them), each
document's rank in docid byte order (trec_eval's tie order) and its inverse, and the document frequencies and
field statistics BM25 is computed from: the index's own, or the merged statistics of all shards
(scale/shards.py), so that a shard scores every document exactly as one index would.
"""
from __future__ import annotations

from functools import cached_property

import numpy as np

from ..index import Index
from ..index.packed import decode_list
from .kernels.postings import PackedPostings, Postings
from .kernels.selection import Ranking


class Collection:
    """An index's postings, ranks and statistics, as numpy arrays (memory-mapped where the index is)."""

    def __init__(self, index: Index, stats=None):
        self.index = index
        self.fields: list[str] = list(index.manifest.fields)
        self.n_docs = index.n_docs
        self.offsets = np.asarray(index.offsets)
        self.packed: PackedPostings | None = None
        self.docs = self.tfs = None
        if index.postings == "packed":
            self.packed = PackedPostings(self.offsets, index.first_blocks, np.asarray(index.blk_last),
                                         np.asarray(index.blk_start), np.asarray(index.blk_width),
                                         np.asarray(index.packed))
        else:
            self.docs = np.asarray(index.docs)
            self.tfs = np.asarray(index.tfs)
        self.rank = np.asarray(index.docid_rank)
        self.rank_to_doc = np.empty(len(self.rank), np.int64)  # the inverse permutation, in O(n)
        self.rank_to_doc[self.rank] = np.arange(len(self.rank), dtype=np.int64)
        self.rank_bits = max(1, int(self.n_docs - 1).bit_length())  # ranks are 0..n_docs-1
        if stats is None:
            self.df, self.field_stats = np.diff(self.offsets, axis=1), index.manifest.field_stats
        else:
            self.df, self.field_stats = stats.for_index(index)

    @property
    def postings(self) -> Postings | PackedPostings:
        """The postings as the kernels read them."""
        return self.packed if self.packed is not None else Postings(self.offsets, self.docs, self.tfs)

    def ranking(self, k: int, *, ascending_ties: bool = False) -> Ranking:
        """The kernels' tie order and cut: of documents tied at the cut they keep those last in docid byte
        order (trec_eval's), or with `ascending_ties` those first (Lucene's), by reading the ranks reversed."""
        rank, rank_to_doc = self.reversed_ranks if ascending_ties else (self.rank, self.rank_to_doc)
        return Ranking(rank, rank_to_doc, self.rank_bits, k)

    @cached_property
    def reversed_ranks(self) -> tuple[np.ndarray, np.ndarray]:
        """Each document's rank in descending docid byte order, and its inverse."""
        n = len(self.rank)
        return (n - 1 - self.rank).astype(self.rank.dtype), self.rank_to_doc[::-1].copy()

    @cached_property
    def max_df(self) -> int:
        return int(np.diff(self.offsets, axis=1).max(initial=0))

    @cached_property
    def tf_dtype(self) -> np.dtype:
        """The dtype raw postings of this index keep term frequencies in (uint16 unless one exceeds
        65,535): the multifield-max kernel's default arithmetic adds tf to a float32 norm, and its bits
        follow numpy's promotion of that type, so packed postings are decoded into the same type."""
        if self.packed is None:
            return self.tfs.dtype
        wide = np.flatnonzero(self.packed.blk_width[:, 1] >= 16)
        if not len(wide):
            return np.dtype(np.uint16)
        fb = self.index.first_blocks
        term_of = np.searchsorted(fb.ravel(), wide, side="right") - 1  # flat (field, term) of each block
        n_cols = fb.shape[1]
        dbuf, tbuf = np.empty(self.max_df, np.uint32), np.empty(self.max_df, np.uint32)
        for ft in np.unique(term_of):
            f, t = divmod(int(ft), n_cols)
            n = int(self.offsets[f, t + 1] - self.offsets[f, t])
            decode_list(fb, self.packed.blk_last, self.packed.blk_start, self.packed.blk_width, self.packed.words,
                        f, t, n, dbuf, tbuf)
            if tbuf[:n].max(initial=0) > np.iinfo(np.uint16).max:
                return np.dtype(np.uint32)
        return np.dtype(np.uint16)
