"""P@k: precision at k (trec_eval's `P.k`): relevant hits in the top k, divided by k (not by the hits
retrieved: a run with fewer than k hits is not rewarded for it). Relevant: grade >= rel."""
from .base import at_cutoff


def value(q, m) -> float:
    q = m.ranking(q)
    return q.within(m.k, m.param("rel")) / m.k


FAMILY = at_cutoff("P", "Precision at k: relevant hits in the top k / k.", value, "P_{k}", spellings=("precision",))
