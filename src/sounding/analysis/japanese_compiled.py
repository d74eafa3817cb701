"""Japanese analysis compiled: a chunk's texts through Kuromoji to term ids, no Python object per token.

The same tokens and terms as japanese.py's JapaneseAnalyzer, for indexing:

* the CJK width folding (CJKWidthCharFilter) is cjk.cjk_width, on each text that needs it (a chunk
  without full-width ASCII or half-width katakana is taken as it is);
* Kuromoji's search (kuromoji.py's compiled `_fill`) runs over each text's UTF-8 bytes in one compiled
  call for the whole chunk, with an arc table kept for the chunk and grown as a text asks;
* each token becomes a key: its dictionary entry (stat and token index, six ASCII characters) and its
  surface's bytes, what the Python analyzer memoises its filters' output by; the keys go through the
  key table of compiled.py (`look_up`), and a key seen for the first time is learnt through the
  analyzer's own filters (`JapaneseAnalyzer.entry_term`), so the terms are the Python analyzer's by
  construction.

The kernel releases the GIL: several threads analyse chunks at once, each with its own key table.
"""
from __future__ import annotations

from functools import lru_cache

import numba as nb
import numpy as np

from .bytetable import ByteTable, fnv1a
from .cjk import cjk_width, needs_width_folding
from .compiled import KeyedChain, joined, look_up, resolve

ENTRY = 6  # bytes of a key's entry code: 6 bits each, as ASCII from "0" (30 bits of token index, the stat)
BYTES_PER_CHARACTER = 4  # rows of the arc table a text's byte asks for at first (kuromoji._tokens' choice)
KEPT_ARCS = 1 << 18  # rows of arc table a thread keeps between chunks (20 MiB); a larger one goes with its chunk


def entry_code(stat: int, token: int) -> str:
    """A dictionary entry as its key's first ENTRY characters."""
    v = (token << 1) | stat
    return "".join(chr(0x30 + ((v >> (6 * i)) & 63)) for i in range(ENTRY))


def entry_of(key: str) -> tuple[int, int, str]:
    """(stat, token, surface) of a key."""
    v = sum((ord(key[i]) - 0x30) << (6 * i) for i in range(ENTRY))
    return v & 1, v >> 1, key[ENTRY:]


def _span_keys(buf, spans, arcs, out, keys, ends, hashes, counts, da, lids, rids, costs, char_info, unk_start,
               unk_size, ulids, urids, ucosts, punct_table, kanji_a, kanji_b, default_info, matrix, lsize):
    """The keys of each span's Kuromoji tokens (span s: tokens counts[s]..counts[s + 1] - 1): token k's key
    is keys[ends[k - 1]:ends[k]], its hash hashes[k]. Returns (tokens, arcs: the arc table, grown where a
    text asked for more)."""
    nt = 0
    p = 0
    for s in range(spans.shape[0]):
        a, z = spans[s, 0], spans[s, 1]
        if z > a:
            data = buf[a:z]
            while True:
                k = _fill(arcs, out, data, da, lids, rids, costs, char_info, unk_start, unk_size, ulids, urids, ucosts,
                          punct_table, kanji_a, kanji_b, default_info, matrix, lsize)
                if k >= 0:
                    break
                arcs = np.empty((4 * arcs.shape[0], arcs.shape[1]), np.int64)
            if k:
                byte_at = np.empty(z - a + 1, np.int64)  # character → its first byte in buf
                m = 0
                for q in range(a, z):
                    if (buf[q] & 0xC0) != 0x80:
                        byte_at[m] = q
                        m += 1
                byte_at[m] = z
                for r in range(k):
                    b0, b1 = byte_at[out[r, 0]], byte_at[out[r, 1]]
                    v = (out[r, 3] << 1) | out[r, 2]
                    for i in range(ENTRY):
                        keys[p + i] = 0x30 + ((v >> (6 * i)) & 63)
                    keys[p + ENTRY : p + ENTRY + b1 - b0] = buf[b0:b1]
                    hashes[nt] = fnv1a(keys, p, p + ENTRY + b1 - b0)
                    p += ENTRY + b1 - b0
                    ends[nt] = p
                    nt += 1
        counts[s + 1] = nt
    return nt, arcs


@lru_cache(maxsize=None)
def _kernel():
    """_span_keys compiled (numba, cached on disk), with Kuromoji's compiled `_fill`."""
    from types import FunctionType

    from .kuromoji import compiled_fill

    scope = dict(globals(), _fill=compiled_fill())
    return nb.njit(cache=True, nogil=True)(FunctionType(_span_keys.__code__, scope, "_span_keys"))


class CompiledJapanese(KeyedChain):
    """A JapaneseAnalyzer's chain in compiled code (see the module's docstring)."""

    def __init__(self, analyzer, vocab: ByteTable | None = None, grow: bool = True):
        super().__init__(vocab, grow)
        self.analyzer = analyzer
        self._args = analyzer.kuromoji.args
        self._keys_of = _kernel()

    def scan(self, buf: np.ndarray, spans: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The terms of each span of `buf` (uint8 UTF-8): (term ids int32, bounds int64 per span: span
        s's terms are ids[bounds[s]:bounds[s + 1]]), a dropped token as STOP (< 0)."""
        buf, spans = _width_folded(buf, spans)
        table = self._keys()
        scratch = self._scratch()
        size = int((spans[:, 1] - spans[:, 0]).sum()) if len(spans) else 0
        longest = int((spans[:, 1] - spans[:, 0]).max()) if len(spans) else 0
        scratch.fit(size + 1, (ENTRY + 1) * size)  # a token a character at most, each key its entry and surface
        arcs = getattr(self._local, "arcs", None)
        if arcs is None or len(arcs) < BYTES_PER_CHARACTER * longest + 64:
            arcs = np.empty((BYTES_PER_CHARACTER * longest + 64, 10), np.int64)
        out = np.empty((longest + 1, 4), np.int64)
        counts = np.zeros(len(spans) + 1, np.int64)
        nt, arcs = self._keys_of(buf, spans, arcs, out, scratch.keys, scratch.ends, scratch.hashes, counts, *self._args)
        self._local.arcs = arcs if len(arcs) <= KEPT_ARCS else None
        toks = np.empty(nt, np.int32)
        first = table.n
        k = 0
        while True:
            table.n, k = look_up(scratch.keys, scratch.ends, scratch.hashes, nt, table.t, table.n, toks, k)
            if k == nt:
                break
            table.make_room(ENTRY + 4 * longest)
        if table.n > first:
            self._learn(table, first, table.n)
            resolve(toks, nt, table.t)
        return toks, counts

    def query(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        """A query's distinct terms in the (fixed) vocabulary, first occurrence first, and how often each
        occurs: (ids int64, counts float64)."""
        raw = text.encode("utf-8", "surrogatepass")
        toks, _ = self.scan(np.frombuffer(raw or b"\0", np.uint8), np.array([[0, len(raw)]], np.int64))
        seen: dict[int, float] = {}
        for g in toks.tolist():
            if g >= 0:
                seen[g] = seen.get(g, 0.0) + 1.0
        return np.fromiter(seen, np.int64, len(seen)), np.fromiter(seen.values(), np.float64, len(seen))

    def _learn(self, table: ByteTable, first: int, last: int) -> None:
        with self._lock:
            terms = [self.analyzer.entry_term(*entry_of(key)) for key in table.keys(first, last)]
            table.set_values(np.arange(first, last), self._ids(terms))


def _width_folded(buf: np.ndarray, spans: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """buf and spans with each span's text width-folded (cjk_width), or as they are where no span
    needs it."""
    raw = buf.tobytes()
    if not needs_width_folding(raw.decode("utf-8", "surrogatepass")):
        return buf, spans
    return joined([cjk_width(raw[a:z].decode("utf-8", "surrogatepass")).encode("utf-8", "surrogatepass")
                   for a, z in spans.tolist()])
