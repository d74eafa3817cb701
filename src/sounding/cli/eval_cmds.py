"""CLI commands: `sounding eval`, `sounding crosscheck`, `sounding compare` (thin wrappers over sounding.eval)."""
from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from .app import app, exit_when_done, shown

_MEASURE_HELP = ("Measure, e.g. nDCG@10, R@100, RR@100, P@10, AP, Success@100, judged@10, nDCG'@10 (judged-only list, "
                 "trec_eval -J), bpref (repeatable).")


def _measures(measures: list[str] | None):
    from ..eval import DEFAULT_MEASURES, parse_measures

    return parse_measures(measures or DEFAULT_MEASURES)


def _coverage_note(qrels, run, console: Console, name: object = "run") -> None:
    """Say when the run misses judged queries: a qid mismatch otherwise shows up only as low scores.

    One line: a warning for an empty run or one with no judged query, else a note of the queries missing.
    """
    from ..eval import coverage_warnings

    warnings = coverage_warnings(qrels, run, str(name))
    for w in warnings:
        console.print(f"[yellow]warning:[/yellow] {shown(w)}", highlight=False, soft_wrap=True)
    if warnings:
        return
    judged = [q for q, j in qrels.items() if j]
    missing = sum(1 for q in judged if not run.get(q))
    if missing:
        console.print(f"[yellow]note:[/yellow] {missing} of {len(judged)} judged queries have no hits in the run (scored 0)")


@app.command("eval")
def eval_cmd(
    qrels: Path = typer.Argument(..., help="Qrels: TREC (qid iter docid grade) or BEIR TSV; .gz accepted."),
    run: Path = typer.Argument(..., help="TREC run file (qid Q0 docid rank score tag); .gz accepted."),
    measure: list[str] | None = typer.Option(None, "-m", "--measure", help=_MEASURE_HELP),
    remove_self_hits: bool = typer.Option(False, "--remove-self-hits", help="Drop hits whose docid equals the qid (BEIR convention)."),
    per_query: bool = typer.Option(False, "--per-query", help="Also give every query's value."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
) -> None:
    """Score a run with trec_eval semantics (mean over every judged query; missing queries score 0)."""
    from ..eval import read_qrels
    from ..eval.trec import evaluate_run_file, large_run

    ms = _measures(measure)
    q = read_qrels(qrels, fast=large_run(run) or None)  # compiled too where the run's scan loads numba
    # the run is read and scored in one pass (large files: compiled, no Python object per line)
    result, hit_counts = evaluate_run_file(q, run, ms, remove_self_hits=remove_self_hits, per_query=per_query)
    _coverage_note(q, hit_counts, Console(stderr=True), run)  # stderr: --json's stdout stays JSON
    exit_when_done()  # nothing but the output below is left (the interpreter's teardown took 0.2-0.4 s here)
    if as_json:
        print(json.dumps(result))
        return
    console = Console()
    names = [str(m) for m in ms]
    if per_query:
        table = Table("query", *names)
        for qid in result["per_query"][names[0]]:
            table.add_row(qid, *(f"{result['per_query'][n][qid]:.4f}" for n in names))
        table.add_section()
        table.add_row("all", *(f"{result[n]:.4f}" for n in names))
    else:
        console.print(f"{run}: mean over {sum(1 for j in q.values() if j)} judged queries")
        table = Table("measure", "value")
        for n in names:
            table.add_row(n, f"{result[n]:.4f}")
    console.print(table)


@app.command("crosscheck")
def crosscheck_cmd(
    qrels: Path = typer.Argument(..., help="Qrels file."),
    runs: list[Path] = typer.Argument(..., help="One or more TREC run files."),
    remove_self_hits: bool = typer.Option(False, "--remove-self-hits", help="Drop hits whose docid equals the qid."),
    tolerance: float = typer.Option(5e-5, "--tolerance", help="Largest accepted |difference|."),
) -> None:
    """Re-score runs with pytrec_eval (nDCG@10, R@100, RR@100 on the top 100); exit 1 on any mismatch."""
    from ..eval import crosscheck, read_qrels, read_run

    q = read_qrels(qrels)
    failed = []
    for path in runs:
        report = crosscheck(q, read_run(path), tolerance=tolerance, remove_self_hits=remove_self_hits, name=str(path))
        print(f"== {path}")
        print(report)
        if not report.ok:
            failed.append(str(path))
    if failed:
        raise typer.Exit(1)


@app.command("compare")
def compare_cmd(
    qrels: Path = typer.Argument(..., help="Qrels file."),
    run_a: Path = typer.Argument(..., help="Run A (differences are A - B)."),
    run_b: Path = typer.Argument(..., help="Run B."),
    measure: list[str] | None = typer.Option(None, "-m", "--measure", help=_MEASURE_HELP),
    remove_self_hits: bool = typer.Option(False, "--remove-self-hits", help="Drop hits whose docid equals the qid."),
    permutations: int = typer.Option(10_000, "--permutations", help="Randomization test permutations."),
    seed: int = typer.Option(0, "--seed", help="Seed of the randomization test and the bootstrap."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
) -> None:
    """Paired t-test, randomization test, bootstrap 95% CI and win/tie/loss; Holm-corrected across measures."""
    from dataclasses import asdict

    from ..eval import compare, coverage_warnings, holm, per_query_arrays, read_qrels, read_run

    ms = _measures(measure)
    q = read_qrels(qrels)
    ra, rb = read_run(run_a), read_run(run_b)
    err = Console(stderr=True)
    for path, r in ((run_a, ra), (run_b, rb)):
        for w in coverage_warnings(q, r, str(path)):
            err.print(f"[yellow]warning:[/yellow] {shown(w)}", highlight=False, soft_wrap=True)
    _, va = per_query_arrays(q, ra, ms, remove_self_hits=remove_self_hits)
    _, vb = per_query_arrays(q, rb, ms, remove_self_hits=remove_self_hits)
    results = {n: compare(va[n], vb[n], permutations=permutations, seed=seed) for n in va}
    t_holm = dict(zip(results, holm([c.t_pvalue for c in results.values()])))
    r_holm = dict(zip(results, holm([c.rand_pvalue for c in results.values()])))
    if as_json:
        out = {n: {**asdict(c), "t_pvalue_holm": t_holm[n], "rand_pvalue_holm": r_holm[n]} for n, c in results.items()}
        print(json.dumps(out))
        return
    n_q = next(iter(results.values())).n
    print(f"A = {run_a}, B = {run_b}: {n_q} queries; two-sided p, Holm-corrected across {len(results)} measure(s) in ()")
    print(f"{'measure':<12} {'A':>7} {'B':>7} {'A - B':>8}  {'95% CI of A - B':<18}  {'t-test p':<17}  {'randomization p':<17}  win/tie/loss")
    for n, c in results.items():
        ci = f"[{c.ci_low:+.4f}, {c.ci_high:+.4f}]"
        print(
            f"{n:<12} {c.mean_a:>7.4f} {c.mean_b:>7.4f} {c.diff:>+8.4f}  {ci:<18}  "
            f"{f'{c.t_pvalue:.4f} ({t_holm[n]:.4f})':<17}  {f'{c.rand_pvalue:.4f} ({r_holm[n]:.4f})':<17}  "
            f"{c.wins}/{c.ties}/{c.losses}"
        )
