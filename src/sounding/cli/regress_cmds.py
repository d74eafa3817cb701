"""CLI commands: `sounding regress` (regression YAMLs vs. published figures) and `sounding profile` (dataset shape)."""
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


def _console() -> Console:
    return Console(width=None if sys.stdout.isatty() else 140, highlight=False)


def run_in_process(args: list[str], out_dir: Path) -> int:
    """Run `sounding ARGS --out OUT_DIR` in this process through the CLI entry point."""
    from ..errors import SoundingError
    from .app import main

    names = {c.name or c.callback.__name__.replace("_", "-") for c in app.registered_commands}
    if args and args[0] not in names:
        raise SoundingError(f"`sounding {args[0]}` is not available in this build (commands: {', '.join(sorted(names))})")
    return main([*args, "--out", str(out_dir)])


@app.command("regress")
def regress_cmd(
    only: Optional[list[str]] = typer.Option(None, "--only", help="Run only this regression (name or glob such as 'scifact.*'; repeatable)."),
    data_dir: Optional[Path] = typer.Option(None, "--data-dir", help="Folder holding local dataset copies (passed on to `sounding run`)."),
    list_only: bool = typer.Option(False, "--list", help="List the regressions and whether their data is here; run nothing."),
    docs: Optional[Path] = typer.Option(None, "--docs", help="Write the regressions page (e.g. docs/regressions.md) from the YAML files; run nothing."),
    folder: Optional[Path] = typer.Option(None, "--dir", help="Folder of regression YAML files (default: ./regressions)."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Show the output of each `sounding run`."),
) -> None:
    """Run regressions/*.yaml: each runs a `sounding run` command and compares metrics with published figures."""
    from ..experiment import regressions as R

    console = _console()
    regs = R.filter_regressions(R.load_regressions(folder), only)
    if docs is not None:
        docs.parent.mkdir(parents=True, exist_ok=True)
        docs.write_text(R.render_docs(regs), encoding="utf-8")
        console.print(f"wrote {docs} ({len(regs)} regressions)")
        return
    if list_only:
        t = Table("regression", "measures", "data", title="regressions")
        for r in regs:
            missing = R.missing_data(r, data_dir)
            t.add_row(r.name, ", ".join(r.metrics), escape(f"missing: {missing}") if missing else "[green]present[/green]")
        console.print(t)
        return

    progress = (lambda r: console.print(f"[dim]running {r.name}: {escape(r.command)}[/dim]")) if verbose else None
    outcomes = R.run_regressions(regs, data_dir=data_dir, capture=not verbose, progress=progress,
                                 run_command=run_in_process)
    t = Table("regression", "measure", "expected", "actual", "diff", "tolerance", "result",
              title="sounding regress (|actual − expected| ≤ tolerance passes)")
    for o in outcomes:
        if o.status in ("skip", "error"):
            continue
        for c in o.checks:
            actual = "–" if c.actual is None else f"{c.actual:.4f}"
            diff = "–" if c.diff is None else f"{c.diff:+.4f}"
            t.add_row(o.regression.name, c.measure, f"{c.expected:.4f}", actual, diff, f"±{c.tolerance:g}",
                      "[green]pass[/green]" if c.ok else "[red]FAIL[/red]")
    if t.row_count:
        console.print(t)
    for o in outcomes:
        if o.status == "skip":
            console.print(f"[yellow]skip[/yellow] {o.regression.name}: {escape(o.reason)}")
    failed = [o for o in outcomes if o.failed]
    for o in failed:
        console.print()
        for i, line in enumerate(R.describe_failure(o)):
            console.print(f"[red]{escape(line)}[/red]" if i == 0 else escape(line), soft_wrap=True)
    counts = {s: sum(o.status == s for o in outcomes) for s in ("pass", "fail", "error", "skip")}
    console.print(f"\n{counts['pass']} passed, {counts['fail']} failed, {counts['error']} errored, {counts['skip']} skipped")
    if failed:
        raise typer.Exit(1)


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
    console = _console()
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
