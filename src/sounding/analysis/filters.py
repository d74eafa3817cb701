"""Token filters shared by the Mr. TyDi analyzers: stop lists, Lucene's DecimalDigitFilter and
WhitespaceTokenizer, TokenChain (tokenise, then map each distinct token through a memoised chain) and
StandardChain (a TokenChain over the StandardTokenizer, with a compiled form)."""
from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from importlib import resources
from typing import Callable, Iterable


from ..errors import SoundingError
from .standard import standard_tokenize

LANGS_HINT = "pip install 'sounding[langs]'"
CACHE_LIMIT = 2_000_000  # per-analyzer memo of token → term(s); cleared when it grows past this


def missing_extra(lang: str, packages: str) -> SoundingError:
    """The error an analyzer gives when its optional packages (the `langs` extra) are not installed."""
    return SoundingError(f"the {lang} analyzer needs {packages}: {LANGS_HINT}")


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
            if len(cache) > CACHE_LIMIT:
                cache.clear()
                missing = list(set(tokens))
            term = self._term
            for t in missing:
                cache[t] = term(t)
        return [term for term in map(cache.__getitem__, tokens) if term]

    def analyze_many(self, texts: list[str]) -> list[list[str]]:
        return [self(t) for t in texts]


class StandardChain(TokenChain):
    """A TokenChain over Lucene's StandardTokenizer, which compiled.py also runs (`compiled()`).

    `lower_case`: `term` lower-cases the token before anything else, so that term(t) is
    term(t.lower()) for an ASCII t (compiled.py then keys ASCII tokens lower-cased)."""

    possessive = False
    compiled_stemmer = ""
    dropped_keys: frozenset[str] = frozenset()

    def __init__(self, name: str, term: Callable[[str], str], lower_case: bool):
        super().__init__(name, standard_tokenize, term)
        self.lower_case = lower_case

    def token_terms(self, tokens: list[str]) -> list[str]:
        """The term of each token ("" when the chain drops it)."""
        return list(map(self._term, tokens))

    surface_terms = token_terms  # ASCII tokens lower-cased (lower_case): the same terms

    def compiled(self, vocab=None, grow: bool = True):
        """This chain in compiled code (analysis/compiled.py), with the vocabulary `vocab` (a ByteTable;
        `grow` off: fixed, terms outside it dropped)."""
        from .compiled import CompiledChain

        return CompiledChain(self, vocab, grow)


