"""Term-proximity bonus (BM25TP-style, Rasolofo & Savoy 2003), applied to the BM25 top-k.

bonus(q, d) = Σ over pairs of distinct query terms (i < j) present in d, whose closest occurrences
              in the flat field lie within `window` positions, of min(idf_i, idf_j) / dist_ij²
score'(d)   = score(d) + weight · bonus(q, d)

Positions count analysed tokens (stop words removed), title before text. The bonus re-ranks the
documents BM25 retrieved (the top k); it needs an index built with positions. See docs/scoring.md.
"""
from __future__ import annotations

import numba as nb
import numpy as np


@nb.njit(nogil=True, cache=True)
def _find_posting(docs, lo, hi, d):
    """Index of document d in the sorted docs[lo:hi], or -1 (binary search)."""
    while lo < hi:
        mid = (lo + hi) >> 1
        if docs[mid] < d:
            lo = mid + 1
        else:
            hi = mid
    return lo if lo < docs.shape[0] and docs[lo] == d else -1


@nb.njit(nogil=True, cache=True)
def _min_distance(pos, a0, a1, b0, b1):
    best = 1 << 30
    i, j = a0, b0
    while i < a1 and j < b1:
        x, y = np.int64(pos[i]), np.int64(pos[j])
        dist = x - y if x > y else y - x
        if dist < best:
            best = dist
        if x < y:
            i += 1
        else:
            j += 1
    return best


@nb.njit(nogil=True, cache=True)
def proximity_bonus(q_ptr, q_terms, q_idf, field, offsets, docs, pos_offsets, positions, hit_docs, hit_n, window):
    """Bonus for each (query, hit); q_terms are distinct term ids of the query with their idf."""
    n_q, k = hit_docs.shape
    out = np.zeros((n_q, k), dtype=np.float64)
    for q in range(n_q):
        t0, t1 = q_ptr[q], q_ptr[q + 1]
        m = t1 - t0
        if m < 2:
            continue
        seg_lo = np.empty(m, dtype=np.int64)
        seg_hi = np.empty(m, dtype=np.int64)
        for h in range(hit_n[q]):
            d = hit_docs[q, h]
            for i in range(m):
                t = q_terms[t0 + i]
                p = _find_posting(docs, offsets[field, t], offsets[field, t + 1], d)
                if p < 0:
                    seg_lo[i] = -1
                    seg_hi[i] = -1
                else:
                    seg_lo[i] = pos_offsets[p]
                    seg_hi[i] = pos_offsets[p + 1]
            bonus = 0.0
            for i in range(m):
                if seg_lo[i] < 0:
                    continue
                for j in range(i + 1, m):
                    if seg_lo[j] < 0:
                        continue
                    dist = _min_distance(positions, seg_lo[i], seg_hi[i], seg_lo[j], seg_hi[j])
                    if dist <= window:
                        w = q_idf[t0 + i] if q_idf[t0 + i] < q_idf[t0 + j] else q_idf[t0 + j]
                        bonus += w / (dist * dist)
            out[q, h] = bonus
    return out
