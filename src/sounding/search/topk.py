"""Compiled kernels: top-k selection, and the term-at-a-time kernels of the multi-group layouts
(multifield-max, BM25F) (numba, nogil). Those score every posting: they run with pruning off
(Searcher.prune = False), the reference whose bits the pruned kernel of these layouts (grouped.py)
must give; flat and multifield use windowed.py.

Term-at-a-time accumulation into a dense per-document buffer, remembering which documents were
touched, then top-k selection over those documents only: a radix select and sort of one integer
key per document for BM25's non-negative scores (`_select_top`); a bounded heap,
`_heap_push_topk`, for scores of any sign. Each query is computed sequentially by one thread, so
results do not depend on the thread count. Order: score descending, then the document id's
byte-order rank descending (trec_eval's tie rule), so ranks and ties are exact.

Why the loops look the way they do (measured on scifact, top 1000): the first-touch test and the
selection are written without data-dependent branches (a store, then a counter advanced by a
comparison), because a mispredicted branch per posting cost 3× the accumulation itself; and a
radix select + sort beat numpy's partition + sort of the keys by ~2×.
"""
from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np
from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic, overload

from ..index.packed import decode_list

_F32_ONE = np.float32(1.0)


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


# The kernels' arguments, grouped (numba passes named tuples of arrays as they are).
class Clauses(NamedTuple):
    """Per query q, clauses q_ptr[q]..q_ptr[q+1]: field, term, weight (clauses.build_clauses)."""
    q_ptr: np.ndarray
    field: np.ndarray
    term: np.ndarray
    weight: np.ndarray


class Postings(NamedTuple):
    """The index's postings: offsets (n_fields, n_terms + 1), docs (uint32), tfs."""
    offsets: np.ndarray
    docs: np.ndarray
    tfs: np.ndarray


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


def term_postings(postings, f, t, dbuf, tbuf):
    """A term's documents and term frequencies in compiled code: views of raw postings (Postings), or
    packed ones (windowed_packed.PackedPostings) decoded into dbuf and tbuf (each ≥ the list long)."""
    raise NotImplementedError  # compiled only: see the overload below


@overload(term_postings, inline="always")
def _term_postings(postings, f, t, dbuf, tbuf):
    if len(postings.types) == 3:  # raw: offsets, docs, tfs
        def raw(postings, f, t, dbuf, tbuf):
            a, z = postings[0][f, t], postings[0][f, t + 1]
            return postings[1][a:z], postings[2][a:z]
        return raw

    def packed(postings, f, t, dbuf, tbuf):
        offsets, first_block, blk_last, blk_start, blk_width, words = postings
        n = offsets[f, t + 1] - offsets[f, t]
        decode_list(first_block, blk_last, blk_start, blk_width, words, f, t, n, dbuf, tbuf)
        return dbuf[:n], tbuf[:n]
    return packed


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


@nb.njit(nogil=True, cache=True, inline="always")
def _cut_bucket(hist, need):
    """The bucket where, counting down from the top bucket, `need` keys are reached."""
    above = 0
    cut = N_BUCKETS - 1
    while above + hist[cut] < need:
        above += hist[cut]
        cut -= 1
    return cut


@nb.njit(nogil=True, cache=True)
def _select_top(keys, n, k, nbits, out, tmp, hist):
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
            cut_digit = np.uint64(_cut_bucket(hist, m - taken))
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
def _f32_bits(x):
    """IEEE bits of float32(x) (order-preserving for x ≥ 0)."""
    return np.uint64(_f32_as_u32(np.float32(x)))


@nb.njit(nogil=True, cache=True)
def _rank_touched(acc, touched, keys, n, rank, rank_to_doc, rank_bits, k, sel, tmp, hist, out_docs, out_bits):
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
            bits = _f32_bits(acc[d])
            acc[d] = 0.0
            keys[i] = (bits << rb) | np.uint64(rank[d])
        return _emit(keys, n, k, rank_bits, rank_to_doc, sel, tmp, hist, out_docs, out_bits)
    hist[:] = 0
    for i in range(n):
        d = touched[i]
        bits = _f32_bits(acc[d])
        acc[d] = 0.0
        keys[i] = (bits << np.uint64(32)) | np.uint64(d)
        hist[bits >> np.uint64(31 - DIGIT_BITS)] += 1
    cut_digit = np.uint64(_cut_bucket(hist, m))
    n_cand = 0
    for i in range(n):  # candidates to the front, keyed (score bits, rank)
        key = keys[i]
        bits = key >> np.uint64(32)
        if bits >> np.uint64(31 - DIGIT_BITS) >= cut_digit:
            keys[n_cand] = (bits << rb) | np.uint64(rank[np.int64(key & np.uint64(0xFFFFFFFF))])
            n_cand += 1
    return _emit(keys, n_cand, k, rank_bits, rank_to_doc, sel, tmp, hist, out_docs, out_bits)


@nb.njit(nogil=True, cache=True)
def _emit(keys, n, k, rank_bits, rank_to_doc, sel, tmp, hist, out_docs, out_bits):
    """Select the top k of `keys[:n]` ((score bits << rank_bits) | rank) and write them out."""
    m = _select_top(keys, n, k, 31 + rank_bits, sel, tmp, hist)
    rb = np.uint64(rank_bits)
    rmask = (np.uint64(1) << rb) - np.uint64(1)
    for j in range(m):
        key = sel[j]
        out_docs[j] = rank_to_doc[np.int64(key & rmask)]
        out_bits[j] = np.uint32(key >> rb)
    return m


@nb.njit(nogil=True, cache=True)
def search_sum(clauses, c_group, n_groups, combine_max, postings, norms, lucene, ranking, out, acc, total, touched,
               selection, dbuf, tbuf):
    """BM25 for layouts with several groups of clauses (multifield-max: one group per field).

    Clause c of query q (c in q_ptr[q]..q_ptr[q+1]) scores term c_term[c] in field c_field[c] with
    weight c_weight[c] into group c_group[c]. Groups are summed, or maxed when combine_max.
    `norms[f, d]` is k1·(1−b+b·len/avg) for the default arithmetic, or Lucene's float32 1/norm
    when `lucene`. `total` (float64, n_docs) receives each touched document's combined score.
    `postings`: raw (Postings) or packed (windowed_packed.PackedPostings, decoded into dbuf and tbuf)."""
    q_ptr, c_field, c_term, c_weight = clauses
    rank, rank_to_doc, rank_bits, k = ranking
    out_docs, out_bits, out_n = out
    sel, tmp, hist = selection
    keys = touched.view(np.uint64)
    for q in range(q_ptr.shape[0] - 1):
        n = 0
        for c in range(q_ptr[q], q_ptr[q + 1]):
            f = c_field[c]
            t = c_term[c]
            g = c_group[c]
            w = c_weight[c]
            w32 = np.float32(w)
            docs, tfs = term_postings(postings, f, t, dbuf, tbuf)
            for p in range(docs.shape[0]):
                d = np.int64(docs[p])
                tf = tfs[p]
                if lucene:
                    contrib = np.float64(w32 - w32 / (_F32_ONE + np.float32(tf) * norms[f, d]))
                else:
                    contrib = w * tf / (tf + norms[f, d])
                seen = total[d]
                touched[n] = d
                n += seen == 0.0
                total[d] = 1.0  # marks the document touched until it is ranked
                acc[g, d] += contrib
        for i in range(n):
            d = touched[i]
            if combine_max:
                best = acc[0, d]
                for g in range(1, n_groups):
                    best = max(best, acc[g, d])
                score = best
            else:
                score = 0.0
                for g in range(n_groups):
                    score += acc[g, d]
            for g in range(n_groups):
                acc[g, d] = 0.0
            total[d] = score
        out_n[q] = _rank_touched(total, touched, keys, n, rank, rank_to_doc, rank_bits, k, sel, tmp, hist,
                                 out_docs[q], out_bits[q])
    return 0


@nb.njit(nogil=True, cache=True)
def search_bm25f(clauses, c_group, c_idf, k1, postings, inv_norms, ranking, out, acc, touched, term_touched, pseudo,
                 selection, dbuf, tbuf):
    """BM25F: per query term (group), pseudo-tf = Σ_f w_f·tf_f / B_f(d) over its field clauses,
    then one saturation idf·tf~·(k1+1)/(tf~+k1). `inv_norms[f, d]` = 1/B_f(d), c_weight = w_f,
    c_idf = count·idf of the clause's term; a term's clauses are consecutive, one c_group value.
    `postings`: raw or packed, as for search_sum."""
    q_ptr, c_field, c_term, c_weight = clauses
    rank, rank_to_doc, rank_bits, k = ranking
    out_docs, out_bits, out_n = out
    sel, tmp, hist = selection
    keys = touched.view(np.uint64)
    for q in range(q_ptr.shape[0] - 1):
        n = 0
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
                docs, tfs = term_postings(postings, f, t, dbuf, tbuf)
                for p in range(docs.shape[0]):
                    d = np.int64(docs[p])
                    x = pseudo[d]
                    term_touched[n_term] = d
                    n_term += x == 0.0
                    pseudo[d] = x + w * tfs[p] * inv_norms[f, d]
                c += 1
            for i in range(n_term):
                d = term_touched[i]
                x = pseudo[d]
                pseudo[d] = 0.0
                a = acc[d]
                touched[n] = d
                n += a == 0.0
                acc[d] = a + term_idf * x * (k1 + 1.0) / (x + k1)
        out_n[q] = _rank_touched(acc, touched, keys, n, rank, rank_to_doc, rank_bits, k, sel, tmp, hist,
                                 out_docs[q], out_bits[q])
    return 0
