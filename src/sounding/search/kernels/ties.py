"""Pyserini's output for tied scores, so that `--lucene-norms` rows are Pyserini's runs to the byte.

Per query: Lucene's order (score descending, then document id ascending, `rank` being each
document's place in docid byte order), the top k, then Anserini's ScoreTiesAdjusterReranker: each
score rounded to 1e-4 in double and cast to float; a score within 1e-4 (float) of the previous kept
one is a tie and gets 1e-6 less per tie (float arithmetic); finally Pyserini writes "%.6f", so the
scores handed back are the doubles those strings read as.

The per-hit loop is compiled. The "%.6f" step needs no strings: a float32 times 10^6 is exact in
double (24 + 14 significant bits), so rint (round half to even, as printf rounds an exact binary
value) gives the printed digits N, and N / 10^6, correctly rounded, is the double that "%.6f" text
reads as (checked against Python's formatting in tests/test_ties.py).
"""
from __future__ import annotations

import numba as nb
import numpy as np


@nb.njit(cache=True)
def _order_key(bits: np.uint32, rank: np.int64) -> np.uint64:
    """A key whose ascending order is (score descending, rank ascending), from the score's float32
    bits (made order-preserving as unsigned integers) and a rank < 2**32."""
    ordered = ~bits if bits & np.uint32(0x80000000) else bits | np.uint32(0x80000000)
    return (np.uint64(~ordered) << np.uint64(32)) | np.uint64(rank)


@nb.njit(cache=True)
def _adjust(docs, scores, score_bits, counts, k, rank, out_docs, out_r, out_n):
    f32 = np.float32
    tie, step = f32(1e-4), f32(1e-6)
    for q in range(docs.shape[0]):
        n = counts[q]
        keys = np.empty(n, np.uint64)
        for i in range(n):
            keys[i] = _order_key(score_bits[q, i], np.int64(rank[docs[q, i]]))
        order = np.argsort(keys)
        m = min(n, k)
        out_n[q] = m
        prev = f32(0.0)
        dup = 0
        for j in range(m):
            i = order[j]
            r = f32(np.floor(np.float64(scores[q, i]) * 1e4 + 0.5) / 1e4)
            if j == 0 or f32(prev - r) > tie:
                dup = 0
            else:
                dup += 1
                r = f32(r - f32(step * f32(dup)))
            prev = r
            out_docs[q, j] = docs[q, i]
            out_r[q, j] = r


def apply_anserini_ties(docs: np.ndarray, scores: np.ndarray, counts: np.ndarray, k: int, rank: np.ndarray):
    """(docs, float64 scores, counts) of the top k per query in Pyserini's order and with its scores.
    `docs` (int64, -1 padded) and float32 `scores` are best first; `rank` maps a document to its
    place in docid byte order. Used by one index and by merged shards."""
    n_q = len(docs)
    out_docs = np.full((n_q, k), -1, dtype=np.int64)
    out_r = np.zeros((n_q, k), dtype=np.float32)
    out_n = np.zeros(n_q, dtype=np.int64)
    scores = np.ascontiguousarray(scores, dtype=np.float32)
    _adjust(np.ascontiguousarray(docs, dtype=np.int64), scores, scores.view(np.uint32),
            np.asarray(counts, dtype=np.int64), int(k), np.asarray(rank), out_docs, out_r, out_n)
    out_scores = np.rint(out_r.astype(np.float64) * 1e6) / 1e6  # = float(f"{r:.6f}"), see the docstring
    out_scores[np.arange(k)[None, :] >= out_n[:, None]] = 0.0
    return out_docs, out_scores, out_n


__all__ = ["apply_anserini_ties"]
