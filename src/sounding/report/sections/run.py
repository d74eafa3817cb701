"""The "Run" section: what ran where, the gate verdict, the pytrec_eval cross-check, and the inputs to doubt."""
from __future__ import annotations

from ..blocks import Cell, Para, Section, Table, setting_cell, text_cell
from ..result_table import ResultTable


def section(res: ResultTable, meta: dict) -> Section:
    s = Section("summary", "Run")
    machine = meta.get("machine") or {}
    facts = [("Sounding", meta.get("sounding_version")), ("created", meta.get("created")),
             ("command", meta.get("command")),
             ("machine", ", ".join(f"{k} {v}" for k, v in machine.items() if v is not None) or None),
             ("datasets", ", ".join(meta.get("datasets") or res.datasets)),
             ("settings", str(len(res.settings)))]
    s.blocks.append(Table(["", ""], [[Cell(k, classes=("setting",)), text_cell(v)] for k, v in facts]))
    for f in (meta.get("gate") or {}).get("failures") or []:  # the verdict says whether the gate passed
        s.blocks.append(Para(f"gate failure: {f}", "fail"))
    s.blocks.extend(_crosscheck_paras(res))
    s.blocks.extend(input_warnings(res))
    s.blocks.extend(_reused_blocks(res))
    s.blocks.extend(Para(n, "note") for n in res.notes)
    return s


def input_warnings(res: ResultTable) -> list[Para]:
    """Data the registry does not vouch for, and queries that got no hits: each distinct warning once per
    dataset, naming the settings it applies to (the terminal prints the same list)."""
    out = [Para(f"{d}: UNVERIFIED data — the dataset's counts differ from the registry's (run with "
                f"--unverified-data), so none of its figures is comparable with the published ones.", "fail")
           for d in res.datasets if any(r.get("unverified_data") for (rd, _), r in res.cell.items() if rd == d)]
    for d in res.datasets:
        settings = [st for st in res.settings if res.row(d, st)]
        by_count: dict[tuple, list[str]] = {}
        for st in settings:
            row = res.row(d, st)
            if row.get("queries_without_hits"):
                by_count.setdefault((row["queries_without_hits"], row.get("n_queries")), []).append(st)
        for (n, of), names in by_count.items():
            others = [st for st in settings if st not in names]
            where = (f"in all {len(settings)} settings" if not others and len(names) > 1
                     else f"in {', '.join(names)}" if len(names) <= 3
                     else f"in {len(names)} of {len(settings)} settings (all but {', '.join(others)})"
                     if len(others) <= 3 else f"in {len(names)} of {len(settings)} settings ({', '.join(names)})")
            of = f"{of:,}" if isinstance(of, int) else "?"
            out.append(Para(f"{d}: {n:,} of {of} queries got no hits {where} (for BM25: no query term is in "
                            f"the index); they score 0.", "note"))
    return out


def _reused_blocks(res: ResultTable) -> list:
    """The rows this run took from earlier runs into the same folder (row `reused`), each with the date it was
    computed (row `computed`, ISO 8601): their timings are those of that run."""
    reused = [r for r in res.rows() if r.get("reused")]
    if not reused:
        return []
    body = [[text_cell(r["dataset"]), setting_cell(res, r["dataset"], r["setting"]), text_cell(r.get("computed"))]
            for r in reused]
    return [Para(f"{len(reused)} of {len(res.cell)} rows were reused from earlier runs into this folder: everything "
                 f"that made them was the same. Their timings are those of the run that computed them.", "note"),
            Table(["dataset", "setting", "computed"], body, "Rows reused, with the date each was computed")]


def _crosscheck_paras(res: ResultTable) -> list[Para]:
    checked = [r for r in res.rows() if isinstance(r.get("crosscheck"), dict)]
    if not checked:
        return [Para("pytrec_eval cross-check: not recorded in these rows.", "note")]
    bad = [r for r in checked if not r["crosscheck"].get("ok")]
    out = [Para(f"pytrec_eval cross-check: {len(checked) - len(bad)} of {len(checked)} runs agree "
                f"(query means within 5e-5).", "fail" if bad else "pass")]
    for r in bad:
        out.append(Para(f"cross-check failed: {r['dataset']} {r['setting']} "
                        f"(max difference {r['crosscheck'].get('max_diff')})", "fail"))
    return out
