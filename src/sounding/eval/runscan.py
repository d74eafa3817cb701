"""Evaluate a TREC run file straight from its bytes: one compiled pass, no Python object per line.

`evaluate(qrels, read_run(path), ...)` makes a str and a float per line and a dict per query before any
measure is computed. Every measure needs only, per judged query, the ranks of the judged documents it
retrieved and its number of hits (metrics.py), so `scan` (behind trec.evaluate_run_file) computes exactly those in one pass
over the file: it splits lines into fields, parses scores (the exact fast path of _fastscan), checks each
query's hits for a repeated document, finds the judged documents by hashing their ids, and counts, for
each one, the hits scored higher and — inside a score tie only — the tied hits with a larger docid
(byte order, as Python's str order and trec_eval's strcmp). The per-query values then come from
metrics.py's own code, so they are the same to the last digit as `evaluate(qrels, read_run(path))`.

Anything the fast pass does not handle itself — a malformed line, a NUL or non-ASCII byte, a score outside
the exact fast path (hexadecimal, long mantissas), a query whose lines are not contiguous, a repeated
(qid, docid) — sends the file through `read_run` + `evaluate`, which accept or report it as always.
"""
from __future__ import annotations

import math
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import njit, types
from numba.typed import Dict

from ._fastscan import parse_scores
from .measures import Measure
from .metrics import _WHOLE_RANKING, Qrels, _query_values

_OK, _FALLBACK = 0, 1
_PARALLEL_MIN_BYTES = 64 << 20  # below, one thread: starting a second costs more than it saves


# byte classes: 0 part of a field, 1 whitespace inside a line (bytes.split()'s, but newline), 2 newline,
# 3 a byte the checked reader must judge (NUL, non-ASCII)
_CLASS = np.zeros(256, np.uint8)
_CLASS[[9, 11, 12, 13, 32]] = 1
_CLASS[10] = 2
_CLASS[0] = 3
_CLASS[128:] = 3


@njit(cache=True, nogil=True, inline="always")
def _hash(buf, a, z):
    h = np.uint64(z - a)
    for i in range(a, z):
        h = (h << np.uint64(5)) - h + np.uint64(buf[i])  # h·31 + byte
    h ^= h >> np.uint64(29)  # then mixed, so that the low bits index the table well
    h *= np.uint64(0xBF58476D1CE4E5B9)
    return h ^ (h >> np.uint64(32))


@njit(cache=True, nogil=True, inline="always")
def _same(x, a, z, y, b, e):
    if z - a != e - b:
        return False
    for i in range(z - a):
        if x[a + i] != y[b + i]:
            return False
    return True


@njit(cache=True, nogil=True, inline="always")
def _greater(buf, a, z, b, e):
    """buf[a:z] > buf[b:e] in byte order (a longer string with the other as prefix is greater)."""
    n = min(z - a, e - b)
    for i in range(n):
        if buf[a + i] != buf[b + i]:
            return buf[a + i] > buf[b + i]
    return z - a > e - b


@njit(cache=True, nogil=True)
def _grow(arr, n):
    out = np.empty(max(n, 2 * arr.size), arr.dtype)
    out[: arr.size] = arr
    return out


@njit(cache=True, nogil=True)
def scan_and_rank(buf, jq_blob, jq_ptr, jd_blob, jd_ptr, jq_first, remove_self_hits, horizon):
    """One pass over a run file's bytes.

    Judged query j's id is jq_blob[jq_ptr[j]:jq_ptr[j+1]]; its judged documents are entries
    jq_first[j]..jq_first[j+1]-1, entry e's id being jd_blob[jd_ptr[e]:jd_ptr[e+1]].
    Returns (status, rank per judged entry (0: not retrieved), hits per judged query after self-hit
    removal, each query group's qid offsets (start, end) and line count).
    """
    n_jq = jq_ptr.size - 1
    size = 1
    while size < 2 * n_jq + 2:
        size *= 2
    jtable = np.full(size, -1, np.int64)  # judged qid hash table
    for j in range(n_jq):
        h = _hash(jq_blob, jq_ptr[j], jq_ptr[j + 1])
        p = np.int64(h & np.uint64(size - 1))
        while jtable[p] >= 0:
            p = (p + 1) & (size - 1)
        jtable[p] = j
    ranks = np.zeros(jd_ptr.size - 1, np.int64)
    hits = np.zeros(n_jq, np.int64)
    seen = Dict.empty(key_type=types.uint64, value_type=types.int64)  # qid hash -> group
    g_qa = np.empty(1024, np.int64)
    g_qz = np.empty(1024, np.int64)
    g_n = np.empty(1024, np.int64)
    n_groups = 0
    # the current group's lines
    da = np.empty(1024, np.int64)
    dz = np.empty(1024, np.int64)
    sa = np.empty(1024, np.int64)
    sz = np.empty(1024, np.int64)
    table = np.zeros(4, np.int64)
    m = 0
    qa, qz = 0, 0
    n = buf.size
    cls = _CLASS
    i = 0
    while True:
        # -- next line's fields
        nf = 0
        f0a = f0z = f2a = f2z = f4a = f4z = 0
        at_end = i >= n
        while i < n:
            c = cls[buf[i]]
            if c == 2:
                break
            if c == 1:
                i += 1
                continue
            if c == 3:
                return _FALLBACK, ranks, hits, g_qa[:0], g_qz[:0], g_n[:0]
            if nf == 0 and buf[i] == 35:  # a comment line
                while i < n and buf[i] != 10:
                    if cls[buf[i]] == 3:
                        return _FALLBACK, ranks, hits, g_qa[:0], g_qz[:0], g_n[:0]
                    i += 1
                break
            start = i
            i += 1
            while i < n:
                c = cls[buf[i]]
                if c != 0:
                    break
                i += 1
            if i < n and c == 3:
                return _FALLBACK, ranks, hits, g_qa[:0], g_qz[:0], g_n[:0]
            if nf == 0:
                f0a, f0z = start, i
            elif nf == 2:
                f2a, f2z = start, i
            elif nf == 4:
                f4a, f4z = start, i
            nf += 1
        i += 1
        if nf != 0 and nf != 6:
            return _FALLBACK, ranks, hits, g_qa[:0], g_qz[:0], g_n[:0]
        if nf == 0 and not at_end:
            continue
        # -- a new query (or the end): finish the current group
        if at_end or m == 0 or not _same(buf, f0a, f0z, buf, qa, qz):
            if m:
                need = 4
                while need < 2 * m:
                    need *= 2
                if table.size < need or table.size > 8 * need:  # a docid hash table for the group, cleared
                    table = np.zeros(need, np.int64)
                else:
                    table[:] = 0
                st = _finish_group(buf, qa, qz, m, da, dz, sa, sz, table, jtable, jq_blob, jq_ptr, jd_blob, jd_ptr,
                                   jq_first, remove_self_hits, horizon, ranks, hits)
                if st != _OK:
                    return st, ranks, hits, g_qa[:0], g_qz[:0], g_n[:0]
                if n_groups == g_qa.size:
                    g_qa, g_qz, g_n = _grow(g_qa, 0), _grow(g_qz, 0), _grow(g_n, 0)
                g_qa[n_groups], g_qz[n_groups], g_n[n_groups] = qa, qz, m
                n_groups += 1
            if at_end:
                break
            h = _hash(buf, f0a, f0z)
            if h in seen:  # the query's lines are not contiguous (or a hash collision): the slow path decides
                return _FALLBACK, ranks, hits, g_qa[:0], g_qz[:0], g_n[:0]
            seen[h] = n_groups
            qa, qz, m = f0a, f0z, 0
        if m == da.size:
            da, dz, sa, sz = _grow(da, 0), _grow(dz, 0), _grow(sa, 0), _grow(sz, 0)
        da[m], dz[m], sa[m], sz[m] = f2a, f2z, f4a, f4z
        m += 1
    return _OK, ranks, hits, g_qa[:n_groups], g_qz[:n_groups], g_n[:n_groups]


@njit(cache=True, nogil=True)
def _finish_group(buf, qa, qz, m, da, dz, sa, sz, table, jtable, jq_blob, jq_ptr, jd_blob, jd_ptr, jq_first,
                  remove_self_hits, horizon, ranks, hits):
    scores, exact = parse_scores(buf, sa[:m], sz[:m])
    for r in range(m):
        if not exact[r]:
            return _FALLBACK
    return _rank_group(buf, qa, qz, m, da, dz, table, jtable, jq_blob, jq_ptr, jd_blob, jd_ptr, jq_first,
                       remove_self_hits, horizon, ranks, hits, scores)


@njit(cache=True, nogil=True)
def _rank_group(buf, qa, qz, m, da, dz, table, jtable, jq_blob, jq_ptr, jd_blob, jd_ptr, jq_first,
                remove_self_hits, horizon, ranks, hits, scores):
    mask = table.size - 1
    self_line = -1
    for r in range(m):
        p = np.int64(_hash(buf, da[r], dz[r]) & np.uint64(mask))
        while table[p]:
            if _same(buf, da[table[p] - 1], dz[table[p] - 1], buf, da[r], dz[r]):
                return _FALLBACK  # a document twice for the query: read_run names the line
            p = (p + 1) & mask
        table[p] = r + 1
        if remove_self_hits and self_line < 0 and _same(buf, da[r], dz[r], buf, qa, qz):
            self_line = r
    # a judged query?
    jmask = jtable.size - 1
    p = np.int64(_hash(buf, qa, qz) & np.uint64(jmask))
    j = -1
    while jtable[p] >= 0:
        if _same(jq_blob, jq_ptr[jtable[p]], jq_ptr[jtable[p] + 1], buf, qa, qz):
            j = jtable[p]
            break
        p = (p + 1) & jmask
    if j < 0:
        return _OK
    n = m - (1 if self_line >= 0 else 0)
    hits[j] = n
    for e in range(jq_first[j], jq_first[j + 1]):
        a, z = jd_ptr[e], jd_ptr[e + 1]
        p = np.int64(_hash(jd_blob, a, z) & np.uint64(mask))
        line = -1
        while table[p]:
            r = table[p] - 1
            if _same(jd_blob, a, z, buf, da[r], dz[r]):
                line = r
                break
            p = (p + 1) & mask
        if line < 0 or line == self_line:
            continue
        s = scores[line]
        gt = 0
        tied = 0
        for r in range(m):
            if r != self_line:
                if scores[r] > s:
                    gt += 1
                elif scores[r] == s:
                    tied += 1
        rank = 1 + gt
        if tied > 1 and rank <= horizon:  # inside a tie, every tied hit with a larger docid ranks ahead
            for r in range(m):
                if r != self_line and r != line and scores[r] == s and _greater(buf, da[r], dz[r], da[line], dz[line]):
                    rank += 1
        ranks[e] = rank
    return _OK


def scan(data: bytes, qrels: Qrels, qids: list[str], ms: list[Measure], remove_self_hits: bool):
    """(per-query values: judged queries × measures, {qid: hits}) of a run file's bytes; None when the
    checked reader must decide (see the module docstring)."""
    try:
        jq = [q.encode("ascii") for q in qids]
        jd = [[d.encode("ascii") for d in qrels[q]] for q in qids]
    except UnicodeEncodeError:
        return None  # non-ASCII ids: the run's lines holding them go the checked way anyway
    jq_ptr = np.zeros(len(jq) + 1, np.int64)
    np.cumsum([len(q) for q in jq], out=jq_ptr[1:])
    flat = [d for ds in jd for d in ds]
    jd_ptr = np.zeros(len(flat) + 1, np.int64)
    np.cumsum([len(d) for d in flat], out=jd_ptr[1:])
    jq_first = np.zeros(len(jq) + 1, np.int64)
    np.cumsum([len(ds) for ds in jd], out=jq_first[1:])
    as_array = lambda b: np.frombuffer(b, np.uint8) if b else np.zeros(1, np.uint8)  # noqa: E731
    horizon = math.inf if any(m.k is None or m.name in _WHOLE_RANKING for m in ms) else max(m.k for m in ms)
    tables = (as_array(b"".join(jq)), jq_ptr, as_array(b"".join(flat)), jd_ptr, jq_first, bool(remove_self_hits),
              float(min(horizon, 2.0**62)))
    buf = np.frombuffer(data, np.uint8)
    cuts = _cuts(data, min(os.cpu_count() or 1, 2) if len(data) >= _PARALLEL_MIN_BYTES else 1)
    if len(cuts) == 2:
        parts = [scan_and_rank(buf, *tables)]
    else:  # parts of the file, each ending where a query does, scanned side by side (the kernel holds no GIL)
        with ThreadPoolExecutor(len(cuts) - 1) as pool:
            parts = list(pool.map(lambda a, z: scan_and_rank(buf[a:z], *tables), cuts[:-1], cuts[1:]))
    if any(p[0] != _OK for p in parts):
        return None
    ranks, hits = sum(p[1] for p in parts), sum(p[2] for p in parts)  # each query is in one part
    counts: dict[str, int] = {}
    for start, (_, _, _, g_qa, g_qz, g_n) in zip(cuts, parts):
        for a, z, c in zip(g_qa.tolist(), g_qz.tolist(), g_n.tolist()):
            q = data[start + a : start + z].decode("ascii")
            if q in counts:
                return None  # a query in two parts: its lines are not contiguous, the checked reader decides
            counts[q] = c
    table = np.zeros((len(qids), len(ms)))
    ranks_l, hits_l = ranks.tolist(), hits.tolist()
    first = jq_first.tolist()
    for i, q in enumerate(qids):
        n = hits_l[i]
        if not n:
            continue
        judgements = qrels[q]
        found = [(r, g) for r, g in zip(ranks_l[first[i] : first[i + 1]], judgements.values()) if r]
        table[i] = _query_values(ms, judgements, [r for r, _ in found], [g for _, g in found], n)
    return table, counts


def _cuts(data: bytes, parts: int) -> list[int]:
    """Offsets splitting the file into `parts` pieces at line starts, each moved on to where the first field
    (the qid) changes, so that no query is split (if one were, `scan` would notice and give up)."""
    cuts = [0]
    for p in range(1, parts):
        pos = data.find(b"\n", max(cuts[-1], len(data) * p // parts)) + 1
        if pos <= 0:
            break
        line_end = data.find(b"\n", pos)
        fields = data[pos : line_end if line_end >= 0 else len(data)].split(None, 1)
        qid = fields[0] if fields else None
        for _ in range(100_000):  # past the lines of the query at the cut
            if pos >= len(data) or qid is None:
                break
            end = data.find(b"\n", pos)
            end = len(data) if end < 0 else end
            fields = data[pos:end].split(None, 1)
            if not fields or fields[0] != qid:
                break
            pos = end + 1
        if cuts[-1] < pos < len(data):
            cuts.append(pos)
    return cuts + [len(data)]
