"""What a measure is, apart from any one measure: its declaration (`Family`), one parsed instance (`Measure`),
and one query's judged hits (`Query`), from which every value function computes.

A measure family is declared once, in its own module of this package (ir_measures' split between a measure's
declaration and the code computing it; ranx's one measure per file): its canonical name, the spellings it is
also known by, whether it takes a rank cutoff, its parameters with their types and defaults, its trec_eval
name, how per-query values are aggregated, and its value function. Everything else — parsing, the tie horizon
of the compiled rank counters, the trec_eval and pytrec_eval names, the mean — reads the declaration.

The value functions take a `Query`: the ranks (from 1, trec_eval's order: score descending, docid descending)
and grades of the judged documents the run retrieved for one query, its number of hits, and its judgements.
A rank is a count, computed by compiled code that never builds the ranking (metrics.py, runscan.py,
arrayeval.py), so a value function sees only the few judged hits, never the run.
"""
from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from itertools import accumulate

MIN_GEO_MEAN = 0.00001  # trec_eval's floor before a geometric mean's log (trec_eval.h)


@dataclass(frozen=True)
class Param:
    """One parameter a family accepts: its type (int, float or bool), default, and meaning."""

    type: type
    default: object
    desc: str
    low: float | None = None  # the smallest value accepted (None: any)
    high: float | None = None


REL = Param(int, 1, "lowest grade counted relevant (trec_eval -l)", low=0)
JUDGED_ONLY = Param(bool, False, "rank only the judged hits (trec_eval -J)")
GRADED = {"rel": REL, "judged_only": JUDGED_ONLY}  # a measure of relevant hits in a ranking: trec_eval's -l and -J


@dataclass(frozen=True)
class Family:
    """A measure's declaration. `value(query, measure)` gives one query's value."""

    name: str  # canonical name, as rows and tables show it
    doc: str  # what it computes, in one or two sentences (the docs' measure table reads it)
    value: Callable[["Query", "Measure"], float]
    cutoff: str = "optional"  # "required", "optional" or "none": is `@k` needed, allowed, refused?
    params: Mapping[str, Param] = field(default_factory=dict)
    spellings: tuple[str, ...] = ()  # other names (compared case-insensitively), e.g. trec_eval's
    implied: Mapping[str, Mapping[str, object]] = field(default_factory=dict)  # spelling -> the params it implies
    trec_eval: tuple[str | None, str | None] = (None, None)  # trec_eval's name without / with a cutoff ({k})
    aggregate: str = "mean"  # "mean", "sum" (counts, as trec_eval totals them) or "gmean" (gm_map)
    whole_ranking: bool = False  # the value may depend on any rank, cutoff or not (ties resolved everywhere)
    counts_only: bool = False  # the value never depends on where a hit ranks (no tie needs resolving)
    integer: bool = False  # values are counts (shown without decimals)
    summary_only: bool = False  # trec_eval -q prints it only in the summary ("all"), not per query
    cutoff_param: str | None = None  # the parameter `@x` sets, when the cutoff is not a rank (iprec's recall)
    label: Callable[["Measure"], str | None] | None = None  # a name other than the default form, or None

    def __post_init__(self):
        assert self.cutoff in ("required", "optional", "none"), self.cutoff
        assert self.aggregate in ("mean", "sum", "gmean"), self.aggregate



def at_cutoff(name: str, doc: str, value: Callable[["Query", "Measure"], float], trec_eval_cut: str,
              spellings: tuple[str, ...] = ()) -> Family:
    """A family counting relevant hits in the top k (P, R, Success): k required, trec_eval's -l and -J as
    parameters, a trec_eval name only with the cutoff (`P_{k}`)."""
    return Family(name=name, doc=doc, value=value, cutoff="required", params=GRADED, spellings=spellings,
                  trec_eval=(None, trec_eval_cut))

@dataclass(frozen=True)
class Measure:
    """One measure: a family (`nDCG`, `AP`, `num_ret`, ...), an optional rank cutoff `k`, and the parameters
    that differ from the family's defaults, sorted by name (so `AP(rel=1)` is `AP`)."""

    name: str
    k: int | None = None
    params: tuple[tuple[str, object], ...] = ()

    @property
    def family(self) -> Family:
        return FAMILIES[self.name]

    def param(self, key: str):
        """The parameter's value, or the family's default."""
        for k, v in self.params:
            if k == key:
                return v
        return self.family.params[key].default

    def __str__(self) -> str:
        fam = self.family
        if fam.label is not None:
            special = fam.label(self)
            if special is not None:
                return special
        inner = ",".join(f"{k}={v!r}" for k, v in self.params)
        return f"{self.name}{f'({inner})' if inner else ''}{'' if self.k is None else f'@{self.k}'}"

    def __repr__(self) -> str:
        return f"Measure({str(self)!r})"

    @property
    def judged_only(self) -> bool:
        """Whether trec_eval computes this measure with -J (unjudged hits removed before ranking)."""
        return bool(dict(self.params).get("judged_only", False))

    def ranking(self, q: "Query") -> "Query":
        """The query's hits as this measure ranks them: with judged_only, the judged hits alone (trec_eval -J)."""
        return q.judged_only() if self.judged_only else q

    @property
    def horizon(self) -> float:
        """Ranks beyond which this measure tells no two ranks apart: ties are resolved only up to it."""
        fam = self.family
        if fam.counts_only:
            return 0.0
        if fam.whole_ranking or self.judged_only or self.k is None:
            return math.inf
        return float(self.k)

    @property
    def trec_eval_name(self) -> str | None:
        """trec_eval's name for this measure (with `trec_eval_flags`), or None where trec_eval has none
        (RR@k needs the run cut to its top k; judged@k is not a trec_eval measure)."""
        fam = self.family
        plain, cut = fam.trec_eval
        name = plain if self.k is None else cut
        return None if name is None else name.format(k=self.k, **{p: self.param(p) for p in fam.params})

    @property
    def trec_eval_flags(self) -> list[str]:
        """The trec_eval options that give this measure's semantics: `-l REL`, `-J`."""
        rel = dict(self.params).get("rel")
        return [*(["-l", str(rel)] if rel is not None else []), *(["-J"] if self.judged_only else [])]

    @property
    def pytrec_eval_name(self) -> str | None:
        """The pytrec_eval measure that computes this one (RR@k: recip_rank on the run cut to its top k)."""
        if self.name == "RR" and self.k is not None:
            return "recip_rank"
        return self.trec_eval_name

    def aggregate(self, values) -> float:
        """Per-query values (a numpy array over every judged query) to one number, as trec_eval -c does."""
        import numpy as np

        how = self.family.aggregate
        if how == "sum":
            return float(values.sum())
        if how == "gmean":
            return float(np.exp(np.mean(np.log(np.maximum(values, MIN_GEO_MEAN))))) if len(values) else 0.0
        return float(values.mean())


FAMILIES: dict[str, Family] = {}  # canonical name -> declaration, filled by catalogue.py from this package's modules


class Query:
    """One judged query as the value functions see it: the ranks and grades of the judged documents the run
    retrieved (ranks from 1), its number of hits `n`, and all its `judgements` {docid: grade}. Derived lists
    are made on first use and kept for the other measures of the same query.

    A hit is relevant at level `rel` when its grade is at least `rel` (trec_eval -l; grades are whole numbers,
    as trec_eval reads them); nDCG's gains are the positive grades whatever the level."""

    __slots__ = ("judgements", "ranks", "grades", "n", "_memo")

    def __init__(self, judgements: Mapping[str, int], ranks, grades, n: int):
        self.judgements = judgements
        self.ranks = ranks
        self.grades = grades
        self.n = n
        self._memo: dict = {}

    def relevant(self, rel: int = 1) -> list[tuple[int, int]]:
        """(rank, grade) of the retrieved hits with grade >= rel, best rank first."""
        key = ("relevant", rel)
        got = self._memo.get(key)
        if got is None:
            got = self._memo[key] = sorted((r, g) for r, g in zip(self.ranks, self.grades) if g >= rel)
        return got

    def rel_ranks(self, rel: int = 1) -> list[int]:
        key = ("rel_ranks", rel)
        got = self._memo.get(key)
        if got is None:
            got = self._memo[key] = [r for r, _ in self.relevant(rel)]
        return got

    def within(self, k: int | None, rel: int = 1) -> int:
        """How many relevant hits rank in the top k (all of them when k is None)."""
        ranks = self.rel_ranks(rel)
        return len(ranks) if k is None else bisect_right(ranks, k)

    def num_rel(self, rel: int = 1) -> int:
        """Judgements with grade >= rel (retrieved or not)."""
        key = ("num_rel", rel)
        got = self._memo.get(key)
        if got is None:
            got = self._memo[key] = sum(1 for g in self.judgements.values() if g >= rel)
        return got

    def ideal(self) -> list[int]:
        """The positive grades of every judgement, largest first (nDCG's ideal ranking)."""
        got = self._memo.get("ideal")
        if got is None:
            got = self._memo["ideal"] = sorted((g for g in self.judgements.values() if g > 0), reverse=True)
        return got

    def cum_dcg(self) -> list[float]:
        """DCG after each positively graded hit, in rank order (gain = grade, discount 1/log2(rank + 1))."""
        got = self._memo.get("cum_dcg")
        if got is None:
            got = self._memo["cum_dcg"] = list(accumulate(g / math.log2(r + 1) for r, g in self.relevant(1)))
        return got

    def cum_prec(self, rel: int = 1) -> list[float]:
        """Sum of the precisions at each relevant hit, after each one, in rank order (AP's numerator)."""
        key = ("cum_prec", rel)
        got = self._memo.get(key)
        if got is None:
            got = self._memo[key] = list(accumulate(i / r for i, r in enumerate(self.rel_ranks(rel), 1)))
        return got

    def judged_ranks(self) -> list[int]:
        """The ranks of every judged hit retrieved, best first."""
        got = self._memo.get("judged_ranks")
        if got is None:
            got = self._memo["judged_ranks"] = sorted(self.ranks)
        return got

    def condensed(self) -> list[int]:
        """Grades of the judged-only list in rank order: the hits judged with a grade >= 0 (a negative grade
        is trec_eval's "in the pool, not judged")."""
        got = self._memo.get("condensed")
        if got is None:
            got = self._memo["condensed"] = [g for _, g in sorted((r, g) for r, g in zip(self.ranks, self.grades) if g >= 0)]
        return got

    def judged_only(self) -> "Query":
        """The same query on the judged-only list (trec_eval -J, Sakai's condensed list): unjudged hits removed,
        the rest ranked again from 1; `n` is then the number of judged hits retrieved."""
        got = self._memo.get("judged_only")
        if got is None:
            grades = self.condensed()
            got = self._memo["judged_only"] = Query(self.judgements, list(range(1, len(grades) + 1)), grades, len(grades))
        return got
