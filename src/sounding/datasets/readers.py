"""Streaming readers for corpus, queries and qrels files (gzip or plain, told apart by magic bytes).

Each bad line is a DataError naming file and line; a cut-short gzip is a one-line error
naming the file, never a traceback. Lines are read with a bound (validate.MAX_LINE for qrels,
validate.MAX_RECORD for corpus and queries lines), so a file of one endless line is refused before it
is held whole. Ids follow `validate.id_problem`'s rule, checked here, where the file and line are known:
a JSON integer id is read as its decimal digits (`1` and `"1"` are then the same id, and the duplicate
checks refuse a file holding both); any other non-string id, and a query text that is not a string,
is refused.
"""
from __future__ import annotations

import gzip
import json
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from ..errors import DataError, SoundingError
from ..validate import MAX_LINE, MAX_RECORD, id_problem


class Document(NamedTuple):
    """One corpus document; `line` is its 1-based line in the corpus file, for error messages."""

    id: str
    title: str
    text: str
    line: int

_GZIP_MAGIC = b"\x1f\x8b"


def is_gzip(path: Path) -> bool:
    with open(path, "rb") as f:
        return f.read(2) == _GZIP_MAGIC


def iter_lines(path: str | Path, limit: int = MAX_RECORD) -> Iterator[tuple[int, str]]:
    """(1-based line number, text without line end) for each non-blank line; CRLF tolerated. A line of
    more than `limit` bytes is a DataError once `limit` bytes of it are read (not after the whole line)."""
    path = Path(path)
    if not path.is_file():
        raise SoundingError(f"{path}: file not found")
    # Magic bytes, not the extension, decide: a renamed .gz or an unpacked *.gz both read right.
    stream = gzip.open(path, "rb") if is_gzip(path) else open(path, "rb")
    lineno = 0
    try:
        with stream:
            while raw := stream.readline(limit + 1):
                lineno += 1
                if len(raw) > limit and not (len(raw) == limit + 1 and raw.endswith(b"\n")):
                    raise DataError(path, lineno, f"line longer than {_size(limit)}; not a line of this format")
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError as e:
                    raise DataError(path, lineno, f"invalid UTF-8 at byte {e.start}") from None
                if lineno == 1:
                    line = line.lstrip("\ufeff")  # a BOM is not part of the first id
                line = line.rstrip("\r\n")
                if line.strip():
                    yield lineno, line
    except (EOFError, gzip.BadGzipFile, zlib.error) as e:
        # A download or copy cut short: say which file, and what to do, in one line.
        raise DataError(path, None, f"gzip data is truncated or corrupt after line {lineno} ({e}); "
                                    "fetch or copy the file again") from None


def iter_blocks(path: str | Path, size: int = 1 << 20, limit: int = MAX_RECORD) -> Iterator[tuple[int, bytes]]:
    """(1-based line number of the block's first line, block): the file's lines about `size` bytes at a
    time, as bytes, each block starting with b"\n" (so a pattern anchored at "\n" sees every line's start)
    and without its last line end; blank lines included. For a pass over a whole corpus that looks at few
    of its lines (iter_lines costs a Python call, a decode and two strips a line). A line of more than
    `limit` bytes is a DataError once `limit` bytes of it are read."""
    path = Path(path)
    if not path.is_file():
        raise SoundingError(f"{path}: file not found")
    lineno, tail = 1, b""
    try:
        for data in _unpacked(path, size):
            data = tail + data
            cut = data.rfind(b"\n")
            if cut < 0:
                tail = data
            else:
                block, tail = data[:cut], data[cut + 1 :]
                yield lineno, b"\n" + block
                lineno += block.count(b"\n") + 1
            if len(tail) > limit:
                raise DataError(path, lineno, f"line longer than {_size(limit)}; not a line of this format")
    except (EOFError, zlib.error) as e:
        raise DataError(path, None, f"gzip data is truncated or corrupt after line {lineno} ({e}); "
                                    "fetch or copy the file again") from None
    if tail:
        yield lineno, b"\n" + tail


def _unpacked(path: Path, size: int) -> Iterator[bytes]:
    """The file's bytes, gzip unpacked (every member), `size` packed bytes at a time (at most 4 × `size`
    bytes a piece). zlib directly: gzip.GzipFile unpacks 8 KiB a call, ~25 % slower over a whole corpus."""
    with open(path, "rb") as stream:
        if not is_gzip(path):
            yield from iter(lambda: stream.read(size), b"")
            return
        unpacker, fresh = zlib.decompressobj(31), True  # (31: a gzip member, header and trailer)
        while raw := stream.read(size):
            while raw:
                out = unpacker.decompress(raw, 4 * size)
                fresh = False
                if out:
                    yield out
                raw = unpacker.unconsumed_tail
                if unpacker.eof:  # the member ends; another may follow
                    raw, unpacker, fresh = unpacker.unused_data, zlib.decompressobj(31), True
        if not fresh:
            raise EOFError("the file ends inside a gzip member")


def _size(n: int) -> str:
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n >> 10} KiB"


def _id(path: Path, lineno: int, value, what: str) -> str:
    """An id read from a JSON file: a string, or an integer's decimal digits; DataError for anything else."""
    if type(value) is int:
        value = str(value)
    problem = id_problem(value, what)
    if problem:
        raise DataError(path, lineno, problem)
    return value


def _json_object(path: Path, lineno: int, line: str) -> dict:
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as e:
        raise DataError(path, lineno, f"bad JSON: {e.msg} (column {e.colno})") from None
    if not isinstance(obj, dict):
        raise DataError(path, lineno, f"expected a JSON object, got {type(obj).__name__}")
    return obj


def _field(obj: dict, names: tuple[str, ...]):
    for n in names:
        if n in obj and obj[n] is not None:
            return obj[n]
    return None


def iter_corpus(path: str | Path) -> Iterator[Document]:
    """Documents of a corpus JSONL: BEIR (`_id`, `title`, `text`), Mr. TyDi on Hugging Face
    (`docid`, `title`, `text`) or the castorini tarball / Anserini JSON (`id`, `contents`)."""
    path = Path(path)
    for lineno, line in iter_lines(path):
        obj = _json_object(path, lineno, line)
        doc_id = _field(obj, ("_id", "docid", "id"))
        if doc_id is None or doc_id == "":
            raise DataError(path, lineno, "document has no id (`_id`, `docid` or `id`)")
        text = _field(obj, ("text", "contents"))
        title = obj.get("title")
        if not (type(doc_id) is str and doc_id.isascii() and doc_id.isprintable() and " " not in doc_id):
            doc_id = _id(path, lineno, doc_id, "document id")  # (the usual case is checked inline)
        yield Document(doc_id, title if type(title) is str else _text(path, lineno, title, "title"),
                       text if type(text) is str else _text(path, lineno, text, "text"), lineno)


def _text(path: Path, lineno: int, value, what: str) -> str:
    """A text field: a string, or absent (""); anything else (a list, an object, a number) is refused
    rather than searched as its Python spelling."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise DataError(path, lineno, f"the {what} is {'an' if type(value).__name__[0] in 'aeiou' else 'a'} "
                                      f"{type(value).__name__}, not a string")
    return value


def load_queries(path: str | Path) -> dict[str, str]:
    """qid → text from BEIR queries.jsonl (`_id`, `text`) or a TSV `qid<TAB>text` (Mr. TyDi topics)."""
    path = Path(path)
    queries: dict[str, str] = {}
    first_line: dict[str, int] = {}
    for lineno, line in iter_lines(path):
        if line.lstrip().startswith("{"):
            obj = _json_object(path, lineno, line)
            qid, text = _field(obj, ("_id", "query_id", "qid", "id")), _field(obj, ("text", "query", "title"))
            if qid is None or text is None:
                raise DataError(path, lineno, "query needs `_id` and `text`")
            qid, text = _id(path, lineno, qid, "query id"), _text(path, lineno, text, "query text")
        else:
            qid, sep, text = line.partition("\t")
            if not sep:
                raise DataError(path, lineno, "expected `qid<TAB>text`")
            qid = _id(path, lineno, qid.strip(), "query id")
        if qid in first_line:
            raise DataError(path, lineno, f"duplicate query id {qid!r} (first on line {first_line[qid]})")
        first_line[qid] = lineno
        queries[qid] = text
    return queries


def iter_qrels(path: str | Path) -> Iterator[tuple[str, str, int, int]]:
    """(qid, docid, grade, line) per judgement: BEIR TSV (`query-id corpus-id score`, header
    optional) or TREC (`qid Q0 docid grade`)."""
    path = Path(path)
    for lineno, line in iter_lines(path, MAX_LINE):
        # Tabs when present (BEIR ids may hold spaces), else any whitespace (TREC files).
        parts = [p.strip() for p in line.split("\t")] if "\t" in line else line.split()
        if lineno == 1 and parts and parts[0].lower() in ("query-id", "query_id", "qid", "query"):
            continue  # BEIR header
        if len(parts) == 3:
            qid, docid, grade = parts
        elif len(parts) == 4:
            qid, _, docid, grade = parts
        else:
            raise DataError(path, lineno, f"expected 3 (BEIR) or 4 (TREC) columns, got {len(parts)}")
        try:
            value = int(grade)
        except ValueError:
            try:  # "1.0" is an integer grade written as a float; "0.5" is not
                f = float(grade)
                if not f.is_integer():
                    raise ValueError
                value = int(f)
            except ValueError:
                raise DataError(path, lineno, f"relevance grade {grade!r} is not an integer") from None
        for value_id, what in ((qid, "query id"), (docid, "document id")):
            problem = id_problem(value_id, what)
            if problem:
                raise DataError(path, lineno, problem)
        yield qid, docid, value, lineno


def load_qrels(path: str | Path) -> dict[str, dict[str, int]]:
    """qid → {docid: grade}; a pair judged twice keeps the later grade."""
    qrels: dict[str, dict[str, int]] = {}
    for qid, docid, grade, _ in iter_qrels(path):
        qrels.setdefault(qid, {})[docid] = grade
    return qrels
