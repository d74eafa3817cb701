"""TREC run files written straight from top-k arrays: compiled formatting, batches of queries, atomic.

`write_run(run_dict, ...)` (trec.py) turns a {qid: {docid: score}} mapping into text one Python string at a
time. A search already holds its hits as arrays (document numbers, float32 scores, counts); `RunWriter`
formats them with a compiled kernel into bytes and writes them a batch of queries at a time, so neither
time nor memory goes to a Python object per hit. The bytes are those `write_run(results.to_run(), ...)`
writes, to the last byte:

- queries in sorted qid order (the caller hands them in that order: `sorted_rows` gives it for a batch);
- each query's hits in trec_eval's order of the written scores (score descending, docid descending);
- scores as Python's f"{score:.9g}" of the double value, ranks from 1, `qid Q0 docid rank score tag`.

A score is formatted from its 9 significant digits, found by one exactly rounded scaling in double
precision; when the scaled value lies too close to a rounding tie for that to be certain (or the score is
outside 1e-14..1e30), the query goes through trec.py's Python formatter instead, and so does a query with a
non-ASCII document id (whose whitespace check is Python's). Either way the bytes are the same.
"""
from __future__ import annotations

import gzip
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
from numba import njit

from ..errors import SoundingError
from .trec import GZIP_LEVEL

_PAIRS = np.frombuffer("".join(f"{i:02d}" for i in range(100)).encode(), np.uint8).copy()  # "00".."99"
_POW10 = np.array([10.0**i for i in range(23)])  # exact doubles
_LINE_EXTRA = 48  # bytes of a line beyond qid, docid and tag: " Q0 ", rank (<= 20), score (<= 15), spaces, newline

OK, FALLBACK, BAD_ID = 0, 1, 2  # per-query status of the kernel


@njit(cache=True, nogil=True)
def _product_error(a, b, p):
    """a·b − p exactly, for p = fl(a·b) (Dekker's TwoProduct with Veltkamp's split; no overflow here)."""
    c = 134217729.0 * a  # 2**27 + 1
    ah = c - (c - a)
    al = a - ah
    c = 134217729.0 * b
    bh = c - (c - b)
    bl = b - bh
    return ((ah * bh - p) + ah * bl + al * bh) + al * bl


@njit(cache=True, nogil=True)
def _digits9(x, guess):
    """(N, X, ok): |x| = N·10^(X−8) rounded to 9 significant digits, half to even, as Python's '.9g'
    rounds the exact binary value, with 10^8 <= N < 10^9. ok is False (Python decides) for |x| outside
    1e-14..1e30 and for a quotient too near a rounding tie (|x| >= 1e9 only). `guess` is a first
    guess of X (the previous score's: scores come sorted)."""
    a = abs(x)
    e = guess
    y = 0.0
    for tries in range(5):
        if tries == 2:
            e = int(np.floor(np.log10(a)))
        if tries == 4:
            return 0, 0, False
        p = 8 - e
        if p > 22 or p < -22:
            return 0, 0, False
        y = a * _POW10[p] if p >= 0 else a / _POW10[-p]
        if y < 1e8:
            e -= 1
        elif y >= 1e9:
            e += 1
        else:
            break
    n = np.floor(y)
    f = y - n  # exact: y < 2**30, so f is a multiple of y's ulp (<= 2**-23), as 0.5 is
    if f == 0.5:
        # |a·10^p − y| <= ulp/2 < |f − 0.5| unless f == 0.5: only then does the exact product decide
        if p < 0:
            return 0, 0, False
        err = _product_error(a, _POW10[p], y)
        up = err > 0 or (err == 0 and np.int64(n) % 2 == 1)  # a tie exactly: half to even
    else:
        up = f > 0.5
    big = np.int64(n) + (1 if up else 0)
    if big == 1_000_000_000:
        big = 100_000_000
        e += 1
    if 8 - e > 22 or 8 - e < -22:
        return 0, 0, False
    return big, e, True


@njit(cache=True, nogil=True)
def _value9(big, e, neg):
    """float() of the written digits: N·10^(X−8), one exactly rounded operation (N < 2**53, |X−8| <= 22)."""
    q = e - 8
    v = big * _POW10[q] if q >= 0 else big / _POW10[-q]
    return -v if neg else v


@njit(cache=True, nogil=True)
def _put_score(out, o, big, e, neg, zero, negzero, d):
    """Write '.9g' of the number (N, X) at out[o] (`d`: 9 bytes of scratch); returns the new offset."""
    if neg or negzero:
        out[o] = 45
        o += 1
    if zero:
        out[o] = 48
        return o + 1
    t = big
    for i in range(7, -1, -2):  # two digits at a time
        two = t % 100
        t //= 100
        d[i + 1] = _PAIRS[2 * two + 1]
        d[i] = _PAIRS[2 * two]
    d[0] = 48 + t
    last = 8  # last significant digit kept (trailing zeros dropped)
    while last > 0 and d[last] == 48:
        last -= 1
    if -4 <= e < 9:
        if e >= 0:
            for i in range(e + 1):
                out[o] = d[i]
                o += 1
            if last > e:
                out[o] = 46
                o += 1
                for i in range(e + 1, last + 1):
                    out[o] = d[i]
                    o += 1
        else:
            out[o] = 48
            out[o + 1] = 46
            o += 2
            for _ in range(-e - 1):
                out[o] = 48
                o += 1
            for i in range(last + 1):
                out[o] = d[i]
                o += 1
    else:
        out[o] = d[0]
        o += 1
        if last > 0:
            out[o] = 46
            o += 1
            for i in range(1, last + 1):
                out[o] = d[i]
                o += 1
        out[o] = 101
        out[o + 1] = 45 if e < 0 else 43
        o += 2
        x = -e if e < 0 else e
        if x < 10:
            out[o] = 48
            o += 1
        o = _put_int(out, o, x)
    return o


@njit(cache=True, nogil=True)
def _put_int(out, o, v):
    n = 1
    t = v
    while t >= 10:
        t //= 10
        n += 1
    for i in range(n - 1, -1, -1):
        out[o + i] = 48 + v % 10
        v //= 10
    return o + n


@njit(cache=True, nogil=True)
def _put(out, o, src, a, z):
    for i in range(a, z):
        out[o] = src[i]
        o += 1
    return o


@njit(cache=True, nogil=True, inline="always")
def _id_byte(c, st):
    """A query's status after one byte of a hit's id: BAD_ID for whitespace (Python's str.split's, ASCII
    part), FALLBACK (Python formats the query) for a non-ASCII byte."""
    if c == 32 or 9 <= c <= 13 or 28 <= c <= 31:
        return BAD_ID
    if c >= 128 and st == OK:
        return FALLBACK
    return st


@njit(cache=True, nogil=True)
def format_queries(rows, qblob, qptr, docs, scores, counts, dblob, dstarts, rank, tag, remove_self_hits, out):
    """TREC lines of queries `rows` (in that order) into `out` (large enough; reused between calls).

    qid i is qblob[qptr[i]:qptr[i+1]]; document d's id is dblob[dstarts[d]:dstarts[d+1]-1] (docids.txt's
    lines). Returns (bytes, end offset of each query's text, status of each query: OK, FALLBACK for
    Python to format, BAD_ID for an empty id or one holding whitespace, which Python reports; the number
    of lines written).
    """
    digits = np.empty(9, np.uint8)
    pre = np.empty(qptr[-1] - qptr[0] + 8 if qptr.size else 8, np.uint8)
    rdig = np.empty(24, np.uint8)
    suf = np.empty(tag.size + 2, np.uint8)
    suf[0] = 32
    suf[1 : tag.size + 1] = tag
    suf[tag.size + 1] = 10
    guess = 0
    lines = 0
    ends = np.zeros(rows.size, np.int64)
    status = np.zeros(rows.size, np.int8)
    kmax = docs.shape[1]
    val = np.empty(kmax, np.float64)
    big = np.empty(kmax, np.int64)
    exp = np.empty(kmax, np.int64)
    neg = np.empty(kmax, np.bool_)
    zero = np.empty(kmax, np.bool_)
    negz = np.empty(kmax, np.bool_)
    keep = np.empty(kmax, np.int64)
    ga = np.empty(kmax, np.int64)  # each hit's id: dblob[ga[j]:gz[j]]
    gz = np.empty(kmax, np.int64)
    lead = np.empty(kmax, np.uint8)  # its first byte
    o = 0
    for i in range(rows.size):
        r = rows[i]
        qa, qz = qptr[r], qptr[r + 1]
        n = 0
        st = OK
        m = counts[r]
        # The hits' id offsets and each id's first byte, gathered in tight loops before any per-hit work:
        # the ids of a large collection lie scattered over tens of MB, and these loads do not depend on
        # each other, so many cache misses are in flight at once instead of one or two per hit.
        for j in range(m):
            d = docs[r, j]
            ga[j] = dstarts[d]
            gz[j] = np.int64(dstarts[d + 1]) - 1
        for j in range(m):
            lead[j] = dblob[ga[j]] if ga[j] < gz[j] else 0
        for j in range(m):
            da, dz = ga[j], gz[j]
            if remove_self_hits and dz - da == qz - qa:
                same = True
                for t in range(dz - da):
                    if dblob[da + t] != qblob[qa + t]:
                        same = False
                        break
                if same:
                    continue
            if dz == da:
                st = BAD_ID
            else:
                st = _id_byte(lead[j], st)
            for t in range(da + 1, dz):
                st = _id_byte(dblob[t], st)
            s = np.float64(scores[r, j])
            if not np.isfinite(s):
                st = FALLBACK  # Python names it
            elif s == 0.0:
                zero[n] = True
                negz[n] = np.signbit(s)
                neg[n] = False
                big[n] = 0
                exp[n] = 0
                val[n] = s
            else:
                bg, e, ok = _digits9(s, guess)
                guess = e
                if not ok:
                    if st == OK:
                        st = FALLBACK
                else:
                    zero[n] = False
                    negz[n] = False
                    neg[n] = s < 0
                    big[n] = bg
                    exp[n] = e
                    val[n] = _value9(bg, e, s < 0)
            keep[n] = j
            n += 1
        if st != OK:
            status[i] = st
            ends[i] = o
            continue
        # trec_eval's order of the written values: score descending, docid (byte order rank) descending
        ordered = True
        for j in range(1, n):
            if val[j - 1] < val[j] or (val[j - 1] == val[j] and rank[docs[r, keep[j - 1]]] < rank[docs[r, keep[j]]]):
                ordered = False
                break
        if ordered:
            order = np.arange(n)
        else:
            rk = np.empty(n, np.int64)
            for j in range(n):
                rk[j] = -np.int64(rank[docs[r, keep[j]]])
            by_rank = np.argsort(rk, kind="mergesort")
            neg_val = np.empty(n, np.float64)
            for j in range(n):
                neg_val[j] = -val[by_rank[j]]
            order = by_rank[np.argsort(neg_val, kind="mergesort")]
        p = 0
        for t in range(qa, qz):
            pre[p] = qblob[t]
            p += 1
        pre[p] = 32
        pre[p + 1] = 81
        pre[p + 2] = 48
        pre[p + 3] = 32
        p += 4
        rlen = 1
        rdig[0] = 49
        for j in range(n):
            h = order[j]
            for t in range(p):
                out[o + t] = pre[t]
            o += p
            da, dz = ga[keep[h]], gz[keep[h]]
            for t in range(dz - da):
                out[o + t] = dblob[da + t]
            o += dz - da
            out[o] = 32
            o += 1
            for t in range(rlen):
                out[o + t] = rdig[t]
            o += rlen
            out[o] = 32
            o = _put_score(out, o + 1, big[h], exp[h], neg[h], zero[h], negz[h], digits)
            for t in range(suf.size):
                out[o + t] = suf[t]
            o += suf.size
            # rank + 1 in decimal
            t = rlen - 1
            while t >= 0 and rdig[t] == 57:
                rdig[t] = 48
                t -= 1
            if t >= 0:
                rdig[t] += 1
            else:
                for u in range(rlen, 0, -1):
                    rdig[u] = rdig[u - 1]
                rdig[0] = 49
                rlen += 1
        lines += n
        ends[i] = o
    return out, ends, status, lines


def sorted_rows(qids: Sequence[str]) -> np.ndarray:
    """Rows in the order a run file lists them: sorted qids, the last row of a repeated qid (as a dict keeps it)."""
    last = {q: i for i, q in enumerate(qids)}
    return np.fromiter((last[q] for q in sorted(last)), dtype=np.int64, count=len(last))


class DocIdTable:
    """Document ids as one UTF-8 byte array and line starts (docids.txt's layout), for the kernel."""

    def __init__(self, docids: Sequence[str]):
        blob, starts = getattr(docids, "blob", None), getattr(docids, "starts", None)
        if not isinstance(blob, bytes) or starts is None:
            blob = "\n".join(docids).encode("utf-8")
            newlines = np.flatnonzero(np.frombuffer(blob, np.uint8) == 0x0A)
            starts = np.concatenate(([0], newlines + 1, [len(blob) + 1])).astype(np.int64)
        self.docids = docids
        self.blob = np.frombuffer(blob, np.uint8) if blob else np.zeros(1, np.uint8)
        self.starts = starts
        self.longest = int(np.diff(starts).max()) if len(starts) > 1 else 0


@dataclass
class Formatted:
    """A batch's lines as `RunWriter.format` made them: byte chunks to write in order, their number of lines
    (None: count them), the batch's first and last qid (None: nothing to write)."""
    chunks: list
    lines: int | None
    first: str | None
    last: str | None


class RunWriter:
    """Write a TREC run a batch of queries at a time; the file replaces `path` only when complete.

    Use as a context manager (or call `close()`): on an exception the partial file is removed and `path`
    is left as it was. `.gz` names (or `gz=True`) write gzip. Batches must come in sorted qid order, with
    no qid twice (what `sorted_rows` gives); `lines` and `bytes` count what was written.

    `docids` may also be a function giving them: they are then read when `table` is first asked for (by
    the first write, or ahead of it), in that thread: reading 2.68 M ids took ~0.15 s, which a writer
    thread can spend while the first batch is searched.
    """

    def __init__(self, path: str | os.PathLike, docids: Sequence[str] | DocIdTable | Callable[[], Sequence[str]],
                 rank: np.ndarray, *, tag: str = "sounding", gz: bool | None = None):
        from .trec import _WHITESPACE

        if not tag or _WHITESPACE.search(tag):
            raise SoundingError(f"run tag {tag!r} must be one word")
        self.path = Path(path)
        self._docids = docids
        self._table = docids if isinstance(docids, DocIdTable) else None
        self.rank = np.asarray(rank)
        self.tag = tag
        self._tag = np.frombuffer(tag.encode("utf-8"), np.uint8)
        self.lines = 0
        self.bytes = 0
        self._bufs = [np.empty(1, np.uint8), np.empty(1, np.uint8)]  # the output buffer and the spare one
        self._last_qid: str | None = None
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        self._file = open(self._tmp, "wb")
        gz = self.path.name.endswith(".gz") if gz is None else gz
        self._out = self._file
        if gz:
            self._out = gzip.GzipFile(filename="", mode="wb", fileobj=self._file, mtime=0, compresslevel=GZIP_LEVEL)

    @property
    def table(self) -> DocIdTable:
        """The ids as the kernel reads them, made on first use."""
        if self._table is None:
            self._table = DocIdTable(self._docids() if callable(self._docids) else self._docids)
        return self._table

    def write(self, qids: Sequence[str], docs: np.ndarray, scores: np.ndarray, counts: np.ndarray, *,
              rows: np.ndarray | None = None, remove_self_hits: bool = False) -> None:
        """Append the hits of `rows` (default: all rows, which must then be in sorted qid order)."""
        self.emit(self.format(qids, docs, scores, counts, rows=rows, remove_self_hits=remove_self_hits))

    def format(self, qids: Sequence[str], docs: np.ndarray, scores: np.ndarray, counts: np.ndarray, *,
               rows: np.ndarray | None = None, remove_self_hits: bool = False, spare: bool = False) -> "Formatted":
        """The lines of `rows` (as `write` takes them), formatted but not written: `emit` writes them. Two
        threads may format at once, one of them with `spare` (a second buffer; what it returns is valid until
        that thread's next `spare` call), and emit in order; the order of qids is checked on emission."""
        from .trec import _WHITESPACE

        rows = np.arange(len(qids), dtype=np.int64) if rows is None else np.asarray(rows, dtype=np.int64)
        if not len(rows):
            return Formatted([], 0, None, None)
        shown = [qids[r] for r in rows.tolist()]
        if any(a >= b for a, b in zip(shown, shown[1:])):
            raise ValueError("RunWriter.write: queries must come in strictly increasing qid order")
        for q in shown:
            if not q or _WHITESPACE.search(q):
                raise SoundingError(f"query {q!r}: a qid or docid is empty or holds whitespace; TREC files cannot say it")
        encoded = [q.encode("utf-8") for q in qids] if len(qids) <= 2 * len(rows) else None
        if encoded is None:  # a few rows of many: encode only those, and index them 0..len(rows)-1
            encoded = [s.encode("utf-8") for s in shown]
            docs, scores, counts = docs[rows], scores[rows], np.asarray(counts)[rows]
            rows = np.arange(len(rows), dtype=np.int64)
        qptr = np.zeros(len(encoded) + 1, np.int64)
        np.cumsum([len(e) for e in encoded], out=qptr[1:])
        qblob = np.frombuffer(b"".join(encoded), np.uint8) if qptr[-1] else np.zeros(1, np.uint8)
        counts = np.asarray(counts, dtype=np.int64)
        table = self.table
        per_line = np.diff(qptr)[rows] + table.longest + self._tag.size + _LINE_EXTRA
        size = int((counts[rows] * per_line).sum())
        docs = np.ascontiguousarray(docs)
        scores = np.ascontiguousarray(scores)
        out, ends, status, lines = format_queries(rows, qblob, qptr, docs, scores, counts, table.blob,
                                                  table.starts, self.rank, self._tag, bool(remove_self_hits),
                                                  self._buffer(size, spare))
        if not status.any():
            return Formatted([memoryview(out)[: ends[-1]]], lines, shown[0], shown[-1])
        chunks, start = [], 0
        for i in range(len(rows)):
            if status[i] == OK:
                chunks.append(memoryview(out)[start : ends[i]])
            else:
                chunks.append(self._python_query(shown[i], rows[i], docs, scores, counts, remove_self_hits))
            start = ends[i]
        return Formatted(chunks, None, shown[0], shown[-1])

    def warm(self) -> float:
        """Load the compiled formatter (compile it, the first time after install), and read the ids: a query
        with no hit formatted and not written. Returns the seconds, which a caller reports as set-up, not as
        writing."""
        start = time.perf_counter()
        self.format(["warm"], np.zeros((1, 1), np.int64), np.zeros((1, 1), np.float32), np.zeros(1, np.int64))
        return time.perf_counter() - start

    def emit(self, formatted: "Formatted") -> None:
        """Write what `format` made, after everything emitted before (qids must keep increasing)."""
        if formatted.first is None:
            return
        if self._last_qid is not None and not self._last_qid < formatted.first:
            raise ValueError("RunWriter.write: queries must come in strictly increasing qid order")
        self._last_qid = formatted.last
        if formatted.lines is not None:
            self._emit(formatted.chunks[0], formatted.lines)
            return
        for chunk in formatted.chunks:
            self._emit(chunk, None)

    def _buffer(self, size: int, spare: bool = False) -> np.ndarray:
        """The output buffer (or the spare one), kept between batches (its pages are touched once), grown when needed."""
        buf = self._bufs[spare]
        if buf.size < size:
            buf = self._bufs[spare] = np.empty(max(size, 2 * buf.size), np.uint8)
        return buf

    def _python_query(self, qid, r, docs, scores, counts, remove_self_hits) -> bytes:
        from .trec import format_query

        n = int(counts[r])
        ids = self.table.docids
        hits = dict(zip((ids[d] for d in docs[r, :n].tolist()), scores[r, :n].tolist()))
        if remove_self_hits:
            hits.pop(qid, None)
        return format_query(qid, hits, self.tag).encode("utf-8")

    def _emit(self, chunk, lines: int | None) -> None:
        if len(chunk):
            self._out.write(chunk)
            self.bytes += len(chunk)
            self.lines += int(np.count_nonzero(np.frombuffer(chunk, np.uint8) == 10)) if lines is None else lines

    def close(self) -> Path:
        """Finish the file and put it in place (atomically: readers see the old file or the whole new one)."""
        try:
            if self._out is not self._file:
                self._out.close()
            self._file.close()
            os.replace(self._tmp, self.path)
        finally:
            self._tmp.unlink(missing_ok=True)
        return self.path

    def abort(self) -> None:
        try:
            if self._out is not self._file:
                self._out.close()
            self._file.close()
        finally:
            self._tmp.unlink(missing_ok=True)

    def __enter__(self) -> "RunWriter":
        return self

    def __exit__(self, kind, value, tb) -> None:
        if kind is None:
            self.close()
        else:
            self.abort()


def write_results(results, path: str | os.PathLike, *, tag: str = "sounding", remove_self_hits: bool = False,
                  batch: int = 256, threads: int | None = None) -> Path:
    """Write a search's `Results` as a TREC run, the bytes of `write_run(results.to_run(...), path, tag)`,
    `batch` queries at a time: the formatting buffers hold at most two batches (~20 MB each at top 1,000), not the
    run.

    With `threads` 2 (default: 2 where the machine has two cores or more) every second batch is formatted in a
    second thread, into the writer's spare buffer, while this thread formats and writes the one before; batches
    are written in order, so the bytes are the same. Measured at NQ size (3.44 M lines), formatting took
    ~0.47 s of a ~0.85 s write: at the end of `sounding run`, when nothing else is searched, that was the
    last setting's wait."""
    from concurrent.futures import ThreadPoolExecutor

    rows = sorted_rows(results.qids)
    batches = [rows[a : a + batch] for a in range(0, len(rows), batch)]
    threads = min(2, os.cpu_count() or 1) if threads is None else threads
    with RunWriter(path, results.docids, docid_byte_rank(results), tag=tag) as w:
        def formatted(part, spare):
            return w.format(results.qids, results.docs, results.scores, results.counts, rows=part,
                            remove_self_hits=remove_self_hits, spare=spare)

        if threads < 2 or len(batches) < 2:
            for part in batches:
                w.emit(formatted(part, False))
            return Path(path)
        w.table  # the ids read once, before two threads ask for them
        with ThreadPoolExecutor(1, thread_name_prefix="sounding-format") as pool:
            for i in range(0, len(batches), 2):
                second = pool.submit(formatted, batches[i + 1], True) if i + 1 < len(batches) else None
                w.emit(formatted(batches[i], False))
                if second is not None:
                    w.emit(second.result())
    return Path(path)


def docid_byte_rank(results) -> np.ndarray:
    """Each document's place in the byte order of the ids (trec_eval's tie order): `results.rank`, the
    index's, or computed from the ids when the results carry none."""
    if results.rank is not None:
        return np.asarray(results.rank)
    ids = [d.encode("utf-8", "surrogatepass") for d in results.docids]
    rank = np.empty(len(ids), np.int64)
    rank[np.asarray(sorted(range(len(ids)), key=ids.__getitem__), dtype=np.int64)] = np.arange(len(ids))
    return rank
