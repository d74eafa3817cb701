"""Parameter checks at the API boundary: compiled kernels never see a value that can loop, divide
by zero or index out of bounds. Each check raises a one-line `SoundingError` naming the parameter,
the value and the allowed range (Lucene's own rules for BM25: k1 finite and ≥ 0, b in [0, 1])."""
from __future__ import annotations

import math
import numbers

from .errors import SoundingError


def _number(name: str, value) -> float:
    if type(value) is float or type(value) is int:  # the common case, without the ABC check's cost
        return float(value)
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise SoundingError(f"{name} must be a number, not {value!r}")
    return float(value)


def finite(name: str, value, *, low: float | None = None, high: float | None = None) -> float:
    """`value` as a float, finite and inside [low, high] (either bound may be open-ended)."""
    v = _number(name, value)
    if not math.isfinite(v):
        raise SoundingError(f"{name} must be a finite number, not {value!r}")
    if (low is not None and v < low) or (high is not None and v > high):
        span = (f"in [{low:g}, {high:g}]" if low is not None and high is not None
                else f"≥ {low:g}" if low is not None else f"≤ {high:g}")
        raise SoundingError(f"{name} must be {span}, not {value!r}")
    return v


def bm25(k1, b) -> tuple[float, float]:
    """Lucene's BM25Similarity rules: k1 finite and ≥ 0, b in [0, 1]."""
    return finite("k1", k1, low=0.0), finite("b", b, low=0.0, high=1.0)


def weight(name: str, value) -> float:
    """A field, fusion or bonus weight: finite and ≥ 0."""
    return finite(name, value, low=0.0)


def integer(name: str, value, *, low: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise SoundingError(f"{name} must be a whole number, not {value!r}")
    if value < low:
        raise SoundingError(f"{name} must be at least {low}, not {value}")
    return int(value)


DEFAULT_HITS = 1000  # hits per query unless a caller or a dataset's registry entry says otherwise (BEIR's depth)


def hits(k, n_docs: int) -> tuple[int, bool]:
    """Hits per query: at least 1, capped at the number of documents (more cannot be returned;
    allocating for them could exhaust memory). Returns (k, whether it was capped)."""
    k = integer("hits (k)", k)
    n = max(1, int(n_docs))
    return (n, True) if k > n else (k, False)


def threads(value) -> int:
    """Search threads: None means 1; otherwise a whole number ≥ 1."""
    return 1 if value is None else integer("threads", value)


__all__ = ["DEFAULT_HITS", "bm25", "finite", "hits", "integer", "threads", "weight"]
