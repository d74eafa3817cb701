"""The term-at-a-time kernels of the layouts whose clauses fall in groups (multifield-max, BM25F) (numba,
nogil). They score every posting: they run with pruning off (`Searcher.prune = False`), the reference whose
bits the pruned kernel of these layouts (grouped.py) must give; flat and multifield use windowed.py.

Term-at-a-time accumulation into a dense per-document buffer, remembering which documents were touched,
then top-k selection over those documents only (selection.rank_touched). The first-touch test is written
without a data-dependent branch (a store, then a counter advanced by a comparison): a mispredicted branch
per posting cost 3× the accumulation itself (measured on scifact, top 1000).
"""
from __future__ import annotations

import numba as nb
import numpy as np

from .postings import term_postings
from .selection import rank_touched

_F32_ONE = np.float32(1.0)


@nb.njit(nogil=True, cache=True)
def search_sum(clauses, c_group, n_groups, combine_max, postings, norms, lucene, ranking, out, acc, total, touched,
               selection, dbuf, tbuf):
    """BM25 for layouts with several groups of clauses (multifield-max: one group per field).

    Clause c of query q (c in q_ptr[q]..q_ptr[q+1]) scores term c_term[c] in field c_field[c] with
    weight c_weight[c] into group c_group[c]. Groups are summed, or maxed when combine_max.
    `norms[f, d]` is k1·(1−b+b·len/avg) for the default arithmetic, or Lucene's float32 1/norm
    when `lucene`. `total` (float64, n_docs) receives each touched document's combined score.
    `postings`: raw (Postings) or packed (postings.PackedPostings, decoded into dbuf and tbuf)."""
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
        out_n[q] = rank_touched(total, touched, keys, n, rank, rank_to_doc, rank_bits, k, sel, tmp, hist,
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
        out_n[q] = rank_touched(acc, touched, keys, n, rank, rank_to_doc, rank_bits, k, sel, tmp, hist,
                                 out_docs[q], out_bits[q])
    return 0
