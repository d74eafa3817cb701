"""A hash table from byte strings to int32 values, for compiled code (numba).

Compiled analysis maps each token's bytes to a term id without a Python object per token; numba's
typed dict has no bytes keys and is several times slower than this open-addressing table. Entries
are numbered in insertion order (entry i's key is `arena[offs[i]:offs[i + 1]]`), so a table doubles
as a vocabulary: the entry number is the term id. The arrays travel as one tuple, `(slots, hashes,
offs, arena, vals)`, with the entry count beside it; functions that add entries return the tuple,
since adding may replace arrays by larger ones.
"""
from __future__ import annotations

import numba as nb
import numpy as np

FNV_OFFSET = np.uint64(0xCBF29CE484222325)
FNV_PRIME = np.uint64(0x100000001B3)


@nb.njit
def fnv1a(buf, a, b):
    """64-bit FNV-1a of buf[a:b]."""
    h = FNV_OFFSET
    for i in range(a, b):
        h = (h ^ np.uint64(buf[i])) * FNV_PRIME
    return h


@nb.njit
def find(t, key, a, b, h):
    """The entry of key[a:b] (hash h), or -1."""
    slots, hashes, offs, arena = t[0], t[1], t[2], t[3]
    mask = slots.shape[0] - 1
    i = np.int64(h & np.uint64(mask))
    n = b - a
    while True:
        e = slots[i]
        if e < 0:
            return -1
        if hashes[e] == h and offs[e + 1] - offs[e] == n:
            o = offs[e]
            same = True
            for k in range(n):
                if arena[o + k] != key[a + k]:
                    same = False
                    break
            if same:
                return e
        i = (i + 1) & mask


@nb.njit
def has_room(t, n, size):
    """Whether one more entry of `size` bytes fits without a larger array (slots at most half full)."""
    return n + 1 < t[1].shape[0] and t[2][n] + size <= t[3].shape[0] and 2 * (n + 1) <= t[0].shape[0]


@nb.njit
def insert(t, n, key, a, b, h, val):
    """Write key[a:b] (hash h, not in the table) as entry n with value `val`; has_room(t, n, b - a)."""
    slots, hashes, offs, arena, vals = t
    end = offs[n]
    arena[end : end + b - a] = key[a:b]
    offs[n + 1] = end + b - a
    hashes[n] = h
    vals[n] = val
    mask = slots.shape[0] - 1
    i = np.int64(h & np.uint64(mask))
    while slots[i] >= 0:
        i = (i + 1) & mask
    slots[i] = n


@nb.njit(cache=True, nogil=True)
def grown(t, n, size):
    """The table with room for one more entry of `size` bytes (arrays doubled as needed)."""
    slots, hashes, offs, arena, vals = t
    if n + 1 >= hashes.shape[0]:
        cap = 2 * hashes.shape[0]
        h2 = np.empty(cap, hashes.dtype)
        h2[:n] = hashes[:n]
        o2 = np.empty(cap + 1, offs.dtype)
        o2[: n + 1] = offs[: n + 1]
        v2 = np.empty(cap, vals.dtype)
        v2[:n] = vals[:n]
        hashes, offs, vals = h2, o2, v2
    end = offs[n]
    if end + size > arena.shape[0]:
        a2 = np.empty(max(2 * arena.shape[0], end + size), arena.dtype)
        a2[:end] = arena[:end]
        arena = a2
    if 2 * (n + 1) > slots.shape[0]:  # load at most 1/2: rehash into twice the slots
        slots = np.full(2 * slots.shape[0], -1, slots.dtype)
        mask = slots.shape[0] - 1
        for e in range(n):
            i = np.int64(hashes[e] & np.uint64(mask))
            while slots[i] >= 0:
                i = (i + 1) & mask
            slots[i] = e
    return slots, hashes, offs, arena, vals


@nb.njit
def add(t, n, key, a, b, h, val):
    """Append key[a:b] (hash h, not in the table) as entry n with value `val`: (t, n + 1). For cold
    paths: a loop that reassigns `t` pays reference counting on every pass, so hot loops check
    has_room and return to their caller to grow the table instead."""
    if not has_room(t, n, b - a):
        t = grown(t, n, b - a)
    insert(t, n, key, a, b, h, val)
    return t, n + 1


@nb.njit(cache=True, nogil=True)
def add_keys(t, n, blob, bounds, vals_out):
    """Look up or add (value: the entry number) each key blob[bounds[i]:bounds[i + 1]]; its entry
    goes to vals_out[i]. (t, n)."""
    for i in range(bounds.shape[0] - 1):
        a, b = bounds[i], bounds[i + 1]
        h = fnv1a(blob, a, b)
        e = find(t, blob, a, b, h)
        if e < 0:
            e = n
            t, n = add(t, n, blob, a, b, h, np.int32(n))
        vals_out[i] = e
    return t, n


class ByteTable:
    """The arrays of a table and its entry count, held for Python callers."""

    def __init__(self, entries: int = 1 << 12, arena: int = 1 << 16):
        entries = max(2, entries)
        self.t = (np.full(2 * entries, -1, np.int32), np.empty(entries, np.uint64), np.zeros(entries + 1, np.int64),
                  np.empty(arena, np.uint8), np.empty(entries, np.int32))
        self.n = 0

    @property
    def vals(self) -> np.ndarray:
        return self.t[4]

    def make_room(self, size: int) -> None:
        """Room for one more entry of `size` bytes."""
        self.t = grown(self.t, self.n, size)

    def key_bytes(self, e: int) -> bytes:
        offs = self.t[2]
        return self.t[3][offs[e] : offs[e + 1]].tobytes()

    def keys(self, first: int = 0, last: int | None = None) -> list[str]:
        """Entries first..last-1 as text (UTF-8, surrogates passed)."""
        last = self.n if last is None else last
        offs = self.t[2]
        raw = self.t[3][offs[first] : offs[last]].tobytes()
        ends = (offs[first + 1 : last + 1] - offs[first]).tolist()
        out, prev = [], 0
        if raw.isascii():
            text = raw.decode("ascii")  # one byte a character: slice the text itself
            for c in ends:
                out.append(text[prev:c])
                prev = c
            return out
        for c in ends:
            out.append(raw[prev:c].decode("utf-8", "surrogatepass"))
            prev = c
        return out

    def add_all(self, words: list[str]) -> np.ndarray:
        """Entry numbers of `words` (text), adding those not in the table (value: their entry number)."""
        out = np.empty(len(words), np.int32)
        if not words:
            return out
        parts = [w.encode("utf-8", "surrogatepass") for w in words]
        bounds = np.zeros(len(parts) + 1, np.int64)
        np.cumsum(np.fromiter(map(len, parts), np.int64, len(parts)), out=bounds[1:])
        blob = np.frombuffer(b"".join(parts), np.uint8)
        self.t, self.n = add_keys(self.t, self.n, blob, bounds, out)
        return out
