"""Measures: each declared once, in its own module (name, spellings, parameters, trec_eval name, value
function); the catalogue finds them, parses names, and computes one query's values. See base.py for what a
declaration holds and catalogue.py for the names accepted.

    from sounding.eval.measures import parse_measure
    m = parse_measure("AP(rel=2)@1000")      # AP, relevant at grade >= 2, top 1000: trec_eval -l 2 -m map_cut.1000
"""
from .base import Family, Measure, Param, Query
from .catalogue import FAMILIES, horizon, parse_measure, parse_measures, query_values, valid_measures
from .sets import BEIR, DEFAULT, MRTYDI, OFFICIAL, REPORT_ORDER, SETS

DEFAULT_MEASURES = DEFAULT

__all__ = [
    "BEIR", "DEFAULT", "DEFAULT_MEASURES", "FAMILIES", "Family", "MRTYDI", "Measure", "OFFICIAL", "Param",
    "Query", "REPORT_ORDER", "SETS", "horizon", "parse_measure", "parse_measures", "query_values",
    "valid_measures",
]
