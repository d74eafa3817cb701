"""CLI command: `sounding sparse` (learned sparse retrieval of a dataset; needs the `dense` extra)."""
from __future__ import annotations

import sys
from pathlib import Path

import typer
from rich.console import Console

from .app import app
from .eval_output import print_scores
from .options import Device

console = Console(width=None if sys.stdout.isatty() else 140)


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
    from ..datasets import load_dataset
    from ..eval import write_run
    from ..retrieval.sparse import SparseModel, SparseSearcher, build_impact_index

    ds = load_dataset(dataset, data_dir=data_dir)
    m = SparseModel(model, device=device)
    console.print(f"[dim]{m.name} on {m.device} ({m.precision})[/dim]")
    ix = build_impact_index(ds, m, root, bits=bits, progress=True, log=lambda s: console.print(f"[dim]{s}[/dim]"))
    console.print(f"impact index: {ix.path} ({ix.manifest['postings']:,} postings, "
                  f"{ix.manifest['mean_terms_per_doc']:.1f} terms/doc, scale {ix.scale:.3g})")
    res = SparseSearcher(ix, m).search(ds.queries, k=k, threads=threads)
    run = res.to_run()
    if run_file:
        write_run(run, run_file, tag=f"sparse-{m.slug}")
    print_scores(console, f"{ds.name} sparse {m.name}", ds.qrels, run)
