"""iprec_at_recall_x: interpolated precision at recall x (trec_eval's `iprec_at_recall`; ir_measures' `IPrec@x`).

The highest precision at any rank at or after the one where recall reaches x. As trec_eval 10 computes it:
the level is lround(x · R) relevant hits (R = relevant judgements); at level c ≥ 1 the value is the largest
j / rank_j over the j-th relevant hits with j ≥ c, 0 if fewer than c were retrieved; at level 0, the largest
over all of them (0 if none). Relevant: grade >= rel.
"""
import math

from .base import GRADED, Family, Param

LEVELS = tuple(i / 10 for i in range(11))  # trec_eval's default recall levels, 0.0 ... 1.0


def lround(x: float) -> int:
    """C's lround for x >= 0: the nearest integer, halves away from zero (Python's round() goes to even)."""
    whole = math.floor(x)
    return whole + 1 if x - whole >= 0.5 else whole


def at_level(q, recall: float, rel: int) -> float:
    ranks = q.rel_ranks(rel)
    cut = lround(recall * q.num_rel(rel))
    if cut > len(ranks) or not q.n:
        return 0.0
    return max((j / r for j, r in enumerate(ranks, 1) if j >= cut), default=len(ranks) / q.n)


def value(q, m) -> float:
    return at_level(m.ranking(q), m.param("recall"), m.param("rel"))


def label(m):
    rest = tuple(p for p in m.params if p[0] != "recall")
    inner = ",".join(f"{k}={v!r}" for k, v in rest)
    return f"iprec_at_recall{f'({inner})' if inner else ''}_{m.param('recall'):.2f}"


FAMILY = Family(
    name="iprec_at_recall",
    doc="Interpolated precision at recall x: the best precision at or after the rank where recall reaches x.",
    value=value,
    cutoff="none",
    cutoff_param="recall",
    params={"recall": Param(float, None, "the recall level, 0 to 1", low=0.0, high=1.0), **GRADED},
    spellings=("IPrec",),
    trec_eval=("iprec_at_recall_{recall:.2f}", None),
    whole_ranking=True,
    label=label,
)
