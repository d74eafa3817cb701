"""Indonesian stemmer: org.apache.lucene.analysis.id.IndonesianStemmer (Lucene 9.x).

Fadillah Z. Tala, "A Study of Stemming Effects on Information Retrieval in Bahasa Indonesia"
(2003): particles (-kah, -lah, -pun), possessive pronouns (-ku, -mu, -nya), first-order prefixes
(meng-, peng-, di-, ter-, ke- and their allomorphs), second-order prefixes (ber-, per-, pe-) and
derivational suffixes (-kan, -an, -i), each step only while the word keeps more than two vowels
("syllables"), with the prefix/suffix exclusions recorded in flags as Lucene does.
"""
from __future__ import annotations

_VOWELS = frozenset("aeiou")

_KE, _PENG, _DI, _MENG, _TER, _BER, _PE = 1, 2, 4, 8, 16, 32, 64


class _State:
    __slots__ = ("word", "syllables", "flags")

    def __init__(self, word: str):
        self.word = word
        self.syllables = sum(c in _VOWELS for c in word)
        self.flags = 0

    def cut_prefix(self, n: int, flag: int = 0, replace: str = "") -> None:
        self.word = replace + self.word[n:]
        self.flags |= flag
        self.syllables -= 1

    def cut_suffix(self, n: int) -> None:
        self.word = self.word[:-n]
        self.syllables -= 1


def _remove_particle(st: _State) -> None:
    if st.word.endswith(("kah", "lah", "pun")):
        st.cut_suffix(3)


def _remove_possessive_pronoun(st: _State) -> None:
    if st.word.endswith(("ku", "mu")):
        st.cut_suffix(2)
    elif st.word.endswith("nya"):
        st.cut_suffix(3)


# (prefix, only before a vowel, flag, replacement) in IndonesianStemmer's order: the first that applies wins
_FIRST_ORDER = (
    ("meng", False, _MENG, ""), ("meny", True, _MENG, "s"), ("men", False, _MENG, ""), ("mem", False, _MENG, ""),
    ("me", False, _MENG, ""), ("peng", False, _PENG, ""), ("peny", True, _PENG, "s"), ("peny", False, _PENG, ""),
    ("pen", True, _PENG, "t"), ("pen", False, _PENG, ""), ("pem", False, _PENG, ""), ("di", False, _DI, ""),
    ("ter", False, _TER, ""), ("ke", False, _KE, ""),
)


def _remove_first_order_prefix(st: _State) -> None:
    w = st.word
    for prefix, before_vowel, flag, replace in _FIRST_ORDER:
        if w.startswith(prefix) and (not before_vowel or (len(w) > len(prefix) and w[len(prefix)] in _VOWELS)):
            st.cut_prefix(len(prefix), flag, replace)
            return


def _remove_second_order_prefix(st: _State) -> None:
    w = st.word
    if w.startswith("ber"):
        st.cut_prefix(3, _BER)
    elif len(w) == 7 and w.startswith("belajar"):
        st.cut_prefix(3, _BER)
    elif w.startswith("be") and len(w) > 4 and w[2] not in _VOWELS and w[3] == "e" and w[4] == "r":
        st.cut_prefix(2, _BER)
    elif w.startswith("per"):
        st.cut_prefix(3)
    elif len(w) == 7 and w.startswith("pelajar"):
        st.cut_prefix(3)
    elif w.startswith("pe"):
        st.cut_prefix(2, _PE)


def _remove_suffix(st: _State) -> None:
    w, f = st.word, st.flags
    if w.endswith("kan") and not f & (_KE | _PENG | _PE):
        st.cut_suffix(3)
    elif w.endswith("an") and not f & (_DI | _MENG | _TER):
        st.cut_suffix(2)
    elif w.endswith("i") and not w.endswith("si") and not f & (_BER | _KE | _PENG):
        st.cut_suffix(1)


def stem(word: str, derivational: bool = True) -> str:
    """IndonesianStemmer.stem(text, len, stemDerivational); IndonesianAnalyzer uses derivational=True."""
    st = _State(word)
    if st.syllables > 2:
        _remove_particle(st)
    if st.syllables > 2:
        _remove_possessive_pronoun(st)
    if derivational:
        before = st.word
        if st.syllables > 2:
            _remove_first_order_prefix(st)
        if st.word != before:  # a first-order prefix went: suffix, then (if one went) second order
            before = st.word
            if st.syllables > 2:
                _remove_suffix(st)
            if st.word != before and st.syllables > 2:
                _remove_second_order_prefix(st)
        else:  # no first-order prefix: second-order prefix, then suffix
            if st.syllables > 2:
                _remove_second_order_prefix(st)
            if st.syllables > 2:
                _remove_suffix(st)
    return st.word
