"""Fusion of runs (lexical + dense, or any number of arms), and a sweep over fusion settings.

Definitions (docs/definitions.md, "Fusion"; every number Sounding publishes uses them):

* **RRF** `rrf(runs, k=60)`: score(d) = Σ_arm w_arm / (k + rank_arm(d)), w_arm = 1. A document an arm
  did not retrieve gets nothing from that arm.
* **Weighted RRF** `weighted_rrf(lexical, dense, k=10, semantic_ratio=0.75)`: the same sum with
  w_dense = semantic_ratio and w_lexical = 1 − semantic_ratio.
* **Linear** `linear(lexical, dense, alpha)`: per query, each arm's scores over its retrieved top-k
  are min-max normalised to [0, 1] ((s − min) / (max − min); an arm whose top-k scores are all equal
  maps them to 1), then score(d) = (1 − α)·lexical(d) + α·dense(d). **A document missing from an
  arm's top-k gets 0 from that arm** (the normalised floor), so it can still enter through the other arm.

rank_arm(d) is the 1-based position of d in the arm's run in trec_eval's order (score descending, ties
by document id descending), optionally cut to `depth`. Output runs keep the top `k_out` (1,000) per
query; equal fused scores are ordered by document id descending, the order trec_eval will use.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

from .. import validate
from ..errors import SoundingError
from ..eval import evaluate
from ..trec import trec_order
from ..types import Run

DEFAULT_K_OUT = 1000


def _ranked(hits: Mapping[str, float], depth: int | None) -> list[str]:
    return trec_order(hits, depth)


def _cut(scores: dict[str, float], k_out: int | None) -> dict[str, float]:
    """The top k_out by (score, doc id) descending, as a dict in that order."""
    order = sorted(scores.items(), key=lambda x: (x[1], x[0]), reverse=True)
    if k_out is not None:
        order = order[:k_out]
    return dict(order)


def rrf(runs: Sequence[Mapping[str, Mapping[str, float]]], k: float = 60, *, weights: Sequence[float] | None = None,
        depth: int | None = None, k_out: int | None = DEFAULT_K_OUT) -> Run:
    """Reciprocal rank fusion: Σ_arm w_arm / (k + rank_arm(d)); weights default to 1 each."""
    if not runs:
        raise SoundingError("rrf needs at least one run")
    k = validate.finite("the RRF constant k", k, low=0.0)
    weights = [1.0] * len(runs) if weights is None else [validate.weight("fusion weight", w) for w in weights]
    _check_cuts(depth, k_out)
    if len(weights) != len(runs):
        raise SoundingError(f"{len(weights)} weights for {len(runs)} runs")
    qids = sorted(set().union(*[r.keys() for r in runs]))
    out: Run = {}
    for q in qids:
        acc: dict[str, float] = {}
        for run, w in zip(runs, weights):
            if w == 0.0:
                continue
            for rank, d in enumerate(_ranked(run.get(q, {}), depth), start=1):
                acc[d] = acc.get(d, 0.0) + w / (k + rank)
        out[q] = _cut(acc, k_out)
    return out


def weighted_rrf(lexical: Mapping, dense: Mapping, k: float = 10, semantic_ratio: float = 0.75, *,
                 depth: int | None = None, k_out: int | None = DEFAULT_K_OUT) -> Run:
    """RRF with w_dense = semantic_ratio, w_lexical = 1 − semantic_ratio (defaults k = 10, ratio 0.75)."""
    validate.finite("semantic_ratio", semantic_ratio, low=0.0, high=1.0)
    return rrf([lexical, dense], k, weights=[1.0 - semantic_ratio, semantic_ratio], depth=depth, k_out=k_out)


def minmax(hits: Mapping[str, float], depth: int | None = None) -> dict[str, float]:
    """Min-max normalise one query's top-`depth` scores to [0, 1]; all-equal scores map to 1."""
    docs = _ranked(hits, depth)
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
    _check_cuts(depth, k_out)
    out: Run = {}
    for q in sorted(set(lexical) | set(dense)):
        lx = minmax(lexical.get(q, {}), depth)
        dn = minmax(dense.get(q, {}), depth)
        acc = {d: (1.0 - alpha) * s for d, s in lx.items()}
        for d, s in dn.items():
            acc[d] = acc.get(d, 0.0) + alpha * s
        out[q] = _cut(acc, k_out)
    return out


def _check_cuts(depth, k_out) -> None:
    if depth is not None:
        validate.integer("fusion depth", depth)
    if k_out is not None:
        validate.integer("fused hits (k_out)", k_out)


def fuse(method: str, lexical: Mapping, dense: Mapping, **kw) -> Run:
    """By name: 'wrrf' (k=10, ratio 0.75), 'rrf' (k=60), 'linear' (alpha 0.5), or compact forms
    'wrrf-k20-r0.6', 'rrf-k40', 'linear0.3' / 'linear-a0.3'."""
    name, params = parse_method(method)
    params.update(kw)
    if name == "rrf":
        return rrf([lexical, dense], params.get("k", 60), depth=params.get("depth"), k_out=params.get("k_out", DEFAULT_K_OUT))
    if name == "wrrf":
        return weighted_rrf(lexical, dense, params.get("k", 10), params.get("semantic_ratio", 0.75),
                            depth=params.get("depth"), k_out=params.get("k_out", DEFAULT_K_OUT))
    return linear(lexical, dense, params.get("alpha", 0.5), depth=params.get("depth"),
                  k_out=params.get("k_out", DEFAULT_K_OUT))


def parse_method(method: str) -> tuple[str, dict]:
    """'wrrf-k20-r0.6' → ('wrrf', {'k': 20.0, 'semantic_ratio': 0.6}); 'linear0.3' → ('linear', {'alpha': 0.3})."""
    m = method.strip().lower()
    for name in ("wrrf", "rrf", "linear"):
        if m.startswith(name):
            rest = m[len(name):]
            params: dict = {}
            if name == "linear" and rest and not rest.startswith("-"):
                rest = "-a" + rest
            for part in filter(None, rest.split("-")):
                key, val = part[0], part[1:]
                try:
                    num = float(val)
                except ValueError:
                    raise SoundingError(f"bad fusion parameter {part!r} in {method!r}") from None
                if key == "k":
                    params["k"] = num
                elif key == "r" and name == "wrrf":
                    params["semantic_ratio"] = num
                elif key == "a" and name == "linear":
                    params["alpha"] = num
                elif key == "d" and num.is_integer():
                    params["depth"] = int(num)
                else:
                    raise SoundingError(f"bad fusion parameter {part!r} in {method!r}")
            return name, params
    raise SoundingError(f"unknown fusion method {method!r}; choose wrrf, rrf or linear (e.g. wrrf-k10-r0.75, linear0.5)")


# -- sweep -----------------------------------------------------------------------------------------
@dataclass
class SweepResult:
    rows: list[dict]  # {"method", "params", "setting", measure: value, ...}
    measures: list[str] = field(default_factory=lambda: ["nDCG@10", "R@100"])

    def best(self, measure: str = "nDCG@10", *, fused_only: bool = True) -> dict:
        rows = [r for r in self.rows if not fused_only or r["method"] not in ("lexical", "dense")]
        return max(rows, key=lambda r: r[measure])  # first in row order among equals

    def row(self, setting: str) -> dict:
        for r in self.rows:
            if r["setting"] == setting:
                return r
        raise KeyError(setting)


def sweep(qrels, lexical: Mapping, dense: Mapping, *, rrf_ks: Iterable[float] = (10, 20, 40, 60, 100),
          ratios: Iterable[float] = (0.25, 0.5, 0.6, 0.7, 0.75, 0.8, 0.9),
          alphas: Iterable[float] = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9),
          measures: Sequence[str] = ("nDCG@10", "R@100"), remove_self_hits: bool = True,
          depth: int | None = None) -> SweepResult:
    """Score both arms and every fusion setting: plain RRF over `rrf_ks`, weighted RRF over
    `rrf_ks` × `ratios`, linear over `alphas`. Rows in that order, each with every measure."""
    measures = list(measures)
    rows: list[dict] = []

    def add(method: str, params: dict, setting: str, run) -> None:
        scores = evaluate(qrels, run, measures, remove_self_hits=remove_self_hits)
        rows.append({"method": method, "params": params, "setting": setting, **{m: scores[m] for m in measures}})

    add("lexical", {}, "lexical", lexical)
    add("dense", {}, "dense", dense)
    ks = [float(k) for k in rrf_ks]
    for k in ks:
        add("rrf", {"k": k}, f"rrf-k{k:g}", rrf([lexical, dense], k, depth=depth))
    for k in ks:
        for r in ratios:
            add("wrrf", {"k": k, "semantic_ratio": float(r)}, f"wrrf-k{k:g}-r{r:g}",
                weighted_rrf(lexical, dense, k, float(r), depth=depth))
    for a in alphas:
        add("linear", {"alpha": float(a)}, f"linear-a{a:g}", linear(lexical, dense, float(a), depth=depth))
    return SweepResult(rows, measures)


__all__ = ["rrf", "weighted_rrf", "linear", "minmax", "fuse", "parse_method", "sweep", "SweepResult"]
