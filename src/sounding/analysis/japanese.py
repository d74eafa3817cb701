"""Mr. TyDi ja: Lucene's JapaneseAnalyzer (Kuromoji, SEARCH mode) emulated with MeCab + IPADIC."""
from __future__ import annotations

import re

import numpy as np

from .cjk import cjk_width, is_punctuation, java_lower
from .filters import CACHE_LIMIT, missing_extra, stop_words
from .mecab_lattice import CODE_POINTS, DECOMPOUND, NONE, RELATTICE, REPARSE, Lattice, compiled


# The SPACE class of IPADIC's char.def: the characters MeCab skips between tokens.
_IPADIC_SPACE = re.compile("[\t\n\x0b ]+")

# JapaneseTokenizer SEARCH mode (Lucene 9.x constants): a token of more than 2 characters, all
# kanji, costs (length - 2) * 3000 more; any other token of more than 7 characters (length - 7) * 1700.
_KANJI = re.compile("[\u2e80-\u2fdf\u3005-\u3007\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")


def search_penalty(surface: str) -> int:
    n = len(surface)
    if n <= 2:
        return 0
    if _KANJI.fullmatch(surface):
        return (n - 2) * 3000
    return (n - 7) * 1700 if n > 7 else 0


def _kuromoji_score(text: str, arcs: np.ndarray) -> tuple:
    """`_kuromoji_marks` for `text`."""
    return compiled()[1](arcs, np.frombuffer(text.encode("utf-32-le"), dtype=CODE_POINTS))


def _kana(c: str) -> str:
    """IPADIC's class of a character where MeCab makes unknown words of its first characters."""
    return "K" if "\u30a1" <= c <= "\u30fe" or "\u31f0" <= c <= "\u31ff" else "H" if "\u3041" <= c <= "\u309f" else ""


class _MaybeShort(tuple):
    """The terms of an unknown kana word of one or two characters: Kuromoji would not have it if
    the run of its class goes on after it."""


_PLAIN = "%m\\t%H\\n"  # surface, features: MeCab's cheapest output
_FLAGGED_STRETCHES = 20_000  # stretches whose terms are memoised (keyed by their text, which may be long)
_NODE = "%m\\t%phl %phr %c\\t%H\\n"  # surface, left and right context ids, word cost, features


class JapaneseAnalyzer:
    """Lucene JapaneseAnalyzer (Kuromoji, IPADIC, SEARCH mode) emulated with MeCab and the same IPADIC.

    CJKWidthCharFilter → JapaneseTokenizer (SEARCH mode, punctuation and compound tokens
    discarded) → JapaneseBaseFormFilter → JapanesePartOfSpeechStopFilter (Lucene's stoptags) →
    StopFilter (Lucene's list, ignoring case) → JapaneseKatakanaStemFilter (drop a final ー from
    katakana words of 4+ characters) → LowerCaseFilter.

    MeCab gives the NORMAL-mode Viterbi path over the same dictionary and connection costs.
    Kuromoji's differences are added on top of it:
    - unknown words never mix punctuation with other characters, so `・` splits katakana names
      (オリヴィア・デ・ハヴィランド → オリヴィア デ ハヴィランド; dictionary words like ル・マン stay);
    - its lattice has fewer unknown words (`_kuromoji_score`: a kanji unknown word is
      one character, 咸豊 → 咸 豊; a kana one runs to the end of its class); where MeCab's path
      uses one Kuromoji lacks, the text is searched again over the lattice without them;
    - SEARCH mode's decompounding (JapaneseTokenizer.backtrace): a token with a length penalty
      (`search_penalty`) is replaced by the best segmentation of its span in which every token
      pays its own penalty, when that costs no more than the token plus its penalty
      (関西国際空港 → 関西 国際 空港, 一元論 → 一元 論).
    Lattices are built from IPADIC's files as MeCab builds them and scored with its connection
    matrix (`Lattice`). MeCab's output is its plainest (surface and features, which it formats
    fastest); the ids and word costs a search needs come from the dictionary by surface and
    features (`Lattice.ids`), and from a MeCab pass with ids only where entries differ in them.

    Whitespace (char.def's SPACE class: tab, line feed, vertical tab, space) is a token in
    Kuromoji's lattice, and at the end of a run of it that token is the only path alive, so the
    search commits there (JapaneseTokenizer.parse, the "frontier" backtrace): the text is
    analysed stretch by stretch. Each stretch is parsed on its own here. Left as it is: MeCab
    joins a stretch to the sentence's start and end with their connection costs where Kuromoji
    has the space token's (温 家宝: 温い here, 温 in Lucene).
    """

    name = "japanese"

    def __init__(self) -> None:
        try:
            import fugashi
            import ipadic
        except ImportError:
            raise missing_extra("japanese", "fugashi and ipadic") from None

        self._parse = fugashi.GenericTagger(f'{ipadic.MECAB_ARGS} -F "{_PLAIN}" -U "{_PLAIN}"').parse
        self._parse_ids_tagger = None  # the same with ids and cost (_NODE), made if ever needed
        self._lattice = Lattice(ipadic.DICDIR, _IPADIC_SPACE, _kuromoji_score, False)
        self._stop = stop_words("ja")
        self._stop_tags = stop_words("ja_stoptags")
        self._pos_stopped: dict[tuple, bool] = {}  # part of speech (4 fields) → in the stop tags
        self._cache: dict[str, tuple[str, ...]] = {}
        self._parts: dict[tuple, tuple[str, ...] | None] = {}  # (right id, line, left id) → parts
        self._split_terms: dict[tuple, tuple] = {}  # (right id, line, left id) → terms, first left id
        self._split: dict[str, str] = {}  # unknown word → the same with its punctuation set apart
        self._line_ids: dict[str, tuple[int, int, int] | None] = {}  # plain line → its entry's ids, cost
        self._node_terms: dict[str, tuple[str, ...]] = {}  # line with ids → terms (SEARCH mode's parts)
        self._flagged_terms: dict[str, tuple[str, ...]] = {}  # stretch with a Kuromoji rule → terms

    def analyze_many(self, texts: list[str]) -> list[list[str]]:
        return [self(t) for t in texts]

    def __call__(self, text: str) -> list[str]:
        if len(self._cache) > CACHE_LIMIT:
            self._cache.clear()
            self._parts.clear()
            self._split_terms.clear()
            self._line_ids.clear()
            self._node_terms.clear()
            self._flagged_terms.clear()
        chunks = _IPADIC_SPACE.split(cjk_width(text))
        if len(chunks) == 1:
            return self._chunk(chunks[0]) if chunks[0] else []
        out: list[str] = []
        for chunk in chunks:
            if chunk:
                out += self._chunk(chunk)
        return out

    def _chunk(self, text: str) -> list[str]:
        """The terms of a text without IPADIC whitespace."""
        cache = self._cache
        lines = self._parse(text).split("\n")
        out: list[str] = []
        for i, line in enumerate(lines):
            terms = cache.get(line)
            if terms is None:
                terms = cache[line] = self._line_terms(line)
            if terms.__class__ is not tuple:  # a token with a Kuromoji rule (the flags are not plain tuples)
                found = self._flagged_terms.get(text)
                if found is None:
                    if len(self._flagged_terms) >= _FLAGGED_STRETCHES:
                        self._flagged_terms.clear()
                    found = self._flagged_terms[text] = tuple(self._flagged(text, lines, i, out))
                return list(found)
            out.extend(terms)
        return out

    def _flagged(self, text: str, lines: list[str], first: int, out: list[str]) -> list[str]:
        """`_chunk` where a token of MeCab's path (`lines`, plain) needs a Kuromoji rule: the
        first such is at `first`, the terms of the tokens before it are in `out`."""
        cache = self._cache
        penalised = []  # (line index, where its terms go in out) of tokens SEARCH mode may split
        lacking = []  # indexes of tokens Kuromoji's lattice lacks
        for i in range(first, len(lines)):
            line = lines[i]
            terms = cache.get(line)
            if terms is None:
                terms = cache[line] = self._line_terms(line)
            if terms.__class__ is tuple:
                out.extend(terms)
            elif terms is DECOMPOUND:
                penalised.append((i, len(out)))
            elif terms is RELATTICE:
                lacking.append(i)
            elif terms is REPARSE:
                split = self._split_punctuation(text, lines)
                if split == text:  # MeCab keeps the unknown word even so: split it all
                    split = self._split_punctuation(text, lines, keep_words=False)
                return self._chunk(split)
            else:  # _MaybeShort
                if _kana(line[line.index("\t") - 1]) == _kana(lines[i + 1][:1]):
                    lacking.append(i)  # the kana run goes on: Kuromoji has no such word
                out.extend(terms)
        if lacking:
            return self._kuromoji_lattice(text)
        if penalised:
            self._decompound_in_place(text, lines, penalised, out)
        return out

    def _parse_ids(self, text: str) -> list[str]:
        """MeCab's path over `text` as node lines with ids and cost (`_NODE`)."""
        if self._parse_ids_tagger is None:
            import fugashi
            import ipadic

            self._parse_ids_tagger = fugashi.GenericTagger(f'{ipadic.MECAB_ARGS} -F "{_NODE}" -U "{_NODE}"').parse
        return self._parse_ids_tagger(text).split("\n")

    def _ids(self, line: str) -> tuple[int, int, int] | None:
        """(left id, right id, word cost) of the entry a node line stands for: its own where the
        line has them (`_NODE`), else from the dictionary (`Lattice.ids`), memoised; None where
        entries alike but for their ids or cost leave it open."""
        surface, _, rest = line.partition("\t")
        ids, sep, _ = rest.partition("\t")
        if sep:
            lid, rid, cost = ids.split(" ")
            return int(lid), int(rid), int(cost)
        found = self._line_ids.get(line, NONE)
        if found is NONE:
            found = self._line_ids[line] = self._lattice.ids(surface, rest, with_cost=True)
        return found

    def _split_path(self, lines: list[str], penalised: list[tuple[int, int]], terms_of) -> list | None:
        """Each penalised token's terms in the context of its neighbours on MeCab's path, from the
        last to the first as Kuromoji's backtrace goes: the right id of the token before it (0 at
        the start) and the left id of the token after it, which is the first part's when that one
        was split itself, and −1 when none follows (Kuromoji adds no cost towards the end).
        `terms_of(line, prev_rid, next_lid)` gives (terms, first part's left id), memoised per
        context; returns [(place in out, terms)], last place first, or None where it gives None."""
        ids = self._ids
        memo = self._split_terms
        following, first_lid = len(lines), -1  # the line after the last split token, and its first part's left id
        found_terms = []
        for i, at in reversed(penalised):
            line = lines[i]
            if i + 1 == following:
                next_lid = first_lid
            elif "\t" in lines[i + 1]:
                next_lid = ids(lines[i + 1])[0]
            else:
                next_lid = -1
            prev_rid = ids(lines[i - 1])[1] if i else 0
            key = (prev_rid, line, next_lid)
            found = memo.get(key)
            if found is None:
                found = terms_of(line, prev_rid, next_lid)
                if found is None:
                    return None
                memo[key] = found
            terms, first_lid = found
            following = i
            found_terms.append((at, terms))
        return found_terms

    def _decompound_in_place(self, text: str, lines: list[str], penalised: list[tuple[int, int]],
                             out: list[str]) -> None:
        """SEARCH mode on MeCab's path (`lines`, plain) when only length penalties apply, as
        `_decompound_by_ids` does it, but with the ids and cost of each penalised token read from
        its own search's lattice (`_searched_terms`) instead of looked up: only its neighbours'
        are looked up. Where the dictionary leaves any of them open, `_decompound_by_ids` decides."""
        ids = self._ids
        for i, _ in penalised:
            if (i and ids(lines[i - 1]) is None) or ("\t" in lines[i + 1] and ids(lines[i + 1]) is None):
                return self._decompound_by_ids(text, lines, penalised, out)
        found_terms = self._split_path(lines, penalised, self._searched_terms)
        if found_terms is None:
            return self._decompound_by_ids(text, lines, penalised, out)
        for at, terms in found_terms:  # from the last place to the first, so that each is still right
            out[at:at] = terms

    def _searched_terms(self, line: str, prev_rid: int, next_lid: int) -> tuple[tuple, int] | None:
        """`_token_terms` for a plain line of a penalised token, its ids and cost read from the
        nodes of its own search's lattice that span it and have its features (among them MeCab's
        own node, since a lattice of the surface alone has every node of that span that the
        stretch's has), all in one compiled call (`Lattice.kuromoji_split`); None where those
        differ in them. A token starting with punctuation is not searched: its ids are looked up."""
        surface, _, features = line.partition("\t")
        if is_punctuation(surface[0]):
            own = self._ids(line)
            return None if own is None else (self._terms(surface, features.split(",")), own[0])
        lattice = self._lattice
        split, lid, rows = lattice.kuromoji_split(surface, features, search_penalty(surface), prev_rid, next_lid)
        if split < 0:
            return None
        if split:
            return tuple(t for part in lattice.row_lines(surface, rows) for t in self._part_terms(part)), lid
        return self._terms(surface, features.split(",")), lid

    def _decompound_by_ids(self, text: str, lines: list[str], penalised: list[tuple[int, int]],
                           out: list[str]) -> None:
        """SEARCH mode on MeCab's path (`lines`, with or without ids) when only length penalties
        apply: each penalised token is decompounded in the context of its neighbours (the path's
        token before it; after it, the first output token, which is the next token's first part if
        that one was split), from the last to the first, as Kuromoji's backtrace goes; its terms
        are put in `out` at their place. Where the dictionary leaves a token's ids open, MeCab's
        own (a pass with ids) decide."""
        ids = self._ids
        for i, _ in penalised:
            if ids(lines[i]) is None or (i and ids(lines[i - 1]) is None) or (
                    "\t" in lines[i + 1] and ids(lines[i + 1]) is None):
                lines = self._parse_ids(text)
                break
        found_terms = self._split_path(lines, penalised,
                                       lambda line, prev_rid, next_lid: self._token_terms(line, ids(line), prev_rid, next_lid))
        for at, terms in found_terms:  # from the last place to the first, so that each is still right
            out[at:at] = terms

    def _token_terms(self, line: str, own: tuple[int, int, int], prev_rid: int,
                     next_lid: int) -> tuple[tuple[str, ...], int]:
        """The terms of a penalised token (its node line, its ids and cost) between a right id and
        a left id (SEARCH mode), and the left id of its first part."""
        surface, _, rest = line.partition("\t")
        ids, sep, features = rest.partition("\t")
        lid, rid, wcost = own
        parts = None
        if not is_punctuation(surface[0]):
            key = (prev_rid, f"{surface}\t{lid} {rid} {wcost}\t{features if sep else ids}", next_lid)
            parts = self._parts.get(key, NONE)
            if parts is NONE:
                parts = self._parts[key] = self._decompound(surface, prev_rid, lid, rid, wcost,
                                                            search_penalty(surface), next_lid)
        if parts:
            terms = tuple(t for part in parts for t in self._part_terms(part))
            return terms, int(parts[0].partition("\t")[2].partition(" ")[0])
        return self._terms(surface, (features if sep else ids).split(",")), lid

    def _part_terms(self, line: str) -> tuple[str, ...]:
        """The terms of a node line with ids (a token SEARCH mode chose), memoised."""
        terms = self._node_terms.get(line)
        if terms is None:
            surface, _, rest = line.partition("\t")
            terms = self._node_terms[line] = self._terms(surface, rest.partition("\t")[2].split(","))
        return terms

    def _line_terms(self, line: str) -> tuple[str, ...]:
        surface, sep, rest = line.partition("\t")
        if not sep:
            return ()
        f = rest.split(",")  # a plain line (_PLAIN)
        if len(f) == 7:  # IPADIC unknown words have 7 features
            if any(map(is_punctuation, surface)) and not all(map(is_punctuation, surface)):
                return REPARSE
            if len(surface) > 1 and _KANJI.fullmatch(surface):
                return RELATTICE  # Kuromoji's unknown kanji words are single characters
            if len(surface) <= 2 and _kana(surface[0]) and _kana(surface[0]) == _kana(surface[-1]):
                return _MaybeShort(self._terms(surface, f))
        if search_penalty(surface):
            return DECOMPOUND
        return self._terms(surface, f)

    def _kuromoji_lattice(self, text: str) -> list[str]:
        """The best path over the lattice Kuromoji would build (MeCab's, less the unknown words
        Kuromoji does not make), then SEARCH mode on it."""
        if "\u30fb" in text:  # MeCab's unknown katakana words run across `・`, Kuromoji's stop at it
            inside = self._lattice.inside_words(text)
            text = "".join(" \u30fb " if c == "\u30fb" and not inside[i] else c for i, c in enumerate(text))
        text = text.strip(" ")  # spaces set around punctuation at its ends
        found = self._lattice.best(text, 0, 0, penalised=False)
        if found is None:
            return self._search_mode(self._parse_ids(text))
        return self._search_mode(self._lattice.lines(text, found[1]))

    def _terms(self, surface: str, f: list[str]) -> tuple[str, ...]:
        if not surface or is_punctuation(surface[0]):
            return ()
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

    def _split_punctuation(self, text: str, lines: list[str], keep_words: bool = True) -> str:
        """Kuromoji ends an unknown word where punctuation starts or stops; MeCab's character
        classes let `・` join katakana. The punctuation inside such unknown words is set apart by
        spaces, so that MeCab makes it a token of its own, as Kuromoji does, unless (`keep_words`)
        it lies inside a dictionary word there (ウォルト・ディズニー in ウォルト・ディズニー・カ),
        which both may keep."""
        cache = self._cache
        for line in lines:
            terms = cache.get(line)
            if terms is None:
                terms = cache[line] = self._line_terms(line)
            if terms is REPARSE:  # an unknown word with punctuation and other characters
                surface = line.partition("\t")[0]
                split = self._split.get(surface) if keep_words else None
                if split is None:
                    if len(self._split) > 100_000:
                        self._split.clear()
                    if keep_words:
                        covered = self._lattice.inside_words(surface).tolist()
                        split = "".join(f" {c} " if is_punctuation(c) and not covered[i] else c
                                        for i, c in enumerate(surface))
                    else:
                        split = "".join(f" {c} " if is_punctuation(c) else c for c in surface)
                    if keep_words:
                        self._split[surface] = split
                text = text.replace(surface, split)
        return text

    def _search_mode(self, lines: list[str]) -> list[str]:
        """Kuromoji's backtrace from the end: each penalised token on the best path is decompounded
        in the context of its neighbours (the best path's token before it, the output token after)."""
        nodes = []
        for line in lines:
            surface, sep, rest = line.partition("\t")
            if sep:
                ids = rest.partition("\t")[0].split(" ")
                nodes.append((surface, int(ids[0]), int(ids[1]), int(ids[2]), line))
        out_lines: list[str] = []
        next_lid = -1  # none after the last token: Kuromoji adds no cost towards the end
        for i in range(len(nodes) - 1, -1, -1):
            surface, lid, rid, wcost, line = nodes[i]
            parts = None
            penalty = search_penalty(surface) if not is_punctuation(surface[0]) else 0
            if penalty:
                prev_rid = nodes[i - 1][2] if i else 0
                key = (prev_rid, line, next_lid)
                if key in self._parts:
                    parts = self._parts[key]
                else:
                    parts = self._parts[key] = self._decompound(surface, prev_rid, lid, rid, wcost, penalty, next_lid)
            if parts:
                out_lines.extend(reversed(parts))
                next_lid = int(parts[0].split("\t")[1].split(" ")[0])
            else:
                out_lines.append(line)
                next_lid = lid
        out: list[str] = []
        for line in reversed(out_lines):
            out.extend(self._part_terms(line))
        return out

    def _decompound(self, surface, prev_rid, lid, rid, wcost, penalty, next_lid) -> tuple[str, ...] | None:
        """The lines of the best penalised segmentation of `surface`, or None to keep it whole."""
        lattice = self._lattice
        found = lattice.kuromoji_best(surface, prev_rid, next_lid)
        if found is None or len(found[1]) == 1:  # the best path is a token of the whole span
            return None
        max_cost = lattice.cost(prev_rid, lid) + wcost + penalty + lattice.cost(rid, next_lid)
        return tuple(lattice.row_lines(surface, found[1])) if found[0] <= max_cost else None
