"""gm_map: geometric mean average precision (trec_eval's `gm_map`).

Per query, AP over the whole ranking (as `map`); over the queries, the geometric mean, each value floored
at 0.00001 first (trec_eval's MIN_GEO_MEAN), so one query with AP 0 does not make the mean 0.
"""
from .base import Family, REL


def value(q, m) -> float:
    rel = m.param("rel")
    c = q.within(None, rel)
    return q.cum_prec(rel)[c - 1] / q.num_rel(rel) if c else 0.0


FAMILY = Family(
    name="gm_map",
    doc="Geometric mean over the queries of AP (each floored at 0.00001); per query, AP.",
    value=value,
    cutoff="none",
    summary_only=True,
    params={"rel": REL},
    spellings=("GMAP",),
    trec_eval=("gm_map", None),
    aggregate="gmean",
    whole_ranking=True,
)
