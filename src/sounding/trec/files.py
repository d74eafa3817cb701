"""TREC run and qrels files: read (plain or gzip, checked line by line) and write (atomically).

Formats:
- run: `qid Q0 docid rank score tag`, fields separated by ASCII whitespace. The rank and tag columns are
  not used: trec_eval ranks by score (ties by docid descending), and so does Sounding.
- qrels: TREC `qid iter docid grade` (whitespace separated) or BEIR TSV `query-id<TAB>corpus-id<TAB>score`
  with a header line. CRLF line ends are accepted (scifact's qrels have them).
gzip is recognised by its magic bytes, not by the file name.

Numbers are read as trec_eval 10 reads them, and a field it would read only in part is an error:
- a score is a whole C `strtod` number: decimal (`2.5`, `-1e-3`, `.5`, `5.`) or hexadecimal (`0x1.8p1`,
  `0x10`), read in double precision. `inf`, `nan` and values beyond double range are refused (not finite),
  and so is anything strtod would read only a prefix of (`1_0`: trec_eval reads 1, Python 10; `1.2.3`).
- a grade is a whole C `strtol` base-10 integer (`[+-]digits`) within a 64-bit long.
- the rank column is not read, as trec_eval does not read it.
- a NUL byte anywhere in a line is an error (trec_eval's C strings would end there).
- ids follow `validate.id_problem`'s rule: a qid or docid holding a control character (or, decoded, any
  whitespace other than the separators, or a C1 control) is an error naming file:line.
- a line longer than `validate.MAX_LINE` (64 KiB) is an error naming file:line, found before the file is
  held whole (a gzip file is unpacked a block at a time and checked as it comes).
- as in trec_eval 10, a run line whose first field begins with `#` and a TREC qrels line beginning with
  `#` are comments. Sounding is stricter in one respect: a run line with more than 6 fields is an error
  (trec_eval ignores the extra fields).
"""
from __future__ import annotations

import gzip
import math
import mmap
import os
import re
import stat
import zlib
from itertools import pairwise
from pathlib import Path
from typing import Mapping

import numpy as np

from ..errors import DataError, SoundingError
from ..types import Qrels, Run
from ..validate import BAD_ID_CHAR, MAX_LINE, id_problem
from .order import trec_order

# Files at least this large (about a million lines) go through the numba scanner: its fixed cost, importing
# numba and loading the compiled kernels (cached on disk after a first ~5 s compile), is 0.5-1 s, which the
# line loop's ~1 us a line only exceeds on big files.
FAST_PATH_MIN_BYTES = 32 << 20


def read_bytes(path: str | os.PathLike, mapped: bool = False) -> bytes | mmap.mmap:
    """The file's bytes, gunzipped if gzip, once no line is longer than MAX_LINE (a DataError naming the
    line otherwise, found before the file is held whole: a plain file is checked through a read-only map
    before it is read, anything else block by block as it is read or unpacked).

    `mapped`: a plain file is mapped read-only instead of read (no copy into memory: the page cache's pages
    are used as they are) and returned unchecked: the compiled scanners check line lengths as they read
    (a long line sends the file to the line reader), and whoever copies the map calls `check_lines` on it
    first. The map supports what the scanners use (len, find, slicing, the buffer protocol)."""
    p = Path(path)
    try:
        with open(p, "rb") as f:
            st = os.fstat(f.fileno())
            gz = f.read(2) == b"\x1f\x8b"
            f.seek(0)
            if not gz and stat.S_ISREG(st.st_mode) and st.st_size > 0:
                data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
                if mapped:
                    return data
                check_lines(data, p)
                with data:
                    return data[:]
            return _read_checked(_gunzip(f) if gz else iter(lambda: f.read(1 << 23), b""), p)
    except FileNotFoundError:
        raise SoundingError(f"{p}: no such file") from None
    except IsADirectoryError:
        raise SoundingError(f"{p}: is a folder, not a file") from None
    except (EOFError, zlib.error, gzip.BadGzipFile) as e:
        raise SoundingError(f"{p}: gzip data is truncated or corrupt ({e})") from None
    except OSError as e:
        raise SoundingError(f"{p}: cannot read ({e.strerror or e})") from None


def _read_checked(blocks, path: Path) -> bytes:
    """The bytes of `blocks` joined, each block's lines checked as it comes."""
    kept, state = [], (1, 0)
    for block in blocks:
        state = check_lines(block, path, *state, more=True)
        kept.append(block)
    return b"".join(kept)


def _gunzip(f, out: int = 1 << 23, size: int = 1 << 20):
    """A gzip file's unpacked bytes, blocks of at most `out` bytes (members one after another, as
    gzip.decompress reads them). zlib directly: GzipFile's small reads took ~30 % longer on a 367 MB run."""
    d = zlib.decompressobj(31)
    pending = f.read(size)
    while True:
        block = d.decompress(pending, out)
        pending = d.unconsumed_tail
        if block:
            yield block
        if d.eof:
            pending = d.unused_data + pending or f.read(size)
            if not pending:
                return
            d = zlib.decompressobj(31)  # the next member
        elif not block and not pending:
            pending = f.read(size)
            if not pending:
                raise EOFError("compressed file ended before the end-of-stream marker was reached")


def check_lines(data, path, lineno: int = 1, carry: int = 0, *, more: bool = False) -> tuple[int, int]:
    """DataError naming the line if a line of `data` is longer than MAX_LINE bytes. With `more` (a block of
    a longer stream), `lineno` and `carry` (bytes of the current line in earlier blocks) continue the check,
    and the values for the next block are returned. One `rfind` per window of MAX_LINE + 1 bytes: the last
    newline in it, where the next window starts."""
    n, p, used = len(data), 0, carry
    while True:
        end = p + MAX_LINE - used + 1  # the current line's newline must come before here
        nl = data.rfind(b"\n", p, min(end, n))
        if nl < 0:
            if end <= n:
                raise DataError(path, lineno + _newlines(data, p),
                                f"line longer than {MAX_LINE >> 10} KiB; not a line of a TREC run or qrels file")
            return (lineno + data.count(b"\n"), used + n - p) if more else (0, 0)
        p, used = nl + 1, 0
        if end > n:
            return (lineno + data.count(b"\n"), n - p) if more else (0, 0)


def _newlines(data, end: int) -> int:
    """Newlines in data[:end] (a map has no count: 16 MiB slices)."""
    return sum(data[a : min(a + (1 << 24), end)].count(b"\n") for a in range(0, end, 1 << 24))


# C strtod's syntax (C locale): decimal, hexadecimal, infinity / NaN; and strtol's base-10 integers.
# _NUMBER_PREFIX finds where strtod would stop, for the error message.
_DECIMAL = re.compile(rb"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_HEX = re.compile(rb"[+-]?0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?")
_NON_FINITE = re.compile(rb"[+-]?(?:inf(?:inity)?|nan(?:\([0-9A-Za-z_]*\))?)", re.IGNORECASE)
_NUMBER_PREFIX = re.compile(_HEX.pattern + rb"|" + _DECIMAL.pattern + rb"|" + _NON_FINITE.pattern, re.IGNORECASE)
_INTEGER = re.compile(rb"[+-]?[0-9]+")
_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1


def _shown(field: bytes) -> str:
    return repr(field.decode("utf-8", "replace"))


def _partial(field: bytes, prefix: re.Pattern, reader: str) -> str:
    m = prefix.match(field)
    if m is None or not m.group():
        return f"trec_eval's {reader} would read no number from it"
    return f"trec_eval's {reader} would read only its start {_shown(m.group())}"


def _parse_score(field: bytes) -> float:
    """A run's score as trec_eval 10 reads it (C strtod, whole field, double); ValueError saying why not.

    Shared by the line reader and the fast reader's fallback, so the two accept exactly the same scores.
    """
    try:
        # float() on ASCII bytes reads strtod's decimal, inf and nan syntax, plus '_' separators strtod lacks
        value = float(field) if b"_" not in field else None
    except ValueError:
        value = None
    if value is None:
        if _HEX.fullmatch(field):
            try:
                value = float.fromhex(field.decode("ascii"))
            except OverflowError:
                value = math.inf  # strtod: HUGE_VAL
        elif _NON_FINITE.fullmatch(field):  # nan(chars)
            value = math.nan
        else:
            why = _partial(field, _NUMBER_PREFIX, "strtod")
            if b"_" in field:
                why = f"'_' digit separators are not part of a TREC number; {why}"
            raise ValueError(f"score {_shown(field)} is not a number ({why})")
    if not math.isfinite(value):
        raise ValueError(f"score {_shown(field)} is not finite")
    return value


def _parse_grade(field: bytes) -> int:
    """A qrels grade as trec_eval 10 reads it (C strtol base 10, whole field, a long); ValueError saying why not."""
    if not _INTEGER.fullmatch(field):
        why = _partial(field, _INTEGER, "atol")
        if b"_" in field:
            why = f"'_' digit separators are not part of a TREC number; {why}"
        raise ValueError(f"grade {_shown(field)} is not an integer ({why})")
    grade = int(field)
    if not _LONG_MIN <= grade <= _LONG_MAX:
        raise ValueError(f"grade {_shown(field)} is out of range (a 64-bit integer)")
    return grade


def _nul_error(path, lineno: int) -> DataError:
    return DataError(path, lineno, "the line holds a NUL byte (not text: no TREC file can hold one)")


def _text(field: bytes, path, lineno: int) -> str:
    try:
        return field.decode("utf-8")
    except UnicodeDecodeError:
        raise DataError(path, lineno, f"{field!r} is not UTF-8 text") from None


# Bytes an id of an ASCII file may hold, and the separators: a file of only these needs no per-id check
_PLAIN = bytes(range(0x21, 0x7F)) + b" \t\n\r\x0b\x0c"


def _needs_id_check(data: bytes) -> bool:
    """Whether some line may hold an id that breaks the rule (a control or non-ASCII byte is present)."""
    return bool(data.translate(None, _PLAIN))


def _check_ids(qid: str, docid: str, path, lineno: int) -> None:
    for value, what in ((qid, "query id"), (docid, "document id")):
        if BAD_ID_CHAR.search(value):
            raise DataError(path, lineno, id_problem(value, what))


# ---------------------------------------------------------------------------------------------- runs


def read_run(path: str | os.PathLike) -> Run:
    """Read a TREC run file into {qid: {docid: score}}.

    Raises DataError (naming file:line) for a line without 6 columns, a score that is not a whole finite
    number as C's strtod reads it (see the module docstring), a NUL byte, or a (qid, docid) pair that
    appears twice; SoundingError for a missing or truncated file. Comment lines (`#`) are skipped.
    """
    return run_from_bytes(read_bytes(path), path)


def run_from_bytes(data: bytes, path) -> Run:
    if len(data) >= FAST_PATH_MIN_BYTES:
        run = _read_run_fast(data)
        if run is not None:
            return run
    return _read_run_lines(data, path)


def _read_run_lines(data: bytes, path) -> Run:
    """The reference reader: one line at a time, and the one place that reports what is wrong."""
    run: Run = {}
    # per-line checks only for files that hold the byte at all
    has_nul, has_hash, has_underscore = b"\0" in data, b"#" in data, b"_" in data
    check_ids = _needs_id_check(data)
    isfinite = math.isfinite
    for lineno, line in enumerate(data.split(b"\n"), 1):
        if has_nul and b"\0" in line:
            raise _nul_error(path, lineno)
        fields = line.split()
        if not fields or (has_hash and fields[0][0] == 35):  # blank, or a comment ('#', as in trec_eval 10)
            continue
        if len(fields) != 6:
            raise DataError(path, lineno, f"expected 6 columns 'qid Q0 docid rank score tag', found {len(fields)}")
        try:  # the common case inline; _parse_score returns the same value for it and decides the rest
            score = float(fields[4])
            usual = isfinite(score) and not (has_underscore and b"_" in fields[4])
        except ValueError:
            usual = False
        if not usual:
            try:
                score = _parse_score(fields[4])
            except ValueError as e:
                raise DataError(path, lineno, str(e)) from None
        qid, docid = _text(fields[0], path, lineno), _text(fields[2], path, lineno)
        if check_ids:
            _check_ids(qid, docid, path, lineno)
        hits = run.setdefault(qid, {})
        if docid in hits:
            raise DataError(path, lineno, f"document {docid!r} appears twice for query {qid!r}")
        hits[docid] = score
    return run


def _read_run_fast(data: bytes) -> Run | None:
    """Same result as _read_run_lines for well-formed ASCII files, several times faster; None otherwise."""
    from .scan import join_fields, new_field_rows, parse_scores, scan_run

    buf = np.frombuffer(data, np.uint8)
    off, ok = scan_run(buf, data.count(b"\n") + 1)
    if not ok:
        return None
    if len(off) == 0:
        return {}
    scores, exact = parse_scores(buf, off[:, 4], off[:, 5])
    for r in np.flatnonzero(~exact).tolist():  # what the fast path cannot parse, the line reader's rule decides
        try:
            scores[r] = _parse_score(data[off[r, 4] : off[r, 5]])
        except ValueError:
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


WHITESPACE = re.compile(r"\s")
GZIP_LEVEL = 1  # zlib level 1: a third of level 6's time for run files ~9 % larger (0.166 against 0.152 of the text)


def write_run(run: Run, path: str | os.PathLike, tag: str = "sounding", k: int | None = None, header: str = "") -> Path:
    """Write a TREC run file (gzip if the name ends in .gz), replacing `path` only when complete.

    Queries in sorted order; each query's hits in trec_eval's order (score descending, docid descending),
    ranked from 1, cut to the top k if given. Scores are written as f"{score:.9g}", and the order is taken
    from the written values, so the file ranks exactly as trec_eval will rank it. (`runfile.RunWriter`
    writes the same bytes from a search's arrays.) `header`: comment lines written first (an ir_metadata header).
    """
    path = Path(path)
    if WHITESPACE.search(tag) or not tag:
        raise SoundingError(f"run tag {tag!r} must be one word")
    body = (header + "".join(format_query(qid, run[qid], tag, k) for qid in sorted(run))).encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as f:
            if path.name.endswith(".gz"):
                with gzip.GzipFile(filename="", mode="wb", fileobj=f, mtime=0, compresslevel=GZIP_LEVEL) as gz:
                    gz.write(body)
            else:
                f.write(body)
        os.replace(tmp, path)  # atomic: readers see the old file or the whole new one
    finally:
        tmp.unlink(missing_ok=True)
    return path


def bad_ids_message(qid: str, docids) -> str:
    """The message for a query whose id or one of whose document ids TREC files cannot hold."""
    why = id_problem(qid, "query id") or next(p for d in docids if (p := id_problem(d, "document id")))
    return f"query {qid!r}: {why}; a TREC run cannot hold it"


def format_query(qid: str, hits: Mapping[str, float], tag: str, k: int | None = None) -> str:
    """One query's lines of a run file, as `write_run` writes them; SoundingError for what TREC cannot say
    (an id that breaks `validate.id_problem`'s rule: the run would not read back)."""
    if BAD_ID_CHAR.search(qid + "".join(hits)) or not qid or "" in hits:
        raise SoundingError(bad_ids_message(qid, hits))
    shown = {}
    for d, s in hits.items():
        if not math.isfinite(s):
            raise SoundingError(f"query {qid!r}, document {d!r}: score {s} is not finite")
        shown[d] = f"{s:.9g}"
    as_read = {d: float(t) for d, t in shown.items()}
    order = trec_order(as_read)
    if k is not None:
        order = order[:k]
    return "".join(f"{qid} Q0 {d} {r} {shown[d]} {tag}\n" for r, d in enumerate(order, 1))


# --------------------------------------------------------------------------------------------- qrels


def read_qrels(path: str | os.PathLike, fast: bool | None = None) -> Qrels:
    """Read TREC qrels (`qid iter docid grade`) or BEIR TSV qrels (with header) into {qid: {docid: grade}}.

    The format is decided by the first line: three tab-separated fields mean BEIR TSV (a first line whose
    grade holds no digit is its header). Raises DataError naming file:line for a wrong column count, a
    grade that is not a whole integer as C's strtol reads it, a NUL byte, or a (qid, docid) pair judged
    twice. In TREC qrels a line beginning with `#` is a comment, as in trec_eval 10.

    `fast`: read well-formed ASCII TREC qrels with the compiled scanner (the same result; anything else
    goes through the line loop). None: for files of 32 MB and more; True is worth it where numba is
    loaded anyway (`sounding eval` on a large run).
    """
    data = read_bytes(path)
    if fast or (fast is None and len(data) >= FAST_PATH_MIN_BYTES):
        qrels = _read_qrels_fast(data)
        if qrels is not None:
            return qrels
    return _read_qrels_lines(data, path)


def _read_qrels_fast(data: bytes) -> Qrels | None:
    """Same result as _read_qrels_lines for well-formed ASCII TREC qrels; None otherwise."""
    from .scan import join_fields, scan_trec_qrels

    buf = np.frombuffer(data, np.uint8)
    ok, qa, qz, ptr, da, dz, grades = scan_trec_qrels(buf, data.count(b"\n") + 1)
    if not ok:
        return None
    qids = join_fields(buf, qa, qz).tobytes().decode("ascii").split("\n")
    docids = join_fields(buf, da, dz).tobytes().decode("ascii").split("\n")
    g = grades.tolist()
    bounds = ptr.tolist()
    return {q: dict(zip(docids[a:b], g[a:b])) for q, a, b in zip(qids, bounds, bounds[1:])}


def _read_qrels_lines(data: bytes, path) -> Qrels:
    """The reference reader: one line at a time, and the one place that reports what is wrong."""
    qrels: Qrels = {}
    tsv = None
    has_nul = b"\0" in data
    check_ids = _needs_id_check(data)
    for lineno, raw in enumerate(data.split(b"\n"), 1):
        if has_nul and b"\0" in raw:
            raise _nul_error(path, lineno)
        line = raw.rstrip(b"\r")
        if not line.strip() or (line[:1] == b"#" and not tsv):
            continue
        if tsv is None:
            tsv = len(line.split(b"\t")) == 3
            if tsv and not _DIGIT.search(line.split(b"\t")[2]):
                continue  # BEIR's header: query-id, corpus-id, score
        fields = [f.strip() for f in line.split(b"\t")] if tsv else line.split()
        want = 3 if tsv else 4
        if len(fields) != want:
            form = "'query-id<TAB>corpus-id<TAB>score'" if tsv else "'qid iter docid grade'"
            raise DataError(path, lineno, f"expected {want} columns {form}, found {len(fields)}")
        qid, docid = fields[0], fields[-2]
        g = fields[-1]
        if g.isdigit() and len(g) < 19:  # the common case inline (ASCII digits, within a long)
            grade = int(g)
        else:
            try:
                grade = _parse_grade(g)
            except ValueError as e:
                raise DataError(path, lineno, str(e)) from None
        if not qid or not docid:
            raise DataError(path, lineno, "empty query or document id")
        q, d = _text(qid, path, lineno), _text(docid, path, lineno)
        if check_ids:
            _check_ids(q, d, path, lineno)
        judged = qrels.setdefault(q, {})
        if d in judged:
            raise DataError(path, lineno, f"document {d!r} is judged twice for query {qid.decode()!r}")
        judged[d] = grade
    return qrels


_DIGIT = re.compile(rb"[0-9]")
