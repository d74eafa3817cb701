"""The report's blocks rendered as Markdown (report.md and the terminal); charts are left to the HTML page.

Every heading, caption, table cell and paragraph is text (dataset folder names, query ids and system names
among it), escaped with `sounding.escape.markdown`: a renderer shows it as the same characters, never as
HTML or Markdown structure."""
from __future__ import annotations

from ..escape import markdown as esc
from .blocks import Cell, Chart, Explorer, Para, Section, Table

MARK_EMOJI = {"pass": "✅", "fail": "❌", "neutral": "⚪"}  # coloured where Markdown is rendered, plain in text


def render_markdown(sections: list[Section]) -> str:
    """The report as Markdown: notes and failures as quotes, tables as pipe tables (numeric columns
    right-aligned, a column's best value bold), and for each section with charts a pointer to the page."""
    out = ["# Sounding run report", ""]
    for s in sections:
        out += [f"## {esc(s.title)}", ""]
        charts = 0
        for b in s.blocks:
            if isinstance(b, Para):
                out += [f"> {esc(b.text)}" if b.kind in ("note", "fail") else esc(b.text), ""]
            elif isinstance(b, Table):
                out += _markdown_table(b) + [""]
            elif isinstance(b, Chart):
                charts += 1
            elif isinstance(b, Explorer):
                out += ["(the explorer is interactive: see report.html)", ""]
        if charts:
            out += [f"({charts} chart{'s' if charts > 1 else ''}: see report.html)", ""]
    return "\n".join(out).rstrip() + "\n"


def _markdown_table(t: Table) -> list[str]:
    def cell(c: Cell) -> str:
        text = f"{MARK_EMOJI[c.mark]} {c.text}" if c.mark else c.text
        return f"**{esc(text)}**" if c.strong else esc(text)

    lines = [f"**{esc(t.caption)}**", ""] if t.caption else []
    lines.append("| " + " | ".join(esc(h) for h in t.head) + " |")
    lines.append("|" + "|".join("---:" if t.numeric(i) else "---" for i in range(len(t.head))) + "|")
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in t.body]
    return lines
