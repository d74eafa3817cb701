"""Row identity: a row of `sounding run` is reused only when everything that made it is the same.

A row's *recipe* (`recipe`) is a JSON object of everything that made it:

    dataset    its identity (datasets.identity: digests of the corpus content and of the split's queries
               and qrels), the name it ran under (the name picks the published figures shown with the row)
               and whether its counts matched the registry's
    setting    the setting's name and every parameter (`Setting.describe()`: engine, arm, layout, params,
               k1, b, arithmetic, model, proximity, typos; a user system's kind and source)
    system     a user system's identity: kind, import path or run file pattern, class and `fingerprint`
               (a run file's is its sha256); null for Sounding's own settings
    hits       k, the hits kept per query
    measures   the measures scored
    index      the index key (corpus content, analyzer, index format)
    runs       the run file's form ("trec" or "gz") and whether it starts with an ir_metadata header
    device     where a model arm's model ran (cpu, cuda, mps: float16 on a GPU); null for the others
    sounding   Sounding's version and the results schema (the code that searched and scored)

and its *key* (`row_key`) is the sha256 of the recipe as sorted JSON.

Output folders are per dataset identity, so two datasets that share a name never share a file:

    OUT/runs/<label>/<setting>.trec[.gz]    OUT/rows/<label>/<setting>.json    OUT/per_query/<label>/<setting>.json

where `label` (`folder_label`) is the dataset's name made safe for a file name, a dash, and the first 12
characters of its identity's key (`scifact-0d6a3c33b5e1`).

A row file is sealed JSON (io.sealed_json: it carries the sha256 of its own content) holding the key, the
recipe, the row, and the size and sha256 of the run file and the per-query file it was scored from. It is
reused (`reuse`) only when it parses, matches its digest (a hand-edited value is found), carries the
current key, and both files exist with the recorded size and sha256; otherwise the row is computed again
and `reuse` says why (which part of the recipe changed, or which file is damaged, edited or missing).

Fields a row carries for this (results.json and `ResultRow`):

    dataset_id        the dataset identity's key
    run_file_sha256   sha256 of the run file the row was scored from; run_file_bytes its size
    computed          when the row was computed (ISO 8601, local time with its UTC offset)
    reused            true when this run took the row from an earlier run rather than computing it
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import time
from pathlib import Path
from typing import Any, Mapping

from .. import __version__
from ..datasets import Dataset, DatasetIdentity
from ..errors import SoundingError
from ..io import atomic_write, file_sha256, inside, seal_holds, sealed_json
from ..results import RESULTS_SCHEMA, ResultRow

_UNSAFE = re.compile(r"[^A-Za-z0-9._+-]+")


def safe_name(name: str) -> str:
    """A dataset name as part of a file name: characters other than letters, digits and `._+-` made dashes."""
    return _UNSAFE.sub("-", name).strip("-.") or "dataset"


def folder_label(name: str, identity: DatasetIdentity) -> str:
    """The folder name of a dataset's runs, rows and per-query files: `<safe name>-<identity.short>`."""
    return f"{safe_name(name)}-{identity.short}"


def recipe(ds: Dataset, identity: DatasetIdentity, setting: Mapping[str, Any], *, system: str | None, hits: int,
           measures: list[str], index_key: str, gzip_runs: bool, metadata: bool = False,
           device: str | None = None) -> dict:
    """Everything that made a row (see the module's docstring)."""
    return {
        "dataset": {"name": ds.name, "verified": ds.verified, "corpus": identity.corpus, "queries": identity.queries,
                    "qrels": identity.qrels},
        "setting": dict(setting), "system": system, "hits": hits, "measures": list(measures), "index": index_key,
        "runs": ("gz" if gzip_runs else "trec") + ("+metadata" if metadata else ""), "device": device,
        "sounding": {"version": __version__, "results": RESULTS_SCHEMA},
    }


def row_key(made_of: Mapping) -> str:
    return hashlib.sha256(json.dumps(made_of, sort_keys=True).encode("utf-8", "surrogatepass")).hexdigest()


_SAID = {"system": "the system's fingerprint", "index": "the index (its corpus, analyzer or format)",
         "sounding": "Sounding's version or results schema"}


def changes(old: Mapping | None, new: Mapping) -> list[str]:
    """What differs between two recipes, in words ("the dataset's qrels", "hits 1000 → 100")."""
    if not isinstance(old, Mapping):
        return ["its recipe is not recorded"]
    out = []
    for part, value in new.items():
        was = old.get(part)
        if was == value:
            continue
        if part in _SAID:
            out.append(_SAID[part])
        elif isinstance(value, Mapping):
            was = was if isinstance(was, Mapping) else {}
            names = [k for k in value if was.get(k) != value[k]]
            out.append(f"the {part}'s {', '.join(names)}" if names else f"the {part}")
        elif isinstance(value, (str, int, float)) and isinstance(was, (str, int, float)) and len(f"{was}{value}") < 60:
            out.append(f"{part} {was} → {value}")
        else:
            out.append(f"the {part}")
    return out


def write_row(row_file: Path, out: Path, made_of: Mapping, row: dict, run_file: Path, pq_file: Path) -> dict:
    """Seal and write the row file; returns the row with what `reuse` checks later added (the run file's
    sha256 and size, when it was computed)."""
    files = {name: {"path": str(path.relative_to(out)), "bytes": path.stat().st_size, "sha256": file_sha256(path)}
             for name, path in (("run", run_file), ("per_query", pq_file))}
    row = {**row, "run_file_sha256": files["run"]["sha256"], "run_file_bytes": files["run"]["bytes"],
           "computed": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "reused": False}
    atomic_write(row_file, sealed_json({"key": row_key(made_of), "recipe": dict(made_of), "row": row,
                                        "files": files}) + "\n")
    return row


def reuse(row_file: Path, out: Path, made_of: Mapping) -> tuple[ResultRow | None, str | None]:
    """(the row, None) when the row file can be reused for this recipe; (None, why not) when it cannot;
    (None, None) when there is none."""
    if not row_file.is_file():
        return None, None
    try:
        saved = json.loads(row_file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        return None, f"its row file {row_file} cannot be read ({e})"
    except json.JSONDecodeError as e:
        return None, f"its row file {row_file} is damaged ({e.msg} at line {e.lineno})"
    if not isinstance(saved, dict) or not seal_holds(saved):
        return None, f"its row file {row_file} was changed after it was written (it no longer matches its digest)"
    if saved.get("key") != row_key(made_of):
        return None, "changed: " + "; ".join(changes(saved.get("recipe"), made_of))
    files, row = saved.get("files"), saved.get("row")
    try:
        for name in ("run", "per_query"):
            why = _file_differs(out, files[name])
            if why:
                return None, why
        found = ResultRow.from_dict({**row, "reused": True})
    except (KeyError, TypeError, AttributeError, SoundingError) as e:
        return None, f"its row file {row_file} is damaged ({type(e).__name__}: {e})"
    return found, None


def _file_differs(out: Path, recorded: Mapping) -> str | None:
    path = inside(out, recorded["path"], "a path in a row file")
    try:
        size = os.stat(path).st_size
    except FileNotFoundError:
        return f"its file {path} is missing"
    if size != recorded["bytes"]:
        return f"its file {path} holds {size:,} bytes, not the {recorded['bytes']:,} recorded"
    if file_sha256(path) != recorded["sha256"]:
        return f"its file {path} is not the one the row was scored from (its sha256 differs)"
    return None


__all__ = ["changes", "folder_label", "recipe", "reuse", "row_key", "safe_name", "write_row"]
