"""Document windows and MaxScore pruning: the pieces the windowed kernels share (numba, nogil).

The pruned kernels (windowed.py, windowed_packed.py, grouped.py) cut the collection into windows of
`window_size(k)` documents, score every clause's postings of one window into a window-sized accumulator, and
keep a threshold θ, the k-th best score so far, to skip what cannot reach it (windowed.py says why). What
they share lives here: the window's scratch (`Window`), each clause's bound and share, finding a window's end
in a list, dropping documents that cannot reach θ, closing a window into keys, raising θ, and ranking ties
in docid byte order before the keys are selected (selection.emit).
"""
from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np

from .selection import N_BUCKETS, cut_bucket, f32_bits, write_keys


class Window(NamedTuple):
    """Scratch of one window: its float64 accumulator (zeroed), touched list, and bitmap (zeroed)."""
    wacc: np.ndarray
    wtouched: np.ndarray
    wbits: np.ndarray


WINDOW = 1 << 14  # documents per window: a 128 KiB float64 accumulator stays in L2 (best of 8k–64k, measured)
LARGE_K = 100  # from this many hits a query, windows twice as long (`window_size`)
SMALL_K = 64  # up to this many hits a query, the best keys are kept in a heap as the windows close (heap_close)
LOOKUP_RATIO = 64  # binary-search a list only with this many of its postings per live document:
#                    reading postings with a bit test costs ~1 ns each, a look-up far more (measured)
PRUNE_SLACK = 1.0 + 1e-9  # a float64 sum in another order may exceed the sum of bounds by a few ulps
_F32_ONE = np.float32(1.0)
_LOW32 = np.uint64(0xFFFFFFFF)
_ONE = np.uint64(1)


def window_size(k: int) -> int:
    """Documents per window for a search of the top k: WINDOW, twice that from LARGE_K hits on. With many hits
    the threshold θ rises slowly and pruning skips less, so the per-window work (each clause's window end,
    block maxima and bounds, the documents' keys) weighs more and fewer, longer windows pay (a 256 KiB
    accumulator still fits in L2). Measured at NQ size (synthetic, 3,452 queries, in-process, alternated
    rounds; the hits are the same whatever the window): top 1000 flat 2.74 / 3.55 s against 2.91 / 3.96 s
    (medians of 6 and 5 rounds), Lucene's norms 3.26 against 3.45 s, multifield-max 6.17 / 5.87 against
    9.15 / 6.28 s; top 100 flat 1.74 against 1.91 s; but top 10 flat 2.46 against 1.88 s."""
    return WINDOW * 2 if k >= LARGE_K else WINDOW


@nb.njit(nogil=True, cache=True, inline="always")
def lucene_part(w, y):
    """A clause of weight w's share of a posting in Lucene's float32 steps, from the posting's
    y = 1 + float32(tf)·(1/norm) (bounds.LUCENE_Y, made per list at setting build): w − w/y, increasing in y."""
    w32 = np.float32(w)
    return np.float64(w32 - w32 / y)


@nb.njit(nogil=True, cache=True, inline="always")
def clause_bound(w, x, lucene):
    """The most a clause of weight w can add to a score, from its term's largest impact x
    (default arithmetic) or largest float32 tf·(1/norm) x (Lucene's, in the same float32 steps)."""
    if lucene:
        return lucene_part(w, _F32_ONE + x)
    return w * np.float64(x)


@nb.njit(nogil=True, cache=True)
def kth_bits(keys, m, k, hist):
    """The k-th largest of keys[:m] >> 32 (31-bit float32 bits; m ≥ k), exactly: a radix select
    over three digits (11, 11 and 9 bits)."""
    need = k
    hist[:] = 0
    for i in range(m):
        hist[keys[i] >> np.uint64(52)] += 1
    d1 = np.uint64(cut_bucket(hist, need))
    for b in range(N_BUCKETS - 1, np.int64(d1), -1):
        need -= hist[b]
    hist[:] = 0
    for i in range(m):
        bits = keys[i] >> np.uint64(32)
        if bits >> np.uint64(20) == d1:
            hist[(bits >> np.uint64(9)) & np.uint64(N_BUCKETS - 1)] += 1
    d2 = np.uint64(cut_bucket(hist, need))
    for b in range(N_BUCKETS - 1, np.int64(d2), -1):
        need -= hist[b]
    top = (d1 << np.uint64(11)) | d2
    hist[:] = 0
    for i in range(m):
        bits = keys[i] >> np.uint64(32)
        if bits >> np.uint64(9) == top:
            hist[bits & np.uint64(511)] += 1
    return (top << np.uint64(9)) | np.uint64(cut_bucket(hist, need))


@nb.njit(nogil=True, cache=True, inline="always")
def most_clauses(q_ptr):
    """The most clauses one query of the batch has (the size of the kernels' per-clause arrays)."""
    m = 0
    for q in range(q_ptr.shape[0] - 1):
        m = max(m, q_ptr[q + 1] - q_ptr[q])
    return m


@nb.njit(nogil=True, cache=True, inline="always")
def lower_bound(docs, lo, hi, target):
    """The first p in lo..hi−1 with docs[p] ≥ target (hi if none); branch-free halving."""
    n = hi - lo
    if n <= 0:
        return lo
    base = lo
    while n > 1:
        half = n >> 1
        base += half * (docs[base + half] < target)  # arithmetic, not a branch: no mispredictions
        n -= half
    return base + (docs[base] < target)


@nb.njit(nogil=True, cache=True, inline="always")
def window_end(docs, p, hi, stop):
    """The first p' ≥ p with docs[p'] ≥ stop (hi if none): gallop, then halve."""
    step = 1
    while p + step < hi and docs[p + step] < stop:
        step *= 2
    return lower_bound(docs, p + step // 2, min(hi, p + step), np.uint32(stop)) if p < hi else hi


@nb.njit(nogil=True, cache=True, inline="always")
def essential_clauses(rest, n_cl, theta, prune):
    """MaxScore's split of a window's clauses (heaviest first): how many can still bring in a document that
    reaches θ (float32 bits of the k-th best score so far); the clauses after them, which together add at most
    `rest[i]` from clause i on, only add to documents the first ones found. All of them without `prune` or θ."""
    n_essential = n_cl
    if prune and theta > 0:
        while n_essential > 0 and f32_bits(rest[n_essential - 1] * PRUNE_SLACK) < theta:
            n_essential -= 1
    return n_essential


@nb.njit(nogil=True, cache=True, inline="always")
def drop_hopeless(rest, theta, wacc, wtouched, nt, wbits):
    """Keep the window's documents whose score could still reach θ with `rest` more, their bit set;
    the others leave the touched list, their accumulator zeroed and bit cleared. Returns how many
    are kept."""
    kept = 0
    for i in range(nt):
        j = np.uint64(wtouched[i])
        wtouched[kept] = np.int64(j)
        if f32_bits((wacc[j] + rest) * PRUNE_SLACK) >= theta:
            kept += 1
            wbits[j >> np.uint64(6)] |= _ONE << (j & np.uint64(63))
        else:
            wacc[j] = 0.0
            wbits[j >> np.uint64(6)] &= ~(_ONE << (j & np.uint64(63)))
    return kept


@nb.njit(nogil=True, cache=True, inline="always")
def listed(docs, p, e, u_start, wbits, hits):
    """The postings p..e−1 whose window document (docs[p] − u_start) has its bit set, into hits (int64), in
    order; their number. Without a branch per posting (about one in five is set, at random): the scan of a
    non-essential list then reads and adds only those postings' shares."""
    n = np.uint64(0)
    for at in range(np.uint64(p), np.uint64(e)):
        j = np.uint64(docs[at]) - u_start
        hits[n] = np.int64(at)
        n += (wbits[j >> np.uint64(6)] >> (j & np.uint64(63))) & _ONE
    return n


@nb.njit(nogil=True, cache=True, inline="always")
def close_window(wacc, wbits, wtouched, nt, start, keys, m, theta):
    """The window's documents are complete: clear their accumulators and keep (score bits, document)
    keys of those that can rank; the new count of keys."""
    for i in range(nt):
        j = np.uint64(wtouched[i])  # unsigned, as in the kernels' loops (no wraparound checks): 0.94-0.96x here
        bits = f32_bits(wacc[j])
        wacc[j] = 0.0
        wbits[j >> np.uint64(6)] = 0
        keys[m] = (bits << np.uint64(32)) | (np.uint64(start) + j)
        m += bits >= theta
    return m


@nb.njit(nogil=True, cache=True, inline="always")
def heap_close(wacc, wbits, wtouched, nt, start, heap, filled, k, rank, rank_bits, theta):
    """close_window for a small k: the window's documents are complete; clear their accumulators and
    keep the best k keys (score bits << rank_bits | rank, the order `emit` selects by) in a min-heap
    heap[:filled], which θ follows: once it holds k keys, θ is the bits of its smallest, the k-th best
    score so far. A document below θ costs one comparison (the keys array and its selection, for a
    few thousand documents a query, cost more than the scoring itself at top 10). (filled, θ)."""
    u_start = np.uint64(start)
    rb = np.uint64(rank_bits)
    for i in range(nt):
        j = np.uint64(wtouched[i])
        bits = f32_bits(wacc[j])
        wacc[j] = 0.0
        wbits[j >> np.uint64(6)] = 0
        if bits < theta:
            continue
        key = (bits << rb) | np.uint64(rank[u_start + j])
        if filled < k:  # sift up
            x = filled
            filled += 1
            while x > 0:
                parent = (x - 1) >> 1
                if heap[parent] <= key:
                    break
                heap[x] = heap[parent]
                x = parent
            heap[x] = key
            if filled == k:
                theta = heap[0] >> rb
        elif key > heap[0]:  # replace the smallest, sift down
            x = 0
            while True:
                c = 2 * x + 1
                if c >= k:
                    break
                if c + 1 < k and heap[c + 1] < heap[c]:
                    c += 1
                if heap[c] >= key:
                    break
                heap[x] = heap[c]
                x = c
            heap[x] = key
            theta = heap[0] >> rb
    return filled, theta


@nb.njit(nogil=True, cache=True, inline="always")
def heap_emit(heap, filled, rank_bits, rank_to_doc, out_docs, out_bits):
    """heap_close's keys written out, best first (what `emit` writes for the same keys): their number."""
    for i in range(1, filled):  # insertion sort, descending: at most SMALL_K keys
        key = heap[i]
        j = i - 1
        while j >= 0 and heap[j] < key:
            heap[j + 1] = heap[j]
            j -= 1
        heap[j + 1] = key
    return write_keys(heap, filled, rank_bits, rank_to_doc, out_docs, out_bits)


@nb.njit(nogil=True, cache=True, inline="always")
def raise_theta(keys, m, k, hist, window):
    """θ raised to the k-th best key so far and only the keys that reach it kept (ties too), with room
    for another window's: (keys, count, θ)."""
    theta = kth_bits(keys, m, k, hist)
    kept = 0
    for i in range(m):
        key = keys[i]
        keys[kept] = key
        kept += key >> np.uint64(32) >= theta
    if kept + window > keys.shape[0]:  # many ties at θ
        grown = np.empty(2 * (kept + window), np.uint64)
        grown[:kept] = keys[:kept]
        keys = grown
    return keys, kept, theta


@nb.njit(nogil=True, cache=True, inline="always")
def rank_ties(keys, m, rank, rank_bits):
    """Each key's document replaced by its rank in document-id byte order, so equal scores order as
    trec_eval orders them."""
    rb = np.uint64(rank_bits)
    for i in range(m):
        key = keys[i]
        keys[i] = ((key >> np.uint64(32)) << rb) | np.uint64(rank[np.int64(key & _LOW32)])
