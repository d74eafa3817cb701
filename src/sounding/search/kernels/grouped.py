"""The pruned kernel of the layouts whose clauses fall in groups (bm25f, multifield-max): the document
windows and MaxScore pruning of windowed.py, with each document's sums made in the order the
term-at-a-time kernels (exhaustive.search_bm25f, exhaustive.search_sum) make them, so the same bits.

A *unit* is what pruning keeps or skips whole: for BM25F one query term (its field clauses are
merged into one pseudo term frequency x = Σ_f w_f·tf_f/B_f, then saturated: idf·x·(k1+1)/(x+k1));
for multifield-max one clause, added to its field's sum (a document scores the largest sum).
A unit's bound in a window comes from block maxima (bounds.py): the largest float32 tf/B_f of
each field clause (BM25F: saturation is increasing in x) or the largest impact of the clause.

Pruning as in windowed.py: units are added heaviest first (static weight: idf, or the clause's
weight); once the units left could together add less than θ in a window, they only add to the
documents the others found (a bit per window document, read per posting without a branch, or a binary
search per document when few), dropping documents whose partial score plus the bounds left cannot reach θ.
A window's units are added in one call (_score_window), its loops written out: numba changes the reference
count of each array argument of every call, inlined or not, atomically; a call per unit and window made that
15-20% of the kernel (measured with perf at NQ size), one a window ~3.5%.

Why scores are sometimes summed again: the term-at-a-time kernels add a document's parts in the
query's term order, and a float64 sum in another order can round to another float32. Summed
heaviest first, a score differs from the query-order sum by under (2n + 4) float64 ulps (n parts,
all positive); a document whose float32 could change within that margin (a fraction (2n + 4)·2^-29
of scores at random) and that can still reach θ is summed again in the query's order, each part
looked up by binary search. So the bits are theirs without giving up the heaviest-first order that
makes pruning work. Lucene's parts are float32 values whose float64 sums are mostly exact and then
often lie on a float32 rounding midpoint, which that margin would send to be summed again; where
the setting's smallest 1/norm shows every sum of the query's parts exact (_exact_sums), no order can
change a bit and none is. multifield-max's default arithmetic on raw postings adds w·impact (float64
tf/(tf + norm), made at setting build: bounds.KEEP_IMPACT64) instead of dividing per posting (measured
at NQ size: 0.61-0.74x the kernel's time); its parts then differ from the term-at-a-time ones by two
roundings, so every score is checked, with the margin widened by IMPACT_ULPS.

Raw postings are read in place; packed ones are decoded a list at a time into one buffer per
query (no pruning of the decoding, only of the scoring), or copied there from the lists held decoded
(windowed_packed.ListCache of term frequencies: a list asked for again is not decoded again).
"""
from __future__ import annotations

import math

import numba as nb
import numpy as np
from numba.extending import overload

from ...index.packed import decode_list
from .bounds import BLOCK_SHIFT
from .selection import emit, f32_bits
from .window import (PRUNE_SLACK, listed, lower_bound, lucene_part, most_clauses, raise_theta, rank_ties,
                     window_end)

# Block maxima are float32 values of tf/(tf + norm) or tf·(1/B); a score part is computed from the
# same inputs in float64 (or other float32 steps): it may exceed the bound made from the rounded
# maximum by a relative 2^-23 or so. Bounds are widened by this much more than that.
BOUND_SLACK = 1.0 + 2.0 ** -16
# A float64 sum of n positive parts in another order differs by under 2·n ulps of the sum: a score
# whose float32 rounding could change within ORDER_ULPS·n + 4 ulps is summed again in the query's order.
ORDER_ULPS = 2.0
# multifield-max's float64 impacts (bounds.KEEP_IMPACT64): w·fl(tf/den) against the term-at-a-time
# fl(w·tf)/den, two roundings each, differ by under 4 ulps of the part, so a sum by under 4 ulps of the
# sum more; the margin is widened by this many, and every score is checked (not only reordered sums).
IMPACT_ULPS = 8.0
_F32_ONE = np.float32(1.0)
_ONE = np.uint64(1)


def query_lists(postings, f_arr, t_arr, first, n_cl, start, end, dbuf, tbuf):
    """Each clause's postings as a range of one documents array and one tfs array: raw postings in
    place; packed ones (postings.PackedHeld) copied from the lists held decoded, or decoded,
    one after another into dbuf, tbuf (long enough for the query)."""
    raise NotImplementedError  # compiled only: see the overload below


@overload(query_lists, inline="always")
def _query_lists(postings, f_arr, t_arr, first, n_cl, start, end, dbuf, tbuf):
    if len(postings.types) == 3:  # raw: offsets, docs, tfs
        def raw(postings, f_arr, t_arr, first, n_cl, start, end, dbuf, tbuf):
            offsets = postings[0]
            for i in range(n_cl):
                start[i] = offsets[f_arr[first + i], t_arr[first + i]]
                end[i] = offsets[f_arr[first + i], t_arr[first + i] + 1]
            return postings[1], postings[2]
        return raw

    if len(postings.types) == 9:  # packed, some lists held decoded (postings.PackedHeld): copied
        def held(postings, f_arr, t_arr, first, n_cl, start, end, dbuf, tbuf):
            offsets, first_block, blk_last, blk_start, blk_width, words, h_at, hdocs, htfs = postings
            at = 0
            for i in range(n_cl):
                f, t = f_arr[first + i], t_arr[first + i]
                n = offsets[f, t + 1] - offsets[f, t]
                h = h_at[first + i]
                if h >= 0:
                    dbuf[at : at + n] = hdocs[h : h + n]
                    tbuf[at : at + n] = htfs[h : h + n]
                else:
                    decode_list(first_block, blk_last, blk_start, blk_width, words, f, t, n, dbuf[at:], tbuf[at:])
                start[i] = at
                end[i] = at + n
                at += n
            return dbuf, tbuf
        return held


def block_of(postings, f, t, s, max_base):
    """(shift, base) such that the block maximum of posting p of the list starting at s is
    maxima[((p + shift) >> BLOCK_SHIFT) + base]: raw postings' blocks are fixed runs of the posting
    arrays from the maxima's first posting (max_base), packed ones start each list."""
    raise NotImplementedError  # compiled only: see the overload below


@overload(block_of, inline="always")
def _block_of(postings, f, t, s, max_base):
    if len(postings.types) == 3:
        def raw(postings, f, t, s, max_base):
            return -np.int64(max_base), np.int64(0)
        return raw

    def packed(postings, f, t, s, max_base):
        return -np.int64(s), np.int64(postings[1][f, t])
    return packed


@nb.njit(nogil=True, cache=True)
def _mf_part(w, tf, norm, lucene):
    """A multifield-max clause's share of a posting, as exhaustive.search_sum makes it. Scalars only, so a call
    changes no reference count; not inlined by numba (LLVM inlines it), as numba's inlining of it into
    mf_value's overload trips its IR checks (NumbaIRAssumptionWarning)."""
    if lucene:
        w32 = np.float32(w)
        return np.float64(w32 - w32 / (_F32_ONE + np.float32(tf) * norm))
    return w * tf / (tf + norm)


def norm_at(postings, ys, base, p, norms, f, d):
    """The norm of posting p's document d: raw postings' kept per posting (ys[p − base]: bounds.fill_lists'
    KEEP_NORM), read in posting order; packed ones' (decoded per query) from norms[f, d],
    gathered. The gathered norms of a window's documents lie on lines of memory the window's other reads
    do not bring into the cache. Chosen by the postings' type, at compile time: a branch on whether the
    norms are kept, although the same for a whole loop, made the loops 1.7× slower, a select 1.05×."""
    raise NotImplementedError  # compiled only: see the overload below


@overload(norm_at, inline="always")
def _norm_at(postings, ys, base, p, norms, f, d):
    if len(postings.types) == 3:
        def kept(postings, ys, base, p, norms, f, d):
            return ys[p - base]
        return kept

    def gathered(postings, ys, base, p, norms, f, d):
        return norms[f, d]
    return gathered


def mf_value(postings, w, tfs, ys, base, p, norms, f, d, lucene):
    """What posting p (document d, field f) adds to a multifield-max sum: raw postings with float64 impacts
    kept (ys, bounds.KEEP_IMPACT64), w·impact, not _mf_part's w·tf/(tf + norm): no division per posting, and
    a part that differs by at most 2 roundings (see IMPACT_ULPS); else _mf_part. Chosen at compile time."""
    raise NotImplementedError  # compiled only: see the overload below


@overload(mf_value, inline="always")
def _mf_value(postings, w, tfs, ys, base, p, norms, f, d, lucene):
    if len(postings.types) == 3 and ys.dtype == nb.types.float64:
        def impact(postings, w, tfs, ys, base, p, norms, f, d, lucene):
            return w * ys[p - base]
        return impact

    if len(postings.types) == 3:
        def kept(postings, w, tfs, ys, base, p, norms, f, d, lucene):
            return _mf_part(w, tfs[p], ys[p - base], lucene)
        return kept

    def gathered(postings, w, tfs, ys, base, p, norms, f, d, lucene):
        return _mf_part(w, tfs[p], norms[f, d], lucene)
    return gathered


@nb.njit(nogil=True, cache=True)
def _add_unit(bm25f, first, ua, uz, start, js, n, c_field, c_weight, c_group, c_idf, k1, docs, tfs, norms, lucene, ys,
              y_base, lo, hi, acc):
    """Add what unit ua..uz−1 adds to each document start + js[x] (x < n) to its group's sum acc[g, js[x]], each
    part found by binary search in the clauses' postings lo[i]..hi[i]−1 and made as the term-at-a-time kernels
    make it. The documents' loop is here, not around a call: see _score_window on calls."""
    for x in range(n):
        j = js[x]
        d = start + j
        if bm25f:
            y = 0.0
            for i in range(ua, uz):
                at = lower_bound(docs, lo[i], hi[i], np.uint32(d))
                if at < hi[i] and np.int64(docs[at]) == d:
                    y = y + c_weight[first + i] * tfs[at] * norms[c_field[first + i], d]
            if y != 0.0:
                acc[0, j] += c_idf[first + ua] * y * (k1 + 1.0) / (y + k1)
            continue
        at = lower_bound(docs, lo[ua], hi[ua], np.uint32(d))
        if at < hi[ua] and np.int64(docs[at]) == d:
            c = first + ua
            if lucene and ys.shape[0]:
                acc[c_group[c], j] += lucene_part(c_weight[c], ys[at - y_base])
            else:
                acc[c_group[c], j] += _mf_part(c_weight[c], tfs[at], norms[c_field[c], d], lucene)


@nb.njit(nogil=True, cache=True)
def _score_window(bm25f, first, n_u, n_essential, order, ustart, rest, theta, n_acc, start, c_field, c_weight, c_group,
                  c_idf, k1, postings, docs, tfs, norms, lucene, ys, y_base, cursor, ends, acc, wbits, wtouched, pseudo,
                  ptouched, lookup_ratio, hits):
    """Add a window's units heaviest first (`order`; unit u: clauses ustart[u]..ustart[u+1]−1). Units before
    n_essential read every posting, first touches listed in wtouched (a document is new while all its sums are
    0: parts are > 0); the others add only to listed documents, by a marked-document scan of their postings
    (`wbits`: a bit per window document, set from the first dropping on) or, few documents, a binary search per
    document, once documents that cannot reach θ are dropped (rest[g, r]: the most units r.. add to group g).
    Returns the count of listed documents and the postings read or looked up.

    One function, one call a window, its loops written out: numba changes the reference count of each array
    argument of every call, inlined or not (an atomic add each), and a call per unit and window cost ~15-20%
    of the kernel (NQ size, perf)."""
    nt = 0
    read = 0
    u_start = np.uint64(start)
    u_base = np.uint64(y_base)
    for r in range(n_u):
        essential = r < n_essential
        u = order[r]
        ua, uz = ustart[u], ustart[u + 1]
        if not essential:
            if nt == 0:
                break
            # keep the listed documents whose score could still reach θ: a group's sum with the most the units
            # left add to that group; the others are unmarked, their sums zeroed
            kept = 0
            for i in range(nt):
                j = wtouched[i]
                wtouched[kept] = j
                best = acc[0, j] + rest[0, r]
                for g in range(1, n_acc):
                    best = max(best, acc[g, j] + rest[g, r])
                if f32_bits(best * PRUNE_SLACK) >= theta:
                    kept += 1
                    wbits[j >> 6] |= _ONE << np.uint64(j & 63)
                else:
                    for g in range(n_acc):
                        acc[g, j] = 0.0
                    wbits[j >> 6] &= ~(_ONE << np.uint64(j & 63))
            nt = kept
            span = 0
            for i in range(ua, uz):
                span += ends[i] - cursor[i]
            if nt * (uz - ua) * lookup_ratio < span:  # few documents: look each one up
                _add_unit(bm25f, first, ua, uz, start, wtouched, nt, c_field, c_weight, c_group, c_idf, k1, docs, tfs,
                          norms, lucene, ys, y_base, cursor, ends, acc)
                read += nt * (uz - ua)
                continue
        if not bm25f:
            c = first + ua
            # unsigned indices: no wraparound checks; no row views (each a reference count changed atomically)
            nf = np.uint64(c_field[c])
            row = np.uint64(c_group[c])
            other = np.uint64((c_group[c] + 1) % acc.shape[0])  # the other sum (at most two): zero in both, not yet listed
            w = c_weight[c]
            read += ends[ua] - cursor[ua]
            if lucene and ys.shape[0]:  # Lucene's y per posting (raw postings): w − w/y
                if essential:
                    for p in range(np.uint64(cursor[ua]), np.uint64(ends[ua])):
                        j = np.uint64(docs[p]) - u_start
                        a = acc[row, j]
                        wtouched[np.uint64(nt)] = np.int64(j)
                        nt += (a == 0.0) & (acc[other, j] == 0.0)
                        acc[row, j] = a + lucene_part(w, ys[p - u_base])
                else:
                    for h in range(listed(docs, cursor[ua], ends[ua], u_start, wbits, hits)):
                        p = np.uint64(hits[h])
                        acc[row, np.uint64(docs[p]) - u_start] += lucene_part(w, ys[p - u_base])
            elif essential:
                for p in range(np.uint64(cursor[ua]), np.uint64(ends[ua])):
                    d = np.uint64(docs[p])
                    j = d - u_start
                    a = acc[row, j]
                    wtouched[np.uint64(nt)] = np.int64(j)
                    nt += (a == 0.0) & (acc[other, j] == 0.0)
                    acc[row, j] = a + mf_value(postings, w, tfs, ys, u_base, p, norms, nf, d, lucene)
            else:
                for h in range(listed(docs, cursor[ua], ends[ua], u_start, wbits, hits)):
                    p = np.uint64(hits[h])
                    d = np.uint64(docs[p])
                    acc[row, d - u_start] += mf_value(postings, w, tfs, ys, u_base, p, norms, nf, d, lucene)
            continue
        # BM25F: the term's clauses but the last add to pseudo (its documents listed in ptouched as first
        # met); the last completes each of its documents' x and saturates it at once; then the documents
        # the last clause lacks are saturated. x sums the clauses in their order either way.
        idf = c_idf[first + ua]
        row = np.uint64(0)
        n_p = 0
        for i in range(ua, uz - 1):
            c = first + i
            nf = np.uint64(c_field[c])
            w = c_weight[c]
            read += ends[i] - cursor[i]
            # the same body over every posting, or over the marked documents' ones: written twice, as a helper
            # would cost its array arguments' reference counts per call (see _score_window)
            if essential:
                for p in range(np.uint64(cursor[i]), np.uint64(ends[i])):
                    d = np.uint64(docs[p])
                    j = d - u_start
                    y = pseudo[j]
                    ptouched[np.uint64(n_p)] = np.int64(j)
                    n_p += y == 0.0
                    pseudo[j] = y + w * tfs[p] * norm_at(postings, ys, u_base, p, norms, nf, d)
            else:
                for h in range(listed(docs, cursor[i], ends[i], u_start, wbits, hits)):
                    p = np.uint64(hits[h])
                    d = np.uint64(docs[p])
                    j = d - u_start
                    y = pseudo[j]
                    ptouched[np.uint64(n_p)] = np.int64(j)
                    n_p += y == 0.0
                    pseudo[j] = y + w * tfs[p] * norm_at(postings, ys, u_base, p, norms, nf, d)
        c = first + uz - 1
        nf = np.uint64(c_field[c])
        w = c_weight[c]
        read += ends[uz - 1] - cursor[uz - 1]
        if essential:
            for p in range(np.uint64(cursor[uz - 1]), np.uint64(ends[uz - 1])):
                d = np.uint64(docs[p])
                j = d - u_start
                y = pseudo[j] + w * tfs[p] * norm_at(postings, ys, u_base, p, norms, nf, d)  # 0.0 + part where no earlier clause has d: the part
                pseudo[j] = 0.0
                a = acc[row, j]
                wtouched[np.uint64(nt)] = np.int64(j)
                nt += a == 0.0
                acc[row, j] = a + idf * y * (k1 + 1.0) / (y + k1)
        else:
            for h in range(listed(docs, cursor[uz - 1], ends[uz - 1], u_start, wbits, hits)):
                p = np.uint64(hits[h])
                d = np.uint64(docs[p])
                j = d - u_start
                y = pseudo[j] + w * tfs[p] * norm_at(postings, ys, u_base, p, norms, nf, d)
                pseudo[j] = 0.0
                acc[row, j] = acc[row, j] + idf * y * (k1 + 1.0) / (y + k1)
        for x in range(n_p):
            j = np.uint64(ptouched[x])
            y = pseudo[j]
            if y != 0.0:
                pseudo[j] = 0.0
                a = acc[row, j]
                if essential:
                    wtouched[np.uint64(nt)] = np.int64(j)
                    nt += a == 0.0
                acc[row, j] = a + idf * y * (k1 + 1.0) / (y + k1)
    return nt, read


@nb.njit(nogil=True, cache=True, inline="always")
def _unit_bound(bm25f, y, x, w, k1, lucene, y_maxima):
    """The most a unit can add to a score in the window, from its clauses' largest block maxima there (0 where
    a clause has no posting in the window). BM25F: y = Σ w_f·maximum over the term's clauses, w its idf; else x
    the clause's maximum (float32: of Lucene's y where `y_maxima`, else of tf·(1/norm) (Lucene's) or the
    impact), w its weight. Scalars only: see _score_window on calls with arrays."""
    if bm25f:
        if y == 0.0:
            return 0.0
        y *= BOUND_SLACK
        return w * y * (k1 + 1.0) / (y + k1) * BOUND_SLACK
    if x == 0.0:
        return 0.0
    if lucene:
        return lucene_part(w, x if y_maxima else _F32_ONE + x) * BOUND_SLACK
    return w * np.float64(x) * BOUND_SLACK


@nb.njit(nogil=True, cache=True)
def _exact_score(bm25f, first, n_u, ustart, d, c_field, c_weight, c_group, c_idf, k1, docs, tfs, norms, lucene, ys,
                 y_base, lo, hi, sums, n_acc, one):
    """Document d's score summed in the query's unit order (the term-at-a-time kernels' order); `sums`: n_acc × 1;
    `one`: [0], d as the one document of a window starting at d."""
    sums[:, 0] = 0.0
    for u in range(n_u):
        _add_unit(bm25f, first, ustart[u], ustart[u + 1], d, one, 1, c_field, c_weight, c_group, c_idf, k1, docs, tfs,
                  norms, lucene, ys, y_base, lo, hi, sums)
    s = sums[0, 0]
    for g in range(1, n_acc):
        s = max(s, sums[g, 0])
    return s


@nb.njit(nogil=True, cache=True)
def _exact_sums(c_field, c_weight, first, n_cl, min_y):
    """Whether every float64 sum of Lucene's parts of clauses first..first+n_cl−1 is exact, so the same
    in any order. A part is a float32 w − w/y with y ≥ min_y[field] when not 0 (y ≥ 1 + float32(tf)·(1/norm),
    tf ≥ 1; the float32 steps are monotone), so at least `lowest` = 2^(e−1)·(1 to 2): a multiple of
    2^(e−24) like every float32 that large. A sum of such parts, at most Σ w, is exact while Σ w ≤ 2^53
    of that unit."""
    total = 0.0
    lowest = np.inf
    for i in range(n_cl):
        w32 = np.float32(c_weight[first + i])
        total += np.float64(w32)
        lowest = min(lowest, lucene_part(w32, min_y[c_field[first + i]]))
    if not lowest >= 2.0 ** -100:  # 0 (a part may round to 0), or too near float32's subnormals
        return False
    e = math.frexp(lowest)[1]  # lowest = f·2^e, f in [0.5, 1)
    return total <= math.ldexp(1.0, e + 29)


@nb.njit(nogil=True, cache=True)
def search_grouped(clauses, c_group, c_idf, bm25f, k1, n_acc, postings, norms, lucene, ys, y_base, min_y, maxima,
                   max_base, lookup_ratio, order_ulps, ranking, out, acc, wbits, wtouched, pseudo, ptouched, selection, dbuf, tbuf):
    """Top k per query of the bm25f layout (`bm25f`) or the multifield-max one, the same bits as
    exhaustive.search_bm25f / exhaustive.search_sum with combine_max (their arguments: `clauses` in their
    order, `c_group`, `c_idf`, `norms`, `lucene`), with pruning.

    `ys[p − y_base]`: Lucene's y = 1 + float32(tf)·(1/norm) of raw posting p (bounds.fill_lists, LUCENE_Y),
    read instead of tf and 1/norm where given (not empty) with `lucene`: a clause then adds w − w/y;
    without `lucene`, raw posting p's float64 impact tf/(tf + norm) (multifield-max, bounds.KEEP_IMPACT64: see
    mf_value) or document norm (bm25f, bounds.KEEP_NORM: see norm_at), always given for raw postings then.
    `min_y[f]`: (Lucene's arithmetic) 1 + the smallest float32 1/norm of field f, a lower bound on y.
    `maxima[((p + shift) >> BLOCK_SHIFT) + base]` bounds the float32 tf·norm (bm25f: norm = 1/B_f;
    Lucene's 1/norm), or y where `ys` is read, or tf/(tf + norm) of posting p (block_of gives shift
    and base). Scratch, one window of documents (zeroed, handed back zeroed): `acc` (n_acc × window
    float64: one sum per multifield-max group, two at most (title, text), one for bm25f), `wbits`
    (window/64 uint64, a bit per document), `wtouched`,
    `pseudo` (float64), `ptouched`. dbuf, tbuf: packed postings' decoding room (the query's postings in all).
    `order_ulps`: ORDER_ULPS (a test raises it to sum nearly every score again in the query's order).
    Returns the number of postings read or looked up."""
    q_ptr, c_field, c_term, c_weight = clauses
    rank, rank_to_doc, rank_bits, k = ranking
    out_docs, out_bits, out_n = out
    sel, tmp, hist = selection
    n_docs = rank.shape[0]
    window = acc.shape[1]
    max_clauses = most_clauses(q_ptr)
    cursor = np.empty(max_clauses, np.int64)  # each clause's first posting in the window
    ends = np.empty(max_clauses, np.int64)  # its first posting past the window
    lend = np.empty(max_clauses, np.int64)  # its list's end
    bshift = np.empty(max_clauses, np.int64)
    bbase = np.empty(max_clauses, np.int64)
    xs = np.empty(max_clauses, np.float32)  # its largest block maximum in the window
    ustart = np.empty(max_clauses + 1, np.int64)  # unit u: clauses ustart[u]..ustart[u+1]−1, in query order
    order = np.empty(max_clauses, np.int64)  # the units heaviest first: the order they are added in
    heavy = np.empty(max_clauses, np.float64)
    # rest[g, r]: the most units order[r..] add to group g's sum in the window (a multifield-max score is
    # its largest group sum: a document can reach at most the largest of its sums with their rests)
    rest = np.zeros((n_acc, max_clauses + 1), np.float64)
    ugroup = np.zeros(max_clauses, np.int64)  # each unit's group
    sums = np.zeros((n_acc, 1), np.float64)
    one = np.zeros(1, np.int64)
    compact_at = max(2 * k, 1024)
    keys = np.empty(compact_at + window, np.uint64)  # candidates: (score bits << 32) | document
    redo = np.empty(window, np.int64)  # a window's documents to sum again in the query's order
    hits = np.empty(window, np.int64)  # a unit's postings of listed documents, in a window (listed)
    y_maxima = lucene and ys.shape[0] > 0
    impacts = not bm25f and not lucene and ys.shape[0] > 0 and ys.itemsize == 8  # float64 impacts: IMPACT_ULPS
    read = 0
    for q in range(q_ptr.shape[0] - 1):
        first, end = q_ptr[q], q_ptr[q + 1]
        n_cl = end - first
        docs, tfs = query_lists(postings, c_field, c_term, first, n_cl, cursor, lend, dbuf, tbuf)
        n_u = 0
        for i in range(n_cl):
            bshift[i], bbase[i] = block_of(postings, c_field[first + i], c_term[first + i], cursor[i], max_base)
            if i == 0 or not bm25f or c_group[first + i] != c_group[first + i - 1]:
                ustart[n_u] = i
                heavy[n_u] = c_idf[first + i] if bm25f else c_weight[first + i]  # the bound's scale
                order[n_u] = n_u
                n_u += 1
        ustart[n_u] = n_cl
        for r in range(1, n_u):  # insertion sort, heaviest first (ties in query order)
            r2 = r
            while r2 > 0 and heavy[order[r2 - 1]] < heavy[order[r2]]:
                order[r2 - 1], order[r2] = order[r2], order[r2 - 1]
                r2 -= 1
        eps = (order_ulps * n_u + 4.0 + (IMPACT_ULPS if impacts else 0.0)) * 2.0 ** -53  # see ORDER_ULPS
        check = False  # whether a score can differ from the query-order sum: summed in another order, or of impacts
        for r in range(n_u):
            check |= order[r] != r
        if check and lucene and not bm25f:
            check = not _exact_sums(c_field, c_weight, first, n_cl, min_y)
        check |= impacts
        for i in range(n_u):
            ugroup[i] = 0 if bm25f else c_group[first + ustart[i]]
        rest[:, n_u] = 0.0
        theta = np.uint64(0)  # float32 bits of a lower bound on the k-th best score
        m = 0
        for start in range(0, n_docs, window):
            stop = start + window
            for i in range(n_cl):
                p = cursor[i]
                e = window_end(docs, p, lend[i], stop)
                ends[i] = e
                x = np.float32(0.0)
                if e > p:
                    for b in range(((p + bshift[i]) >> BLOCK_SHIFT) + bbase[i],
                                   ((e - 1 + bshift[i]) >> BLOCK_SHIFT) + bbase[i] + 1):
                        x = max(x, maxima[b])
                xs[i] = x
            for r in range(n_u - 1, -1, -1):
                u = order[r]
                for g in range(n_acc):
                    rest[g, r] = rest[g, r + 1]
                ua = ustart[u]
                y = 0.0
                if bm25f:
                    for i in range(ua, ustart[u + 1]):
                        y += c_weight[first + i] * np.float64(xs[i])
                rest[ugroup[u], r] += _unit_bound(bm25f, y, xs[ua], c_idf[first + ua] if bm25f else c_weight[first + ua],
                                                  k1, lucene, y_maxima)
            n_essential = n_u  # units from n_essential on (in order) cannot bring a document in alone
            if theta > 0:
                while n_essential > 0:  # a document none of the units before found reaches at most this
                    most = rest[0, n_essential - 1]
                    for g in range(1, n_acc):
                        most = max(most, rest[g, n_essential - 1])
                    if f32_bits(most * PRUNE_SLACK) >= theta:
                        break
                    n_essential -= 1
            nt, got = _score_window(bm25f, first, n_u, n_essential, order, ustart, rest, theta, n_acc, start, c_field,
                                    c_weight, c_group, c_idf, k1, postings, docs, tfs, norms, lucene, ys, y_base, cursor,
                                    ends, acc, wbits, wtouched, pseudo, ptouched, lookup_ratio, hits)
            read += got
            # the window's documents are complete: keyed, or (their float32 may depend on the order of the sum)
            # listed to be summed again in the query's order after this loop, not in it. Measured at NQ size:
            # the rare call out of the loop and each group sum cleared as it is read took the kernel to
            # 0.89-0.95x; the same with the sums read first and cleared in a second loop, to 1.3x.
            n_redo = 0
            for i in range(nt):
                j = np.uint64(wtouched[i])
                s = acc[0, j]  # the best group sum, each cleared as read
                acc[0, j] = 0.0
                for g in range(1, n_acc):
                    s = max(s, acc[g, j])
                    acc[g, j] = 0.0
                wbits[j >> np.uint64(6)] = 0
                bits = f32_bits(s)
                if check:
                    upper = f32_bits(s * (1.0 + eps))
                    again = upper >= theta and upper != f32_bits(s * (1.0 - eps))
                    redo[n_redo] = np.int64(j)
                    n_redo += again
                    keep = not again
                else:
                    keep = True
                keys[m] = (bits << np.uint64(32)) | (np.uint64(start) + j)
                m += keep and bits >= theta
            for x in range(n_redo):
                j = redo[x]
                s = _exact_score(bm25f, first, n_u, ustart, start + j, c_field, c_weight, c_group, c_idf, k1,
                                 docs, tfs, norms, lucene, ys, y_base, cursor, ends, sums, n_acc, one)
                bits = f32_bits(s)
                keys[m] = (bits << np.uint64(32)) | np.uint64(start + j)
                m += bits >= theta
            for i in range(n_cl):
                cursor[i] = ends[i]
            if m >= compact_at:
                keys, m, theta = raise_theta(keys, m, k, hist, window)
        rank_ties(keys, m, rank, rank_bits)
        out_n[q] = emit(keys, m, k, rank_bits, rank_to_doc, sel, tmp, hist, out_docs[q], out_bits[q])
    return read
