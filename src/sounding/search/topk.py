"""Compiled kernels: score accumulation over postings and top-k selection (numba, nogil).

Term-at-a-time accumulation into a dense per-document buffer, remembering which documents were
touched, then top-k selection over those documents only (a key partition for BM25's non-negative
scores; a bounded heap, `_heap_push_topk`, for scores of any sign). Each query is computed sequentially by
one thread, so results do not depend on the thread count. Order: score descending, then the
document id's byte-order rank descending (trec_eval's tie rule), so ranks and ties are exact.
"""
from __future__ import annotations

import numba as nb
import numpy as np

_F32_ONE = np.float32(1.0)


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
def _heap_push_topk(touched, n_touched, final, rank, k, out_docs, out_scores):
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


@nb.njit(nogil=True, cache=True)
def _topk_by_key(touched, n_touched, final, final_bits, rank, rank_to_doc, k, keys, out_docs, out_scores):
    """Top-k of the touched documents for non-negative scores, via one 64-bit key per document:
    float32 bits (monotone for non-negative floats) above the id's byte-order rank. A partial
    partition then a sort of k keys: score descending, then id descending, exactly."""
    n = n_touched
    for i in range(n):
        d = touched[i]
        keys[i] = (np.uint64(final_bits[d]) << np.uint64(32)) | np.uint64(rank[d])
    m = min(k, n)
    if m == 0:
        return 0
    sel = np.partition(keys[:n], n - m)[n - m:] if n > m else keys[:n].copy()
    sel.sort()
    mask = np.uint64(0xFFFFFFFF)
    for j in range(m):
        d = rank_to_doc[np.int64(sel[m - 1 - j] & mask)]
        out_docs[j] = d
        out_scores[j] = final[d]
    return m


@nb.njit(nogil=True, cache=True)
def search_sum1(q_ptr, c_field, c_term, c_weight, offsets, docs, tfs, norms, impacts, lucene, rank, rank_to_doc, k,
                out_docs, out_bits, out_n, acc, scratch, scratch_bits, touched, keys):
    """The common case (flat, multifield sum) in the fewest passes: accumulate into `acc`, then one
    pass over the touched documents builds the (float32 bits, rank) keys and clears `acc`, then a
    partial partition; scores go out as float32 bits (`out_bits` views the float32 output).
    `impacts[p]` = tf/(tf + norm) per posting for the current k1/b (default arithmetic only)."""
    mask = np.uint64(0xFFFFFFFF)
    for q in range(q_ptr.shape[0] - 1):
        n = 0
        for c in range(q_ptr[q], q_ptr[q + 1]):
            f = c_field[c]
            t = c_term[c]
            w = c_weight[c]
            w32 = np.float32(w)
            if lucene:
                for p in range(offsets[f, t], offsets[f, t + 1]):
                    d = docs[p]
                    s = w32 - w32 / (_F32_ONE + np.float32(tfs[p]) * norms[f, d])
                    if acc[d] == 0.0:
                        touched[n] = d
                        n += 1
                    acc[d] += np.float64(s)
            else:
                for p in range(offsets[f, t], offsets[f, t + 1]):
                    d = docs[p]
                    if acc[d] == 0.0:
                        touched[n] = d
                        n += 1
                    acc[d] += w * impacts[p]
        for i in range(n):
            d = touched[i]
            scratch[i] = np.float32(acc[d])
            acc[d] = 0.0
            keys[i] = (np.uint64(scratch_bits[i]) << np.uint64(32)) | np.uint64(rank[d])
        m = min(k, n)
        if m == 0:
            out_n[q] = 0
            continue
        sel = np.partition(keys[:n], n - m)[n - m:] if n > m else keys[:n].copy()
        sel.sort()
        for j in range(m):
            key = sel[m - 1 - j]
            out_docs[q, j] = rank_to_doc[np.int64(key & mask)]
            out_bits[q, j] = np.uint32(key >> np.uint64(32))
        out_n[q] = m
    return 0


@nb.njit(nogil=True, cache=True)
def search_sum(q_ptr, c_field, c_term, c_weight, c_group, n_groups, combine_max,
               offsets, docs, tfs, norms, lucene, rank, rank_to_doc, k,
               out_docs, out_scores, out_n, acc, final, final_bits, touched, keys):
    """BM25 for flat and multi-field layouts.

    Clause c of query q (c in q_ptr[q]..q_ptr[q+1]) scores term c_term[c] in field c_field[c] with
    weight c_weight[c] into group c_group[c]. Groups are summed, or maxed when combine_max
    (multifield-max: one group per field). `norms[f, d]` is k1·(1−b+b·len/avg) for the default
    arithmetic, or Lucene's float32 1/norm when `lucene`.
    """
    n_docs = final.shape[0]
    for q in range(q_ptr.shape[0] - 1):
        n_touched = 0
        for c in range(q_ptr[q], q_ptr[q + 1]):
            f = c_field[c]
            t = c_term[c]
            g = c_group[c]
            w = c_weight[c]
            w32 = np.float32(w)
            for p in range(offsets[f, t], offsets[f, t + 1]):
                d = docs[p]
                tf = tfs[p]
                if lucene:
                    s = w32 - w32 / (_F32_ONE + np.float32(tf) * norms[f, d])
                    contrib = np.float64(s)
                else:
                    contrib = w * tf / (tf + norms[f, d])
                if final[d] == 0.0:
                    final[d] = 1.0  # mark touched
                    touched[n_touched] = d
                    n_touched += 1
                acc[g, d] += contrib
        for i in range(n_touched):
            d = touched[i]
            if combine_max:
                best = acc[0, d]
                for g in range(1, n_groups):
                    if acc[g, d] > best:
                        best = acc[g, d]
                total = best
            else:
                total = 0.0
                for g in range(n_groups):
                    total += acc[g, d]
            for g in range(n_groups):
                acc[g, d] = 0.0
            final[d] = np.float32(total)
        out_n[q] = _topk_by_key(touched, n_touched, final, final_bits, rank, rank_to_doc, k, keys,
                                out_docs[q], out_scores[q])
        for i in range(n_touched):
            final[touched[i]] = 0.0
    return n_docs


@nb.njit(nogil=True, cache=True)
def search_bm25f(q_ptr, c_field, c_term, c_weight, c_group, c_idf, k1,
                 offsets, docs, tfs, inv_norms, rank, rank_to_doc, k,
                 out_docs, out_scores, out_n, acc, final, final_bits, touched, keys, term_touched, pseudo):
    """BM25F: per query term (group), pseudo-tf = Σ_f w_f·tf_f / B_f(d) over its field clauses,
    then one saturation idf·tf~·(k1+1)/(tf~+k1). `inv_norms[f, d]` = 1/B_f(d), c_weight = w_f,
    c_idf = count·idf of the clause's term; a term's clauses are consecutive, one c_group value."""
    for q in range(q_ptr.shape[0] - 1):
        n_touched = 0
        c = q_ptr[q]
        end = q_ptr[q + 1]
        while c < end:
            g = c_group[c]
            term_idf = c_idf[c]
            n_term = 0
            while c < end and c_group[c] == g:
                f = c_field[c]
                t = c_term[c]
                w = c_weight[c]
                for p in range(offsets[f, t], offsets[f, t + 1]):
                    d = docs[p]
                    if pseudo[d] == 0.0:
                        term_touched[n_term] = d
                        n_term += 1
                    pseudo[d] += w * tfs[p] * inv_norms[f, d]
                c += 1
            for i in range(n_term):
                d = term_touched[i]
                x = pseudo[d]
                pseudo[d] = 0.0
                if final[d] == 0.0:
                    final[d] = 1.0
                    touched[n_touched] = d
                    n_touched += 1
                acc[0, d] += term_idf * x * (k1 + 1.0) / (x + k1)
        for i in range(n_touched):
            d = touched[i]
            final[d] = np.float32(acc[0, d])
            acc[0, d] = 0.0
        out_n[q] = _topk_by_key(touched, n_touched, final, final_bits, rank, rank_to_doc, k, keys,
                                out_docs[q], out_scores[q])
        for i in range(n_touched):
            final[touched[i]] = 0.0
    return 0
