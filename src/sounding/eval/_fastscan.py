"""numba kernels behind `read_run`'s fast path for large, well-formed run files.

Why: a Python loop over lines costs about 1 us a line (10 s for 10 M lines). These kernels find the
qid / docid / score fields of every line and parse the scores in one compiled pass; Python then only
makes the str objects and dicts. Anything unusual (a wrong column count, a non-ASCII or NUL byte) sends
the whole file to the plain loop in trec.py, which is the single place that judges and reports errors, so
the two paths cannot disagree. A score the exact fast path cannot parse is handed to trec.py's score rule
(C strtod syntax: `1_0` is refused, `0x1p3` is 8.0); if that rule refuses it, the plain loop reports it.
Comment lines (first field beginning with `#`, as in trec_eval 10) are skipped, as the plain loop does.
"""
from __future__ import annotations

import numpy as np
from numba import njit

_POW10 = np.array([10.0**i for i in range(23)])  # exact doubles: 10**22 < 2**53 * 2**22


@njit(cache=True, nogil=True)
def _is_space(c):
    # bytes.split()'s whitespace: space, \t, \n, \v, \f, \r
    return c == 32 or (9 <= c <= 13)


@njit(cache=True, nogil=True)
def scan_run(buf, lines):
    """Offsets [start, end) of fields 0 (qid), 2 (docid) and 4 (score) of each non-blank line.

    `lines` bounds the number of lines (newlines + 1). Returns (offsets as an (n, 6) int64 array, ok);
    ok is False when a line does not have 6 fields or holds a byte left to Python (NUL, non-ASCII), a
    comment line's included. A line whose first field begins with `#` is a comment and is skipped.
    """
    n = buf.size
    off = np.empty((lines, 6), np.int64)
    rec = 0
    i = 0
    while i < n:
        nf = 0
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
                if buf[i] == 0 or buf[i] >= 128:
                    return off[:0], False
                i += 1
            if nf == 0 or nf == 2 or nf == 4:
                off[rec, nf] = start
                off[rec, nf + 1] = i
            nf += 1
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
