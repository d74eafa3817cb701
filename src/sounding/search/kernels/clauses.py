"""Query clauses: which (field, term) posting lists a query reads, with what weight, in what order.

A query's clauses are laid out CSR-style (`ptr[q]..ptr[q+1]`) in one fixed order, term (first
occurrence in the query) then field (layout order), or heaviest weight first for the pruned
sum kernel (rare terms first: the top-k threshold rises early). That order is the summation
order, and weights come from collection statistics only (merged ones on shards), so a score
depends on nothing but the query and the collection. Compiled, so that building one query's clauses costs a few
microseconds (numpy's per-call overhead made it the largest cost of query-at-a-time search).
"""
from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np

DEFAULT, LUCENE, BM25F = 0, 1, 2  # weight arithmetic


class Clauses(NamedTuple):
    """Per query q, clauses q_ptr[q]..q_ptr[q+1]: field, term, weight (build_clauses)."""
    q_ptr: np.ndarray
    field: np.ndarray
    term: np.ndarray
    weight: np.ndarray


@nb.njit(cache=True)
def build_clauses(q_lens, terms, counts, lay_fields, lay_weights, df, idf, flat, k1, mode, group_by_field,
                  by_weight=False):
    """Clauses of queries whose matched terms are `terms[...]` (q_lens per query) with occurrence
    `counts`: per clause its field, term, weight, group and (BM25F) count·idf.

    Weights: DEFAULT count·idf·(k1+1)·w_f in float64; LUCENE Lucene's float32 boost·count·idf;
    BM25F w_f (the term's count·idf goes in c_idf; its group is the term's place in the query).
    Groups: 0, or the field's place in the layout when `group_by_field` (multifield-max).
    A field the term does not occur in, or a zero field weight, makes no clause.
    `by_weight`: each query's clauses sorted by weight, heaviest first (ties keep their order)."""
    n_q = q_lens.shape[0]
    n_lay = lay_fields.shape[0]
    cap = terms.shape[0] * n_lay
    c_field = np.empty(cap, np.int64)
    c_term = np.empty(cap, np.int64)
    c_weight = np.empty(cap, np.float64)
    c_group = np.zeros(cap, np.int64)
    c_idf = np.zeros(cap, np.float64)
    ptr = np.zeros(n_q + 1, np.int64)
    n = 0
    i = 0
    for q in range(n_q):
        for g in range(q_lens[q]):
            t = terms[i]
            c = counts[i]
            i += 1
            for fi in range(n_lay):
                f = lay_fields[fi]
                fw = lay_weights[fi]
                if df[f, t] <= 0 or fw == 0.0:
                    continue
                c_field[n] = f
                c_term[n] = t
                if mode == BM25F:
                    c_weight[n] = fw
                    c_group[n] = g
                    c_idf[n] = idf[flat, t] * c
                elif mode == LUCENE:
                    c_weight[n] = np.float64(np.float32(fw) * np.float32(c) * np.float32(idf[f, t]))
                else:
                    c_weight[n] = fw * c * idf[f, t] * (k1 + 1.0)
                if group_by_field:
                    c_group[n] = fi
                n += 1
        if by_weight:  # insertion sort: a query has a handful of clauses
            for i2 in range(ptr[q] + 1, n):
                j = i2
                while j > ptr[q] and c_weight[j - 1] < c_weight[j]:
                    c_field[j - 1], c_field[j] = c_field[j], c_field[j - 1]
                    c_term[j - 1], c_term[j] = c_term[j], c_term[j - 1]
                    c_weight[j - 1], c_weight[j] = c_weight[j], c_weight[j - 1]
                    c_group[j - 1], c_group[j] = c_group[j], c_group[j - 1]
                    c_idf[j - 1], c_idf[j] = c_idf[j], c_idf[j - 1]
                    j -= 1
        ptr[q + 1] = n
    return ptr, c_field[:n], c_term[:n], c_weight[:n], c_group[:n], c_idf[:n]
