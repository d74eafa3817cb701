"""Published baselines as data: the figures Sounding must reproduce, each with its source.

The numbers live in `baselines.yaml` (package data), transcribed from docs/baselines.md.
Only `verified: true` conditions are oracles; `verified: false` ones ([U]/[P] in docs/baselines.md) are
returned only when asked for (`include_unverified=True`) and never by `baseline_for_row`, so they can
be shown beside a result but can never gate one.

    published("scifact", "bm25-flat")         {"nDCG@10": 0.6789, "R@100": 0.9253, "R@1000": 0.9767, "source": ...}
    published("mrtydi-sw", "mrtydi-bm25")     test split by default; split="dev" / "train" for the others
    baseline_for_row(results_row)             the published figure a `sounding run` row is compared with
    all_baselines()                           every (dataset, condition, split) entry

An entry is one flat dict: metric values under their measure names (nDCG@10, R@100, R@1000, RR@100)
next to `dataset`, `condition`, `split`, `measures`, `source`, `verified`, `title`, `setting` and `note`.
Metric keys sit at the top level so a caller can write `entry.get("nDCG@10")`.
"""
from __future__ import annotations

import math
from functools import lru_cache
from importlib import resources

import yaml

from ..errors import DataError, SoundingError

_FILE = "baselines.yaml"
_ANSERINI = (0.9, 0.4)  # k1, b of every Pyserini/Anserini BM25 baseline


@lru_cache(maxsize=1)
def _load() -> dict[str, dict]:
    """condition -> {"meta": {...}, "tables": [{"split", "values": {dataset: {measure: v}}, "notes"}]}."""
    text = resources.files(__package__).joinpath(_FILE).read_text(encoding="utf-8")
    raw = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) or {}  # libyaml when built: 8x faster
    out: dict[str, dict] = {}
    for name, cond in (raw.get("conditions") or {}).items():
        where = f"conditions.{name}"
        for key in ("title", "source", "verified", "tables"):
            if key not in cond:
                raise DataError(_FILE, None, f"{where}: missing key {key!r}")
        meta = {k: cond.get(k) for k in ("title", "source", "verified", "setting", "note", "command")}
        tables, seen = [], set()
        for i, t in enumerate(cond["tables"]):
            measures = t.get("measures") or []
            values = {}
            for ds, row in (t.get("values") or {}).items():
                if len(row) != len(measures):
                    raise DataError(_FILE, None, f"{where}.tables[{i}].values.{ds}: {len(row)} values for "
                                                 f"{len(measures)} measures {measures}")
                if (ds, t["split"]) in seen:  # one figure per dataset and split, or lookups would be ambiguous
                    raise DataError(_FILE, None, f"{where}: {ds} appears twice for split {t['split']}")
                seen.add((ds, t["split"]))
                values[ds] = dict(zip(measures, (float(v) for v in row)))
            tables.append({"split": t["split"], "measures": list(measures), "values": values,
                           "notes": t.get("notes") or {}})
        out[name] = {"meta": meta, "tables": tables}
    return out


def conditions(*, include_unverified: bool = True) -> dict[str, dict]:
    """Every condition's metadata (title, source, verified, setting, note), by name."""
    return {n: dict(c["meta"]) for n, c in _load().items() if include_unverified or c["meta"]["verified"]}


def _entry(condition: str, cond: dict, table: dict, dataset: str) -> dict:
    meta = cond["meta"]
    return {
        "dataset": dataset, "condition": condition, "split": table["split"],
        **table["values"][dataset],
        "measures": table["measures"], "source": meta["source"], "verified": bool(meta["verified"]),
        "title": meta["title"], "setting": meta["setting"] or {},
        "note": table["notes"].get(dataset) or meta.get("note"),
    }


def published(dataset: str, condition: str, split: str | None = None, *,
              include_unverified: bool = False) -> dict | None:
    """The published figure for `dataset` under `condition` (None when there is none).

    `split` None takes the condition's first table that has the dataset (test where a condition has
    several). Unverified conditions answer None unless `include_unverified` is set.
    """
    cond = _load().get(condition)
    if cond is None:
        raise SoundingError(f"unknown baseline condition {condition!r}; known: {', '.join(_load())}")
    if not (cond["meta"]["verified"] or include_unverified):
        return None
    for table in cond["tables"]:
        if dataset in table["values"] and (split is None or table["split"] == split):
            return _entry(condition, cond, table, dataset)
    return None


def all_baselines(*, include_unverified: bool = False) -> list[dict]:
    """Every entry, in file order (condition, then split table, then dataset)."""
    return [_entry(name, cond, table, ds)
            for name, cond in _load().items() if include_unverified or cond["meta"]["verified"]
            for table in cond["tables"] for ds in table["values"]]


def condition_for_row(row: dict) -> str | None:
    """The published condition a results row stands for: Anserini BM25 (k1=0.9, b=0.4), flat or multifield.

    Sounding's and Pyserini's rows map; other engines (bm25s, tantivy, ...) and other settings do not,
    because no published figure was made under them.
    """
    if row.get("engine") not in ("sounding", "pyserini") or row.get("arm", "bm25") != "bm25":
        return None
    k1, b = row.get("k1"), row.get("b")
    if k1 is None or b is None or not (math.isclose(k1, _ANSERINI[0]) and math.isclose(b, _ANSERINI[1])):
        return None
    dataset, layout = str(row.get("dataset", "")), row.get("layout")
    if dataset.startswith(("mrtydi-", "miracl-")):
        if layout != "flat":  # Mr. TyDi and MIRACL passages are indexed as one field
            return None
        family = "mrtydi-bm25" if dataset.startswith("mrtydi-") else "miracl-bm25"
        # Korean was re-scored with Nori in 2026; an index built with the CJK bigram analyzer matches the old figure.
        return f"{family}-cjk" if "cjk" in str(row.get("analyzer") or "") else family
    return {"flat": "bm25-flat", "multifield": "bm25-multifield"}.get(layout)


def baseline_for_row(row: dict) -> dict | None:
    """The verified published figure for a `sounding run` results row, or None."""
    condition = condition_for_row(row)
    if condition is None:
        return None
    return published(str(row["dataset"]), condition, row.get("split"))


__all__ = ["published", "baseline_for_row", "condition_for_row", "all_baselines", "conditions"]
