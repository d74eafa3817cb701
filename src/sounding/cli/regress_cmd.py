"""CLI command: `sounding regress` (regression YAMLs against published figures)."""
from __future__ import annotations

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


