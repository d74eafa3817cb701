"""Compiled analysis: UTF-8 bytes in, term ids out, no Python object per token.

The chains that start with Lucene's StandardTokenizer and then map each token on its own (English,
english.py; Arabic, Bengali, Finnish, Indonesian, Russian and Telugu, languages.py), with the same
tokens and terms as their Python form, for indexing at the speed of compiled code:

* the scanner is Lucene's automaton (standard.py's tables), run over the UTF-8 bytes of the text
  (surrogates passed), code point by code point, with the 255-unit token buffer;
* each token becomes a key: an ASCII token folded as the chain folds it (lower-cased when the
  chain lower-cases first; without a trailing 's for the English chains), any other token as it is
  (`scan_tokens`, a chunk at a time); each thread keeps a table of the keys it has seen, valued by
  their term id (the English stop words are in it from the start, valued STOP), and each token comes
  out as its key's value (`look_up`: the table outgrows the caches at a large vocabulary, so the
  lookups run in a pass of their own that prefetches a few tokens ahead);
* a key seen for the first time is learnt once, under a lock, into the shared vocabulary (a
  `ByteTable`: term → id): ASCII keys of `english-lucene` by the compiled Porter stemmer
  (porter_kernel.py), every other key by the analyzer's own Python filters and stemmer
  (`surface_terms` / `token_terms`), so the terms are the Python chain's by construction.

The kernels release the GIL: several threads analyse chunks at once, each with its own key table.
KeyedChain is what every compiled chain shares (the key tables, the vocabulary, the learning of new
keys); japanese_compiled.py's chain is the other one.
"""
from __future__ import annotations

import threading

import numba as nb
import numpy as np

from .bytetable import ByteTable, add, entry_key, entry_value, find, fnv1a, has_room, insert, set_value, value_at
from .porter_kernel import porter_stem
from .prefetch import prefetch
from .standard import MAX_TOKEN_LENGTH, scanner_arrays

STOP = -1  # a key whose token is dropped (stop word, or nothing left after the filters)
# a key not learnt yet has the value -3 - its entry number (see look_up)
MAX_KEY = 1024  # bytes of the longest token: 255 UTF-16 units, at most 3 bytes each
AHEAD = 16  # tokens ahead whose key's slot look_up prefetches (its record: half as far)
SURFACE_LIMIT = 1 << 22  # keys a thread's table holds before it starts afresh (the terms do not depend on it)
LOWER, POSSESSIVE = 1, 2  # how scan_tokens folds an ASCII token into its key (bits of `fold`)


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
def scan_tokens(buf, spans, trans, emit, bmp, astral_start, astral_class, roles, fold, keys, ends, hashes, counts,
                bounds):
    """The tokens of each span buf[spans[s, 0]:spans[s, 1]], tokens counts[s]:counts[s + 1]: token k's
    key (an ASCII token lower-cased with `fold` & LOWER and without a possessive 's with `fold` &
    POSSESSIVE, any other token as it is) is
    keys[ends[k - 1]:ends[k]] (ends[-1] = 0), its hash hashes[k]; with `bounds` not empty, its
    (start, end) bytes go there. Returns the number of tokens."""
    record = bounds.shape[0] > 0
    lower = 32 if fold & LOWER else 0
    possessive = fold & POSSESSIVE != 0
    nt = 0
    p = 0  # bytes of keys written
    for s in range(spans.shape[0]):
        i = spans[s, 0]
        end = spans[s, 1]
        while i < end:
            c0 = buf[i]
            m = -1  # bytes of the key: -1, no token starts at i
            role = roles[c0] if c0 < 0x80 else SLOW
            if role == SKIP:  # (see ascii_roles)
                i += 1
                continue
            if role == WORD:
                # a run of ASCII letters and digits, then the end, a BREAK, or a JOIN and then the end or
                # a BREAK: that run is the token (see ascii_roles); otherwise the automaton decides
                r = i
                while r < end and r - i <= MAX_TOKEN_LENGTH:
                    c = buf[r]
                    if c >= 0x80 or roles[c] != WORD:
                        break
                    keys[p + r - i] = c + lower if 65 <= c <= 90 else c
                    r += 1
                if r - i <= MAX_TOKEN_LENGTH:
                    after = roles[buf[r]] if r < end and buf[r] < 0x80 else SLOW
                    if after == JOIN:
                        after = BREAK if r + 1 == end else (roles[buf[r + 1]] if buf[r + 1] < 0x80 else SLOW)
                    if r == end or after == BREAK or after == SKIP:
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
                        keys[p + q] = c + lower if 65 <= c <= 90 else c
                    if ascii:
                        if possessive and m >= 2 and keys[p + m - 1] == 115 and keys[p + m - 2] == 39:  # a possessive 's
                            m -= 2
                    else:
                        keys[p : p + m] = buf[i:mark]
            if m >= 0:
                if record:
                    bounds[nt, 0] = i
                    bounds[nt, 1] = mark
                hashes[nt] = fnv1a(keys, p, p + m)
                p += m
                ends[nt] = p
                nt += 1
            i = mark
        counts[s + 1] = nt
    return nt


@nb.njit(cache=True, nogil=True)
def look_up(keys, ends, hashes, nt, t, n, toks, k0):
    """Token k's value in the key table (t, n), into toks[k], from token k0 on: a term id, STOP, or
    for a key not learnt yet -3 - its entry (new keys are added with that value). Returns (n, k):
    k == nt when done, else the table needs room for a key (`ByteTable.make_room`) first.
    The slot and record of the keys a few tokens ahead are prefetched (see prefetch.py)."""
    slots, arena = t[0], t[2]
    mask = slots.shape[0] - 1
    for k in range(k0, nt):
        if k + AHEAD < nt:
            prefetch(slots, np.int64(hashes[k + AHEAD] >> np.uint64(33)) & mask)
        if k + AHEAD // 2 < nt:  # its slot was hinted AHEAD / 2 tokens ago: hint its record
            slot = slots[np.int64(hashes[k + AHEAD // 2] >> np.uint64(33)) & mask]
            if slot >= 0:
                prefetch(arena, (slot & 0xFFFFFFFF) << 2)
        a = ends[k - 1] if k > 0 else 0
        b = ends[k]
        v = STOP
        if b > a:
            o = find(t, keys, a, b, hashes[k])
            if o >= 0:
                v = value_at(t, o)
            else:
                if not has_room(t, n, b - a):
                    return n, k
                v = -3 - n
                insert(t, n, keys, a, b, hashes[k], v)
                n += 1
        toks[k] = v
    return n, nt


@nb.njit(cache=True, nogil=True)
def learn_porter(keys, first, last, vocab, nv, grow):
    """Stem each pending ASCII key among entries first..last-1 of `keys` with Lucene's Porter stemmer
    and set its value to the stem's id in `vocab` (added if new, with `grow`; else STOP). (vocab, nv)."""
    arena = keys[2]
    buf = np.empty(MAX_KEY + 8, np.uint8)
    for e in range(first, last):
        if entry_value(keys, e) > -3:
            continue
        a, z = entry_key(keys, e)
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
        o = find(vocab, buf, 0, m, h)
        if o >= 0:
            g = value_at(vocab, o)
        elif grow:
            g = nv
            vocab, nv = add(vocab, nv, buf, 0, m, h, np.int32(nv))
        else:
            g = STOP
        set_value(keys, keys[1][e], g)
    return vocab, nv


@nb.njit(cache=True, nogil=True)
def resolve(toks, nt, keys):
    """The tokens of keys learnt after the scan: their term ids (STOP when dropped)."""
    for i in range(nt):
        if toks[i] <= -3:
            toks[i] = entry_value(keys, -3 - toks[i])


@nb.njit(cache=True, nogil=True)
def query_terms(buf, trans, emit, bmp, astral_start, astral_class, roles, fold, keys, ends, hashes, t, n, vocab,
                porter):
    """One text's distinct terms in a fixed vocabulary, in order of first occurrence, and how often each
    occurs: scan, look up, learn new keys (Lucene's Porter stemmer, `porter`) and count in one call.
    The key table (t, n) must have room for a key per byte of the text (ByteTable.reserve).
    Returns (n, ids int64, counts float64, whether keys are left for the Python filters to learn:
    then learn entries from the n given on and call again)."""
    spans = np.zeros((1, 2), np.int64)
    spans[0, 1] = buf.shape[0]
    nt = scan_tokens(buf, spans, trans, emit, bmp, astral_start, astral_class, roles, fold, keys, ends, hashes,
                     np.zeros(2, np.int64), np.zeros((0, 2), np.int64))
    toks = np.empty(nt, np.int32)
    first = n
    n, _ = look_up(keys, ends, hashes, nt, t, n, toks, 0)
    if n > first:
        if porter:
            learn_porter(t, first, n, vocab, 0, False)
        for e in range(first, n):
            if entry_value(t, e) <= -3:
                return n, np.zeros(0, np.int64), np.zeros(0, np.float64), True
        resolve(toks, nt, t)
    ids = np.empty(nt, np.int64)
    counts = np.zeros(nt, np.float64)
    m = 0
    for i in range(nt):  # a query has a handful of terms: a scan of those seen is enough
        g = toks[i]
        if g < 0:
            continue
        j = 0
        while j < m and ids[j] != g:
            j += 1
        if j == m:
            ids[m] = g
            m += 1
        counts[j] += 1.0
    return n, ids[:m], counts[:m], False


SLOW, SKIP, WORD, BREAK, JOIN = range(5)  # roles of ASCII bytes in scan_tokens' shortcut (ascii_roles)


def ascii_roles(trans, emit, bmp) -> np.ndarray:
    """Each ASCII byte's role in scan_tokens' shortcut, derived from the automaton (and SLOW, the
    automaton decides, wherever a property below does not hold):
    SKIP: alone it is no token, and no match goes on through it (it ends any match);
    WORD: a letter or digit: any run of them is a token, at every length;
    BREAK: no match goes on through it after a run of WORD bytes (SKIP bytes included);
    JOIN: after a run of WORD bytes it may join a following letter or digit, but the match after it
    is no token and ends at any BREAK byte: a run followed by JOIN and BREAK (or the end) is a token."""
    roles = np.full(128, SLOW, np.uint8)
    s0 = int(trans[0, 0])
    if s0 < 0 or emit[s0] == 2 or (trans[s0] >= 0).any():
        return roles
    word_classes = {int(bmp[c]) for c in b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"}
    states, todo = set(), [int(trans[0, c]) for c in word_classes]
    while todo:  # every state a run of letters and digits reaches
        st = todo.pop()
        if st in states:
            continue
        if st < 0 or emit[st] != 2:
            return roles
        states.add(st)
        todo += [int(trans[st, c]) for c in word_classes]
    for c in range(128):
        cls = int(bmp[c])
        if cls in word_classes:
            roles[c] = WORD
        elif all(trans[st, cls] < 0 for st in states):
            roles[c] = SKIP if cls == 0 else BREAK
    breaks = {int(bmp[c]) for c in range(128) if roles[c] in (SKIP, BREAK)}
    for c in range(128):
        cls = int(bmp[c])
        if roles[c] != SLOW:
            continue
        after = [int(trans[st, cls]) for st in states]
        if all(x < 0 or (emit[x] == 0 and all(trans[x, b] < 0 for b in breaks)) for x in after):
            roles[c] = JOIN
    return roles


_SCANNER = scanner_arrays()
ROLES = ascii_roles(*_SCANNER[:3])
_NO_BOUNDS = np.zeros((0, 2), np.int64)


class KeyedChain:
    """What compiled chains share: a vocabulary of their own (`vocab`: term → id, ids in order of first
    sight) or, `grow` off, a fixed one (an index's: a term outside it is dropped, as a search drops it);
    each thread's key table (keys seen → term id, STOP, or not learnt yet) and scratch; and the terms
    of new keys made ids under a lock. Thread-safe: each thread keeps its own key table."""

    def __init__(self, vocab: ByteTable | None, grow: bool, dropped=()):
        self.vocab = vocab if vocab is not None else ByteTable(1 << 16, 1 << 20)
        self.grow = grow
        self._dropped = sorted(dropped)  # keys whose tokens the chain drops: in every key table from the start
        self._lock = threading.Lock()
        self._local = threading.local()

    def _keys(self) -> ByteTable:
        table = getattr(self._local, "keys", None)
        if table is None or table.n > SURFACE_LIMIT:
            table = ByteTable(1 << 16, 1 << 20)
            if self._dropped:
                table.add_all(self._dropped)
                table.set_values(np.arange(table.n), np.full(table.n, STOP))
            self._local.keys = table
        return table

    def _scratch(self) -> Scratch:
        scratch = getattr(self._local, "scratch", None)
        if scratch is None:
            scratch = self._local.scratch = Scratch()
        return scratch

    def _ids(self, terms: list[str]) -> np.ndarray:
        """The ids of terms ("": STOP), added to the vocabulary with `grow`, else STOP outside it
        (under the lock)."""
        kept = [i for i, term in enumerate(terms) if term]
        ids = np.full(len(terms), STOP, np.int32)
        words = [terms[i] for i in kept]
        ids[kept] = self.vocab.add_all(words) if self.grow else self.vocab.find_all(words)
        return ids

    def terms(self, texts: list[str]) -> list[list[str]]:
        """Each text's terms as text (tests and tools; indexing keeps the ids)."""
        toks, counts = self.scan(*joined([t.encode("utf-8", "surrogatepass") for t in texts]))
        words = self.vocab.keys()
        return [[words[g] for g in toks[counts[i] : counts[i + 1]].tolist() if g >= 0] for i in range(len(texts))]


class CompiledChain(KeyedChain):
    """A StandardTokenizer chain (see the module's docstring) in compiled code.

    The analyzer says how (english.py's EnglishAnalyzer, filters.py's StandardChain):
    `lower_case` (its chain lower-cases every token first: ASCII keys are lower-cased),
    `possessive` (it drops an English possessive 's: ASCII keys lose theirs), `compiled_stemmer`
    ("lucene-porter": ASCII keys are stemmed here), `dropped_keys` (keys whose tokens it drops, in
    every key table from the start), and the terms of new keys: `surface_terms` (ASCII keys folded as
    above) and `token_terms` (keys that are the tokens as scanned), "" for a dropped token."""

    def __init__(self, analyzer, vocab: ByteTable | None = None, grow: bool = True):
        super().__init__(vocab, grow, analyzer.dropped_keys)
        self.analyzer = analyzer
        self.fold = (LOWER if analyzer.lower_case else 0) | (POSSESSIVE if analyzer.possessive else 0)
        self.porter = analyzer.compiled_stemmer == "lucene-porter"

    def scan(self, buf: np.ndarray, spans: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The terms of each span of `buf` (uint8 UTF-8): (term ids int32, bounds int64 per span: span
        s's terms are ids[bounds[s]:bounds[s + 1]]), a dropped token as STOP (< 0)."""
        table = self._keys()
        scratch = self._scratch()
        first = table.n
        toks, counts = scan(buf, spans, table, scratch, fold=self.fold)
        if table.n > first:
            self._learn(table, first, table.n)
            resolve(toks, len(toks), table.t)
        return toks, counts

    def query(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        """A query's distinct terms in the (fixed) vocabulary, first occurrence first, and how often each
        occurs: (ids int64, counts float64), in one compiled call (a query at a time: single search)."""
        raw = text.encode("utf-8", "surrogatepass")
        buf = np.frombuffer(raw or b"\0", np.uint8)[: len(raw)]
        table = self._keys()
        scratch = self._scratch()
        scratch.fit(len(raw))
        table.reserve(len(raw), len(raw))
        while True:
            first = table.n
            table.n, ids, counts, learn = query_terms(buf, *_SCANNER, ROLES, self.fold, scratch.keys, scratch.ends,
                                                      scratch.hashes, table.t, table.n, self.vocab.t, self.porter)
            if not learn:
                return ids, counts
            self._learn(table, first, table.n)  # keys for the Python filters (not ASCII, or a Snowball stemmer)

    def _learn(self, table: ByteTable, first: int, last: int) -> None:
        with self._lock:
            if self.porter:
                self.vocab.t, self.vocab.n = learn_porter(table.t, first, last, self.vocab.t, self.vocab.n, self.grow)
            rest = np.flatnonzero(table.values(first, last) <= -3)
            if not len(rest):
                return
            keys = table.keys(first, last)
            keys = [keys[i] for i in rest.tolist()]
            folded = [bool(self.fold) and k.isascii() for k in keys]
            terms = [""] * len(keys)
            for want, convert in ((True, self.analyzer.surface_terms), (False, self.analyzer.token_terms)):
                where = [i for i, f in enumerate(folded) if f == want]
                for i, term in zip(where, convert([keys[i] for i in where])):
                    terms[i] = term
            table.set_values(rest + first, self._ids(terms))


def joined(parts: list[bytes]) -> tuple[np.ndarray, np.ndarray]:
    """The parts one after another as a scan's `buf` (uint8; one NUL byte when empty) and each part's
    (start, end) bytes in it, `spans` ((n, 2) int64)."""
    sizes = np.fromiter(map(len, parts), np.int64, len(parts))
    spans = np.empty((len(parts), 2), np.int64)
    np.cumsum(sizes, out=spans[:, 1])
    spans[:, 0] = spans[:, 1] - sizes
    return np.frombuffer(b"".join(parts) or b"\0", np.uint8), spans


class Scratch:
    """A thread's buffers for scan: keys, their ends and hashes (grown to the largest chunk's bytes and
    tokens)."""

    def __init__(self) -> None:
        self.keys = np.empty(0, np.uint8)
        self.ends = np.empty(0, np.int64)
        self.hashes = np.empty(0, np.uint64)

    def fit(self, size: int, key_bytes: int = 0) -> None:
        """Room for `size` tokens and max(size, key_bytes) bytes of keys."""
        if len(self.ends) < size:
            size = max(size, 2 * len(self.ends), 1 << 16)
            self.ends = np.empty(size, np.int64)
            self.hashes = np.empty(size, np.uint64)
        key_bytes = max(size, key_bytes)
        if len(self.keys) < key_bytes:
            self.keys = np.empty(max(key_bytes, 2 * len(self.keys), 1 << 16), np.uint8)


def scan(buf: np.ndarray, spans: np.ndarray, table: ByteTable, scratch: Scratch, bounds=None,
         fold: int = LOWER | POSSESSIVE) -> tuple[np.ndarray, np.ndarray]:
    """Each span's tokens as their values in the key table (look_up), growing the table as it asks:
    (values int32, counts int64: span s's tokens are values[counts[s]:counts[s + 1]]); keys folded by
    `fold` (scan_tokens)."""
    scratch.fit(int((spans[:, 1] - spans[:, 0]).sum()) if len(spans) else 0)
    counts = np.zeros(len(spans) + 1, np.int64)
    nt = scan_tokens(buf, spans, *_SCANNER, ROLES, fold, scratch.keys, scratch.ends, scratch.hashes, counts,
                     _NO_BOUNDS if bounds is None else bounds)
    toks = np.empty(nt, np.int32)
    k = 0
    while True:
        table.n, k = look_up(scratch.keys, scratch.ends, scratch.hashes, nt, table.t, table.n, toks, k)
        if k == nt:
            return toks, counts
        table.make_room(MAX_KEY)


def tokenize(text: str) -> list[str]:
    """standard.standard_tokenize by the compiled scanner (tests)."""
    raw = text.encode("utf-8", "surrogatepass")
    buf = np.frombuffer(raw or b"\0", np.uint8)
    bounds = np.empty((max(1, len(raw)), 2), np.int64)
    toks, _ = scan(buf, np.array([[0, len(raw)]], np.int64), ByteTable(), Scratch(), bounds)
    return [raw[a:z].decode("utf-8", "surrogatepass") for a, z in bounds[: len(toks)].tolist()]
