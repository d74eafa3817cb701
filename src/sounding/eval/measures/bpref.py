"""bpref (trec_eval's `bpref`; Buckley & Voorhees 2004): how often judged relevant hits rank above judged
non-relevant ones, unjudged hits ignored.

R = judgements with grade >= rel, N = judgements with 0 <= grade < rel. Walking the hits in rank order and
skipping those without a judgement of grade >= 0, each relevant hit adds 1 - min(n, R) / min(N, R), where n
counts the non-relevant hits above it (it adds 1 when n = 0); the sum is divided by R (0 when R = 0).
"""
from .base import Family, REL


def value(q, m) -> float:
    rel = m.param("rel")
    num_rel = q.num_rel(rel)
    if not num_rel:
        return 0.0
    num_nonrel = sum(1 for g in q.judgements.values() if 0 <= g < rel)
    total, nonrel_above = 0.0, 0
    for g in q.condensed():  # summed in rank order, as trec_eval's m_bpref.c does
        if g >= rel:
            total += 1.0 - min(nonrel_above, num_rel) / min(num_nonrel, num_rel) if nonrel_above else 1.0
        else:
            nonrel_above += 1
    return total / num_rel


FAMILY = Family(
    name="bpref",
    doc="Binary preference: for each relevant judgement, the share of judged non-relevant hits it is ranked "
        "above (the first R of them), averaged over R; unjudged hits are ignored.",
    value=value,
    cutoff="none",
    params={"rel": REL},
    trec_eval=("bpref", None),
    whole_ranking=True,
)
