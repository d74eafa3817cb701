"""Re-score a run with pytrec_eval (trec_eval's own C code) and compare every query with Sounding's numbers.

pytrec_eval computes `ndcg_cut_10`, `recall_100` and `recip_rank` on the run cut to its top 100 in
trec_eval's order (so recip_rank is RR@100). The cut is made before pytrec_eval sees the run because
pytrec_eval ranks whatever it is given, without a rank limit; cutting in trec_eval's order (score
descending, docid descending) keeps a tie straddling rank 100 on the same side for both.
A judged query pytrec_eval does not return (no hits) counts 0, as in trec_eval -c.

Which trec_eval Sounding matches: "trec_eval-exact" means trec_eval 10.0, which reads run scores in double
precision (C `double`, as Sounding does). pytrec_eval is built on trec_eval 9.x, which stores scores as
single-precision `float`: two scores that differ only past float32 precision (1.00000001 and 1.0) are
different in trec_eval 10 and Sounding but tie in pytrec_eval, which then orders them by docid and can
give another ranking. So when a measure differs beyond the tolerance, the check is run again with every
score rounded to float32 for both sides. If the differences then vanish, the report says so (verdict
"OK (float32)"), keeps the double-precision differences in its table, and does not count it as a failure;
if they remain, the verdict is MISMATCH.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np

from .metrics import Qrels, Run, judged_qids, per_query_arrays, trec_order

from .measures import parse_measure

# the measures checked, with pytrec_eval's name for each (from its declaration; RR@100: recip_rank on the cut run)
CHECKED = {name: parse_measure(name).pytrec_eval_name for name in ("nDCG@10", "R@100", "RR@100")}
CUT = 100


@dataclass(frozen=True)
class MeasureCheck:
    measure: str  # Sounding's name
    reference: str  # pytrec_eval's name
    ours: float  # mean over the judged queries
    pytrec_eval: float
    max_diff: float  # largest |difference| over every query and the mean
    worst_qid: str | None  # the query with the largest per-query difference


@dataclass(frozen=True)
class CrosscheckReport:
    checks: list[MeasureCheck]  # on the run as given (double precision)
    queries: int
    tolerance: float
    # the same check with every score rounded to float32, made only when `checks` differ beyond the tolerance
    float32_checks: list[MeasureCheck] | None = None
    warnings: tuple[str, ...] = ()  # an empty run, or one with no judged query (see coverage_warnings)

    @property
    def max_diff(self) -> float:
        return max(c.max_diff for c in self.checks)

    @property
    def exact(self) -> bool:
        """Agreement within the tolerance on the scores as given."""
        return self.max_diff <= self.tolerance

    @property
    def explained_by_float32(self) -> bool:
        """A difference that vanishes once scores are rounded to float32, as pytrec_eval reads them."""
        return (not self.exact and self.float32_checks is not None
                and max(c.max_diff for c in self.float32_checks) <= self.tolerance)

    @property
    def ok(self) -> bool:
        """No failure: agreement, or only the single- versus double-precision difference."""
        return self.exact or self.explained_by_float32

    def __str__(self) -> str:
        lines = [f"{'measure':<10} {'pytrec_eval':<12} {'sounding':>10} {'pytrec_eval':>12} {'max |diff|':>11}  worst query"]
        for c in self.checks:
            lines.append(
                f"{c.measure:<10} {c.reference:<12} {c.ours:>10.6f} {c.pytrec_eval:>12.6f} {c.max_diff:>11.2e}  {c.worst_qid}"
            )
        lines += [f"warning: {w}" for w in self.warnings]
        where = f"{self.queries} judged queries, tolerance {self.tolerance:g}"
        if self.exact:
            lines.append(f"OK: {where}")
        elif self.explained_by_float32:
            f32 = max(c.max_diff for c in self.float32_checks)
            lines.append(
                f"OK (float32): {where}; the differences above (max {self.max_diff:.2e}) vanish (max {f32:.2e}) "
                "when scores are rounded to float32: pytrec_eval (trec_eval 9.x) reads scores in single "
                "precision, trec_eval 10 and Sounding in double"
            )
        else:
            lines.append(f"MISMATCH: {where}")
        return "\n".join(lines)


def crosscheck(
    qrels: Qrels, run: Run, *, tolerance: float = 5e-5, remove_self_hits: bool = False, name: str = "run",
    ours: Mapping[str, Mapping[str, float]] | None = None,
) -> CrosscheckReport:
    """Compare Sounding's nDCG@10, R@100 and RR@100 with pytrec_eval's, query by query.

    "trec_eval-exact" means trec_eval 10.0, which reads scores in double precision, as Sounding does.
    pytrec_eval (trec_eval 9.x) reads them in single precision; when the two differ beyond `tolerance`,
    both are computed again with the scores rounded to float32, and a difference that vanishes then is
    reported as explained (`report.explained_by_float32`, verdict "OK (float32)"), not as a failure.
    The report's `warnings` (each starting with `name`) note an empty run or one without any judged query.
    `ours` ({measure: {qid: value}} for every judged query) are the values to check, when the caller
    computed them another way (from a search's arrays); by default they are computed from `run`.
    """
    from .trec import coverage_warnings

    checks, queries = _checks(qrels, run, remove_self_hits, ours)
    float32 = None
    # float32 explains a difference only of values computed from this run (given ones are compared first)
    differs = max(c.max_diff for c in checks) > tolerance
    if differs and (ours is None or _given_are_computed(qrels, run, remove_self_hits, ours, tolerance)):
        float32, _ = _checks(qrels, _as_float32(run), remove_self_hits)
    return CrosscheckReport(checks, queries, tolerance, float32, tuple(coverage_warnings(qrels, run, name)))


def _given_are_computed(qrels: Qrels, run: Run, remove_self_hits: bool, given, tolerance: float) -> bool:
    qids, computed = per_query_arrays(qrels, run, list(CHECKED), remove_self_hits=remove_self_hits)
    return all(abs(given[name][q] - v) <= tolerance for name in CHECKED for q, v in zip(qids, computed[name].tolist()))


def _as_float32(run: Run) -> Run:
    """The run with every score rounded to the nearest float32, as pytrec_eval's C `float` holds it."""
    out: Run = {}
    with np.errstate(over="ignore"):  # beyond float32's range: inf, as in C
        for q, hits in run.items():
            single = np.fromiter(hits.values(), np.float64, len(hits)).astype(np.float32)
            out[q] = dict(zip(hits, single.astype(np.float64).tolist()))
    return out


def _checks(qrels: Qrels, run: Run, remove_self_hits: bool,
            given: Mapping[str, Mapping[str, float]] | None = None) -> tuple[list[MeasureCheck], int]:
    import pytrec_eval  # imported here: only this check needs it

    if given is None:
        qids, ours = per_query_arrays(qrels, run, list(CHECKED), remove_self_hits=remove_self_hits)
    else:
        qids = judged_qids(qrels)
        ours = {name: np.array([given[name][q] for q in qids], dtype=np.float64) for name in CHECKED}
    cut: Run = {}
    for q in qids:
        hits = run.get(q) or {}
        if remove_self_hits and q in hits:
            hits = {d: s for d, s in hits.items() if d != q}
        if hits:
            cut[q] = {d: hits[d] for d in trec_order(hits, CUT)}
    judged = {q: {d: int(g) for d, g in qrels[q].items()} for q in qids}
    ref = pytrec_eval.RelevanceEvaluator(judged, set(CHECKED.values())).evaluate(cut)
    checks = []
    for name, ref_name in CHECKED.items():
        theirs = np.array([ref.get(q, {}).get(ref_name, 0.0) for q in qids])
        diffs = np.abs(ours[name] - theirs)
        worst = int(np.argmax(diffs))
        mean_diff = abs(float(ours[name].mean()) - float(theirs.mean()))
        checks.append(
            MeasureCheck(name, ref_name, float(ours[name].mean()), float(theirs.mean()),
                         max(float(diffs[worst]), mean_diff), qids[worst] if diffs[worst] > 0 else None)
        )
    return checks, len(qids)
