"""ir_measures' interface over Sounding's measures: `iter_calc` and `calc_aggregate`.

    import sounding
    for metric in sounding.iter_calc(["AP(rel=2)@1000", "nDCG@10"], qrels, run):
        print(metric.query_id, metric.measure, metric.value)

`qrels` and `run` may be what ir_measures takes: {qid: {docid: grade / score}} dicts, TREC files (a path),
iterables of records with `query_id`, `doc_id` and `relevance` / `score` (ir_measures' `Qrel` and `ScoredDoc`,
or plain tuples in that order), or pandas DataFrames with those columns (PyTerrier's `qid`, `docno`, `label`
/ `score` too). The semantics are trec_eval's with -c: a record for every judged query, in sorted order, a
judged query the run misses scoring 0 (ir_measures yields only the queries the run has).
"""
from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

from ..errors import SoundingError
from .measures import Measure, parse_measures
from .metrics import Qrels, Run, per_query_arrays


class Metric(NamedTuple):
    """One query's value of one measure, as ir_measures' `Metric` holds it."""

    query_id: str
    measure: Measure
    value: float


def iter_calc(measures, qrels, run, *, remove_self_hits: bool = False) -> Iterator[Metric]:
    """Every judged query's value of each measure: Metric(query_id, measure, value), query by query."""
    ms = parse_measures(measures)
    qids, values = per_query_arrays(as_qrels(qrels), as_run(run), ms, remove_self_hits=remove_self_hits)
    columns = [values[str(m)].tolist() for m in ms]
    for i, qid in enumerate(qids):
        for m, column in zip(ms, columns):
            yield Metric(qid, m, column[i])


def calc_aggregate(measures, qrels, run, *, remove_self_hits: bool = False) -> dict[Measure, float]:
    """{measure: value over the judged queries} (the mean, or a count's total, or gm_map's geometric mean)."""
    ms = parse_measures(measures)
    _, values = per_query_arrays(as_qrels(qrels), as_run(run), ms, remove_self_hits=remove_self_hits)
    return {m: m.aggregate(values[str(m)]) for m in ms}


_QRELS_COLUMNS = (("query_id", "doc_id", "relevance"), ("qid", "docno", "label"))
_RUN_COLUMNS = (("query_id", "doc_id", "score"), ("qid", "docno", "score"))


def as_qrels(qrels: Any) -> Qrels:
    """Qrels as {qid: {docid: grade}} from any of the forms the module docstring lists."""
    return _nested(qrels, "qrels", _QRELS_COLUMNS, _grade)


def as_run(run: Any) -> Run:
    """A run as {qid: {docid: score}} from any of the forms the module docstring lists."""
    return _nested(run, "run", _RUN_COLUMNS, _score)


def _nested(data: Any, what: str, columns, convert) -> dict:
    if isinstance(data, (str, os.PathLike)):
        from .trec import read_qrels, read_run

        return read_qrels(data) if what == "qrels" else read_run(data)
    if isinstance(data, dict):
        for q, inner in data.items():
            if not isinstance(q, str) or not isinstance(inner, dict):
                raise SoundingError(f"{what}: expected {{query id: {{document id: value}}}}, got {q!r}: {type(inner).__name__}")
        return data
    frame_columns = getattr(data, "columns", None)
    if frame_columns is not None:  # a pandas DataFrame
        names = next((c for c in columns if set(c) <= set(frame_columns)), None)
        if names is None:
            raise SoundingError(f"{what}: a DataFrame needs the columns {' / '.join(', '.join(c) for c in columns)}; "
                                f"it has {', '.join(map(str, frame_columns))}")
        records: Iterable = zip(*(data[c].tolist() for c in names))
    elif isinstance(data, Iterable):
        records = (_fields(r, columns[0], what) for r in data)
    else:
        raise SoundingError(f"{what}: expected a dict, a path, records or a DataFrame, got {type(data).__name__}")
    out: dict = {}
    for q, d, v in records:
        if not isinstance(q, str) or not isinstance(d, str):
            raise SoundingError(f"{what}: query and document ids must be strings, got {q!r}, {d!r}")
        hits = out.setdefault(q, {})
        if d in hits:
            raise SoundingError(f"{what}: query {q!r} lists document {d!r} twice")
        hits[d] = convert(v, what, q, d)
    return out


def _fields(record, names, what):
    if all(hasattr(record, n) for n in names):
        return tuple(getattr(record, n) for n in names)
    if isinstance(record, (tuple, list)) and len(record) == 3:
        return tuple(record)
    raise SoundingError(f"{what}: a record needs {', '.join(names)} (or is a 3-tuple), got {record!r}")


def _grade(v, what, q, d) -> int:
    whole = isinstance(v, int) and not isinstance(v, bool) or isinstance(v, float) and v.is_integer()
    if not whole and hasattr(v, "item"):  # a numpy number from a DataFrame
        v = v.item()
        whole = isinstance(v, int) or isinstance(v, float) and v.is_integer()
    if not whole:
        raise SoundingError(f"{what}: the grade of {q!r} / {d!r} must be a whole number, got {v!r}")
    return int(v)


def _score(v, what, q, d) -> float:
    try:
        s = float(v)
    except (TypeError, ValueError):
        raise SoundingError(f"{what}: the score of {q!r} / {d!r} must be a number, got {v!r}") from None
    if s != s:
        raise SoundingError(f"{what}: the score of {q!r} / {d!r} is NaN")
    return s
