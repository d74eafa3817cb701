"""The "Operational figures" section: index and search times, sizes, models."""
from __future__ import annotations

from ..blocks import Para, Section, Table, megabytes, num_cell, per_second, seconds, setting_cell, text_cell
from ..result_table import ResultTable, as_number
from .common import engine_of


def section(res: ResultTable) -> Section:
    s = Section("operational", "Operational figures")
    s.blocks.append(Para(
        "Index time and size per dataset (one index serves every parameter setting of a layout family; "
        "comparators' own indexes are not measured here), search time for all queries and queries per "
        "second, and apart from them the set-up: building the setting's norms and impacts and compiling its "
        "kernels (numba; on a first run only, later runs load them from its cache), timed by a warm-up search "
        "of one query. Timings depend on the machine named at the top."))
    body = []
    for r in res.rows():
        d, st = r["dataset"], r["setting"]
        attrs = dict(dataset=d, setting=st)
        body.append([text_cell(d), setting_cell(res, d, st), text_cell(engine_of(r)),
                     text_cell(r.get("n_queries"), numeric=True),
                     num_cell(as_number(r.get("index_seconds")), "op", seconds, measure="index_seconds", **attrs),
                     num_cell(as_number(r.get("index_bytes")), "op", megabytes, measure="index_bytes", **attrs),
                     num_cell(as_number(r.get("search_seconds")), "op", seconds, measure="search_seconds", **attrs),
                     num_cell(as_number(r.get("qps")), "op", per_second, measure="qps", **attrs),
                     num_cell(as_number(r.get("setup_seconds")), "op", seconds, measure="setup_seconds", **attrs)])
    s.blocks.append(Table(["dataset", "setting", "engine", "queries", "index time", "index size", "search time",
                           "queries/s", "set-up (apart)"], body))
    models = [r for r in res.rows() if isinstance(r.get("model"), dict)]
    for r in models:
        m = r["model"]
        where = f" (on {m['device']}{', ' + m['precision'] if m.get('precision') else ''})" if m.get("device") else ""
        s.blocks.append(Para(f"model of {r['dataset']} {r['setting']}: {m.get('name', '?')}{where} — "
                             f"{m.get('provenance') or 'no provenance recorded'}", "note"))
    if not models:
        s.blocks.append(Para("No row uses a model (all arms lexical).", "note"))
    return s
