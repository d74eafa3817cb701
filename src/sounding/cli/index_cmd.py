"""CLI command: `sounding index` (build a BM25 index from a dataset's corpus, or check one: --check)."""
from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console
from rich.progress import Progress

from .app import app

console = Console(stderr=True)


@app.command("index")
def index_cmd(
    dataset: str = typer.Argument(..., help="dataset name (see `sounding datasets`), ir_datasets id (beir/scifact/test), dataset folder, or corpus file; "
                                  "with --check, the index folder"),
    out: Path = typer.Option(None, "--out", "-o", help="index folder to write (replaced atomically)"),
    analyzer: str = typer.Option(None, help="analyzer name (default: the dataset language's Lucene-parity chain)"),
    data_dir: Path = typer.Option(None, "--data-dir", help="folder holding local dataset copies"),
    positions: bool = typer.Option(False, "--positions", help="store token positions (for --proximity)"),
    shards: int = typer.Option(None, "--shards", min=1, help="build N shards with merged statistics (see shard-index)"),
    ray: str = typer.Option(None, "--ray", help="with --shards: build the shards as Ray tasks (local, auto or an address)"),
    workers: int = typer.Option(None, "--workers", min=1, help="analysis workers: threads for analyzers with a compiled chain (English, Arabic, Bengali, Finnish, Indonesian, Japanese, Russian, Telugu), processes for the others (Korean, Thai, Swahili) (default: all cores; the index is the same)"),
    unverified_data: bool = typer.Option(False, "--unverified-data", help="index a dataset copy whose counts differ from the registry's"),
    memory: float = typer.Option(0.5, "--memory", help="GiB of postings held before a sorted run is written to disk and merged at the end (the index is the same)"),
    postings: str = typer.Option(None, "--postings", help="postings layout: raw (6 bytes a posting) or packed (bit-packed blocks, ~1.5 bytes; the search results are the same)"),
    check: bool = typer.Option(False, "--check", help="verify an existing index's files against its checksums; build nothing"),
) -> None:
    """Build a BM25 index (title, text and flat fields) from a corpus, or check one (--check)."""
    from ..errors import SoundingError
    from ..index.corpus import index_dataset

    if check:
        return _check_index(Path(dataset))
    if out is None:
        raise SoundingError("give the index folder to write: --out INDEX")

    if shards or ray:
        from .shard_index_cmd import shard_index_cmd

        if not shards:
            raise SoundingError("--ray builds shards: give --shards N too")
        if positions:
            raise SoundingError("--positions is not available for sharded indexes yet")
        return shard_index_cmd(dataset=dataset, out=out, shards=shards, analyzer=analyzer, data_dir=data_dir, ray=ray,
                               num_cpus=None, max_retries=3)

    import time

    # No refresh thread (auto_refresh off, redrawn from the progress callback at most 5 times a second):
    # the build forks another language's analysis workers only when no other thread runs.
    with Progress(console=console, transient=True, auto_refresh=False) as bar:
        task = bar.add_task("indexing", total=None)
        drawn = [0.0]

        def progress(n: int) -> None:
            bar.update(task, completed=n, description=f"indexed {n:,} docs")
            if time.monotonic() - drawn[0] > 0.2:
                drawn[0] = time.monotonic()
                bar.refresh()

        report = index_dataset(dataset, out, analyzer=analyzer, data_dir=data_dir, positions=positions, workers=workers,
                               unverified=unverified_data, memory=_gib(memory), postings=postings, progress=progress)
    console.print(
        f"indexed {report.n_docs:,} documents, {report.n_terms:,} terms in {report.seconds:.1f} s "
        f"({report.bytes / 1e6:.1f} MB) → {report.path}"
        + (f"; {report.empty_docs:,} empty" if report.empty_docs else "")
        + (f"; {report.docs_without_title:,} without title" if report.docs_without_title else "")
    )


def _check_index(root: Path) -> None:
    """Open the index with every file's crc32 checked against its manifest (a damaged file is a one-line error)."""
    import time

    from ..index import Index
    from ..index.format import live_generation

    t0 = time.perf_counter()
    ix = Index(root, verify="always")
    console.print(f"{root}: generation {live_generation(root).name} intact ({len(ix.manifest.checksums)} files, {ix.n_docs:,} documents, "
                  f"{ix.manifest.n_terms:,} terms, format {ix.manifest.version}) in {time.perf_counter() - t0:.1f} s")


def _gib(value: float) -> int:
    from .. import validate

    return int(validate.finite("--memory (GiB)", value, low=1e-6) * (1 << 30))
