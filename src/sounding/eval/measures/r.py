"""R@k: recall at k (trec_eval's `recall.k`): relevant hits in the top k over all relevant judgements (0 when
there are none). Relevant: grade >= rel."""
from .base import Family, JUDGED_ONLY, REL


def value(q, m) -> float:
    if m.judged_only:
        q = q.judged_only()
    rel = m.param("rel")
    num_rel = q.num_rel(rel)
    return q.within(m.k, rel) / num_rel if num_rel else 0.0


FAMILY = Family(
    name="R",
    doc="Recall at k: relevant hits in the top k / relevant judgements.",
    value=value,
    cutoff="required",
    params={"rel": REL,
            "judged_only": JUDGED_ONLY},
    spellings=("recall",),
    trec_eval=(None, "recall_{k}"),
)
