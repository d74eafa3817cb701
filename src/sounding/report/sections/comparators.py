"""The "Comparator engines at matched settings" section."""
from __future__ import annotations

from ...results import match_key
from ..blocks import Cell, Para, Section, Table, num_cell, setting_cell, signed4, text_cell
from ..result_table import MAIN, ResultTable
from .common import engine_of


def section(res: ResultTable) -> Section:
    s = Section("comparators", "Comparator engines at matched settings")
    groups: dict[tuple, list[dict]] = {}
    for r in res.rows():
        if r.get("layout") is not None:  # a row that does not say its layout matches nothing
            groups.setdefault(match_key(r), []).append(r)
    groups = {k: g for k, g in groups.items() if any(engine_of(r) != "sounding" for r in g)}
    if not groups:
        s.blocks.append(Para("No comparator engine (bm25s, tantivy, PISA, Pyserini, ...) ran in this run.", "note"))
        return s
    s.blocks.append(Para(
        "Each Sounding row beside the other engines' rows with the same dataset, arm, layout, k1 and b; "
        "Δ = engine − Sounding (BEIR convention on both sides)."))
    engines = list(dict.fromkeys(engine_of(r) for g in groups.values() for r in g if engine_of(r) != "sounding"))
    for m in [m for m in (MAIN, "R@100") if m in res.measures()]:
        body = [line for key, g in groups.items() for line in _comparator_lines(res, key, g, engines, m)]
        head = ["dataset", "layout", "k1", "b", "Sounding setting", "Sounding"]
        head += [h for e in engines for h in (e, f"Δ {e}")]
        s.blocks.append(Table(head, body, m))
    return s


def _comparator_lines(res: ResultTable, key: tuple, group: list[dict], engines: list[str], m: str) -> list[list[Cell]]:
    dataset, _, layout, k1, b = key
    ours = [r for r in group if engine_of(r) == "sounding"] or [None]
    lines = []
    for own in ours:
        own_value = res.metric(dataset, own["setting"], m) if own else None
        line = [text_cell(dataset), text_cell(layout), text_cell(k1), text_cell(b),
                setting_cell(res, dataset, own["setting"]) if own else text_cell(None),
                num_cell(own_value, "run", dataset=dataset, setting=own["setting"] if own else "", measure=m)]
        for e in engines:
            other = next((r for r in group if engine_of(r) == e), None)
            v = res.metric(dataset, other["setting"], m) if other else None
            setting = other["setting"] if other else ""
            line.append(num_cell(v, "run", dataset=dataset, setting=setting, measure=m, title=setting))
            diff = v - own_value if v is not None and own_value is not None else None
            line.append(num_cell(diff, "comparator-diff", signed4, dataset=dataset, setting=setting, measure=m))
        lines.append(line)
    return lines
