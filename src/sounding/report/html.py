"""The report's blocks rendered as one self-contained HTML page from the package's Jinja template,
templates/report.html.j2: inline CSS, charts as inline SVG, the run explorer's script inline
(templates/explorer.js), nothing fetched.

Autoescaping is on, so every text that comes from the rows is escaped by the template; the only markup
inserted as it is are the charts, whose text parts sounding.report.charts escaped when it drew them, and the
explorer's data, base64 (its script sets every text it holds as text).
"""
from __future__ import annotations

from functools import cache
from itertools import groupby
from typing import Iterable, Iterator

from jinja2 import Environment, PackageLoader, StrictUndefined

from .blocks import MARKS, Chart, Explorer, Para, Section, Table

TEMPLATE = "report.html.j2"


def render_html(sections: list[Section], meta: dict, *, title: str | None = None,
                heading: str = "Sounding run report") -> str:
    """The page; its title names the run's datasets (from run.json) unless given."""
    title = title or f"Sounding report — {', '.join(meta.get('datasets') or [])}".rstrip(" —,")
    return _environment().get_template(TEMPLATE).render(title=title, heading=heading, sections=sections)


@cache
def _environment() -> Environment:
    env = Environment(loader=PackageLoader(__package__), autoescape=True, undefined=StrictUndefined,
                      trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    env.filters["runs"] = _runs
    env.globals["marks"] = MARKS
    env.tests.update(para=lambda b: isinstance(b, Para), table=lambda b: isinstance(b, Table),
                     explorer=lambda b: isinstance(b, Explorer))
    return env


def _runs(blocks: Iterable) -> Iterator[tuple[bool, list]]:
    """(True, charts) for each run of consecutive charts, which share one flowing row on the page, and
    (False, blocks) for the paragraphs and tables between them."""
    for charts, run in groupby(blocks, key=lambda b: isinstance(b, Chart)):
        yield charts, list(run)
