"""Mr. TyDi ja: Lucene's JapaneseAnalyzer (Kuromoji, SEARCH mode) over the same IPADIC."""
from __future__ import annotations

from .cjk import cjk_width, java_lower
from .filters import CACHE_LIMIT, missing_extra, stop_words
from .kuromoji import Kuromoji


class JapaneseAnalyzer:
    """Lucene JapaneseAnalyzer (Kuromoji, IPADIC, SEARCH mode):

    CJKWidthCharFilter → JapaneseTokenizer (SEARCH mode, punctuation and compound tokens
    discarded) → JapaneseBaseFormFilter → JapanesePartOfSpeechStopFilter (Lucene's stoptags) →
    StopFilter (Lucene's list, ignoring case) → JapaneseKatakanaStemFilter (drop a final ー from
    katakana words of 4+ characters) → LowerCaseFilter.

    The tokenizer is Kuromoji's search itself (`kuromoji.Kuromoji`: its lattice, Viterbi search,
    commits and SEARCH-mode decompounding, compiled) over the `ipadic` package's dictionary files,
    which hold the dictionary Lucene's Kuromoji is built from. The filters are applied per token
    and memoised by the token's entry and surface. `compiled()`: the same chain over a chunk's bytes
    in compiled code (japanese_compiled.py), for indexing.
    """

    name = "japanese"

    def __init__(self) -> None:
        try:
            import ipadic
        except ImportError:
            raise missing_extra("japanese", "ipadic") from None

        self.kuromoji = Kuromoji(ipadic.DICDIR)
        self._stop = stop_words("ja")
        self._stop_tags = stop_words("ja_stoptags")
        self._pos_stopped: dict[tuple, bool] = {}  # part of speech (4 fields) → in the stop tags
        self._terms: dict[tuple[int, int, str], tuple[str, ...]] = {}  # (stat, token, surface) → terms

    def analyze_many(self, texts: list[str]) -> list[list[str]]:
        return [self(t) for t in texts]

    def __call__(self, text: str) -> list[str]:
        text = cjk_width(text)
        memo = self._terms
        if len(memo) > CACHE_LIMIT:
            memo.clear()
        out: list[str] = []
        for start, end, stat, token in self.kuromoji.tokens(text).tolist():
            surface = text[start:end]
            terms = memo.get((stat, token, surface))
            if terms is None:
                terms = memo[stat, token, surface] = self._token_terms(surface, stat, token)
            out += terms
        return out

    def _token_terms(self, surface: str, stat: int, token: int) -> tuple[str, ...]:
        """The filters' output for one token: nothing, or its base form (the surface where the
        entry has none) lower-cased, a final ー dropped from a katakana word of 4+ characters."""
        f = self.kuromoji.feature(stat, token).split(",")
        pos = tuple(f[:4])
        stopped = self._pos_stopped.get(pos)
        if stopped is None:
            stopped = self._pos_stopped[pos] = "-".join(x for x in pos if x != "*") in self._stop_tags
        if stopped:
            return ()
        term = java_lower(f[6] if len(f) > 6 and f[6] != "*" else surface)  # base form
        if term in self._stop:
            return ()
        if len(term) >= 4 and term[-1] == "\u30fc" and all("\u30a0" <= c <= "\u30ff" for c in term):
            term = term[:-1]  # JapaneseKatakanaStemFilter (katakana have no lower case)
        return (term,)

    def entry_term(self, stat: int, token: int, surface: str) -> str:
        """The term of one token (its entry and surface), "" when the filters drop it."""
        terms = self._token_terms(surface, stat, token)
        return terms[0] if terms else ""

    def compiled(self, vocab=None, grow: bool = True):
        """This chain in compiled code (japanese_compiled.py), with the vocabulary `vocab` (a ByteTable;
        `grow` off: fixed, terms outside it dropped)."""
        from .japanese_compiled import CompiledJapanese

        return CompiledJapanese(self, vocab, grow)
