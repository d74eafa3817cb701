"""numba kernels behind `read_run`'s and `read_qrels`' fast paths for large, well-formed files, and the id
hash and byte tests that runscan and arrayeval share.

Why: a Python loop over lines costs about 1 us a line (10 s for 10 M lines). These kernels find the
qid / docid / score fields of every line and parse the scores in one compiled pass; Python then only
makes the str objects and dicts. Anything unusual (a wrong column count, a non-ASCII or control byte, a
line longer than validate.MAX_LINE) sends
the whole file to the plain loop in trec.py, which is the single place that judges and reports errors, so
the two paths cannot disagree. A score the exact fast path cannot parse is handed to trec.py's score rule
(C strtod syntax: `1_0` is refused, `0x1p3` is 8.0); if that rule refuses it, the plain loop reports it.
Comment lines (first field beginning with `#`, as in trec_eval 10) are skipped, as the plain loop does.
`scan_trec_qrels` does the same for TREC qrels: anything it does not take goes to read_qrels' line loop.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..validate import MAX_LINE

_POW10 = np.array([10.0**i for i in range(23)])  # exact doubles: 10**22 < 2**53 * 2**22


@njit(cache=True, nogil=True)
def mix_hash(h, length):
    """The end of `hash_bytes`: the length folded in, then the bits mixed so that the low ones index a table well."""
    h ^= np.uint64(length) * np.uint64(0x9E3779B97F4A7C15)
    h ^= h >> np.uint64(29)
    h *= np.uint64(0xBF58476D1CE4E5B9)
    return h ^ (h >> np.uint64(32))


@njit(cache=True, nogil=True)
def hash_bytes(buf, a, z):
    """Hash of the id buf[a:z]: h·31 + byte over its bytes, then `mix_hash` (scan_and_rank computes the same
    while it reads a docid)."""
    h = np.uint64(0)
    for i in range(a, z):
        h = (h << np.uint64(5)) - h + np.uint64(buf[i])
    return mix_hash(h, z - a)


@njit(cache=True, nogil=True)
def same_bytes(x, a, z, y, b, e):
    if z - a != e - b:
        return False
    for i in range(z - a):
        if x[a + i] != y[b + i]:
            return False
    return True


@njit(cache=True, nogil=True)
def is_blank(c):
    """bytes.split()'s whitespace other than the newline: space, \t, \v, \f, \r."""
    return c == 32 or (9 <= c <= 13 and c != 10)


@njit(cache=True, nogil=True)
def in_field(c):
    """Printable ASCII: a byte the fast pass reads as part of a field (any other ends it, and unless it is
    whitespace the checked reader judges the line: a control byte, DEL included, or a non-ASCII one)."""
    return 32 < c < 127


@njit(cache=True, nogil=True)
def _is_space(c):
    # bytes.split()'s whitespace: space, \t, \n, \v, \f, \r
    return c == 32 or (9 <= c <= 13)


@njit(cache=True, nogil=True)
def scan_run(buf, lines):
    """Offsets [start, end) of fields 0 (qid), 2 (docid) and 4 (score) of each non-blank line.

    `lines` bounds the number of lines (newlines + 1). Returns (offsets as an (n, 6) int64 array, ok);
    ok is False when a line does not have 6 fields, is longer than MAX_LINE or holds a byte left to Python
    (a control byte or a non-ASCII one; in a comment line, NUL or non-ASCII). A line whose first field
    begins with `#` is a comment and is skipped.
    """
    n = buf.size
    off = np.empty((lines, 6), np.int64)
    rec = 0
    i = 0
    while i < n:
        nf = 0
        line = i
        while i < n and buf[i] != 10:
            c = buf[i]
            if _is_space(c):
                i += 1
                continue
            if nf == 0 and c == 35:  # '#': a comment, to the end of the line
                while i < n and buf[i] != 10:
                    if buf[i] == 0 or buf[i] >= 128:
                        return off[:0], False
                    i += 1
                break
            start = i
            while i < n and not _is_space(buf[i]):
                if buf[i] < 32 or buf[i] >= 127:
                    return off[:0], False
                i += 1
            if nf == 0 or nf == 2 or nf == 4:
                off[rec, nf] = start
                off[rec, nf + 1] = i
            nf += 1
        if i - line > MAX_LINE:
            return off[:0], False
        if nf == 6:
            rec += 1
        elif nf != 0:
            return off[:0], False
        i += 1
    return off[:rec], True


@njit(cache=True, nogil=True)
def parse_scores(buf, starts, ends):
    """Decimal scores by Clinger's fast path (mantissa <= 2**53, |power of ten| <= 22: one exact IEEE
    operation, so the result equals float()'s correctly rounded one). exact[i] is False where the token
    is anything else (inf, nan, 1_0, hexadecimal, long mantissas, garbage): trec.py's strtod rule decides
    those."""
    m = starts.size
    out = np.zeros(m)
    exact = np.ones(m, np.bool_)
    for r in range(m):
        i, e = starts[r], ends[r]
        neg = False
        if buf[i] == 45 or buf[i] == 43:  # - +
            neg = buf[i] == 45
            i += 1
        mant = 0
        sig = 0  # significant digits in mant
        digits = 0
        p10 = 0
        while i < e and 48 <= buf[i] <= 57:
            mant = mant * 10 + (buf[i] - 48)
            if mant:
                sig += 1
            digits += 1
            i += 1
        if i < e and buf[i] == 46:  # .
            i += 1
            while i < e and 48 <= buf[i] <= 57:
                mant = mant * 10 + (buf[i] - 48)
                if mant:
                    sig += 1
                digits += 1
                p10 -= 1
                i += 1
        if i < e and (buf[i] == 101 or buf[i] == 69) and digits:  # e E
            i += 1
            eneg = False
            if i < e and (buf[i] == 45 or buf[i] == 43):
                eneg = buf[i] == 45
                i += 1
            x = 0
            nx = 0
            while i < e and 48 <= buf[i] <= 57 and nx < 6:
                x = x * 10 + (buf[i] - 48)
                nx += 1
                i += 1
            if nx == 0:
                digits = 0  # "1e" is not a number: leave it to float()
            p10 += -x if eneg else x
        if i != e or digits == 0 or sig > 18:
            exact[r] = False
            continue
        if mant == 0:
            v = 0.0
        elif mant <= 9007199254740992 and -22 <= p10 <= 22:
            v = mant * _POW10[p10] if p10 >= 0 else mant / _POW10[-p10]
        else:
            exact[r] = False
            continue
        out[r] = -v if neg else v
    return out, exact


@njit(cache=True, nogil=True)
def join_fields(buf, starts, ends):
    """The fields, each followed by a newline: one bytes.decode().split() then makes all the str objects,
    much faster than one decode per field."""
    total = 0
    for r in range(starts.size):
        total += ends[r] - starts[r] + 1
    out = np.empty(total, np.uint8)
    k = 0
    for r in range(starts.size):
        for j in range(starts[r], ends[r]):
            out[k] = buf[j]
            k += 1
        out[k] = 10
        k += 1
    return out


@njit(cache=True, nogil=True)
def new_field_rows(buf, starts, ends):
    """Rows whose field differs from the previous row's (row 0 included): where each query's lines begin."""
    out = np.empty(starts.size, np.int64)
    m = 0
    for r in range(starts.size):
        same = r > 0 and ends[r] - starts[r] == ends[r - 1] - starts[r - 1]
        if same:
            a, b = starts[r], starts[r - 1]
            for j in range(ends[r] - starts[r]):
                if buf[a + j] != buf[b + j]:
                    same = False
                    break
        if not same:
            out[m] = r
            m += 1
    return out[:m]


@njit(cache=True, nogil=True)
def scan_trec_qrels(buf, lines):
    """TREC qrels (`qid iter docid grade`) as read_qrels reads them, grouped by query: (ok, each query's
    qid offsets (start, end), in order of first appearance, where each query's judgements begin (and the
    last ends), their docid offsets (start, end) and grades, in file order).

    `lines` bounds the number of lines. ok is False, for the line reader to decide (and name any fault),
    when the first line that is not blank or a comment has exactly two tabs (BEIR TSV), a line has other
    than 4 fields, a grade is not [+-] and up to 18 digits, a byte is NUL, non-ASCII or a control byte
    other than whitespace, a line is longer than MAX_LINE, or a (qid, docid) pair is judged twice. Comments:
    lines whose first byte is `#`.
    """
    n = buf.size
    qa = np.empty(lines, np.int64)
    qz = np.empty(lines, np.int64)
    da = np.empty(lines, np.int64)
    dz = np.empty(lines, np.int64)
    grade = np.empty(lines, np.int64)
    group = np.empty(lines, np.int64)
    first_line = np.empty(lines, np.int64)  # per query: its first line
    size = 4
    while size < 2 * lines:
        size *= 2
    mask = size - 1
    qtab = np.full(size, -1, np.int64)  # qid hash -> query
    dtab = np.full(size, -1, np.int64)  # (query, docid) hash -> line
    empty = np.zeros(0, np.int64)
    rec = 0
    n_q = 0
    decided = False
    f = np.zeros(8, np.int64)  # the line's first four fields: start, end
    i = 0
    while i < n:
        start = i
        # the line's fields
        nf = 0
        while i < n and buf[i] != 10:
            c = buf[i]
            if is_blank(c):
                i += 1
                continue
            if c < 32 or c >= 128:
                return False, empty, empty, empty, empty, empty, empty
            a = i
            while i < n and in_field(buf[i]):
                i += 1
            if i < n and buf[i] != 10 and not is_blank(buf[i]):
                return False, empty, empty, empty, empty, empty, empty
            if nf < 4:
                f[2 * nf] = a
                f[2 * nf + 1] = i
            nf += 1
        i += 1
        if i - 1 - start > MAX_LINE:
            return False, empty, empty, empty, empty, empty, empty
        if nf == 0 or buf[start] == 35:  # blank, or a comment
            continue
        if not decided:
            e = i - 1  # the line's end
            while e > start and buf[e - 1] == 13:  # rstrip(b"\r") before the tab count, as read_qrels
                e -= 1
            t = 0
            for k in range(start, e):
                if buf[k] == 9:
                    t += 1
            if t == 2:
                return False, empty, empty, empty, empty, empty, empty
            decided = True
        if nf != 4:
            return False, empty, empty, empty, empty, empty, empty
        # the grade: [+-]digits, at most 18 of them
        a, z = f[6], f[7]
        neg = buf[a] == 45
        if buf[a] == 45 or buf[a] == 43:
            a += 1
        if z - a < 1 or z - a > 18:
            return False, empty, empty, empty, empty, empty, empty
        g = 0
        for k in range(a, z):
            if not 48 <= buf[k] <= 57:
                return False, empty, empty, empty, empty, empty, empty
            g = g * 10 + (buf[k] - 48)
        # the query
        h = hash_bytes(buf, f[0], f[1])
        p = np.int64(h & np.uint64(mask))
        q = -1
        while qtab[p] >= 0:
            r = first_line[qtab[p]]
            if qz[r] - qa[r] == f[1] - f[0]:
                same = True
                for k in range(f[1] - f[0]):
                    if buf[qa[r] + k] != buf[f[0] + k]:
                        same = False
                        break
                if same:
                    q = qtab[p]
                    break
            p = (p + 1) & mask
        if q < 0:
            q = n_q
            qtab[p] = q
            first_line[q] = rec
            n_q += 1
        # the (query, docid) pair: judged twice sends the file to the line reader
        h = mix_hash(hash_bytes(buf, f[4], f[5]), q)  # the docid's hash with the query folded in
        p = np.int64(h & np.uint64(mask))
        while dtab[p] >= 0:
            r = dtab[p]
            if group[r] == q and dz[r] - da[r] == f[5] - f[4]:
                same = True
                for k in range(f[5] - f[4]):
                    if buf[da[r] + k] != buf[f[4] + k]:
                        same = False
                        break
                if same:
                    return False, empty, empty, empty, empty, empty, empty
            p = (p + 1) & mask
        dtab[p] = rec
        qa[rec], qz[rec], da[rec], dz[rec] = f[0], f[1], f[4], f[5]
        grade[rec] = -g if neg else g
        group[rec] = q
        rec += 1
    # the judgements grouped by query, in file order within each (a counting sort)
    ptr = np.zeros(n_q + 1, np.int64)
    for r in range(rec):
        ptr[group[r] + 1] += 1
    for q in range(n_q):
        ptr[q + 1] += ptr[q]
    fill = ptr[:-1].copy()
    order = np.empty(rec, np.int64)
    for r in range(rec):
        order[fill[group[r]]] = r
        fill[group[r]] += 1
    fl = first_line[:n_q]
    return True, qa[fl], qz[fl], ptr, da[order], dz[order], grade[order]
