"""Re-score a run with pytrec_eval (trec_eval's own C code) and compare every query with Sounding's numbers.

pytrec_eval computes `ndcg_cut_10`, `recall_100` and `recip_rank` on the run cut to its top 100 in
trec_eval's order (so recip_rank is RR@100). The cut is made before pytrec_eval sees the run because
pytrec_eval ranks whatever it is given, without a rank limit; cutting in trec_eval's order (score
descending, docid descending) keeps a tie straddling rank 100 on the same side for both.
A judged query pytrec_eval does not return (no hits) counts 0, as in trec_eval -c.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .metrics import Qrels, Run, per_query_arrays, trec_order

CHECKED = {"nDCG@10": "ndcg_cut_10", "R@100": "recall_100", "RR@100": "recip_rank"}
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
    checks: list[MeasureCheck]
    queries: int
    tolerance: float

    @property
    def max_diff(self) -> float:
        return max(c.max_diff for c in self.checks)

    @property
    def ok(self) -> bool:
        return self.max_diff <= self.tolerance

    def __str__(self) -> str:
        lines = [f"{'measure':<10} {'pytrec_eval':<12} {'sounding':>10} {'pytrec_eval':>12} {'max |diff|':>11}  worst query"]
        for c in self.checks:
            lines.append(
                f"{c.measure:<10} {c.reference:<12} {c.ours:>10.6f} {c.pytrec_eval:>12.6f} {c.max_diff:>11.2e}  {c.worst_qid}"
            )
        verdict = "OK" if self.ok else "MISMATCH"
        lines.append(f"{verdict}: {self.queries} judged queries, tolerance {self.tolerance:g}")
        return "\n".join(lines)


def crosscheck(qrels: Qrels, run: Run, *, tolerance: float = 5e-5, remove_self_hits: bool = False) -> CrosscheckReport:
    """Compare Sounding's nDCG@10, R@100 and RR@100 with pytrec_eval's, query by query."""
    import pytrec_eval  # imported here: only this check needs it

    qids, ours = per_query_arrays(qrels, run, list(CHECKED), remove_self_hits=remove_self_hits)
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
    return CrosscheckReport(checks, len(qids), tolerance)
