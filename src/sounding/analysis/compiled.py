"""Compiled English analysis: UTF-8 bytes in, term ids out, no Python object per token.

The same chains as english.py (StandardTokenizer → possessive → lower case → stop words → stem),
with the same tokens and terms, for indexing at the speed of compiled code:

* the scanner is Lucene's automaton (standard.py's tables), run over the UTF-8 bytes of the text
  (surrogates passed), code point by code point, with the 255-unit token buffer;
* each token becomes a surface key: an ASCII token lower-cased with a trailing 's removed (what the
  Python chain's filters do to it), any other token as it is; each thread keeps a table of the keys
  it has seen (stop words are in it from the start, marked STOP) and each token comes out as its
  entry number there;
* a key seen for the first time is learnt once, under a lock, into the shared vocabulary (a
  `ByteTable`: term → id): ASCII keys of `english-lucene` by the compiled Porter stemmer
  (porter_kernel.py), every other key by the analyzer's own Python filters and stemmer
  (`EnglishAnalyzer.surface_terms` / `token_terms`), so the terms are the Python chain's by
  construction.

The kernels release the GIL: several threads analyse chunks at once, each with its own key table.
"""
from __future__ import annotations

import threading

import numba as nb
import numpy as np

from .bytetable import ByteTable, add, find, fnv1a, has_room, insert
from .porter_kernel import porter_stem
from .standard import MAX_TOKEN_LENGTH, scanner_arrays

STOP = -1  # a key whose token is dropped (stop word, or nothing left after the filters)
PENDING = -2  # a key not learnt yet
MAX_KEY = 1024  # bytes of the longest token: 255 UTF-16 units, at most 3 bytes each
SURFACE_LIMIT = 1 << 22  # keys a thread's table holds before it starts afresh (the terms do not depend on it)


@nb.njit
def _decode(buf, j):
    """The code point at byte j of UTF-8 (surrogates passed) and its length in bytes."""
    b0 = np.int64(buf[j])
    if b0 < 0x80:
        return b0, 1
    if b0 < 0xE0:
        return ((b0 & 0x1F) << 6) | (np.int64(buf[j + 1]) & 0x3F), 2
    if b0 < 0xF0:
        return ((b0 & 0x0F) << 12) | ((np.int64(buf[j + 1]) & 0x3F) << 6) | (np.int64(buf[j + 2]) & 0x3F), 3
    return (((b0 & 0x07) << 18) | ((np.int64(buf[j + 1]) & 0x3F) << 12) | ((np.int64(buf[j + 2]) & 0x3F) << 6)
            | (np.int64(buf[j + 3]) & 0x3F)), 4


@nb.njit(cache=True, nogil=True)
def scan_keys(buf, spans, trans, emit, bmp, astral_start, astral_class, letter, digit, t, n, toks, counts, bounds,
              s0, i0, nt):
    """The tokens of each span buf[spans[s, 0]:spans[s, 1]] as entries of the key table (t, n):
    toks[counts[s]:counts[s + 1]] (a new key is added with value PENDING); with `bounds` not empty,
    each token's (start, end) bytes too. Starts at span s0, byte i0, token nt; returns (n, nt, s, i):
    s == len(spans) when done, else the table needs room for a key (`ByteTable.make_room`) and the
    scan resumes at span s, byte i."""
    key = np.empty(MAX_KEY, np.uint8)
    record = bounds.shape[0] > 0
    for s in range(s0, spans.shape[0]):
        i = i0 if s == s0 else spans[s, 0]
        end = spans[s, 1]
        while i < end:
            c0 = buf[i]
            m = -1  # bytes of the key: -1, no token starts at i
            if letter >= 0 and c0 < 0x80 and bmp[c0] == 0:  # an ASCII character outside every token
                i += 1  # (see _fast_path_holds)
                continue
            if letter >= 0 and c0 < 0x80 and (bmp[c0] == letter or bmp[c0] == digit):
                # a run of ASCII letters and digits, then the end or an ASCII character outside every
                # token: that run is the token (see _fast_path_holds); otherwise the automaton decides
                r = i
                while r < end and r - i <= MAX_TOKEN_LENGTH:
                    c = buf[r]
                    if c >= 0x80 or (bmp[c] != letter and bmp[c] != digit):
                        break
                    key[r - i] = c + 32 if 65 <= c <= 90 else c
                    r += 1
                if r - i <= MAX_TOKEN_LENGTH and (r == end or (buf[r] < 0x80 and bmp[buf[r]] == 0)):
                    m = r - i
                    mark = r
            if m < 0:
                # Lucene's scanner from byte i (standard._scan over bytes): the longest match of at most
                # MAX_TOKEN_LENGTH UTF-16 units; the next scan starts at its end (or one character on)
                cp, size = _decode(buf, i)
                mark = i + size
                keep = False
                state = 0
                j = i
                units = 0
                while j < end:
                    cp, size = _decode(buf, j)
                    u = 2 if cp > 0xFFFF else 1
                    if units + u > MAX_TOKEN_LENGTH:
                        break
                    if cp < 0x10000:
                        c = bmp[cp]
                    else:
                        c = astral_class[np.searchsorted(astral_start, cp, side="right") - 1]
                    state = trans[state, c]
                    if state < 0:
                        break
                    j += size
                    units += u
                    e = emit[state]
                    if e != 0:
                        mark = j
                        keep = e == 2
                if keep:
                    m = mark - i
                    ascii = True
                    for q in range(m):
                        c = buf[i + q]
                        if c >= 0x80:
                            ascii = False
                            break
                        key[q] = c + 32 if 65 <= c <= 90 else c
                    if ascii:
                        if m >= 2 and key[m - 1] == 115 and key[m - 2] == 39:  # a possessive 's
                            m -= 2
                    else:
                        key[:m] = buf[i:mark]
            if m > 0 or (record and m == 0):
                if record:
                    bounds[nt, 0] = i
                    bounds[nt, 1] = mark
                if m > 0:
                    h = fnv1a(key, 0, m)
                    e = find(t, key, 0, m, h)
                    if e < 0:
                        if not has_room(t, n, m):
                            return n, nt, s, i
                        insert(t, n, key, 0, m, h, np.int32(PENDING))
                        e = n
                        n += 1
                else:
                    e = -1
                toks[nt] = e
                nt += 1
            i = mark
        counts[s + 1] = nt
    return n, nt, spans.shape[0], 0


@nb.njit(cache=True, nogil=True)
def learn_porter(keys, first, last, vocab, nv):
    """Stem each PENDING ASCII key among entries first..last-1 of `keys` with Lucene's Porter stemmer
    and set its value to the stem's id in `vocab` (added if new). (vocab, nv)."""
    offs, arena, vals = keys[2], keys[3], keys[4]
    buf = np.empty(MAX_KEY + 8, np.uint8)
    for e in range(first, last):
        if vals[e] != PENDING:
            continue
        a, z = offs[e], offs[e + 1]
        ascii = True
        for q in range(a, z):
            if arena[q] >= 0x80:
                ascii = False
                break
        if not ascii:
            continue
        m = z - a
        buf[:m] = arena[a:z]
        m = porter_stem(buf, m)
        h = fnv1a(buf, 0, m)
        g = find(vocab, buf, 0, m, h)
        if g < 0:
            g = nv
            vocab, nv = add(vocab, nv, buf, 0, m, h, np.int32(nv))
        vals[e] = g
    return vocab, nv


def _fast_path_holds(trans, emit, bmp) -> bool:
    """scan_keys' shortcuts agree with the automaton: an ASCII character of class 0 alone is no token
    and ends any match; a run of ASCII letters and digits is a token at every length."""
    if trans[0, 0] < 0 or emit[trans[0, 0]] == 2 or (trans[trans[0, 0]] >= 0).any():
        return False
    alnum = {int(bmp[ord("a")]), int(bmp[ord("0")])}
    if {int(bmp[c]) for c in b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"} != alnum:
        return False
    seen, todo = set(), [int(trans[0, c]) for c in alnum]
    while todo:
        s = todo.pop()
        if s in seen:
            continue
        if s < 0 or emit[s] != 2 or trans[s, 0] >= 0:
            return False
        seen.add(s)
        todo += [int(trans[s, c]) for c in alnum]
    return True


def _fast_classes() -> tuple[int, int]:
    """The classes of ASCII letters and of digits for scan_keys' shortcut; -1, -1 turns it off."""
    trans, emit, bmp, _, _ = _SCANNER
    if not _fast_path_holds(trans, emit, bmp):
        return -1, -1
    return int(bmp[ord("a")]), int(bmp[ord("0")])


_SCANNER = scanner_arrays()
_FAST_CLASSES = _fast_classes()
_NO_BOUNDS = np.zeros((0, 2), np.int64)


class CompiledEnglish:
    """An EnglishAnalyzer's chain in compiled code, with a vocabulary of its own (`vocab`: term → id,
    ids in order of first sight). Thread-safe: each thread keeps its own key table."""

    def __init__(self, analyzer, vocab: ByteTable | None = None):
        self.analyzer = analyzer
        self.vocab = vocab if vocab is not None else ByteTable(1 << 16, 1 << 20)
        self.porter = analyzer.compiled_stemmer == "lucene-porter"
        self._lock = threading.Lock()
        self._local = threading.local()

    def _keys(self) -> ByteTable:
        table = getattr(self._local, "keys", None)
        if table is None or table.n > SURFACE_LIMIT:
            table = ByteTable(1 << 16, 1 << 20)
            table.add_all(sorted(self.analyzer.stop_words))
            table.vals[: table.n] = STOP
            self._local.keys = table
        return table

    def scan(self, buf: np.ndarray, spans: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The tokens of each span of `buf` (uint8 UTF-8): (entries int32, bounds int64 per span,
        values): entry e's term id is values[e], STOP when the token is dropped."""
        table = self._keys()
        total = int((spans[:, 1] - spans[:, 0]).sum()) if len(spans) else 0
        toks = np.empty(max(1, total), np.int32)
        counts = np.zeros(len(spans) + 1, np.int64)
        first = table.n
        nt = scan(buf, spans, table, toks, counts, _NO_BOUNDS)
        if table.n > first:
            self._learn(table, first, table.n)
        return toks[:nt], counts, table.vals

    def _learn(self, table: ByteTable, first: int, last: int) -> None:
        vals = table.vals
        with self._lock:
            if self.porter:
                self.vocab.t, self.vocab.n = learn_porter(table.t, first, last, self.vocab.t, self.vocab.n)
            rest = np.flatnonzero(vals[first:last] == PENDING)
            if not len(rest):
                return
            keys = table.keys(first, last)
            keys = [keys[i] for i in rest.tolist()]
            ascii = [k.isascii() for k in keys]
            terms = [""] * len(keys)
            # ASCII keys are lower-cased surfaces already; other keys are the tokens as scanned
            for want, convert in ((True, self.analyzer.surface_terms), (False, self.analyzer.token_terms)):
                where = [i for i, a in enumerate(ascii) if a == want]
                for i, term in zip(where, convert([keys[i] for i in where])):
                    terms[i] = term
            kept = [i for i, term in enumerate(terms) if term]
            ids = np.full(len(keys), STOP, np.int32)
            ids[kept] = self.vocab.add_all([terms[i] for i in kept])
            vals[rest + first] = ids

    def terms(self, texts: list[str]) -> list[list[str]]:
        """Each text's terms as text (tests and tools; indexing keeps the ids)."""
        parts = [t.encode("utf-8", "surrogatepass") for t in texts]
        ends = np.cumsum([len(p) for p in parts], dtype=np.int64)
        spans = np.stack([ends - [len(p) for p in parts], ends], axis=1) if parts else np.zeros((0, 2), np.int64)
        buf = np.frombuffer(b"".join(parts) or b"\0", np.uint8)
        toks, counts, vals = self.scan(buf, spans.astype(np.int64))
        ids = vals[toks]
        words = self.vocab.keys()
        return [[words[g] for g in ids[counts[i] : counts[i + 1]].tolist() if g >= 0] for i in range(len(texts))]


def scan(buf, spans, table: ByteTable, toks, counts, bounds) -> int:
    """scan_keys over every span, growing the table as it asks; the number of tokens."""
    s, i, nt = 0, 0, 0
    while s < len(spans):
        table.n, nt, s, i = scan_keys(buf, spans, *_SCANNER, *_FAST_CLASSES, table.t, table.n, toks, counts, bounds, s, i, nt)
        if s < len(spans):
            table.make_room(MAX_KEY)
    return nt


def tokenize(text: str) -> list[str]:
    """standard.standard_tokenize by the compiled scanner (tests)."""
    raw = text.encode("utf-8", "surrogatepass")
    buf = np.frombuffer(raw or b"\0", np.uint8)
    bounds = np.empty((max(1, len(raw)), 2), np.int64)
    toks = np.empty(max(1, len(raw)), np.int32)
    nt = scan(buf, np.array([[0, len(raw)]], np.int64), ByteTable(), toks, np.zeros(2, np.int64), bounds)
    return [raw[a:z].decode("utf-8", "surrogatepass") for a, z in bounds[:nt].tolist()]
