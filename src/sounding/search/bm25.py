"""BM25 in Lucene's form: parameters, idf, document-length normalisation, Lucene's one-byte norms.

score(q, d) = Σ_t count(t, q) · idf(t) · tf·(k1+1) / (tf + k1·(1 − b + b·len_d/avglen))
idf(t)      = ln(1 + (N − n_t + 0.5) / (n_t + 0.5))

N and avglen are per field, over the documents that have the field (Lucene's docCount).
With `lucene_norms`, lengths go through Lucene's SmallFloat one-byte encoding and the arithmetic
is Lucene's own float32 sequence (weight − weight / (1 + tf · 1/norm)), so scores equal Lucene's
bit for bit; Lucene ≥ 8 drops the constant factor (k1+1), which changes no ranking.
"""
from __future__ import annotations

import numpy as np


def idf(doc_freq: np.ndarray, doc_count: int) -> np.ndarray:
    df = np.asarray(doc_freq, dtype=np.float64)
    return np.log1p((doc_count - df + 0.5) / (df + 0.5))


def idf_lucene(doc_freq: np.ndarray, doc_count: int) -> np.ndarray:
    # (float) Math.log(1 + (docCount - docFreq + 0.5D) / (docFreq + 0.5D))
    df = np.asarray(doc_freq, dtype=np.float64)
    return np.log(1.0 + (doc_count - df + 0.5) / (df + 0.5)).astype(np.float32)


def length_norm(lengths: np.ndarray, avg_length: float, k1: float, b: float) -> np.ndarray:
    """k1·(1 − b + b·len/avglen) per document (the denominator term added to tf)."""
    return (k1 * (1.0 - b + b * np.asarray(lengths, dtype=np.float64) / avg_length)).astype(np.float64)


def inverse_norm_lucene(lengths: np.ndarray, sum_length: int, doc_count: int, k1: float, b: float) -> np.ndarray:
    """Lucene's BM25Scorer cache: 1f / (k1 · ((1 − b) + b · LENGTH_TABLE[norm] / avgdl)), in float32."""
    f = np.float32
    avgdl = f(sum_length / doc_count) if doc_count else f(1)
    table = decode_norm(np.arange(256, dtype=np.int64)).astype(np.float32)
    cache = f(1) / (f(k1) * ((f(1) - f(b)) + f(b) * table / avgdl))
    return cache[encode_norm(np.asarray(lengths, dtype=np.int64))]


# Lucene's SmallFloat.intToByte4 / byte4ToInt: lengths < 24 exact, then 4 significant bits.
_MAX_INT4 = 231  # longToInt4(Integer.MAX_VALUE)
_NUM_FREE_VALUES = 255 - _MAX_INT4


def _long_to_int4(i: np.ndarray) -> np.ndarray:
    i = np.asarray(i, dtype=np.int64)
    num_bits = np.frexp(i.astype(np.float64))[1].astype(np.int64)  # bit length, exact below 2**53
    shift = np.maximum(num_bits - 4, 0)
    normal = ((i >> shift) & 0x07) | ((shift + 1) << 3)
    return np.where(num_bits < 4, i, normal)


def _int4_to_long(i: np.ndarray) -> np.ndarray:
    i = np.asarray(i, dtype=np.int64)
    bits = i & 0x07
    shift = (i >> 3) - 1
    return np.where(shift == -1, bits, (bits | 0x08) << np.maximum(shift, 0))


def encode_norm(length: np.ndarray) -> np.ndarray:
    length = np.asarray(length, dtype=np.int64)
    return np.where(length < _NUM_FREE_VALUES, length,
                    _NUM_FREE_VALUES + _long_to_int4(np.maximum(length - _NUM_FREE_VALUES, 0))).astype(np.int64)


def decode_norm(byte: np.ndarray) -> np.ndarray:
    byte = np.asarray(byte, dtype=np.int64)
    return np.where(byte < _NUM_FREE_VALUES, byte,
                    _NUM_FREE_VALUES + _int4_to_long(np.maximum(byte - _NUM_FREE_VALUES, 0)))
