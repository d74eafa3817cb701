"""A hash table from byte strings to int32 values, for compiled code (numba).

Compiled analysis maps each token's bytes to a term id without a Python object per token; numba's
typed dict has no bytes keys and is several times slower than this table. At a large corpus's
vocabulary the table outgrows the caches and a lookup's cost is its cache misses, so a lookup
touches two places: its slot (open addressing, at most half full), which holds 32 bits of the key's
hash and where the key's record is, and the record: value, length and bytes together.

    slots  int64   -1, or (hash >> 33) << 32 | record offset / 4
    arena  uint8   records, each at a multiple of 4: int32 value, int32 length, the key's bytes
    offs   int64   entry → record offset (entries numbered in insertion order)

A table doubles as a vocabulary: the entry number is the term id. The arrays travel as one tuple,
`(slots, offs, arena)`, with the entry count beside it; a hot loop checks `has_room` and returns
to its caller to grow the table (reassigning arrays inside a loop costs reference counting on every
pass).
"""
from __future__ import annotations

import numba as nb
import numpy as np

FNV_OFFSET = np.uint64(0xCBF29CE484222325)
FNV_PRIME = np.uint64(0x100000001B3)
HEADER = 8  # bytes before a record's key: value, length


@nb.njit
def fnv1a(buf, a, b):
    """64-bit FNV-1a of buf[a:b]."""
    h = FNV_OFFSET
    for i in range(a, b):
        h = (h ^ np.uint64(buf[i])) * FNV_PRIME
    return h


@nb.njit
def _i32(arena, o):
    v = np.int64(arena[o]) | (np.int64(arena[o + 1]) << 8) | (np.int64(arena[o + 2]) << 16) | (np.int64(arena[o + 3]) << 24)
    return v - (np.int64(1) << 32) if v >= (np.int64(1) << 31) else v


@nb.njit
def _put_i32(arena, o, v):
    u = np.int64(v) & 0xFFFFFFFF
    arena[o] = u & 0xFF
    arena[o + 1] = (u >> 8) & 0xFF
    arena[o + 2] = (u >> 16) & 0xFF
    arena[o + 3] = (u >> 24) & 0xFF


@nb.njit
def value_at(t, o):
    """The value of the record at offset o."""
    return _i32(t[2], o)


@nb.njit
def set_value(t, o, v):
    _put_i32(t[2], o, v)


@nb.njit
def entry_value(t, e):
    return _i32(t[2], t[1][e])


@nb.njit
def entry_key(t, e):
    """(start, end) of entry e's key in the arena."""
    o = t[1][e]
    return o + HEADER, o + HEADER + _i32(t[2], o + 4)


@nb.njit
def find(t, key, a, b, h):
    """The record offset of key[a:b] (hash h), or -1."""
    slots, arena = t[0], t[2]
    mask = slots.shape[0] - 1
    top = np.int64(h >> np.uint64(33))
    i = top & mask
    n = b - a
    while True:
        s = slots[i]
        if s < 0:
            return -1
        if (s >> 32) == top:
            o = (s & 0xFFFFFFFF) << 2
            if _i32(arena, o + 4) == n:
                k = o + HEADER
                same = True
                for q in range(n):
                    if arena[k + q] != key[a + q]:
                        same = False
                        break
                if same:
                    return o
        i = (i + 1) & mask


@nb.njit
def has_room(t, n, size):
    """Whether one more entry of `size` bytes fits without a larger array (slots at most half full)."""
    return (n + 1 < t[1].shape[0] and t[1][n] + HEADER + size + 4 <= t[2].shape[0]
            and 2 * (n + 1) <= t[0].shape[0])


@nb.njit
def insert(t, n, key, a, b, h, val):
    """Write key[a:b] (hash h, not in the table) as entry n with value `val` (has_room(t, n, b - a));
    its record offset."""
    slots, offs, arena = t
    o = offs[n]
    size = b - a
    _put_i32(arena, o, val)
    _put_i32(arena, o + 4, size)
    arena[o + HEADER : o + HEADER + size] = key[a:b]
    offs[n + 1] = o + ((HEADER + size + 3) & ~3)
    mask = slots.shape[0] - 1
    top = np.int64(h >> np.uint64(33))
    i = top & mask
    while slots[i] >= 0:
        i = (i + 1) & mask
    slots[i] = (top << 32) | (o >> 2)
    return o


@nb.njit(cache=True, nogil=True)
def grown(t, n, size):
    """The table with room for one more entry of `size` bytes (arrays doubled as needed)."""
    slots, offs, arena = t
    if n + 1 >= offs.shape[0] - 1:
        o2 = np.empty(2 * offs.shape[0], offs.dtype)
        o2[: n + 1] = offs[: n + 1]
        offs = o2
    end = offs[n] + HEADER + size + 4
    if end > arena.shape[0]:
        a2 = np.empty(max(2 * arena.shape[0], end), arena.dtype)
        a2[: offs[n]] = arena[: offs[n]]
        arena = a2
    if 2 * (n + 1) > slots.shape[0]:
        return _rehashed((slots, offs, arena))
    return slots, offs, arena


@nb.njit(cache=True, nogil=True)
def reserved(t, n, entries, size):
    """The table with room for `entries` more entries of `size` bytes in all."""
    slots, offs, arena = t
    if n + entries + 1 >= offs.shape[0]:
        o2 = np.empty(2 * (n + entries + 1), offs.dtype)
        o2[: n + 1] = offs[: n + 1]
        offs = o2
    end = offs[n] + size + entries * (HEADER + 4)
    if end > arena.shape[0]:
        a2 = np.empty(max(2 * arena.shape[0], end), arena.dtype)
        a2[: offs[n]] = arena[: offs[n]]
        arena = a2
    t = (slots, offs, arena)
    while 2 * (n + entries) > t[0].shape[0]:
        t = _rehashed(t)
    return t


@nb.njit
def _rehashed(t):
    """The table with twice the slots (load at most 1/2)."""
    slots, offs, arena = t
    new = np.full(2 * slots.shape[0], -1, slots.dtype)
    mask = new.shape[0] - 1
    for s in slots:
        if s >= 0:
            i = (s >> 32) & mask
            while new[i] >= 0:
                i = (i + 1) & mask
            new[i] = s
    return new, offs, arena


@nb.njit
def add(t, n, key, a, b, h, val):
    """Append key[a:b] (hash h, not in the table) as entry n with value `val`: (t, n + 1), the table
    grown if needed. For cold paths (see the module's docstring)."""
    if not has_room(t, n, b - a):
        t = grown(t, n, b - a)
    insert(t, n, key, a, b, h, val)
    return t, n + 1


@nb.njit(cache=True, nogil=True)
def add_keys(t, n, blob, bounds, out):
    """Look up or add (value: the entry number) each key blob[bounds[i]:bounds[i + 1]]; its value
    goes to out[i]. (t, n)."""
    for i in range(bounds.shape[0] - 1):
        a, b = bounds[i], bounds[i + 1]
        h = fnv1a(blob, a, b)
        o = find(t, blob, a, b, h)
        if o < 0:
            out[i] = n
            t, n = add(t, n, blob, a, b, h, np.int32(n))
        else:
            out[i] = value_at(t, o)
    return t, n


@nb.njit(cache=True, nogil=True)
def find_keys(t, blob, bounds, out):
    """The value of each key blob[bounds[i]:bounds[i + 1]] into out[i], -1 for a key not in the table."""
    for i in range(bounds.shape[0] - 1):
        a, b = bounds[i], bounds[i + 1]
        o = find(t, blob, a, b, fnv1a(blob, a, b))
        out[i] = value_at(t, o) if o >= 0 else -1


@nb.njit(cache=True, nogil=True)
def gather_keys(t, first, last, out, bounds):
    """Entries first..last-1's keys, one after another into out (bounds: each one's end)."""
    p = 0
    for e in range(first, last):
        a, z = entry_key(t, e)
        out[p : p + z - a] = t[2][a:z]
        p += z - a
        bounds[e - first] = p
    return p


@nb.njit(cache=True, nogil=True)
def values(t, first, last, out):
    for e in range(first, last):
        out[e - first] = entry_value(t, e)


@nb.njit(cache=True, nogil=True)
def set_values(t, entries, vals):
    for i in range(entries.shape[0]):
        _put_i32(t[2], t[1][entries[i]], vals[i])


class ByteTable:
    """The arrays of a table and its entry count, held for Python callers."""

    def __init__(self, entries: int = 1 << 12, arena: int = 1 << 16):
        entries = max(2, entries)
        slots = 1 << (2 * entries - 1).bit_length()
        self.t = (np.full(slots, -1, np.int64), np.zeros(entries + 1, np.int64), np.empty(arena, np.uint8))
        self.n = 0

    def make_room(self, size: int) -> None:
        """Room for one more entry of `size` bytes."""
        self.t = grown(self.t, self.n, size)

    def reserve(self, entries: int, size: int) -> None:
        """Room for `entries` more entries of `size` bytes in all."""
        if not self.has_room(entries, size):
            self.t = reserved(self.t, self.n, entries, size)

    def has_room(self, entries: int, size: int) -> bool:
        slots, offs, arena = self.t
        return (self.n + entries + 1 < len(offs) and int(offs[self.n]) + size + entries * (HEADER + 4) <= len(arena)
                and 2 * (self.n + entries) <= len(slots))

    def values(self, first: int = 0, last: int | None = None) -> np.ndarray:
        last = self.n if last is None else last
        out = np.empty(last - first, np.int32)
        values(self.t, first, last, out)
        return out

    def set_values(self, entries: np.ndarray, vals: np.ndarray) -> None:
        set_values(self.t, np.asarray(entries, np.int64), np.asarray(vals, np.int32))

    def keys(self, first: int = 0, last: int | None = None) -> list[str]:
        """Entries first..last-1 as text (UTF-8, surrogates passed)."""
        last = self.n if last is None else last
        t = self.t  # (read once, after n: other threads may add entries meanwhile)
        out = np.empty(max(1, int(t[1][last] - t[1][first])), np.uint8)
        ends = np.empty(last - first, np.int64)
        size = gather_keys(t, first, last, out, ends)
        raw = out[:size].tobytes()
        words, prev = [], 0
        if raw.isascii():
            text = raw.decode("ascii")  # one byte a character: slice the text itself
            for c in ends.tolist():
                words.append(text[prev:c])
                prev = c
            return words
        for c in ends.tolist():
            words.append(raw[prev:c].decode("utf-8", "surrogatepass"))
            prev = c
        return words

    def add_all(self, words: list[str]) -> np.ndarray:
        """Values of `words` (text); those not in the table are added with their entry number."""
        out = np.empty(len(words), np.int32)
        if words:
            blob, bounds = _encoded(words)
            self.t, self.n = add_keys(self.t, self.n, blob, bounds, out)
        return out

    def find_all(self, words: list[str]) -> np.ndarray:
        """Values of `words` (text), -1 for those not in the table."""
        out = np.empty(len(words), np.int32)
        if words:
            blob, bounds = _encoded(words)
            find_keys(self.t, blob, bounds, out)
        return out


def _encoded(words: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """The words' UTF-8 bytes (surrogates passed) one after another, and their bounds."""
    parts = [w.encode("utf-8", "surrogatepass") for w in words]
    bounds = np.zeros(len(parts) + 1, np.int64)
    np.cumsum(np.fromiter(map(len, parts), np.int64, len(parts)), out=bounds[1:])
    return np.frombuffer(b"".join(parts), np.uint8), bounds
