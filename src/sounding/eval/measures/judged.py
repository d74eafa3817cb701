"""judged@k: the share of the top k that has a judgement (ir_measures' `Judged@k`): judged hits in the top k
divided by min(k, hits retrieved), 0 with no hits. Without a cutoff, over every hit. Not a trec_eval measure:
it says how far a run's other numbers rest on the pool (a low value means unjudged hits counted as misses)."""
from bisect import bisect_right

from .base import Family


def value(q, m) -> float:
    if not q.n:
        return 0.0
    k = q.n if m.k is None else m.k
    return bisect_right(q.judged_ranks(), k) / min(k, q.n)


FAMILY = Family(
    name="judged",
    doc="Judged hits in the top k / min(k, hits retrieved): how much of the ranking the pool covers.",
    value=value,
)
