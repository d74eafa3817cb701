"""Mr. TyDi th: Lucene's ThaiAnalyzer (the JDK's dictionary BreakIterator) with ICU's word break."""
from __future__ import annotations

import bisect
import re

import regex

from .cjk import java_lower
from .filters import CACHE_LIMIT, decimal_digits, missing_extra, stop_words


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
            raise missing_extra("thai", "PyICU (the pyicu-wheels package)") from None
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
        if len(cache) > CACHE_LIMIT:
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
