"""The postings a kernel reads, as numba sees them: raw arrays, packed blocks, lists held decoded.

`Postings` (raw: offsets, document ids, term frequencies) and `PackedPostings` (index/packed.py's blocks)
are the two forms of an index's postings; `Held` and `PackedHeld` add the lists a setting holds decoded
(windowed_packed.ListCache). `term_postings` gives a term's documents and frequencies in compiled code
whichever the form, so a kernel is written once for both.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba.extending import overload

from ...index.packed import decode_list


class Postings(NamedTuple):
    """The index's postings: offsets (n_fields, n_terms + 1), docs (uint32), tfs."""
    offsets: np.ndarray
    docs: np.ndarray
    tfs: np.ndarray


class PackedPostings(NamedTuple):
    """Packed postings (index/packed.py): offsets, first block of each term, and the block arrays."""
    offsets: np.ndarray
    first_block: np.ndarray
    blk_last: np.ndarray
    blk_start: np.ndarray
    blk_width: np.ndarray
    words: np.ndarray


class Held(NamedTuple):
    """Lists held decoded (ListCache): per clause of the batch, its list's first posting in `docs`/`vals`
    (−1: read from the packed blocks), and the arena: document ids and values (an impact tf / (tf + norm),
    Lucene's float32 tf·(1/norm), or for the grouped kernels the term frequency)."""
    at: np.ndarray
    docs: np.ndarray
    vals: np.ndarray


class PackedHeld(NamedTuple):
    """Packed postings with lists held decoded as document ids and term frequencies (a ListCache of
    tfs), for the grouped kernels (grouped.query_lists): PackedPostings' fields, then Held's."""
    offsets: np.ndarray
    first_block: np.ndarray
    blk_last: np.ndarray
    blk_start: np.ndarray
    blk_width: np.ndarray
    words: np.ndarray
    at: np.ndarray
    docs: np.ndarray
    tfs: np.ndarray


def term_postings(postings, f, t, dbuf, tbuf):
    """A term's documents and term frequencies in compiled code: views of raw postings (Postings), or
    packed ones (PackedPostings) decoded into dbuf and tbuf (each ≥ the list long)."""
    raise NotImplementedError  # compiled only: see the overload below


@overload(term_postings, inline="always")
def _term_postings(postings, f, t, dbuf, tbuf):
    if len(postings.types) == 3:  # raw: offsets, docs, tfs
        def raw(postings, f, t, dbuf, tbuf):
            a, z = postings[0][f, t], postings[0][f, t + 1]
            return postings[1][a:z], postings[2][a:z]
        return raw

    def packed(postings, f, t, dbuf, tbuf):
        offsets, first_block, blk_last, blk_start, blk_width, words = postings
        n = offsets[f, t + 1] - offsets[f, t]
        decode_list(first_block, blk_last, blk_start, blk_width, words, f, t, n, dbuf, tbuf)
        return dbuf[:n], tbuf[:n]
    return packed
