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

import numba as nb
import numpy as np

from .bounds import BLOCK_SHIFT
from .selection import emit
from .window import (SMALL_K, close_window, drop_hopeless, essential_clauses, heap_close, heap_emit, lower_bound,
                     listed, lucene_part, most_clauses, raise_theta, rank_ties, window_end)


@nb.njit(nogil=True, cache=True, inline="always")
def _contribution(w, p, impacts, imp_base, lucene):
    """Posting p's share for a clause of weight w: from its impact (default arithmetic) or its y (Lucene's)."""
    if lucene:
        return lucene_part(w, impacts[p - imp_base])
    return w * impacts[p - imp_base]


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
            nt = drop_hopeless(rest[i], theta, wacc, wtouched, nt, wbits)
        if nt == 0:
            break
        w = c_weight[first + i]
        p, end = cursor[i], ends[i]
        if nt * lookup_ratio < end - p:  # few documents: look each one up
            read += nt
            for x in range(nt):
                j = wtouched[x]
                d = start + j
                at = lower_bound(docs, p, end, np.uint32(d))
                if at < end and np.int64(docs[at]) == d:
                    wacc[j] += _contribution(w, at, impacts, imp_base, lucene)
        else:
            read += end - p
            u_start = np.uint64(start)
            u_base = np.uint64(imp_base)
            for h in range(listed(docs, p, end, u_start, wbits, hits)):
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
    The arguments come grouped: `clauses` (clauses.Clauses), `postings` (postings.Postings), `ranking`
    (selection.Ranking), `out` (selection.TopK), `window` (Window: wacc, wtouched, wbits), `selection`
    (selection.Selection)."""
    q_ptr, c_field, c_term, c_weight = clauses
    offsets, docs, _ = postings
    rank, rank_to_doc, rank_bits, k = ranking
    out_docs, out_bits, out_n = out
    wacc, wtouched, wbits = window
    sel, tmp, hist = selection
    n_docs = rank.shape[0]
    window = wacc.shape[0]
    max_clauses = most_clauses(q_ptr)
    cursor = np.empty(max_clauses, np.int64)  # each clause's next posting
    ends = np.empty(max_clauses, np.int64)  # each clause's first posting past the window
    rest = np.zeros(max_clauses + 1, np.float64)  # rest[i]: the most clauses i.. add in the window
    compact_at = max(2 * k, 1024)
    small = k <= SMALL_K  # the best k kept in a heap (window.heap_close), else candidates selected (emit)
    keys = np.empty(k if small else compact_at + window, np.uint64)  # candidates: (score bits << 32) | document
    hits = np.empty(window, np.int64)  # a non-essential clause's postings of listed documents, in a window (listed)
    read = 0
    for q in range(q_ptr.shape[0] - 1):
        first, end = q_ptr[q], q_ptr[q + 1]
        n_cl = end - first
        for i in range(n_cl):
            cursor[i] = offsets[c_field[first + i], c_term[first + i]]
        rest[n_cl] = 0.0
        theta = np.uint64(0)  # float32 bits of a lower bound on the k-th best score
        m = 0  # candidate keys (or, small, keys in the heap)
        for start in range(0, n_docs, window):
            stop = start + window
            for i in range(n_cl - 1, -1, -1):  # each clause's share of the window, and its bound
                c = first + i
                p = cursor[i]
                e = window_end(docs, p, offsets[c_field[c], c_term[c] + 1], stop)
                ends[i] = e
                x = np.float32(0.0)
                for b in range((p - max_base) >> BLOCK_SHIFT, ((e - 1 - max_base) >> BLOCK_SHIFT) + 1):
                    x = max(x, maxima[b])
                bound = (lucene_part(c_weight[c], x) if lucene else c_weight[c] * np.float64(x)) if e > p else 0.0
                rest[i] = rest[i + 1] + bound
            n_essential = essential_clauses(rest, n_cl, theta, prune)  # the clauses after cannot bring a new document in
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
                        wacc[j] = a + lucene_part(w, impacts[p - u_base])
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
            if small:
                m, theta = heap_close(wacc, wbits, wtouched, nt, start, keys, m, k, rank, rank_bits, theta)
                continue
            m = close_window(wacc, wbits, wtouched, nt, start, keys, m, theta)
            if m >= compact_at:
                keys, m, theta = raise_theta(keys, m, k, hist, window)
        if small:
            out_n[q] = heap_emit(keys, m, rank_bits, rank_to_doc, out_docs[q], out_bits[q])
            continue
        rank_ties(keys, m, rank, rank_bits)
        out_n[q] = emit(keys, m, k, rank_bits, rank_to_doc, sel, tmp, hist, out_docs[q], out_bits[q])
    return read


