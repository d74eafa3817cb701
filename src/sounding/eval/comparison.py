"""Several runs against one baseline, as ranx's `compare` and PyTerrier's `Experiment(baseline=...)` report them.

Every run is scored on the same judged queries; each one other than the baseline is compared with it on every
measure (`significance.compare` with A = the baseline and B = the run, as `sounding compare A B` always read:
means `mean_a` and `mean_b`, `diff` = A - B, wins counted for A; a paired t-test, a randomization test, a
bootstrap interval), and the p-values are Holm-corrected over the whole family of comparisons (every run and
measure), so that "significant at alpha" holds for the table as a whole.
"""
from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass

from ..errors import SoundingError
from .measures import Measure, parse_measures
from .metrics import Qrels, Run, judged_qids


def run_labels(runs: Sequence[str | os.PathLike]) -> list[str]:
    """How runs given as paths are named in tables and JSON: the path as given; a path given again is "PATH (2)"."""
    out: list[str] = []
    for r in runs:
        label, n = str(r), 1
        while label in out:
            n += 1
            label = f"{r} ({n})"
        out.append(label)
    return out


@dataclass(frozen=True)
class RunComparison:
    baseline: str  # the baseline's label
    measures: list[str]
    values: dict[str, dict[str, float]]  # label -> measure -> value over the judged queries (every run)
    comparisons: dict[str, dict[str, dict]]  # label -> measure -> statistics (asdict(Comparison) + *_holm)
    queries: int  # judged queries
    warnings: list[str]  # a run that cannot score (empty, or no judged query): one line each


def compare_runs(qrels: Qrels, runs: Mapping[str, Run | str | os.PathLike] | Sequence[str | os.PathLike],
                 baseline: str | os.PathLike | None, measures, *, remove_self_hits: bool = False,
                 permutations: int = 10_000, seed: int = 0) -> RunComparison:
    """Score each run (a dict, or a run file: read and scored in one pass) and compare it with the baseline's
    label (default: the first run). `runs` given as paths are labelled by the path as given (a path given again:
    "PATH (2)")."""
    from .significance import compare, holm
    from .trec import coverage_warnings, evaluate_run_file

    if not isinstance(runs, Mapping):
        runs = dict(zip(run_labels(runs), runs))
    labels = list(runs)
    base = labels[0] if baseline is None else str(baseline)
    if base not in runs:
        raise SoundingError(f"baseline {base!r} is not one of the runs ({', '.join(labels)})")
    ms: list[Measure] = parse_measures(measures)
    qids = judged_qids(qrels)
    values, per_query, warnings = {}, {}, []
    for label, run in runs.items():
        if isinstance(run, (str, os.PathLike)):
            got, hits = evaluate_run_file(qrels, run, ms, remove_self_hits=remove_self_hits, per_query=True)
        else:
            from .metrics import evaluate

            got, hits = evaluate(qrels, run, ms, remove_self_hits=remove_self_hits, per_query=True), run
        warnings += coverage_warnings(qrels, hits, label)
        per_query[label] = {str(m): [got["per_query"][str(m)][q] for q in qids] for m in ms}
        values[label] = {str(m): got[str(m)] for m in ms}
    others = [label for label in labels if label != base]
    stats = {label: {str(m): compare(per_query[base][str(m)], per_query[label][str(m)], permutations=permutations,
                                     seed=seed) for m in ms} for label in others}
    family = [(label, name) for label in others for name in stats[label]]
    t_holm = dict(zip(family, holm([stats[label][n].t_pvalue for label, n in family])))
    r_holm = dict(zip(family, holm([stats[label][n].rand_pvalue for label, n in family])))
    comparisons = {label: {n: {**asdict(c), "t_pvalue_holm": t_holm[(label, n)], "rand_pvalue_holm": r_holm[(label, n)]}
                           for n, c in stats[label].items()} for label in others}
    return RunComparison(base, [str(m) for m in ms], values, comparisons, len(qids), warnings)
