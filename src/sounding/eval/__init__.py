"""Evaluation with trec_eval's exact semantics: run/qrels files, measures, significance, pytrec_eval cross-check.

    from sounding.eval import read_qrels, read_run, evaluate
    evaluate(read_qrels("qrels/test.tsv"), read_run("bm25.run"), ["nDCG@10", "R@100"])
    # -> {"nDCG@10": <mean over the judged queries>, "R@100": <mean>}
"""
from .crosscheck import CrosscheckReport, MeasureCheck, crosscheck
from .measures import DEFAULT_MEASURES, OFFICIAL, Measure, parse_measure, parse_measures
from .calc import Metric, calc_aggregate, iter_calc
from .metrics import Qrels, Run, evaluate, judged_qids, per_query_arrays, trec_order
from .significance import (
    Comparison,
    bootstrap_ci,
    compare,
    holm,
    paired_t_test,
    randomization_test,
)
from .trec import coverage_warnings, read_qrels, read_run, write_run

__all__ = [
    "DEFAULT_MEASURES",
    "Comparison",
    "CrosscheckReport",
    "Measure",
    "Metric",
    "OFFICIAL",
    "MeasureCheck",
    "Qrels",
    "Run",
    "bootstrap_ci",
    "compare",
    "coverage_warnings",
    "crosscheck",
    "calc_aggregate",
    "evaluate",
    "holm",
    "iter_calc",
    "judged_qids",
    "paired_t_test",
    "parse_measure",
    "parse_measures",
    "per_query_arrays",
    "randomization_test",
    "read_qrels",
    "read_run",
    "trec_order",
    "write_run",
]
