"""RR: reciprocal rank of the first relevant hit (trec_eval's `recip_rank`); RR@k looks at the top k only
(trec_eval -M k, as MS MARCO's MRR@10 does). Relevant: grade >= rel."""
from .base import Family, GRADED


def value(q, m) -> float:
    q = m.ranking(q)
    rel = m.param("rel")
    return 1.0 / q.rel_ranks(rel)[0] if q.within(m.k, rel) else 0.0


FAMILY = Family(
    name="RR",
    doc="Reciprocal rank of the first relevant hit within k (0 if none).",
    value=value,
    params=GRADED,
    spellings=("recip_rank", "MRR"),
    trec_eval=("recip_rank", None),
)
