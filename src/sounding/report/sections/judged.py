"""The "judged@10" charts."""
from __future__ import annotations

from ..blocks import Chart, Para, Section
from ..charts import bar_svg, colours
from ..results import CQA, ResultTable


def section(res: ResultTable) -> Section:
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
