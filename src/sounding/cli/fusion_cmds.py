"""CLI commands: `sounding fuse` (two runs into one) and `sounding sweep` (every fusion setting scored)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from .app import app
from .eval_output import print_scores

console = Console(width=None if sys.stdout.isatty() else 140)


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
    from ..datasets import load_dataset
    from ..eval import read_run, write_run
    from ..retrieval.fusion import fuse

    lx, dn = read_run(lexical), read_run(dense)
    fused = fuse(method, lx, dn, k_out=hits)
    write_run(fused, out, tag=f"fused-{method}".replace(" ", ""))
    console.print(f"fused run: {out}")
    if dataset:
        ds = load_dataset(dataset, data_dir=data_dir)
        print_scores(console, "lexical", ds.qrels, lx)
        print_scores(console, "dense  ", ds.qrels, dn)
        print_scores(console, f"{method:7s}", ds.qrels, fused)


@app.command("sweep")
def sweep_cmd(
    dataset: str = typer.Argument(..., help="dataset (for its qrels)"),
    lexical: Path = typer.Argument(..., help="lexical run (TREC)"),
    dense: Path = typer.Argument(..., help="dense run (TREC)"),
    json_out: Path = typer.Option(None, "--json", help="write every row as JSON"),
    data_dir: Path = typer.Option(None, "--data-dir"),
) -> None:
    """Score RRF (k), weighted RRF (k × semantic ratio) and linear (α) fusions of two runs."""
    from ..datasets import load_dataset
    from ..eval import read_run
    from ..retrieval.fusion import sweep

    ds = load_dataset(dataset, data_dir=data_dir)
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
