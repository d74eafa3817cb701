"""num_rel_ret: relevant hits retrieved, grade >= rel (trec_eval's `num_rel_ret`); summed over queries."""
from .base import Family, REL

FAMILY = Family(
    name="num_rel_ret",
    doc="Relevant hits retrieved (summed over the queries).",
    value=lambda q, m: float(len(q.rel_ranks(m.param("rel")))),
    cutoff="none",
    params={"rel": REL},
    spellings=("NumRelRet",),
    trec_eval=("num_rel_ret", None),
    aggregate="sum",
    counts_only=True,
    integer=True,
)
