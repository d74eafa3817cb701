"""Block maxima for exact dynamic pruning: the largest score part of any posting in each block of
BLOCK consecutive postings, and the impacts they are the maxima of.

The windowed kernels bound what a clause can add to a score inside one document window by the
largest block maximum over the postings of that window (see windowed.py, grouped.py). Blocks are fixed runs
of the posting arrays, so one may straddle two terms' lists: its maximum then bounds both, only
less tightly. They depend on k1 and b, so they are made per setting, and only for the lists a
search reads (`fill_lists`): a kernel reads its clauses' impacts and blocks, nothing else, and a
batch of queries reads a fraction of the postings (a third at NQ size).
"""
from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np

BLOCK_SHIFT = 7  # 128 postings per block: ~15 blocks per window of a very common term at NQ size
BLOCK = 1 << BLOCK_SHIFT
_SHIFT = np.uint64(BLOCK_SHIFT)


class Span(NamedTuple):
    """The postings a setting's maxima cover, base..hi−1 (block b holds base + b·BLOCK..), and which
    fields' postings count in a block's maximum: field g holds postings field_lo[g]..field_hi[g]−1,
    counted where field_on[g] (others count 0)."""
    base: int
    hi: int
    field_lo: np.ndarray
    field_hi: np.ndarray
    field_on: np.ndarray


# what a setting's per-posting part is (`mode` below)
IMPACT = 0  # tf / (tf + norm): the default arithmetic's impact (numpy's `tf.astype(float32) / (tf + norms[docs])`)
PRODUCT = 1  # tf·norm: BM25F's tf/B_f, or Lucene's tf·(1/norm) where y is not kept (packed postings)
LUCENE_Y = 2  # y = 1 + tf·(1/norm): Lucene's arithmetic, from which a clause of weight w adds w − w/y
# what fill_lists keeps per posting (`kept`, in `impacts`)
KEEP_PART = 0  # the mode's float32 part: the sum kernel's impacts, or Lucene's y
KEEP_NORM = 1  # the posting's document norm (float32): BM25F's 1/B_f, read beside tf in posting order
KEEP_IMPACT64 = 2  # float64 tf/(tf + norm), with tf + norm as the kernels make it: multifield-max's default
#                    arithmetic adds w·impact instead of dividing per posting (grouped.py: the re-sum margin covers it)
_F32_ONE = np.float32(1.0)


@nb.njit(nogil=True, cache=True, inline="always")
def _part(tf, norm, mode):
    """A posting's float32 part for the setting's `mode` (IMPACT, PRODUCT or LUCENE_Y), bit for bit
    the float32 steps the kernels would take."""
    if mode == PRODUCT:
        return tf * norm
    if mode == LUCENE_Y:
        return _F32_ONE + tf * norm
    return tf / (tf + norm)


@nb.njit(nogil=True, cache=True)
def _block_max(b, span, docs, tfs, norms, mode):
    """The largest score part over every counted posting of block b, whatever list it belongs to."""
    base, hi, field_lo, field_hi, field_on = span
    s = base + (b << BLOCK_SHIFT)
    e = min(s + BLOCK, hi)
    m = np.float32(0.0)
    for g in range(field_lo.shape[0]):
        if field_on[g]:
            for p in range(max(s, field_lo[g]), min(e, field_hi[g])):
                m = max(m, _part(np.float32(tfs[p]), norms[g, docs[p]], mode))
    return m


@nb.njit(nogil=True, cache=True)
def fill_lists(starts, ends, fields, span, docs, tfs, norms, mode, impacts, imp_base, maxima, kept=KEEP_PART):
    """For each list i (postings starts[i]..ends[i]−1 of field fields[i]): what `kept` says of each posting
    into impacts[p − imp_base] (when `impacts` is not empty): its part, or its document norm
    norms[fields[i], docs[p]], or its float64 impact; and the maximum of every block holding one of its
    postings into maxima[b], in one pass. A block shared with a neighbouring list gets the maximum over all its postings, so every block gets the same value whichever of its lists is
    made first (or both, by two threads at once), the value made for the whole span at once."""
    keep = impacts.shape[0] > 0
    base = span.base
    ub = np.uint64(imp_base)
    for i in range(starts.shape[0]):
        a, z = starts[i], ends[i]
        nf = norms[fields[i]]
        for b in range((a - base) >> BLOCK_SHIFT, ((z - 1 - base) >> BLOCK_SHIFT) + 1):
            s = base + (b << BLOCK_SHIFT)
            e = min(s + BLOCK, span.hi)
            m = np.float32(0.0)
            # unsigned indices: numba then emits no negative-index wraparound (a third less time)
            for p in range(np.uint64(max(s, a)), np.uint64(min(e, z))):
                nd = nf[docs[p]]
                tf = tfs[p]
                v = _part(np.float32(tf), nd, mode)
                if keep:
                    if kept == KEEP_NORM:
                        impacts[p - ub] = nd
                    elif kept == KEEP_IMPACT64:
                        impacts[p - ub] = np.float64(tf) / (tf + nd)  # tf + nd as grouped._mf_part makes it (float64)
                    else:
                        impacts[p - ub] = v
                m = max(m, v)
            if s < a or e > z:  # the block holds postings of other lists too
                m = _block_max(b, span, docs, tfs, norms, mode)
            maxima[b] = m
