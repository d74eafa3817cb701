"""num_q: the number of queries the means run over (trec_eval's `num_q`, with -c: every judged query)."""
from .base import Family

FAMILY = Family(
    name="num_q",
    doc="Queries evaluated: every query with a judgement (1 per query; the total is their number).",
    value=lambda q, m: 1.0,
    cutoff="none",
    summary_only=True,
    spellings=("NumQ",),
    trec_eval=("num_q", None),
    aggregate="sum",
    counts_only=True,
    integer=True,
)
