"""CLI command: `sounding run` — the main job."""
from __future__ import annotations

import contextlib
import sys
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..escape import terminal

from ..results import ResultRow
from .app import app, command_line, shown
from .options import Device

console = Console(width=None if sys.stdout.isatty() else 140)


@app.command("run")
def run_cmd(
    datasets: list[str] = typer.Argument(..., help="dataset names (see `sounding datasets`), ir_datasets ids "
                                                  "(beir/scifact/test, mr-tydi/ja/test, ...) or folders in BEIR layout"),
    out: Path = typer.Option(Path("sounding-out"), "--out", "-o", help="output folder (results.json, runs, reports)"),
    layouts: str = typer.Option(None, help="comma-separated layouts (default: flat,multifield,multifield-max,bm25f; "
                                "with --retriever/--run and no BM25 option: the flat reference row only)"),
    params: str = typer.Option(None, help="BM25 parameter sets: anserini (0.9/0.4), lucene (1.2/0.75) "
                               "(default: anserini,lucene)"),
    engines: str = typer.Option(None, help="engines to compare: sounding,bm25s,tantivy,pisa,pyserini (default: sounding)"),
    norms: str = typer.Option(None, "--norms", help="BM25 arithmetic: both (default: Lucene's rows, equal to "
                              "Pyserini's published runs, beside exact real-valued lengths), exact or lucene"),
    lucene_norms: bool = typer.Option(False, "--lucene-norms", help="the Lucene rows only (= --norms lucene): Lucene's one-byte norms, float arithmetic and Anserini's tie handling, Pyserini's runs exactly"),
    hits: int = typer.Option(None, help="hits per query (default 1000; Mr. TyDi 100)"),
    threads: int = typer.Option(None, help="search threads (default: all cores; results do not depend on it)"),
    data_dir: Path = typer.Option(None, "--data-dir", help="folder holding local dataset copies"),
    phase: str = typer.Option("all", help="all | index | search (split large sets across jobs)"),
    gate: bool = typer.Option(False, "--gate", help="exit non-zero if a dataset falls >1 point below its published baseline or a comparator"),
    arms: str = typer.Option(None, help="arms: bm25,dense,hybrid,sparse,rerank (non-BM25 arms need the `dense` extra) "
                             "(default: bm25)"),
    model: list[str] = typer.Option(None, "--model", help="model name or path for the dense/sparse/rerank arms (repeatable)"),
    variants: str = typer.Option("", help="extra BM25 settings beside the plain ones: proximity,typos"),
    ray: str = typer.Option(None, "--ray", help="run the BM25 grid on Ray, same run files: 'local' (start a local "
                            "instance), 'auto' (the cluster `ray start` made here) or a cluster address "
                            "(host:6379, ray://host:10001); needs the `scale` extra"),
    shards: int = typer.Option(None, "--shards", min=1, help="with --ray: shards per BM25 index (default: the "
                               "cluster's CPUs, at least 2)"),
    run_format: str = typer.Option("trec", "--run-format", help="how run files are written: trec (plain text) "
                                   "or gz (gzip: OUT/runs/<dataset>-<identity>/<setting>.trec.gz, about a sixth of the "
                                   "size; every reader takes both)"),
    unverified_data: bool = typer.Option(False, "--unverified-data", help="use a dataset copy whose counts differ "
                                         "from the registry's (every result is then marked unverified)"),
    retriever: list[str] = typer.Option(None, "--retriever", help="NAME=package.module:factory (a callable "
                                        "returning a Retriever) or NAME=REGISTERED: your own system as row "
                                        "user.NAME, tested against BM25 (repeatable)"),
    run: list[str] = typer.Option(None, "--run", help="NAME=PATH: an existing TREC run file (plain or .gz; "
                                  "{dataset} in PATH is the dataset name) as row user.NAME (repeatable)"),
    device: Device = "auto",
    metadata: bool = typer.Option(False, "--metadata", help="start every run file with an ir_metadata header "
                                  "(PRIMAD: version, setting, analyzer, dataset id and checksums, machine) as # lines"),
) -> None:
    """Run the BM25 settings grid on datasets: run files, metrics, pytrec_eval cross-check, reports."""
    from ..errors import SoundingError
    from ..experiment import run_experiment

    if retriever:
        _modules_from_current_folder()
    if run_format not in ("trec", "gz"):
        hint = (f"; to score a run file of your own as a system, give it as --run {run_format}"
                if "=" in run_format else "")
        raise SoundingError(f"--run-format {run_format!r}: choose trec (plain text) or gz (gzip){hint}")
    log = lambda m: console.print(Text(terminal(m), style="dim"))  # noqa: E731
    with _steps(log) as steps:
        result = run_experiment(
            datasets, out, engines=engines.split(",") if engines else None, layouts=layouts, params=params,
            lucene_norms=lucene_norms, norms=norms, hits=hits, threads=threads, data_dir=data_dir, phase=phase,
            gate=gate, arms=arms.split(",") if arms else None, models=model,
            variants=[v for v in variants.split(",") if v], ray=ray, shards=shards,
            retrievers=_named(retriever, "--retriever", "package.module:factory"),
            runs=_named(run, "--run", "runs/{dataset}.trec"), unverified_data=unverified_data,
            gzip_runs=run_format == "gz", metadata=metadata, device=device, command=command_line(),
            log=log, steps=steps)
        if phase == "index":
            console.print(f"indexes ready in {out / 'indexes'}")
            return
        from ..report import terminal_verdict, write_reports

        with steps.step("writing the reports (significance tests)"):
            md, html = write_reports(out)
            verdict, warnings = terminal_verdict(out)
    console.print(_table(result.rows))
    setup = sum(r.extra.get("setup_seconds") or 0.0 for r in result.rows)
    console.print(f"results: {out / 'results.json'}  ({result.seconds:.1f} s; set-up kept out of q/s and search "
                  f"times: {setup:.1f} s, compiling kernels included)")
    console.print(f"reports: {md}  {html}")
    for w in warnings:  # each distinct warning once per dataset, naming its settings
        console.print(w)
    status = 0
    for f in result.crosscheck_failures:
        console.print(Text.assemble(("cross-check failed: ", "red"), terminal(f)))
        status = 1
    console.print()
    for part in verdict:  # the verdict last: what the run says, at the bottom of the terminal
        console.print(part)
    if gate:
        for f in result.gate_failures:
            console.print(Text.assemble(("gate: ", "red"), terminal(f)))
        status = status or (1 if result.gate_failures else 0)
    if status:
        raise typer.Exit(status)


def _modules_from_current_folder() -> None:
    """`--retriever NAME=module:object` finds module.py in the current folder, as `python -m` would: the
    `sounding` script's own folder, not the current one, is first on the import path."""
    import os

    here = os.getcwd()
    if not any(p in ("", ".", here) for p in sys.path):
        sys.path.insert(0, here)


def _named(values: list[str] | None, option: str, example: str) -> dict[str, str]:
    """NAME=VALUE options as {NAME: VALUE}; one-line errors for a missing name or a name given twice."""
    from ..errors import SoundingError

    out: dict[str, str] = {}
    for v in values or []:
        name, eq, value = v.partition("=")
        if not eq or not name.strip() or not value.strip():
            hint = (f"; to write run files as {v}, use --run-format {v}"
                    if option == "--run" and v.strip() in ("trec", "gz") else "")
            raise SoundingError(f"{option} {v!r}: expected NAME=VALUE, e.g. {option} mine={example}{hint}")
        if name.strip() in out:
            raise SoundingError(f"{option}: the name {name.strip()!r} is given twice")
        out[name.strip()] = value.strip()
    return out


def _table(rows: list[ResultRow]) -> Table:
    t = Table(title="sounding run (nDCG@10 and R@100: BEIR convention, own hits dropped)")
    for col in ("dataset", "setting", "nDCG@10", "raw", "R@100", "RR@100", "judged@10", "published", "q/s",
                "set-up s"):
        t.add_column(col, justify="left" if col in ("dataset", "setting") else "right",
                     no_wrap=col in ("dataset", "setting"))
    ids: dict[str, str] = {}  # dataset → its ir_datasets id, said once under the table
    for r in rows:
        m = r.metrics
        pub = (r.published or {}).get("nDCG@10")
        setup = r.extra.get("setup_seconds")
        if r.extra.get("ir_datasets"):
            ids[r.dataset] = r.extra["ir_datasets"]
        t.add_row(shown(r.dataset),
                  shown(r.setting.removeprefix("sounding.bm25.")), f"{m['nDCG@10']:.4f}",
                  f"{r.raw_metrics.get('nDCG@10', float('nan')):.4f}",
                  f"{m['R@100']:.4f}", f"{m['RR@100']:.4f}", f"{m['judged@10']:.4f}",
                  f"{pub:.4f}" if pub is not None else "–", f"{r.qps:,.0f}" if r.qps else "–",
                  f"{setup:.2f}" if isinstance(setup, (int, float)) else "–")
    if ids:
        t.caption = "ir_datasets: " + ", ".join(f"{shown(d)} = {shown(i)}" for d, i in ids.items())
    return t


def _steps(log):
    """The run's progress: rich bars and status lines on a terminal, else a log line per step."""
    from ..experiment.progress import LogSteps

    if not console.is_terminal:
        return contextlib.nullcontext(LogSteps(log))
    from .progress import RichSteps

    return RichSteps(console)
