"""CJK helpers: Lucene's width folding, CJK bigrams, and the Kuromoji/Nori punctuation test.

- `cjk_width` mirrors org.apache.lucene.analysis.cjk.CJKWidthFilter / CJKWidthCharFilter:
  full-width ASCII variants (U+FF01-FF5E) → ASCII, half-width katakana (U+FF65-FF9F) →
  full-width, a half-width (semi-)voiced mark merged into the katakana before it where one exists.
- `cjk_bigram_terms` mirrors CJKAnalyzer: StandardTokenizer → CJKWidthFilter → LowerCaseFilter →
  CJKBigramFilter (Han, Hiragana, Katakana, Hangul; no unigrams) → StopFilter.
- `is_punctuation` is JapaneseTokenizer/KoreanTokenizer.isPunctuation (by Java character type).
"""
from __future__ import annotations

import re
import unicodedata

import regex

from .standard import standard_tokenize

# ---------------------------------------------------------------------------------------------
# plain character classes: the standard library's engine finds them faster than `regex`
_WIDTH_CHARS = re.compile("[\uff01-\uff5e\uff65-\uff9f]")
_HALF_KANA = re.compile("[\uff65-\uff9f]")
_FULL_ASCII_CHARS = re.compile("[\uff01-\uff5e]")
_KANA = {o: unicodedata.normalize("NFKC", chr(o)) for o in range(0xFF65, 0xFFA0)}
assert all(len(v) == 1 for v in _KANA.values())


def _ascii(match: re.Match) -> str:
    return chr(ord(match.group()) - 0xFEE0)


def needs_width_folding(text: str) -> bool:
    """Whether cjk_width changes anything in `text`."""
    return _WIDTH_CHARS.search(text) is not None


def cjk_width(text: str) -> str:
    """Fold full-width ASCII to ASCII and half-width katakana to full-width (Lucene CJKWidthFilter)."""
    if not _WIDTH_CHARS.search(text):
        return text
    if not _HALF_KANA.search(text):  # full-width ASCII only, usually a few characters (？, ！, digits):
        return _FULL_ASCII_CHARS.sub(_ascii, text)  # replacing them costs less than a table look-up per character
    out: list[str] = []
    for c in text:
        o = ord(c)
        if 0xFF01 <= o <= 0xFF5E:
            out.append(chr(o - 0xFEE0))
        elif 0xFF65 <= o <= 0xFF9F:
            if o >= 0xFF9E and out and "\u30a6" <= out[-1] <= "\u30fd":
                merged = unicodedata.normalize("NFC", out[-1] + _KANA[o])
                if len(merged) == 1:  # e.g. ｶﾞ → ガ, ﾊﾟ → パ, ｳﾞ → ヴ
                    out[-1] = merged
                    continue
            out.append(_KANA[o])
        else:
            out.append(c)
    return "".join(out)


# ---------------------------------------------------------------------------------------------
# Java Character.getType classes that Kuromoji and Nori treat as punctuation (discardPunctuation).
_PUNCT_CATEGORIES = frozenset(
    "Zs Zl Zp Cc Cf Pd Ps Pe Pc Po Sm Sc Sk So Pi Pf".split()
)


def is_punctuation(ch: str) -> bool:
    return unicodedata.category(ch) in _PUNCT_CATEGORIES


# ---------------------------------------------------------------------------------------------
# Lower case as Java's Character.toLowerCase(int), one code point at a time (Lucene LowerCaseFilter):
# unlike str.lower, no final-sigma context and İ → i.
def java_lower(s: str) -> str:
    low = s.lower()
    if len(low) == len(s) and "\u03a3" not in s:
        return low
    return "".join("i" if c == "\u0130" else c.lower() for c in s)


# ---------------------------------------------------------------------------------------------
# StandardTokenizer token types that CJKBigramFilter bigrams (its default flags): <IDEOGRAPHIC>
# (one Han character), <HIRAGANA> (one character), <KATAKANA> and <HANGUL> (runs). A token is
# given the type when all its letters are of that script; tokens that mix scripts with digits or
# Latin letters (Lucene's <ALPHANUM>) pass through whole.
_MARK = r"[\p{WB=Extend}\p{WB=Format}\p{WB=ZWJ}]"
_CJK_TOKEN = regex.compile(
    rf"(?:\p{{Ideographic}}|\p{{Script=Hiragana}}){_MARK}*"
    rf"|(?:[\p{{WB=Katakana}}]{_MARK}*)+"
    rf"|(?:\p{{Script=Hangul}}{_MARK}*)+",
    regex.V1,
)


def cjk_bigram_terms(text: str, stop_words: frozenset[str]) -> list[str]:
    """Terms of Lucene's CJKAnalyzer for `text`."""
    out: list[str] = []
    run: list[str] = []  # code points of the current contiguous run of CJK tokens
    run_end = -1
    pos = 0

    def flush() -> None:
        if len(run) == 1:
            out.append(run[0])
        else:
            out.extend(a + b for a, b in zip(run, run[1:]))
        run.clear()

    for tok in standard_tokenize(text):
        start = text.find(tok, pos)
        pos = end = start + len(tok)
        is_cjk = _CJK_TOKEN.fullmatch(tok) is not None
        term = java_lower(cjk_width(tok))
        if is_cjk:
            if start != run_end and run:
                flush()
            run.extend(term)
            run_end = end
        else:
            if run:
                flush()
            out.append(term)
    if run:
        flush()
    return [t for t in out if t not in stop_words]
