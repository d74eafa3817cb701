"""nDCG: normalised discounted cumulative gain (trec_eval's `ndcg_cut.k`, `ndcg`; with judged_only, -J).

DCG@k = sum over the top k of grade / log2(rank + 1), positive grades only; nDCG@k divides it by the DCG of
the ideal ranking (every positively graded judgement, largest first, cut at k). 0 when that ideal DCG is 0.
Without a cutoff the whole ranking counts. `nDCG'@k` (= `nDCG(judged_only=True)@k`) is the same on the
judged-only list: hits without a judgement of grade >= 0 removed, the rest ranked again from 1 (Sakai's
condensed list), with the same ideal DCG.
"""
import math

from .base import Family, JUDGED_ONLY


def value(q, m) -> float:
    q = m.ranking(q)
    k = m.k
    c = q.within(k, 1)
    ideal = q.ideal()
    cut = len(ideal) if k is None else min(k, len(ideal))
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal[:cut]))  # in rank order, as trec_eval sums it
    return q.cum_dcg()[c - 1] / idcg if c and idcg > 0 else 0.0


def label(m):
    return f"nDCG'{'' if m.k is None else f'@{m.k}'}" if m.params == (("judged_only", True),) else None


FAMILY = Family(
    name="nDCG",
    doc="Normalised DCG over the top k (gain = grade, discount 1/log2(rank + 1)); judged_only=True (nDCG') "
        "on the judged-only list.",
    value=value,
    params={"judged_only": JUDGED_ONLY},
    spellings=("ndcg_cut", "nDCG'"),
    implied={"nDCG'": {"judged_only": True}},
    trec_eval=("ndcg", "ndcg_cut_{k}"),
    label=label,
)
