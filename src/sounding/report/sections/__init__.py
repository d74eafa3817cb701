"""What the report says: the sections in reading order, each built from the indexed results as neutral
blocks (sounding.report.blocks), the same for the Markdown file and the HTML page.

One module per section, each with a `section(...)` function; `build_sections` is the lineup. To add a
section, write its module here and name it in `build_sections`.
"""
from __future__ import annotations

from pathlib import Path

from ..blocks import Section
from ..result_table import ResultTable
from . import (comparators, distributions, explorer, measures, operational, pool_bias, published, raw, run,
               significance, user, verdict)
from .common import user_rows


def build_sections(rows: list[dict], meta: dict, per_query: dict | None = None,
                   out_dir: Path | None = None) -> list[Section]:
    """The report's sections from results.json rows, run.json and per-query nDCG@10 keyed by (dataset,
    setting); without per-query values the distributions and significance sections say so. The run
    explorer reads its rankings and texts from the output folder `out_dir`."""
    res = ResultTable(rows)
    return [
        verdict.section(res, meta or {}, per_query),
        run.section(res, meta or {}),
        measures.section(res),
        *([user.section(res)] if user_rows(res) else []),
        explorer.section(res, per_query, out_dir),
        published.section(res),
        comparators.section(res),
        raw.section(res),
        distributions.section(res, per_query),
        pool_bias.section(res),
        significance.section(res, per_query),
        operational.section(res),
    ]


__all__ = ["build_sections"]
