"""The "Against published figures" section: every row that has a published figure, beside it."""
from __future__ import annotations

from typing import Callable

from ..blocks import Cell, Para, Section, Table, num_cell, setting_cell, signed4, text_cell
from ..result_table import CQA, MEASURE_ORDER, ResultTable, as_number, mean_of
from .common import published_measures


def section(res: ResultTable) -> Section:
    s = Section("published", "Against published figures")
    s.blocks.append(Para(
        "Each run beside the published figure for the same configuration (row['published'], with its source) "
        "and the difference run − published. The run side is the BEIR-convention number (own hits dropped), "
        "which is what published BEIR baselines report; raw numbers are in the next-but-one section."))
    rows = [r for r in res.rows() if published_measures(r)]
    if not rows:
        s.blocks.append(Para("No row of this run carries a published figure.", "note"))
        return s
    measures = [m for m in MEASURE_ORDER if any(m in published_measures(r) for r in rows)]
    measures += sorted({m for r in rows for m in published_measures(r)} - set(measures))
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


def _published_line(res: ResultTable, dataset: str, setting: str, measures: list[str], pub: dict,
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


def _cqa_published_lines(res: ResultTable, measures: list[str]) -> list[tuple[list[Cell], dict]]:
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
