"""The report as neutral blocks, rendered to Markdown by sounding.report.markdown and to HTML by
sounding.report.html: sections of paragraphs, tables of cells and charts; and how numbers become cell text.

A numeric cell shows its value formatted (4 decimals, a sign for differences, human units for timings) and
keeps the exact float for the HTML page's data-value attribute.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from markupsafe import Markup

from .result_table import ResultTable

MISSING = "—"


@dataclass
class Cell:
    """A table cell: its text, and for the HTML page the data-* attributes, classes and tooltip."""

    text: str
    data: dict[str, str] = field(default_factory=dict)  # data-* attributes (HTML only)
    classes: tuple[str, ...] = ()
    title: str = ""  # tooltip (HTML only)
    strong: bool = False  # bold in Markdown (a best value, a verdict); on the page its class styles it
    mark: str = ""  # "pass", "fail" or "neutral": a verdict, shown with its symbol and colour (MARKS)


MARKS = {"pass": "✓", "fail": "✗", "neutral": "○"}  # a verdict cell's symbol, before its text
FOLD_ROWS = 12  # a table longer than this is folded on the page (<details>), unless it says otherwise


@dataclass
class Table:
    """A table of cells under a header row; an all-empty header (a key/value table) is not drawn."""

    head: list[str]
    body: list[list[Cell]]
    caption: str = ""
    fold: bool | None = None  # folded on the page (<details>, its caption the summary); None: when long

    @property
    def folded(self) -> bool:
        return self.fold if self.fold is not None else len(self.body) > FOLD_ROWS

    def numeric(self, i: int) -> bool:
        """Whether column i after the first holds numbers or counts (right-aligned in both renderings)."""
        return i > 0 and any({"num", "count"} & set(row[i].classes) for row in self.body if i < len(row))


@dataclass
class Para:
    """A paragraph of plain text."""

    text: str
    kind: str = ""  # "note", "pass", "fail": styling only


@dataclass
class Chart:
    """A chart drawn by sounding.report.charts: SVG markup whose text parts are escaped already."""

    caption: str
    svg: Markup  # HTML only; Markdown says where to look


@dataclass
class Explorer:
    """The run explorer (sounding.report.explorer): its data for the page's script; Markdown points to the page."""

    data: str  # base64 of gzip-compressed JSON


@dataclass
class Section:
    """A titled part of the report: paragraphs, tables and charts in reading order."""

    id: str
    title: str
    blocks: list = field(default_factory=list)


# -- numbers as text ----------------------------------------------------------------------------------------
def f4(v: float) -> str:
    return f"{v:.4f}"


def signed4(v: float) -> str:
    return f"{v:+.4f}"


def delta4(v: float) -> str:
    """A difference to 4 decimals with its sign; one that rounds to zero is "0.0000", unsigned."""
    text = f"{v:+.4f}"
    return "0.0000" if text in ("+0.0000", "-0.0000") else text


def pvalue(p: float) -> str:
    return "<0.0001" if p < 0.0001 else f"{p:.4f}"


def seconds(v: float) -> str:
    return f"{v:.2f} s"


def megabytes(v: float) -> str:
    return f"{v / 1e6:.1f} MB"


def per_second(v: float) -> str:
    return f"{v:,.0f}"


# -- cells ---------------------------------------------------------------------------------------------------
def text_cell(text, title: str = "", numeric: bool = False, nowrap: bool = False) -> Cell:
    """A cell without a data-value (labels, counts, intervals); numeric ones are right-aligned."""
    classes = (("count",) if numeric else ()) + (("nowrap",) if nowrap else ())
    return Cell(MISSING if text is None or text == "" else str(text), classes=classes, title=title)


def num_cell(value: float | None, kind: str, fmt: Callable[[float], str] = f4, *, best: bool = False,
             title: str = "", **data: str) -> Cell:
    """A numeric cell: visible text fmt(value), the exact float in data-value; a dash when missing."""
    attrs = {"kind": kind, **{k.replace("_", "-"): str(v) for k, v in data.items()}}
    if value is None:
        return Cell(MISSING, {**attrs, "missing": "1"}, ("num", "missing"), title)
    return Cell(fmt(value), {**attrs, "value": repr(float(value))}, ("num", "best") if best else ("num",), title,
                strong=best)


def setting_cell(res: ResultTable, dataset: str | None, setting: str) -> Cell:
    """A setting's name; its tooltip gives the row's engine, arm, layout, parameters and norms."""
    row = res.row(dataset, setting) if dataset else next(r for (d, s), r in res.cell.items() if s == setting)
    parts = [f"{k}={row.get(k)}" for k in ("engine", "arm", "layout", "params", "k1", "b", "lucene_norms") if k in row]
    return Cell(setting, classes=("setting",), title=", ".join(parts))
