"""P@k: precision at k (trec_eval's `P.k`): relevant hits in the top k, divided by k (not by the hits
retrieved: a run with fewer than k hits is not rewarded for it). Relevant: grade >= rel."""
from .base import Family, JUDGED_ONLY, REL


def value(q, m) -> float:
    if m.judged_only:
        q = q.judged_only()
    return q.within(m.k, m.param("rel")) / m.k


FAMILY = Family(
    name="P",
    doc="Precision at k: relevant hits in the top k / k.",
    value=value,
    cutoff="required",
    params={"rel": REL,
            "judged_only": JUDGED_ONLY},
    spellings=("precision",),
    trec_eval=(None, "P_{k}"),
)
