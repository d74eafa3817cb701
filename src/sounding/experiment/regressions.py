"""Regressions in the manner of Anserini's: one YAML file per dataset × condition, with expected scores.

A file `regressions/<dataset>.<condition>.yaml` holds:

    name:     scifact.bm25-flat-lucene-exact          (must equal the file name without .yaml)
    dataset:  scifact
    command:  sounding run scifact --layouts flat ...  (no --out: the runner adds it; no --data-dir either)
    select:   {engine: sounding, arm: bm25, layout: flat, params: anserini, lucene_norms: true}
    metrics:  {nDCG@10: {expected: 0.6789, tolerance: 0.0001, source: ...optional...}, ...}
    source:   where the expected values come from
    requires: [beir/scifact]                           (data paths; `<path>/corpus` also needs the documents)
    description: optional free text

`run_regression` runs the command through the CLI entry point into a scratch folder, picks the one
row of results.json that matches `select` (and `dataset`), and compares every metric with its
expected value: it passes when |actual - expected| <= tolerance. The command runner is injectable
(`run_command(args, out_dir) -> exit code`) so the logic is testable without the engine.
"""
from __future__ import annotations

import contextlib
import fnmatch
import io
import json
import math
import os
import shlex
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from ..errors import DataError, SoundingError
from ..results import ResultRow

RunCommand = Callable[[list[str], Path], int]

_KEYS = {"name", "dataset", "command", "select", "metrics", "source", "requires", "description"}
_REQUIRED = ("name", "dataset", "command", "select", "metrics", "source", "requires")
_EPS = 1e-9  # float noise: 0.6790 - 0.6789 is 1.0000000000000445e-04, which must pass a 0.0001 tolerance


# -- the files -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Expected:
    expected: float
    tolerance: float
    source: str | None = None  # overrides the regression's source for this one measure


@dataclass(frozen=True)
class Regression:
    name: str
    dataset: str
    command: str
    select: dict
    metrics: dict[str, Expected]
    source: str
    requires: tuple[str, ...]
    description: str = ""
    path: Path | None = None

    def args(self, data_dir: str | Path | None = None) -> list[str]:
        """The command's arguments after `sounding`, plus --data-dir when given (--out is the runner's)."""
        args = shlex.split(self.command)[1:]
        return args + (["--data-dir", str(data_dir)] if data_dir else [])


def default_dir() -> Path:
    """./regressions when it exists (a checkout), else the one beside the source tree."""
    for cand in (Path.cwd() / "regressions", Path(__file__).resolve().parents[3] / "regressions"):
        if cand.is_dir():
            return cand
    raise SoundingError("no regressions/ folder here or beside the Sounding sources; pass --dir")


def load_regressions(folder: str | Path | None = None) -> list[Regression]:
    """Every regressions/*.yaml, sorted by name."""
    folder = Path(folder) if folder is not None else default_dir()
    if not folder.is_dir():
        raise SoundingError(f"{folder}: no such folder of regressions")
    regs = [load_regression(p) for p in sorted(folder.glob("*.yaml"))]
    if not regs:
        raise SoundingError(f"{folder}: no regression files (*.yaml)")
    return regs


def load_regression(path: str | Path) -> Regression:
    """Parse and check one file; a malformed file raises DataError naming the file and the key."""
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.MarkedYAMLError as e:
        line = e.problem_mark.line + 1 if e.problem_mark else None
        raise DataError(path, line, f"not valid YAML: {e.problem}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise DataError(path, None, f"cannot read: {e}") from None
    if not isinstance(data, dict):
        raise DataError(path, None, "expected a mapping of keys (name, dataset, command, ...) at the top level")

    def bad(key: str, what: str):
        return DataError(path, None, f"key {key!r}: {what}")

    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise bad(unknown[0], f"unknown key; allowed: {', '.join(sorted(_KEYS))}")
    for key in _REQUIRED:
        if key not in data:
            raise bad(key, "missing")
    for key in ("name", "dataset", "command", "source"):
        if not isinstance(data[key], str) or not data[key].strip():
            raise bad(key, f"expected a non-empty string, got {data[key]!r}")
    if data["name"] != path.stem:  # names are how --only finds a regression: keep them unique and predictable
        raise bad("name", f"{data['name']!r} differs from the file name {path.stem!r}")

    try:
        tokens = shlex.split(data["command"])
    except ValueError as e:
        raise bad("command", f"cannot split into arguments ({e})") from None
    if len(tokens) < 2 or tokens[0] != "sounding":
        raise bad("command", f"expected a `sounding ...` command line, got {data['command']!r}")
    for flag in ("--out", "-o", "--data-dir"):
        if any(t == flag or t.startswith(flag + "=") for t in tokens):
            raise bad("command", f"must not give {flag}: `sounding regress` supplies it")

    select = data["select"]
    if not isinstance(select, dict) or not select:
        raise bad("select", "expected a mapping such as {engine: sounding, layout: flat}")
    for k, v in select.items():
        if not isinstance(v, (str, int, float, bool)):
            raise bad(f"select.{k}", f"expected a string, number or boolean, got {v!r}")

    metrics = data["metrics"]
    if not isinstance(metrics, dict) or not metrics:
        raise bad("metrics", "expected a mapping {measure: {expected: ..., tolerance: ...}}")
    parsed: dict[str, Expected] = {}
    for measure, spec in metrics.items():
        key = f"metrics.{measure}"
        _check_measure(str(measure), lambda what, key=key: bad(key, what))
        if not isinstance(spec, dict):
            raise bad(key, f"expected {{expected: ..., tolerance: ...}}, got {spec!r}")
        extra = sorted(set(spec) - {"expected", "tolerance", "source"})
        if extra:
            raise bad(f"{key}.{extra[0]}", "unknown key; allowed: expected, tolerance, source")
        for sub in ("expected", "tolerance"):
            v = spec.get(sub)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise bad(f"{key}.{sub}", f"expected a number, got {v!r}")
        if spec["tolerance"] < 0:
            raise bad(f"{key}.tolerance", f"must not be negative, got {spec['tolerance']}")
        src = spec.get("source")
        if src is not None and (not isinstance(src, str) or not src.strip()):
            raise bad(f"{key}.source", f"expected a non-empty string, got {src!r}")
        parsed[str(measure)] = Expected(float(spec["expected"]), float(spec["tolerance"]), src)

    requires = data["requires"]
    if not isinstance(requires, list) or not all(isinstance(r, str) and r.strip() for r in requires):
        raise bad("requires", f"expected a list of data paths such as [beir/scifact], got {requires!r}")
    description = data.get("description") or ""
    if not isinstance(description, str):
        raise bad("description", f"expected a string, got {description!r}")
    return Regression(data["name"], data["dataset"], data["command"].strip(), dict(select), parsed,
                      data["source"].strip(), tuple(requires), description.strip(), path)


def _check_measure(name: str, bad) -> None:
    """A measure name in our notation; `/raw` marks the value that keeps own hits (BEIR convention off)."""
    from ..eval import parse_measure

    base = name.removesuffix("/raw")
    try:
        canonical = str(parse_measure(base))
    except SoundingError as e:
        raise bad(str(e)) from None
    if canonical != base:
        raise bad(f"write the measure as {canonical!r} (the name results.json uses)")


# -- data presence -------------------------------------------------------------------------------
def missing_data(reg: Regression, data_dir: str | Path | None = None) -> str | None:
    """Why the regression cannot run here (one line), or None when all it requires is present."""
    for req in reg.requires:
        reason = _missing(req.strip().strip("/"), data_dir)
        if reason:
            return reason
    return None


def _missing(req: str, data_dir: str | Path | None) -> str | None:
    from ..datasets import REGISTRY, find_local
    from ..datasets.counts import split_files

    path, need_corpus = (req[: -len("/corpus")], True) if req.endswith("/corpus") else (req, False)
    where = f"--data-dir {data_dir}" if data_dir else "$SOUNDING_DATA or the Sounding cache"
    info = next((i for i in REGISTRY.values() if path in (i.cache_subpath, i.name)), None)
    if info is None:  # not a registry dataset: a plain path under one of the data roots
        if any((root / path).exists() for root in _data_roots(data_dir)):
            return None
        return f"{req} not found in {where}"
    root = find_local(info, data_dir=data_dir)
    if root is None:
        return f"{path} not found in {where}"
    if need_corpus:
        try:
            files, _ = split_files(root, "test", info)
        except SoundingError as e:
            return f"{path}: {e}"
        if files.corpus is None:
            return f"{path}: no corpus in {root} (topics and qrels only)"
    return None


def _data_roots(data_dir: str | Path | None) -> list[Path]:
    from ..datasets import cache_home

    if data_dir:
        return [Path(data_dir)]
    env = os.environ.get("SOUNDING_DATA", "")
    return [Path(p) for p in env.split(os.pathsep) if p] + [cache_home()]


# -- running -------------------------------------------------------------------------------------
@dataclass
class Check:
    measure: str
    expected: float
    tolerance: float
    actual: float | None
    source: str

    @property
    def diff(self) -> float | None:
        return None if self.actual is None else self.actual - self.expected

    @property
    def ok(self) -> bool:
        return self.actual is not None and math.isfinite(self.actual) and abs(self.diff) <= self.tolerance + _EPS


@dataclass
class Outcome:
    regression: Regression
    status: str  # pass | fail | error | skip
    checks: list[Check] = field(default_factory=list)
    reason: str = ""  # why skipped or why it errored
    output: str = ""  # the command's captured output (shown when it errors)
    seconds: float = 0.0

    @property
    def failed(self) -> bool:
        return self.status in ("fail", "error")


def subprocess_run_command(args: list[str], out_dir: Path) -> int:
    """Run `sounding ARGS --out OUT_DIR` in a fresh process, as a user would; its output is printed
    here (so a caller capturing this process's stdout sees it). `sounding regress` passes an
    in-process runner instead (cli/regress_cmd.py), which saves the start-up per regression."""
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-m", "sounding", *args, "--out", str(out_dir)], capture_output=True, text=True)
    print(r.stdout + r.stderr, end="")
    return r.returncode


def run_regression(reg: Regression, *, data_dir: str | Path | None = None, run_command: RunCommand | None = None,
                   workdir: str | Path | None = None, capture: bool = True) -> Outcome:
    """Run one regression (or skip it when its data is missing) and compare its metrics."""
    reason = missing_data(reg, data_dir)
    if reason:
        return Outcome(reg, "skip", reason=reason)
    run_command = run_command or subprocess_run_command
    start = time.perf_counter()
    with contextlib.ExitStack() as stack:
        if workdir is None:
            workdir = stack.enter_context(tempfile.TemporaryDirectory(prefix="sounding-regress-"))
        out_dir = Path(workdir) / reg.dataset  # one folder per dataset: its index is reused by the next regression
        results = out_dir / "results.json"
        results.unlink(missing_ok=True)  # never read a previous regression's rows
        buf = io.StringIO()
        try:
            with contextlib.redirect_stdout(buf) if capture else contextlib.nullcontext(), \
                    contextlib.redirect_stderr(buf) if capture else contextlib.nullcontext():
                code = run_command(reg.args(data_dir), out_dir)
        except SoundingError as e:
            return Outcome(reg, "error", reason=str(e), output=buf.getvalue(), seconds=time.perf_counter() - start)
        seconds = time.perf_counter() - start
        if code != 0:
            return Outcome(reg, "error", reason=f"`{reg.command}` exited with code {code}", output=buf.getvalue(),
                           seconds=seconds)
        try:
            row = select_row(_read_rows(results), reg)
        except SoundingError as e:
            return Outcome(reg, "error", reason=str(e), output=buf.getvalue(), seconds=seconds)
    typed = ResultRow.from_dict(row)
    checks = [Check(m, e.expected, e.tolerance, _number(typed.value(m)), e.source or reg.source)
              for m, e in reg.metrics.items()]
    return Outcome(reg, "pass" if all(c.ok for c in checks) else "fail", checks, seconds=seconds)


def run_regressions(regs: list[Regression], *, data_dir: str | Path | None = None,
                    run_command: RunCommand | None = None, capture: bool = True,
                    progress: Callable[[Regression], None] | None = None) -> list[Outcome]:
    """Run several regressions, sharing one scratch folder (so a dataset is indexed once)."""
    work = tempfile.mkdtemp(prefix="sounding-regress-")
    try:
        out = []
        for reg in regs:
            if progress:
                progress(reg)
            out.append(run_regression(reg, data_dir=data_dir, run_command=run_command, workdir=work, capture=capture))
        return out
    finally:
        shutil.rmtree(work, ignore_errors=True)


def select_row(rows: list[dict], reg: Regression) -> dict:
    """The one results row for the regression's dataset that matches every `select` key."""
    want = {"dataset": reg.dataset, **reg.select}
    hits = [r for r in rows if all(r.get(k) == v for k, v in want.items())]
    if len(hits) == 1:
        return hits[0]
    have = ", ".join(sorted({f"{r.get('dataset')}:{r.get('setting', '?')}" for r in rows})) or "none"
    if not hits:
        raise SoundingError(f"no row of results.json matches {want} (rows: {have})")
    raise SoundingError(f"{len(hits)} rows of results.json match {want}; add keys to `select` to pick one")


def filter_regressions(regs: list[Regression], patterns: list[str] | None) -> list[Regression]:
    """Regressions whose name matches any pattern (exact name or shell glob such as `scifact.*`)."""
    if not patterns:
        return regs
    chosen = [r for r in regs if any(fnmatch.fnmatchcase(r.name, p) for p in patterns)]
    if not chosen:
        raise SoundingError(f"no regression matches {', '.join(patterns)}; known: {', '.join(r.name for r in regs)}")
    return chosen


def _read_rows(results: Path) -> list[dict]:
    if not results.is_file():
        raise SoundingError(f"the command wrote no {results.name}")
    try:
        rows = json.loads(results.read_text())
    except json.JSONDecodeError as e:
        raise SoundingError(f"{results}: not valid JSON ({e})") from None
    if not isinstance(rows, list):
        raise SoundingError(f"{results}: expected a list of rows")
    return rows


def _number(v) -> float | None:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


# -- reporting -----------------------------------------------------------------------------------
def describe_failure(o: Outcome) -> list[str]:
    """Readable lines for a failed or errored regression: expected, actual, difference, tolerance, source."""
    where = f" ({o.regression.path})" if o.regression.path else ""
    lines = [f"FAILED {o.regression.name}{where}"]
    if o.status == "error":
        lines.append(f"  {o.reason}")
        tail = [line for line in o.output.strip().splitlines() if line.strip()][-15:]
        lines += [f"  | {line}" for line in tail]
        return lines
    for c in o.checks:
        if c.ok:
            continue
        if c.actual is None:
            lines.append(f"  {c.measure}: expected {c.expected:.4f} ± {c.tolerance:g}, but results.json has no "
                         f"{c.measure} for this row")
        else:
            lines.append(f"  {c.measure}: expected {c.expected:.4f} ± {c.tolerance:g}, actual {c.actual:.4f}, "
                         f"difference {c.diff:+.4f} (outside the tolerance by {abs(c.diff) - c.tolerance:.4f})")
        lines.append(f"      source: {c.source}")
    return lines


def render_docs(regs: list[Regression]) -> str:
    """docs/regressions.md: expected values and sources, grouped by dataset, generated from the YAML files."""
    out = ["# Regressions", "",
           "<!-- Generated by `sounding regress --docs docs/regressions.md` from regressions/*.yaml. Do not edit. -->", "",
           "Each regression runs one `sounding run` command and compares the selected results row with",
           "published figures. Run them with `sounding regress [--only NAME] [--data-dir DIR]`; a regression",
           "whose data is not present is skipped with the reason. `±` is the tolerance: a regression passes",
           "when |actual − expected| ≤ tolerance. `/raw` marks a value that keeps own hits (no BEIR convention).", ""]
    by_dataset: dict[str, list[Regression]] = {}
    for r in regs:
        by_dataset.setdefault(r.dataset, []).append(r)
    out += ["| dataset | regressions |", "| --- | --- |"]
    out += [f"| [{d}](#{d}) | {len(rs)} |" for d, rs in by_dataset.items()]
    out.append("")
    for dataset, rs in by_dataset.items():
        measures = list(dict.fromkeys(m for r in rs for m in r.metrics))
        out += [f"## {dataset}", "", "| regression | " + " | ".join(measures) + " | needs |",
                "| --- | " + " | ".join("---:" for _ in measures) + " | --- |"]
        for r in rs:
            cells = [f"{r.metrics[m].expected:.4f} ± {r.metrics[m].tolerance:g}" if m in r.metrics else "–"
                     for m in measures]
            out.append(f"| `{r.name}` | " + " | ".join(cells) + f" | {', '.join(r.requires) or '–'} |")
        out += ["", "Commands:", ""]
        out += [f"- `{r.name}`: `{r.command}`" for r in rs]
        sources: dict[str, list[str]] = {}
        for r in rs:
            for m, e in r.metrics.items():
                sources.setdefault(e.source or r.source, [])
                label = f"`{r.name}` {m}" if e.source else f"`{r.name}`"
                if label not in sources[e.source or r.source]:
                    sources[e.source or r.source].append(label)
        out += ["", "Sources:", ""]
        for src, users in sources.items():
            out.append(f"- {src} — {', '.join(users)}")
        notes = [f"- `{r.name}`: {r.description}" for r in rs if r.description]
        if notes:
            out += ["", "Notes:", "", *notes]
        out.append("")
    return "\n".join(out).rstrip() + "\n"


__all__ = ["Regression", "Expected", "Check", "Outcome", "load_regression", "load_regressions", "default_dir",
           "missing_data", "run_regression", "run_regressions", "select_row", "filter_regressions",
           "subprocess_run_command", "describe_failure", "render_docs"]
