"""The "Run" section: what ran where, the gate verdict, the pytrec_eval cross-check, and the inputs to doubt."""
from __future__ import annotations

from ..blocks import Cell, Para, Section, Table, text_cell
from ..results import ResultTable


def section(res: ResultTable, meta: dict) -> Section:
    s = Section("summary", "Run")
    machine = meta.get("machine") or {}
    facts = [("Sounding", meta.get("sounding_version")), ("created", meta.get("created")),
             ("command", meta.get("command")),
             ("machine", ", ".join(f"{k} {v}" for k, v in machine.items() if v is not None) or None),
             ("datasets", ", ".join(meta.get("datasets") or res.datasets)),
             ("settings", str(len(res.settings)))]
    s.blocks.append(Table(["", ""], [[Cell(k, classes=("setting",)), text_cell(v)] for k, v in facts]))
    s.blocks.append(_gate_para(meta.get("gate")))
    for f in (meta.get("gate") or {}).get("failures") or []:
        s.blocks.append(Para(f"gate failure: {f}", "fail"))
    s.blocks.extend(_crosscheck_paras(res))
    s.blocks.extend(_input_paras(res))
    s.blocks.extend(Para(n, "note") for n in res.notes)
    return s


def _input_paras(res: ResultTable) -> list[Para]:
    """Data the registry does not vouch for, and queries that got no hits: said once, up front."""
    out = [Para(f"{d}: UNVERIFIED data — the dataset's counts differ from the registry's (run with "
                f"--unverified-data), so none of its figures is comparable with the published ones.", "fail")
           for d in res.datasets if any(r.get("unverified_data") for (rd, _), r in res.cell.items() if rd == d)]
    for (d, setting), row in res.cell.items():
        n = row.get("queries_without_hits")
        if n:
            out.append(Para(f"{d} {setting}: {n:,} of {row.get('n_queries', '?'):,} queries got no hits (for BM25: "
                            f"no query term is in the index); they score 0.", "note"))
    return out


def _gate_para(gate) -> Para:
    if not isinstance(gate, dict):
        return Para("Gate: not run (`sounding run --gate` checks every Sounding row against its published "
                    "figure and the comparators at matched settings).", "note")
    if gate.get("passed"):
        return Para("Gate: PASSED — no Sounding row is more than one point below its published figure or a "
                    "comparator at matched settings.", "pass")
    return Para(f"Gate: FAILED — {len(gate.get('failures') or [])} failure(s), listed below.", "fail")


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
