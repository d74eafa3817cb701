"""Mr. TyDi th: Lucene's ThaiAnalyzer, with the JDK's dictionary word break re-implemented."""
from __future__ import annotations

import bisect
import re
import threading
import unicodedata
from functools import lru_cache
from importlib import resources

import numpy as np
import regex

from .cjk import java_lower
from .filters import CACHE_LIMIT, decimal_digits, missing_extra, stop_words

# ---------------------------------------------------------------------------------------------
# Thai runs. Lucene's ThaiTokenizer takes its words from the JDK's Thai word BreakIterator
# (sun.text.DictionaryBasedBreakIterator). Its rules hand every run of "dictionary characters"
# (Thai consonants, vowels and tone marks: U+0E01–U+0E4E less ฯ, ฿, ๅ and ๆ) to a
# dictionary search as one range. Characters of categories Mn, Me and Cf that are no dictionary
# characters are passed over by the rules, so inside or right after a run they belong to it; a
# maiyamok (ๆ) right after a run is part of it, and so is a paiyannoi (ฯ) that the text's end or
# anything but ลฯ follows (ฯลฯ is a range of its own). The search is `_divide`.
_WORDS_FILE = "thai_words.txt"  # the JDK's Thai break dictionary's words (its MIT-style licence in the header)

# Character classes (bits) in the table `_char_classes` makes
_DICT, _IGNORE, _KEEP = 1, 2, 4  # dictionary character; passed over by the rules; isalpha() or isdecimal()
_PAIYANNOI, _LO_LING, _MAIYAMOK = 0x0E2F, 0x0E25, 0x0E46


def _is_dict_char(c: str) -> bool:
    return "\u0e01" <= c <= "\u0e2e" or "\u0e30" <= c <= "\u0e3a" or "\u0e40" <= c <= "\u0e44" or "\u0e47" <= c <= "\u0e4e"


@lru_cache(maxsize=None)
def _char_classes() -> np.ndarray:
    """The class bits of every BMP character (characters beyond it count as _KEEP)."""
    table = np.zeros(0x10000, np.uint8)
    for cp in range(0x10000):
        c = chr(cp)
        bits = _DICT if _is_dict_char(c) else _IGNORE if unicodedata.category(c) in ("Mn", "Me", "Cf") else 0
        table[cp] = bits | (_KEEP if c.isalpha() or c.isdecimal() else 0)
    return table


@lru_cache(maxsize=None)
def _dictionary() -> np.ndarray:
    """The packaged word list's trie (see `trie_array`)."""
    return trie_array(resources.files(__package__).joinpath(_WORDS_FILE).read_text("utf-8").splitlines())


_DENSE_FANOUT = 8  # states with this many transitions or more get a row indexed by character


def trie_array(lines) -> np.ndarray:
    """A word list (one word a line, '#' comments, Thai-block characters only) as a trie in one
    int32 array: [S, R, column[128], record[2S], dense[R × 128], edge[E]] for S states (0 the
    root), R dense rows and E transitions. column[c - U+0E00] marks the characters that occur in
    words (the JDK's dictionary columns). A state is referred to by its code, state × 2 + 1 where a
    word ends there, else state × 2. State s's transitions are, for a state with many (a dense
    row r, record[2s] = -1 - r), dense[r × 128 + c - U+0E00] (the next code; 0: none), else
    edge[record[2s]:record[2s + 1]], each next code × 128 + c - U+0E00, sorted by character."""
    children: list[dict[int, int]] = [{}]
    ends = [0]
    for line in lines:
        word = line.strip()
        if not word or word.startswith("#"):
            continue
        if not all("\u0e00" <= c <= "\u0e7f" for c in word):
            raise ValueError(f"Thai word list: {word!r} has characters outside the Thai block")
        s = 0
        for c in word:
            t = children[s].get(ord(c))
            if t is None:
                t = children[s][ord(c)] = len(children)
                children.append({})
                ends.append(0)
            s = t
        ends[s] = 1
    n_states = len(children)
    column = np.zeros(0x80, np.int64)
    record = np.zeros(2 * n_states, np.int64)
    dense: list[np.ndarray] = []
    edge: list[int] = []
    for s, kids in enumerate(children):
        for c in kids:
            column[c - 0x0E00] = 1
        if len(kids) >= _DENSE_FANOUT:
            record[2 * s] = -1 - len(dense)
            row = np.zeros(0x80, np.int64)
            for c, t in kids.items():
                row[c - 0x0E00] = 2 * t + ends[t]
            dense.append(row)
        else:
            record[2 * s] = len(edge)
            edge.extend((2 * kids[c] + ends[kids[c]]) * 0x80 + c - 0x0E00 for c in sorted(kids))
            record[2 * s + 1] = len(edge)
    parts = [[n_states, len(dense)], column, record, *dense, np.array(edge, np.int64)]
    return np.concatenate(parts).astype(np.int32)


_RECORDS = 2 + 0x80  # where the state records start in a trie array


def _next_state(trie, code, c):
    """The trie's move from the state of `code` on character c (-1: the text's end): the next
    state's code, 0 where no word goes on with c, or -1 where c is no word-list character and a
    word ends at the state."""
    if c < 0xE00 or c > 0xE7F or trie[2 + c - 0xE00] == 0:
        return -1 if code & 1 else 0
    c -= 0xE00
    n_states = trie[0]
    at = _RECORDS + (code >> 1) * 2
    lo = trie[at]
    if lo < 0:
        return trie[_RECORDS + 2 * n_states + (-1 - lo) * 0x80 + c]
    edges = _RECORDS + 2 * n_states + trie[1] * 0x80
    for k in range(edges + lo, edges + trie[at + 1]):  # few: sorted, read in turn
        e = trie[k]
        if (e & 0x7F) >= c:
            return e >> 7 if (e & 0x7F) == c else 0
    return 0


def _dict_chars_read_after(cps, classes, start, end):
    """How many dictionary characters the JDK's rules read past the range cps[start:end] before
    they stop: the character after it; two more after a paiyannoi (ฯ) that a lookahead took in,
    three when the first is ล; the ล of a ฯลฯ that follows. The iterator divides a range when it
    has read at least two dictionary characters, these included."""
    n = cps.shape[0]
    if end >= n:
        return 0
    if cps[end - 1] == _PAIYANNOI and cps[start] != _PAIYANNOI:  # ended by a paiyannoi
        stop = end + (3 if cps[end] == _LO_LING else 2)
    elif cps[end] == _PAIYANNOI:  # a paiyannoi the range did not take: ลฯ follows it
        return 1 if end + 1 < n and cps[end + 1] == _LO_LING else 0
    else:
        stop = end + 1
    count = 0
    for j in range(end, min(stop, n)):
        if cps[j] < 0x10000 and classes[cps[j]] & _DICT:
            count += 1
    return count


def _range_end(cps, classes, i):
    """The end of the dictionary range that starts at i, or i when none starts there."""
    n = cps.shape[0]
    if cps[i] == _PAIYANNOI:  # ฯลฯ
        if i + 2 < n and cps[i + 1] == _LO_LING and cps[i + 2] == _PAIYANNOI:
            return i + 3
        return i
    if cps[i] >= 0x10000 or not classes[cps[i]] & _DICT:
        return i
    j = i + 1
    while j < n and cps[j] < 0x10000 and classes[cps[j]] & (_DICT | _IGNORE):
        j += 1
    if j < n and cps[j] == _MAIYAMOK:
        return j + 1
    if j < n and cps[j] == _PAIYANNOI:  # taken unless ลฯ follows (passing over ignored characters)
        k = j + 1
        while k < n and cps[k] < 0x10000 and classes[cps[k]] & _IGNORE:
            k += 1
        if k >= n or cps[k] != _LO_LING:
            return j + 1
        k += 1
        while k < n and cps[k] < 0x10000 and classes[cps[k]] & _IGNORE:
            k += 1
        if k < n and cps[k] != _PAIYANNOI:
            return j + 1
    return j


def _divide(cps, trie, start, end, current, best, possible, wrong):
    """The JDK's dictionary division of the range cps[start:end]: its break offsets after start
    (end last) are left in current[:count], and count is returned.

    The search walks the trie from the range's start. Every offset where a word ends is a possible
    break; on reaching a character no word goes on with (or the range's end) it backs up to the
    latest possible break not yet tried, drops the breaks after it, and starts a word there. When
    no possible break is left, the breaks that led furthest are kept and the search starts again
    one character after the furthest point (so an unknown stretch joins the word after it); when
    none led anywhere, the character is a segment of its own. As in the JDK's iterator, stepping
    past the text's last character leaves the offset on that character.
    """
    n = cps.shape[0]
    n_current, n_best, n_possible = 0, -1, 0
    state, i, farthest = 0, start, start  # the root's code
    c = cps[i]
    while True:
        if state & 1:  # a word ends here
            if n_possible == possible.shape[0]:  # backing up can visit an offset more than once
                grown = np.empty(2 * n_possible, np.int64)
                grown[:n_possible] = possible
                possible = grown
            possible[n_possible] = i
            n_possible += 1
        state = _next_state(trie, state, c)
        if state == -1:  # a word ends before a character outside the word list
            current[n_current] = i
            n_current += 1
            break
        if state == 0 or i >= end:
            if i > farthest:
                farthest = i
                best[:n_current] = current[:n_current]
                n_best = n_current
            while n_possible > 0 and wrong[possible[n_possible - 1]]:
                n_possible -= 1
            if n_possible == 0:
                if n_best >= 0:
                    current[:n_best] = best[:n_best]
                    n_current = n_best
                    if farthest >= end:
                        break
                    i = farthest + 1
                else:
                    if (n_current == 0 or current[n_current - 1] != i) and i != start:
                        current[n_current] = i
                        n_current += 1
                    if i + 1 < n:
                        i += 1
                    current[n_current] = i
                    n_current += 1
            else:
                n_possible -= 1
                p = possible[n_possible]
                while n_current > 0 and p < current[n_current - 1]:
                    n_current -= 1
                    wrong[current[n_current]] = True
                current[n_current] = p
                n_current += 1
                i = p
            c = cps[i] if i < n else -1
            if i >= end:
                break
        elif i + 1 < n:
            i += 1
            c = cps[i]
        else:  # past the last character: the end is seen, the offset stays on the character
            c = -1
    for j in range(start, min(end + 2, n + 2)):
        wrong[j] = False
    if n_current > 0:
        n_current -= 1
    current[n_current] = end
    return n_current + 1


def _segment(cps, classes, trie):
    """The text cps cut into dictionary ranges and what lies between them: a flag, then (start,
    end) pairs in text order. A pair is a segment of a range that ThaiTokenizer keeps (it starts with
    a letter or digit), or, with start given as -1 - start, a stretch between ranges that holds a
    letter or digit; the flag is 1 when there is such a stretch, else 0."""
    n = cps.shape[0]
    out = np.empty(2 * n + 3, np.int64)
    current = np.empty(n + 2, np.int64)
    best = np.empty(n + 2, np.int64)
    possible = np.empty(4 * n + 4, np.int64)
    wrong = np.zeros(n + 2, np.bool_)
    out[0] = 0
    k, gap, gap_keeps, i = 1, 0, False, 0
    while i < n:
        j = _range_end(cps, classes, i)
        if j == i:
            if cps[i] >= 0x10000 or classes[cps[i]] & _KEEP:
                gap_keeps = True
            i += 1
            continue
        if gap_keeps:
            out[0], out[k], out[k + 1] = 1, -1 - gap, i
            k += 2
        dict_chars = _dict_chars_read_after(cps, classes, i, j)
        for m in range(i, j):
            if classes[cps[m]] & _DICT:
                dict_chars += 1
        if dict_chars < 2 or j - i < 2:  # the rules' range is one segment
            current[0] = j
            count = 1
        else:
            count = _divide(cps, trie, i, j, current, best, possible, wrong)
        s = i
        for m in range(count):
            e = current[m]
            if e > s and cps[s] < 0x10000 and classes[cps[s]] & _KEEP:
                out[k], out[k + 1] = s, e
                k += 2
            s = e
        i, gap, gap_keeps = j, j, False
    if gap_keeps:
        out[0], out[k], out[k + 1] = 1, -1 - gap, n
        k += 2
    return out[:k]


_KERNELS = ("_next_state", "_dict_chars_read_after", "_range_end", "_divide", "_segment")


@lru_cache(maxsize=None)
def _compiled():
    """`_segment` compiled, with the functions it calls: numba is imported when the first Thai
    analyzer is made, not with this module (every analyzer's module imports it)."""
    import numba as nb

    module = globals()
    for name in _KERNELS:  # each compiled function finds the compiled versions of the others here
        module[name] = nb.njit(cache=True, nogil=True)(module[name])
    return module["_segment"]


# ---------------------------------------------------------------------------------------------
# Everything else. ICU's word break segments the text between the Thai runs; where the JDK's word
# rules differ from ICU's, its segments are followed.
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
# A number after a currency sign, '#' or a full stop that does not follow a digit: the JDK makes it
# one segment (ราคา $100, ปีพ.ศ.2561 → .2561), which ThaiTokenizer drops as it starts with neither a
# letter nor a digit; ICU would keep the number.
_PRE_NUM = regex.compile(r"(?:(?<!\d)\.|#|(?!\u00a2)\p{Sc})\d+(?:[.,'\"\u066b]\d+)*")
_PRE_NUM_SIGN = regex.compile(r"[#.\p{Sc}]")  # a quick first test for _PRE_NUM
# ASCII letters and digits between spaces, ? ! ( ) and ": ICU and the JDK both make each run of
# letters and digits one segment there and drop the rest
_PLAIN = re.compile(r'[\s?!()"]*(?:[A-Za-z0-9]+[\s?!()"]+)*[A-Za-z0-9]*')
_ASCII_WORD = re.compile(r"[A-Za-z0-9]+")
_THAI_RUN = re.compile("[\u0e00-\u0e7f]+|[^\u0e00-\u0e7f.]+(?:\\.[^\u0e00-\u0e7f.]+)*|\\.")


def _keeps(segment: str) -> bool:
    """ThaiTokenizer keeps the segments that start with a letter or digit (Character.isLetterOrDigit)."""
    c = segment[:1]
    return c.isalpha() or c.isdecimal()


class ThaiAnalyzer:
    """Lucene ThaiAnalyzer: ThaiTokenizer → LowerCaseFilter → DecimalDigitFilter → StopFilter.

    ThaiTokenizer keeps the word-break segments that start with a letter or digit; Lucene takes the
    segments from the JDK's Thai BreakIterator. Here the Thai runs are divided by the JDK's
    dictionary search (re-implemented in `_divide`) over the JDK's own Thai word list (packaged:
    thai_words.txt), so Thai words split as the JDK's iterator splits them. The text between Thai runs is
    segmented by ICU's word break, following the JDK's rules where they differ: a break where Thai
    meets other letters, digits or a full stop, letters joined by a dash or a number with its
    percent sign kept whole, and a number after a currency sign, '#' or a full stop dropped.
    """

    name = "thai"

    def __init__(self) -> None:
        try:
            import icu
        except ImportError:
            raise missing_extra("thai", "PyICU (the pyicu-wheels package)") from None
        self._icu = icu
        self._local = threading.local()  # an ICU BreakIterator keeps its text: one per thread
        self._stop = stop_words("th")
        self._trie = _dictionary()
        self._classes = _char_classes()
        self._segment = _compiled()
        self._cache: dict[str, str] = {}

    def _breaker(self):
        bi = getattr(self._local, "breaker", None)
        if bi is None:
            bi = self._local.breaker = self._icu.BreakIterator.createWordInstance(self._icu.Locale("th"))
        return bi

    def _spans(self, text: str) -> list[int]:
        """`_segment`'s flag and (start, end) pairs for `text`."""
        return self._segment(np.frombuffer(text.encode("utf-32-le"), np.int32), self._classes, self._trie).tolist()

    def segments(self, text: str) -> list[str]:
        """The segments ThaiTokenizer keeps, in order (before lowercasing and the stop filter)."""
        spans = iter(self._spans(text))
        next(spans)
        out: list[str] = []
        for start, end in zip(spans, spans):
            if start >= 0:
                out.append(text[start:end])
            else:
                out.extend(self._other_segments(text[-1 - start : end]))
        return out

    def _other_segments(self, text: str) -> list[str]:
        """The kept segments of a text between Thai runs (or without any)."""
        if _PLAIN.fullmatch(text) is not None:  # ASCII words and separators no rule joins across
            return _ASCII_WORD.findall(text)
        if _PRE_NUM_SIGN.search(text) is not None:
            text = _PRE_NUM.sub(" ", text)
        if _NOT_THAI.search(text) is None:  # Thai, whitespace and ? only: ICU's segments as they are
            bi = self._breaker()
            bi.setText(text)
            out, start = [], 0
            for end in bi:
                if _keeps(text[start]):
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
            out.extend(self._mixed_segments(text[last : m.start()]))
            out.append(m.group())
            last = m.end()
        out.extend(self._mixed_segments(text[last:]))
        return out

    def _mixed_segments(self, text: str) -> list[str]:
        """ICU's segments of a text that may hold other letters, digits or full stops next to Thai."""
        if not text:
            return []
        bi = self._breaker()
        bi.setText(text)
        out, start = [], 0
        # The JDK's iterator also breaks where Thai meets other letters or digits (๑๒ABC → ๑๒
        # ABC) and at a full stop next to Thai; ICU joins both. Where such a pair of characters
        # falls inside one of ICU's segments, the segment is split.
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
                out.extend(p for p in _THAI_RUN.findall(text[start:end]) if _keeps(p))
            elif _keeps(text[start]):
                out.append(text[start:end])
            start = end
        return out

    def __call__(self, text: str) -> list[str]:
        if not text:
            return []
        spans = iter(self._spans(text))
        stop = self._stop
        # A segment of a dictionary range holds Thai dictionary characters, ๆ, ฯ and characters of
        # categories Mn, Me and Cf only, which lowercasing and the digit filter leave as they are:
        # its term is itself, unless it is a stop word.
        if not next(spans):
            return [seg for start, end in zip(spans, spans) if (seg := text[start:end]) not in stop]
        cache = self._cache
        if len(cache) > CACHE_LIMIT:
            cache.clear()
        out = []
        for start, end in zip(spans, spans):
            if start >= 0:
                seg = text[start:end]
                if seg not in stop:
                    out.append(seg)
                continue
            for seg in self._other_segments(text[-1 - start : end]):
                term = cache.get(seg)
                if term is None:
                    t = decimal_digits(java_lower(seg))
                    term = cache[seg] = "" if t in stop else t
                if term:
                    out.append(term)
        return out

    def analyze_many(self, texts: list[str]) -> list[list[str]]:
        return [self(t) for t in texts]
