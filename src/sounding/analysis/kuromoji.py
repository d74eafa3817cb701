"""Lucene's JapaneseTokenizer (Kuromoji, SEARCH mode) over MeCab's IPADIC files, in one compiled call.

Kuromoji is built from the same IPADIC (mecab-ipadic 2.7.0) as the `ipadic` package: the same
words, ids, word costs, connection costs and character classes. What it does with them differs
from MeCab, and is done here as JapaneseTokenizer.parse / backtrace / pruneAndRescore do it:

- **The lattice.** At each position a path reaches: the dictionary's words starting there; and,
  where none is found or the character's class invokes them, one unknown word per unk.dic entry of
  the class: the run of characters of the same class *and* the same punctuation-ness (a single
  character for a class that does not group, KANJI), never MeCab's 1..length prefixes.
  Whitespace is a character like any other (class SPACE); punctuation tokens are dropped from
  the output, not from the lattice.
- **The search.** Viterbi over word cost plus connection cost, from BOS (right id 0) to EOS (left
  id 0); ties keep the first predecessor in the order arcs arrive (by start, then dictionary order).
- **Commits.** At a "frontier" (one arc arrives at a position and none passes it) the path so far
  is fixed and backtraced: the last token before it has no right neighbour there. After 1,024
  characters without one, the cheapest partial path is forced (MAX_BACKTRACE_GAP).
- **SEARCH mode** (backtrace): a token of the best path longer than 2 characters, all kanji
  (classes KANJI and KANJINUMERIC), pays (length - 2) * 3000, any other longer than 7 characters
  (length - 7) * 1700; for such a token, the arcs inside its span are searched again from the
  path's token before it with every arc paying its own penalty, and the best such segmentation
  replaces the token when it has more than one token and costs no more than the token plus its
  penalty (both with the connection to the output token after it). The parts are not split again.

Kuromoji's character classes are IPADIC's char.def but for one change Lucene makes when it
builds them (CharacterDefinitionWriter): the katakana middle dot `・` (U+30FB) is SYMBOL, not
KATAKANA, so that an unknown katakana word never runs across it.

Positions are characters (code points); lengths for the penalties are UTF-16 units, as Java
counts them. A character beyond the BMP is of class DEFAULT and not punctuation (Java sees two
surrogates of that class).
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from .cjk import is_punctuation
from .mecab_lattice import BYTES, common_prefixes, compiled_prefixes, dictionary

MAX_UNKNOWN_WORD_LENGTH = 1024
MAX_BACKTRACE_GAP = 1024
_INF = 1 << 60

# columns of the arc table
_START, _END, _LID, _RID, _WCOST, _STAT, _TOKEN, _COST, _BACK, _NEXT = range(10)
_BOS = 2  # stat of the start node (0: dictionary word, 1: unknown word)


def _penalty(upos, kanji, start, end):
    """computePenalty: the SEARCH-mode length penalty of a token over characters [start, end)."""
    length = upos[end] - upos[start]
    if length > 2:
        all_kanji = True
        for k in range(start, end):
            if not kanji[k]:
                all_kanji = False
                break
        if all_kanji:
            return (length - 2) * 3000
        if length > 7:
            return (length - 7) * 1700
    return 0


def _cheapest(arcs, a, lid, matrix, lsize):
    """(path cost with the connection to left id `lid` (-1: none, as before no token), arc) of the
    cheapest arc of the list that starts at arc `a` (-1: none), the first of equals."""
    low, best = _INF, -1
    while a >= 0:
        c = arcs[a, _COST] + (matrix[lid * lsize + arcs[a, _RID]] if lid >= 0 else 0)
        if c < low:
            low, best = c, a
        a = arcs[a, _NEXT]
    return low, best


def _add(arcs, count, heads, tails, start, end, lid, rid, wcost, stat, token, matrix, lsize):
    """Kuromoji's `add`: an arc from `start` to `end`, its cost from the cheapest arc arriving at
    `start` (the first of equals), appended to those arriving at `end`. Returns the new count, or
    -1 where `arcs` is full."""
    if count == len(arcs):
        return -1
    low, best = _cheapest(arcs, heads[start], lid, matrix, lsize)
    arcs[count, _START], arcs[count, _END], arcs[count, _LID], arcs[count, _RID] = start, end, lid, rid
    arcs[count, _WCOST], arcs[count, _STAT], arcs[count, _TOKEN] = wcost, stat, token
    arcs[count, _COST], arcs[count, _BACK], arcs[count, _NEXT] = low + wcost, best, -1
    if heads[end] < 0:
        heads[end] = count
    else:
        arcs[tails[end], _NEXT] = count
    tails[end] = count
    return count + 1


def _rescore(arcs, count, first, last, rs_heads, rs_tails, start, end, best_start, upos, kanji, matrix, lsize):
    """pruneAndRescore: the arcs of the forward pass inside [start, end] searched again from the
    arc `best_start` (the path's arc arriving at `start`), every arc paying its length penalty.
    The new arcs are appended to `arcs` (their ends listed in `rs_heads`/`rs_tails`); returns the
    new count, or -1 where `arcs` is full."""
    for p in range(start, end + 1):
        rs_heads[p] = rs_tails[p] = -1
    prev_rid, path_cost = arcs[best_start, _RID], arcs[best_start, _COST]
    for p in range(start, end):
        if p != start and rs_heads[p] < 0:
            continue
        for a in range(first[p], last[p]):
            q = arcs[a, _END]
            if q > end:
                continue
            lid = arcs[a, _LID]
            if p == start:
                low, back = path_cost + matrix[lid * lsize + prev_rid], best_start
            else:
                low, back = _cheapest(arcs, rs_heads[p], lid, matrix, lsize)
            if count == len(arcs):
                return -1
            for col in range(_COST):
                arcs[count, col] = arcs[a, col]
            arcs[count, _COST] = low + arcs[a, _WCOST] + _penalty(upos, kanji, p, q)
            arcs[count, _BACK], arcs[count, _NEXT] = back, -1
            if rs_heads[q] < 0:
                rs_heads[q] = count
            else:
                arcs[rs_tails[q], _NEXT] = count
            rs_tails[q] = count
            count += 1
    return count


def _backtrace(arcs, count, out, n_out, end, arc, stop, first, last, rs_heads, rs_tails, upos, kanji, punct,
               matrix, lsize):
    """Kuromoji's backtrace from arc `arc` arriving at `end` back to the last commit `stop`, SEARCH
    mode's decompounding included: the tokens not starting with punctuation go to `out` (start,
    end, stat, token), in order. Returns (arc count, token count); an arc count of -1 where `arcs`
    is full."""
    begin = n_out
    pos, alt_start, last_left = end, -1, -1
    while pos > stop:
        s = arcs[arc, _START]
        if alt_start < 0 and arcs[arc, _STAT] != _BOS:
            penalty = _penalty(upos, kanji, s, pos)
            if penalty > 0:
                max_cost = arcs[arc, _COST] + penalty
                if last_left >= 0:
                    max_cost += matrix[last_left * lsize + arcs[arc, _RID]]
                count = _rescore(arcs, count, first, last, rs_heads, rs_tails, s, pos, arcs[arc, _BACK], upos,
                                 kanji, matrix, lsize)
                if count < 0:
                    return -1, n_out
                low, least = _cheapest(arcs, rs_heads[pos], last_left, matrix, lsize)
                if least >= 0 and low <= max_cost and arcs[least, _START] != s:
                    alt_start, arc = s, least
                    s = arcs[arc, _START]
        if alt_start >= s:
            alt_start = -1
        if not punct[s]:
            out[n_out, 0], out[n_out, 1] = s, pos
            out[n_out, 2], out[n_out, 3] = arcs[arc, _STAT], arcs[arc, _TOKEN]
            n_out += 1
        last_left = arcs[arc, _LID]
        pos = s
        arc = arcs[arc, _BACK]
    for j in range((n_out - begin) // 2):  # traced from the end
        a, b = begin + j, n_out - 1 - j
        for c in range(4):
            out[a, c], out[b, c] = out[b, c], out[a, c]
    return count, n_out


def _fill(arcs, out, data, da, lids, rids, costs, char_info, unk_start, unk_size, ulids, urids, ucosts, punct_table,
          kanji_a, kanji_b, default_info, matrix, lsize):
    """Kuromoji's tokens of the UTF-8 bytes `data` (from `str.encode`) into `out`; returns their
    count, or -1 where `arcs` is too short."""
    n = len(data)
    m = 0
    for p in range(n):
        m += (data[p] & 0xC0) != 0x80
    byte_at = np.empty(m + 1, dtype=np.int64)  # character → its first byte
    char_at = np.full(n + 1, -1, dtype=np.int64)  # byte → the character starting there
    info = np.empty(m, dtype=np.int64)
    punct = np.zeros(m + 1, dtype=np.bool_)
    kanji = np.zeros(m, dtype=np.bool_)
    upos = np.zeros(m + 1, dtype=np.int64)  # character → its UTF-16 offset
    p = k = 0
    while p < n:
        c = int(data[p])
        if c < 0x80:
            cp, size = c, 1
        elif c < 0xE0:
            cp, size = ((c & 0x1F) << 6) | (int(data[p + 1]) & 0x3F), 2
        elif c < 0xF0:
            cp, size = ((c & 0x0F) << 12) | ((int(data[p + 1]) & 0x3F) << 6) | (int(data[p + 2]) & 0x3F), 3
        else:
            cp, size = 0x10000, 4
        byte_at[k], char_at[p] = p, k
        if cp < 0x10000:
            info[k], punct[k] = char_info[min(cp, len(char_info) - 1)], punct_table[cp]
            upos[k + 1] = upos[k] + 1
        else:
            info[k] = default_info
            upos[k + 1] = upos[k] + 2
        kind = (info[k] >> 18) & 0xFF
        kanji[k] = kind == kanji_a or kind == kanji_b
        p += size
        k += 1
    byte_at[m], char_at[n] = n, m

    heads = np.full(m + 1, -1, dtype=np.int64)
    tails = np.full(m + 1, -1, dtype=np.int64)
    rs_heads = np.full(m + 1, -1, dtype=np.int64)
    rs_tails = np.full(m + 1, -1, dtype=np.int64)
    first = np.zeros(m + 1, dtype=np.int64)  # the arcs made from each start: first..last
    last = np.zeros(m + 1, dtype=np.int64)
    ends = np.empty(n + 1, dtype=np.int64)  # a position's dictionary words: end byte, value
    values = np.empty(n + 1, dtype=np.int64)
    arcs[0, _START], arcs[0, _END], arcs[0, _LID], arcs[0, _RID], arcs[0, _WCOST] = 0, 0, 0, 0, 0
    arcs[0, _STAT], arcs[0, _TOKEN], arcs[0, _COST], arcs[0, _BACK], arcs[0, _NEXT] = _BOS, -1, 0, -1, -1
    heads[0] = tails[0] = 0
    count, n_out, reach, stop = 1, 0, 0, 0
    pos = 0
    while pos < m:
        if heads[pos] < 0:
            pos += 1
            continue
        if pos > stop and heads[pos] == tails[pos] and reach <= pos:  # a frontier: commit
            count, n_out = _backtrace(arcs, count, out, n_out, pos, heads[pos], stop, first, last, rs_heads,
                                      rs_tails, upos, kanji, punct, matrix, lsize)
            if count < 0:
                return -1
            stop = pos
        if upos[pos] - upos[stop] >= MAX_BACKTRACE_GAP:  # force the cheapest partial path
            low, least, least_pos = _INF, -1, -1
            for p2 in range(pos, reach + 1):
                a = heads[p2]
                while a >= 0:
                    if arcs[a, _COST] < low:
                        low, least, least_pos = arcs[a, _COST], a, p2
                    a = arcs[a, _NEXT]
            for p2 in range(pos, reach + 1):
                heads[p2] = tails[p2] = -1
            heads[least_pos] = tails[least_pos] = least
            arcs[least, _NEXT] = -1
            count, n_out = _backtrace(arcs, count, out, n_out, least_pos, least, stop, first, last, rs_heads,
                                      rs_tails, upos, kanji, punct, matrix, lsize)
            if count < 0:
                return -1
            stop = pos = least_pos
            continue
        first[pos] = count
        found = False
        for w in range(common_prefixes(da, data, byte_at[pos], ends, values)):  # shortest first
            q = char_at[ends[w]]
            for t in range(values[w] >> 8, (values[w] >> 8) + (values[w] & 0xFF)):
                count = _add(arcs, count, heads, tails, pos, q, int(lids[t]), int(rids[t]), int(costs[t]), 0, t,
                             matrix, lsize)
                if count < 0:
                    return -1
                found = True
            if q > reach:
                reach = q
        here = info[pos]
        if not found or (here >> 31) & 1:  # unknown words: none found, or the class invokes them
            kind = (here >> 18) & 0xFF
            length = 1
            if (here >> 30) & 1:  # a grouping class: the run of the same class and punctuation-ness
                q = pos + 1
                while length < MAX_UNKNOWN_WORD_LENGTH and q < m and ((info[q] >> 18) & 0xFF) == kind \
                        and punct[q] == punct[pos]:
                    length += 1
                    q += 1
            for u in range(unk_start[kind], unk_start[kind] + unk_size[kind]):
                count = _add(arcs, count, heads, tails, pos, pos + length, int(ulids[u]), int(urids[u]),
                             int(ucosts[u]), 1, u, matrix, lsize)
                if count < 0:
                    return -1
            if pos + length > reach:
                reach = pos + length
        last[pos] = count
        pos += 1
    if m == 0 or stop == m:
        return n_out
    _, least = _cheapest(arcs, heads[m], 0, matrix, lsize)  # before EOS (left id 0)
    count, n_out = _backtrace(arcs, count, out, n_out, m, least, stop, first, last, rs_heads, rs_tails, upos, kanji,
                              punct, matrix, lsize)
    return n_out if count >= 0 else -1


def _tokens(data, da, lids, rids, costs, char_info, unk_start, unk_size, ulids, urids, ucosts, punct_table,
            kanji_a, kanji_b, default_info, matrix, lsize):
    """Kuromoji's SEARCH-mode tokens of the UTF-8 bytes `data`, punctuation dropped: rows start
    character, end character, stat (0: dictionary word, 1: unknown word), token index (in sys.dic
    or unk.dic). The arc table starts at 4 rows a byte (Japanese text needs 1-3) and grows four
    times over while too short (see `mecab_lattice._mecab_nodes` on why it is not grown in place)."""
    cap = 4 * len(data) + 64
    out = np.empty((len(data) + 1, 4), dtype=np.int64)
    while True:
        arcs = np.empty((cap, 10), dtype=np.int64)
        k = _fill(arcs, out, data, da, lids, rids, costs, char_info, unk_start, unk_size, ulids, urids, ucosts,
                  punct_table, kanji_a, kanji_b, default_info, matrix, lsize)
        if k >= 0:
            return out[:k]
        cap *= 4


@lru_cache(maxsize=None)
def compiled():
    """`_tokens` compiled (numba, cached on disk) with its helpers bound to their compiled forms."""
    from types import FunctionType

    import numba

    return numba.njit(cache=True, nogil=True)(FunctionType(_tokens.__code__, dict(globals(), _fill=compiled_fill()),
                                                           "_tokens"))


@lru_cache(maxsize=None)
def compiled_fill():
    """`_fill` compiled (numba, cached on disk) with its helpers bound to their compiled forms (for
    callers that keep their own arc table: japanese_compiled.py)."""
    from types import FunctionType

    import numba

    jit = numba.njit(cache=True, nogil=True)
    penalty, cheapest = jit(_penalty), jit(_cheapest)
    add = jit(FunctionType(_add.__code__, dict(globals(), _cheapest=cheapest), "_add"))
    rescore = jit(FunctionType(_rescore.__code__, dict(globals(), _penalty=penalty, _cheapest=cheapest), "_rescore"))
    scope = dict(globals(), _penalty=penalty, _rescore=rescore, _cheapest=cheapest)
    backtrace = jit(FunctionType(_backtrace.__code__, scope, "_backtrace"))
    return jit(FunctionType(_fill.__code__, dict(globals(), _add=add, _backtrace=backtrace, _cheapest=cheapest,
                                                 common_prefixes=compiled_prefixes()), "_fill"))


class Kuromoji:
    """Lucene's JapaneseTokenizer in SEARCH mode (punctuation discarded, compounds not output) over
    the MeCab IPADIC in `dicdir`: `tokens(text)` gives each token's start and end (indexes into
    `text`) and its entry; `feature(stat, token)` the entry's features."""

    def __init__(self, dicdir: str) -> None:
        self._dic = dic = dictionary(dicdir)
        names = dic.class_names
        info = dic.char_info.copy()
        symbol = names.index("SYMBOL")
        symbol_bits = int(info[ord("?")]) & 0xC0000000  # SYMBOL's invoke and group flags
        info[0x30FB] = (int(info[0x30FB]) & 0x3FFFFFFF & ~(0xFF << 18)) | (symbol << 18) | symbol_bits
        kinds = (dic.char_info.astype(np.int64) >> 18) & 0xFF
        default_info = int(dic.char_info[int(np.argmax(kinds == names.index("DEFAULT")))])
        self._args = (dic.sys.da, dic.sys.lids, dic.sys.rids, dic.sys.costs, info, dic.unk_start, dic.unk_size,
                      dic.unk.lids, dic.unk.rids, dic.unk.costs, _punctuation_table(), names.index("KANJI"),
                      names.index("KANJINUMERIC"), default_info, dic.matrix, dic.lsize)
        self._tokens = compiled()
        self._tokens(np.frombuffer(b"A", dtype=BYTES), *self._args)  # loaded now, not on the first text

    @property
    def args(self) -> tuple:
        """The dictionary's arrays as `_fill` and `_tokens` take them, after the text."""
        return self._args

    def tokens(self, text: str) -> np.ndarray:
        """Rows start, end (indexes into `text`), stat (0: dictionary word, 1: unknown word), token index."""
        return self._tokens(np.frombuffer(text.encode("utf-8", "surrogatepass"), dtype=BYTES), *self._args)

    def feature(self, stat: int, token: int) -> str:
        return self._dic.feature(stat, token)


@lru_cache(maxsize=None)
def _punctuation_table() -> np.ndarray:
    """JapaneseTokenizer.isPunctuation for every BMP character."""
    return np.array([is_punctuation(chr(c)) for c in range(0x10000)], dtype=np.bool_)
