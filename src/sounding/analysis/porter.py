"""Lucene's Porter stemmer (org.apache.lucene.analysis.en.PorterStemmer), exactly.

Lucene's stemmer is Porter's C/Java "release 3", which departs from the published algorithm that
Snowball's `porter` (PyStemmer) implements: words under 3 UTF-16 units are never stemmed, step 2
maps "-bli" to "-ble" (not "-abli" to "-able") and adds "-logi" → "-log", and step 1b undoubles
every doubled consonant left by removing -ed/-ing except l, s and z (Snowball: only bb dd ff gg mm
nn pp rr tt). Those departures change real terms ("physiology" → "physiolog" in Lucene, "physiologi"
in Snowball; "possibly" → "possibl" / "possibli"; "trekking" → "trek" / "trekk"), so Lucene parity
needs this port. For speed, `LuceneStemmer` sends plain lower-case words that cannot hit a
departure to PyStemmer and only the rest through the port below (tests check both paths agree).
"""
from __future__ import annotations

import re

import Stemmer

STEP3 = {
    "a": (("ational", "ate"), ("tional", "tion")),
    "c": (("enci", "ence"), ("anci", "ance")),
    "e": (("izer", "ize"),),
    "l": (("bli", "ble"), ("alli", "al"), ("entli", "ent"), ("eli", "e"), ("ousli", "ous")),
    "o": (("ization", "ize"), ("ation", "ate"), ("ator", "ate")),
    "s": (("alism", "al"), ("iveness", "ive"), ("fulness", "ful"), ("ousness", "ous")),
    "t": (("aliti", "al"), ("iviti", "ive"), ("biliti", "ble")),
    "g": (("logi", "log"),),
}
STEP4 = {
    "e": (("icate", "ic"), ("ative", ""), ("alize", "al")),
    "i": (("iciti", "ic"),),
    "l": (("ical", "ic"), ("ful", "")),
    "s": (("ness", ""),),
}
STEP5 = {
    "a": ("al",), "c": ("ance", "ence"), "e": ("er",), "i": ("ic",), "l": ("able", "ible"),
    "n": ("ant", "ement", "ment", "ent"), "o": ("ion", "ou"), "s": ("ism",), "t": ("ate", "iti"),
    "u": ("ous",), "v": ("ive",), "z": ("ize",),
}


class _Word:
    """The Java stemmer's state: buffer b, end index k, suffix start j (k0 is always 0)."""

    __slots__ = ("b", "k", "j")

    def __init__(self, word: str):
        self.b = list(word)
        self.k = len(word) - 1
        self.j = 0

    def cons(self, i: int) -> bool:
        c = self.b[i]
        if c in "aeiou":
            return False
        if c == "y":
            return True if i == 0 else not self.cons(i - 1)
        return True

    def m(self) -> int:
        n, i, j = 0, 0, self.j
        while True:
            if i > j:
                return n
            if not self.cons(i):
                break
            i += 1
        i += 1
        while True:
            while True:
                if i > j:
                    return n
                if self.cons(i):
                    break
                i += 1
            i += 1
            n += 1
            while True:
                if i > j:
                    return n
                if not self.cons(i):
                    break
                i += 1
            i += 1

    def vowelinstem(self) -> bool:
        return any(not self.cons(i) for i in range(0, self.j + 1))

    def doublec(self, j: int) -> bool:
        return j >= 1 and self.b[j] == self.b[j - 1] and self.cons(j)

    def cvc(self, i: int) -> bool:
        if i < 2 or not self.cons(i) or self.cons(i - 1) or not self.cons(i - 2):
            return False
        return self.b[i] not in "wxy"

    def ends(self, s: str) -> bool:
        o = self.k - len(s) + 1
        if o < 0 or "".join(self.b[o : self.k + 1]) != s:
            return False
        self.j = self.k - len(s)
        return True

    def setto(self, s: str) -> None:
        o = self.j + 1
        self.b[o : o + len(s)] = list(s)
        self.k = self.j + len(s)

    def r(self, s: str) -> None:
        if self.m() > 0:
            self.setto(s)

    def step1(self) -> None:
        b = self.b
        if b[self.k] == "s":
            if self.ends("sses"):
                self.k -= 2
            elif self.ends("ies"):
                self.setto("i")
            elif b[self.k - 1] != "s":
                self.k -= 1
        if self.ends("eed"):
            if self.m() > 0:
                self.k -= 1
        elif (self.ends("ed") or self.ends("ing")) and self.vowelinstem():
            self.k = self.j
            if self.ends("at"):
                self.setto("ate")
            elif self.ends("bl"):
                self.setto("ble")
            elif self.ends("iz"):
                self.setto("ize")
            elif self.doublec(self.k):
                ch = b[self.k]
                self.k -= 1
                if ch in "lsz":
                    self.k += 1
            elif self.m() == 1 and self.cvc(self.k):
                self.setto("e")

    def step2(self) -> None:
        if self.ends("y") and self.vowelinstem():
            self.b[self.k] = "i"

    def step3(self) -> None:
        if self.k == 0:
            return
        for suffix, repl in STEP3.get(self.b[self.k - 1], ()):
            if self.ends(suffix):
                self.r(repl)
                return

    def step4(self) -> None:
        for suffix, repl in STEP4.get(self.b[self.k], ()):
            if self.ends(suffix):
                self.r(repl)
                return

    def step5(self) -> None:
        if self.k == 0:
            return
        for suffix in STEP5.get(self.b[self.k - 1], ()):
            if self.ends(suffix):
                if suffix == "ion" and not (self.j >= 0 and self.b[self.j] in "st"):
                    continue
                if self.m() > 1:
                    self.k = self.j
                return

    def step6(self) -> None:
        self.j = self.k
        if self.b[self.k] == "e":
            a = self.m()
            if a > 1 or (a == 1 and not self.cvc(self.k - 1)):
                self.k -= 1
        if self.b[self.k] == "l" and self.doublec(self.k) and self.m() > 1:
            self.k -= 1


def lucene_porter(word: str) -> str:
    """Stem one lower-case word exactly as Lucene's PorterStemFilter does."""
    if not word.isascii() and max(word) > "\uffff":
        # Java stems UTF-16 units: an astral character is two "consonants", and counts twice
        # towards the 3-unit minimum. (No rule can cut between the two halves of a pair.)
        units = "".join(c if c <= "\uffff" else _surrogates(ord(c)) for c in word)
        return _stem(units).encode("utf-16-le", "surrogatepass").decode("utf-16-le")
    return _stem(word)


def _surrogates(cp: int) -> str:
    return chr(0xD7C0 + (cp >> 10)) + chr(0xDC00 + (cp & 0x3FF))


def _stem(word: str) -> str:
    if len(word) <= 2:
        return word
    w = _Word(word)
    w.step1()
    w.step2()
    w.step3()
    w.step4()
    w.step5()
    w.step6()
    return "".join(w.b[: w.k + 1])


# Words PyStemmer's Snowball porter stems identically: plain a-z without the letters that can reach
# Lucene's departures: "bl" (-bli → -ble), "log" (-logi → -log), and the doubled consonants that
# Lucene undoubles after removing -ed/-ing but Snowball keeps (Snowball undoubles only bb dd ff gg
# mm nn pp rr tt: "trekking" → Lucene "trek", Snowball "trekk"). Everything else goes to the port.
_SNOWBALL_SAFE = re.compile(r"(?!.*(?:bl|log|cc|hh|jj|kk|qq|vv|ww|xx|yy))[a-z]{3,}")


# Every Porter rule tests for some letter a-z at the end of the word ("s", "eed", "y", "e", "l", ...):
# a word with none (numbers such as "0.05", "1,000") comes out unchanged. Scientific text has many.
_NO_RULE_LETTER = re.compile(r"[^a-z]*")


class LuceneStemmer:
    """Batch stemmer with Lucene's output; PyStemmer (C) where provably identical."""

    def __init__(self) -> None:
        self._snowball = Stemmer.Stemmer("porter")

    def stem_words(self, words: list[str]) -> list[str]:
        safe = [w for w in words if _SNOWBALL_SAFE.fullmatch(w)]
        stems = dict(zip(safe, self._snowball.stemWords(safe)))
        return [stems[w] if w in stems else w if _NO_RULE_LETTER.fullmatch(w) else lucene_porter(w) for w in words]
