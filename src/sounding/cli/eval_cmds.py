"""CLI commands: `sounding eval`, `sounding compare`, `sounding diff`, `sounding crosscheck` (thin wrappers over
sounding.eval; `diff --html` writes the report's run explorer for two runs).

`eval` and `compare` take several runs at once (a row each, as ranx's `compare` and PyTerrier's `Experiment`
do), and qrels as a file or a dataset's name (its test qrels, or the split an ir_datasets id names).
"""
from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.console import Console

from .app import app, exit_when_done, shown

_MEASURE_HELP = ("Measure, e.g. nDCG@10, R@100, RR@100, AP(rel=2)@1000, P(rel=2)@10, Success@10, judged@10, bpref, "
                 "nDCG'@10 (judged-only list, trec_eval -J), trec_eval's names (map, P_5, num_rel_ret, "
                 "iprec_at_recall_0.10, 11pt_avg, ...), or `official` for trec_eval's default set (repeatable).")
_QRELS_HELP = ("Qrels: a TREC (qid iter docid grade) or BEIR TSV file (.gz accepted), or a dataset's name "
               "(scifact, beir/scifact/test, ...: its test qrels, or the split the id names).")


def _measures(measures: list[str] | None):
    from ..eval import DEFAULT_MEASURES, parse_measures

    return parse_measures(measures or DEFAULT_MEASURES)


def _qrels(text: str, *, compiled: bool | None = None):
    """The qrels a file holds, or a dataset's (its name or an ir_datasets id: datasets.qrels_for). A file is read
    without importing the datasets package (~60 ms of a `sounding eval` that takes ~1 s)."""
    if Path(text).expanduser().is_file():
        from ..eval import read_qrels

        return read_qrels(Path(text).expanduser(), fast=compiled)
    from ..datasets import qrels_for

    return qrels_for(text, compiled=compiled)


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
        prefix = f"{shown(name)}: " if name != "run" else ""
        console.print(f"[yellow]note:[/yellow] {prefix}{missing} of {len(judged)} judged queries have no hits in the run "
                      "(scored 0)", highlight=False, soft_wrap=True)


def _header_warnings(runs: list[Path], console: Console) -> None:
    """One line for each run whose ir_metadata header is broken (the run is scored anyway, as trec_eval does)."""
    from ..provenance import header_warning

    for run in runs:
        problem = header_warning(run) if Path(run).is_file() else None
        if problem:
            console.print(f"[yellow]warning:[/yellow] {shown(problem)}", highlight=False, soft_wrap=True)


@app.command("eval")
def eval_cmd(
    qrels: str = typer.Argument(..., help=_QRELS_HELP),
    runs: list[Path] = typer.Argument(..., help="TREC run files (qid Q0 docid rank score tag; .gz accepted): a row each."),
    measure: list[str] | None = typer.Option(None, "-m", "--measure", help=_MEASURE_HELP),
    remove_self_hits: bool = typer.Option(False, "--remove-self-hits", help="Drop hits whose docid equals the qid (BEIR convention)."),
    per_query: bool = typer.Option(False, "--per-query", "-q", help="Also give every query's value (trec_eval's -q)."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON: {measure: value} for one run, {run: {measure: value}} for several."),
    trec: bool = typer.Option(False, "--trec", help="Print as trec_eval does (measure, query or 'all', value; trec_eval's names)."),
) -> None:
    """Score runs with trec_eval semantics (every judged query counts; a query missing from a run scores 0)."""
    from ..eval.run_file import evaluate_run_file, large_run

    ms = _measures(measure)
    from ..eval.comparison import run_labels

    labels = run_labels(runs)
    q = _qrels(qrels, compiled=any(large_run(r) for r in runs) or None)  # compiled where a run's scan loads numba
    err = Console(stderr=True)  # notes on stderr: --json's stdout stays JSON
    _header_warnings(runs, err)
    results = {}
    for label, run in zip(labels, runs):
        # read and scored in one pass (large files: compiled, no Python object per line)
        results[label], hit_counts = evaluate_run_file(q, run, ms, remove_self_hits=remove_self_hits, per_query=per_query)
        _coverage_note(q, hit_counts, err, label if len(runs) > 1 else run)
    exit_when_done()  # nothing but the output below is left (the interpreter's teardown took 0.2-0.4 s here)
    from .eval_output import print_tables, print_trec

    if as_json:
        print(json.dumps(results[labels[0]] if len(runs) == 1 else results))
    elif trec:
        print_trec(ms, results, per_query)
    else:
        print_tables(ms, results, per_query, sum(1 for j in q.values() if j))


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
        from ..analysis import default_analyzer
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
    from rich.table import Table
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
    qrels: str = typer.Argument(..., help=_QRELS_HELP),
    runs: list[Path] = typer.Argument(..., help="One or more TREC run files."),
    remove_self_hits: bool = typer.Option(False, "--remove-self-hits", help="Drop hits whose docid equals the qid."),
    tolerance: float = typer.Option(5e-5, "--tolerance", help="Largest accepted |difference|."),
) -> None:
    """Re-score runs with pytrec_eval (nDCG@10, R@100, RR@100 on the top 100); exit 1 on any mismatch."""
    from ..eval import crosscheck, read_run

    q = _qrels(qrels)
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
    qrels: str = typer.Argument(..., help=_QRELS_HELP),
    runs: list[Path] = typer.Argument(..., help="Two or more TREC run files; each is compared with the baseline."),
    baseline: Path = typer.Option(None, "--baseline", "-b", help="The run the others are compared with (default: the first)."),
    measure: list[str] | None = typer.Option(None, "-m", "--measure", help=_MEASURE_HELP),
    remove_self_hits: bool = typer.Option(False, "--remove-self-hits", help="Drop hits whose docid equals the qid."),
    test: str = typer.Option("t", "--test", help="The test that marks a difference: t (paired t-test, ranx's default) or randomization."),
    alpha: float = typer.Option(0.05, "--alpha", help="Significance level, after Holm's correction over every run and measure."),
    permutations: int = typer.Option(10_000, "--permutations", help="Randomization test permutations."),
    seed: int = typer.Option(0, "--seed", help="Seed of the randomization test and the bootstrap."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON: {measure: statistics} for one comparison, {run: {measure: statistics}} for several."),
) -> None:
    """Each run against the baseline: paired t-test, randomization test, bootstrap 95% CI and win/tie/loss per
    measure, Holm-corrected over every run and measure (the table shows run - baseline; --json, as always, A - B
    with A the baseline)."""
    from ..errors import SoundingError
    from ..eval.comparison import compare_runs

    from .eval_output import print_comparison

    if test not in ("t", "randomization"):
        raise SoundingError(f"--test must be t or randomization, got {test!r}")
    if not 0 < alpha < 1:
        raise SoundingError(f"--alpha must be between 0 and 1, got {alpha}")
    if baseline is not None and baseline not in runs:
        runs = [baseline, *runs]
    if len(runs) < 2:
        raise SoundingError("compare needs at least two runs (a baseline and one to compare with it)")
    ms = _measures(measure)
    q = _qrels(qrels)
    _header_warnings(runs, Console(stderr=True))
    got = compare_runs(q, [str(r) for r in runs], str(baseline or runs[0]), ms, remove_self_hits=remove_self_hits,
                       permutations=permutations, seed=seed)
    err = Console(stderr=True)
    for w in got.warnings:  # a run that cannot score: said once, on stderr (--json's stdout stays JSON)
        err.print(f"[yellow]warning:[/yellow] {shown(w)}", highlight=False, soft_wrap=True)
    if as_json:
        out = {label: {n: {**c, "significant": c[f"{'t' if test == 't' else 'rand'}_pvalue_holm"] < alpha}
                       for n, c in per.items()} for label, per in got.comparisons.items()}
        print(json.dumps(next(iter(out.values())) if len(out) == 1 else out))
        return
    print_comparison(got, ms, test, alpha)
