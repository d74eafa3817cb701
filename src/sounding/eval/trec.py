"""TREC run and qrels files: read (plain or gzip, checked line by line) and write (atomically).

Formats:
- run: `qid Q0 docid rank score tag`, fields separated by ASCII whitespace. The rank and tag columns are
  not used: trec_eval ranks by score (ties by docid descending), and so does Sounding.
- qrels: TREC `qid iter docid grade` (whitespace separated) or BEIR TSV `query-id<TAB>corpus-id<TAB>score`
  with a header line. CRLF line ends are accepted (scifact's qrels have them).
gzip is recognised by its magic bytes, not by the file name.
"""
from __future__ import annotations

import gzip
import math
import os
import re
import zlib
from itertools import pairwise
from pathlib import Path

import numpy as np

from ..errors import DataError, SoundingError
from .metrics import Qrels, Run, trec_order

# Files at least this large (about a million lines) go through the numba scanner: its fixed cost, importing
# numba and loading the compiled kernels (cached on disk after a first ~5 s compile), is 0.5-1 s, which the
# line loop's ~1 us a line only exceeds on big files.
_FAST_PATH_MIN_BYTES = 32 << 20


def _read_bytes(path: str | os.PathLike) -> bytes:
    p = Path(path)
    try:
        with open(p, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise SoundingError(f"{p}: no such file") from None
    except IsADirectoryError:
        raise SoundingError(f"{p}: is a folder, not a file") from None
    except OSError as e:
        raise SoundingError(f"{p}: cannot read ({e.strerror or e})") from None
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (EOFError, OSError, zlib.error) as e:
            raise SoundingError(f"{p}: gzip data is truncated or corrupt ({e})") from None
    return data


def _text(field: bytes, path, lineno: int) -> str:
    try:
        return field.decode("utf-8")
    except UnicodeDecodeError:
        raise DataError(path, lineno, f"{field!r} is not UTF-8 text") from None


# ---------------------------------------------------------------------------------------------- runs


def read_run(path: str | os.PathLike) -> Run:
    """Read a TREC run file into {qid: {docid: score}}.

    Raises DataError (naming file:line) for a line without 6 columns, a score that is not a finite
    number, or a (qid, docid) pair that appears twice; SoundingError for a missing or truncated file.
    """
    data = _read_bytes(path)
    if len(data) >= _FAST_PATH_MIN_BYTES:
        run = _read_run_fast(data)
        if run is not None:
            return run
    return _read_run_lines(data, path)


def _read_run_lines(data: bytes, path) -> Run:
    """The reference reader: one line at a time, and the one place that reports what is wrong."""
    run: Run = {}
    for lineno, line in enumerate(data.split(b"\n"), 1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != 6:
            raise DataError(path, lineno, f"expected 6 columns 'qid Q0 docid rank score tag', found {len(fields)}")
        try:
            score = float(fields[4])
        except ValueError:
            raise DataError(path, lineno, f"score {fields[4].decode('utf-8', 'replace')!r} is not a number") from None
        if not math.isfinite(score):
            raise DataError(path, lineno, f"score {fields[4].decode('utf-8', 'replace')!r} is not finite")
        qid, docid = _text(fields[0], path, lineno), _text(fields[2], path, lineno)
        hits = run.setdefault(qid, {})
        if docid in hits:
            raise DataError(path, lineno, f"document {docid!r} appears twice for query {qid!r}")
        hits[docid] = score
    return run


def _read_run_fast(data: bytes) -> Run | None:
    """Same result as _read_run_lines for well-formed ASCII files, several times faster; None otherwise."""
    from ._fastscan import join_fields, new_field_rows, parse_scores, scan_run

    buf = np.frombuffer(data, np.uint8)
    off, ok = scan_run(buf, data.count(b"\n") + 1)
    if not ok:
        return None
    if len(off) == 0:
        return {}
    scores, exact = parse_scores(buf, off[:, 4], off[:, 5])
    for r in np.flatnonzero(~exact).tolist():  # what the fast path cannot parse, float() decides
        try:
            scores[r] = float(data[off[r, 4] : off[r, 5]])
        except ValueError:
            return None
    if not np.isfinite(scores).all():
        return None
    docids = join_fields(buf, off[:, 2], off[:, 3]).tobytes().decode("ascii").split("\n")
    values = scores.tolist()
    bounds = [*new_field_rows(buf, off[:, 0], off[:, 1]).tolist(), len(off)]
    run: Run = {}
    for a, b in pairwise(bounds):
        qid = data[off[a, 0] : off[a, 1]].decode("ascii")
        hits = dict(zip(docids[a:b], values[a:b]))
        if len(hits) != b - a:
            return None  # a duplicate: let the line reader name it
        old = run.get(qid)
        if old is None:
            run[qid] = hits
        else:  # the query's lines are not contiguous
            if not old.keys().isdisjoint(hits):
                return None
            old.update(hits)
    return run


_WHITESPACE = re.compile(r"\s")


def write_run(run: Run, path: str | os.PathLike, tag: str = "sounding", k: int | None = None) -> Path:
    """Write a TREC run file (gzip if the name ends in .gz), replacing `path` only when complete.

    Queries in sorted order; each query's hits in trec_eval's order (score descending, docid descending),
    ranked from 1, cut to the top k if given. Scores are written as f"{score:.9g}", and the order is taken
    from the written values, so the file ranks exactly as trec_eval will rank it.
    """
    path = Path(path)
    if _WHITESPACE.search(tag) or not tag:
        raise SoundingError(f"run tag {tag!r} must be one word")
    chunks = []
    for qid in sorted(run):
        hits = run[qid]
        if _WHITESPACE.search(qid + "".join(hits)) or not qid or "" in hits:
            raise SoundingError(f"query {qid!r}: a qid or docid is empty or holds whitespace; TREC files cannot say it")
        shown = {}
        for d, s in hits.items():
            if not math.isfinite(s):
                raise SoundingError(f"query {qid!r}, document {d!r}: score {s} is not finite")
            shown[d] = f"{s:.9g}"
        as_read = {d: float(t) for d, t in shown.items()}
        order = trec_order(as_read)
        if k is not None:
            order = order[:k]
        chunks.append("".join(f"{qid} Q0 {d} {r} {shown[d]} {tag}\n" for r, d in enumerate(order, 1)))
    body = "".join(chunks).encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as f:
            if path.name.endswith(".gz"):
                with gzip.GzipFile(filename="", mode="wb", fileobj=f, mtime=0) as gz:
                    gz.write(body)
            else:
                f.write(body)
        os.replace(tmp, path)  # atomic: readers see the old file or the whole new one
    finally:
        tmp.unlink(missing_ok=True)
    return path


# --------------------------------------------------------------------------------------------- qrels


def read_qrels(path: str | os.PathLike) -> Qrels:
    """Read TREC qrels (`qid iter docid grade`) or BEIR TSV qrels (with header) into {qid: {docid: grade}}.

    The format is decided by the first line: three tab-separated fields mean BEIR TSV (a first line whose
    grade is not an integer is its header). Raises DataError naming file:line for a wrong column count,
    a grade that is not an integer, or a (qid, docid) pair judged twice.
    """
    data = _read_bytes(path)
    qrels: Qrels = {}
    tsv = None
    for lineno, raw in enumerate(data.split(b"\n"), 1):
        line = raw.rstrip(b"\r")
        if not line.strip():
            continue
        if tsv is None:
            tsv = len(line.split(b"\t")) == 3
            if tsv and not _is_int(line.split(b"\t")[2]):
                continue  # BEIR's header: query-id, corpus-id, score
        fields = [f.strip() for f in line.split(b"\t")] if tsv else line.split()
        want = 3 if tsv else 4
        if len(fields) != want:
            form = "'query-id<TAB>corpus-id<TAB>score'" if tsv else "'qid iter docid grade'"
            raise DataError(path, lineno, f"expected {want} columns {form}, found {len(fields)}")
        qid, docid, grade = fields[0], fields[-2], fields[-1]
        if not _is_int(grade):
            raise DataError(path, lineno, f"grade {grade.decode('utf-8', 'replace')!r} is not an integer")
        if not qid or not docid:
            raise DataError(path, lineno, "empty query or document id")
        judged = qrels.setdefault(_text(qid, path, lineno), {})
        d = _text(docid, path, lineno)
        if d in judged:
            raise DataError(path, lineno, f"document {d!r} is judged twice for query {qid.decode()!r}")
        judged[d] = int(grade)
    return qrels


def _is_int(field: bytes) -> bool:
    try:
        int(field)
        return True
    except ValueError:
        return False
