"""CLI command: `sounding rerank` (a run's top hits rescored by a cross- or bi-encoder; needs the `dense` extra)."""
from __future__ import annotations

import sys
from pathlib import Path

import typer
from rich.console import Console

from .app import app
from .eval_output import print_scores
from .options import Device

console = Console(width=None if sys.stdout.isatty() else 140)


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
    from ..datasets import load_dataset
    from ..eval import read_run, write_run
    from ..retrieval.rerank import load_scorer, rerank

    ds = load_dataset(dataset, data_dir=data_dir)
    first = read_run(run_file)
    scorer = load_scorer(model, device=device)
    res = rerank(first, ds.queries, ds, scorer, top_n=top_n, cache=cache, batch_size=batch_size, progress=True)
    console.print(res.summary())
    write_run(res.run, out, tag=f"rerank-{scorer.kind}")
    print_scores(console, "first stage", ds.qrels, first)
    print_scores(console, "reranked   ", ds.qrels, res.run)
