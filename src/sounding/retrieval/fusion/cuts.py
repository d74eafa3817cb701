"""What every fusion method shares: a run's ranking cut to a depth, the fused top k, the checks of both cuts."""
from __future__ import annotations

from typing import Mapping

from ... import validate
from ...trec import trec_order

DEFAULT_K_OUT = 1000  # fused hits per query unless asked otherwise


def ranked(hits: Mapping[str, float], depth: int | None) -> list[str]:
    """A query's hits in trec_eval's order (score descending, ties by docid descending), the top `depth` if given."""
    return trec_order(hits, depth)


def top(scores: dict[str, float], k_out: int | None) -> dict[str, float]:
    """The top k_out by (score, doc id) descending, as a dict in that order."""
    order = sorted(scores.items(), key=lambda x: (x[1], x[0]), reverse=True)
    if k_out is not None:
        order = order[:k_out]
    return dict(order)


def check_cuts(depth, k_out) -> None:
    if depth is not None:
        validate.integer("fusion depth", depth)
    if k_out is not None:
        validate.integer("fused hits (k_out)", k_out)
