"""The sum kernel (flat, multifield): document windows, exact MaxScore pruning (numba, nogil).

Why windows: term-at-a-time accumulation into a collection-sized float64 array makes one random
write per posting; past a few hundred thousand documents the array leaves the cache and that
write is most of the cost (NQ size, synthetic: ~12 ns per posting against ~3 ns in a window that
stays in L2). So the collection is cut into windows of `WINDOW` documents and every clause reads
its postings for one window before the next (postings are sorted by document), into a
window-sized accumulator. Each document is complete when its window ends, in clause order: the
same float64 sum, so the same bits, as scoring every posting one clause at a time.

Why MaxScore: complete scores give a true threshold θ, the k-th best score so far, early.
Clauses are taken heaviest first; once the clauses left at the end of the list (the light,
common terms, most of the postings) could together add less than θ in this window (the largest
score part of their postings there, from block maxima: bounds.py), a document found only in them
cannot reach the top k. Those clauses then only add to documents an earlier clause found (a bit
test in an L1-sized bitmap, or a binary search when such documents are rare), dropping those
that can no longer reach θ. Float32 rounding keeps order, so comparisons are made on the float32
bits that rank documents, and a bound is widened by PRUNE_SLACK for float64 summation order:
the top k is exactly what scoring everything gives (tests/test_pruning.py).

Measured (NQ-size synthetic, 1,000 queries, top 1000, 1 thread, a shared machine): every posting
scored in windows ~430 QPS, with pruning ~660, with unsigned loop indices ~820; the collection-wide
term-at-a-time kernel before it ~250–330.
"""
from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np

from .bounds import BLOCK_SHIFT
from .topk import N_BUCKETS, _cut_bucket, _emit, _f32_bits


class Window(NamedTuple):
    """Scratch of one window: its float64 accumulator (zeroed), touched list, and bitmap (zeroed)."""
    wacc: np.ndarray
    wtouched: np.ndarray
    wbits: np.ndarray

WINDOW = 1 << 14  # documents per window: a 128 KiB float64 accumulator stays in L2 (best of 8k–64k, measured)
LARGE_K = 100  # from this many hits a query, windows twice as long (`window_size`)
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
def _lucene_part(w, y):
    """A clause of weight w's share of a posting in Lucene's float32 steps, from the posting's
    y = 1 + float32(tf)·(1/norm) (bounds.LUCENE_Y, made per list at setting build): w − w/y, increasing in y."""
    w32 = np.float32(w)
    return np.float64(w32 - w32 / y)


@nb.njit(nogil=True, cache=True, inline="always")
def _clause_bound(w, x, lucene):
    """The most a clause of weight w can add to a score, from its term's largest impact x
    (default arithmetic) or largest float32 tf·(1/norm) x (Lucene's, in the same float32 steps)."""
    if lucene:
        return _lucene_part(w, _F32_ONE + x)
    return w * np.float64(x)


@nb.njit(nogil=True, cache=True)
def _kth_bits(keys, m, k, hist):
    """The k-th largest of keys[:m] >> 32 (31-bit float32 bits; m ≥ k), exactly: a radix select
    over three digits (11, 11 and 9 bits)."""
    need = k
    hist[:] = 0
    for i in range(m):
        hist[keys[i] >> np.uint64(52)] += 1
    d1 = np.uint64(_cut_bucket(hist, need))
    for b in range(N_BUCKETS - 1, np.int64(d1), -1):
        need -= hist[b]
    hist[:] = 0
    for i in range(m):
        bits = keys[i] >> np.uint64(32)
        if bits >> np.uint64(20) == d1:
            hist[(bits >> np.uint64(9)) & np.uint64(N_BUCKETS - 1)] += 1
    d2 = np.uint64(_cut_bucket(hist, need))
    for b in range(N_BUCKETS - 1, np.int64(d2), -1):
        need -= hist[b]
    top = (d1 << np.uint64(11)) | d2
    hist[:] = 0
    for i in range(m):
        bits = keys[i] >> np.uint64(32)
        if bits >> np.uint64(9) == top:
            hist[bits & np.uint64(511)] += 1
    return (top << np.uint64(9)) | np.uint64(_cut_bucket(hist, need))


@nb.njit(nogil=True, cache=True, inline="always")
def _max_clauses(q_ptr):
    """The most clauses one query of the batch has (the size of the kernels' per-clause arrays)."""
    m = 0
    for q in range(q_ptr.shape[0] - 1):
        m = max(m, q_ptr[q + 1] - q_ptr[q])
    return m


@nb.njit(nogil=True, cache=True, inline="always")
def _contribution(w, p, impacts, imp_base, lucene):
    """Posting p's share for a clause of weight w: from its impact (default arithmetic) or its y (Lucene's)."""
    if lucene:
        return _lucene_part(w, impacts[p - imp_base])
    return w * impacts[p - imp_base]


@nb.njit(nogil=True, cache=True, inline="always")
def _lower_bound(docs, lo, hi, target):
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
def _window_end(docs, p, hi, stop):
    """The first p' ≥ p with docs[p'] ≥ stop (hi if none): gallop, then halve."""
    step = 1
    while p + step < hi and docs[p + step] < stop:
        step *= 2
    return _lower_bound(docs, p + step // 2, min(hi, p + step), np.uint32(stop)) if p < hi else hi


@nb.njit(nogil=True, cache=True, inline="always")
def _drop_hopeless(rest, theta, wacc, wtouched, nt, wbits):
    """Keep the window's documents whose score could still reach θ with `rest` more, their bit set;
    the others leave the touched list, their accumulator zeroed and bit cleared. Returns how many
    are kept."""
    kept = 0
    for i in range(nt):
        j = np.uint64(wtouched[i])
        wtouched[kept] = np.int64(j)
        if _f32_bits((wacc[j] + rest) * PRUNE_SLACK) >= theta:
            kept += 1
            wbits[j >> np.uint64(6)] |= _ONE << (j & np.uint64(63))
        else:
            wacc[j] = 0.0
            wbits[j >> np.uint64(6)] &= ~(_ONE << (j & np.uint64(63)))
    return kept


@nb.njit(nogil=True, cache=True, inline="always")
def _listed(docs, p, e, u_start, wbits, hits):
    """The postings p..e−1 whose window document (docs[p] − u_start) has its bit set, into hits (int64), in
    order; their number. Without a branch per posting (about one in five is set, at random): the scan of a
    non-essential list then reads and adds only those postings' shares."""
    n = np.uint64(0)
    for at in range(np.uint64(p), np.uint64(e)):
        j = np.uint64(docs[at]) - u_start
        hits[n] = np.int64(at)
        n += (wbits[j >> np.uint64(6)] >> (j & np.uint64(63))) & _ONE
    return n


@nb.njit(nogil=True, cache=True)
def _score_rest(lookup_ratio, first, n_essential, n_cl, start, c_weight, docs, impacts, imp_base, lucene, rest, theta,
                cursor, ends, wacc, wtouched, nt, wbits, hits):
    """Add the non-essential clauses of one window to the documents the essential ones found, in
    clause order, first dropping documents that cannot reach θ with all those clauses.
    Postings are read one by one when they are few per document (a bit test each, without a branch: the
    postings of listed documents are gathered in `hits`, then only those add their share), else each
    document is looked up by binary search. Returns the number of documents left in `wtouched` and
    the number of postings read or looked up."""
    read = 0
    for i in range(n_essential, n_cl):
        if i == n_essential:  # once: later clauses add less, but a second pass over the documents cost more than
            #                     it saved (the scan below costs the same whichever documents are listed)
            nt = _drop_hopeless(rest[i], theta, wacc, wtouched, nt, wbits)
        if nt == 0:
            break
        w = c_weight[first + i]
        p, end = cursor[i], ends[i]
        if nt * lookup_ratio < end - p:  # few documents: look each one up
            read += nt
            for x in range(nt):
                j = wtouched[x]
                d = start + j
                at = _lower_bound(docs, p, end, np.uint32(d))
                if at < end and np.int64(docs[at]) == d:
                    wacc[j] += _contribution(w, at, impacts, imp_base, lucene)
        else:
            read += end - p
            u_start = np.uint64(start)
            u_base = np.uint64(imp_base)
            for h in range(_listed(docs, p, end, u_start, wbits, hits)):
                at = np.uint64(hits[h])
                wacc[np.uint64(docs[at]) - u_start] += _contribution(w, at, impacts, u_base, lucene)
    return nt, read


@nb.njit(nogil=True, cache=True)
def search_windowed(clauses, postings, impacts, imp_base, lucene, maxima, max_base, prune, lookup_ratio,
                    ranking, out, window, selection):
    """Top k per query of Σ clauses weight × impact (flat and multifield layouts).

    Clause c of query q (c in q_ptr[q]..q_ptr[q+1], heaviest first) reads term c_term[c] in
    field c_field[c] with weight c_weight[c]. `impacts[p - imp_base]` = tf/(tf + norm) per
    posting (default arithmetic), or with `lucene` y = 1 + float32(tf)·(1/norm)
    (both made per list at setting build: bounds.fill_lists), from which a clause adds Lucene's float32 w − w/y.
    `maxima[(p - max_base) >> BLOCK_SHIFT]`: the largest impact (or y) of the block holding posting p
    (tfs are not read); `prune` off reads every posting in full; `lookup_ratio`: see
    LOOKUP_RATIO. Scratch: `wacc` (WINDOW
    float64, zeroed), `wtouched` (WINDOW int64), `wbits` (WINDOW/64 uint64, zeroed; a document's bit
    is set while the non-essential clauses read it). Scores go out as float32 bits (`out_bits`). Returns the number of postings read or looked up.
    The arguments come grouped: `clauses` (topk.Clauses), `postings` (topk.Postings), `ranking`
    (topk.Ranking), `out` (topk.TopK), `window` (Window: wacc, wtouched, wbits), `selection`
    (topk.Selection)."""
    q_ptr, c_field, c_term, c_weight = clauses
    offsets, docs, _ = postings
    rank, rank_to_doc, rank_bits, k = ranking
    out_docs, out_bits, out_n = out
    wacc, wtouched, wbits = window
    sel, tmp, hist = selection
    n_docs = rank.shape[0]
    window = wacc.shape[0]
    max_clauses = _max_clauses(q_ptr)
    cursor = np.empty(max_clauses, np.int64)  # each clause's next posting
    ends = np.empty(max_clauses, np.int64)  # each clause's first posting past the window
    rest = np.zeros(max_clauses + 1, np.float64)  # rest[i]: the most clauses i.. add in the window
    compact_at = max(2 * k, 1024)
    keys = np.empty(compact_at + window, np.uint64)  # candidates: (score bits << 32) | document
    hits = np.empty(window, np.int64)  # a non-essential clause's postings of listed documents, in a window (_listed)
    read = 0
    for q in range(q_ptr.shape[0] - 1):
        first, end = q_ptr[q], q_ptr[q + 1]
        n_cl = end - first
        for i in range(n_cl):
            cursor[i] = offsets[c_field[first + i], c_term[first + i]]
        rest[n_cl] = 0.0
        theta = np.uint64(0)  # float32 bits of a lower bound on the k-th best score
        m = 0
        for start in range(0, n_docs, window):
            stop = start + window
            for i in range(n_cl - 1, -1, -1):  # each clause's share of the window, and its bound
                c = first + i
                p = cursor[i]
                e = _window_end(docs, p, offsets[c_field[c], c_term[c] + 1], stop)
                ends[i] = e
                x = np.float32(0.0)
                for b in range((p - max_base) >> BLOCK_SHIFT, ((e - 1 - max_base) >> BLOCK_SHIFT) + 1):
                    x = max(x, maxima[b])
                bound = (_lucene_part(c_weight[c], x) if lucene else c_weight[c] * np.float64(x)) if e > p else 0.0
                rest[i] = rest[i + 1] + bound
            n_essential = n_cl  # clauses from n_essential on cannot bring a new document in
            if prune and theta > 0:
                while n_essential > 0 and _f32_bits(rest[n_essential - 1] * PRUNE_SLACK) < theta:
                    n_essential -= 1
            nt = 0
            for i in range(n_essential):  # every posting; remember first touches
                c = first + i
                read += ends[i] - cursor[i]
                w = c_weight[c]
                # unsigned indices throughout: numba then emits no negative-index wraparound (−25% time)
                u_start = np.uint64(start)
                u_base = np.uint64(imp_base)
                if lucene:
                    for p in range(np.uint64(cursor[i]), np.uint64(ends[i])):
                        j = np.uint64(docs[p]) - u_start
                        a = wacc[j]
                        wtouched[np.uint64(nt)] = np.int64(j)
                        nt += a == 0.0  # scores are > 0: zero marks a first touch
                        wacc[j] = a + _lucene_part(w, impacts[p - u_base])
                else:
                    for p in range(np.uint64(cursor[i]), np.uint64(ends[i])):
                        j = np.uint64(docs[p]) - u_start
                        a = wacc[j]
                        wtouched[np.uint64(nt)] = np.int64(j)
                        nt += a == 0.0
                        wacc[j] = a + w * impacts[p - u_base]
            if n_essential < n_cl and nt > 0:
                nt, looked = _score_rest(lookup_ratio, first, n_essential, n_cl, start, c_weight, docs, impacts, imp_base,
                                         lucene, rest, theta, cursor, ends, wacc, wtouched, nt, wbits, hits)
                read += looked
            for i in range(n_cl):
                cursor[i] = ends[i]
            m = _close_window(wacc, wbits, wtouched, nt, start, keys, m, theta)
            if m >= compact_at:
                keys, m, theta = _raise_theta(keys, m, k, hist, window)
        _rank_ties(keys, m, rank, rank_bits)
        out_n[q] = _emit(keys, m, k, rank_bits, rank_to_doc, sel, tmp, hist, out_docs[q], out_bits[q])
    return read


@nb.njit(nogil=True, cache=True, inline="always")
def _close_window(wacc, wbits, wtouched, nt, start, keys, m, theta):
    """The window's documents are complete: clear their accumulators and keep (score bits, document)
    keys of those that can rank; the new count of keys."""
    for i in range(nt):
        j = np.uint64(wtouched[i])  # unsigned, as in the kernels' loops (no wraparound checks): 0.94-0.96x here
        bits = _f32_bits(wacc[j])
        wacc[j] = 0.0
        wbits[j >> np.uint64(6)] = 0
        keys[m] = (bits << np.uint64(32)) | (np.uint64(start) + j)
        m += bits >= theta
    return m


@nb.njit(nogil=True, cache=True, inline="always")
def _raise_theta(keys, m, k, hist, window):
    """θ raised to the k-th best key so far and only the keys that reach it kept (ties too), with room
    for another window's: (keys, count, θ)."""
    theta = _kth_bits(keys, m, k, hist)
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
def _rank_ties(keys, m, rank, rank_bits):
    """Each key's document replaced by its rank in document-id byte order, so equal scores order as
    trec_eval orders them."""
    rb = np.uint64(rank_bits)
    for i in range(m):
        key = keys[i]
        keys[i] = ((key >> np.uint64(32)) << rb) | np.uint64(rank[np.int64(key & _LOW32)])
