"""English analyzer chains.

`english-lucene` reproduces Lucene's EnglishAnalyzer as Anserini's DefaultEnglishAnalyzer uses it
(the analysis behind every published Pyserini BEIR number): StandardTokenizer → English possessive
removal → lower case → Lucene's 33 English stop words → Lucene's Porter stemmer.
`english-snowball` swaps in the Snowball English (Porter2) stemmer and Snowball's stop list.
"""
from __future__ import annotations

import Stemmer

from .analyzers import register
from .porter import LuceneStemmer
from .standard import standard_tokenize

# org.apache.lucene.analysis.en.EnglishAnalyzer.ENGLISH_STOP_WORDS_SET
LUCENE_ENGLISH_STOP_WORDS = frozenset(
    "a an and are as at be but by for if in into is it no not of on or such that the their then "
    "there these they this to was will with".split()
)
assert len(LUCENE_ENGLISH_STOP_WORDS) == 33

# snowballstem.org algorithms/english/stop.txt
SNOWBALL_ENGLISH_STOP_WORDS = frozenset(
    """i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she
    her hers herself it its itself they them their theirs themselves what which who whom this that
    these those am is are was were be been being have has had having do does did doing would should
    could ought i'm you're he's she's it's we're they're i've you've we've they've i'd you'd he'd
    she'd we'd they'd i'll you'll he'll she'll we'll they'll isn't aren't wasn't weren't hasn't
    haven't hadn't doesn't don't didn't won't wouldn't shan't shouldn't can't cannot couldn't mustn't
    let's that's who's what's here's there's when's where's why's how's a an the and but if or
    because as until while of at by for with about against between into through during before after
    above below to from up down in out on off over under again further then once here there when
    where why how all any both each few more most other some such no nor not only own same so than
    too very""".split()
)

_POSSESSIVE_QUOTES = ("'", "\u2019", "\uff07")


def _strip_possessive(token: str) -> str:
    # EnglishPossessiveFilter (before lower-casing): drop a trailing 's, 'S, ’s, ’S, ＇s or ＇S.
    if len(token) >= 2 and token[-1] in "sS" and token[-2] in _POSSESSIVE_QUOTES:
        return token[:-2]
    return token


def java_lower(token: str) -> str:
    """Lucene's LowerCaseFilter: Java's Character.toLowerCase on each code point.

    Python's str.lower() applies the full Unicode mappings instead; they differ from Java's simple
    ones in exactly two places: "İ" (U+0130) becomes "i̇" (i + U+0307) and a word-final "Σ"
    becomes "ς"; Java gives "i" and "σ".
    """
    if token.isascii():
        return token.lower()
    return token.replace("\u0130", "i").replace("\u03a3", "\u03c3").lower()


class EnglishAnalyzer:
    """Tokenise, fold possessives and case, drop stop words, stem; stems are cached per surface form."""

    lower_case = possessive = True  # how compiled.py folds an ASCII token into its key

    def __init__(self, name: str, stop_words: frozenset[str], stem_words, compiled_stemmer: str = ""):
        self.name = name
        self.stop_words = stop_words
        self._stem_words = stem_words
        self.compiled_stemmer = compiled_stemmer  # "lucene-porter": compiled.py stems ASCII words itself
        self.dropped_keys = stop_words  # lower-cased tokens the chain drops (compiled.py's key tables)
        self._cache: dict[str, str] = {}  # token → term ("" for a stop word)

    def __call__(self, text: str) -> list[str]:
        # ASCII text may be lower-cased before tokenising (same tokens, and "The"/"the" share a
        # cache entry); other text is tokenised as is, like Lucene, and each token lower-cased.
        tokens = standard_tokenize(text.lower() if text.isascii() else text)
        cache = self._cache
        missing = set(tokens).difference(cache)
        if missing:
            self._learn(list(missing))
        return list(filter(None, map(cache.__getitem__, tokens)))  # "" marks a stop word

    def analyze_many(self, texts: list[str]) -> list[list[str]]:
        """`[self(t) for t in texts]`, learning the new tokens of all texts at once (indexing)."""
        lowered = [t.lower() if t.isascii() else t for t in texts]
        tokens = list(map(standard_tokenize, lowered))
        cache = self._cache
        missing = set().union(*tokens).difference(cache)
        if missing:
            self._learn(list(missing))
        get = cache.__getitem__
        return [list(filter(None, map(get, t))) for t in tokens]

    def _learn(self, tokens: list[str]) -> None:
        for token, term in zip(tokens, self.token_terms(tokens)):
            self._cache[token] = term

    def token_terms(self, tokens: list[str]) -> list[str]:
        """The term of each token as the tokenizer emits it ("" when the chain drops it)."""
        return self.surface_terms([java_lower(_strip_possessive(t)) for t in tokens])

    def surface_terms(self, surfaces: list[str]) -> list[str]:
        """The term of each token already without its possessive and lower-cased ("" for a stop word)."""
        keep = [s for s in surfaces if s and s not in self.stop_words]
        stems = dict(zip(keep, self._stem_words(keep)))
        return [stems.get(s, "") for s in surfaces]

    def compiled(self, vocab=None, grow: bool = True):
        """This chain in compiled code (analysis/compiled.py), with the vocabulary `vocab` (a ByteTable;
        `grow` off: fixed, terms outside it dropped)."""
        from .compiled import CompiledChain

        return CompiledChain(self, vocab, grow)


def _lucene() -> EnglishAnalyzer:
    return EnglishAnalyzer("english-lucene", LUCENE_ENGLISH_STOP_WORDS, LuceneStemmer().stem_words, "lucene-porter")


def _snowball() -> EnglishAnalyzer:
    return EnglishAnalyzer("english-snowball", SNOWBALL_ENGLISH_STOP_WORDS, Stemmer.Stemmer("english").stemWords)


register("english-lucene", _lucene, "Lucene EnglishAnalyzer as Anserini uses it (Porter, 33 stop words)")
register("english-snowball", _snowball, "StandardTokenizer, Snowball English stemmer and stop list")
