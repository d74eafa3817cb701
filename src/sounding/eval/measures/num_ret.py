"""num_ret: hits retrieved (trec_eval's `num_ret`; the total is a sum over the judged queries)."""
from .base import Family

FAMILY = Family(
    name="num_ret",
    doc="Hits retrieved for the query (summed over the queries).",
    value=lambda q, m: float(q.n),
    cutoff="none",
    spellings=("NumRet",),
    trec_eval=("num_ret", None),
    aggregate="sum",
    counts_only=True,
    integer=True,
)
