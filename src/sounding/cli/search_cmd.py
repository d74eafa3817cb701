"""CLI command: `sounding search` (BM25 over an index, or a sharded one, into a TREC run file)."""
from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from ..retrieval.search.params import DEFAULT_B, DEFAULT_K1
from ..validate import DEFAULT_HITS
from .app import app, command_line, exit_when_done, shown
from .options import B, K1, Hits, LayoutName, LuceneNorms, Queries, RemoveSelfHits, RunFile, Tag, TitleWeight
from .shard_index_cmd import RAY_HELP

console = Console(stderr=True)


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
    metadata: bool = typer.Option(False, "--metadata", help="start the run file with an ir_metadata header (PRIMAD: "
                                  "version, settings, analyzer, data and checksums, machine) as # comment lines"),
) -> None:
    """Search an index with BM25 and write a TREC run file (gzip for a .gz name). A sharded index is
    searched shard by shard with merged statistics and an exact top-k merge: the same run file."""
    from ..datasets import queries_for
    from ..io import check_output_file
    from ..retrieval.search import BM25Params, Searcher
    from ..retrieval.search.stream import search_to_run

    check_output_file(run)  # before the search: a bad --run fails in a second
    params = BM25Params(layout=layout, k1=k1, b=b, k=hits, lucene_norms=lucene_norms, title_weight=title_weight,
                        proximity=proximity, typos=typos, anserini_ties=anserini_ties)
    if ray or (index / "shards.json").is_file():  # a sharded index (scale.shards.SHARDS_FILE)
        return _search_sharded(index, queries_for(queries), run, ray, num_cpus, tag, remove_self_hits,
                               _run_header(index, queries, tag) if metadata else None, params, threads)
    stats = search_to_run(Searcher(index), queries_for(queries), run, params, tag=tag,
                          remove_self_hits=remove_self_hits, threads=threads,
                          header=_run_header(index, queries, tag) if metadata else None)
    _notes(stats)
    console.print(f"{stats.queries:,} queries in {stats.search_seconds:.2f} s ({stats.queries_per_second:,.0f} q/s); "
                  f"setup {stats.setup_seconds:.2f} s (BM25 setting; compiled code loaded, or compiled once); "
                  f"{stats.lines:,} lines written in {stats.write_seconds:.2f} s ({stats.lines_per_second:,.0f} lines/s)"
                  f" → {run}")
    exit_when_done()


def _run_header(index: Path, queries: str, tag: str):
    """A function of a search's settings giving the run's ir_metadata header (sounding.provenance)."""
    from .. import provenance
    from ..datasets import load_dataset
    from ..datasets.counts import split_files
    from ..index import Index

    if Path(queries).is_file():
        data = provenance.test_collection(None, files={"topics": queries})
    else:  # a dataset's name: its queries and qrels files
        ds = load_dataset(queries)
        files, _ = split_files(ds.root, ds.split, ds.info)
        data = provenance.test_collection(ds.name, ir_datasets=ds.irds_id, split=ds.split,
                                          files={"topics": files.queries, "qrels": files.qrels})
    sharded = (index / "shards.json").is_file()
    manifest = None if sharded else Index(index, verify=False).manifest
    if manifest is not None:
        data["index"] = {"documents": manifest.n_docs, "postings": manifest.postings,
                         "content sha256": manifest.content_hash}
    analyzer = manifest.analyzer if manifest is not None else None

    def header(settings) -> str:
        method = provenance.retrieval_method(analyzer, [{"name": "bm25", "method": "sounding BM25", **settings}])
        return provenance.header(provenance.run_metadata(tag=tag, method=method, data=data, command=command_line()))

    return header


def _search_sharded(index: Path, items, run: Path, ray: str | None, num_cpus: int | None, tag: str,
                    remove_self_hits: bool, header, params, threads: int) -> None:
    """`sounding search` on a sharded index: every shard, merged statistics, exact top-k merge."""
    from ..trec.files import write_run
    from ..scale import ShardedSearcher

    if ray:
        from ..scale.ray_backend import RayShardedSearcher, ray_session

        with ray_session(ray, num_cpus=num_cpus), RayShardedSearcher(index) as searcher:
            results = searcher.search(items, params, threads=threads)
    else:
        results = ShardedSearcher(index).search(items, params, threads=threads)
    _notes(results)
    write_run(results.to_run(remove_self_hits=remove_self_hits), run, tag=tag,
              header=header(results.settings) if header else "")
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
                      f"indexed term and get no hits (e.g. {shown(', '.join(map(str, empty[:3])))})")
