"""Run reports: one Markdown file and one self-contained HTML page from the files `sounding run` wrote.

    from sounding.report import write_reports
    md_path, html_path = write_reports(Path("sounding-out"))     # OUT/report.md, OUT/report.html

Everything here is a pure function of OUT/results.json, OUT/run.json, OUT/per_query/... and OUT/explorer/...,
so a report can be regenerated (or restyled) without re-running anything. The flow, one module per step:

- `results`: read the output folder (`load_out`) and index its rows (`ResultTable`);
- `sections`: a package, one module per report section; build the report once as neutral blocks (`blocks`: paragraphs, tables of cells, charts drawn
  as SVG by `charts`);
- `markdown` and `html`: render those blocks to Markdown (charts left out) and to HTML through the Jinja
  template templates/report.html.j2; `terminal` renders the verdict for `sounding run` to print last.

Every numeric table cell of the page carries data-* attributes (`data-kind`, `data-dataset`, `data-setting`,
`data-measure`, `data-value` = the full float) so tests and tools can read the numbers back; docs/report.md
describes them.
"""
from __future__ import annotations

from pathlib import Path

from .html import render_html
from .markdown import render_markdown
from .result_table import ResultTable, load_out
from .sections import build_sections


def markdown_report(rows: list[dict], meta: dict, per_query: dict | None = None) -> str:
    """The report as Markdown (for the terminal and report.md); significance needs `per_query`."""
    return render_markdown(build_sections(rows, meta, per_query))


def html_report(rows: list[dict], meta: dict, per_query: dict | None = None) -> str:
    """The report as one self-contained HTML page."""
    return render_html(build_sections(rows, meta, per_query), meta or {})


def terminal_verdict(out_dir: Path) -> tuple[list, list]:
    """(the verdict as rich renderables, the warnings as lines) of an output folder, for `sounding run` to print
    last: the same blocks as the reports' first section and the warnings of their Run section."""
    from .sections import run, verdict
    from .terminal import render_terminal, warning_lines

    rows, meta, per_query = load_out(Path(out_dir))
    res = ResultTable(rows)
    return render_terminal(verdict.section(res, meta, per_query)), warning_lines(run.input_warnings(res))


def write_reports(out_dir: Path) -> tuple[Path, Path]:
    """Read OUT/results.json, OUT/run.json and the per-query files; write OUT/report.md and OUT/report.html."""
    out_dir = Path(out_dir)
    rows, meta, per_query = load_out(out_dir)
    sections = build_sections(rows, meta, per_query, out_dir)  # built once: significance tests are the slow part
    md, page = out_dir / "report.md", out_dir / "report.html"
    md.write_text(render_markdown(sections), encoding="utf-8")
    page.write_text(render_html(sections, meta), encoding="utf-8")
    return md, page


__all__ = ["ResultTable", "build_sections", "html_report", "load_out", "markdown_report", "terminal_verdict",
           "write_reports"]
