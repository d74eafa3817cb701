"""Weighted RRF of a lexical and a dense run: RRF with w_dense = semantic_ratio, w_lexical = 1 − semantic_ratio
(defaults k = 10, ratio 0.75)."""
from __future__ import annotations

from typing import Mapping

from ... import validate
from ...types import Run
from .cuts import DEFAULT_K_OUT
from .rrf import rrf


def weighted_rrf(lexical: Mapping, dense: Mapping, k: float = 10, semantic_ratio: float = 0.75, *,
                 depth: int | None = None, k_out: int | None = DEFAULT_K_OUT) -> Run:
    """RRF with w_dense = semantic_ratio, w_lexical = 1 − semantic_ratio (defaults k = 10, ratio 0.75)."""
    validate.finite("semantic_ratio", semantic_ratio, low=0.0, high=1.0)
    return rrf([lexical, dense], k, weights=[1.0 - semantic_ratio, semantic_ratio], depth=depth, k_out=k_out)
