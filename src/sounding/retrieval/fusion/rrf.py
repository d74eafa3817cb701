"""Reciprocal rank fusion (Cormack et al., SIGIR 2009): score(d) = Σ_arm w_arm / (k + rank_arm(d)), w_arm = 1
unless given; a document an arm did not retrieve gets nothing from that arm. rank_arm(d) is the 1-based place
of d in the arm's run in trec_eval's order, optionally cut to `depth`."""
from __future__ import annotations

from typing import Mapping, Sequence

from ... import validate
from ...errors import SoundingError
from ...types import Run
from .cuts import DEFAULT_K_OUT, check_cuts, ranked, top


def rrf(runs: Sequence[Mapping[str, Mapping[str, float]]], k: float = 60, *, weights: Sequence[float] | None = None,
        depth: int | None = None, k_out: int | None = DEFAULT_K_OUT) -> Run:
    """Reciprocal rank fusion: Σ_arm w_arm / (k + rank_arm(d)); weights default to 1 each."""
    if not runs:
        raise SoundingError("rrf needs at least one run")
    k = validate.finite("the RRF constant k", k, low=0.0)
    weights = [1.0] * len(runs) if weights is None else [validate.weight("fusion weight", w) for w in weights]
    check_cuts(depth, k_out)
    if len(weights) != len(runs):
        raise SoundingError(f"{len(weights)} weights for {len(runs)} runs")
    qids = sorted(set().union(*[r.keys() for r in runs]))
    out: Run = {}
    for q in qids:
        acc: dict[str, float] = {}
        for run, w in zip(runs, weights):
            if w == 0.0:
                continue
            for rank, d in enumerate(ranked(run.get(q, {}), depth), start=1):
                acc[d] = acc.get(d, 0.0) + w / (k + rank)
        out[q] = top(acc, k_out)
    return out
