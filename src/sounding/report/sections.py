"""What the report says: the sections in reading order, each built from the indexed results as neutral
blocks (sounding.report.blocks), the same for the Markdown file and the HTML page.

`build_sections` is the lineup: the run and its checks, the settings × datasets tables, the user's own
systems against BM25 (when there are any), published figures, comparator engines at matched settings, raw vs
convention nDCG@10, per-query distributions, judged@10, judged-only scores (pool bias), significance against
the best published configuration, and operational figures.
"""
from __future__ import annotations

from typing import Callable, Iterable

import numpy as np

from ..results import match_key
from .blocks import (MISSING, Cell, Chart, Para, Section, Table, megabytes, num_cell, per_second, pvalue,
                     seconds, setting_cell, signed4, text_cell)
from .charts import bar_svg, boxplot_svg, colours
from .results import CQA, CQA_PREFIX, MAIN, MEASURE_ORDER, Results, as_number, mean_of

RAW = "nDCG@10/raw"  # the headline measure with own hits kept
JUDGED_ONLY = "nDCG'@10"  # nDCG@10 on the judged-only list (trec_eval -J): the "Pool bias" section
NOT_A_QUALITY = {"judged@10"}  # a pool-coverage diagnostic: higher is not "better", so no best-cell highlight
ALPHA = 0.05
PERMUTATIONS = 10_000


def build_sections(rows: list[dict], meta: dict, per_query: dict | None = None) -> list[Section]:
    """The report's sections from results.json rows, run.json and per-query nDCG@10 keyed by (dataset,
    setting); without per-query values the distributions and significance sections say so."""
    res = Results(rows)
    return [
        _summary_section(res, meta or {}),
        _main_section(res),
        *([_user_section(res)] if _user_rows(res) else []),
        _published_section(res),
        _comparator_section(res),
        _raw_section(res),
        _distribution_section(res, per_query),
        _judged_section(res),
        _pool_bias_section(res),
        _significance_section(res, per_query),
        _operational_section(res),
    ]


def _summary_section(res: Results, meta: dict) -> Section:
    s = Section("summary", "Run")
    machine = meta.get("machine") or {}
    facts = [("Sounding", meta.get("sounding_version")), ("created", meta.get("created")),
             ("command", meta.get("command")),
             ("machine", ", ".join(f"{k} {v}" for k, v in machine.items() if v is not None) or None),
             ("datasets", ", ".join(meta.get("datasets") or res.datasets)),
             ("settings", str(len(res.settings)))]
    s.blocks.append(Table(["", ""], [[Cell(k, classes=("setting",)), text_cell(v)] for k, v in facts]))
    s.blocks.append(_gate_para(meta.get("gate")))
    for f in (meta.get("gate") or {}).get("failures") or []:
        s.blocks.append(Para(f"gate failure: {f}", "fail"))
    s.blocks.extend(_crosscheck_paras(res))
    s.blocks.extend(_input_paras(res))
    s.blocks.extend(Para(n, "note") for n in res.notes)
    return s


def _input_paras(res: Results) -> list[Para]:
    """Data the registry does not vouch for, and queries that got no hits: said once, up front."""
    out = [Para(f"{d}: UNVERIFIED data — the dataset's counts differ from the registry's (run with "
                f"--unverified-data), so none of its figures is comparable with the published ones.", "fail")
           for d in res.datasets if any(r.get("unverified_data") for (rd, _), r in res.cell.items() if rd == d)]
    for (d, setting), row in res.cell.items():
        n = row.get("queries_without_hits")
        if n:
            out.append(Para(f"{d} {setting}: {n:,} of {row.get('n_queries', '?'):,} queries got no hits (for BM25: "
                            f"no query term is in the index); they score 0.", "note"))
    return out


def _gate_para(gate) -> Para:
    if not isinstance(gate, dict):
        return Para("Gate: not run (`sounding run --gate` checks every Sounding row against its published "
                    "figure and the comparators at matched settings).", "note")
    if gate.get("passed"):
        return Para("Gate: PASSED — no Sounding row is more than one point below its published figure or a "
                    "comparator at matched settings.", "pass")
    return Para(f"Gate: FAILED — {len(gate.get('failures') or [])} failure(s), listed below.", "fail")


def _crosscheck_paras(res: Results) -> list[Para]:
    checked = [r for r in res.rows() if isinstance(r.get("crosscheck"), dict)]
    if not checked:
        return [Para("pytrec_eval cross-check: not recorded in these rows.", "note")]
    bad = [r for r in checked if not r["crosscheck"].get("ok")]
    out = [Para(f"pytrec_eval cross-check: {len(checked) - len(bad)} of {len(checked)} runs agree "
                f"(query means within 5e-5).", "fail" if bad else "pass")]
    for r in bad:
        out.append(Para(f"cross-check failed: {r['dataset']} {r['setting']} "
                        f"(max difference {r['crosscheck'].get('max_diff')})", "fail"))
    return out


def _main_section(res: Results) -> Section:
    s = Section("main", "Settings × datasets")
    s.blocks.append(Para(
        "One table per measure; rows are settings, columns datasets. All figures use the BEIR convention "
        "(a hit whose document id equals the query id is dropped before scoring). The best value of each "
        "dataset is bold. The last column is the plain mean over the datasets named in its header; a "
        "setting that misses any of them gets a dash there rather than a mean over fewer datasets."))
    if res.forums:
        s.blocks.append(Para(
            f"cqadupstack is the mean of its {len(res.forums)} sub-forum means "
            f"({', '.join(f.removeprefix(CQA_PREFIX) for f in res.forums)}), as in the BEIR paper, and counts "
            f"as one dataset in the mean; the forums are listed one by one after the main tables.", "note"))
    for m in res.measures():
        s.blocks.append(_measure_table(res, m))
    if res.forums:
        s.blocks.append(_forum_table(res))
    return s


def _measure_table(res: Results, measure: str) -> Table:
    best = {c: _best(res.column_value(c, s, measure) for s in res.settings) for c in res.columns}
    highlight = measure not in NOT_A_QUALITY
    with_mean = len(res.columns) > 1
    body = []
    for s in res.settings:
        line = [setting_cell(res, None, s)]
        for c in res.columns:
            v = res.column_value(c, s, measure)
            kind, extra = ("cqadupstack", {"forums": ",".join(res.forums)}) if c == CQA else ("run", {})
            line.append(num_cell(v, kind, best=highlight and v is not None and v == best[c],
                                 dataset=c, setting=s, measure=measure, **extra))
        if with_mean:
            line.append(num_cell(res.mean(s, measure), "mean", dataset="mean", setting=s, measure=measure,
                                 datasets=",".join(res.columns)))
        body.append(line)
    head = ["setting", *res.columns] + ([res.mean_header()] if with_mean else [])
    caption = measure + (" — share of the top 10 with any judgement (no best marked: a diagnostic, not a "
                         "quality measure)" if measure in NOT_A_QUALITY else "")
    return Table(head, body, caption)


def _forum_table(res: Results) -> Table:
    body = []
    for s in res.settings:
        line = [setting_cell(res, None, s)]
        line += [num_cell(res.metric(f, s, MAIN), "run", dataset=f, setting=s, measure=MAIN) for f in res.forums]
        line.append(num_cell(res.column_value(CQA, s, MAIN), "cqadupstack", dataset=CQA, setting=s,
                             measure=MAIN, forums=",".join(res.forums)))
        body.append(line)
    head = ["setting", *(f.removeprefix(CQA_PREFIX) for f in res.forums), "cqadupstack (mean of forum means)"]
    return Table(head, body, f"CQADupStack sub-forums, {MAIN}")


def _best(values: Iterable[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return max(present) if present else None


def _published_measures(row: dict) -> list[str]:
    pub = row.get("published")
    if not isinstance(pub, dict):
        return []
    # published dicts also carry bookkeeping (title, split, verified, ...): only measure names count
    metrics = row.get("metrics") or {}
    return [m for m in pub if ("@" in m or m in metrics) and as_number(pub[m]) is not None]


def _published_section(res: Results) -> Section:
    s = Section("published", "Against published figures")
    s.blocks.append(Para(
        "Each run beside the published figure for the same configuration (row['published'], with its source) "
        "and the difference run − published. The run side is the BEIR-convention number (own hits dropped), "
        "which is what published BEIR baselines report; raw numbers are in the next-but-one section."))
    rows = [r for r in res.rows() if _published_measures(r)]
    if not rows:
        s.blocks.append(Para("No row of this run carries a published figure.", "note"))
        return s
    measures = [m for m in MEASURE_ORDER if any(m in _published_measures(r) for r in rows)]
    measures += sorted({m for r in rows for m in _published_measures(r)} - set(measures))
    lines = [(_published_line(res, r["dataset"], r["setting"], measures, r["published"]), r["published"])
             for r in rows] + _cqa_published_lines(res, measures)
    # sources are sentences: cite them by number under the table rather than widen every row
    sources: dict[str, int] = {}
    body = []
    for line, pub in lines:
        text = _source_text(pub)
        body.append(line + [Cell(f"[{sources.setdefault(text, len(sources) + 1)}]", title=text)])
    head = ["dataset", "setting"] + [h for m in measures for h in (f"{m} run", f"{m} published", "Δ")] + ["source"]
    s.blocks.append(Table(head, body))
    s.blocks.append(Para("A ✓ after Δ means the run, rounded to 4 decimals, equals the published figure.", "note"))
    s.blocks += [Para(f"[{n}] {text}", "note") for text, n in sources.items()]
    return s


def _source_text(pub: dict) -> str:
    parts = [str(pub[k]) for k in ("title", "source") if pub.get(k)]
    return " — ".join(parts) or "source not given"


def _published_line(res: Results, dataset: str, setting: str, measures: list[str], pub: dict,
                    run_value: Callable[[str], float | None] | None = None, kind: str = "run",
                    pub_kind: str = "published") -> list[Cell]:
    run_value = run_value or (lambda m: res.metric(dataset, setting, m))
    line = [text_cell(dataset), setting_cell(res, None, setting)]
    for m in measures:
        ours, theirs = run_value(m), as_number(pub.get(m))
        line.append(num_cell(ours, kind, dataset=dataset, setting=setting, measure=m))
        line.append(num_cell(theirs, pub_kind, dataset=dataset, setting=setting, measure=m))
        diff = ours - theirs if ours is not None and theirs is not None else None
        cell = num_cell(diff, "published-diff", signed4, dataset=dataset, setting=setting, measure=m)
        if diff is not None and abs(round(ours, 4) - theirs) < 1e-9:
            cell.text += " ✓"
        line.append(cell)
    return line


def _cqa_published_lines(res: Results, measures: list[str]) -> list[tuple[list[Cell], dict]]:
    """cqadupstack as one line per setting: mean of forum runs against mean of forum published figures."""
    lines = []
    for s in res.settings if res.forums else []:
        pubs = [(res.row(f, s) or {}).get("published") for f in res.forums]
        if not all(isinstance(p, dict) for p in pubs):
            continue
        mean_pub = {}
        for m in measures:
            vals = [as_number(p.get(m)) for p in pubs]
            if None not in vals:
                mean_pub[m] = mean_of(vals)
        if mean_pub:
            mean_pub["source"] = f"mean of the {len(res.forums)} forums' published figures"
            lines.append((_published_line(res, CQA, s, measures, mean_pub,
                                          lambda m, s=s: res.column_value(CQA, s, m), kind="cqadupstack",
                                          pub_kind="published-mean"), mean_pub))
    return lines


def _comparator_section(res: Results) -> Section:
    s = Section("comparators", "Comparator engines at matched settings")
    groups: dict[tuple, list[dict]] = {}
    for r in res.rows():
        if r.get("layout") is not None:  # a row that does not say its layout matches nothing
            groups.setdefault(match_key(r), []).append(r)
    groups = {k: g for k, g in groups.items() if any(_engine(r) != "sounding" for r in g)}
    if not groups:
        s.blocks.append(Para("No comparator engine (bm25s, tantivy, PISA, Pyserini, ...) ran in this run.", "note"))
        return s
    s.blocks.append(Para(
        "Each Sounding row beside the other engines' rows with the same dataset, arm, layout, k1 and b; "
        "Δ = engine − Sounding (BEIR convention on both sides)."))
    engines = list(dict.fromkeys(_engine(r) for g in groups.values() for r in g if _engine(r) != "sounding"))
    for m in [m for m in (MAIN, "R@100") if m in res.measures()]:
        body = [line for key, g in groups.items() for line in _comparator_lines(res, key, g, engines, m)]
        head = ["dataset", "layout", "k1", "b", "Sounding setting", "Sounding"]
        head += [h for e in engines for h in (e, f"Δ {e}")]
        s.blocks.append(Table(head, body, m))
    return s


def _engine(row: dict) -> str:
    return str(row.get("engine") or row["setting"].split(".")[0])


def _comparator_lines(res: Results, key: tuple, group: list[dict], engines: list[str], m: str) -> list[list[Cell]]:
    dataset, _, layout, k1, b = key
    ours = [r for r in group if _engine(r) == "sounding"] or [None]
    lines = []
    for own in ours:
        own_value = res.metric(dataset, own["setting"], m) if own else None
        line = [text_cell(dataset), text_cell(layout), text_cell(k1), text_cell(b),
                setting_cell(res, dataset, own["setting"]) if own else text_cell(None),
                num_cell(own_value, "run", dataset=dataset, setting=own["setting"] if own else "", measure=m)]
        for e in engines:
            other = next((r for r in group if _engine(r) == e), None)
            v = res.metric(dataset, other["setting"], m) if other else None
            setting = other["setting"] if other else ""
            line.append(num_cell(v, "run", dataset=dataset, setting=setting, measure=m, title=setting))
            diff = v - own_value if v is not None and own_value is not None else None
            line.append(num_cell(diff, "comparator-diff", signed4, dataset=dataset, setting=setting, measure=m))
        lines.append(line)
    return lines


def _raw_section(res: Results) -> Section:
    s = Section("raw", "Raw vs BEIR-convention nDCG@10")
    s.blocks.append(Para(
        "Raw nDCG@10 keeps hits whose document id equals the query id; the BEIR convention (Pyserini "
        "--remove-query, BEIR ignore_identical_ids) drops them before scoring. The convention number is the "
        "one used everywhere else in this report and the one compared with published figures. ArguAna, "
        "whose queries are themselves corpus documents, moves by about 10 points."))
    body = []
    for r in res.rows():
        d, st = r["dataset"], r["setting"]
        raw, conv = res.metric(d, st, RAW), res.metric(d, st, MAIN)
        if raw is not None and conv is not None and abs(raw - conv) > 1e-12:
            body.append([text_cell(d), setting_cell(res, d, st),
                         num_cell(raw, "run", dataset=d, setting=st, measure=RAW),
                         num_cell(conv, "run", dataset=d, setting=st, measure=MAIN),
                         num_cell(conv - raw, "raw-diff", signed4, dataset=d, setting=st, measure=MAIN)])
    if body:
        head = ["dataset", "setting", "nDCG@10 raw", "nDCG@10 convention", "Δ convention − raw"]
        s.blocks.append(Table(head, body))
    else:
        s.blocks.append(Para("Raw and convention nDCG@10 are equal for every row of this run (no own hits in "
                             "the top 10, or raw numbers not recorded).", "note"))
    return s


def _distribution_section(res: Results, per_query: dict | None) -> Section:
    s = Section("distributions", "Per-query nDCG@10")
    s.blocks.append(Para(
        "Box plots of per-query nDCG@10 (BEIR convention) per setting: box = quartiles, line = median, "
        "whiskers = furthest query within 1.5 × IQR, dots = queries beyond, ◆ = mean. The right-hand "
        "figures give the number of queries and the share scoring 0."))
    if not per_query:
        s.blocks.append(Para("No per-query files found, so no distributions.", "note"))
        return s
    colors = colours(res.settings)
    for d in res.datasets:
        series = [(st, np.fromiter(per_query[(d, st)].values(), float), colors[st])
                  for st in res.settings if per_query.get((d, st))]
        if series:
            s.blocks.append(Chart(d, boxplot_svg(series)))
        for st, values, _ in series:  # the box plot's ◆ must be the table's number
            table_value = res.metric(d, st, MAIN)
            if table_value is not None and abs(values.mean() - table_value) > 5e-5:
                s.blocks.append(Para(f"{d} {st}: the per-query mean {values.mean():.4f} differs from "
                                     f"results.json's {table_value:.4f}; the per-query file is stale.", "fail"))
    return s


def _judged_section(res: Results) -> Section:
    s = Section("judged", "judged@10: pool bias")
    s.blocks.append(Para(
        "judged@10 is the share of a run's top 10 that the assessors judged at all; BEIR's judgements were "
        "pooled from other systems, so a setting with low judged@10 retrieves many never-judged documents, "
        "which count as non-relevant, and its nDCG@10 may understate it."))
    if "judged@10" not in res.measures():
        s.blocks.append(Para("judged@10 is not recorded in this run.", "note"))
        return s
    colors = colours(res.settings)
    for c in res.columns:
        bars = [(st, res.column_value(c, st, "judged@10"), colors[st]) for st in res.settings]
        if any(v is not None for _, v, _ in bars):
            caption = c + (" (mean of forum means)" if c == CQA else "")
            s.blocks.append(Chart(caption, bar_svg(bars)))
    return s


def _places(values: dict[str, float | None]) -> dict[str, int]:
    """Place of each setting by value, 1 = best; equal values share the better place; None gets no place."""
    present = [v for v in values.values() if v is not None]
    return {s: 1 + sum(1 for w in present if w > v) for s, v in values.items() if v is not None}


def _pool_reference(res: Results, dataset: str) -> str | None:
    """The BM25 row the other arms are measured against: Sounding's flat Anserini run, else the best BM25 run."""
    bm25 = [s for s in res.settings if res.row(dataset, s) and res.row(dataset, s).get("arm", "bm25") == "bm25"
            and res.metric(dataset, s, MAIN) is not None]
    if "sounding.bm25.flat.anserini" in bm25:
        return "sounding.bm25.flat.anserini"
    return max(bm25, key=lambda s: res.metric(dataset, s, MAIN), default=None)


def _most_unjudged(row: dict) -> str:
    pool = row.get("pool") if isinstance(row.get("pool"), dict) else {}
    worst = [w for w in pool.get("most_unjudged") or [] if isinstance(w, list) and len(w) == 2]
    return ", ".join(f"{q} ({n})" for q, n in worst) or MISSING


def _pool_bias_section(res: Results) -> Section:
    s = Section("pool-bias", "Pool bias: judged-only scores")
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


def _pool_bias_blocks(res: Results, d: str) -> list:
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


def _pool_gap_blocks(res: Results, d: str, settings: list[str]) -> list:
    ref = _pool_reference(res, d)
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


# -- significance ------------------------------------------------------------------------------------------
def _baseline(res: Results, dataset: str) -> tuple[str, str] | None:
    """(setting, why) of the dataset's reference: the run of the best published configuration, or, where no
    row carries a published figure, the run with the best nDCG@10 (labelled as such)."""
    rows = [(s, res.row(dataset, s)) for s in res.settings if res.row(dataset, s)]
    published = [(as_number(r["published"].get(MAIN)), s) for s, r in rows if isinstance(r.get("published"), dict)]
    published = [(v, s) for v, s in published if v is not None]
    if published:
        v, s = max(published, key=lambda x: x[0])  # max keeps the first of equals: Sounding before comparators
        pub = res.row(dataset, s)["published"]
        label = pub.get("title") or pub.get("source") or "published"
        return s, f"best published configuration ({MAIN} {v:.4f}, {label})"
    own = [(res.metric(dataset, s, MAIN), s) for s in res.settings if res.metric(dataset, s, MAIN) is not None]
    if not own:
        return None
    v, s = max(own, key=lambda x: x[0])
    return s, f"no published figure for this dataset: best run of this report ({MAIN} {v:.4f})"


def _significance_section(res: Results, per_query: dict | None) -> Section:
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


def _significance_blocks(res: Results, per_query: dict, dataset: str) -> list:
    from ..eval.significance import compare, holm  # scipy.stats is slow to import: only when needed

    base = _baseline(res, dataset)
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
            text_cell(f"[{c.ci_low:+.4f}, {c.ci_high:+.4f}]", numeric=True),
            text_cell(f"{c.wins}/{c.ties}/{c.losses}", numeric=True),
            num_cell(c.t_pvalue, "p-t", pvalue, **attrs), num_cell(t_holm, "p-t-holm", pvalue, **attrs),
            num_cell(c.rand_pvalue, "p-rand", pvalue, **attrs), num_cell(r_holm, "p-rand-holm", pvalue, **attrs),
            Cell(verdict, classes=(f"verdict-{verdict.replace('.', '')}",), strong=verdict != "n.s.")]


# -- the user's own systems ---------------------------------------------------------------------------------
def _user_rows(res: Results) -> list[dict]:
    return [r for r in res.rows() if r.get("arm") == "user"]


def _user_section(res: Results) -> Section:
    """Each user system (row arm "user": a retriever or a run file) beside the BM25 reference row, its
    published figure and the paired test of row["vs_bm25"]; then per dataset, the published figures of
    other systems beside this run's."""
    from ..eval.significance import holm

    s = Section("user", "Your systems against BM25")
    s.blocks.append(Para(
        f"Each system you brought (a retriever or a run file) beside Sounding's BM25 reference row (flat, "
        f"Anserini k1=0.9 b=0.4) and that row's published figure. Δ = system − BM25 on per-query {MAIN} "
        f"(BEIR convention); paired t-test and paired randomization test ({PERMUTATIONS:,} sign flips, "
        f"seeded), the randomization p Holm-corrected across the systems compared on a dataset; 95% bootstrap "
        f"interval; wins/ties/losses count queries. Verdict: Holm-corrected randomization p < {ALPHA}. "
        f"judged@10 beside it: a system that retrieves many never-judged documents may be understated."))
    body = []
    for d in res.datasets:
        rows = [r for r in _user_rows(res) if r["dataset"] == d]
        tests = [r.get("vs_bm25") if isinstance(r.get("vs_bm25"), dict) else None for r in rows]
        adjusted = iter(holm([t["rand_pvalue"] for t in tests if t]) if any(tests) else [])
        for r, t in zip(rows, tests):
            body.append(_user_line(res, r, t, next(adjusted) if t else None))
    head = ["dataset", "system", "source", MAIN, f"BM25 {MAIN}", "BM25 published", f"Δ {MAIN}", "95% CI",
            "wins/ties/losses", "p t-test", "p randomization", "p rand. (Holm)", "verdict", "judged@10",
            "BM25 judged@10"]
    s.blocks.append(Table(head, body))
    for d in res.datasets:
        s.blocks.extend(_user_published_table(res, d))
    return s


def _user_line(res: Results, r: dict, t: dict | None, p_holm: float | None) -> list[Cell]:
    d, st = r["dataset"], r["setting"]
    ref = t["reference"] if t else "sounding.bm25.flat.anserini"
    ref_row = res.row(d, ref) or {}
    attrs = dict(dataset=d, setting=st, measure=MAIN)
    line = [text_cell(d), setting_cell(res, d, st), text_cell(f"{r.get('kind', '?')}: {r.get('source') or '?'}"),
            num_cell(res.metric(d, st, MAIN), "user-run", **attrs),
            num_cell(res.metric(d, ref, MAIN), "user-reference", dataset=d, setting=ref, measure=MAIN),
            num_cell(as_number((ref_row.get("published") or {}).get(MAIN)), "user-published", dataset=d,
                     setting=ref, measure=MAIN)]
    if t is None:
        line += [text_cell("no BM25 reference row to test against")] + [text_cell(None)] * 6
    else:
        verdict = ("better" if t["diff"] > 0 else "worse") if p_holm < ALPHA else "n.s."
        line += [num_cell(t["diff"], "user-diff", signed4, **attrs),
                 text_cell(f"[{t['ci_low']:+.4f}, {t['ci_high']:+.4f}]", numeric=True),
                 text_cell(f"{t['wins']}/{t['ties']}/{t['losses']}", numeric=True),
                 num_cell(t["t_pvalue"], "user-p-t", pvalue, **attrs),
                 num_cell(t["rand_pvalue"], "user-p-rand", pvalue, **attrs),
                 num_cell(p_holm, "user-p-rand-holm", pvalue, **attrs),
                 Cell(verdict, classes=(f"verdict-{verdict.replace('.', '')}",), strong=verdict != "n.s.")]
    line += [num_cell(res.metric(d, st, "judged@10"), "user-run", dataset=d, setting=st, measure="judged@10"),
             num_cell(res.metric(d, ref, "judged@10"), "user-reference", dataset=d, setting=ref,
                      measure="judged@10")]
    return line


def _user_published_table(res: Results, dataset: str) -> list:
    """This run's rows of `dataset` and the published figures of other systems on it, best first."""
    rows = [r for r in _user_rows(res) if r["dataset"] == dataset]
    published = next((r.get("published_beside") for r in rows if isinstance(r.get("published_beside"), list)), [])
    entries = [(res.metric(dataset, st, MAIN), st, "this run", st) for st in res.settings
               if res.metric(dataset, st, MAIN) is not None]
    entries += [(as_number(p.get(MAIN)), str(p.get("title") or p.get("condition")), "published",
                 str(p.get("condition") or "")) for p in published if isinstance(p, dict)]
    entries = sorted((e for e in entries if e[0] is not None), key=lambda e: -e[0])
    if not published:
        return [Para(f"{dataset}: no published figures of other systems on this dataset.", "note")]
    body = [[text_cell(name), text_cell(kind),
             num_cell(v, "user-leaderboard", dataset=dataset, setting=key, measure=MAIN)]
            for v, name, kind, key in entries]
    return [Table(["system", "", MAIN], body, f"{dataset} — this run beside published {MAIN} figures")]


# -- operational -------------------------------------------------------------------------------------------
def _operational_section(res: Results) -> Section:
    s = Section("operational", "Operational figures")
    s.blocks.append(Para(
        "Index time and size per dataset (one index serves every parameter setting of a layout family; "
        "comparators' own indexes are not measured here), search time for all queries and queries per "
        "second. Timings depend on the machine named at the top."))
    body = []
    for r in res.rows():
        d, st = r["dataset"], r["setting"]
        attrs = dict(dataset=d, setting=st)
        body.append([text_cell(d), setting_cell(res, d, st), text_cell(_engine(r)),
                     text_cell(r.get("n_queries"), numeric=True),
                     num_cell(as_number(r.get("index_seconds")), "op", seconds, measure="index_seconds", **attrs),
                     num_cell(as_number(r.get("index_bytes")), "op", megabytes, measure="index_bytes", **attrs),
                     num_cell(as_number(r.get("search_seconds")), "op", seconds, measure="search_seconds", **attrs),
                     num_cell(as_number(r.get("qps")), "op", per_second, measure="qps", **attrs)])
    s.blocks.append(Table(["dataset", "setting", "engine", "queries", "index time", "index size", "search time",
                           "queries/s"], body))
    models = [r for r in res.rows() if isinstance(r.get("model"), dict)]
    for r in models:
        m = r["model"]
        where = f" (on {m['device']}{', ' + m['precision'] if m.get('precision') else ''})" if m.get("device") else ""
        s.blocks.append(Para(f"model of {r['dataset']} {r['setting']}: {m.get('name', '?')}{where} — "
                             f"{m.get('provenance') or 'no provenance recorded'}", "note"))
    if not models:
        s.blocks.append(Para("No row uses a model (all arms lexical).", "note"))
    return s
