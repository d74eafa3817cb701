"""Indic normalisation, and the Bengali and Telugu normalisers and stemmers of Lucene 9.x.

- `indic_normalize` mirrors org.apache.lucene.analysis.in.IndicNormalizer (Unicode 5.2 ch. 6
  compositions: a decomposed letter or vowel sign written as two or three code points becomes the
  precomposed one, per script).
- `bengali_normalize` / `bengali_stem` mirror org.apache.lucene.analysis.bn.BengaliNormalizer
  (UzZaman & Khan) and BengaliStemmer (Sengupta & Chaudhuri; Savoy's light stemmer).
- `telugu_normalize` / `telugu_stem` mirror org.apache.lucene.analysis.te.TeluguNormalizer and
  TeluguStemmer (Lucene 9.0+).

Rules are restated from those classes, quirks included (IndicNormalizer turns Telugu VA + vowel sign
U into MA; BengaliNormalizer copies the next letter over a medial visarga). Lengths count code
points where Lucene counts UTF-16 units: the same for every Indic letter.
"""
from __future__ import annotations

# ---------------------------------------------------------------------------------------------
# IndicNormalizer
# Java's Character.UnicodeBlock per script: (flag, base). Each block spans base .. base + 0x7F.
_DEVANAGARI, _BENGALI, _GURMUKHI, _GUJARATI, _ORIYA = 1, 2, 4, 8, 16
_TAMIL, _TELUGU, _KANNADA, _MALAYALAM = 32, 64, 128, 256
_BLOCKS = {  # base >> 7 → (flag, base)
    0x0900 >> 7: (_DEVANAGARI, 0x0900),
    0x0980 >> 7: (_BENGALI, 0x0980),
    0x0A00 >> 7: (_GURMUKHI, 0x0A00),
    0x0A80 >> 7: (_GUJARATI, 0x0A80),
    0x0B00 >> 7: (_ORIYA, 0x0B00),
    0x0B80 >> 7: (_TAMIL, 0x0B80),
    0x0C00 >> 7: (_TELUGU, 0x0C00),
    0x0C80 >> 7: (_KANNADA, 0x0C80),
    0x0D00 >> 7: (_MALAYALAM, 0x0D00),
}
_ZWJ = 0xFF  # stands for U+200D in the third column

# (ch1, ch2, ch3 or -1, result, scripts): offsets into the script's block. Lucene scans this table
# in order and applies the first row whose first character, scripts, second and (if any) third
# character match.
_D, _B, _PA, _GU, _O = _DEVANAGARI, _BENGALI, _GURMUKHI, _GUJARATI, _ORIYA
_TA, _TE, _K, _M = _TAMIL, _TELUGU, _KANNADA, _MALAYALAM
_DECOMPOSITIONS = (
    (0x05, 0x3E, 0x45, 0x11, _D | _GU),  # candra O
    (0x05, 0x3E, 0x46, 0x12, _D),  # short O
    (0x05, 0x3E, 0x47, 0x13, _D | _GU),  # letter O
    (0x05, 0x3E, 0x48, 0x14, _D | _GU),  # letter AI / AU
    (0x05, 0x3E, -1, 0x06, _D | _B | _PA | _GU | _O),  # AA
    (0x05, 0x45, -1, 0x72, _D),  # candra A
    (0x05, 0x45, -1, 0x0D, _GU),  # vowel candra E
    (0x05, 0x46, -1, 0x04, _D),  # short A
    (0x05, 0x47, -1, 0x0F, _GU),  # letter E
    (0x05, 0x48, -1, 0x10, _PA | _GU),  # letter AI
    (0x05, 0x49, -1, 0x11, _D | _GU),  # candra O
    (0x05, 0x4A, -1, 0x12, _D),  # short O
    (0x05, 0x4B, -1, 0x13, _D | _GU),  # letter O
    (0x05, 0x4C, -1, 0x14, _D | _PA | _GU),  # letter AI / AU
    (0x06, 0x45, -1, 0x11, _D | _GU),  # candra O
    (0x06, 0x46, -1, 0x12, _D),  # short O
    (0x06, 0x47, -1, 0x13, _D | _GU),  # letter O
    (0x06, 0x48, -1, 0x14, _D | _GU),  # letter AI / AU
    (0x07, 0x57, -1, 0x08, _M),  # letter II
    (0x09, 0x41, -1, 0x0A, _D),  # letter UU
    (0x09, 0x57, -1, 0x0A, _TA | _M),  # letter UU
    (0x0E, 0x46, -1, 0x10, _M),  # letter AI
    (0x0F, 0x45, -1, 0x0D, _D),  # candra E
    (0x0F, 0x46, -1, 0x0E, _D),  # short E
    (0x0F, 0x47, -1, 0x10, _D),  # AI
    (0x0F, 0x57, -1, 0x10, _O),  # AI
    (0x12, 0x3E, -1, 0x13, _M),  # letter OO
    (0x12, 0x4C, -1, 0x14, _TE | _K),  # letter AU
    (0x12, 0x55, -1, 0x13, _TE),  # letter OO
    (0x12, 0x57, -1, 0x14, _TA | _M),  # letter AU
    (0x13, 0x57, -1, 0x14, _O),  # letter AU
    (0x15, 0x3C, -1, 0x58, _D),  # qa
    (0x16, 0x3C, -1, 0x59, _D | _PA),  # khha
    (0x17, 0x3C, -1, 0x5A, _D | _PA),  # ghha
    (0x1C, 0x3C, -1, 0x5B, _D | _PA),  # za
    (0x21, 0x3C, -1, 0x5C, _D | _B | _O),  # dddha / rra
    (0x22, 0x3C, -1, 0x5D, _D | _B | _O),  # rha
    (0x23, 0x4D, _ZWJ, 0x7A, _M),  # chillu nn
    (0x24, 0x4D, _ZWJ, 0x4E, _B),  # khanda ta
    (0x28, 0x3C, -1, 0x29, _D),  # nnna
    (0x28, 0x4D, _ZWJ, 0x7B, _M),  # chillu n
    (0x2B, 0x3C, -1, 0x5E, _D | _PA),  # fa
    (0x2F, 0x3C, -1, 0x5F, _D | _B),  # yya
    (0x2C, 0x41, 0x41, 0x0B, _TE),  # vocalic R
    (0x30, 0x3C, -1, 0x31, _D),  # rra
    (0x30, 0x4D, _ZWJ, 0x7C, _M),  # chillu rr
    (0x32, 0x4D, _ZWJ, 0x7D, _M),  # chillu l
    (0x33, 0x3C, -1, 0x34, _D),  # llla
    (0x33, 0x4D, _ZWJ, 0x7E, _M),  # chillu ll
    (0x35, 0x41, -1, 0x2E, _TE),  # telugu letter MA (VA + vowel sign U: sic, as in Lucene)
    (0x3E, 0x45, -1, 0x49, _D | _GU),  # vowel sign candra O
    (0x3E, 0x46, -1, 0x4A, _D),  # vowel sign short O
    (0x3E, 0x47, -1, 0x4B, _D | _GU),  # vowel sign O
    (0x3E, 0x48, -1, 0x4C, _D | _GU),  # vowel sign AU
    (0x3F, 0x55, -1, 0x40, _K),  # vowel sign II
    (0x41, 0x41, -1, 0x42, _PA),  # vowel sign UU (stacking)
    (0x46, 0x3E, -1, 0x4A, _TA | _M),  # vowel sign O
    (0x46, 0x42, 0x55, 0x4B, _K),  # vowel sign OO
    (0x46, 0x42, -1, 0x4A, _K),  # vowel sign O
    (0x46, 0x46, -1, 0x48, _M),  # vowel sign AI (reordered twice)
    (0x46, 0x55, -1, 0x47, _TE | _K),  # vowel sign EE
    (0x46, 0x56, -1, 0x48, _TE | _K),  # vowel sign AI
    (0x46, 0x57, -1, 0x4C, _TA | _M),  # vowel sign AU
    (0x47, 0x3E, -1, 0x4B, _B | _O | _TA | _M),  # vowel sign O / OO
    (0x47, 0x57, -1, 0x4C, _B | _O),  # vowel sign AU
    (0x4A, 0x55, -1, 0x4B, _K),  # vowel sign OO
    (0x72, 0x3F, -1, 0x07, _PA),  # letter I
    (0x72, 0x40, -1, 0x08, _PA),  # letter II
    (0x72, 0x47, -1, 0x0F, _PA),  # letter EE
    (0x73, 0x41, -1, 0x09, _PA),  # letter U
    (0x73, 0x42, -1, 0x0A, _PA),  # letter UU
    (0x73, 0x4B, -1, 0x13, _PA),  # letter OO
)
# Per script flag: first-character offset → the rows that may apply, in table order.
_ROWS: dict[int, dict[int, tuple]] = {}
for _flag, _ in _BLOCKS.values():
    _by_first: dict[int, list] = {}
    for _row in _DECOMPOSITIONS:
        if _row[4] & _flag:
            _by_first.setdefault(_row[0], []).append(_row)
    _ROWS[_flag] = {k: tuple(v) for k, v in _by_first.items()}
_FIRST_CHARS = frozenset(
    chr(base + off) for flag, base in _BLOCKS.values() for off in _ROWS[flag]
)


def indic_normalize(token: str) -> str:
    """IndicNormalizer.normalize: compose decomposed sequences, left to right."""
    if not any(c in _FIRST_CHARS for c in token):
        return token
    s = [ord(c) for c in token]
    i = 0
    while i < len(s):
        blk = _BLOCKS.get(s[i] >> 7)
        if blk is not None:
            flag, base = blk
            rows = _ROWS[flag].get(s[i] - base)
            if rows and i + 1 < len(s) and (s[i + 1] >> 7) == (s[i] >> 7):
                ch1 = s[i + 1] - base
                ch2 = -1
                if i + 2 < len(s):
                    if s[i + 2] == 0x200D:
                        ch2 = _ZWJ
                    elif (s[i + 2] >> 7) == (s[i] >> 7):
                        ch2 = s[i + 2] - base
                for _, r1, r2, res, _flags in rows:
                    if r1 == ch1 and (r2 < 0 or r2 == ch2):
                        s[i] = base + res
                        del s[i + 1 : i + (3 if r2 >= 0 else 2)]
                        break
        i += 1
    return "".join(map(chr, s))


# ---------------------------------------------------------------------------------------------
# BengaliNormalizer
_HASANTA = "\u09cd"
_BN_SIMPLE = {
    "\u09c0": "\u09bf",  # dirgho i-kar → rossho i-kar
    "\u09c2": "\u09c1",  # dirgho u-kar → rossho u-kar
    "\u0999": "\u0982",  # nga → anusvara
    "\u09b6": "\u09b8",  # sha → sa
    "\u09b7": "\u09b8",  # ssa → sa
    "\u09a3": "\u09a8",  # nna → na
    "\u09dc": "\u09b0",  # rra → ra
    "\u09dd": "\u09b0",  # rha → ra
    "\u09ce": "\u09a4",  # khanda ta → ta
}
_BN_TRIGGERS = frozenset(_BN_SIMPLE) | {"\u0981", "\u0995", "\u09af", "\u09ac", "\u0983"}


def bengali_normalize(token: str) -> str:
    """BengaliNormalizer.normalize (one left-to-right pass that edits in place, as in Lucene)."""
    if not any(c in _BN_TRIGGERS for c in token):
        return token
    s = list(token)
    i = 0
    while i < len(s):
        c = s[i]
        n = len(s)
        if c == "\u0981":  # chandrabindu: delete
            del s[i]
            i -= 1
        elif c in _BN_SIMPLE:
            s[i] = _BN_SIMPLE[c]
        elif c == "\u0995":  # khio: ka + hasanta + (the vowel sign i, as Lucene tests it)
            if i + 2 < n and s[i + 1] == _HASANTA and s[i + 2] == "\u09bf":
                if i == 0:
                    s[i] = "\u0996"
                    del s[i + 1 : i + 3]
                else:
                    s[i + 1] = "\u0996"
                    del s[i + 2]
        elif c == "\u09af":  # ja phala
            if i - 2 == 0 and s[i - 1] == _HASANTA:
                s[i - 1] = "\u09c7"
                if i + 1 < n and s[i + 1] == "\u09be":
                    del s[i + 1]
                del s[i]
                i -= 1
            elif i - 1 >= 0 and s[i - 1] == _HASANTA:
                del s[i - 1 : i + 1]
                i -= 2
        elif c == "\u09ac":  # ba phala
            if not ((i >= 1 and s[i - 1] != _HASANTA) or i == 0):
                if i - 2 == 0:
                    del s[i - 1 : i + 1]
                    i -= 2
                elif i - 5 >= 0 and s[i - 3] == _HASANTA:
                    del s[i - 1 : i + 1]
                    i -= 2
                elif i - 2 >= 0:
                    s[i - 1] = s[i - 2]
                    del s[i]
                    i -= 1
        elif c == "\u0983":  # visarga
            if i == n - 1:
                if n <= 3:
                    s[i] = "\u09b9"
                else:
                    del s[i]
            else:
                s[i] = s[i + 1]
        i += 1
    return "".join(s)


# ---------------------------------------------------------------------------------------------
# BengaliStemmer: groups of suffixes, longest first. A word longer than `min_len` that ends with
# one of a group's suffixes loses `cut` code units: Lucene removes the group's nominal length, so
# it writes YYA precomposed (U+09DF, one unit), the form IndicNormalizer produces.
_Y = "\u09df"
_BN_GROUPS = (
    (9, 8, ("িয়াছিলাম", "িতেছিলাম", "িতেছিলেন", "ইতেছিলেন", "িয়াছিলেন", "ইয়াছিলেন")),
    (8, 7, ("িতেছিলি", "িতেছিলে", "িয়াছিলা", "িয়াছিলে", "িতেছিলা", "িয়াছিলি", "য়েদেরকে")),
    (7, 6, ("িতেছিস", "িতেছেন", "িয়াছিস", "িয়াছেন", "েছিলাম", "েছিলেন", "েদেরকে")),
    (6, 5, ("িতেছি", "িতেছা", "িতেছে", "ছিলাম", "ছিলেন", "িয়াছি", "িয়াছা", "িয়াছে", "েছিলে",
            "েছিলা", "য়েদের", "দেরকে")),
    (5, 4, ("িলাম", "িলেন", "িতাম", "িতেন", "িবেন", "ছিলি", "ছিলে", "ছিলা", "তেছে", "িতেছ",
            "খানা", "খানি", "গুলো", "গুলি", "য়েরা", "েদের")),
    (4, 3, ("লাম", "িলি", "ইলি", "িলে", "ইলে", "লেন", "িলা", "ইলা", "তাম", "িতি", "ইতি", "িতে",
            "ইতে", "তেন", "িতা", "িবা", "ইবা", "িবি", "ইবি", "বেন", "িবে", "ইবে", "ছেন", "য়োন",
            "য়ের", "েরা", "দের")),
    (3, 2, ("িস", "েন", "লি", "লে", "লা", "তি", "তে", "তা", "বি", "বে", "বা", "ছি", "ছা", "ছে",
            "ুন", "ুক", "টা", "টি", "নি", "ের", "তে", "রা", "কে")),
    (2, 1, ("ি", "ী", "া", "ো", "ে", "ব", "ত")),
)
BENGALI_SUFFIX_GROUPS = tuple(
    (min_len, cut, tuple(s.replace("\u09af\u09bc", _Y) for s in suffixes))
    for min_len, cut, suffixes in _BN_GROUPS
)
for _min_len, _cut, _sfx in BENGALI_SUFFIX_GROUPS:
    assert all(len(s) == _cut for s in _sfx), (_cut, [s for s in _sfx if len(s) != _cut])


def bengali_stem(token: str) -> str:
    """BengaliStemmer.stem: the first matching group wins."""
    n = len(token)
    for min_len, cut, suffixes in BENGALI_SUFFIX_GROUPS:
        if n > min_len and token.endswith(suffixes):
            return token[: n - cut]
    return token


# ---------------------------------------------------------------------------------------------
# TeluguNormalizer
_TE_SIMPLE = {
    "\u0c00": "\u0c02",  # candrabindu above → anusvara
    "\u0c01": "\u0c02",  # candrabindu → anusvara
    "\u0c03": "",  # visarga: delete
    "\u200d": "",  # ZWJ: delete
    "\u200c": "",  # ZWNJ: delete
    "\u0c14": "\u0c13",  # AU → OO
    "\u0c10": "\u0c0f",  # AI → EE
    "\u0c06": "\u0c05",  # AA → A
    "\u0c08": "\u0c07",  # II → I
    "\u0c0a": "\u0c09",  # UU → U
    "\u0c40": "\u0c3f",  # vowel sign II → I
    "\u0c42": "\u0c41",  # vowel sign UU → U
    "\u0c47": "\u0c46",  # vowel sign EE → E
    "\u0c4b": "\u0c4a",  # vowel sign OO → O
}
_TE_TRIGGERS = frozenset(_TE_SIMPLE) | {"\u0c46", "\u0c12"}


def telugu_normalize(token: str) -> str:
    """TeluguNormalizer.normalize (left to right; a rewritten character is not revisited)."""
    if not any(c in _TE_TRIGGERS for c in token):
        return token
    out: list[str] = []
    i, n = 0, len(token)
    while i < n:
        c = token[i]
        nxt = token[i + 1] if i + 1 < n else ""
        if c == "\u0c46" and nxt == "\u0c56":  # E + AI length mark → vowel sign AI
            out.append("\u0c48")
            i += 2
        elif c == "\u0c12" and nxt == "\u0c55":  # O + length mark → OO
            out.append("\u0c13")
            i += 2
        elif c == "\u0c12" and nxt == "\u0c4c":  # O + vowel sign AU → AU
            out.append("\u0c14")
            i += 2
        else:
            out.append(_TE_SIMPLE.get(c, c))
            i += 1
    return "".join(out)


# TeluguStemmer
_TE_4 = ("ళ్ళు", "డ్లు")
_TE_2 = ("డు", "ము", "వు", "లు", "ని", "ను", "చే", "కై", "లో", "డు", "ది", "కి", "సు", "వై", "పై")
_TE_1 = ("ి", "ీ", "ు", "ూ", "ె", "ే", "ొ", "ో", "ా")
assert all(len(s) == 4 for s in _TE_4) and all(len(s) == 2 for s in _TE_2)


def telugu_stem(token: str) -> str:
    """TeluguStemmer.stem."""
    n = len(token)
    if n > 5 and token.endswith(_TE_4):
        return token[:-4]
    if n > 3 and token.endswith(_TE_2):
        return token[:-2]
    if n > 2 and token.endswith(_TE_1):
        return token[:-1]
    return token
