"""Evaluate a search's top-k arrays against qrels: the ranks of the judged documents, compiled, no dicts.

`evaluate(qrels, results.to_run(), ...)` makes a str and a float per hit and a dict per query before any
measure is computed. Every measure needs only, per judged query, the ranks of the judged documents it
retrieved and its number of hits (metrics.py), so `judged_ranks` computes exactly those from the arrays
(internal document numbers, float32 scores, counts): a judged document is found by its document number,
its rank is 1 + (hits scored higher) + (tied hits whose id is greater in byte order: trec_eval's tie
order, given by the index's docid rank), and ties are resolved within the same horizon as metrics.py's.
The per-query values then come from the measures' own code (`measures.query_values`), so they are those of
the dict path to the last digit.

Both lists BEIR-style scoring needs come out of one pass: the ranking as retrieved, and the ranking with
the query's own document (docid == qid) removed.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ._fastscan import _hash, _same

OK, FALLBACK = 0, 1


@njit(cache=True, nogil=True)
def lookup_ids(blob, starts, want_blob, want_ptr):
    """Document number of each wanted id (want_blob[want_ptr[i]:want_ptr[i+1]]) among the lines of the
    docid table (line d is blob[starts[d]:starts[d+1]-1]); -1 where absent. Returns (numbers, ok): ok is
    False when a wanted id is found on two lines (the dict path then decides)."""
    n_want = want_ptr.size - 1
    size = 4
    while size < 2 * n_want + 2:
        size *= 2
    table = np.full(size, -1, np.int64)
    mask = size - 1
    for w in range(n_want):
        p = np.int64(_hash(want_blob, want_ptr[w], want_ptr[w + 1]) & np.uint64(mask))
        while table[p] >= 0:
            p = (p + 1) & mask
        table[p] = w
    found = np.full(n_want, -1, np.int64)
    if n_want == 0:
        return found, True
    for d in range(starts.size - 1):
        a, z = np.int64(starts[d]), np.int64(starts[d + 1]) - 1
        p = np.int64(_hash(blob, a, z) & np.uint64(mask))
        while table[p] >= 0:
            w = table[p]
            if _same(want_blob, want_ptr[w], want_ptr[w + 1], blob, a, z):
                if found[w] >= 0:
                    return found, False
                found[w] = d
            p = (p + 1) & mask
    return found, True


@njit(cache=True, nogil=True, inline="always")
def _rank(docs, scores, r, n, line, skip, rank, horizon):
    """Rank (from 1) of hit `line` of row r among its first n hits without hit `skip` (-1: none)."""
    s = scores[r, line]
    gt = 0
    tied = 0
    for i in range(n):
        if i != skip:
            if scores[r, i] > s:
                gt += 1
            elif scores[r, i] == s:
                tied += 1
    out = 1 + gt
    if tied > 1 and out <= horizon:  # inside a tie, every tied hit with a greater docid ranks ahead
        mine = rank[docs[r, line]]
        for i in range(n):
            if i != skip and i != line and scores[r, i] == s and rank[docs[r, i]] > mine:
                out += 1
    return out


@njit(cache=True, nogil=True)
def judged_ranks(docs, scores, counts, rows, self_doc, jq_first, jdoc, rank, horizon_self, horizon_raw, n_docs):
    """Per judged query j (its row rows[j], -1: not searched) and judged entry e (jq_first[j] <= e <
    jq_first[j+1], document number jdoc[e], -1: not in the collection):

    (status, rank of e without the self hit (0: not retrieved), rank of e as retrieved (0: not retrieved),
    hits without the self hit, hits as retrieved). status is FALLBACK for a NaN score or a document twice
    in a row (the dict path reports or decides)."""
    n_jq = rows.size
    ranks_self = np.zeros(jdoc.size, np.int64)
    ranks_raw = np.zeros(jdoc.size, np.int64)
    n_self = np.zeros(n_jq, np.int64)
    n_raw = np.zeros(n_jq, np.int64)
    pos = np.zeros(n_docs, np.int32)  # 1 + a document's place in the current row, 0: not in it
    for j in range(n_jq):
        r = rows[j]
        if r < 0:
            continue
        n = counts[r]
        bad = False
        for i in range(n):
            d = docs[r, i]
            if pos[d] or np.isnan(scores[r, i]):
                bad = True
            pos[d] = i + 1
        if not bad:
            sl = pos[self_doc[j]] - 1 if self_doc[j] >= 0 else -1
            n_raw[j] = n
            n_self[j] = n - 1 if sl >= 0 else n
            for e in range(jq_first[j], jq_first[j + 1]):
                d = jdoc[e]
                if d < 0 or pos[d] == 0:
                    continue
                line = pos[d] - 1
                ranks_raw[e] = _rank(docs, scores, r, n, line, -1, rank, horizon_raw)
                if line != sl:
                    ranks_self[e] = _rank(docs, scores, r, n, line, sl, rank, horizon_self)
        for i in range(n):
            pos[docs[r, i]] = 0
        if bad:
            return FALLBACK, ranks_self, ranks_raw, n_self, n_raw
    return OK, ranks_self, ranks_raw, n_self, n_raw


@njit(cache=True, nogil=True)
def top_candidates(docs, scores, counts, rows, cut):
    """For each row of `rows`, its hits that can rank within the top `cut` once any one hit is removed: those
    scored at least as high as its (cut+1)-th best (all of them when it has no more), in their order.
    Returns (documents, scores, how many per row), the kept hits first in each row.

    Two passes, the borders and counts first, then the copy into arrays made once: no array is reassigned
    inside a loop (numba then reloads it at every step)."""
    border = np.full(rows.size, -np.inf)
    kept = np.zeros(rows.size, np.int64)
    width = 1
    for i in range(rows.size):
        r = rows[i]
        n = counts[r]
        if n > cut + 1:
            ordered = True  # best first, as a search gives them: the border is read off; else sorted
            for j in range(1, n):
                if scores[r, j] > scores[r, j - 1]:
                    ordered = False
                    break
            border[i] = scores[r, cut] if ordered else np.sort(scores[r, :n])[n - cut - 1]
        m = 0
        for j in range(n):
            if scores[r, j] >= border[i]:
                m += 1
        kept[i] = m
        width = max(width, m)
    out_docs = np.full((rows.size, width), -1, docs.dtype)
    out_scores = np.zeros((rows.size, width), scores.dtype)
    for i in range(rows.size):
        r = rows[i]
        m = 0
        for j in range(counts[r]):
            if scores[r, j] >= border[i]:
                out_docs[i, m] = docs[r, j]
                out_scores[i, m] = scores[r, j]
                m += 1
    return out_docs, out_scores, kept
