"""The "Raw vs BEIR-convention nDCG@10" section."""
from __future__ import annotations

from ..blocks import Para, Section, Table, num_cell, setting_cell, signed4, text_cell
from ..result_table import MAIN, ResultTable
from .common import RAW


def section(res: ResultTable) -> Section:
    s = Section("raw", "Raw vs BEIR-convention nDCG@10")
    s.blocks.append(Para(
        "Raw nDCG@10 keeps hits whose document id equals the query id; the BEIR convention (Pyserini "
        "--remove-query, BEIR ignore_identical_ids) drops them before scoring. The convention number is the "
        "one used everywhere else in this report and the one compared with published figures. ArguAna, "
        "whose queries are themselves corpus documents, moves by about 10 points."))
    body = []
    for r in res.rows():
        d, st = r["dataset"], r["setting"]
        raw, conv = res.metric(d, st, RAW), res.metric(d, st, MAIN)
        if raw is not None and conv is not None and abs(raw - conv) > 1e-12:
            body.append([text_cell(d), setting_cell(res, d, st),
                         num_cell(raw, "run", dataset=d, setting=st, measure=RAW),
                         num_cell(conv, "run", dataset=d, setting=st, measure=MAIN),
                         num_cell(conv - raw, "raw-diff", signed4, dataset=d, setting=st, measure=MAIN)])
    if body:
        head = ["dataset", "setting", "nDCG@10 raw", "nDCG@10 convention", "Δ convention − raw"]
        s.blocks.append(Table(head, body))
    else:
        s.blocks.append(Para("Raw and convention nDCG@10 are equal for every row of this run (no own hits in "
                             "the top 10, or raw numbers not recorded).", "note"))
    return s
