"""Success@k: 1 if a relevant hit ranks in the top k, else 0 (trec_eval's `success.k`). Relevant: grade >= rel."""
from .base import Family, JUDGED_ONLY, REL


def value(q, m) -> float:
    if m.judged_only:
        q = q.judged_only()
    return 1.0 if q.within(m.k, m.param("rel")) else 0.0


FAMILY = Family(
    name="Success",
    doc="1 if any relevant hit is in the top k, else 0.",
    value=value,
    cutoff="required",
    params={"rel": REL,
            "judged_only": JUDGED_ONLY},
    trec_eval=(None, "success_{k}"),
)
