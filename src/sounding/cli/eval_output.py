"""What `sounding eval` and `sounding compare` print: tables (rich), trec_eval's own layout, and compare's table
of runs (ranx's `compare` layout: a letter per run, a superscript letter where a run is significantly better
than the baseline, a subscript where it is significantly worse), then each run's statistics against it."""
from __future__ import annotations

import sys

from rich.console import Console
from rich.table import Table

from .app import shown as escape  # text from files (ids, paths) for a rich cell: controls shown, markup literal


def _console() -> Console:
    """stdout; at 140 columns when it is not a terminal, so that run paths fit (as the other commands print)."""
    return Console(highlight=False, width=None if sys.stdout.isatty() else 140)


def shown(m, value: float) -> str:
    return f"{value:.0f}" if m.family.integer else f"{value:.4f}"


def print_tables(ms, results: dict, per_query: bool, judged: int) -> None:
    console = _console()
    names = [str(m) for m in ms]
    if per_query:
        for label, result in results.items():
            table = Table("query", *map(escape, names), title=escape(label) if len(results) > 1 else None)
            for qid in result["per_query"][names[0]]:
                table.add_row(escape(qid), *(shown(m, result["per_query"][n][qid]) for m, n in zip(ms, names)))
            table.add_section()
            table.add_row("all", *(shown(m, result[n]) for m, n in zip(ms, names)))
            console.print(table)
        return
    if len(results) == 1:
        label, result = next(iter(results.items()))
        console.print(f"{escape(label)}: mean over {judged} judged queries")
        table = Table("measure", "value")
        for m, n in zip(ms, names):
            table.add_row(escape(n), shown(m, result[n]))
    else:
        console.print(f"mean over {judged} judged queries")
        table = Table("run", *map(escape, names))
        for label, result in results.items():
            table.add_row(escape(label), *(shown(m, result[n]) for m, n in zip(ms, names)))
    console.print(table)


def print_trec(ms, results: dict, per_query: bool) -> None:
    """trec_eval's layout ("%-22s\\t%s\\t%6.4f"; counts as integers): per query (with -q) then "all", run by run.
    A measure trec_eval has no name for (judged@10, RR@100, rel= without -l) goes under Sounding's name."""
    from ..escape import terminal

    for result in results.values():
        names = [(m, str(m), terminal(m.trec_eval_name if m.trec_eval_name and not m.trec_eval_flags else str(m)))
                 for m in ms]
        if per_query:
            qids = result["per_query"][names[0][1]]
            for qid in qids:
                for m, key, shown in names:
                    if not m.family.summary_only:
                        print(trec_line(m, shown, terminal(qid), result["per_query"][key][qid]))
        for m, key, shown in names:
            print(trec_line(m, shown, "all", result[key]))


def trec_line(m, name: str, qid: str, value: float) -> str:
    return f"{name:<22}\t{qid}\t{value:.0f}" if m.family.integer else f"{name:<22}\t{qid}\t{value:6.4f}"



_SUP = str.maketrans("abcdefghijklmnopqrstuvwxyz", "ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖ𐞥ʳˢᵗᵘᵛʷˣʸᶻ")
_SUB = str.maketrans("aehijklmnoprstuvx", "ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ")


def _letter(i: int) -> str:
    return "abcdefghijklmnopqrstuvwxyz"[i] if i < 26 else f"r{i + 1}"


def print_comparison(got, measures, test: str, alpha: float) -> None:
    console = _console()
    key = "t_pvalue_holm" if test == "t" else "rand_pvalue_holm"
    labels = list(got.values)
    letters = {label: _letter(i) for i, label in enumerate(labels)}
    b = letters[got.baseline]
    sup, sub = b.translate(_SUP), b.translate(_SUB)
    if sub == b:  # a letter with no subscript form in Unicode
        sub = f"₍{b}₎"
    name = "paired t-test" if test == "t" else "randomization test"
    console.print(f"{got.queries} judged queries; baseline {b} ({escape(got.baseline)}); {name}, Holm-corrected over "
                  f"{len(labels) - 1} run(s) × {len(got.measures)} measure(s); {sup} significantly better, {sub} "
                  f"significantly worse than {b} at p < {alpha:g}", soft_wrap=True)
    table = Table("#", "run", *map(escape, got.measures))
    for label in labels:
        cells = []
        for m, n in zip(measures, got.measures):
            value = got.values[label][n]
            text = shown(m, value)
            c = got.comparisons.get(label, {}).get(n)  # A: the baseline, B: this run
            if c is not None and c[key] < alpha and c["diff"] != 0:
                text += sup if c["diff"] < 0 else sub
            cells.append(text)
        table.add_row(letters[label], escape(label), *cells)
    console.print(table)
    width = max(12, *(len(n) for n in got.measures))
    for label, per in got.comparisons.items():
        other = f"{letters[label]} - {b}"
        console.print(f"\n{letters[label]} ({escape(label)}) against {b}: two-sided p, Holm-corrected in ()",
                      soft_wrap=True)
        console.print(f"{'measure':<{width}} {other:>8}  {'95% CI':<18}  {'t-test p':<17}  {'randomization p':<17}  "
                      "win/tie/loss", soft_wrap=True)
        for n, c in per.items():  # shown as this run - the baseline (the statistics hold baseline - run)
            ci = f"[{0.0 - c['ci_high']:+.4f}, {0.0 - c['ci_low']:+.4f}]"  # 0.0 - x: no "-0.0000"
            t_p = f"{c['t_pvalue']:.4f} ({c['t_pvalue_holm']:.4f})"
            rand_p = f"{c['rand_pvalue']:.4f} ({c['rand_pvalue_holm']:.4f})"
            console.print(f"{escape(n):<{width}} {0.0 - c['diff']:>+8.4f}  {ci:<18}  {t_p:<17}  {rand_p:<17}  "
                          f"{c['losses']}/{c['ties']}/{c['wins']}", soft_wrap=True)


def print_scores(console: Console, label: str, qrels, run) -> dict:
    """One line of a run's nDCG@10 and R@100 (BEIR convention: own hits dropped), as the retrieval commands print it."""
    from ..eval import evaluate

    s = evaluate(qrels, run, ["nDCG@10", "R@100"], remove_self_hits=True)
    console.print(f"{label}: nDCG@10 {s['nDCG@10']:.4f}  R@100 {s['R@100']:.4f}  (BEIR convention, own hits dropped)")
    return s
