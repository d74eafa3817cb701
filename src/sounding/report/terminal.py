"""Report blocks rendered for a terminal (rich): the verdict `sounding run` prints last, and its warnings.

Tables become rich tables (numeric columns right-aligned), verdict cells get their symbol and colour,
paragraphs a colour by kind. Text from the rows goes in as rich `Text` (never parsed as markup), with
control characters shown as escapes (sounding.escape.terminal).
"""
from __future__ import annotations

from rich.table import Table as RichTable
from rich.text import Text

from ..escape import terminal
from .blocks import MARKS, Cell, Para, Section, Table

STYLES = {"pass": "green", "fail": "red", "neutral": "dim", "note": "yellow"}


def render_terminal(section: Section) -> list:
    """A section's paragraphs and tables as rich renderables, in order (charts are left to the page)."""
    out: list = []
    for b in section.blocks:
        if isinstance(b, Para):
            out.append(Text(terminal(b.text), style=STYLES.get(b.kind, "")))
        elif isinstance(b, Table):
            out.append(_table(b))
    return out


def warning_lines(paras: list[Para]) -> list[Text]:
    """Warnings as `warning: ...` lines (one per distinct warning and dataset)."""
    return [Text.assemble(("warning: ", "yellow"), terminal(p.text)) for p in paras]


def _table(t: Table) -> RichTable:
    table = RichTable(title=terminal(t.caption) if t.caption else None, title_justify="left",
                      title_style="bold", show_header=any(t.head))
    for i, h in enumerate(t.head):
        table.add_column(terminal(h), justify="right" if t.numeric(i) else "left")
    for row in t.body:
        table.add_row(*(_cell(c) for c in row))
    return table


def _cell(c: Cell) -> Text:
    if c.mark:
        return Text(f"{MARKS[c.mark]} {terminal(c.text)}", style=f"bold {STYLES[c.mark]}")
    style = STYLES.get(next((k for k in ("pass", "fail") if k in c.classes), ""), "")
    return Text(terminal(c.text), style=style)
