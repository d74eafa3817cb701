"""The sweep: both arms and every fusion setting scored on one dataset (plain RRF over k, weighted RRF over
k × semantic ratio, linear over α), to choose a fusion by measurement (docs/relevance.md)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

from ...eval import evaluate
from .linear import linear
from .rrf import rrf
from .weighted_rrf import weighted_rrf


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
