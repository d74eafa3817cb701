"""The "Per-query nDCG@10" section: box plots per dataset."""
from __future__ import annotations

import numpy as np

from ..blocks import Chart, Para, Section
from ..charts import boxplot_svg, colours
from ..result_table import MAIN, ResultTable


def section(res: ResultTable, per_query: dict | None) -> Section:
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
