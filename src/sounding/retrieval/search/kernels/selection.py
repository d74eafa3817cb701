"""Top-k selection, shared by every kernel (numba, nogil): the argument tuples that say where a kernel's
hits go, a radix select and sort of one integer key per document, and a bounded heap.

A kernel keys each candidate document by (its float32 score's bits << rank bits) | its rank in docid byte
order, so that one integer comparison orders score descending, then the document id's byte-order rank
descending (trec_eval's tie rule): ranks and ties are exact. `select_top` takes the largest keys (an MSD
radix select, then an LSD radix sort), `emit` writes them out as documents and score bits, `rank_touched`
keys and emits the documents a term-at-a-time kernel touched; `heap_push_topk` is a bounded heap for scores
of any sign (dense similarities). Each query is computed sequentially by one thread, so results do not
depend on the thread count.

Why the loops look the way they do (measured on scifact, top 1000): the selection is written without
data-dependent branches (a store, then a counter advanced by a comparison), because a mispredicted branch
per posting cost 3× the accumulation itself; and a radix select + sort beat numpy's partition + sort of
the keys by ~2×.
"""
from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np
from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic


@intrinsic
def _f32_as_u32(typingctx, x):
    """A float32's bits as a uint32, in a register: the kernels turn every candidate's score into these bits
    (to rank it, to compare it with the threshold), and a round trip through a scratch cell in memory
    cost a store and a dependent load each time."""
    if x != types.float32:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(32))
    return types.uint32(types.float32), codegen


DIGIT_BITS = 11  # radix digit: 2,048 counters stay in L1
N_BUCKETS = 1 << DIGIT_BITS


# Where a kernel's hits go, grouped (numba passes named tuples of arrays as they are).
class Ranking(NamedTuple):
    """trec_eval's tie order and the cut: each document's rank in docid byte order, its inverse, the
    number of bits a rank needs, and k."""
    rank: np.ndarray
    rank_to_doc: np.ndarray
    rank_bits: int
    k: int


class TopK(NamedTuple):
    """The outputs, one row per query: documents (-1 padded), scores as float32 bits, counts."""
    docs: np.ndarray
    bits: np.ndarray
    n: np.ndarray


class Selection(NamedTuple):
    """Scratch of the top-k selection: candidate keys (k), their copy, the radix histogram."""
    sel: np.ndarray
    tmp: np.ndarray
    hist: np.ndarray


@nb.njit(nogil=True, cache=True, inline="always")
def _worse(s1, r1, s2, r2):
    return s1 < s2 or (s1 == s2 and r1 < r2)


@nb.njit(nogil=True, cache=True, inline="always")
def _sift_down(hs, hr, hd, size, s, r, d):
    """Place (s, r, d) at the root of the min-heap of `size` entries and restore the heap."""
    j = 0
    while True:
        c = 2 * j + 1
        if c >= size:
            break
        if c + 1 < size and _worse(hs[c + 1], hr[c + 1], hs[c], hr[c]):
            c += 1
        if _worse(hs[c], hr[c], s, r):
            hs[j] = hs[c]
            hr[j] = hr[c]
            hd[j] = hd[c]
            j = c
        else:
            break
    hs[j] = s
    hr[j] = r
    hd[j] = d


@nb.njit(nogil=True, cache=True)
def heap_push_topk(touched, n_touched, final, rank, k, out_docs, out_scores):
    """Top-k of the touched documents by (final score, rank); writes them best first; returns count.
    A bounded min-heap keyed by (score, rank): works for scores of any sign (dense similarities)."""
    hs = np.empty(k, dtype=np.float32)
    hr = np.empty(k, dtype=np.int64)
    hd = np.empty(k, dtype=np.int64)
    size = 0
    for i in range(n_touched):
        d = touched[i]
        s = final[d]
        r = np.int64(rank[d])
        if size < k:  # sift up
            j = size
            size += 1
            while j > 0:
                parent = (j - 1) >> 1
                if _worse(s, r, hs[parent], hr[parent]):
                    hs[j] = hs[parent]
                    hr[j] = hr[parent]
                    hd[j] = hd[parent]
                    j = parent
                else:
                    break
            hs[j] = s
            hr[j] = r
            hd[j] = d
        elif _worse(hs[0], hr[0], s, r):  # better than the worst kept: replace the root
            _sift_down(hs, hr, hd, size, s, r, d)
    # pop worst-first into the output from the back
    n = size
    for pos in range(n - 1, -1, -1):
        out_docs[pos] = hd[0]
        out_scores[pos] = hs[0]
        size -= 1
        if size == 0:
            break
        _sift_down(hs, hr, hd, size, hs[size], hr[size], hd[size])
    return n


@nb.njit(nogil=True, cache=True, inline="always")
def cut_bucket(hist, need):
    """The bucket where, counting down from the top bucket, `need` keys are reached."""
    above = 0
    cut = N_BUCKETS - 1
    while above + hist[cut] < need:
        above += hist[cut]
        cut -= 1
    return cut


@nb.njit(nogil=True, cache=True)
def select_top(keys, n, k, nbits, out, tmp, hist):
    """The largest min(k, n) of the distinct keys `keys[:n]` (each < 2**nbits) into `out`, largest
    first; returns their number. `keys` is reordered; `tmp` holds ≥ k keys, `hist` N_BUCKETS counts.

    MSD radix select: count the top digit, keep whole buckets above the cut, descend into the cut
    bucket with the next digit; then an LSD radix sort (insertion sort for a few keys)."""
    m = min(k, n)
    if m == 0:
        return 0
    mask = np.uint64(N_BUCKETS - 1)
    if n > m:
        n_cand = n
        taken = 0
        shift = nbits
        while True:
            shift = max(shift - DIGIT_BITS, 0)
            sh = np.uint64(shift)
            hist[:] = 0
            for i in range(n_cand):
                hist[(keys[i] >> sh) & mask] += 1
            cut_digit = np.uint64(cut_bucket(hist, m - taken))
            j = 0
            for i in range(n_cand):  # branch-free partition: write, advance by the comparison
                key = keys[i]
                digit = (key >> sh) & mask
                out[taken] = key
                taken += digit > cut_digit
                keys[j] = key
                j += digit == cut_digit
            n_cand = j
            if taken + n_cand == m:  # the cut bucket belongs to the top entirely
                for i in range(n_cand):
                    out[taken + i] = keys[i]
                break
    else:
        for i in range(n):
            out[i] = keys[i]
    if m <= 48:
        for i in range(1, m):
            key = out[i]
            j = i - 1
            while j >= 0 and out[j] < key:
                out[j + 1] = out[j]
                j -= 1
            out[j + 1] = key
        return m
    in_tmp = False
    shift = 0
    while shift < nbits:
        src = tmp if in_tmp else out
        dst = out if in_tmp else tmp
        sh = np.uint64(shift)
        hist[:] = 0
        for i in range(m):
            hist[(src[i] >> sh) & mask] += 1
        if hist[(src[0] >> sh) & mask] != m:  # a digit every key shares orders nothing: skip it
            total = 0
            for d in range(N_BUCKETS - 1, -1, -1):  # descending
                c = hist[d]
                hist[d] = total
                total += c
            for i in range(m):
                key = src[i]
                d = (key >> sh) & mask
                dst[hist[d]] = key
                hist[d] += 1
            in_tmp = not in_tmp
        shift += DIGIT_BITS
    if in_tmp:
        for i in range(m):
            out[i] = tmp[i]
    return m


@nb.njit(nogil=True, cache=True, inline="always")
def f32_bits(x):
    """IEEE bits of float32(x) (order-preserving for x ≥ 0)."""
    return np.uint64(_f32_as_u32(np.float32(x)))


@nb.njit(nogil=True, cache=True)
def rank_touched(acc, touched, keys, n, rank, rank_to_doc, rank_bits, k, sel, tmp, hist, out_docs, out_bits):
    """Top k of the touched documents by (float32(acc), rank); clears acc[touched]; returns the
    count. `keys` may share `touched`'s memory (key i is written after touched[i] is read).

    A first pass keys each document by its score bits alone and counts their top digit; only the
    documents at or above the digit where the top k ends go on to read their rank (a random
    access into a collection-sized array: most of the cost on a large collection)."""
    m = min(k, n)
    if m == 0:
        return 0
    rb = np.uint64(rank_bits)
    if n <= 4 * k:  # most documents are in the top k anyway: key them all at once
        for i in range(n):
            d = touched[i]
            bits = f32_bits(acc[d])
            acc[d] = 0.0
            keys[i] = (bits << rb) | np.uint64(rank[d])
        return emit(keys, n, k, rank_bits, rank_to_doc, sel, tmp, hist, out_docs, out_bits)
    hist[:] = 0
    for i in range(n):
        d = touched[i]
        bits = f32_bits(acc[d])
        acc[d] = 0.0
        keys[i] = (bits << np.uint64(32)) | np.uint64(d)
        hist[bits >> np.uint64(31 - DIGIT_BITS)] += 1
    cut_digit = np.uint64(cut_bucket(hist, m))
    n_cand = 0
    for i in range(n):  # candidates to the front, keyed (score bits, rank)
        key = keys[i]
        bits = key >> np.uint64(32)
        if bits >> np.uint64(31 - DIGIT_BITS) >= cut_digit:
            keys[n_cand] = (bits << rb) | np.uint64(rank[np.int64(key & np.uint64(0xFFFFFFFF))])
            n_cand += 1
    return emit(keys, n_cand, k, rank_bits, rank_to_doc, sel, tmp, hist, out_docs, out_bits)


@nb.njit(nogil=True, cache=True)
def emit(keys, n, k, rank_bits, rank_to_doc, sel, tmp, hist, out_docs, out_bits):
    """Select the top k of `keys[:n]` ((score bits << rank_bits) | rank) and write them out."""
    m = select_top(keys, n, k, 31 + rank_bits, sel, tmp, hist)
    return write_keys(sel, m, rank_bits, rank_to_doc, out_docs, out_bits)


@nb.njit(nogil=True, cache=True, inline="always")
def write_keys(keys, m, rank_bits, rank_to_doc, out_docs, out_bits):
    """keys[:m] ((score bits << rank_bits) | rank, best first) written out as documents and score bits: m."""
    rb = np.uint64(rank_bits)
    rmask = (np.uint64(1) << rb) - np.uint64(1)
    for j in range(m):
        key = keys[j]
        out_docs[j] = rank_to_doc[np.int64(key & rmask)]
        out_bits[j] = np.uint32(key >> rb)
    return m


