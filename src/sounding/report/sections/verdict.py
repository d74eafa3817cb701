"""The "Verdict" section, first in every rendering: does each configuration with a published figure equal it,
and how does each system of the user's fare against the best BM25 row.

Rows are split by arithmetic. A row in Lucene's arithmetic (Sounding's `lucene-norms` rows, and Pyserini's
own) is Pyserini's run, so it must equal the published figure to 4 decimals (the run, rounded to 4 decimals,
is the published figure). A row in exact arithmetic (real-valued document lengths) is not Pyserini's run: it
passes within EXACT_TOLERANCE of the published figure, docs/baselines.md's tolerance for BM25 at matched
settings.
"""
from __future__ import annotations

from ..blocks import Cell, Para, Section, Table, delta4, f4, num_cell, pvalue, setting_cell, signed4, text_cell
from ..result_table import MAIN, MEASURE_ORDER, ResultTable, as_number
from .common import ALPHA, PERMUTATIONS, published_measures, user_rows

EXACT_TOLERANCE = 0.005  # docs/baselines.md: "BM25 at matched settings within 0.005 nDCG@10 of the Pyserini figure"
LUCENE_CAPTION = "Lucene arithmetic: Pyserini's run, so equal to the published figure to 4 decimals"
EXACT_CAPTION = (f"Exact arithmetic (real-valued document lengths): within ±{EXACT_TOLERANCE} of the published "
                 f"figure, docs/baselines.md's tolerance")


def lucene_arithmetic(row: dict) -> bool:
    """Whether a row ran Lucene's arithmetic (so it is held to 4-decimal equality with its published figure)."""
    return bool(row.get("lucene_norms")) or row.get("engine") == "pyserini"


def passes(row: dict, measure: str, run: float, published: float) -> bool:
    """A row's measure against its published figure: equal to 4 decimals (Lucene) or within the tolerance."""
    if lucene_arithmetic(row):
        return abs(round(run, 4) - published) < 1e-9
    return abs(run - published) <= EXACT_TOLERANCE + 1e-12


def section(res: ResultTable, meta: dict, per_query: dict | None) -> Section:
    s = Section("verdict", "Verdict")
    s.blocks.append(_gate_line(meta.get("gate")))
    rows = [r for r in res.rows() if published_measures(r)]
    if not rows:
        s.blocks.append(Para("No configuration of this run has a published figure (docs/baselines.md lists "
                             "them: BM25 flat and multifield at Anserini's k1=0.9 b=0.4 on BEIR and Mr. TyDi).",
                             "note"))
    measures = [m for m in MEASURE_ORDER if any(m in published_measures(r) for r in rows)]
    measures += sorted({m for r in rows for m in published_measures(r)} - set(measures))
    for lucene, caption in ((True, LUCENE_CAPTION), (False, EXACT_CAPTION)):
        group = [r for r in rows if lucene_arithmetic(r) == lucene]
        if group:
            s.blocks.append(_published_table(res, group, measures, caption))
    if user_rows(res):
        s.blocks.extend(_user_blocks(res, per_query or {}))
    return s


def _gate_line(gate) -> Para:
    if not isinstance(gate, dict):
        return Para("Gate not run (`sounding run --gate` fails when a Sounding row is more than one point "
                    "below its published figure or a comparator at matched settings).", "note")
    failures = gate.get("failures") or []
    if gate.get("passed"):
        return Para("Gate passed: no Sounding row is more than one point below its published figure or a "
                    "comparator at matched settings.", "pass")
    return Para(f"Gate FAILED: {len(failures)} failure(s), listed under Run.", "fail")


def _published_table(res: ResultTable, rows: list[dict], measures: list[str], caption: str) -> Table:
    """One line per row: the first measure's run, published figure and Δ, the other measures' Δ, the mark."""
    first, rest = measures[0], measures[1:]
    body = []
    for r in rows:
        d, st, pub = r["dataset"], r["setting"], r["published"]
        attrs = dict(dataset=d, setting=st)
        run0, pub0 = res.metric(d, st, first), as_number(pub.get(first))
        line = [text_cell(d), _short_setting(res, d, st),
                num_cell(run0, "verdict-run", measure=first, **attrs),
                num_cell(pub0, "verdict-published", measure=first, **attrs),
                _diff_cell(r, first, run0, pub0)]
        checks = [(first, run0, pub0)]
        for m in rest:
            run, published = res.metric(d, st, m), as_number(pub.get(m))
            line.append(_diff_cell(r, m, run, published))
            checks.append((m, run, published))
        line.append(_mark(r, checks))
        body.append(line)
    head = ["dataset", "setting", f"{first} run", "published", "Δ", *(f"Δ {m}" for m in rest), "verdict"]
    return Table(head, body, caption, fold=False)


def _short_setting(res: ResultTable, dataset: str, setting: str) -> Cell:
    """The setting without the "sounding.bm25." every such row shares; the full name in its tooltip."""
    cell = setting_cell(res, dataset, setting)
    cell.title = f"{setting} ({cell.title})" if cell.title else setting
    cell.text = setting.removeprefix("sounding.bm25.")
    return cell


def _diff_cell(row: dict, measure: str, run: float | None, published: float | None) -> Cell:
    diff = run - published if run is not None and published is not None else None
    cell = num_cell(diff, "verdict-diff", delta4, dataset=row["dataset"], setting=row["setting"], measure=measure,
                    title=f"run {f4(run)}, published {f4(published)}" if diff is not None else "")
    if diff is not None:
        cell.classes += ("pass" if passes(row, measure, run, published) else "fail",)
    return cell


def _mark(row: dict, checks: list[tuple[str, float | None, float | None]]) -> Cell:
    done = [(m, passes(row, m, a, b)) for m, a, b in checks if a is not None and b is not None]
    if not done:
        return Cell("not scored", classes=("mark",))
    failed = [m for m, ok in done if not ok]
    if lucene_arithmetic(row):
        text = "equal" if not failed else f"differs ({', '.join(failed)})"
    else:
        text = f"within ±{EXACT_TOLERANCE}" if not failed else f"beyond ±{EXACT_TOLERANCE} ({', '.join(failed)})"
    return Cell(text, {"kind": "verdict", "dataset": row["dataset"], "setting": row["setting"],
                       "verdict": "fail" if failed else "pass"},
                ("mark", "fail" if failed else "pass"), strong=bool(failed), mark="fail" if failed else "pass")


# -- the user's systems against the best BM25 row ---------------------------------------------------------------
def best_bm25(res: ResultTable, dataset: str) -> str | None:
    """The BM25 row (any engine) with the highest nDCG@10 on `dataset`; the first of equals."""
    bm25 = [s for s in res.settings if (res.row(dataset, s) or {}).get("arm", "bm25") == "bm25"
            and res.metric(dataset, s, MAIN) is not None]
    return max(bm25, key=lambda s: res.metric(dataset, s, MAIN), default=None)


def _user_blocks(res: ResultTable, per_query: dict) -> list:
    from ...eval.significance import compare, holm  # scipy.stats: imported only when there is a user system

    body = []
    for d in res.datasets:
        systems = [r["setting"] for r in user_rows(res) if r["dataset"] == d]
        best = best_bm25(res, d)
        if not systems:
            continue
        tests = []
        for st in systems:
            a, b = per_query.get((d, st)), per_query.get((d, best)) if best else None
            qids = sorted(a.keys() & b.keys()) if a and b else []
            tests.append(compare([a[q] for q in qids], [b[q] for q in qids], permutations=PERMUTATIONS)
                         if len(qids) >= 2 else None)
        adjusted = iter(holm([t.rand_pvalue for t in tests if t]) if any(tests) else [])
        for st, t in zip(systems, tests):
            body.append(_user_line(res, d, st, best, t, next(adjusted) if t else None))
    head = ["dataset", "system", MAIN, "best BM25 row", f"its {MAIN}", f"Δ {MAIN}", "p (Holm)", "wins/ties/losses",
            "judged@10", "BM25 judged@10", "verdict"]
    return [Table(head, body, f"Your systems against the best BM25 row: paired randomization test on per-query "
                              f"{MAIN}, Holm-corrected; low judged@10 may understate a system", fold=False)]


def _user_line(res: ResultTable, d: str, st: str, best: str | None, t, p_holm: float | None) -> list[Cell]:
    attrs = dict(dataset=d, setting=st, measure=MAIN)
    line = [text_cell(d), setting_cell(res, d, st), num_cell(res.metric(d, st, MAIN), "verdict-user", **attrs),
            _short_setting(res, d, best) if best else text_cell(None),
            num_cell(res.metric(d, best, MAIN) if best else None, "verdict-bm25", dataset=d, setting=best or "",
                     measure=MAIN)]
    if t is None:
        line += [text_cell("no per-query values to test", numeric=False), text_cell(None), text_cell(None)]
        verdict = None
    else:
        verdict = ("better" if t.diff > 0 else "worse") if p_holm < ALPHA else "n.s."
        line += [num_cell(t.diff, "verdict-user-diff", signed4, **attrs),
                 num_cell(p_holm, "verdict-user-p-holm", pvalue, **attrs),
                 text_cell(f"{t.wins}/{t.ties}/{t.losses}", numeric=True)]
    line += [num_cell(res.metric(d, st, "judged@10"), "verdict-user", dataset=d, setting=st, measure="judged@10"),
             num_cell(res.metric(d, best, "judged@10") if best else None, "verdict-bm25", dataset=d,
                      setting=best or "", measure="judged@10")]
    if verdict is None:
        line.append(text_cell(None))
    else:
        tone = {"better": "pass", "worse": "fail"}.get(verdict, "neutral")
        line.append(Cell(verdict,
                         {"kind": "verdict-user", "dataset": d, "setting": st, "verdict": verdict},
                         ("mark", tone), strong=verdict != "n.s.", mark=tone))
    return line
