"""CLI commands: `sounding eval`, `sounding compare`, `sounding diff`, `sounding crosscheck` (thin wrappers over
sounding.eval; `diff --html` writes the report's run explorer for two runs)."""
from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from .app import app, exit_when_done

_MEASURE_HELP = ("Measure, e.g. nDCG@10, R@100, RR@100, P@10, AP, Success@100, judged@10, nDCG'@10 (judged-only list, "
                 "trec_eval -J), bpref (repeatable).")


def _measures(measures: list[str] | None):
    from ..eval import DEFAULT_MEASURES, parse_measures

    return parse_measures(measures or DEFAULT_MEASURES)


def _coverage_note(qrels, run, console: Console, name: object = "run") -> None:
    """Say when the run misses judged queries: a qid mismatch otherwise shows up only as low scores.

    One line: a warning for an empty run or one with no judged query, else a note of the queries missing.
    """
    from rich.markup import escape

    from ..eval import coverage_warnings

    warnings = coverage_warnings(qrels, run, str(name))
    for w in warnings:
        console.print(f"[yellow]warning:[/yellow] {escape(w)}", highlight=False, soft_wrap=True)
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


@app.command("diff")
def diff_cmd(
    target: str = typer.Argument(..., metavar="QRELS|DATASET", help="Qrels file, or a dataset (name or folder: "
                                 "its qrels, and titles and snippets for --html)."),
    run_a: Path = typer.Argument(..., help="Run A (differences are A - B)."),
    run_b: Path = typer.Argument(..., help="Run B."),
    measure: str = typer.Option("nDCG@10", "-m", "--measure", help="The per-query measure compared."),
    remove_self_hits: bool = typer.Option(False, "--remove-self-hits", help="Drop hits whose docid equals the qid "
                                          "(BEIR convention), in the measure and in the top lists."),
    top: int = typer.Option(10, "--top", min=0, help="Queries listed: those with the largest |A - B|."),
    depth: int = typer.Option(10, "--depth", min=1, help="Top-k compared by RBO and KTU."),
    permutations: int = typer.Option(10_000, "--permutations", help="Randomization test permutations."),
    seed: int = typer.Option(0, "--seed", help="Seed of the randomization test and the bootstrap."),
    data_dir: Path = typer.Option(None, "--data-dir", help="Folder holding local dataset copies."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON: the test and every query's values, Δ, RBO, KTU."),
    html: Path = typer.Option(None, "--html", help="Also write the run explorer page of the two runs here."),
) -> None:
    """Two runs query by query: the queries that differ most, win/tie/loss, paired tests, RBO and KTU.

    Per-query values are those `sounding eval --per-query` gives each run."""
    from rich.markup import escape

    from ..eval import coverage_warnings, read_qrels, read_run
    from ..eval.diff import diff_runs

    dataset = None
    if Path(target).is_file():
        qrels = read_qrels(target)
    else:
        from ..datasets import load_dataset

        dataset = load_dataset(target, data_dir=data_dir)
        qrels = dataset.qrels
    err = Console(stderr=True)
    for path in (run_a, run_b):
        for w in coverage_warnings(qrels, read_run(path), str(path)):
            err.print(f"[yellow]warning:[/yellow] {escape(w)}", highlight=False, soft_wrap=True)
    d = diff_runs(qrels, run_a, run_b, measure=measure, remove_self_hits=remove_self_hits, depth=depth,
                  permutations=permutations, seed=seed)
    if html is not None:
        from ..io import atomic_write
        from ..pipeline import default_analyzer
        from ..report.explorer import diff_page

        names = (run_a.name, run_b.name) if run_a.name != run_b.name else (str(run_a), str(run_b))
        page = diff_page(d, names, dataset.name if dataset else Path(target).name,
                         dataset.queries if dataset else {}, qrels, dataset.corpus_path if dataset else None,
                         default_analyzer(dataset.language if dataset else None))
        atomic_write(html, page)
    if as_json:
        print(json.dumps(d.to_dict()))
    else:
        _print_diff(d, run_a, run_b, top, dataset.queries if dataset else {})
    if html is not None:
        err.print(f"explorer page: {escape(str(html))}", highlight=False, soft_wrap=True)


def _print_diff(d, run_a: Path, run_b: Path, top: int, texts: dict[str, str]) -> None:
    from rich.text import Text

    from ..escape import terminal

    c = d.comparison
    out = Console()
    out.print(Text(terminal(f"A = {run_a}, B = {run_b}: {c.n} judged queries, {d.measure}")))
    def p(v: float) -> str:
        return "<0.0001" if v < 0.0001 else f"{v:.4f}"

    out.print(f"A {c.mean_a:.4f}  B {c.mean_b:.4f}  A − B {c.diff:+.4f}  95% CI [{c.ci_low:+.4f}, {c.ci_high:+.4f}]  "
              f"wins/ties/losses {c.wins}/{c.ties}/{c.losses}  p t-test {p(c.t_pvalue)}  p randomization "
              f"{p(c.rand_pvalue)}", highlight=False)
    values = d.to_dict()
    out.print(f"top {d.depth} agreement: mean RBO {_show(values['mean_rbo'])} (p = {d.p}), mean KTU "
              f"{_show(values['mean_ktu'])}", highlight=False)
    if not top:
        return
    table = Table(title=f"the {min(top, len(d.queries))} queries with the largest |A − B|", title_justify="left")
    shown = d.biggest(top)
    qid_w = min(16, max(len(q.qid) for q in shown))
    table.add_column("query", no_wrap=True, min_width=qid_w)
    for col in ("A", "B", "A − B", "RBO", "KTU"):
        table.add_column(col, justify="right", no_wrap=True, min_width=7)
    room = out.width - (qid_w + 5 * 7 + 7 * 3 + 1)  # what the figures and the borders leave
    texts = texts if room >= 12 else {}
    if texts:  # the query's text takes what is left, cut with an ellipsis
        table.add_column("text", no_wrap=True, overflow="ellipsis", max_width=room)
    for q in shown:
        style = "green" if q.diff > 0 else "red" if q.diff < 0 else ""
        table.add_row(Text(terminal(q.qid)), f"{q.a:.4f}", f"{q.b:.4f}", Text(f"{q.diff:+.4f}", style=style),
                      _show(q.rbo), _show(q.ktu), *([Text(terminal(texts.get(q.qid, "")))] if texts else []))
    out.print(table)


def _show(v) -> str:
    return "—" if v is None or v != v else f"{v:.4f}"


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

    from rich.markup import escape

    from ..eval import compare, coverage_warnings, holm, per_query_arrays, read_qrels, read_run

    ms = _measures(measure)
    q = read_qrels(qrels)
    ra, rb = read_run(run_a), read_run(run_b)
    err = Console(stderr=True)
    for path, r in ((run_a, ra), (run_b, rb)):
        for w in coverage_warnings(q, r, str(path)):
            err.print(f"[yellow]warning:[/yellow] {escape(w)}", highlight=False, soft_wrap=True)
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
