"""11pt_avg: the mean of the interpolated precisions at recall 0.0, 0.1, ..., 1.0 (trec_eval's `11pt_avg`),
summed from 1.0 down to 0.0 as trec_eval sums them. Relevant: grade >= rel."""
from .base import Family, REL
from .iprec import LEVELS, at_level


def value(q, m) -> float:
    rel = m.param("rel")
    total = 0.0
    for level in reversed(LEVELS):
        total += at_level(q, level, rel)
    return total / len(LEVELS)


def label(m):
    inner = ",".join(f"{k}={v!r}" for k, v in m.params)
    return f"11pt_avg{f'({inner})' if inner else ''}"


FAMILY = Family(
    name="11pt_avg",
    doc="Mean interpolated precision at the 11 recall levels 0.0, 0.1, ..., 1.0.",
    value=value,
    cutoff="none",
    params={"rel": REL},
    trec_eval=("11pt_avg", None),
    whole_ranking=True,
    label=label,
)
