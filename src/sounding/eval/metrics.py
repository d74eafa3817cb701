"""trec_eval-exact measures, computed from the ranks of the judged documents only.

Why hand-written: pytrec_eval (trec_eval's C code) is the reference, and the tests check every measure
against it to 1e-9, but it copies every hit into C structures and sorts every ranking in full (about 7 s
for 10,000 queries x 1,000 hits). Every measure here needs only the ranks of the *judged* retrieved
documents, and a rank is a count: (hits scored strictly higher) + (tied hits with a larger docid) + 1.
So per query: one np.sort of the scores, a searchsorted for the few judged documents (looked up in the
run dict), and a string comparison only inside score ties.

Semantics (trec_eval -c; docs/definitions.md):
- rank order: score descending, ties by docid descending (trec_eval's strcmp; Python's str order is the
  same as strcmp over UTF-8 bytes);
- relevant: grade > 0; nDCG gain = grade (grades <= 0 give 0), discount 1/log2(rank+1), ideal DCG from
  all positively graded judgements of the query, cut at k;
- the mean is over every query with at least one judgement in the qrels (grade 0 included); a judged query
  missing from the run scores 0; run queries without judgements are ignored. A query whose judgements
  are all grade 0 scores 0 on every measure except judged@k (pytrec_eval does the same);
- judged@k (ir_measures' Judged@k): judged hits in the top k / min(k, hits retrieved), 0 with no hits;
- nDCG'@k (trec_eval -J -m ndcg_cut.k; Sakai's condensed list): the hits without a judgement of grade >= 0
  are removed (a negative grade is trec_eval's "in the pool, not judged": removed too), the rest keep their
  order and are ranked again from 1; then nDCG@k as above, with the same ideal DCG. Every hit can move up,
  so nDCG' resolves ties over the whole ranking;
- bpref (trec_eval -m bpref; Buckley & Voorhees 2004): R = judgements with grade > 0, N = judgements with
  grade 0. Walking the hits in rank order, skipping those without a judgement of grade >= 0, each relevant
  hit adds 1 - min(n, R) / min(N, R), where n counts the grade-0 hits above it (it adds 1 when n = 0); the
  sum is divided by R (0 when R = 0). No cutoff: the whole ranking counts;
- remove_self_hits: drop the hit whose docid equals the qid before ranking (BEIR's ignore_identical_ids).
"""
from __future__ import annotations

import heapq
import math
from bisect import bisect_right
from collections.abc import Iterable, Mapping
from itertools import accumulate
from operator import itemgetter

import numpy as np

from ..errors import SoundingError
from .measures import Measure, parse_measures

Qrels = dict[str, dict[str, int]]
Run = dict[str, dict[str, float]]


def trec_order(hits: Mapping[str, float], k: int | None = None) -> list[str]:
    """Docids in trec_eval's order (score descending, ties by docid descending), the top k if given."""
    if k is not None and 4 * k < len(hits):  # a heap pays only when it keeps a small part
        return [d for d, _ in heapq.nlargest(k, hits.items(), key=_SCORE_THEN_DOCID)]
    return [d for d, _ in sorted(hits.items(), key=_SCORE_THEN_DOCID, reverse=True)[:k]]


_SCORE_THEN_DOCID = itemgetter(1, 0)  # (score, docid), compared descending: trec_eval's order


def judged_qids(qrels: Qrels) -> list[str]:
    """The queries every mean runs over: those with at least one judgement, in sorted order."""
    return sorted(q for q, j in qrels.items() if j)


def _ranks(qid: str, judgements: Mapping[str, int], hits: Mapping[str, float], remove_self_hits: bool, horizon: float):
    """(ranks, grades, n_hits) of the judged documents the run retrieved for one query (ranks from 1).

    Ties are resolved only for hits that may rank within `horizon` (the largest cutoff when every measure
    has one): beyond it no measure can tell rank 101 from rank 102.
    """
    if remove_self_hits and qid in hits:
        hits = {d: s for d, s in hits.items() if d != qid}
    n = len(hits)
    if n == 0:
        return [], [], 0
    scores = np.fromiter(hits.values(), np.float64, n)
    srt = np.sort(scores)
    if np.isnan(srt[-1]):  # NaN sorts last; it has no place in a ranking
        raise SoundingError(f"run: query {qid!r} has a NaN score")
    found = [d for d in judgements if d in hits]
    if not found:
        return [], [], n
    js = np.fromiter((hits[d] for d in found), np.float64, len(found))
    hi = np.searchsorted(srt, js, "right")
    lo = np.searchsorted(srt, js, "left")
    ranks = (n + 1 - hi).tolist()
    tied = np.flatnonzero((hi - lo > 1) & (n + 1 - hi <= horizon)).tolist()
    if tied:  # inside a tie, every tied hit with a larger docid ranks ahead (trec_eval order)
        keys = list(hits)  # the costly step on big runs: it touches every docid object
        for i in tied:
            d = found[i]
            ranks[i] += sum(keys[j] > d for j in np.flatnonzero(scores == js[i]).tolist())
    return ranks, [judgements[d] for d in found], n


_WHOLE_RANKING = {"nDCG'", "bpref"}  # measures of the judged-only list: any judged hit may count, whatever its rank


def _judged_only_grades(ranks, grades) -> list[int]:
    """Grades of the judged-only (condensed) list, in rank order: the hits judged with a grade >= 0."""
    return [g for _, g in sorted((r, g) for r, g in zip(ranks, grades) if g >= 0)]


def _bpref(condensed: list[int], num_rel: int, num_nonrel: int) -> float:
    """trec_eval's bpref over the condensed grades (m_bpref.c, relevance level 1), summed in the same order."""
    if not num_rel:
        return 0.0
    total, nonrel_above = 0.0, 0
    for g in condensed:
        if g > 0:
            total += 1.0 - min(nonrel_above, num_rel) / min(num_nonrel, num_rel) if nonrel_above else 1.0
        else:
            nonrel_above += 1
    return total / num_rel


def _query_values(measures: list[Measure], judgements: Mapping[str, int], ranks, grades, n: int) -> list[float]:
    # plain Python: a query has few judged hits, and numpy costs more than it saves on lists this short
    rel = sorted((r, g) for r, g in zip(ranks, grades) if g > 0)
    rel_ranks = [r for r, _ in rel]
    cum_dcg = list(accumulate(g / math.log2(r + 1) for r, g in rel))
    cum_prec = list(accumulate(i / r for i, r in enumerate(rel_ranks, 1)))  # precision at each relevant hit
    ideal = sorted((g for g in judgements.values() if g > 0), reverse=True)
    num_rel = len(ideal)
    judged_ranks = sorted(ranks)
    condensed = _judged_only_grades(ranks, grades) if any(m.name in _WHOLE_RANKING for m in measures) else []
    cond_rel = [(i, g) for i, g in enumerate(condensed, 1) if g > 0]  # (rank in the judged-only list, grade)
    cond_ranks = [i for i, _ in cond_rel]
    cum_cond_dcg = list(accumulate(g / math.log2(i + 1) for i, g in cond_rel))
    out = []
    for m in measures:
        k = m.k
        c = len(rel_ranks) if k is None else bisect_right(rel_ranks, k)  # relevant hits in the top k
        if m.name in ("nDCG", "nDCG'"):
            cut = num_rel if k is None else min(k, num_rel)
            idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal[:cut]))  # in rank order, as trec_eval
            if m.name == "nDCG'":  # the same on the judged-only list
                c = len(cond_ranks) if k is None else bisect_right(cond_ranks, k)
                v = cum_cond_dcg[c - 1] / idcg if c and idcg > 0 else 0.0
            else:
                v = cum_dcg[c - 1] / idcg if c and idcg > 0 else 0.0
        elif m.name == "bpref":
            v = _bpref(condensed, num_rel, sum(1 for g in judgements.values() if g == 0))
        elif m.name == "R":
            v = c / num_rel if num_rel else 0.0
        elif m.name == "P":
            v = c / k
        elif m.name == "RR":
            v = 1.0 / rel_ranks[0] if c else 0.0
        elif m.name == "AP":
            v = cum_prec[c - 1] / num_rel if c else 0.0
        elif m.name == "Success":
            v = 1.0 if c else 0.0
        elif m.name == "judged":
            v = bisect_right(judged_ranks, k) / min(k, n) if n else 0.0
        else:  # pragma: no cover - parse_measure admits only the families above
            raise SoundingError(f"no implementation for measure {m}")
        out.append(v)
    return out


def per_query_arrays(
    qrels: Qrels, run: Run, measures: Iterable[str | Measure], *, remove_self_hits: bool = False
) -> tuple[list[str], dict[str, np.ndarray]]:
    """Per-query values as arrays aligned with `qids` (every judged query, sorted): (qids, {name: values})."""
    ms = parse_measures(measures)
    qids = judged_qids(qrels)
    if not qids:
        raise SoundingError("the qrels hold no judged queries")
    horizon = math.inf if any(m.k is None or m.name in _WHOLE_RANKING for m in ms) else max(m.k for m in ms)
    table = np.zeros((len(qids), len(ms)))  # a judged query missing from the run keeps its zeros
    for i, qid in enumerate(qids):
        hits = run.get(qid)
        if hits:
            ranks, grades, n = _ranks(qid, qrels[qid], hits, remove_self_hits, horizon)
            if n:
                table[i] = _query_values(ms, qrels[qid], ranks, grades, n)
    return qids, {str(m): table[:, j].copy() for j, m in enumerate(ms)}


def unjudged_in_top(qrels: Qrels, run: Run, k: int, *, remove_self_hits: bool = False) -> dict[str, int]:
    """{qid: hits in the top k (trec_eval order) without any judgement} for every judged query (0 without hits):
    the holes in the pool that nDCG@k counts as non-relevant and nDCG'@k drops."""
    if k < 1:
        raise SoundingError(f"the cutoff must be at least 1, got {k}")
    out = {}
    for qid in judged_qids(qrels):
        hits = run.get(qid) or {}
        if remove_self_hits and qid in hits:
            hits = {d: s for d, s in hits.items() if d != qid}
        judged = qrels[qid]
        out[qid] = sum(1 for d in trec_order(hits, k) if d not in judged)
    return out


def evaluate(
    qrels: Qrels,
    run: Run,
    measures: Iterable[str | Measure],
    *,
    remove_self_hits: bool = False,
    per_query: bool = False,
) -> dict:
    """Mean of each measure over the judged queries: {"nDCG@10": 0.42, ...}.

    With per_query=True the result also holds "per_query": {measure: {qid: value}}.
    """
    qids, values = per_query_arrays(qrels, run, measures, remove_self_hits=remove_self_hits)
    out: dict = {name: float(v.mean()) for name, v in values.items()}
    if per_query:
        out["per_query"] = {name: dict(zip(qids, v.tolist())) for name, v in values.items()}
    return out
