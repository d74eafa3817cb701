"""Block maxima for exact dynamic pruning: the largest score part of any posting in each block of
BLOCK consecutive postings.

The windowed kernels bound what a clause can add to a score inside one document window by the
largest block maximum over the postings of that window (see windowed.py, grouped.py). Blocks are fixed runs
of the posting arrays, so one may straddle two terms' lists: its maximum then bounds both, only
less tightly. They depend on k1 and b, so they are made per setting, beside the impacts.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

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
def _field_maxima(lo, hi, base, docs, tfs, norms_f, product, out):
    """Raise out[(p − base) >> BLOCK_SHIFT] to the float32 tf·norm (`product`: Lucene's 1/norm, or
    BM25F's 1/B_f) or tf / (tf + norm) (windowed.fill_impacts' bits) of postings lo..hi−1 of one
    field. A score part is an increasing function of either."""
    for p in range(lo, hi):
        b = (p - base) >> BLOCK_SHIFT
        tf = np.float32(tfs[p])
        nd = norms_f[docs[p]]
        out[b] = max(out[b], tf * nd if product else tf / (tf + nd))


def block_maxima(offsets, docs, tfs, norms, impacts, base: int, hi: int, fields: list[int], product: bool,
                 workers: int = 1) -> np.ndarray:
    """float32 maxima per block of the postings base..hi−1 (the span of the layout's `fields`): of
    `impacts` when given (not empty), else of tf·norm (`product`) or tf / (tf + norm) per posting, in
    up to `workers` threads over runs of whole blocks (each block made by one: the same bits)."""
    out = np.zeros(-(-(hi - base) // BLOCK), dtype=np.float32)
    if len(impacts) and not product:
        _impact_maxima(impacts, out)
        return out
    step = max(BLOCK, -(-(hi - base) // (BLOCK * max(1, workers))) * BLOCK)  # postings per run of blocks
    runs = list(range(base, hi, step))

    def fill(a: int) -> None:  # one run of blocks, every field's postings in it
        for f in fields:
            lo, end = max(a, int(offsets[f, 0])), min(a + step, int(offsets[f, -1]))
            if lo < end:
                _field_maxima(lo, end, base, docs, tfs, norms[f], product, out)

    if workers > 1 and len(runs) > 1:
        with ThreadPoolExecutor(workers, thread_name_prefix="sounding-maxima") as pool:
            list(pool.map(fill, runs))
    else:
        for a in runs:
            fill(a)
    return out
