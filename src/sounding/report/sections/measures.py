"""The "Settings × datasets" section: one table per quality measure, settings by datasets, with the mean."""
from __future__ import annotations

from ..blocks import Para, Section, Table, num_cell, setting_cell
from ..result_table import CQA, CQA_PREFIX, MAIN, ResultTable
from .common import DIAGNOSTICS, best


def section(res: ResultTable) -> Section:
    s = Section("main", "Settings × datasets")
    s.blocks.append(Para(
        "One table per quality measure; rows are settings, columns datasets. All figures use the BEIR "
        "convention (a hit whose document id equals the query id is dropped before scoring). The best value "
        "of each dataset is bold. judged@10, nDCG'@10 and bpref measure the judgements' coverage, not "
        "quality: they are in the Pool bias section. The last column is the plain mean over the datasets named in its header; a "
        "setting that misses any of them gets a dash there rather than a mean over fewer datasets."))
    if res.forums:
        s.blocks.append(Para(
            f"cqadupstack is the mean of its {len(res.forums)} sub-forum means "
            f"({', '.join(f.removeprefix(CQA_PREFIX) for f in res.forums)}), as in the BEIR paper, and counts "
            f"as one dataset in the mean; the forums are listed one by one after the main tables.", "note"))
    for m in res.measures():
        if m not in DIAGNOSTICS:
            s.blocks.append(measure_table(res, m))
    if res.forums:
        s.blocks.append(_forum_table(res))
    return s


def measure_table(res: ResultTable, measure: str, caption: str = "") -> Table:
    """Settings × datasets of one measure, with the mean; a quality measure's best value per dataset marked."""
    top = {c: best(res.column_value(c, s, measure) for s in res.settings) for c in res.columns}
    highlight = measure not in DIAGNOSTICS
    with_mean = len(res.columns) > 1
    body = []
    for s in res.settings:
        line = [setting_cell(res, None, s)]
        for c in res.columns:
            v = res.column_value(c, s, measure)
            kind, extra = ("cqadupstack", {"forums": ",".join(res.forums)}) if c == CQA else ("run", {})
            line.append(num_cell(v, kind, best=highlight and v is not None and v == top[c],
                                 dataset=c, setting=s, measure=measure, **extra))
        if with_mean:
            line.append(num_cell(res.mean(s, measure), "mean", dataset="mean", setting=s, measure=measure,
                                 datasets=",".join(res.columns)))
        body.append(line)
    head = ["setting", *res.columns] + ([res.mean_header()] if with_mean else [])
    return Table(head, body, caption or measure)


def _forum_table(res: ResultTable) -> Table:
    body = []
    for s in res.settings:
        line = [setting_cell(res, None, s)]
        line += [num_cell(res.metric(f, s, MAIN), "run", dataset=f, setting=s, measure=MAIN) for f in res.forums]
        line.append(num_cell(res.column_value(CQA, s, MAIN), "cqadupstack", dataset=CQA, setting=s,
                             measure=MAIN, forums=",".join(res.forums)))
        body.append(line)
    head = ["setting", *(f.removeprefix(CQA_PREFIX) for f in res.forums), "cqadupstack (mean of forum means)"]
    return Table(head, body, f"CQADupStack sub-forums, {MAIN}")
