"""Run reports: one Markdown file and one self-contained HTML page from the files `sounding run` wrote.

    from sounding.report import write_reports
    md_path, html_path = write_reports(Path("sounding-out"))     # OUT/report.md, OUT/report.html

Everything here is a pure function of OUT/results.json, OUT/run.json and OUT/per_query/..., so a report can
be regenerated (or restyled) without re-running anything. The page needs no network: the CSS is inline, the
charts are SVG drawn here, and there is no script.

The sections are built once as neutral blocks (paragraphs, tables of cells, charts) and rendered twice: to
Markdown (charts left out) and to HTML. Every numeric table cell of the page carries data-* attributes
(`data-kind`, `data-dataset`, `data-setting`, `data-measure`, `data-value` = the full float) so tests and
tools can read the numbers back; docs/report.md describes them.
"""
from __future__ import annotations

import html
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

import numpy as np

from ..errors import SoundingError

MAIN = "nDCG@10"  # the headline measure (BEIR convention: own hits dropped)
RAW = "nDCG@10/raw"  # the same with own hits kept
MEASURE_ORDER = ("nDCG@10", "R@100", "R@1000", "RR@100", "Success@100", "judged@10", "nDCG'@10", "bpref")
JUDGED_ONLY = "nDCG'@10"  # nDCG@10 on the judged-only list (trec_eval -J): the "Pool bias" section
NOT_A_QUALITY = {"judged@10"}  # a pool-coverage diagnostic: higher is not "better", so no best-cell highlight
CQA = "cqadupstack"
CQA_PREFIX = "cqadupstack-"
ALPHA = 0.05
PERMUTATIONS = 10_000
MISSING = "—"
# Okabe-Ito + Tableau hues: distinguishable for most colour-vision deficiencies
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000",
           "#8c564b", "#7f7f7f", "#17becf", "#bcbd22")


# -- loading ---------------------------------------------------------------------------------------------
def load_out(out_dir: Path) -> tuple[list[dict], dict, dict[tuple[str, str], dict[str, float]]]:
    """(rows, meta, per-query nDCG@10 keyed by (dataset, setting)) from an output folder of `sounding run`."""
    out_dir = Path(out_dir)
    rows = _read_json(out_dir / "results.json")
    if not isinstance(rows, list):
        raise SoundingError(f"{out_dir / 'results.json'}: expected a JSON list of rows")
    meta = _read_json(out_dir / "run.json") if (out_dir / "run.json").is_file() else {}
    per_query = {}
    for row in rows:
        if not isinstance(row, dict) or "dataset" not in row or "setting" not in row:
            continue  # Results() reports malformed rows; here we only look for per-query files
        path = out_dir / (row.get("per_query_file") or f"per_query/{row['dataset']}/{row['setting']}.json")
        if path.is_file():
            values = _read_json(path).get(MAIN) or {}
            per_query[(row["dataset"], row["setting"])] = {str(q): float(v) for q, v in values.items()}
    return rows, meta, per_query


def _read_json(path: Path):
    if not path.is_file():
        raise SoundingError(f"{path}: not found; run `sounding run` with this --out first")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise SoundingError(f"{path}:{e.lineno}: not valid JSON ({e.msg})") from None


# -- the results, indexed ----------------------------------------------------------------------------------
def _number(x) -> float | None:
    """A finite float, or None for a missing/null/non-numeric value (rows may lack optional figures)."""
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
        return None
    return float(x)


def _mean(values: list[float]) -> float:
    return math.fsum(values) / len(values)


class Results:
    """Rows indexed by (dataset, setting); settings and datasets in run order; CQADupStack forums collapsed.

    A collapsed or averaged number is shown only when it covers exactly what its header says: the
    cqadupstack value of a setting needs all forums of the run, and the mean needs every dataset column.
    """

    def __init__(self, rows: list[dict]):
        self.notes: list[str] = []
        self.cell: dict[tuple[str, str], dict] = {}
        for i, row in enumerate(rows):
            if not isinstance(row, dict) or not row.get("dataset") or not row.get("setting"):
                self.notes.append(f"results.json row {i} has no dataset or setting; left out")
                continue
            key = (str(row["dataset"]), str(row["setting"]))
            if key in self.cell:
                self.notes.append(f"{key[0]} {key[1]} appears twice in results.json; the later row is shown")
            self.cell[key] = row
        first = {}
        for (d, s), row in self.cell.items():
            first.setdefault(s, len(first))
        # Sounding's own settings first, then comparators, each in run order
        self.settings = sorted(first, key=lambda s: (self.engine(s) != "sounding", first[s]))
        self.datasets = list(dict.fromkeys(d for d, _ in self.cell))
        self.forums = [d for d in self.datasets if d.startswith(CQA_PREFIX)]
        self.columns = list(dict.fromkeys(CQA if d.startswith(CQA_PREFIX) else d for d in self.datasets))

    def row(self, dataset: str, setting: str) -> dict | None:
        return self.cell.get((dataset, setting))

    def rows(self) -> Iterable[dict]:
        """Rows in display order: by dataset, then by setting."""
        for d in self.datasets:
            for s in self.settings:
                if (d, s) in self.cell:
                    yield self.cell[(d, s)]

    def engine(self, setting: str) -> str:
        row = next(r for (d, s), r in self.cell.items() if s == setting)
        return str(row.get("engine") or setting.split(".")[0])

    def metric(self, dataset: str, setting: str, measure: str) -> float | None:
        row = self.row(dataset, setting)
        return _number((row.get("metrics") or {}).get(measure)) if row else None

    def measures(self) -> list[str]:
        """Measures of the main tables: the known ones in a fixed order, then any others (raw nDCG aside)."""
        present = {m for r in self.cell.values() for m in (r.get("metrics") or {}) if not m.endswith("/raw")}
        return [m for m in MEASURE_ORDER if m in present] + sorted(present - set(MEASURE_ORDER))

    def column_value(self, column: str, setting: str, measure: str) -> float | None:
        """A dataset's value; for cqadupstack the mean of the forum means (None unless all forums ran)."""
        if column != CQA:
            return self.metric(column, setting, measure)
        values = [self.metric(f, setting, measure) for f in self.forums]
        return None if not values or None in values else _mean(values)

    def mean(self, setting: str, measure: str) -> float | None:
        """Mean over all dataset columns (cqadupstack counted once), None if the setting misses any."""
        values = [self.column_value(c, setting, measure) for c in self.columns]
        return None if None in values else _mean(values)

    def mean_header(self) -> str:
        return f"mean ({', '.join(self.columns)})"


# -- neutral blocks ----------------------------------------------------------------------------------------
@dataclass
class Cell:
    text: str
    data: dict[str, str] = field(default_factory=dict)  # data-* attributes (HTML only)
    classes: tuple[str, ...] = ()
    title: str = ""  # tooltip (HTML only)
    strong: bool = False  # bold in both renderings (the best value of a column)


@dataclass
class Table:
    head: list[str]
    body: list[list[Cell]]
    caption: str = ""
    head_titles: list[str] = field(default_factory=list)


@dataclass
class Para:
    text: str
    kind: str = ""  # "note", "pass", "fail": styling only


@dataclass
class Chart:
    caption: str
    svg: str  # HTML only; Markdown says where to look


@dataclass
class Section:
    id: str
    title: str
    blocks: list = field(default_factory=list)


def f4(v: float) -> str:
    return f"{v:.4f}"


def signed4(v: float) -> str:
    return f"{v:+.4f}"


def pvalue(p: float) -> str:
    return "<0.0001" if p < 0.0001 else f"{p:.4f}"


def text_cell(text, title: str = "", numeric: bool = False) -> Cell:
    """A cell without a data-value (labels, counts, intervals); numeric ones are right-aligned."""
    return Cell(MISSING if text is None or text == "" else str(text), classes=("count",) if numeric else (),
                title=title)


def num_cell(value: float | None, kind: str, fmt: Callable[[float], str] = f4, *, best: bool = False,
             title: str = "", **data: str) -> Cell:
    """A numeric cell: visible text fmt(value), the exact float in data-value; a dash when missing."""
    attrs = {"kind": kind, **{k.replace("_", "-"): str(v) for k, v in data.items()}}
    if value is None:
        return Cell(MISSING, {**attrs, "missing": "1"}, ("num", "missing"), title)
    return Cell(fmt(value), {**attrs, "value": repr(float(value))}, ("num", "best") if best else ("num",), title,
                strong=best)


def setting_cell(res: Results, dataset: str | None, setting: str) -> Cell:
    row = res.row(dataset, setting) if dataset else next(r for (d, s), r in res.cell.items() if s == setting)
    parts = [f"{k}={row.get(k)}" for k in ("engine", "arm", "layout", "params", "k1", "b", "lucene_norms") if k in row]
    return Cell(setting, classes=("setting",), title=", ".join(parts))


# -- sections ----------------------------------------------------------------------------------------------
def build_sections(rows: list[dict], meta: dict, per_query: dict | None = None) -> list[Section]:
    res = Results(rows)
    return [
        _summary_section(res, meta or {}),
        _main_section(res),
        *([_user_section(res)] if _user_rows(res) else []),
        _published_section(res),
        _comparator_section(res),
        _raw_section(res),
        _distribution_section(res, per_query),
        _judged_section(res),
        _pool_bias_section(res),
        _significance_section(res, per_query),
        _operational_section(res),
    ]


def _summary_section(res: Results, meta: dict) -> Section:
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


def _input_paras(res: Results) -> list[Para]:
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


def _crosscheck_paras(res: Results) -> list[Para]:
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


def _main_section(res: Results) -> Section:
    s = Section("main", "Settings × datasets")
    s.blocks.append(Para(
        "One table per measure; rows are settings, columns datasets. All figures use the BEIR convention "
        "(a hit whose document id equals the query id is dropped before scoring). The best value of each "
        "dataset is bold. The last column is the plain mean over the datasets named in its header; a "
        "setting that misses any of them gets a dash there rather than a mean over fewer datasets."))
    if res.forums:
        s.blocks.append(Para(
            f"cqadupstack is the mean of its {len(res.forums)} sub-forum means "
            f"({', '.join(f.removeprefix(CQA_PREFIX) for f in res.forums)}), as in the BEIR paper, and counts "
            f"as one dataset in the mean; the forums are listed one by one after the main tables.", "note"))
    for m in res.measures():
        s.blocks.append(_measure_table(res, m))
    if res.forums:
        s.blocks.append(_forum_table(res))
    return s


def _measure_table(res: Results, measure: str) -> Table:
    best = {c: _best(res.column_value(c, s, measure) for s in res.settings) for c in res.columns}
    highlight = measure not in NOT_A_QUALITY
    with_mean = len(res.columns) > 1
    body = []
    for s in res.settings:
        line = [setting_cell(res, None, s)]
        for c in res.columns:
            v = res.column_value(c, s, measure)
            kind, extra = ("cqadupstack", {"forums": ",".join(res.forums)}) if c == CQA else ("run", {})
            line.append(num_cell(v, kind, best=highlight and v is not None and v == best[c],
                                 dataset=c, setting=s, measure=measure, **extra))
        if with_mean:
            line.append(num_cell(res.mean(s, measure), "mean", dataset="mean", setting=s, measure=measure,
                                 datasets=",".join(res.columns)))
        body.append(line)
    head = ["setting", *res.columns] + ([res.mean_header()] if with_mean else [])
    caption = measure + (" — share of the top 10 with any judgement (no best marked: a diagnostic, not a "
                         "quality measure)" if measure in NOT_A_QUALITY else "")
    return Table(head, body, caption)


def _forum_table(res: Results) -> Table:
    body = []
    for s in res.settings:
        line = [setting_cell(res, None, s)]
        line += [num_cell(res.metric(f, s, MAIN), "run", dataset=f, setting=s, measure=MAIN) for f in res.forums]
        line.append(num_cell(res.column_value(CQA, s, MAIN), "cqadupstack", dataset=CQA, setting=s,
                             measure=MAIN, forums=",".join(res.forums)))
        body.append(line)
    head = ["setting", *(f.removeprefix(CQA_PREFIX) for f in res.forums), "cqadupstack (mean of forum means)"]
    return Table(head, body, f"CQADupStack sub-forums, {MAIN}")


def _best(values: Iterable[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return max(present) if present else None


def _published_measures(row: dict) -> list[str]:
    pub = row.get("published")
    if not isinstance(pub, dict):
        return []
    # published dicts also carry bookkeeping (title, split, verified, ...): only measure names count
    metrics = row.get("metrics") or {}
    return [m for m in pub if ("@" in m or m in metrics) and _number(pub[m]) is not None]


def _published_section(res: Results) -> Section:
    s = Section("published", "Against published figures")
    s.blocks.append(Para(
        "Each run beside the published figure for the same configuration (row['published'], with its source) "
        "and the difference run − published. The run side is the BEIR-convention number (own hits dropped), "
        "which is what published BEIR baselines report; raw numbers are in the next-but-one section."))
    rows = [r for r in res.rows() if _published_measures(r)]
    if not rows:
        s.blocks.append(Para("No row of this run carries a published figure.", "note"))
        return s
    measures = [m for m in MEASURE_ORDER if any(m in _published_measures(r) for r in rows)]
    measures += sorted({m for r in rows for m in _published_measures(r)} - set(measures))
    lines = [(_published_line(res, r["dataset"], r["setting"], measures, r["published"]), r["published"])
             for r in rows] + _cqa_published_lines(res, measures)
    # sources are sentences: cite them by number under the table rather than widen every row
    sources: dict[str, int] = {}
    body = []
    for line, pub in lines:
        text = _source_text(pub)
        body.append(line + [Cell(f"[{sources.setdefault(text, len(sources) + 1)}]", title=text)])
    head = ["dataset", "setting"] + [h for m in measures for h in (f"{m} run", f"{m} published", "Δ")] + ["source"]
    s.blocks.append(Table(head, body))
    s.blocks.append(Para("A ✓ after Δ means the run, rounded to 4 decimals, equals the published figure.", "note"))
    s.blocks += [Para(f"[{n}] {text}", "note") for text, n in sources.items()]
    return s


def _source_text(pub: dict) -> str:
    parts = [str(pub[k]) for k in ("title", "source") if pub.get(k)]
    return " — ".join(parts) or "source not given"


def _published_line(res: Results, dataset: str, setting: str, measures: list[str], pub: dict,
                    run_value: Callable[[str], float | None] | None = None, kind: str = "run",
                    pub_kind: str = "published") -> list[Cell]:
    run_value = run_value or (lambda m: res.metric(dataset, setting, m))
    line = [text_cell(dataset), setting_cell(res, None, setting)]
    for m in measures:
        ours, theirs = run_value(m), _number(pub.get(m))
        line.append(num_cell(ours, kind, dataset=dataset, setting=setting, measure=m))
        line.append(num_cell(theirs, pub_kind, dataset=dataset, setting=setting, measure=m))
        diff = ours - theirs if ours is not None and theirs is not None else None
        cell = num_cell(diff, "published-diff", signed4, dataset=dataset, setting=setting, measure=m)
        if diff is not None and abs(round(ours, 4) - theirs) < 1e-9:
            cell.text += " ✓"
        line.append(cell)
    return line


def _cqa_published_lines(res: Results, measures: list[str]) -> list[tuple[list[Cell], dict]]:
    """cqadupstack as one line per setting: mean of forum runs against mean of forum published figures."""
    lines = []
    for s in res.settings if res.forums else []:
        pubs = [(res.row(f, s) or {}).get("published") for f in res.forums]
        if not all(isinstance(p, dict) for p in pubs):
            continue
        mean_pub = {}
        for m in measures:
            vals = [_number(p.get(m)) for p in pubs]
            if None not in vals:
                mean_pub[m] = _mean(vals)
        if mean_pub:
            mean_pub["source"] = f"mean of the {len(res.forums)} forums' published figures"
            lines.append((_published_line(res, CQA, s, measures, mean_pub,
                                          lambda m, s=s: res.column_value(CQA, s, m), kind="cqadupstack",
                                          pub_kind="published-mean"), mean_pub))
    return lines


def _match_key(row: dict) -> tuple:
    # a comparator matches a Sounding row when it ran the same arm and layout with the same k1 and b
    return (row.get("dataset"), row.get("arm", "bm25"), row.get("layout"), row.get("k1"), row.get("b"))


def _comparator_section(res: Results) -> Section:
    s = Section("comparators", "Comparator engines at matched settings")
    groups: dict[tuple, list[dict]] = {}
    for r in res.rows():
        if r.get("layout") is not None:  # a row that does not say its layout matches nothing
            groups.setdefault(_match_key(r), []).append(r)
    groups = {k: g for k, g in groups.items() if any(_engine(r) != "sounding" for r in g)}
    if not groups:
        s.blocks.append(Para("No comparator engine (bm25s, tantivy, PISA, Pyserini, ...) ran in this run.", "note"))
        return s
    s.blocks.append(Para(
        "Each Sounding row beside the other engines' rows with the same dataset, arm, layout, k1 and b; "
        "Δ = engine − Sounding (BEIR convention on both sides)."))
    engines = list(dict.fromkeys(_engine(r) for g in groups.values() for r in g if _engine(r) != "sounding"))
    for m in [m for m in (MAIN, "R@100") if m in res.measures()]:
        body = [line for key, g in groups.items() for line in _comparator_lines(res, key, g, engines, m)]
        head = ["dataset", "layout", "k1", "b", "Sounding setting", "Sounding"]
        head += [h for e in engines for h in (e, f"Δ {e}")]
        s.blocks.append(Table(head, body, m))
    return s


def _engine(row: dict) -> str:
    return str(row.get("engine") or row["setting"].split(".")[0])


def _comparator_lines(res: Results, key: tuple, group: list[dict], engines: list[str], m: str) -> list[list[Cell]]:
    dataset, _, layout, k1, b = key
    ours = [r for r in group if _engine(r) == "sounding"] or [None]
    lines = []
    for own in ours:
        own_value = res.metric(dataset, own["setting"], m) if own else None
        line = [text_cell(dataset), text_cell(layout), text_cell(k1), text_cell(b),
                setting_cell(res, dataset, own["setting"]) if own else text_cell(None),
                num_cell(own_value, "run", dataset=dataset, setting=own["setting"] if own else "", measure=m)]
        for e in engines:
            other = next((r for r in group if _engine(r) == e), None)
            v = res.metric(dataset, other["setting"], m) if other else None
            setting = other["setting"] if other else ""
            line.append(num_cell(v, "run", dataset=dataset, setting=setting, measure=m, title=setting))
            diff = v - own_value if v is not None and own_value is not None else None
            line.append(num_cell(diff, "comparator-diff", signed4, dataset=dataset, setting=setting, measure=m))
        lines.append(line)
    return lines


def _raw_section(res: Results) -> Section:
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


def _colors(res: Results) -> dict[str, str]:
    return {s: PALETTE[i % len(PALETTE)] for i, s in enumerate(res.settings)}


def _distribution_section(res: Results, per_query: dict | None) -> Section:
    s = Section("distributions", "Per-query nDCG@10")
    s.blocks.append(Para(
        "Box plots of per-query nDCG@10 (BEIR convention) per setting: box = quartiles, line = median, "
        "whiskers = furthest query within 1.5 × IQR, dots = queries beyond, ◆ = mean. The right-hand "
        "figures give the number of queries and the share scoring 0."))
    if not per_query:
        s.blocks.append(Para("No per-query files found, so no distributions.", "note"))
        return s
    colors = _colors(res)
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


def _judged_section(res: Results) -> Section:
    s = Section("judged", "judged@10: pool bias")
    s.blocks.append(Para(
        "judged@10 is the share of a run's top 10 that the assessors judged at all; BEIR's judgements were "
        "pooled from other systems, so a setting with low judged@10 retrieves many never-judged documents, "
        "which count as non-relevant, and its nDCG@10 may understate it."))
    if "judged@10" not in res.measures():
        s.blocks.append(Para("judged@10 is not recorded in this run.", "note"))
        return s
    colors = _colors(res)
    for c in res.columns:
        bars = [(st, res.column_value(c, st, "judged@10"), colors[st]) for st in res.settings]
        if any(v is not None for _, v, _ in bars):
            caption = c + (" (mean of forum means)" if c == CQA else "")
            s.blocks.append(Chart(caption, bar_svg(bars)))
    return s


def _places(values: dict[str, float | None]) -> dict[str, int]:
    """Place of each setting by value, 1 = best; equal values share the better place; None gets no place."""
    present = [v for v in values.values() if v is not None]
    return {s: 1 + sum(1 for w in present if w > v) for s, v in values.items() if v is not None}


def _pool_reference(res: Results, dataset: str) -> str | None:
    """The BM25 row the other arms are measured against: Sounding's flat Anserini run, else the best BM25 run."""
    bm25 = [s for s in res.settings if res.row(dataset, s) and res.row(dataset, s).get("arm", "bm25") == "bm25"
            and res.metric(dataset, s, MAIN) is not None]
    if "sounding.bm25.flat.anserini" in bm25:
        return "sounding.bm25.flat.anserini"
    return max(bm25, key=lambda s: res.metric(dataset, s, MAIN), default=None)


def _most_unjudged(row: dict) -> str:
    pool = row.get("pool") if isinstance(row.get("pool"), dict) else {}
    worst = [w for w in pool.get("most_unjudged") or [] if isinstance(w, list) and len(w) == 2]
    return ", ".join(f"{q} ({n})" for q, n in worst) or MISSING


def _pool_bias_section(res: Results) -> Section:
    s = Section("pool-bias", "Pool bias: judged-only scores")
    s.blocks.append(Para(
        f"BEIR's judgements were pooled mostly from lexical systems, and nDCG@10 counts every unjudged hit as "
        f"non-relevant. {JUDGED_ONLY} (trec_eval -J: unjudged hits dropped, the rest ranked again; Sakai's "
        f"condensed list) and bpref (Buckley & Voorhees) score only the judged hits. Per dataset: each setting's "
        f"nDCG@10, {JUDGED_ONLY}, their difference, judged@10 and bpref; its place among the settings by "
        f"nDCG@10 and by {JUDGED_ONLY} (1 = best, equal values share a place) and the change (+ = moves up when "
        f"the holes are ignored); the queries with the most unjudged hits in its top 10 (query id and count). "
        f"A second table gives each non-BM25 setting's gap to the BM25 reference on both scores: a gap that "
        f"shrinks on the judged-only list is partly a pooling artefact."))
    if not any(res.metric(d, st, JUDGED_ONLY) is not None for d, st in res.cell):
        s.blocks.append(Para(f"{JUDGED_ONLY} is not recorded in this run.", "note"))
        return s
    for d in res.datasets:
        s.blocks.extend(_pool_bias_blocks(res, d))
    return s


def _pool_bias_blocks(res: Results, d: str) -> list:
    settings = [st for st in res.settings if res.metric(d, st, JUDGED_ONLY) is not None]
    if not settings:
        return [Para(f"{d}: {JUDGED_ONLY} is not recorded.", "note")]
    by_main = _places({st: res.metric(d, st, MAIN) for st in settings})
    by_judged = _places({st: res.metric(d, st, JUDGED_ONLY) for st in settings})
    body = []
    for st in settings:
        row, attrs = res.row(d, st), dict(dataset=d, setting=st)
        main, judged_only = res.metric(d, st, MAIN), res.metric(d, st, JUDGED_ONLY)
        a, b = by_main.get(st), by_judged.get(st)
        pool = row.get("pool") if isinstance(row.get("pool"), dict) else {}
        body.append([
            setting_cell(res, d, st),
            *(num_cell(res.metric(d, st, m), "run", measure=m, **attrs) for m in (MAIN, JUDGED_ONLY)),
            num_cell(judged_only - main if main is not None else None, "pool-diff", signed4, measure=JUDGED_ONLY,
                     **attrs),
            *(num_cell(res.metric(d, st, m), "run", measure=m, **attrs) for m in ("judged@10", "bpref")),
            num_cell(a, "pool-place", lambda v: f"{v:.0f}", measure=MAIN, **attrs),
            num_cell(b, "pool-place", lambda v: f"{v:.0f}", measure=JUDGED_ONLY, **attrs),
            num_cell(a - b if a is not None else None, "pool-place-change", lambda v: f"{v:+.0f}",
                     measure=JUDGED_ONLY, **attrs),
            text_cell(pool.get("queries_with_unjudged"), numeric=True),
            text_cell(_most_unjudged(row)),
        ])
    head = ["setting", MAIN, JUDGED_ONLY, f"Δ {JUDGED_ONLY} − {MAIN}", "judged@10", "bpref", f"place {MAIN}",
            f"place {JUDGED_ONLY}", "place change", "queries with unjudged in top 10",
            "most unjudged in top 10: query (count)"]
    blocks: list = [Table(head, body, d)]
    nonrel = {(res.row(d, st).get("pool") or {}).get("judged_nonrelevant") for st in settings
              if isinstance(res.row(d, st).get("pool"), dict)}
    if nonrel == {0}:
        blocks.append(Para(
            f"{d}: the qrels hold no judged non-relevant document, so the judged-only list holds only relevant "
            f"hits: {JUDGED_ONLY} rewards retrieving them anywhere in the ranking (an upper bound, not a "
            f"corrected nDCG@10) and bpref is the share of relevant documents retrieved.", "note"))
    blocks.extend(_pool_gap_blocks(res, d, settings))
    return blocks


def _pool_gap_blocks(res: Results, d: str, settings: list[str]) -> list:
    ref = _pool_reference(res, d)
    others = [st for st in settings if (res.row(d, st) or {}).get("arm", "bm25") != "bm25"]
    if ref is None or not others or res.metric(d, ref, JUDGED_ONLY) is None:
        return []
    body = []
    for st in others:
        attrs = dict(dataset=d, setting=st)
        gaps = [(m, res.metric(d, st, m), res.metric(d, ref, m)) for m in (MAIN, JUDGED_ONLY, "bpref")]
        gaps = [(m, a - b if a is not None and b is not None else None) for m, a, b in gaps]
        g_main, g_judged = gaps[0][1], gaps[1][1]
        if g_main is None or g_judged is None:
            reading = MISSING
        elif (g_main < 0) != (g_judged < 0) and g_main != 0 and g_judged != 0:
            reading = f"sign flips: {g_main:+.4f} → {g_judged:+.4f}"
        elif abs(abs(g_judged) - abs(g_main)) < 5e-5:  # equal as shown (4 decimals)
            reading = "gap unchanged"
        elif abs(g_judged) < abs(g_main):
            reading = f"gap shrinks by {abs(g_main) - abs(g_judged):.4f}"
        else:
            reading = f"gap grows by {abs(g_judged) - abs(g_main):.4f}"
        body.append([setting_cell(res, d, st),
                     *(num_cell(g, "pool-gap", signed4, measure=m, **attrs) for m, g in gaps),
                     text_cell(reading)])
    head = ["setting", f"Δ {MAIN} vs reference", f"Δ {JUDGED_ONLY} vs reference", "Δ bpref vs reference",
            "reading"]
    return [Table(head, body, f"{d} — gap to the BM25 reference {ref} (setting − reference)")]


# -- significance ------------------------------------------------------------------------------------------
def _baseline(res: Results, dataset: str) -> tuple[str, str] | None:
    """(setting, why) of the dataset's reference: the run of the best published configuration, or, where no
    row carries a published figure, the run with the best nDCG@10 (labelled as such)."""
    rows = [(s, res.row(dataset, s)) for s in res.settings if res.row(dataset, s)]
    published = [(_number(r["published"].get(MAIN)), s) for s, r in rows if isinstance(r.get("published"), dict)]
    published = [(v, s) for v, s in published if v is not None]
    if published:
        v, s = max(published, key=lambda x: x[0])  # max keeps the first of equals: Sounding before comparators
        pub = res.row(dataset, s)["published"]
        label = pub.get("title") or pub.get("source") or "published"
        return s, f"best published configuration ({MAIN} {v:.4f}, {label})"
    own = [(res.metric(dataset, s, MAIN), s) for s in res.settings if res.metric(dataset, s, MAIN) is not None]
    if not own:
        return None
    v, s = max(own, key=lambda x: x[0])
    return s, f"no published figure for this dataset: best run of this report ({MAIN} {v:.4f})"


def _significance_section(res: Results, per_query: dict | None) -> Section:
    s = Section("significance", "Significance against the best published configuration")
    s.blocks.append(Para(
        f"Per dataset, each setting against the reference run (the setting whose published {MAIN} is "
        f"highest) on per-query {MAIN}: paired t-test and paired randomization test ({PERMUTATIONS:,} sign "
        f"flips, seeded), each Holm-corrected across the settings compared on that dataset; 95% bootstrap "
        f"interval of the mean difference; wins/ties/losses count queries. Verdict: Holm-corrected "
        f"randomization p < {ALPHA}."))
    if not per_query:
        s.blocks.append(Para("No per-query files found, so no significance tests.", "note"))
        return s
    for d in res.datasets:
        s.blocks.extend(_significance_blocks(res, per_query, d))
    return s


def _significance_blocks(res: Results, per_query: dict, dataset: str) -> list:
    from ..eval.significance import compare, holm  # scipy.stats is slow to import: only when needed

    base = _baseline(res, dataset)
    if base is None or (dataset, base[0]) not in per_query:
        return [Para(f"{dataset}: no reference run with per-query values; not tested.", "note")]
    ref, why = base
    others = [st for st in res.settings if st != ref and (dataset, st) in per_query]
    if not others:
        return [Para(f"{dataset}: only the reference setting {ref} ran; nothing to compare.", "note")]
    results = []
    for st in others:
        a, b = per_query[(dataset, st)], per_query[(dataset, ref)]
        qids = sorted(a.keys() & b.keys())  # align on the queries both runs scored
        if len(qids) < 2:
            results.append((st, None))
            continue
        results.append((st, compare([a[q] for q in qids], [b[q] for q in qids], permutations=PERMUTATIONS)))
    tested = [c for _, c in results if c is not None]
    t_holm = iter(holm([c.t_pvalue for c in tested]))
    r_holm = iter(holm([c.rand_pvalue for c in tested]))
    body = [_significance_line(res, dataset, st, c, next(t_holm) if c else None, next(r_holm) if c else None)
            for st, c in results]
    head = ["setting", "queries", f"Δ {MAIN}", "95% CI", "wins/ties/losses", "p t-test", "p t-test (Holm)",
            "p randomization", "p rand. (Holm)", "verdict"]
    return [Table(head, body, f"{dataset} — reference {ref}: {why}")]


def _significance_line(res, dataset, st, c, t_holm, r_holm) -> list[Cell]:
    if c is None:
        return [setting_cell(res, dataset, st), text_cell("fewer than 2 shared queries")] + [text_cell(None)] * 8
    attrs = dict(dataset=dataset, setting=st, measure=MAIN)
    verdict = ("better" if c.diff > 0 else "worse") if r_holm < ALPHA else "n.s."
    return [setting_cell(res, dataset, st), text_cell(c.n, numeric=True),
            num_cell(c.diff, "sig-diff", signed4, **attrs),
            text_cell(f"[{c.ci_low:+.4f}, {c.ci_high:+.4f}]", numeric=True),
            text_cell(f"{c.wins}/{c.ties}/{c.losses}", numeric=True),
            num_cell(c.t_pvalue, "p-t", pvalue, **attrs), num_cell(t_holm, "p-t-holm", pvalue, **attrs),
            num_cell(c.rand_pvalue, "p-rand", pvalue, **attrs), num_cell(r_holm, "p-rand-holm", pvalue, **attrs),
            Cell(verdict, classes=(f"verdict-{verdict.replace('.', '')}",), strong=verdict != "n.s.")]


# -- the user's own systems ---------------------------------------------------------------------------------
def _user_rows(res: Results) -> list[dict]:
    return [r for r in res.rows() if r.get("arm") == "user"]


def _user_section(res: Results) -> Section:
    """Each user system (row arm "user": a retriever or a run file) beside the BM25 reference row, its
    published figure and the paired test of row["vs_bm25"]; then per dataset, the published figures of
    other systems beside this run's."""
    from ..eval.significance import holm

    s = Section("user", "Your systems against BM25")
    s.blocks.append(Para(
        f"Each system you brought (a retriever or a run file) beside Sounding's BM25 reference row (flat, "
        f"Anserini k1=0.9 b=0.4) and that row's published figure. Δ = system − BM25 on per-query {MAIN} "
        f"(BEIR convention); paired t-test and paired randomization test ({PERMUTATIONS:,} sign flips, "
        f"seeded), the randomization p Holm-corrected across the systems compared on a dataset; 95% bootstrap "
        f"interval; wins/ties/losses count queries. Verdict: Holm-corrected randomization p < {ALPHA}. "
        f"judged@10 beside it: a system that retrieves many never-judged documents may be understated."))
    body = []
    for d in res.datasets:
        rows = [r for r in _user_rows(res) if r["dataset"] == d]
        tests = [r.get("vs_bm25") if isinstance(r.get("vs_bm25"), dict) else None for r in rows]
        adjusted = iter(holm([t["rand_pvalue"] for t in tests if t]) if any(tests) else [])
        for r, t in zip(rows, tests):
            body.append(_user_line(res, r, t, next(adjusted) if t else None))
    head = ["dataset", "system", "source", MAIN, f"BM25 {MAIN}", "BM25 published", f"Δ {MAIN}", "95% CI",
            "wins/ties/losses", "p t-test", "p randomization", "p rand. (Holm)", "verdict", "judged@10",
            "BM25 judged@10"]
    s.blocks.append(Table(head, body))
    for d in res.datasets:
        s.blocks.extend(_user_published_table(res, d))
    return s


def _user_line(res: Results, r: dict, t: dict | None, p_holm: float | None) -> list[Cell]:
    d, st = r["dataset"], r["setting"]
    ref = t["reference"] if t else "sounding.bm25.flat.anserini"
    ref_row = res.row(d, ref) or {}
    attrs = dict(dataset=d, setting=st, measure=MAIN)
    line = [text_cell(d), setting_cell(res, d, st), text_cell(f"{r.get('kind', '?')}: {r.get('source') or '?'}"),
            num_cell(res.metric(d, st, MAIN), "user-run", **attrs),
            num_cell(res.metric(d, ref, MAIN), "user-reference", dataset=d, setting=ref, measure=MAIN),
            num_cell(_number((ref_row.get("published") or {}).get(MAIN)), "user-published", dataset=d,
                     setting=ref, measure=MAIN)]
    if t is None:
        line += [text_cell("no BM25 reference row to test against")] + [text_cell(None)] * 6
    else:
        verdict = ("better" if t["diff"] > 0 else "worse") if p_holm < ALPHA else "n.s."
        line += [num_cell(t["diff"], "user-diff", signed4, **attrs),
                 text_cell(f"[{t['ci_low']:+.4f}, {t['ci_high']:+.4f}]", numeric=True),
                 text_cell(f"{t['wins']}/{t['ties']}/{t['losses']}", numeric=True),
                 num_cell(t["t_pvalue"], "user-p-t", pvalue, **attrs),
                 num_cell(t["rand_pvalue"], "user-p-rand", pvalue, **attrs),
                 num_cell(p_holm, "user-p-rand-holm", pvalue, **attrs),
                 Cell(verdict, classes=(f"verdict-{verdict.replace('.', '')}",), strong=verdict != "n.s.")]
    line += [num_cell(res.metric(d, st, "judged@10"), "user-run", dataset=d, setting=st, measure="judged@10"),
             num_cell(res.metric(d, ref, "judged@10"), "user-reference", dataset=d, setting=ref,
                      measure="judged@10")]
    return line


def _user_published_table(res: Results, dataset: str) -> list:
    """This run's rows of `dataset` and the published figures of other systems on it, best first."""
    rows = [r for r in _user_rows(res) if r["dataset"] == dataset]
    published = next((r.get("published_beside") for r in rows if isinstance(r.get("published_beside"), list)), [])
    entries = [(res.metric(dataset, st, MAIN), st, "this run", st) for st in res.settings
               if res.metric(dataset, st, MAIN) is not None]
    entries += [(_number(p.get(MAIN)), str(p.get("title") or p.get("condition")), "published",
                 str(p.get("condition") or "")) for p in published if isinstance(p, dict)]
    entries = sorted((e for e in entries if e[0] is not None), key=lambda e: -e[0])
    if not published:
        return [Para(f"{dataset}: no published figures of other systems on this dataset.", "note")]
    body = [[text_cell(name), text_cell(kind),
             num_cell(v, "user-leaderboard", dataset=dataset, setting=key, measure=MAIN)]
            for v, name, kind, key in entries]
    return [Table(["system", "", MAIN], body, f"{dataset} — this run beside published {MAIN} figures")]


# -- operational -------------------------------------------------------------------------------------------
def _seconds(v: float) -> str:
    return f"{v:.2f} s"


def _size(v: float) -> str:
    return f"{v / 1e6:.1f} MB"


def _qps(v: float) -> str:
    return f"{v:,.0f}"


def _operational_section(res: Results) -> Section:
    s = Section("operational", "Operational figures")
    s.blocks.append(Para(
        "Index time and size per dataset (one index serves every parameter setting of a layout family; "
        "comparators' own indexes are not measured here), search time for all queries and queries per "
        "second. Timings depend on the machine named at the top."))
    body = []
    for r in res.rows():
        d, st = r["dataset"], r["setting"]
        attrs = dict(dataset=d, setting=st)
        body.append([text_cell(d), setting_cell(res, d, st), text_cell(_engine(r)),
                     text_cell(r.get("n_queries"), numeric=True),
                     num_cell(_number(r.get("index_seconds")), "op", _seconds, measure="index_seconds", **attrs),
                     num_cell(_number(r.get("index_bytes")), "op", _size, measure="index_bytes", **attrs),
                     num_cell(_number(r.get("search_seconds")), "op", _seconds, measure="search_seconds", **attrs),
                     num_cell(_number(r.get("qps")), "op", _qps, measure="qps", **attrs)])
    s.blocks.append(Table(["dataset", "setting", "engine", "queries", "index time", "index size", "search time",
                           "queries/s"], body))
    models = [r for r in res.rows() if isinstance(r.get("model"), dict)]
    for r in models:
        m = r["model"]
        s.blocks.append(Para(f"model of {r['dataset']} {r['setting']}: {m.get('name', '?')} — "
                             f"{m.get('provenance') or 'no provenance recorded'}", "note"))
    if not models:
        s.blocks.append(Para("No row uses a model (all arms lexical).", "note"))
    return s


# -- SVG charts --------------------------------------------------------------------------------------------
ROW_H, PLOT_W, AXIS_H, FONT_W = 22, 300, 26, 6.6  # FONT_W: rough width of a 11px glyph, for label room


def _frame(labels: list[str], right: int) -> tuple[int, int, int, Callable[[float], float]]:
    """(label width, total width, total height, x of a value in [0, 1]) for a chart with a row per label."""
    label_w = int(min(330, FONT_W * max(map(len, labels)) + 14))
    width = label_w + PLOT_W + right
    height = ROW_H * len(labels) + AXIS_H + 6
    return label_w, width, height, lambda v: label_w + PLOT_W * min(max(v, 0.0), 1.0)


def _axis(x: Callable[[float], float], top: int, bottom: int) -> list[str]:
    out = []
    for t in (0, 0.25, 0.5, 0.75, 1.0):
        out.append(f'<line x1="{x(t):.1f}" y1="{top}" x2="{x(t):.1f}" y2="{bottom}" class="grid"/>')
        out.append(f'<text x="{x(t):.1f}" y="{bottom + 14}" text-anchor="middle" class="tick">{t:g}</text>')
    return out


def _svg(width: int, height: int, parts: list[str], label: str) -> str:
    return (f'<svg width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" '
            f'aria-label="{html.escape(label)}">' + "".join(parts) + "</svg>")


def _label(x: float, y: float, text: str) -> str:
    return f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="end" class="label">{html.escape(text)}</text>'


def boxplot_svg(series: list[tuple[str, np.ndarray, str]]) -> str:
    """Horizontal box plots, one row per (label, values in [0, 1], colour)."""
    label_w, width, height, x = _frame([s for s, _, _ in series], right=120)
    bottom = ROW_H * len(series) + 4
    parts = _axis(x, 2, bottom)
    for i, (name, v, color) in enumerate(series):
        y = 4 + i * ROW_H + ROW_H / 2
        parts.append(_label(label_w - 8, y + 4, name))
        parts.append(_box(v, y, x, color))
        parts.append(f'<text x="{x(1) + 8:.1f}" y="{y + 4:.1f}" class="tick">n={len(v)}, '
                     f'{np.mean(v == 0):.0%} at 0</text>')
    return _svg(width, height, parts, "box plots of per-query nDCG@10")


def _box(v: np.ndarray, y: float, x: Callable[[float], float], color: str) -> str:
    q1, med, q3 = np.percentile(v, [25, 50, 75])
    iqr = q3 - q1
    inside = v[(v >= q1 - 1.5 * iqr) & (v <= q3 + 1.5 * iqr)]
    lo, hi = inside.min(), inside.max()
    # outliers de-duplicated at half-pixel resolution: thousands of queries must not mean thousands of dots
    outliers = np.unique(np.round(v[(v < lo) | (v > hi)] * PLOT_W * 2))
    h = ROW_H * 0.6
    tip = f"n={len(v)} mean={v.mean():.4f} median={med:.4f} q1={q1:.4f} q3={q3:.4f}"
    p = [f'<g><title>{tip}</title>',
         f'<line x1="{x(lo):.1f}" y1="{y:.1f}" x2="{x(hi):.1f}" y2="{y:.1f}" stroke="{color}"/>',
         f'<line x1="{x(lo):.1f}" y1="{y - h / 3:.1f}" x2="{x(lo):.1f}" y2="{y + h / 3:.1f}" stroke="{color}"/>',
         f'<line x1="{x(hi):.1f}" y1="{y - h / 3:.1f}" x2="{x(hi):.1f}" y2="{y + h / 3:.1f}" stroke="{color}"/>',
         f'<rect x="{x(q1):.1f}" y="{y - h / 2:.1f}" width="{max(x(q3) - x(q1), 1):.1f}" height="{h:.1f}" '
         f'fill="{color}" fill-opacity="0.25" stroke="{color}"/>',
         f'<line x1="{x(med):.1f}" y1="{y - h / 2:.1f}" x2="{x(med):.1f}" y2="{y + h / 2:.1f}" stroke="{color}" '
         f'stroke-width="2"/>']
    p += [f'<circle cx="{x(o / (PLOT_W * 2)):.1f}" cy="{y:.1f}" r="1.8" fill="{color}"/>' for o in outliers]
    m = x(float(v.mean()))
    p.append(f'<path d="M{m:.1f} {y - 5:.1f} L{m + 4:.1f} {y:.1f} L{m:.1f} {y + 5:.1f} L{m - 4:.1f} {y:.1f} Z" '
             f'fill="#111" fill-opacity="0.8"/></g>')
    return "".join(p)


def bar_svg(bars: list[tuple[str, float | None, str]]) -> str:
    """Horizontal bars, one row per (label, value in [0, 1] or None, colour), value written at the end."""
    label_w, width, height, x = _frame([s for s, _, _ in bars], right=60)
    bottom = ROW_H * len(bars) + 4
    parts = _axis(x, 2, bottom)
    for i, (name, v, color) in enumerate(bars):
        y = 4 + i * ROW_H + ROW_H / 2
        parts.append(_label(label_w - 8, y + 4, name))
        if v is None:
            parts.append(f'<text x="{x(0) + 4:.1f}" y="{y + 4:.1f}" class="tick">not run</text>')
            continue
        parts.append(f'<rect x="{x(0):.1f}" y="{y - ROW_H * 0.35:.1f}" width="{max(x(v) - x(0), 0.5):.1f}" '
                     f'height="{ROW_H * 0.7:.1f}" fill="{color}"><title>{html.escape(name)}: {v:.4f}</title></rect>')
        parts.append(f'<text x="{x(v) + 4:.1f}" y="{y + 4:.1f}" class="tick">{v:.4f}</text>')
    return _svg(width, height, parts, "bar chart of judged@10")


# -- rendering ---------------------------------------------------------------------------------------------
def render_markdown(sections: list[Section], meta: dict) -> str:
    out = ["# Sounding run report", ""]
    for s in sections:
        out += [f"## {s.title}", ""]
        charts = 0
        for b in s.blocks:
            if isinstance(b, Para):
                out += [f"> {b.text}" if b.kind in ("note", "fail") else b.text, ""]
            elif isinstance(b, Table):
                out += _markdown_table(b) + [""]
            elif isinstance(b, Chart):
                charts += 1
        if charts:
            out += [f"({charts} chart{'s' if charts > 1 else ''}: see report.html)", ""]
    return "\n".join(out).rstrip() + "\n"


def _markdown_table(t: Table) -> list[str]:
    def esc(text: str) -> str:
        return text.replace("|", "\\|")

    def cell(c: Cell) -> str:
        return f"**{esc(c.text)}**" if c.strong else esc(c.text)

    lines = [f"**{esc(t.caption)}**", ""] if t.caption else []
    lines.append("| " + " | ".join(esc(h) for h in t.head) + " |")
    lines.append("|" + "|".join("---:" if i and _numeric_column(t, i) else "---" for i in range(len(t.head))) + "|")
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in t.body]
    return lines


def _numeric_column(t: Table, i: int) -> bool:
    return any({"num", "count"} & set(row[i].classes) for row in t.body if i < len(row))


CSS = """
:root { --fg:#1b1f24; --muted:#5b6470; --line:#d8dde3; --best:#dff3e4; --bg:#fff; --head:#f3f5f7; }
* { box-sizing: border-box; }
body { margin: 0; padding: 24px 32px 64px; color: var(--fg); background: var(--bg);
       font: 14px/1.45 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", "Liberation Sans", sans-serif; }
h1 { font-size: 22px; margin: 0 0 6px; }
h2 { font-size: 18px; margin: 34px 0 8px; border-bottom: 1px solid var(--line); }
nav { margin: 0 0 8px; color: var(--muted); } nav a { color: #0b5cad; margin-right: 14px; text-decoration: none; }
p { margin: 6px 0; max-width: 110ch; }
p.note { color: var(--muted); }
p.pass { color: #116329; font-weight: 600; } p.fail { color: #b3261e; font-weight: 600; }
.scroll { overflow-x: auto; margin: 8px 0 14px; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
caption { text-align: left; font-weight: 600; padding: 4px 0; }
th, td { border: 1px solid var(--line); padding: 3px 8px; white-space: nowrap; }
th { background: var(--head); font-weight: 600; text-align: left; }
td.num { text-align: right; font-family: "DejaVu Sans Mono", "Liberation Mono", monospace; font-size: 13px; }
td.best { background: var(--best); font-weight: 700; }
td.count { text-align: right; font-variant-numeric: tabular-nums; }
td.missing { color: #9aa3ad; text-align: center; }
td.setting { font-family: "DejaVu Sans Mono", "Liberation Mono", monospace; font-size: 12.5px; }
td.verdict-better { color: #116329; } td.verdict-worse { color: #b3261e; }
.charts { display: flex; flex-wrap: wrap; gap: 10px 28px; }
figure { margin: 6px 0; } figcaption { font-weight: 600; margin-bottom: 2px; }
svg text { font-size: 11px; fill: var(--fg); }
svg text.label { font-family: "DejaVu Sans Mono", "Liberation Mono", monospace; }
svg text.tick { fill: var(--muted); }
svg line.grid { stroke: #e6e9ed; }
"""


def render_html(sections: list[Section], meta: dict) -> str:
    nav = " ".join(f'<a href="#{s.id}">{html.escape(s.title)}</a>' for s in sections)
    body = [f"<h1>Sounding run report</h1><nav>{nav}</nav>"]
    for s in sections:
        body.append(f'<section id="{s.id}"><h2>{html.escape(s.title)}</h2>')
        body += _html_blocks(s.blocks)
        body.append("</section>")
    title = html.escape(f"Sounding report — {', '.join(meta.get('datasets') or [])}".rstrip(" —,"))
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{title}</title><style>{CSS}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")


def _html_blocks(blocks: list) -> list[str]:
    out, charts = [], []
    for b in blocks + [None]:  # None flushes a trailing run of charts
        if isinstance(b, Chart):
            charts.append(f"<figure><figcaption>{html.escape(b.caption)}</figcaption>{b.svg}</figure>")
            continue
        if charts:
            out.append('<div class="charts">' + "".join(charts) + "</div>")
            charts = []
        if isinstance(b, Para):
            out.append(f'<p class="{b.kind}">{html.escape(b.text)}</p>' if b.kind else f"<p>{html.escape(b.text)}</p>")
        elif isinstance(b, Table):
            out.append(_html_table(b))
    return out


def _html_table(t: Table) -> str:
    caption = f"<caption>{html.escape(t.caption)}</caption>" if t.caption else ""
    head = "".join(f"<th>{html.escape(h)}</th>" for h in t.head)
    head = f"<thead><tr>{head}</tr></thead>" if any(t.head) else ""  # a key/value table needs no header
    rows = "".join("<tr>" + "".join(_html_cell(c) for c in row) + "</tr>" for row in t.body)
    return f'<div class="scroll"><table>{caption}{head}<tbody>{rows}</tbody></table></div>'


def _html_cell(c: Cell) -> str:
    attrs = "".join(f' data-{k}="{html.escape(v)}"' for k, v in c.data.items())
    if c.classes:
        attrs += f' class="{" ".join(c.classes)}"'
    if c.title:
        attrs += f' title="{html.escape(c.title)}"'
    return f"<td{attrs}>{html.escape(c.text)}</td>"


# -- public API --------------------------------------------------------------------------------------------
def markdown_report(rows: list[dict], meta: dict, per_query: dict | None = None) -> str:
    """The report as Markdown (for the terminal and report.md); significance needs `per_query`."""
    return render_markdown(build_sections(rows, meta, per_query), meta or {})


def html_report(rows: list[dict], meta: dict, per_query: dict | None = None) -> str:
    """The report as one self-contained HTML page."""
    return render_html(build_sections(rows, meta, per_query), meta or {})


def write_reports(out_dir: Path) -> tuple[Path, Path]:
    """Read OUT/results.json, OUT/run.json and the per-query files; write OUT/report.md and OUT/report.html."""
    out_dir = Path(out_dir)
    rows, meta, per_query = load_out(out_dir)
    sections = build_sections(rows, meta, per_query)  # built once: significance tests are the slow part
    md, page = out_dir / "report.md", out_dir / "report.html"
    md.write_text(render_markdown(sections, meta), encoding="utf-8")
    page.write_text(render_html(sections, meta), encoding="utf-8")
    return md, page


__all__ = ["write_reports", "markdown_report", "html_report", "load_out", "build_sections"]
