"""AP: average precision (trec_eval's `map`, and `map_cut.k` with a cutoff).

The sum, over the relevant hits ranked within k, of the precision at each one's rank, divided by the number
of relevant judgements (retrieved or not). Relevant: grade >= rel (trec_eval -l).
"""
from .base import Family, GRADED


def value(q, m) -> float:
    q = m.ranking(q)
    rel = m.param("rel")
    c = q.within(m.k, rel)
    return q.cum_prec(rel)[c - 1] / q.num_rel(rel) if c else 0.0


FAMILY = Family(
    name="AP",
    doc="Average precision: the mean, over every relevant judgement, of the precision at its rank (0 if not "
        "retrieved within k).",
    value=value,
    params=GRADED,
    spellings=("map", "map_cut"),
    trec_eval=("map", "map_cut_{k}"),
)
