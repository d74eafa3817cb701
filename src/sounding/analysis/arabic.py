"""Arabic orthographic normaliser and light stemmer, as Lucene's ArabicAnalyzer applies them.

Rules follow org.apache.lucene.analysis.ar.ArabicNormalizer and ArabicStemmer (Lucene 9.x; Larkey,
Ballesteros and Connell, "Light Stemming for Arabic Information Retrieval"). Lengths count code
points where Lucene counts UTF-16 units; they differ only for tokens holding supplementary-plane
characters, which never carry these Arabic affixes.
"""
from __future__ import annotations

# ArabicNormalizer: hamza-seated and madda alefs → bare alef, alef maksura → yeh, teh marbuta → heh;
# tatweel and the eight harakat (fathatan … sukun) are deleted.
_NORMALIZE = str.maketrans(
    {
        "\u0622": "\u0627",  # ALEF WITH MADDA ABOVE
        "\u0623": "\u0627",  # ALEF WITH HAMZA ABOVE
        "\u0625": "\u0627",  # ALEF WITH HAMZA BELOW
        "\u0649": "\u064a",  # ALEF MAKSURA (dotless yeh) → YEH
        "\u0629": "\u0647",  # TEH MARBUTA → HEH
        "\u0640": None,  # TATWEEL
        "\u064b": None,  # FATHATAN
        "\u064c": None,  # DAMMATAN
        "\u064d": None,  # KASRATAN
        "\u064e": None,  # FATHA
        "\u064f": None,  # DAMMA
        "\u0650": None,  # KASRA
        "\u0651": None,  # SHADDA
        "\u0652": None,  # SUKUN
    }
)


def normalize(token: str) -> str:
    """ArabicNormalizer.normalize."""
    return token.translate(_NORMALIZE)


# ArabicStemmer.prefixes, in Lucene's order: the first that matches (with its length condition) is
# removed, and only one.
PREFIXES = (
    "\u0627\u0644",  # ال  (al-)
    "\u0648\u0627\u0644",  # وال (wal-)
    "\u0628\u0627\u0644",  # بال (bal-)
    "\u0643\u0627\u0644",  # كال (kal-)
    "\u0641\u0627\u0644",  # فال (fal-)
    "\u0644\u0644",  # لل  (ll-)
    "\u0648",  # و   (wa-)
)

# ArabicStemmer.suffixes, in Lucene's order. Every suffix is tried once, in turn, against the word
# as left by the previous ones, so several can go ("ساهدهات" → "ساهد").
SUFFIXES = (
    "\u0647\u0627",  # ها
    "\u0627\u0646",  # ان
    "\u0627\u062a",  # ات
    "\u0648\u0646",  # ون
    "\u064a\u0646",  # ين
    "\u064a\u0647",  # يه
    "\u064a\u0629",  # ية
    "\u0647",  # ه
    "\u0629",  # ة
    "\u064a",  # ي
)


def stem(token: str) -> str:
    """ArabicStemmer.stem: one prefix, then the suffix pass."""
    n = len(token)
    for p in PREFIXES:
        # startsWithCheckLength: the one-letter wa- needs a word of at least 4 letters, the others
        # need at least 2 letters left after the prefix.
        if (n >= 4 if len(p) == 1 else n >= len(p) + 2) and token.startswith(p):
            token = token[len(p) :]
            break
    for s in SUFFIXES:
        # endsWithCheckLength: at least 2 letters must remain.
        if len(token) >= len(s) + 2 and token.endswith(s):
            token = token[: -len(s)]
    return token
