"""The "Pool bias" section: judged-only scores beside nDCG@10."""
from __future__ import annotations

from ..blocks import MISSING, Chart, Para, Section, Table, num_cell, setting_cell, signed4, text_cell
from ..charts import bar_svg, colours
from ..result_table import CQA, MAIN, ResultTable
from .common import DIAGNOSTICS, JUDGED_ONLY, pool_reference
from .measures import measure_table

CAPTIONS = {"judged@10": "judged@10 — share of the top 10 with any judgement",
            JUDGED_ONLY: f"{JUDGED_ONLY} — nDCG@10 on the judged-only list (trec_eval -J)",
            "bpref": "bpref — judged documents only (Buckley & Voorhees)"}


def _places(values: dict[str, float | None]) -> dict[str, int]:
    """Place of each setting by value, 1 = best; equal values share the better place; None gets no place."""
    present = [v for v in values.values() if v is not None]
    return {s: 1 + sum(1 for w in present if w > v) for s, v in values.items() if v is not None}


def _most_unjudged(row: dict) -> str:
    pool = row.get("pool") if isinstance(row.get("pool"), dict) else {}
    worst = [w for w in pool.get("most_unjudged") or [] if isinstance(w, list) and len(w) == 2]
    return ", ".join(f"{q} ({n})" for q, n in worst) or MISSING


def section(res: ResultTable) -> Section:
    s = Section("pool-bias", "Pool bias: judgement coverage and judged-only scores")
    s.blocks.append(Para(
        "judged@10 is the share of a run's top 10 that the assessors judged at all; BEIR's judgements were "
        "pooled from other systems, so a setting with low judged@10 retrieves many never-judged documents, "
        "which count as non-relevant, and its nDCG@10 may understate it. These measures describe the "
        "judgements' coverage, not quality: no value is marked best, and each chart's axis fits its values."))
    present = res.measures()
    for m in DIAGNOSTICS:
        if m in present:
            s.blocks.append(measure_table(res, m, CAPTIONS[m]))
    s.blocks.extend(_judged_charts(res) if "judged@10" in present else
                    [Para("judged@10 is not recorded in this run.", "note")])
    s.blocks.append(Para(
        f"Most documents a system ranks high on a BEIR dataset were never judged (the judgements come from "
        f"pools of earlier, mostly lexical, systems or from the source collection), and nDCG@10 counts every "
        f"unjudged hit as non-relevant. {JUDGED_ONLY} (trec_eval -J: unjudged hits dropped, the rest ranked again; Sakai's "
        f"condensed list) and bpref (Buckley & Voorhees) score only the judged hits. Per dataset: each setting's "
        f"nDCG@10, {JUDGED_ONLY}, their difference, judged@10 and bpref; its place among the settings by "
        f"nDCG@10 and by {JUDGED_ONLY} (1 = best, equal values share a place) and the change (+ = moves up when "
        f"the holes are ignored); the queries with the most unjudged hits in its top 10 (query id and count). "
        f"A second table gives each non-BM25 setting's gap to the BM25 reference on both scores: a gap that "
        f"shrinks on the judged-only list is partly a pooling artefact."))
    if not any(res.metric(d, st, JUDGED_ONLY) is not None for d, st in res.cell):
        s.blocks.append(Para(f"{JUDGED_ONLY} is not recorded in this run.", "note"))
        return s
    for d in res.datasets:
        s.blocks.extend(_pool_bias_blocks(res, d))
    return s


def _judged_charts(res: ResultTable) -> list[Chart]:
    colors = colours(res.settings)
    charts = []
    for c in res.columns:
        bars = [(st, res.column_value(c, st, "judged@10"), colors[st]) for st in res.settings]
        if any(v is not None for _, v, _ in bars):
            caption = f"judged@10, {c}" + (" (mean of forum means)" if c == CQA else "")
            charts.append(Chart(caption, bar_svg(bars, "judged@10")))
    return charts


def _pool_bias_blocks(res: ResultTable, d: str) -> list:
    settings = [st for st in res.settings if res.metric(d, st, JUDGED_ONLY) is not None]
    if not settings:
        return [Para(f"{d}: {JUDGED_ONLY} is not recorded.", "note")]
    by_main = _places({st: res.metric(d, st, MAIN) for st in settings})
    by_judged = _places({st: res.metric(d, st, JUDGED_ONLY) for st in settings})
    body = []
    for st in settings:
        row, attrs = res.row(d, st), dict(dataset=d, setting=st)
        main, judged_only = res.metric(d, st, MAIN), res.metric(d, st, JUDGED_ONLY)
        a, b = by_main.get(st), by_judged.get(st)
        pool = row.get("pool") if isinstance(row.get("pool"), dict) else {}
        body.append([
            setting_cell(res, d, st),
            *(num_cell(res.metric(d, st, m), "run", measure=m, **attrs) for m in (MAIN, JUDGED_ONLY)),
            num_cell(judged_only - main if main is not None else None, "pool-diff", signed4, measure=JUDGED_ONLY,
                     **attrs),
            *(num_cell(res.metric(d, st, m), "run", measure=m, **attrs) for m in ("judged@10", "bpref")),
            num_cell(a, "pool-place", lambda v: f"{v:.0f}", measure=MAIN, **attrs),
            num_cell(b, "pool-place", lambda v: f"{v:.0f}", measure=JUDGED_ONLY, **attrs),
            num_cell(a - b if a is not None else None, "pool-place-change", lambda v: f"{v:+.0f}",
                     measure=JUDGED_ONLY, **attrs),
            text_cell(pool.get("queries_with_unjudged"), numeric=True),
            text_cell(_most_unjudged(row)),
        ])
    head = ["setting", MAIN, JUDGED_ONLY, f"Δ {JUDGED_ONLY} − {MAIN}", "judged@10", "bpref", f"place {MAIN}",
            f"place {JUDGED_ONLY}", "place change", "queries with unjudged in top 10",
            "most unjudged in top 10: query (count)"]
    blocks: list = [Table(head, body, d)]
    nonrel = {(res.row(d, st).get("pool") or {}).get("judged_nonrelevant") for st in settings
              if isinstance(res.row(d, st).get("pool"), dict)}
    if nonrel == {0}:
        blocks.append(Para(
            f"{d}: the qrels hold no judged non-relevant document, so the judged-only list holds only relevant "
            f"hits: {JUDGED_ONLY} rewards retrieving them anywhere in the ranking (an upper bound, not a "
            f"corrected nDCG@10) and bpref is the share of relevant documents retrieved.", "note"))
    blocks.extend(_pool_gap_blocks(res, d, settings))
    return blocks


def _pool_gap_blocks(res: ResultTable, d: str, settings: list[str]) -> list:
    ref = pool_reference(res, d)
    others = [st for st in settings if (res.row(d, st) or {}).get("arm", "bm25") != "bm25"]
    if ref is None or not others or res.metric(d, ref, JUDGED_ONLY) is None:
        return []
    body = []
    for st in others:
        attrs = dict(dataset=d, setting=st)
        gaps = [(m, res.metric(d, st, m), res.metric(d, ref, m)) for m in (MAIN, JUDGED_ONLY, "bpref")]
        gaps = [(m, a - b if a is not None and b is not None else None) for m, a, b in gaps]
        g_main, g_judged = gaps[0][1], gaps[1][1]
        if g_main is None or g_judged is None:
            reading = MISSING
        elif (g_main < 0) != (g_judged < 0) and g_main != 0 and g_judged != 0:
            reading = f"sign flips: {g_main:+.4f} → {g_judged:+.4f}"
        elif abs(abs(g_judged) - abs(g_main)) < 5e-5:  # equal as shown (4 decimals)
            reading = "gap unchanged"
        elif abs(g_judged) < abs(g_main):
            reading = f"gap shrinks by {abs(g_main) - abs(g_judged):.4f}"
        else:
            reading = f"gap grows by {abs(g_judged) - abs(g_main):.4f}"
        body.append([setting_cell(res, d, st),
                     *(num_cell(g, "pool-gap", signed4, measure=m, **attrs) for m, g in gaps),
                     text_cell(reading)])
    head = ["setting", f"Δ {MAIN} vs reference", f"Δ {JUDGED_ONLY} vs reference", "Δ bpref vs reference",
            "reading"]
    return [Table(head, body, f"{d} — gap to the BM25 reference {ref} (setting − reference)")]
