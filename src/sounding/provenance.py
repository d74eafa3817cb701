"""Where a run came from, as an ir_metadata header (PRIMAD, schema 0.1) at the top of its run file.

ir_metadata (ir-metadata.org; Breuer et al., SIGIR 2022) describes a run by the PRIMAD model — Platform,
Research goal, Implementation, Method, Actor, Data — as YAML between `ir_metadata.start` and `ir_metadata.end`,
every line a `#` comment, at the top of the run file. trec_eval 10 and `sounding eval` skip comment lines, so
an annotated run scores exactly as the bare one; repro_eval's `MetadataHandler.read_metadata` reads it back.

    # ir_metadata.start
    # schema-version: '0.1'
    # tag: sounding
    # platform:
    #   hardware: ...
    # ir_metadata.end
    q1 Q0 d3 1 12.5 sounding

`sounding search --metadata` and `sounding run --metadata` write it (Sounding's version, the command, the
machine, the BM25 settings and analyzer, the dataset's name, ir_datasets id and checksums); `read_metadata`
reads it back, and a header that starts but does not parse is said in one line naming the file and line.
The Actor and Research goal are the user's to add (names, venues): Sounding does not guess them.
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from .errors import DataError
from .validate import MAX_LINE

START, END = "# ir_metadata.start", "# ir_metadata.end"
SCHEMA_VERSION = 0.1  # a YAML number, as the schema's own examples write it
_LIBRARIES = ("numpy", "numba", "scipy", "pytrec-eval-terrier", "PyStemmer", "torch", "sentence-transformers",
              "onnxruntime", "ir_datasets", "python-terrier")


def cpu_name() -> str:
    """The CPU's model name (Linux: /proc/cpuinfo), else what `platform` says."""
    import platform

    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _ram() -> str | None:
    try:
        pages, size = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None
    return f"{pages * size / 2**30:.0f} GB"


def _distribution() -> str | None:
    import platform

    try:
        return platform.freedesktop_os_release().get("PRETTY_NAME")
    except (OSError, AttributeError):
        return None


def _version(dist: str) -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:
        return None


def platform_block() -> dict:
    """ir_metadata's `platform`: hardware, operating system, the installed libraries Sounding uses."""
    import platform

    from . import __version__

    libs = [f"python=={platform.python_version()}"] + [f"{d}=={v}" for d in _LIBRARIES if (v := _version(d))]
    hardware: dict = {"cpu": {"model": cpu_name(), "architecture": platform.machine(), "number of cores": os.cpu_count()}}
    if _ram():
        hardware["ram"] = _ram()
    system = {"kernel": f"{platform.system()} {platform.release()}"}
    if _distribution():
        system["distribution"] = _distribution()
    return {"hardware": hardware, "operating system": system,
            "software": {"libraries": {"python": libs}, "retrieval toolkit": [f"sounding=={__version__}"]}}


def run_metadata(*, tag: str, method: Mapping, data: Mapping, command: str | None = None) -> dict:
    """The ir_metadata of a run: `method` and `data` blocks as the caller knows them, the platform and the
    implementation (the command line, when given; Sounding's version is in the platform's retrieval toolkit)."""
    return {
        "schema-version": SCHEMA_VERSION,
        "run-version": 1.0,
        "tag": tag,
        "platform": platform_block(),
        "implementation": {**({"executable": {"cmd": command}} if command else {}), "source": {"lang": ["Python"]}},
        "method": {"automatic": True, "score ties": "reverse alphabetical order", **method},
        "data": dict(data),
    }


def retrieval_method(analyzer: str | None, steps: list[Mapping]) -> dict:
    """ir_metadata's `method` (beside `automatic` and `score ties`): the analyzer and the retrieval steps, each
    a mapping of its name and settings (only scalars: lists of queries and the like are left out)."""
    def scalars(step: Mapping) -> dict:
        return {k.replace("_", " "): v for k, v in step.items()
                if isinstance(v, (str, int, float, bool)) and v is not None and v != ""}

    return {**({"indexing": {"analyzer": analyzer}} if analyzer else {}), "retrieval": [scalars(s) for s in steps]}


def test_collection(name: str | None, *, ir_datasets: str | None = None, split: str | None = None,
                    files: Mapping[str, str | os.PathLike | None] | None = None) -> dict:
    """ir_metadata's `data` → `test collection`: the dataset's name, ir_datasets id, split, and the sha256 of
    each of its files given ({"qrels": path, "topics": path})."""
    from .io import file_sha256

    out: dict = {"name": name} if name else {}
    if ir_datasets:
        out["ir_datasets"] = ir_datasets
    if split:
        out["split"] = split
    for what, path in (files or {}).items():
        if path is not None:
            out[f"{what} sha256"] = file_sha256(path)
    return {"test collection": out}


def header(metadata: Mapping) -> str:
    """The comment lines of a run file's ir_metadata header (ending in a newline)."""
    import yaml

    body = yaml.safe_dump(dict(metadata), sort_keys=False, allow_unicode=True, width=4096)
    return START + "\n" + "".join(f"# {line}\n" for line in body.splitlines()) + END + "\n"


def read_metadata(path: str | os.PathLike) -> dict | None:
    """The ir_metadata header of a run file as a dict, None when it has none; DataError (one line, naming the
    file and line) for a header that starts but is not closed or whose YAML does not parse."""
    import gzip

    path = Path(path)
    with open(path, "rb") as raw:
        magic = raw.read(2)
    opener = gzip.open if magic == b"\x1f\x8b" else open
    lines: list[str] = []
    with opener(path, "rt", encoding="utf-8", errors="replace") as f:
        first = f.readline(len(START) + 2)  # bounded: a file of one endless line is not read whole here
        if first.rstrip("\r\n") != START:
            return None
        lineno = 1
        while line := f.readline(MAX_LINE + 1):
            lineno += 1
            if len(line) > MAX_LINE:
                raise DataError(path, lineno, f"line longer than {MAX_LINE >> 10} KiB")
            text = line.rstrip("\r\n")
            if text.rstrip() == END:
                return _parse(lines, path)
            if not text.startswith("#"):
                raise DataError(path, lineno, f"ir_metadata header: no '{END}' line before the first result line")
            lines.append(text[2:] if text.startswith("# ") else text[1:])
    raise DataError(path, len(lines) + 2, f"ir_metadata header: no '{END}' line before the end of the file")


def _parse(lines: list[str], path: Path) -> dict:
    import yaml

    try:
        got = yaml.safe_load("\n".join(lines))
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = mark.line + 2 if mark is not None else 1
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        raise DataError(path, where, f"ir_metadata header: not YAML ({problem})") from None
    if not isinstance(got, dict):
        raise DataError(path, 2, "ir_metadata header: not a YAML mapping (key: value lines)")
    return got


def header_warning(path: str | os.PathLike) -> str | None:
    """One line saying what is wrong with a run file's ir_metadata header (None when it has a good one or
    none): `sounding eval` says it and scores the run anyway, as trec_eval, which skips every comment line."""
    try:
        read_metadata(path)
    except DataError as e:
        return f"{e} (the header is skipped; the run is scored as it is)"
    return None
