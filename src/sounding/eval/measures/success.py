"""Success@k: 1 if a relevant hit ranks in the top k, else 0 (trec_eval's `success.k`). Relevant: grade >= rel."""
from .base import Family, Param


def value(q, m) -> float:
    if m.judged_only:
        q = q.judged_only()
    return 1.0 if q.within(m.k, m.param("rel")) else 0.0


FAMILY = Family(
    name="Success",
    doc="1 if any relevant hit is in the top k, else 0.",
    value=value,
    cutoff="required",
    params={"rel": Param(int, 1, "lowest grade counted relevant (trec_eval -l)", low=0),
            "judged_only": Param(bool, False, "rank only the judged hits (trec_eval -J)")},
    trec_eval=(None, "success_{k}"),
)
