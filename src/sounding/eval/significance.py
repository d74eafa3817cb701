"""Paired significance tests on per-query values of two systems over the same queries (the report shows
them in report/sections/significance.py).

Inputs are aligned vectors (e.g. from `per_query_arrays` on the same qrels): a[i] and b[i] are the two
systems' values on query i. The t-test is scipy's; the randomization test and the bootstrap are short
vectorised numpy (scipy.stats.permutation_test would do them too, but one sign-flip matrix product per
batch is simpler to keep seeded and fast for 10,000 permutations x thousands of queries).
"""
from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import SoundingError

_BATCH_CELLS = 1 << 22  # permutations x queries per batch: bounds memory (32 MB of float64)


@dataclass(frozen=True)
class Comparison:
    """System A against system B on one measure (difference = A - B)."""

    n: int  # queries
    mean_a: float
    mean_b: float
    diff: float  # mean of the per-query differences
    t: float  # paired t statistic
    t_pvalue: float  # two-sided
    rand_pvalue: float  # two-sided paired randomization (sign-flip) test
    permutations: int
    ci_low: float  # bootstrap percentile interval of the mean difference
    ci_high: float
    confidence: float
    wins: int  # queries where A > B
    ties: int
    losses: int


def _pair(a, b) -> tuple[np.ndarray, np.ndarray]:
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    if a.shape != b.shape or a.ndim != 1:
        raise SoundingError(f"paired tests need two aligned vectors; got shapes {a.shape} and {b.shape}")
    if len(a) < 2:
        raise SoundingError(f"paired tests need at least 2 queries; got {len(a)}")
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise SoundingError("per-query values must be finite")
    return a, b


def paired_t_test(a, b) -> tuple[float, float]:
    """(t, two-sided p) of scipy.stats.ttest_rel; identical systems give (0, 1) rather than NaN."""
    from scipy import stats  # imported here: scipy.stats takes a second to import

    a, b = _pair(a, b)
    if np.array_equal(a, b):
        return 0.0, 1.0
    with warnings.catch_warnings():  # constant differences: scipy warns, and gives t = +-inf, p = 0
        warnings.simplefilter("ignore", RuntimeWarning)
        r = stats.ttest_rel(a, b)
    return float(r.statistic), float(r.pvalue)


def randomization_test(a, b, *, permutations: int = 10_000, seed: int = 0) -> float:
    """Two-sided paired randomization test: each permutation swaps A and B on a random half of the queries
    (flips the sign of their differences); p = (1 + #{|sum| >= observed}) / (1 + permutations)."""
    a, b = _pair(a, b)
    if permutations < 1:
        raise SoundingError("permutations must be at least 1")
    d = a - b
    total = d.sum()
    # sums are compared with a little slack: the same flip pattern summed in another order may differ by
    # a rounding error, and must not turn a tie with the observed value into a miss
    threshold = abs(total) - 1e-9 * np.abs(d).sum()
    rng = np.random.default_rng(seed)
    batch = max(1, _BATCH_CELLS // len(d))
    extreme = done = 0
    while done < permutations:
        m = min(batch, permutations - done)
        flips = rng.integers(0, 2, size=(m, len(d)), dtype=np.int8).astype(np.float64)  # 1 = swap
        sums = total - 2.0 * (flips @ d)
        extreme += int(np.count_nonzero(np.abs(sums) >= threshold))
        done += m
    return (extreme + 1) / (permutations + 1)


def bootstrap_ci(a, b, *, resamples: int = 10_000, confidence: float = 0.95, seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean difference A - B, resampling queries with replacement."""
    a, b = _pair(a, b)
    if not 0 < confidence < 1:
        raise SoundingError(f"confidence must be between 0 and 1, got {confidence}")
    d = a - b
    rng = np.random.default_rng(seed)
    batch = max(1, _BATCH_CELLS // len(d))
    means = []
    for start in range(0, resamples, batch):
        idx = rng.integers(0, len(d), size=(min(batch, resamples - start), len(d)))
        means.append(d[idx].mean(axis=1))
    tail = (1 - confidence) / 2
    lo, hi = np.quantile(np.concatenate(means), [tail, 1 - tail])
    return float(lo), float(hi)


def aligned(per_query_a, per_query_b, measure: str | None = None) -> tuple[list[float], list[float]]:
    """Two systems' per-query values as aligned vectors. Each side is a sequence (already aligned), a
    {qid: value} mapping, or a whole `evaluate(..., per_query=True)` result (its "per_query" part, of
    `measure`, which may be left out when the result holds one measure). Mappings are paired by query id
    and must hold the same queries."""
    a, b = _values(per_query_a, measure, "A"), _values(per_query_b, measure, "B")
    if isinstance(a, Mapping) != isinstance(b, Mapping):
        raise SoundingError("compare: give both systems as {qid: value} mappings or both as aligned sequences")
    if not isinstance(a, Mapping):
        return a, b
    only_a, only_b = sorted(a.keys() - b.keys()), sorted(b.keys() - a.keys())
    if only_a or only_b:
        def some(ids):
            return ", ".join(repr(q) for q in ids[:3]) + (", ..." if len(ids) > 3 else "")
        raise SoundingError(f"compare: the two systems were scored on different queries ({len(only_a)} only in A"
                            f"{': ' + some(only_a) if only_a else ''}; {len(only_b)} only in B"
                            f"{': ' + some(only_b) if only_b else ''}); score both against the same qrels")
    qids = sorted(a)
    return [a[q] for q in qids], [b[q] for q in qids]


def _values(x, measure: str | None, side: str):
    if isinstance(x, Mapping) and isinstance(x.get("per_query"), Mapping):  # an evaluate(..., per_query=True)
        per = x["per_query"]
        if measure is None:
            if len(per) != 1:
                raise SoundingError(f"compare: system {side} holds per-query values of {len(per)} measures "
                                    f"({', '.join(map(str, per))}); say which with measure=")
            measure = next(iter(per))
        if measure not in per:
            raise SoundingError(f"compare: system {side} has no per-query {measure} (it has "
                                f"{', '.join(map(str, per))})")
        x = per[measure]
    if isinstance(x, Mapping):
        bad = next(((q, v) for q, v in x.items() if isinstance(v, (Mapping, str, bytes))
                    or not isinstance(v, (int, float)) and not hasattr(v, "__float__")), None)
        if bad is not None:
            raise SoundingError(f"compare: system {side}, query {bad[0]!r}: {type(bad[1]).__name__} is not a "
                                f"number (give {{qid: value}}, e.g. evaluate(...)['per_query']['nDCG@10'])")
        return {str(q): float(v) for q, v in x.items()}
    return x


def compare(
    per_query_a,
    per_query_b,
    *,
    measure: str | None = None,
    permutations: int = 10_000,
    resamples: int = 10_000,
    confidence: float = 0.95,
    seed: int = 0,
) -> Comparison:
    """All paired statistics of A against B at once (seeded, so the same inputs give the same numbers).

    A and B: aligned sequences of per-query values, {qid: value} mappings (paired by query id), or whole
    `evaluate(..., per_query=True)` results (`measure` picks one of their measures)."""
    a, b = _pair(*aligned(per_query_a, per_query_b, measure))
    t, p = paired_t_test(a, b)
    lo, hi = bootstrap_ci(a, b, resamples=resamples, confidence=confidence, seed=seed)
    d = a - b
    return Comparison(
        n=len(a),
        mean_a=float(a.mean()),
        mean_b=float(b.mean()),
        diff=float(d.mean()),
        t=t,
        t_pvalue=p,
        rand_pvalue=randomization_test(a, b, permutations=permutations, seed=seed),
        permutations=permutations,
        ci_low=lo,
        ci_high=hi,
        confidence=confidence,
        wins=int(np.count_nonzero(d > 0)),
        ties=int(np.count_nonzero(d == 0)),
        losses=int(np.count_nonzero(d < 0)),
    )


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm-Bonferroni adjusted p-values, in the input order: the i-th smallest p (from 0) is multiplied by
    (m - i), then made non-decreasing in that order and capped at 1."""
    p = np.asarray(pvalues, np.float64)
    m = len(p)
    order = np.argsort(p, kind="stable")
    adjusted = np.minimum(1.0, np.maximum.accumulate(p[order] * (m - np.arange(m))))
    out = np.empty(m)
    out[order] = adjusted
    return out.tolist()
