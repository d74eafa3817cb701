"""Lucene parity of the `english-lucene` analysis: StandardTokenizer, filters and Porter stemmer.

Expected tokens are Lucene 9.9's (the Lucene inside Anserini/Pyserini), checked by hand against
LuceneOracle.java (tests/comparison/lucene_oracle): cases from Lucene's TestStandardAnalyzer and
UAX#29's word-break tests, plus one case per difference class Sounding used to get wrong.
"""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sounding.analysis import get_analyzer
from sounding.analysis.english import java_lower
from sounding.analysis.porter import LuceneStemmer, lucene_porter
from sounding.analysis.standard import MAX_TOKEN_LENGTH, _ascii_tokens, _scan, standard_tokenize

B255 = "b" * 255

TOKENIZER_CASES = [
    # TestStandardAnalyzer
    ("", []),
    (".", []),
    (" ", []),
    ("B2B", ["B2B"]),
    ("2B", ["2B"]),
    ("some-dashed-phrase", ["some", "dashed", "phrase"]),
    ("dogs,chase,cats", ["dogs", "chase", "cats"]),
    ("ac/dc", ["ac", "dc"]),
    ("O'Reilly's you're don't", ["O'Reilly's", "you're", "don't"]),
    ("21.35 R2D2 C3PO 216.239.63.104", ["21.35", "R2D2", "C3PO", "216.239.63.104"]),
    ("foo      bar .  FOO <> BAR", ["foo", "bar", "FOO", "BAR"]),
    ('"QUOTED" word', ["QUOTED", "word"]),
    ("A:B A::B 1.2 A.B 1..2 A..B 1,2 1,,2", ["A:B", "A", "B", "1.2", "A.B", "1", "2", "A", "B", "1,2", "1", "2"]),
    ("A.:B A:.B 1,.2 1.,2", ["A", "B", "A", "B", "1", "2", "1", "2"]),
    ("A:B_A:B A:B_A::B 1.2_1.2 1.2_1..2 1,2_1,,2", ["A:B_A:B", "A:B_A", "B", "1.2_1.2", "1.2_1", "2", "1,2_1", "2"]),
    ("C_A.:B C_A:.B 3_1,.2 3_1.,2", ["C_A", "B", "C_A", "B", "3_1", "2", "3_1", "2"]),
    ("mo\u0364chte", ["mo\u0364chte"]),  # LUCENE-1545: a combining mark stays inside the word
    ("Γράφεται σε συνεργασία, wiki.", ["Γράφεται", "σε", "συνεργασία", "wiki"]),
    ("การที่ได้ต้องแสดงว่างานดี. แล้วเธอจะไปไหน? ๑๒๓๔", ["การที่ได้ต้องแสดงว่างานดี", "แล้วเธอจะไปไหน", "๑๒๓๔"]),
    ("我是中国人。 １２３４ Ｔｅｓｔｓ ", ["我", "是", "中", "国", "人", "１２３４", "Ｔｅｓｔｓ"]),
    ("仮名遣い カタカナ", ["仮", "名", "遣", "い", "カタカナ"]),
    ("안녕하세요 한글입니다", ["안녕하세요", "한글입니다"]),
    ("𩬅艱鍟䇹愯瀛", ["𩬅", "艱", "鍟", "䇹", "愯", "瀛"]),
    ("💩 💩💩", ["💩", "💩", "💩"]),
    ("poo💩poo 💩中國💩", ["poo", "💩", "poo", "💩", "中", "國", "💩"]),
    ("🇺🇸🇺🇸", ["🇺🇸", "🇺🇸"]),
    ("#\ufe0f\u20e3 3\ufe0f\u20e3", ["#\ufe0f\u20e3", "3\ufe0f\u20e3"]),
    ("#\ufe0e", []),
    ("3\ufe0e", ["3\ufe0e"]),
    ("\u2b55\ufe0e\u200d\u2b55\ufe0e", ["\u2b55", "\u200d\u2b55"]),
    ("👩\u200d❤\ufe0f\u200d👩", ["👩\u200d❤\ufe0f\u200d👩"]),  # emoji ZWJ sequence
    ("👨🏼\u200d⚕\ufe0f", ["👨🏼\u200d⚕\ufe0f"]),  # ... with a skin-tone modifier
    ("🏴\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f", ["🏴\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f"]),
    # UAX#29 word-break rules
    ("can't can\u2019t", ["can't", "can\u2019t"]),  # WB6/7: MidNumLet between letters
    ("e\u0301t\u00e9 \u00ad", ["e\u0301t\u00e9"]),  # WB4: Extend/Format attach; alone they are nothing
    ("a\u00b7b 3\u066b4", ["a\u00b7b", "3\u066b4"]),  # MidLetter U+00B7; U+066B is Numeric
    ("\u05d0\"\u05d1 \u05d0'", ["\u05d0\"\u05d1", "\u05d0'"]),  # WB7a-c: Hebrew letters and quotes
    ("\u30ab_\u30ab \u30abx", ["\u30ab_\u30ab", "\u30ab", "x"]),  # WB13/13a/13b: Katakana, ExtendNumLet
    ("___ _a_", ["_a_"]),  # ExtendNumLet joins but is no word alone
    # difference classes Sounding used to get wrong
    ("© 2013 Elsevier Ltd.", ["©", "2013", "Elsevier", "Ltd"]),  # emoji: © ® ™ are tokens (Extended_Pictographic)
    ("Sigma-Aldrich®, Drug™, A↔B ‼", ["Sigma", "Aldrich", "®", "Drug", "™", "A", "↔", "B", "‼"]),
    ("a\u202fb", ["a\u202fb"]),  # NARROW NO-BREAK SPACE is ExtendNumLet in Lucene's tables, not a break
    ("\U00010e80\U00010e81 x", ["x"]),  # Yezidi letters (Unicode 13) are unassigned in Lucene's Unicode 12.1
    # the 255-unit scanner buffer
    ("x " + B255 + " " + B255 + "b", ["x", B255, B255, "b"]),  # testMaxTokenLengthDefault
    ("a" * 254 + ".b", ["a" * 254, "b"]),  # the join would need the 256th unit: not made
    ("1" * 300, ["1" * 255, "1" * 45]),
    ("\U0001d400" * 128, ["\U0001d400" * 127, "\U0001d400"]),  # astral letters count two units
]


@pytest.mark.parametrize("text,expected", TOKENIZER_CASES)
def test_tokenizer_matches_lucene(text, expected):
    assert standard_tokenize(text) == expected
    assert _scan(text) == expected  # the automaton alone, without the fast paths


ANALYZER_CASES = [
    ("The quick brown foxes' dens", ["quick", "brown", "fox", "den"]),
    ("JOHN'S dog’S cat＇s", ["john", "dog", "cat"]),  # possessives, before lower-casing
    ("İstanbul ΟΔΟΣ", ["istanbul", "οδοσ"]),  # Java's simple lower-casing (not "i̇stanbul", "οδος")
    ("© 2013 Elsevier Ltd. All rights reserved.", ["©", "2013", "elsevi", "ltd", "all", "right", "reserv"]),
    ("biology physiology possibly", ["biologi", "physiolog", "possibl"]),
    ("trekking revving", ["trek", "rev"]),  # Lucene undoubles kk, vv after -ing; Snowball does not
    ("a an and are as at be but by for if in into is it no not of on or such", []),
    ("that the their then there these they this to was will with", []),
]


@pytest.mark.parametrize("text,expected", ANALYZER_CASES)
def test_english_lucene_matches_lucene(text, expected):
    assert get_analyzer("english-lucene")(text) == expected


def test_java_lower():
    assert java_lower("İSTANBUL") == "istanbul"
    assert java_lower("ΟΔΟΣ ΣΑΣ") == "οδοσ σασ"
    assert java_lower("Ǆ") == "ǆ"
    assert java_lower("ABC") == "abc"


# Lucene's PorterStemFilter outputs, from the oracle.
PORTER = {
    "caresses": "caress", "ponies": "poni", "ties": "ti", "cats": "cat", "feed": "feed", "agreed": "agre",
    "disabled": "disabl", "matting": "mat", "mating": "mate", "meeting": "meet", "milling": "mill",
    "messing": "mess", "meetings": "meet", "generalization": "gener", "archaeology": "archaeolog",
    "tyyed": "ty", "owwing": "ow", "as": "as", "yes": "ye", "\U0001d400s": "\U0001d400",
}


def test_porter_known_outputs():
    assert {w: lucene_porter(w) for w in PORTER} == PORTER
    assert LuceneStemmer().stem_words(list(PORTER)) == list(PORTER.values())


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text("abcdeghiklmnoprstuvwxyz", min_size=1, max_size=12), max_size=30))
def test_porter_fast_path_agrees_with_port(words):
    assert LuceneStemmer().stem_words(words) == [lucene_porter(w) for w in words]


ASCII = st.text(st.sampled_from("aZ09_.,;:'\"#*- \t\n"), max_size=60)


@settings(max_examples=200, deadline=None)
@given(ASCII)
def test_ascii_fast_path_agrees_with_automaton(text):
    assert _ascii_tokens(text, 0, len(text)) == _scan(text)


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(["a", "ab1", "a.", "1,", "_", "a'b"]), st.integers(200, 300), st.sampled_from(["", ".b", " z", "'s"]))
def test_long_ascii_runs_agree_with_automaton(unit, n, tail):
    text = unit * n + tail
    assert standard_tokenize(text) == _scan(text)
    assert all(len(t) <= MAX_TOKEN_LENGTH for t in standard_tokenize(text))


MIXED = st.text(
    st.one_of(
        st.sampled_from(list("aZ09_.,;:'\" \t\n\u00a0\u202f\u2019©®™é\u0301\u200d\ufe0f\u20e3あア中กי\"")),
        st.characters(codec="utf-8"),
    ),
    max_size=40,
)


@settings(max_examples=200, deadline=None)
@given(MIXED)
def test_chunked_paths_agree_with_automaton(text):
    assert standard_tokenize(text) == _scan(text)
