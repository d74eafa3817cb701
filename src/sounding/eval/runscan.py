"""Evaluate a TREC run file straight from its bytes: one compiled pass, no Python object per line.

`evaluate(qrels, read_run(path), ...)` makes a str and a float per line and a dict per query before any
measure is computed. Every measure needs only, per judged query, the ranks of the judged documents it
retrieved and its number of hits (metrics.py), so `scan` (behind trec.evaluate_run_file) computes exactly those in one pass
over the file: it splits lines into fields, parses scores (the exact fast path of trec/scan.py), checks each
query's hits for a repeated document, finds the judged documents by hashing their ids, and counts, for
each one, the hits scored higher and — inside a score tie only — the tied hits with a larger docid
(byte order, as Python's str order and trec_eval's strcmp). The per-query values then come from
the measures' own code (measures/), so they are the same to the last digit as `evaluate(qrels, read_run(path))`.

Anything the fast pass does not handle itself — a malformed line, a control or non-ASCII byte, a line
longer than validate.MAX_LINE, a score outside
the exact fast path (hexadecimal, long mantissas), a query whose lines are not contiguous, a repeated
(qid, docid) — sends the file through `read_run` + `evaluate`, which accept or report it as always.

Speed: each line's bytes are read once, by one loop (`_read_group`) that calls no numba function taking
an array; a query's judged documents are found in its docid table, and when its scores are
non-increasing (as a search writes them) a judged hit's rank is read off the run of equal scores around
it instead of comparing every hit.
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from itertools import chain

import numpy as np
from numba import njit

from ..trec.scan import hash_bytes, in_field, is_blank, mix_hash, parse_scores, same_bytes
from ..validate import MAX_LINE
from .measures import Measure, horizon, query_values
from .metrics import Qrels

_OK, _FALLBACK, _FULL = 0, 1, 2
_PARALLEL_MIN_BYTES = 64 << 20  # below, one thread: starting a second costs more than it saves


@njit(cache=True, nogil=True)
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
        h = hash_bytes(jq_blob, jq_ptr[j], jq_ptr[j + 1])
        p = np.int64(h & np.uint64(size - 1))
        while jtable[p] >= 0:
            p = (p + 1) & (size - 1)
        jtable[p] = j
    jd_hash = np.empty(jd_ptr.size - 1, np.uint64)
    for e in range(jd_ptr.size - 1):
        jd_hash[e] = hash_bytes(jd_blob, jd_ptr[e], jd_ptr[e + 1])
    ranks = np.zeros(jd_ptr.size - 1, np.int64)
    hits = np.zeros(n_jq, np.int64)
    g_qa = np.empty(1024, np.int64)
    g_qz = np.empty(1024, np.int64)
    g_n = np.empty(1024, np.int64)
    n_groups = 0
    # a query's lines: docid offsets and hash, score field offsets; its docid table: slot -> line + 1, in
    # use where stamp == the group's number + 1 (so never cleared)
    da = np.empty(2048, np.int64)
    dz = np.empty(2048, np.int64)
    dh = np.empty(2048, np.uint64)
    sa = np.empty(2048, np.int64)
    sz = np.empty(2048, np.int64)
    table = np.zeros(4096, np.int64)
    stamp = np.zeros(4096, np.int64)
    i = 0
    while i < buf.size:
        gen = n_groups + 1
        st, i, m, qa, qz = _read_group(buf, i, 0, 0, 0, da, dz, dh, sa, sz, table, stamp, gen)
        while st == _FULL:  # a query of more lines than the arrays hold: larger ones, its lines so far moved
            da, dz, dh, sa, sz = _grow(da, 0), _grow(dz, 0), _grow(dh, 0), _grow(sa, 0), _grow(sz, 0)
            table = np.zeros(2 * da.size, np.int64)
            stamp = np.zeros(table.size, np.int64)
            for r in range(m):
                p = np.int64(dh[r] & np.uint64(table.size - 1))
                while stamp[p] == gen:
                    p = (p + 1) & (table.size - 1)
                table[p] = r + 1
                stamp[p] = gen
            st, i, m, qa, qz = _read_group(buf, i, m, qa, qz, da, dz, dh, sa, sz, table, stamp, gen)
        if st != _OK:
            return st, ranks, hits, g_qa[:0], g_qz[:0], g_n[:0]
        if m == 0:  # only blank or comment lines were left
            break
        st = _finish_group(buf, qa, qz, m, da, dz, dh, sa, sz, table, stamp, gen, jtable, jq_blob, jq_ptr, jd_blob,
                           jd_ptr, jd_hash, jq_first, remove_self_hits, horizon, ranks, hits)
        if st != _OK:
            return st, ranks, hits, g_qa[:0], g_qz[:0], g_n[:0]
        if n_groups == g_qa.size:
            g_qa, g_qz, g_n = _grow(g_qa, 0), _grow(g_qz, 0), _grow(g_n, 0)
        g_qa[n_groups], g_qz[n_groups], g_n[n_groups] = qa, qz, m
        n_groups += 1
    return _OK, ranks, hits, g_qa[:n_groups], g_qz[:n_groups], g_n[:n_groups]


@njit(cache=True, nogil=True)
def _read_group(buf, i, m, qa, qz, da, dz, dh, sa, sz, table, stamp, gen):
    """Read the lines of one query from offset i: m of them read already (its id buf[qa:qz]), or none
    (m == 0: the query is the next line's). Returns (status, offset, m, qa, qz): _OK at the first line of
    another query or the end of the data, _FULL at the next line when the arrays are full, _FALLBACK.

    Each line's bytes are read once, here: its fields found by their separators, the qid compared with
    the query's, the docid hashed and put in the query's table, where a repeated document is found. This
    loop calls no function that takes an array and reassigns none (either costs numba more than reading a
    field); the scores are parsed when the query's lines are all read.
    """
    n = buf.size
    mask = table.size - 1
    cap = min(da.size, table.size // 2)  # the table stays at most half full
    while True:
        # -- past blank lines and comment lines to the next line's first field, or the end
        while i < n and (buf[i] == 10 or is_blank(buf[i])):
            i += 1
        if i < n and buf[i] == 35:  # '#': a comment line
            while i < n and buf[i] != 10:
                if buf[i] == 0 or buf[i] >= 128:
                    return _FALLBACK, i, m, qa, qz
                i += 1
            continue
        if i >= n:
            return _OK, n, m, qa, qz
        # -- its six fields: each ends at whitespace; a newline, the end or another byte before the sixth
        # sends the file to the checked reader
        line = i
        while i < n and in_field(buf[i]):
            i += 1
        f0z = i
        f2a = f2z = f4a = f4z = i
        h = np.uint64(0)
        for f in range(1, 6):
            if i >= n or not is_blank(buf[i]):
                return _FALLBACK, i, m, qa, qz
            while i < n and is_blank(buf[i]):
                i += 1
            a = i
            if f == 2:
                while i < n and in_field(buf[i]):
                    h = (h << np.uint64(5)) - h + np.uint64(buf[i])  # as in hash_bytes
                    i += 1
            else:
                while i < n and in_field(buf[i]):
                    i += 1
            if i == a:
                return _FALLBACK, i, m, qa, qz
            if f == 2:
                f2a, f2z = a, i
            elif f == 4:
                f4a, f4z = a, i
        while i < n and is_blank(buf[i]):
            i += 1
        if i < n and buf[i] != 10:  # a seventh field, or a byte the checked reader must judge
            return _FALLBACK, i, m, qa, qz
        if i - line > MAX_LINE:  # the checked reader names it
            return _FALLBACK, i, m, qa, qz
        i += 1
        # -- the query's line, or another query's first
        if m == 0:
            qa, qz = line, f0z
        else:
            if f0z - line != qz - qa:
                return _OK, line, m, qa, qz
            for k in range(qz - qa):
                if buf[line + k] != buf[qa + k]:
                    return _OK, line, m, qa, qz
        if m == cap:
            return _FULL, line, m, qa, qz
        # -- the docid into the query's table; the same one twice: the checked reader names the line
        h = mix_hash(h, f2z - f2a)
        p = np.int64(h & np.uint64(mask))
        while stamp[p] == gen:
            r = table[p] - 1
            if dh[r] == h and dz[r] - da[r] == f2z - f2a:
                same = True
                for k in range(f2z - f2a):
                    if buf[da[r] + k] != buf[f2a + k]:
                        same = False
                        break
                if same:
                    return _FALLBACK, i, m, qa, qz
            p = (p + 1) & mask
        table[p] = m + 1
        stamp[p] = gen
        da[m], dz[m], dh[m], sa[m], sz[m] = f2a, f2z, h, f4a, f4z
        m += 1


@njit(cache=True, nogil=True)
def _find(buf, table, stamp, gen, da, dz, dh, blob, a, z, h):
    """The group's line holding the id blob[a:z] (hash h), -1 if none."""
    mask = table.size - 1
    p = np.int64(h & np.uint64(mask))
    while stamp[p] == gen:
        r = table[p] - 1
        if dh[r] == h and same_bytes(blob, a, z, buf, da[r], dz[r]):
            return r
        p = (p + 1) & mask
    return -1


@njit(cache=True, nogil=True)
def _finish_group(buf, qa, qz, m, da, dz, dh, sa, sz, table, stamp, gen, jtable, jq_blob, jq_ptr, jd_blob, jd_ptr,
                  jd_hash, jq_first, remove_self_hits, horizon, ranks, hits):
    """A query's lines are read: its scores parsed (any outside the exact fast path: _FALLBACK), the ranks
    of its judged documents and its hits (without its self hit if asked) counted.

    A judged hit's rank is 1 + (hits scored higher) + (tied hits with a larger docid, counted only where
    the rank is within `horizon`). When the scores are non-increasing, as a search writes them, the hits
    scored higher are those before the judged hit's run of equal scores, and only that run is read;
    otherwise every hit of the query is."""
    sc, exact = parse_scores(buf, sa[:m], sz[:m])
    ordered = True
    for r in range(m):
        if not exact[r]:
            return _FALLBACK
        if r and sc[r] > sc[r - 1]:
            ordered = False
    jmask = jtable.size - 1
    qh = hash_bytes(buf, qa, qz)
    p = np.int64(qh & np.uint64(jmask))
    j = -1
    while jtable[p] >= 0:
        if same_bytes(jq_blob, jq_ptr[jtable[p]], jq_ptr[jtable[p] + 1], buf, qa, qz):
            j = jtable[p]
            break
        p = (p + 1) & jmask
    if j < 0:
        return _OK
    self_line = _find(buf, table, stamp, gen, da, dz, dh, buf, qa, qz, qh) if remove_self_hits else -1
    hits[j] = m - (1 if self_line >= 0 else 0)
    for e in range(jq_first[j], jq_first[j + 1]):
        line = _find(buf, table, stamp, gen, da, dz, dh, jd_blob, jd_ptr[e], jd_ptr[e + 1], jd_hash[e])
        if line < 0 or line == self_line:
            continue
        s = sc[line]
        if ordered:  # the run of hits scored s is lo..hi-1; every hit before it is scored higher
            lo = line
            while lo > 0 and sc[lo - 1] == s:
                lo -= 1
            hi = line + 1
            while hi < m and sc[hi] == s:
                hi += 1
            gt = lo - (1 if 0 <= self_line < lo else 0)
            tied = hi - lo - (1 if lo <= self_line < hi else 0)
        else:
            lo, hi, gt, tied = 0, m, 0, 0
            for r in range(m):
                if r != self_line:
                    if sc[r] > s:
                        gt += 1
                    elif sc[r] == s:
                        tied += 1
        rank = 1 + gt
        if tied > 1 and rank <= horizon:  # inside a tie, every tied hit with a larger docid ranks ahead
            for r in range(lo, hi):
                if r != self_line and r != line and sc[r] == s and _greater(buf, da[r], dz[r], da[line], dz[line]):
                    rank += 1
        ranks[e] = rank
    return _OK


def scan(data: bytes, qrels: Qrels, qids: list[str], ms: list[Measure], remove_self_hits: bool):
    """(per-query values: judged queries × measures, {qid: hits}) of a run file's bytes; None when the
    checked reader must decide (see the module docstring)."""
    flat = list(chain.from_iterable(qrels[q] for q in qids))  # the judged docids, query by query
    try:  # one join and one encode each (ASCII: a str's length is its bytes')
        jq_blob, jd_blob = "".join(qids).encode("ascii"), "".join(flat).encode("ascii")
    except UnicodeEncodeError:
        return None  # non-ASCII ids: the run's lines holding them go the checked way anyway
    jq_ptr = np.zeros(len(qids) + 1, np.int64)
    np.cumsum(list(map(len, qids)), out=jq_ptr[1:])
    jd_ptr = np.zeros(len(flat) + 1, np.int64)
    np.cumsum(list(map(len, flat)), out=jd_ptr[1:])
    jq_first = np.zeros(len(qids) + 1, np.int64)
    np.cumsum([len(qrels[q]) for q in qids], out=jq_first[1:])
    as_array = lambda b: np.frombuffer(b, np.uint8) if b else np.zeros(1, np.uint8)  # noqa: E731
    tables = (as_array(jq_blob), jq_ptr, as_array(jd_blob), jd_ptr, jq_first, bool(remove_self_hits),
              float(min(horizon(ms), 2.0**62)))
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
                return None  # a query whose lines are not contiguous (in one part or two): the checked reader decides
            counts[q] = c
    table = np.zeros((len(qids), len(ms)))
    ranks_l, hits_l = ranks.tolist(), hits.tolist()
    first = jq_first.tolist()
    for i, q in enumerate(qids):
        n = hits_l[i]
        judgements = qrels[q]
        found = [(r, g) for r, g in zip(ranks_l[first[i] : first[i + 1]], judgements.values()) if r] if n else []
        table[i] = query_values(ms, judgements, [r for r, _ in found], [g for _, g in found], n)
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
