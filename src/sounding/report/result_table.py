"""The files `sounding run` wrote to its output folder, read and indexed for the report.

`load_out` reads OUT/results.json, OUT/run.json and the per-query files; `ResultTable` indexes the rows by
(dataset, setting), orders settings and datasets, and collapses the CQADupStack forums into one column.
"""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Iterable

from ..errors import SoundingError
from ..eval.measures.sets import REPORT_ORDER
from ..io import inside
from ..results import RAW_SUFFIX

MAIN = "nDCG@10"  # the headline measure (BEIR convention: own hits dropped)
MEASURE_ORDER = REPORT_ORDER  # eval/measures/sets.py
CQA = "cqadupstack"
CQA_PREFIX = "cqadupstack-"


# -- loading ---------------------------------------------------------------------------------------------
def load_out(out_dir: Path) -> tuple[list[dict], dict, dict[tuple[str, str], dict[str, float]]]:
    """(rows, meta, per-query nDCG@10 keyed by (dataset, setting)) from an output folder of `sounding run`."""
    out_dir = Path(out_dir)
    rows = _read_json(out_dir / "results.json")
    if not isinstance(rows, list):
        raise SoundingError(f"{out_dir / 'results.json'}: expected a JSON list of rows")
    meta = _read_json(out_dir / "run.json") if (out_dir / "run.json").is_file() else {}
    if not isinstance(meta, dict):
        raise SoundingError(f"{out_dir / 'run.json'}: expected a JSON object")
    per_query = {}
    for i, row in enumerate(rows):
        if not isinstance(row, dict) or "dataset" not in row or "setting" not in row:
            continue  # ResultTable() reports malformed rows; here we only look for per-query files
        where = f"results.json row {i} ({row['dataset']} {row['setting']}): per_query_file"
        path = inside(out_dir, row.get("per_query_file") or f"per_query/{row['dataset']}/{row['setting']}.json", where)
        if path.is_file():
            per_query[(row["dataset"], row["setting"])] = _per_query_values(path)
    return rows, meta, per_query


def _per_query_values(path: Path) -> dict[str, float]:
    """The headline measure's {qid: value} of a per-query file; one line naming the file if it holds other."""
    data = _read_json(path)
    values = data.get(MAIN, {}) if isinstance(data, dict) else None
    try:
        if not isinstance(values, dict):
            raise TypeError(f"{MAIN} is not {{qid: value}}")
        return {str(q): float(v) for q, v in values.items()}
    except (TypeError, ValueError) as e:
        raise SoundingError(f"{path}: not a per-query file of `sounding run` ({e})") from None


def _read_json(path: Path):
    if not path.is_file():
        raise SoundingError(f"{path}: not found; run `sounding run` with this --out first")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise SoundingError(f"{path}:{e.lineno}: not valid JSON ({e.msg})") from None
    except UnicodeDecodeError as e:
        raise SoundingError(f"{path}: not UTF-8 text (byte {e.start})") from None


# -- the results, indexed ----------------------------------------------------------------------------------
def as_number(x) -> float | None:
    """A finite float, or None for a missing/null/non-numeric value (rows may lack optional figures)."""
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
        return None
    return float(x)


def mean_of(values: list[float]) -> float:
    return math.fsum(values) / len(values)


class ResultTable:
    """Rows indexed by (dataset, setting); settings and datasets in run order; CQADupStack forums collapsed.

    A collapsed or averaged number is shown only when it covers exactly what its header says: the
    cqadupstack value of a setting needs all forums of the run, and the mean needs every dataset column.
    """

    def __init__(self, rows: list[dict]):
        self.notes: list[str] = []
        self.cell: dict[tuple[str, str], dict] = {}
        for i, row in enumerate(rows):
            if not isinstance(row, dict) or not row.get("dataset") or not row.get("setting"):
                self.notes.append(f"results.json row {i} has no dataset or setting; left out")
                continue
            key = (str(row["dataset"]), str(row["setting"]))
            if key in self.cell:
                self.notes.append(f"{key[0]} {key[1]} appears twice in results.json; the later row is shown")
            self.cell[key] = row
        first = {}
        for (d, s), row in self.cell.items():
            first.setdefault(s, len(first))
        # Sounding's own settings first, then comparators, each in run order
        self.settings = sorted(first, key=lambda s: (self.engine(s) != "sounding", first[s]))
        self.datasets = list(dict.fromkeys(d for d, _ in self.cell))
        self.forums = [d for d in self.datasets if d.startswith(CQA_PREFIX)]
        self.columns = list(dict.fromkeys(CQA if d.startswith(CQA_PREFIX) else d for d in self.datasets))

    def row(self, dataset: str, setting: str) -> dict | None:
        return self.cell.get((dataset, setting))

    def rows(self) -> Iterable[dict]:
        """Rows in display order: by dataset, then by setting."""
        for d in self.datasets:
            for s in self.settings:
                if (d, s) in self.cell:
                    yield self.cell[(d, s)]

    def engine(self, setting: str) -> str:
        row = next(r for (d, s), r in self.cell.items() if s == setting)
        return str(row.get("engine") or setting.split(".")[0])

    def metric(self, dataset: str, setting: str, measure: str) -> float | None:
        row = self.row(dataset, setting)
        if not row:
            return None
        if measure.endswith(RAW_SUFFIX):  # "nDCG@10/raw": the value with own hits kept
            return as_number((row.get("raw_metrics") or {}).get(measure.removesuffix(RAW_SUFFIX)))
        return as_number((row.get("metrics") or {}).get(measure))

    def measures(self) -> list[str]:
        """Measures of the main tables: the known ones in a fixed order, then any others (raw nDCG aside)."""
        present = {m for r in self.cell.values() for m in (r.get("metrics") or {})}
        return [m for m in MEASURE_ORDER if m in present] + sorted(present - set(MEASURE_ORDER))

    def column_value(self, column: str, setting: str, measure: str) -> float | None:
        """A dataset's value; for cqadupstack the mean of the forum means (None unless all forums ran)."""
        if column != CQA:
            return self.metric(column, setting, measure)
        values = [self.metric(f, setting, measure) for f in self.forums]
        return None if not values or None in values else mean_of(values)

    def mean(self, setting: str, measure: str) -> float | None:
        """Mean over all dataset columns (cqadupstack counted once), None if the setting misses any."""
        values = [self.column_value(c, setting, measure) for c in self.columns]
        return None if None in values else mean_of(values)

    def mean_header(self) -> str:
        return f"mean ({', '.join(self.columns)})"
