"""num_rel: relevant judgements, grade >= rel (trec_eval's `num_rel`), retrieved or not; summed over queries.

trec_eval -c totals this measure from the qrels file with grade > 0 whatever -l says (m_num_rel.c); Sounding
sums the per-query values, which equal trec_eval's at every level.
"""
from .base import Family, REL

FAMILY = Family(
    name="num_rel",
    doc="Relevant judgements of the query, retrieved or not (summed over the queries).",
    value=lambda q, m: float(q.num_rel(m.param("rel"))),
    cutoff="none",
    params={"rel": REL},
    spellings=("NumRel",),
    trec_eval=("num_rel", None),
    aggregate="sum",
    counts_only=True,
    integer=True,
)
