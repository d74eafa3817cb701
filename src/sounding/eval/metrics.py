"""trec_eval-exact measures, computed from the ranks of the judged documents only.

Why hand-written: pytrec_eval (trec_eval's C code) is the reference, and the tests check every measure
against it to 1e-9, but it copies every hit into C structures and sorts every ranking in full (about 7 s
for 10,000 queries x 1,000 hits). Every measure here needs only the ranks of the *judged* retrieved
documents, and a rank is a count: (hits scored strictly higher) + (tied hits with a larger docid) + 1.
So per query: one np.sort of the scores, a searchsorted for the few judged documents (looked up in the
run dict), and a string comparison only inside score ties.

Semantics (trec_eval -c; docs/definitions.md); what each measure computes is declared in measures/:

- rank order: score descending, ties by docid descending (trec_eval's strcmp; Python's str order is the
  same as strcmp over UTF-8 bytes);
- the mean is over every query with at least one judgement in the qrels (grade 0 included); a judged query
  missing from the run has no hits (0 on every measure but the counts of its judgements); run queries
  without judgements are ignored. A query whose judgements are all grade 0 scores 0 on every measure
  except judged@k and the counts (pytrec_eval does the same);
- ties are resolved up to the largest rank any measure asked for can see (`Measure.horizon`): beyond it
  no measure tells rank 101 from rank 102;
- remove_self_hits: drop the hit whose docid equals the qid before ranking (BEIR's ignore_identical_ids).
"""
from __future__ import annotations

import heapq
from collections.abc import Iterable, Mapping
from operator import itemgetter

import numpy as np

from ..errors import SoundingError
from .measures import Measure, horizon, parse_measures, query_values

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


def per_query_arrays(
    qrels: Qrels, run: Run, measures: Iterable[str | Measure], *, remove_self_hits: bool = False
) -> tuple[list[str], dict[str, np.ndarray]]:
    """Per-query values as arrays aligned with `qids` (every judged query, sorted): (qids, {name: values})."""
    ms = parse_measures(measures)
    qids = judged_qids(qrels)
    if not qids:
        raise SoundingError("the qrels hold no judged queries")
    reach = horizon(ms)
    table = np.empty((len(qids), len(ms)))
    for i, qid in enumerate(qids):
        hits = run.get(qid)
        # a judged query missing from the run has no hits: 0 on every measure but the counts of its judgements
        ranks, grades, n = _ranks(qid, qrels[qid], hits, remove_self_hits, reach) if hits else ([], [], 0)
        table[i] = query_values(ms, qrels[qid], ranks, grades, n)
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
    """Each measure over the judged queries: {"nDCG@10": 0.42, ...}: the mean (trec_eval -c), or the total for
    the counts (num_ret, ...), or gm_map's geometric mean.

    With per_query=True the result also holds "per_query": {measure: {qid: value}}.
    """
    ms = parse_measures(measures)
    qids, values = per_query_arrays(qrels, run, ms, remove_self_hits=remove_self_hits)
    out: dict = {str(m): m.aggregate(values[str(m)]) for m in ms}
    if per_query:
        out["per_query"] = {name: dict(zip(qids, v.tolist())) for name, v in values.items()}
    return out
