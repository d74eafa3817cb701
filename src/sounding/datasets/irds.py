"""Datasets from the `ir_datasets` package (an extra: `pip install 'sounding[irds]'`), for ids outside the registry.

`materialize(id)` copies the dataset once into Sounding's cache in BEIR layout — `corpus.jsonl.gz` from
`docs_iter()`, `queries.jsonl` from `queries_iter()`, `qrels/test.tsv` from `qrels_iter()` — so that indexing,
searching, scoring and the dataset's identity work on it as on any folder. The copy appears by an atomic
rename of a complete folder, with a manifest naming the id and ir_datasets' version; a folder without its
manifest is not trusted (it is made again). ir_datasets itself downloads (to its own cache, ~/.ir_datasets)
whatever the dataset needs.

A document's `title` and `text` fields are kept as BEIR's; a document or query without a `text` field gives
its `default_text()` (ir_datasets' own join of its text fields).
"""
from __future__ import annotations

import gzip
import json
import os
import shutil
import tempfile
from pathlib import Path

from ..errors import SoundingError
from .registry import cache_home

MANIFEST = ".sounding-source.json"


def folder_name(dataset_id: str) -> str:
    """The cache folder (and the dataset's name in rows and paths) of an ir_datasets id: '/' becomes '--'."""
    return dataset_id.replace("/", "--")


def cached(dataset_id: str, home: str | Path | None = None) -> Path | None:
    """The materialized folder of an id, if a complete one is in the cache."""
    target = cache_home(home) / "irds" / folder_name(dataset_id)
    try:
        manifest = json.loads((target / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return target if manifest.get("ir_datasets") == dataset_id else None


def load(dataset_id: str):
    """ir_datasets' dataset object for an id; one line when the package is missing or the id unknown."""
    from .names import unknown

    try:
        import ir_datasets
    except ImportError:
        raise unknown(dataset_id, " (ir_datasets ids outside Sounding's registry need the ir_datasets package: "
                                  "pip install 'sounding[irds]')") from None
    try:
        return ir_datasets.load(dataset_id)
    except KeyError:
        raise unknown(dataset_id, ", in Sounding's registry or ir_datasets'") from None


def materialize(dataset_id: str, home: str | Path | None = None) -> Path:
    """The dataset's folder in BEIR layout, made from ir_datasets on first use (see the module docstring)."""
    found = cached(dataset_id, home)
    if found is not None:
        return found
    ds = load(dataset_id)
    missing = [part for part in ("docs", "queries", "qrels") if not getattr(ds, f"has_{part}")()]
    if missing:
        raise SoundingError(f"{dataset_id}: this ir_datasets dataset has no {' or '.join(missing)}; Sounding needs "
                            "documents, queries and qrels (pick the id of a split, e.g. .../test)")
    target = cache_home(home) / "irds" / folder_name(dataset_id)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        _write(ds, tmp)
        import ir_datasets

        (tmp / MANIFEST).write_text(json.dumps({"ir_datasets": dataset_id, "ir_datasets_version":
                                                getattr(ir_datasets, "__version__", None)}), encoding="utf-8")
        if target.exists():  # an incomplete copy (no manifest): replaced
            shutil.rmtree(target)
        os.replace(tmp, target)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target


def _text(record) -> str:
    text = getattr(record, "text", None)
    return text if isinstance(text, str) else record.default_text()


def _write(ds, folder: Path) -> None:
    with gzip.open(folder / "corpus.jsonl.gz", "wt", encoding="utf-8", compresslevel=1) as f:
        for doc in ds.docs_iter():
            title = getattr(doc, "title", "")
            row = {"_id": doc.doc_id, "title": title if isinstance(title, str) else "", "text": _text(doc)}
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    with open(folder / "queries.jsonl", "w", encoding="utf-8") as f:
        for q in ds.queries_iter():
            f.write(json.dumps({"_id": q.query_id, "text": _text(q)}, ensure_ascii=False) + "\n")
    (folder / "qrels").mkdir()
    with open(folder / "qrels" / "test.tsv", "w", encoding="utf-8") as f:
        f.write("query-id\tcorpus-id\tscore\n")
        for r in ds.qrels_iter():
            f.write(f"{r.query_id}\t{r.doc_id}\t{int(r.relevance)}\n")
