"""The "Significance" section: each setting against the best published configuration (the tests are
eval/significance.py's; this is their place in the report)."""
from __future__ import annotations

from ..blocks import Cell, Para, Section, Table, num_cell, pvalue, setting_cell, signed4, text_cell
from ..result_table import MAIN, ResultTable
from .common import ALPHA, PERMUTATIONS, reference_setting


def section(res: ResultTable, per_query: dict | None) -> Section:
    s = Section("significance", "Significance against the best published configuration")
    s.blocks.append(Para(
        f"Per dataset, each setting against the reference run (the setting whose published {MAIN} is "
        f"highest) on per-query {MAIN}: paired t-test and paired randomization test ({PERMUTATIONS:,} sign "
        f"flips, seeded), each Holm-corrected across the settings compared on that dataset; 95% bootstrap "
        f"interval of the mean difference; wins/ties/losses count queries. Verdict: Holm-corrected "
        f"randomization p < {ALPHA}."))
    if not per_query:
        s.blocks.append(Para("No per-query files found, so no significance tests.", "note"))
        return s
    for d in res.datasets:
        s.blocks.extend(_significance_blocks(res, per_query, d))
    return s


def _significance_blocks(res: ResultTable, per_query: dict, dataset: str) -> list:
    from ...eval.significance import compare, holm  # scipy.stats is slow to import: only when needed

    base = reference_setting(res, dataset)
    if base is None or (dataset, base[0]) not in per_query:
        return [Para(f"{dataset}: no reference run with per-query values; not tested.", "note")]
    ref, why = base
    others = [st for st in res.settings if st != ref and (dataset, st) in per_query]
    if not others:
        return [Para(f"{dataset}: only the reference setting {ref} ran; nothing to compare.", "note")]
    results = []
    for st in others:
        a, b = per_query[(dataset, st)], per_query[(dataset, ref)]
        qids = sorted(a.keys() & b.keys())  # align on the queries both runs scored
        if len(qids) < 2:
            results.append((st, None))
            continue
        results.append((st, compare([a[q] for q in qids], [b[q] for q in qids], permutations=PERMUTATIONS)))
    tested = [c for _, c in results if c is not None]
    t_holm = iter(holm([c.t_pvalue for c in tested]))
    r_holm = iter(holm([c.rand_pvalue for c in tested]))
    body = [_significance_line(res, dataset, st, c, next(t_holm) if c else None, next(r_holm) if c else None)
            for st, c in results]
    head = ["setting", "queries", f"Δ {MAIN}", "95% CI", "wins/ties/losses", "p t-test", "p t-test (Holm)",
            "p randomization", "p rand. (Holm)", "verdict"]
    return [Table(head, body, f"{dataset} — reference {ref}: {why}")]


def _significance_line(res, dataset, st, c, t_holm, r_holm) -> list[Cell]:
    if c is None:
        return [setting_cell(res, dataset, st), text_cell("fewer than 2 shared queries")] + [text_cell(None)] * 8
    attrs = dict(dataset=dataset, setting=st, measure=MAIN)
    verdict = ("better" if c.diff > 0 else "worse") if r_holm < ALPHA else "n.s."
    return [setting_cell(res, dataset, st), text_cell(c.n, numeric=True),
            num_cell(c.diff, "sig-diff", signed4, **attrs),
            text_cell(f"[{c.ci_low:+.4f}, {c.ci_high:+.4f}]", numeric=True, nowrap=True),
            text_cell(f"{c.wins}/{c.ties}/{c.losses}", numeric=True),
            num_cell(c.t_pvalue, "p-t", pvalue, **attrs), num_cell(t_holm, "p-t-holm", pvalue, **attrs),
            num_cell(c.rand_pvalue, "p-rand", pvalue, **attrs), num_cell(r_holm, "p-rand-holm", pvalue, **attrs),
            Cell(verdict, classes=(f"verdict-{verdict.replace('.', '')}",), strong=verdict != "n.s.")]
