"""Results of `sounding run`, typed: one `ResultRow` per dataset × setting, as results.json stores them.

`run_experiment` returns ResultRows; results.json is a list of their `to_dict()` objects, each carrying
`schema` (RESULTS_SCHEMA), and `ResultRow.from_dict` reads one back (facts an arm or a user system
adds — encode seconds, the pool, the test against BM25 — stay in `extra`, under their own names).
Measure names are ir_measures-style. `metrics` holds them with the BEIR convention (a hit whose document
id is the query id is dropped); `raw_metrics` the same measures with own hits kept. Where one name has
to say which (regression files, the report's cells, per-query files), "nDCG@10/raw" names the raw value:
`row.value("nDCG@10/raw")`.

Where a row came from (experiment/rows.py): `dataset_id` (the dataset identity's key), `run_file_sha256` and
`run_file_bytes` (the run file it was scored from), `computed` (when, ISO 8601) and `reused` (true when this
run took the row from an earlier one instead of computing it).

`match_key` is the one definition of "matched settings": two rows of different engines are compared
(by the gate and the report) when they ran the same dataset, arm, layout, k1 and b.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Iterable, Mapping

RESULTS_SCHEMA = 4  # 4: output folders per dataset identity; rows say where they came from
RAW_SUFFIX = "/raw"
TOP = 10  # each judged query's top TOP documents, as scored, are kept in the per-query values
RANKING = f"ranking@{TOP}"  # ... under this name: {qid: [docid, ...]} (trec_eval's order, own hit dropped)


@dataclass
class ResultRow:
    dataset: str
    setting: str
    engine: str = "sounding"
    arm: str = "bm25"
    layout: str | None = None
    params: str | None = None
    k1: float | None = None
    b: float | None = None
    lucene_norms: bool = False
    model: Any = None  # the model a dense/sparse/rerank arm used, with its provenance
    metrics: dict[str, float] = field(default_factory=dict)  # BEIR convention: own hits dropped
    raw_metrics: dict[str, float] = field(default_factory=dict)  # own hits kept
    n_queries: int = 0
    queries_without_hits: int = 0
    crosscheck: dict | None = None  # {"ok", "max_diff"[, "explained_by_float32"]}
    published: dict | None = None  # the published figures at this setting, with their source
    unverified_data: bool = False
    hits: int | None = None
    threads: int | None = None
    search_seconds: float | None = None
    qps: float | None = None
    index_seconds: float | None = None
    index_bytes: int | None = None
    run_file: str = ""
    per_query_file: str = ""
    dataset_id: str = ""
    run_file_sha256: str = ""
    run_file_bytes: int | None = None
    computed: str = ""
    reused: bool = False
    extra: dict = field(default_factory=dict)

    def value(self, measure: str) -> float | None:
        """A measure's value: "nDCG@10" from `metrics`, "nDCG@10/raw" from `raw_metrics`; None if not scored."""
        if measure.endswith(RAW_SUFFIX):
            return self.raw_metrics.get(measure[: -len(RAW_SUFFIX)])
        return self.metrics.get(measure)

    @property
    def match_key(self) -> tuple:
        return match_key(self)

    def to_dict(self) -> dict:
        """The results.json object: the named fields, then `extra`'s entries, then the schema."""
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "extra"}
        if not self.unverified_data:
            del out["unverified_data"]  # said only when true
        return {**out, **self.extra, "schema": RESULTS_SCHEMA}

    @classmethod
    def from_dict(cls, row: Mapping) -> "ResultRow":
        names = {f.name for f in fields(cls)} - {"extra"}
        known = {k: v for k, v in row.items() if k in names}
        return cls(**known, extra={k: v for k, v in row.items() if k not in names and k != "schema"})


def match_key(row: ResultRow | Mapping) -> tuple:
    """(dataset, arm, layout, k1, b): rows of different engines with the same key ran matched settings."""
    get = (lambda k: getattr(row, k)) if isinstance(row, ResultRow) else (lambda k: row.get(k))
    return (get("dataset"), get("arm") or "bm25", get("layout"), get("k1"), get("b"))


def to_pandas(rows: Iterable[ResultRow | Mapping]):
    """A pandas DataFrame, one row per result: the setting's fields and one column per measure (raw ones
    as "nDCG@10/raw"; pandas is optional: `pip install pandas`)."""
    try:
        import pandas as pd
    except ImportError:
        from .errors import SoundingError

        raise SoundingError("to_pandas needs pandas: pip install pandas") from None
    records = []
    for r in rows:
        r = r if isinstance(r, ResultRow) else ResultRow.from_dict(r)
        flat = {k: v for k, v in r.to_dict().items() if not isinstance(v, (dict, list))}
        flat.pop("schema", None)
        records.append({**flat, **r.metrics, **{f"{m}{RAW_SUFFIX}": v for m, v in r.raw_metrics.items()}})
    return pd.DataFrame.from_records(records)


__all__ = ["RANKING", "RAW_SUFFIX", "RESULTS_SCHEMA", "TOP", "ResultRow", "match_key", "to_pandas"]
