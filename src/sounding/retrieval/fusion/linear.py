"""Linear fusion of min-max normalised scores: per query, each arm's scores over its retrieved top k are mapped
to [0, 1] ((s − min) / (max − min); an arm whose top-k scores are all equal maps them to 1), then
score(d) = (1 − α)·lexical(d) + α·dense(d). A document missing from an arm's top k gets 0 from that arm (the
normalised floor), so it can still enter through the other arm."""
from __future__ import annotations

from typing import Mapping

from ... import validate
from ...types import Run
from .cuts import DEFAULT_K_OUT, check_cuts, ranked, top


def minmax(hits: Mapping[str, float], depth: int | None = None) -> dict[str, float]:
    """Min-max normalise one query's top-`depth` scores to [0, 1]; all-equal scores map to 1."""
    docs = ranked(hits, depth)
    if not docs:
        return {}
    vals = [float(hits[d]) for d in docs]
    lo, hi = min(vals), max(vals)
    if hi == lo:
        return {d: 1.0 for d in docs}
    span = hi - lo
    return {d: (v - lo) / span for d, v in zip(docs, vals)}


def linear(lexical: Mapping, dense: Mapping, alpha: float = 0.5, *, depth: int | None = None,
           k_out: int | None = DEFAULT_K_OUT) -> Run:
    """(1 − α)·minmax(lexical) + α·minmax(dense); a document missing from an arm gets 0 from it."""
    alpha = validate.finite("alpha", alpha, low=0.0, high=1.0)
    check_cuts(depth, k_out)
    out: Run = {}
    for q in sorted(set(lexical) | set(dense)):
        lx = minmax(lexical.get(q, {}), depth)
        dn = minmax(dense.get(q, {}), depth)
        acc = {d: (1.0 - alpha) * s for d, s in lx.items()}
        for d, s in dn.items():
            acc[d] = acc.get(d, 0.0) + alpha * s
        out[q] = top(acc, k_out)
    return out
