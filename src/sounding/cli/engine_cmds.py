"""CLI commands: `sounding index` and `sounding search`."""
from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import Progress

from .app import app, exit_when_done
from ..search.params import DEFAULT_B, DEFAULT_K1
from ..validate import DEFAULT_HITS
from .options import B, K1, Hits, LayoutName, LuceneNorms, Queries, RemoveSelfHits, RunFile, Tag, TitleWeight
from .scale_cmds import RAY_HELP

console = Console(stderr=True)


@app.command("index")
def index_cmd(
    dataset: str = typer.Argument(..., help="dataset name (see `sounding datasets`), dataset folder, or corpus file; "
                                  "with --check, the index folder"),
    out: Path = typer.Option(None, "--out", "-o", help="index folder to write (replaced atomically)"),
    analyzer: str = typer.Option(None, help="analyzer name (default: the dataset language's Lucene-parity chain)"),
    data_dir: Path = typer.Option(None, "--data-dir", help="folder holding local dataset copies"),
    positions: bool = typer.Option(False, "--positions", help="store token positions (for --proximity)"),
    shards: int = typer.Option(None, "--shards", min=1, help="build N shards with merged statistics (see shard-index)"),
    ray: str = typer.Option(None, "--ray", help="with --shards: build the shards as Ray tasks (local, auto or an address)"),
    workers: int = typer.Option(None, "--workers", min=1, help="analysis workers: threads for English, processes for other analyzers (default: all cores; the index is the same)"),
    unverified_data: bool = typer.Option(False, "--unverified-data", help="index a dataset copy whose counts differ from the registry's"),
    memory: float = typer.Option(0.5, "--memory", help="GiB of postings held before a sorted run is written to disk and merged at the end (the index is the same)"),
    postings: str = typer.Option(None, "--postings", help="postings layout: raw (6 bytes a posting) or packed (bit-packed blocks, ~1.5 bytes; the search results are the same)"),
    check: bool = typer.Option(False, "--check", help="verify an existing index's files against its checksums; build nothing"),
) -> None:
    """Build a BM25 index (title, text and flat fields) from a corpus, or check one (--check)."""
    from ..errors import SoundingError
    from ..pipeline import index_dataset

    if check:
        return _check_index(Path(dataset))
    if out is None:
        raise SoundingError("give the index folder to write: --out INDEX")

    if shards or ray:
        from .scale_cmds import shard_index_cmd

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


@app.command("search")
def search_cmd(
    index: Annotated[Path, typer.Argument(help="index folder (a sharded one, holding shards.json, too)")],
    queries: Queries,
    run: RunFile,
    layout: LayoutName = "flat",
    k1: K1 = DEFAULT_K1,
    b: B = DEFAULT_B,
    hits: Hits = DEFAULT_HITS,
    threads: int = typer.Option(1, help="search threads (results do not depend on it)"),
    lucene_norms: LuceneNorms = False,
    title_weight: TitleWeight = None,
    remove_self_hits: RemoveSelfHits = False,
    anserini_ties: bool = typer.Option(False, "--anserini-ties", help="Anserini's tie handling and Pyserini's %.6f scores (with --lucene-norms: Pyserini's run)"),
    proximity: float = typer.Option(0.0, help="weight of the term-proximity bonus (index needs --positions; 0.05 is the measured default for bm25f)"),
    typos: bool = typer.Option(False, "--typos", help="also match index terms within a typo budget (down-weighted)"),
    tag: Tag = "sounding",
    ray: str = typer.Option(None, "--ray", help="a sharded index: search its shards on Ray (" + RAY_HELP + ")"),
    num_cpus: int = typer.Option(None, "--num-cpus", help="CPUs of a local Ray instance (--ray local)"),
) -> None:
    """Search an index with BM25 and write a TREC run file (gzip for a .gz name). A sharded index is
    searched shard by shard with merged statistics and an exact top-k merge: the same run file."""
    from ..datasets import load_queries
    from ..io import check_output_file
    from ..search import BM25Params, Searcher
    from ..search.stream import search_to_run

    check_output_file(run)  # before the search: a bad --run fails in a second
    params = BM25Params(layout=layout, k1=k1, b=b, k=hits, lucene_norms=lucene_norms, title_weight=title_weight,
                        proximity=proximity, typos=typos, anserini_ties=anserini_ties)
    if ray or (index / "shards.json").is_file():  # a sharded index (scale.shards.SHARDS_FILE)
        return _search_sharded(index, load_queries(queries), run, ray, num_cpus, tag, remove_self_hits, params,
                               threads)
    stats = search_to_run(Searcher(index), load_queries(queries), run, params, tag=tag,
                          remove_self_hits=remove_self_hits, threads=threads)
    _notes(stats)
    console.print(f"{stats.queries:,} queries in {stats.search_seconds:.2f} s ({stats.queries_per_second:,.0f} q/s); "
                  f"setup {stats.setup_seconds:.2f} s (BM25 setting; compiled code loaded, or compiled once); "
                  f"{stats.lines:,} lines written in {stats.write_seconds:.2f} s ({stats.lines_per_second:,.0f} lines/s)"
                  f" → {run}")
    exit_when_done()


def _search_sharded(index: Path, items, run: Path, ray: str | None, num_cpus: int | None, tag: str,
                    remove_self_hits: bool, params, threads: int) -> None:
    """`sounding search` on a sharded index: every shard, merged statistics, exact top-k merge."""
    from ..eval.trec import write_run
    from ..scale import ShardedSearcher

    if ray:
        from ..scale.ray_backend import RayShardedSearcher, ray_session

        with ray_session(ray, num_cpus=num_cpus), RayShardedSearcher(index) as searcher:
            results = searcher.search(items, params, threads=threads)
    else:
        results = ShardedSearcher(index).search(items, params, threads=threads)
    _notes(results)
    write_run(results.to_run(remove_self_hits=remove_self_hits), run, tag=tag)
    console.print(f"{len(results.qids):,} queries over {results.settings['n_shards']} shards in {results.seconds:.2f} s "
                  f"({results.queries_per_second:,.0f} q/s) → {run}")


def _notes(results) -> None:
    """What the user should know about a search that did not do quite what was asked."""
    st = results.settings
    if "k_asked" in st:
        console.print(f"[yellow]note:[/yellow] {st['k_asked']:,} hits asked for, but the index holds "
                      f"{st['k']:,} documents: returning at most {st['k']:,} per query")
    empty = st.get("empty_queries") or []
    if empty:
        n = results.queries if hasattr(results, "queries") else len(results.qids)
        console.print(f"[yellow]warning:[/yellow] {len(empty):,} of {n:,} queries analyse to no "
                      f"indexed term and get no hits (e.g. {', '.join(map(str, empty[:3]))})")
