"""Lucene's StandardTokenizer (Unicode UAX#29 word boundaries), as a regular expression.

Hand-written because no Python library emits exactly Lucene's tokens: ICU's word iterator needs
native ICU, and generic tokenisers drop UAX#29's joining rules ("U.S.A", "3.14", "don't", "1,000").
Rules kept (UAX#29 WB5-WB13b): letters/digits/connectors join; MidLetter/MidNumLet/quote join two
letters; MidNum/MidNumLet/quote join two digits; Katakana runs join; each ideograph and hiragana
character is a token; south-east Asian runs (Thai, Lao, Khmer, Myanmar) stay whole. Lucene drops
segments without letters or digits, and splits tokens longer than 255 characters.
"""
from __future__ import annotations

import re

import regex

MAX_TOKEN_LENGTH = 255

# ASCII fast path (most English text): same rules with ASCII classes; `re` is several times faster.
_ASCII = re.compile(
    r"[A-Za-z0-9_]+(?:(?:(?<=[A-Za-z])[:.'](?=[A-Za-z])|(?<=[0-9])[,;.'](?=[0-9]))[A-Za-z0-9_]+)*"
)



_IGN = r"[\p{WB=Extend}\p{WB=Format}\p{WB=ZWJ}]*"  # WB4: marks attach to what precedes
_AL = r"[\p{WB=ALetter}\p{WB=Hebrew_Letter}]"
_NU = r"\p{WB=Numeric}"
_UNIT = rf"(?:[\p{{WB=ALetter}}\p{{WB=Hebrew_Letter}}\p{{WB=Numeric}}\p{{WB=ExtendNumLet}}]{_IGN})"
_MIDLET = r"[\p{WB=MidLetter}\p{WB=MidNumLet}\p{WB=Single_Quote}]"
_MIDNUM = r"[\p{WB=MidNum}\p{WB=MidNumLet}\p{WB=Single_Quote}]"
_UNICODE = regex.compile(
    rf"{_UNIT}+(?:(?:(?<={_AL}{_IGN}){_MIDLET}{_IGN}(?={_AL})|(?<={_NU}{_IGN}){_MIDNUM}{_IGN}(?={_NU})){_UNIT}+)*"
    rf"|(?:[\p{{WB=Katakana}}\p{{WB=ExtendNumLet}}]{_IGN})+"
    rf"|[\p{{Ideographic}}\p{{Script=Hiragana}}]{_IGN}"
    rf"|(?:\p{{Line_Break=Complex_Context}}{_IGN})+",
    regex.V1,
)


# A whitespace-delimited chunk holding non-ASCII characters. Tokens never span whitespace (no UAX#29
# rule joins across it), so ASCII stretches between such chunks keep the fast `re` path.
_NON_ASCII_CHUNK = re.compile(r"\S*[^\x00-\x7f]\S*")


def standard_tokenize(text: str) -> list[str]:
    """Tokens of `text` as Lucene's StandardTokenizer emits them (case preserved)."""
    if text.isascii():
        tokens = _ASCII.findall(text)
    else:
        tokens, pos = [], 0
        for chunk in _NON_ASCII_CHUNK.finditer(text):
            tokens += _ASCII.findall(text, pos, chunk.start())
            tokens += _UNICODE.findall(chunk.group())
            pos = chunk.end()
        tokens += _ASCII.findall(text, pos)
    if "_" in text:  # a run of connectors alone is not a word
        tokens = [t for t in tokens if t.strip("_\u203f\u2040\u2054\ufe33\ufe34\ufe4d\ufe4e\ufe4f\uff3f")]
    if any(len(t) > MAX_TOKEN_LENGTH for t in tokens):
        tokens = [t[i : i + MAX_TOKEN_LENGTH] for t in tokens for i in range(0, len(t), MAX_TOKEN_LENGTH)]
    return tokens
