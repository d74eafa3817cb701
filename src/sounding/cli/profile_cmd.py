"""CLI command: `sounding profile` (a dataset's shape, and the BEIR sets most like it)."""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from .app import app


@app.command("profile")
def profile_cmd(
    dataset: str = typer.Argument(..., help="Dataset name (see `sounding datasets`), ir_datasets id (beir/scifact/test) or a folder in BEIR layout."),
    data_dir: Optional[Path] = typer.Option(None, "--data-dir", help="Folder holding local dataset copies."),
    no_bm25: bool = typer.Option(False, "--no-bm25", help="Skip the BM25 top-10 (judged@10); no index is built."),
    top: int = typer.Option(5, "--top", help="How many nearest BEIR datasets to list."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of tables."),
) -> None:
    """Shape of a dataset (sizes, lengths, judgements, judged@10, vocabulary overlap) and the BEIR sets most like it."""
    from ..experiment.profile import ALL_FEATURES, SHAPE_FEATURES, beir_profiles, nearest, profile_dataset

    prof = profile_dataset(dataset, data_dir=data_dir, bm25=not no_bm25)
    stored = beir_profiles()
    near = nearest(prof, stored, k=max(top, 1))
    if as_json:
        print(json.dumps({"profile": prof, "nearest": [
            {"dataset": n, "distance": round(d, 6), "features": used, "source": stored[n]["source"]}
            for n, d, used in near]}, indent=1))
        return
    console = Console(width=None if sys.stdout.isatty() else 140, highlight=False)
    t = Table("feature", "value", title=f"profile of {escape(prof['name'])}")
    for f in ALL_FEATURES:
        v = prof.get(f)
        if v is None:
            shown = "skipped (--no-bm25)" if f == "judged_at_10" and no_bm25 else "–"
        else:
            shown = f"{v:,}" if isinstance(v, int) else f"{v:,.4f}" if v < 10 else f"{v:,.2f}"
        t.add_row(f, shown)
    console.print(t)
    n = Table("#", "dataset", "distance", "docs", "queries", "query words", "doc words", "rel/query", "source",
              title="nearest BEIR shapes (RMS of log10 differences over the features both have)")
    for i, (name, d, used) in enumerate(near, 1):
        p = stored[name]
        cells = [("–" if p.get(f) is None else f"{p[f]:,}" if isinstance(p[f], int) else f"{p[f]:,.2f}") for f in SHAPE_FEATURES]
        src = "computed" if p["source"].startswith("computed") else "BEIR Table 1"
        n.add_row(str(i), name, f"{d:.3f}", *cells, src)
    console.print(n)
    missing = sorted({f for name, _, used in near for f in SHAPE_FEATURES if f not in used})
    if missing:
        console.print(f"[dim]not compared where a profile lacks them: {', '.join(missing)}[/dim]")
