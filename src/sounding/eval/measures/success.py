"""Success@k: 1 if a relevant hit ranks in the top k, else 0 (trec_eval's `success.k`). Relevant: grade >= rel."""
from .base import at_cutoff


def value(q, m) -> float:
    q = m.ranking(q)
    return 1.0 if q.within(m.k, m.param("rel")) else 0.0


FAMILY = at_cutoff("Success", "1 if any relevant hit is in the top k, else 0.", value, "success_{k}")
