"""Lucene's Porter stemmer (porter.py's port) in compiled code, over ASCII bytes.

The same algorithm, step for step, as `porter._Word` (Lucene's PorterStemmer): the buffer `b`,
the end index `k` and the suffix start `j`. Compiled analysis stems each new ASCII surface with it
(words with another character go through `porter.lucene_porter`); tests check both agree.
"""
from __future__ import annotations

import numba as nb
import numpy as np

from .porter import STEP3, STEP4, STEP5


def _rules(table: dict, with_replacement: bool):
    """A step's rules as arrays: key letter, suffix and replacement (offsets into one byte arena)."""
    keys, arena, bounds = [], bytearray(), [0]
    for letter, rules in table.items():
        for rule in rules:
            suffix, repl = rule if with_replacement else (rule, "")
            keys.append(ord(letter))
            for part in (suffix, repl):
                arena += part.encode("ascii")
                bounds.append(len(arena))
    return np.array(keys, np.uint8), np.frombuffer(bytes(arena), np.uint8).copy(), np.array(bounds, np.int64)


S3_KEY, S3_ARENA, S3_BOUNDS = _rules(STEP3, True)
S4_KEY, S4_ARENA, S4_BOUNDS = _rules(STEP4, True)
S5_KEY, S5_ARENA, S5_BOUNDS = _rules(STEP5, False)
_a, _e, _i, _o, _u, _y = (ord(c) for c in "aeiouy")
_s, _l, _z, _t, _w, _x = (ord(c) for c in "slztwx")


@nb.njit(inline="always")
def _cons(b, i):
    c = b[i]
    if c == _a or c == _e or c == _i or c == _o or c == _u:
        return False
    if c != _y:
        return True
    # a run of y: each flips the answer of the letter before it; the first letter is a consonant
    v = 0
    while i - v >= 0 and b[i - v] == _y:
        v += 1
    p = i - v
    if p < 0:
        return (v - 1) % 2 == 0
    c = b[p]
    base = not (c == _a or c == _e or c == _i or c == _o or c == _u)
    return base if v % 2 == 0 else not base


@nb.njit
def _m(b, j):
    n = 0
    i = 0
    while True:
        if i > j:
            return n
        if not _cons(b, i):
            break
        i += 1
    i += 1
    while True:
        while True:
            if i > j:
                return n
            if _cons(b, i):
                break
            i += 1
        i += 1
        n += 1
        while True:
            if i > j:
                return n
            if not _cons(b, i):
                break
            i += 1
        i += 1


@nb.njit
def _vowelinstem(b, j):
    for i in range(0, j + 1):
        if not _cons(b, i):
            return True
    return False


@nb.njit
def _doublec(b, j):
    return j >= 1 and b[j] == b[j - 1] and _cons(b, j)


@nb.njit
def _cvc(b, i):
    if i < 2 or not _cons(b, i) or _cons(b, i - 1) or not _cons(b, i - 2):
        return False
    c = b[i]
    return not (c == _w or c == _x or c == _y)


@nb.njit
def _ends(b, k, s, a, z):
    """Whether b[..k] ends with s[a:z]: (True, new j) or (False, -2)."""
    n = z - a
    o = k - n + 1
    if o < 0:
        return False, -2
    for q in range(n):
        if b[o + q] != s[a + q]:
            return False, -2
    return True, k - n


@nb.njit
def _ends_lit(b, k, c0, c1, c2, c3, n):
    """_ends for a literal of up to 4 letters."""
    o = k - n + 1
    if o < 0:
        return False, -2
    if b[o] != c0 or (n > 1 and b[o + 1] != c1) or (n > 2 and b[o + 2] != c2) or (n > 3 and b[o + 3] != c3):
        return False, -2
    return True, k - n


@nb.njit
def _setto(b, j, s, a, z):
    for q in range(z - a):
        b[j + 1 + q] = s[a + q]
    return j + z - a  # the new k


@nb.njit
def _step1(b, k, j):
    if b[k] == _s:
        ok, jj = _ends_lit(b, k, _s, _s, _e, _s, 4)
        if ok:
            j = jj
            k -= 2
        else:
            ok, jj = _ends_lit(b, k, _i, _e, _s, 0, 3)
            if ok:
                j = jj
                b[j + 1] = _i
                k = j + 1
            elif b[k - 1] != _s:
                k -= 1
    ok, jj = _ends_lit(b, k, _e, _e, ord("d"), 0, 3)
    if ok:
        j = jj
        if _m(b, j) > 0:
            k -= 1
        return k, j
    ok, jj = _ends_lit(b, k, _e, ord("d"), 0, 0, 2)
    if not ok:
        ok, jj = _ends_lit(b, k, _i, ord("n"), ord("g"), 0, 3)
    if not ok:
        return k, j
    j = jj
    if not _vowelinstem(b, j):
        return k, j
    k = j
    ok, jj = _ends_lit(b, k, _a, _t, 0, 0, 2)
    if ok:
        j = jj
        b[j + 1], b[j + 2], b[j + 3] = _a, _t, _e
        return j + 3, j
    ok, jj = _ends_lit(b, k, ord("b"), _l, 0, 0, 2)
    if ok:
        j = jj
        b[j + 1], b[j + 2], b[j + 3] = ord("b"), _l, _e
        return j + 3, j
    ok, jj = _ends_lit(b, k, _i, _z, 0, 0, 2)
    if ok:
        j = jj
        b[j + 1], b[j + 2], b[j + 3] = _i, _z, _e
        return j + 3, j
    if _doublec(b, k):
        ch = b[k]
        if not (ch == _l or ch == _s or ch == _z):
            k -= 1
    elif _m(b, j) == 1 and _cvc(b, k):
        b[j + 1] = _e
        k = j + 1
    return k, j


@nb.njit
def _replace_step(b, k, j, keys, arena, bounds, letter):
    """Steps 3 and 4: the first rule for `letter` whose suffix ends the word is applied if m() > 0."""
    for r in range(keys.shape[0]):
        if keys[r] != letter:
            continue
        ok, jj = _ends(b, k, arena, bounds[2 * r], bounds[2 * r + 1])
        if ok:
            j = jj
            if _m(b, j) > 0:
                k = _setto(b, j, arena, bounds[2 * r + 1], bounds[2 * r + 2])
            return k, j
    return k, j


@nb.njit
def _step5(b, k, j):
    if k == 0:
        return k, j
    letter = b[k - 1]
    for r in range(S5_KEY.shape[0]):
        if S5_KEY[r] != letter:
            continue
        a, z = S5_BOUNDS[2 * r], S5_BOUNDS[2 * r + 1]
        ok, jj = _ends(b, k, S5_ARENA, a, z)
        if ok:
            j = jj
            if z - a == 3 and S5_ARENA[a] == _i and S5_ARENA[a + 1] == _o and not (j >= 0 and (b[j] == _s or b[j] == _t)):
                continue  # "ion" only after s or t
            if _m(b, j) > 1:
                k = j
            return k, j
    return k, j


@nb.njit
def porter_stem(b, n):
    """Stem the lower-case ASCII word b[:n] in place (b needs 4 bytes of room past n); its new length."""
    if n <= 2:
        return n
    k, j = n - 1, 0
    k, j = _step1(b, k, j)
    ok, jj = _ends_lit(b, k, _y, 0, 0, 0, 1)  # step 2
    if ok:
        j = jj
        if _vowelinstem(b, j):
            b[k] = _i
    if k != 0:  # step 3
        k, j = _replace_step(b, k, j, S3_KEY, S3_ARENA, S3_BOUNDS, b[k - 1])
    k, j = _replace_step(b, k, j, S4_KEY, S4_ARENA, S4_BOUNDS, b[k])  # step 4
    k, j = _step5(b, k, j)
    j = k  # step 6
    if b[k] == _e:
        a = _m(b, j)
        if a > 1 or (a == 1 and not _cvc(b, k - 1)):
            k -= 1
    if b[k] == _l and _doublec(b, k) and _m(b, j) > 1:
        k -= 1
    return k + 1


@nb.njit(cache=True)
def stem_all(blob, bounds, out, out_bounds):
    """Stem each word blob[bounds[i]:bounds[i + 1]] into out (test and batch entry point)."""
    buf = np.empty(1024, np.uint8)
    pos = 0
    for i in range(bounds.shape[0] - 1):
        a, z = bounds[i], bounds[i + 1]
        n = z - a
        buf[:n] = blob[a:z]
        m = porter_stem(buf, n)
        out[pos : pos + m] = buf[:m]
        pos += m
        out_bounds[i + 1] = pos
    return pos


def stem_words(words: list[str]) -> list[str]:
    """Stem ASCII lower-case words with the compiled stemmer."""
    parts = [w.encode("ascii") for w in words]
    bounds = np.zeros(len(parts) + 1, np.int64)
    np.cumsum([len(p) for p in parts], out=bounds[1:])
    blob = np.frombuffer(b"".join(parts), np.uint8)
    out = np.empty(len(blob) + 4 * len(parts) + 4, np.uint8)
    out_bounds = np.zeros(len(parts) + 1, np.int64)
    stem_all(blob, bounds, out, out_bounds)
    raw = out.tobytes().decode("ascii", "replace")
    return [raw[out_bounds[i] : out_bounds[i + 1]] for i in range(len(parts))]
