"""Fusion of runs (lexical + dense, or any number of arms), one method a module, and a sweep over fusion settings.

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

    rrf.py           RRF                       weighted_rrf.py   weighted RRF
    linear.py        min-max and linear         castorini.py      castorini's Mr. TyDi hybrid (linear, α per language)
    sweep.py         every setting scored       cuts.py           the cuts every method shares

`METHODS` names them for `fuse` and `parse_method` ("wrrf-k20-r0.6", "rrf-k40", "linear0.3"): adding a
method is its module and its row there.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping

from ...errors import SoundingError
from ...types import Run
from .castorini import hybrid_linear
from .cuts import DEFAULT_K_OUT
from .linear import linear, minmax
from .rrf import rrf
from .sweep import SweepResult, sweep
from .weighted_rrf import weighted_rrf


@dataclass(frozen=True)
class Method:
    """A fusion method of two runs (lexical, dense) by name: `fuse(lexical, dense, params, depth, k_out)`, and the
    letters of its compact form ("wrrf-k20-r0.6": k = 20, semantic_ratio = 0.6; "d" is the depth for all)."""

    name: str
    fuse: Callable[..., Run]
    letters: dict[str, str] = field(default_factory=dict)
    bare: str = ""  # the letter a number right after the name stands for ("linear0.3": a = 0.3)


METHODS: dict[str, Method] = {m.name: m for m in (
    Method("wrrf", lambda lx, dn, p, depth, k_out: weighted_rrf(lx, dn, p.get("k", 10), p.get("semantic_ratio", 0.75),
                                                                  depth=depth, k_out=k_out),
           {"k": "k", "r": "semantic_ratio"}),
    Method("rrf", lambda lx, dn, p, depth, k_out: rrf([lx, dn], p.get("k", 60), depth=depth, k_out=k_out), {"k": "k"}),
    Method("linear", lambda lx, dn, p, depth, k_out: linear(lx, dn, p.get("alpha", 0.5), depth=depth, k_out=k_out),
           {"k": "k", "a": "alpha"}, bare="a"),
)}


def fuse(method: str, lexical: Mapping, dense: Mapping, **kw) -> Run:
    """By name: 'wrrf' (k=10, ratio 0.75), 'rrf' (k=60), 'linear' (alpha 0.5), or compact forms
    'wrrf-k20-r0.6', 'rrf-k40', 'linear0.3' / 'linear-a0.3'."""
    name, params = parse_method(method)
    params.update(kw)
    return METHODS[name].fuse(lexical, dense, params, params.get("depth"), params.get("k_out", DEFAULT_K_OUT))


def parse_method(method: str) -> tuple[str, dict]:
    """'wrrf-k20-r0.6' → ('wrrf', {'k': 20.0, 'semantic_ratio': 0.6}); 'linear0.3' → ('linear', {'alpha': 0.3})."""
    m = method.strip().lower()
    for name, spec in METHODS.items():
        if m.startswith(name):
            rest = m[len(name):]
            params: dict = {}
            if spec.bare and rest and not rest.startswith("-"):
                rest = f"-{spec.bare}" + rest
            for part in filter(None, rest.split("-")):
                key, val = part[0], part[1:]
                try:
                    num = float(val)
                except ValueError:
                    raise SoundingError(f"bad fusion parameter {part!r} in {method!r}") from None
                if key in spec.letters:
                    params[spec.letters[key]] = num
                elif key == "d" and num.is_integer():
                    params["depth"] = int(num)
                else:
                    raise SoundingError(f"bad fusion parameter {part!r} in {method!r}")
            return name, params
    raise SoundingError(f"unknown fusion method {method!r}; choose wrrf, rrf or linear (e.g. wrrf-k10-r0.75, linear0.5)")


__all__ = ["DEFAULT_K_OUT", "METHODS", "Method", "SweepResult", "fuse", "hybrid_linear", "linear", "minmax",
           "parse_method", "rrf", "sweep", "weighted_rrf"]
