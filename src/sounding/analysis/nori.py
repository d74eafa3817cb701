"""Lucene's KoreanTokenizer (Nori, DISCARD mode) over MeCab's mecab-ko-dic files, in one compiled call.

Nori is Kuromoji's search (`kuromoji.py`: lattice of dictionary and unknown words, Viterbi with
word and connection costs, commits at frontiers and after 1,024 characters, BOS and EOS ids 0)
with these differences, done here as KoreanTokenizer.parse / add / backtrace do them:

- **Whitespace.** At a position holding a space separator (Java's SPACE_SEPARATOR: Zs), the
  spaces are skipped and the words start after them, their paths coming from before the spaces;
  such a word whose left part of speech is an ending, a particle, the copula or a suffix (E*, J*,
  VCP, XSA, XSN, XSV) pays 3000 more (computeSpacePenalty). The skipped positions are not
  extended themselves. Other whitespace (tab, line feed) is an ordinary character.
- **Unknown words** run over characters of the same script (Common and Inherited join any,
  non-spacing marks join their base), the same punctuation-ness and digit-ness (Java's isDigit),
  of a grouping class; the run takes the class of its first character, or of its first character
  of a real script where it starts in Common or Inherited.
- **Punctuation** is JapaneseTokenizer's set of Java character types plus the Hangul letter araea
  `ㆍ` (U+318D); a token starting with it is dropped.
- No SEARCH-mode decompounding: compound, inflected and pre-analysed entries are split into the
  morphemes of their dictionary expression by the analyzer (DISCARD).

Scripts are Unicode's (the `regex` package's tables; Java's UnicodeScript uses the same data).
A character beyond the BMP is of class DEFAULT and script Unknown, neither punctuation nor a digit
(Java sees two surrogates, each so).
"""
from __future__ import annotations

import unicodedata
from functools import lru_cache

import numpy as np

from .cjk import is_punctuation
from .kuromoji import _BACK, _COLUMNS, _FROM, _START, _STAT, _TOKEN, MAX_BACKTRACE_GAP, MAX_UNKNOWN_WORD_LENGTH, \
    _add, _add_memo, _decode, _final, _force, _prefixes, _start_arc, shared
from .mecab_dic import BYTES, dictionary

SPACE_PENALTY = 3000
# character properties, bits of one table entry per BMP character; the script id above them
_PUNCT, _SPACE, _DIGIT, _MARK = 1, 2, 4, 8
_SCRIPT_SHIFT = 8


def _space_penalised(texts, start):
    """Whether the entry whose features start at `start` of a dictionary's feature strings has a
    left part of speech Nori's whitespace penalty applies to: the expression's first tag (field
    6) where there is one, else the entry's tag (field 1), an ending (E*), a particle (J*), the
    copula (VCP) or a suffix (XSA, XSN, XSV)."""
    field, at, first, first_end, chosen = 0, start, start, -1, -1
    while texts[at] != 0:
        if texts[at] == 44:  # ','
            field += 1
            if field == 5:
                first_end = at
            if field == 6:
                if not (at - first_end == 2 and texts[first_end + 1] == 42):  # not '*'
                    chosen = first_end + 1
                break
        at += 1
    if chosen < 0:
        chosen = first
    c = texts[chosen]
    if c == 69 or c == 74:  # 'E', 'J'
        return True
    if c == 86:  # 'V': VCP
        return texts[chosen + 1] == 67 and texts[chosen + 2] == 80 and texts[chosen + 3] in (43, 44, 0)
    if c == 88 and texts[chosen + 1] == 83:  # 'XS': XSA, XSN, XSV
        return texts[chosen + 2] in (65, 78, 86) and texts[chosen + 3] in (43, 44, 0)
    return False


def _penalised(feature_at, texts):
    """`_space_penalised` for every entry of a dictionary file."""
    out = np.zeros(len(feature_at), dtype=np.bool_)
    for t in range(len(feature_at)):
        out[t] = _space_penalised(texts, feature_at[t])
    return out


def _backtrace(arcs, out, n_out, end, arc, stop, punct):
    """KoreanTokenizer.backtrace from arc `arc` arriving at `end` back to the last commit `stop`:
    the tokens not starting with punctuation go to `out` (start after the whitespace skipped,
    end, stat, token), in order. Returns the token count."""
    begin = n_out
    pos = end
    while pos > stop:
        s = arcs[arc, _START]
        if not punct[s]:
            out[n_out, 0], out[n_out, 1] = s, pos
            out[n_out, 2], out[n_out, 3] = arcs[arc, _STAT], arcs[arc, _TOKEN]
            n_out += 1
        pos = arcs[arc, _FROM]
        arc = arcs[arc, _BACK]
    for j in range((n_out - begin) // 2):  # traced from the end
        a, b = begin + j, n_out - 1 - j
        for c in range(4):
            out[a, c], out[b, c] = out[b, c], out[a, c]
    return n_out


def _fill(arcs, out, data, da, lids, rids, costs, char_info, unk_start, unk_size, ulids, urids, ucosts, punct_table,
          props_table, common, inherited, unknown, default_info, pen_sys, pen_unk, matrix, lsize):
    """Nori's tokens of the UTF-8 bytes `data` (from `str.encode`) into `out`; returns their count,
    or -1 where `arcs` is too short. `punct_table`: Nori's punctuation per BMP character;
    `props_table`: per BMP character its `_PUNCT`, `_SPACE`,
    `_DIGIT`, `_MARK` bits and script id; `common`, `inherited`, `unknown`: those scripts' ids;
    `pen_sys`, `pen_unk`: per entry, whether the whitespace penalty applies to it."""
    n = len(data)
    m, byte_at, char_at, cps, info, punct, upos = _decode(data, char_info, punct_table, default_info)
    props = np.empty(m + 1, dtype=np.int64)
    for k in range(m):
        props[k] = props_table[cps[k]] if cps[k] < 0x10000 else unknown << _SCRIPT_SHIFT
    heads = np.full(m + 1, -1, dtype=np.int64)
    tails = np.full(m + 1, -1, dtype=np.int64)
    ends = np.empty(n + 1, dtype=np.int64)
    values = np.empty(n + 1, dtype=np.int64)
    memo = _add_memo(matrix, lsize)
    _start_arc(arcs)
    heads[0] = tails[0] = 0
    count, n_out, reach, stop = 1, 0, 0, 0
    pos = 0
    while pos < m:
        if heads[pos] < 0:
            pos += 1
            continue
        if pos > stop and heads[pos] == tails[pos] and reach <= pos:  # a frontier: commit
            n_out = _backtrace(arcs, out, n_out, pos, heads[pos], stop, punct)
            stop = pos
        if upos[pos] - upos[stop] >= MAX_BACKTRACE_GAP:  # force the cheapest partial path
            least, least_pos = _force(arcs, heads, tails, pos, reach)
            n_out = _backtrace(arcs, out, n_out, least_pos, least, stop, punct)
            stop = pos = least_pos
            continue
        origin = pos
        if props[pos] & _SPACE:  # skip the spaces: the words start after them
            pos += 1
            while pos < m and props[pos] & _SPACE:
                pos += 1
            if pos == m:
                pos = origin
        after_space = pos > origin
        found = False
        for w in range(_prefixes(da, data, byte_at[pos], ends, values)):
            q = char_at[ends[w]]
            for t in range(values[w] >> 8, (values[w] >> 8) + (values[w] & 0xFF)):
                extra = SPACE_PENALTY if after_space and pen_sys[t] else 0
                count = _add(arcs, count, heads, tails, origin, pos, q, int(lids[t]), int(rids[t]), int(costs[t]),
                             extra, 0, t, matrix, lsize, memo)
                if count < 0:
                    return -1
                found = True
            reach = max(reach, q)
        here = info[pos]
        if not found or (here >> 31) & 1:  # unknown words: none found, or the class invokes them
            kind = (here >> 18) & 0xFF
            q = pos + 1
            if (here >> 30) & 1:  # a grouping class: the run of one script, punctuation- and digit-ness
                script = props[pos] >> _SCRIPT_SHIFT
                kept = props[pos] & (_PUNCT | _DIGIT)
                while q < m and upos[q] - upos[pos] < MAX_UNKNOWN_WORD_LENGTH:
                    sc = props[q] >> _SCRIPT_SHIFT
                    loose = script == common or script == inherited
                    same = loose or sc == script or sc == common or sc == inherited or (props[q] & _MARK) != 0
                    if not (same and (props[q] & (_PUNCT | _DIGIT)) == kept and (info[q] >> 30) & 1):
                        break
                    if loose and sc != common and sc != inherited:
                        script, kind = sc, (info[q] >> 18) & 0xFF
                    q += 1
            for u in range(unk_start[kind], unk_start[kind] + unk_size[kind]):
                extra = SPACE_PENALTY if after_space and pen_unk[u] else 0
                count = _add(arcs, count, heads, tails, origin, pos, q, int(ulids[u]), int(urids[u]), int(ucosts[u]),
                             extra, 1, u, matrix, lsize, memo)
                if count < 0:
                    return -1
            reach = max(reach, q)
        pos += 1
    if m == 0 or stop == m:
        return n_out
    return _backtrace(arcs, out, n_out, m, _final(arcs, heads, m, matrix), stop, punct)


def _tokens(data, da, lids, rids, costs, char_info, unk_start, unk_size, ulids, urids, ucosts, punct_table,
            props_table, common, inherited, unknown, default_info, pen_sys, pen_unk, matrix, lsize):
    """Nori's tokens of the UTF-8 bytes `data`, punctuation dropped: rows start character (after
    any whitespace skipped), end character, stat (0: dictionary word, 1: unknown word), token
    index (in sys.dic or unk.dic). The arc table grows as `kuromoji._tokens`' does."""
    cap = 4 * len(data) + 64
    out = np.empty((len(data) + 1, 4), dtype=np.int64)
    while True:
        arcs = np.empty((cap, _COLUMNS), dtype=np.int64)
        k = _fill(arcs, out, data, da, lids, rids, costs, char_info, unk_start, unk_size, ulids, urids, ucosts,
                  punct_table, props_table, common, inherited, unknown, default_info, pen_sys, pen_unk, matrix, lsize)
        if k >= 0:
            return out[:k]
        cap *= 4


@lru_cache(maxsize=None)
def compiled() -> tuple:
    """`_tokens` and `_penalised` compiled (numba, cached on disk), helpers bound to their compiled forms."""
    from types import FunctionType

    import numba

    jit = numba.njit(cache=True, nogil=True)
    scope = dict(globals(), **shared(), _backtrace=jit(_backtrace))
    fill = jit(FunctionType(_fill.__code__, scope, "_fill"))
    tokens = jit(FunctionType(_tokens.__code__, dict(globals(), _fill=fill), "_tokens"))
    penalised = jit(FunctionType(_penalised.__code__, dict(globals(), _space_penalised=jit(_space_penalised)),
                                 "_penalised"))
    return tokens, penalised


@lru_cache(maxsize=None)
def _scripts() -> tuple[np.ndarray, int, int, int]:
    """Per BMP character its Unicode script's id (`regex`'s), and the ids of Common, Inherited and
    Unknown."""
    import regex
    import regex._regex_core as core

    values = core.PROPERTIES["SCRIPT"][1]  # name → id
    names = {}
    for name, value in values.items():
        names.setdefault(value, name)
    bmp = "".join(" " if 0xD800 <= c < 0xE000 else chr(c) for c in range(0x10000))
    table = np.full(0x10000, values["UNKNOWN"], dtype=np.int64)
    for value, name in names.items():
        for m in regex.finditer(rf"\p{{Script={name}}}+", bmp):
            table[m.start():m.end()] = value
    table[0xD800:0xE000] = values["UNKNOWN"]
    return table, values["COMMON"], values["INHERITED"], values["UNKNOWN"]


@lru_cache(maxsize=None)
def _properties() -> np.ndarray:
    """Per BMP character: Nori's punctuation, Java's SPACE_SEPARATOR, isDigit and
    NON_SPACING_MARK as bits, and the script id above them."""
    scripts = _scripts()[0]
    out = np.zeros(0x10000, dtype=np.int64)
    for c in range(0x10000):
        ch = chr(c)
        category = unicodedata.category(ch)
        out[c] = ((is_punctuation(ch) or c == 0x318D) * _PUNCT | (category == "Zs") * _SPACE
                  | (category == "Nd") * _DIGIT | (category == "Mn") * _MARK | int(scripts[c]) << _SCRIPT_SHIFT)
    return out


class Nori:
    """Lucene's KoreanTokenizer (DISCARD mode's split left to the caller, punctuation discarded)
    over the mecab-ko-dic in `dicdir`: `tokens(text)` gives each token's start and end (indexes
    into `text`, whitespace before it excluded) and its entry; `feature(stat, token)` its features."""

    def __init__(self, dicdir: str) -> None:
        self._dic = dic = dictionary(dicdir)
        self._tokens, penalised = compiled()
        names = dic.class_names
        kinds = (dic.char_info.astype(np.int64) >> 18) & 0xFF
        default_info = int(dic.char_info[int(np.argmax(kinds == names.index("DEFAULT")))])
        _, common, inherited, unknown = _scripts()
        props = _properties()
        self._args = (dic.sys.da, dic.sys.lids, dic.sys.rids, dic.sys.costs, dic.char_info, dic.unk_start,
                      dic.unk_size, dic.unk.lids, dic.unk.rids, dic.unk.costs, (props & _PUNCT) != 0, props, common, inherited,
                      unknown, default_info, penalised(dic.sys.feature_at, dic.sys.feature_texts),
                      penalised(dic.unk.feature_at, dic.unk.feature_texts), dic.matrix, dic.lsize)
        self._tokens(np.frombuffer(b"A", dtype=BYTES), *self._args)  # loaded now, not on the first text

    def tokens(self, text: str) -> np.ndarray:
        """Rows start, end (indexes into `text`), stat (0: dictionary word, 1: unknown word), token index."""
        return self._tokens(np.frombuffer(text.encode("utf-8", "surrogatepass"), dtype=BYTES), *self._args)

    def feature(self, stat: int, token: int) -> str:
        return self._dic.feature(stat, token)
