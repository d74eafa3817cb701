"""Rprec: precision after R hits, R the number of relevant judgements (trec_eval's `Rprec`): relevant hits in
the top min(R, hits retrieved), divided by R; 0 when either is 0. Relevant: grade >= rel."""
from .base import Family, GRADED


def value(q, m) -> float:
    q = m.ranking(q)
    rel = m.param("rel")
    num_rel = q.num_rel(rel)
    look = min(q.n, num_rel)
    return q.within(look, rel) / num_rel if look else 0.0


FAMILY = Family(
    name="Rprec",
    doc="Precision at rank R (the number of relevant judgements): relevant hits in the top R / R.",
    value=value,
    cutoff="none",
    params=GRADED,
    trec_eval=("Rprec", None),
    whole_ranking=True,
)
