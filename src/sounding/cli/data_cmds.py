"""CLI commands: `sounding datasets` (the registry) and `sounding fetch` (download / import)."""
from __future__ import annotations

import json
import sys
from contextlib import nullcontext
from pathlib import Path
from typing import Optional

import typer
from rich import box
from rich.console import Console
from rich.table import Table

from .app import app


def _n(v: int | None) -> str:
    return "—" if v is None else f"{v:,}"


def _checksum(info) -> str:
    kinds = [k for k in ("md5", "sha256") if getattr(info, k)]
    return "+".join(kinds) if kinds else ("none" if info.downloadable else "—")


def _local(info, data_dir) -> str:
    """Where a registry dataset is on this machine ("" when it is not); never downloads."""
    from ..datasets import find_local
    from ..errors import SoundingError

    try:
        found = find_local(info, data_dir=data_dir)
    except SoundingError:  # e.g. $SOUNDING_DATA names a missing folder: said by the commands that load data
        return ""
    return str(found) if found is not None else ""


@app.command("datasets")
def datasets_cmd(name: Optional[str] = typer.Argument(None, help="Show one entry in full."),
                 data_dir: Optional[Path] = typer.Option(None, "--data-dir", help="Look here too for local copies.")) -> None:
    """List the dataset registry and which datasets are on this machine (or show one entry in full)."""
    from ..datasets import get_info, list_datasets

    out = Console(soft_wrap=True)
    if not out.is_terminal:  # piped or captured: do not squeeze the table to 80 columns
        out = Console(soft_wrap=True, width=120)
    if name:
        info = get_info(name)
        rows = [("name", info.name), ("kind", info.kind), ("language", info.language),
                ("url", info.url or "— (not openly downloadable)"), ("md5", info.md5 or "—"),
                ("sha256", info.sha256 or "—"), ("checksum source", info.checksum_source),
                ("docs", _n(info.docs))]
        rows += [(f"{s} split", f"{_n(c.queries)} judged queries, {_n(c.qrels)} qrels lines")
                 for s, c in info.splits.items()]
        rows += [("counts source", info.counts_source), ("licence", info.licence),
                 ("on this machine", _local(info, data_dir) or "no (`sounding fetch " + info.name + "`)")]
        rows += [("note", info.note)] if info.note else []
        for k, v in rows:
            out.print(f"[bold]{k:>16}[/bold]  {v}", highlight=False)
        return
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False)
    for col, just in [("name", "left"), ("lang", "left"), ("docs", "right"), ("test q", "right"),
                      ("test qrels", "right"), ("open", "left"), ("checksum", "left"), ("here", "left")]:
        table.add_column(col, justify=just, no_wrap=True)
    for info in list_datasets():
        table.add_row(info.name, info.language, _n(info.docs), _n(info.test_queries), _n(info.test_qrels),
                      "yes" if info.downloadable else "no", _checksum(info), "yes" if _local(info, data_dir) else "")
    out.print(table)
    out.print("open = openly downloadable; test q = judged test queries; here = a local copy was found (--data-dir, "
              "$SOUNDING_DATA or the cache). `sounding datasets NAME` shows the URL, checksums, licence, the "
              "source of every number and where the copy is.", highlight=False)


def _progress_bar(console: Console):
    """A rich progress bar on an interactive terminal; nothing in logs and tests."""
    if not console.is_terminal:
        return nullcontext(None)
    from rich.progress import BarColumn, DownloadColumn, Progress, TransferSpeedColumn

    return Progress("[progress.description]{task.description}", BarColumn(), DownloadColumn(),
                    TransferSpeedColumn(), console=console, transient=True)


@app.command("fetch")
def fetch_cmd(
    name: str = typer.Argument(..., help="Dataset name (see `sounding datasets`) or ir_datasets id (beir/scifact/test; "
                                         "other ids through the ir_datasets package)."),
    from_: Optional[Path] = typer.Option(None, "--from", help="Import a local zip/tarball or folder instead."),
    data_dir: Optional[Path] = typer.Option(None, "--data-dir", help="Look here first (flat or beir/… layout)."),
    home: Optional[Path] = typer.Option(None, "--cache-dir", help="Cache folder (default $SOUNDING_HOME)."),
    unverified: bool = typer.Option(False, "--unverified-data", help="With --from: import an archive whose checksum differs from the registry's."),
) -> None:
    """Download a dataset into the cache (resumable, checksum-verified), or import a local copy with --from."""
    from ..datasets import fetch, find_local, get_info, lookup
    from ..datasets.fetch import MANIFEST
    from ..datasets.names import is_irds_id
    from ..errors import SoundingError

    if lookup(name) is None and is_irds_id(name) and from_ is None:  # outside the registry: through ir_datasets
        print(fetch(name, home=home))
        return
    info = get_info(name)
    err = Console(stderr=True, soft_wrap=True)
    if from_ is None:
        if data_dir is not None and not data_dir.is_dir():
            raise SoundingError(f"--data-dir {data_dir}: no such folder")
        found = find_local(info, data_dir=data_dir, home=home)
        if found is not None:
            print(found)
            err.print(f"{info.name}: already on this machine", highlight=False)
            return
        if info.url:
            err.print(f"downloading {info.name} from {info.url}", highlight=False)
    with _progress_bar(err) as bar:
        task = bar.add_task(info.name, total=info.size) if bar else None
        progress = (lambda done, total: bar.update(task, completed=done, total=total)) if bar else None
        path = fetch(info, source=from_, home=home, progress=progress, unverified=unverified)
    manifest = path / MANIFEST
    if from_ is None and manifest.is_file() and not (info.md5 or info.sha256):
        sha = json.loads(manifest.read_text()).get("sha256")
        err.print(f"note: {info.name} has no published checksum, so the download could not be verified; "
                  f"its sha256 is {sha}", highlight=False)
    print(path)
    sys.stdout.flush()


@app.command("check-data")
def check_data_cmd(
    name_or_dir: str = typer.Argument(..., help="Dataset name or folder (BEIR or Mr. TyDi layout)."),
    data_dir: Optional[Path] = typer.Option(None, "--data-dir", help="Look here first (flat or beir/… layout)."),
) -> None:
    """Read every file of a local dataset copy and compare its counts with the registry (no download)."""
    from ..datasets import count, get_info, resolve
    from ..datasets.loader import info_for_folder
    from ..errors import SoundingError

    root = resolve(name_or_dir, data_dir=data_dir, download=False)
    info = info_for_folder(root) if Path(name_or_dir).is_dir() else get_info(name_or_dir)
    found = count(root, info)
    if not found:
        raise SoundingError(f"{root}: no qrels found for any split")
    problems = []
    for key, value in found.items():
        want = info.docs if info and key == "docs" else None
        if info and key != "docs":
            split, what = key.split("_")
            s = info.splits.get(split)
            want = getattr(s, what) if s else None
        mark = "" if want is None else (" ok" if want == value else f" MISMATCH: registry says {want:,}")
        if want is not None and want != value:
            problems.append(key)
        print(f"{key.replace('_', ' '):>14}  {value:>10,}{mark}")
    print(f"{root}: {info.name if info else 'not in the registry'}")
    if problems:
        raise SoundingError(f"{root}: counts differ from the registry ({', '.join(problems)})")
