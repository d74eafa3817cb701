"""Block maxima for exact dynamic pruning: the largest score part of any posting in each block of
BLOCK consecutive postings.

The windowed kernel bounds what a clause can add to a score inside one document window by the
largest block maximum over the postings of that window (see windowed.py). Blocks are fixed runs
of the posting arrays, so one may straddle two terms' lists: its maximum then bounds both, only
less tightly. They depend on k1 and b, so they are made per setting, beside the impacts.
"""
from __future__ import annotations

import numba as nb
import numpy as np

BLOCK_SHIFT = 7  # 128 postings per block: ~15 blocks per window of a very common term at NQ size
BLOCK = 1 << BLOCK_SHIFT


@nb.njit(nogil=True, cache=True)
def _impact_maxima(impacts, out):
    """out[b] = max of impacts[b·BLOCK : (b+1)·BLOCK] (default arithmetic: the impact itself)."""
    for b in range(out.shape[0]):
        m = np.float32(0.0)
        for p in range(b * BLOCK, min((b + 1) * BLOCK, impacts.shape[0])):
            m = max(m, impacts[p])
        out[b] = m


@nb.njit(nogil=True, cache=True)
def _lucene_maxima(lo, hi, base, docs, tfs, inv_norms, out):
    """Raise out[(p − base) >> BLOCK_SHIFT] to the float32 tf·(1/norm) of postings lo..hi−1 of one
    field: Lucene's score is an increasing function of it, computed in float32 steps that keep order."""
    for p in range(lo, hi):
        b = (p - base) >> BLOCK_SHIFT
        out[b] = max(out[b], np.float32(tfs[p]) * inv_norms[docs[p]])


def block_maxima(offsets, docs, tfs, norms, impacts, base: int, hi: int, fields: list[int], lucene: bool) -> np.ndarray:
    """float32 maxima per block of the postings base..hi−1 (the span of the layout's `fields`)."""
    out = np.zeros(-(-(hi - base) // BLOCK), dtype=np.float32)
    if lucene:
        for f in fields:
            _lucene_maxima(int(offsets[f, 0]), int(offsets[f, -1]), base, docs, tfs, norms[f], out)
    else:
        _impact_maxima(impacts, out)
    return out
