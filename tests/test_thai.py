"""The `thai` analyzer: the JDK's dictionary word break (re-implemented) over the JDK's Thai word list.

The search itself is checked on small word lists, with the segmentations worked out by hand from
the JDK's algorithm (`sounding.analysis.thai._divide`); the analyzer's segments are ones the JDK's
own BreakIterator (java.text.BreakIterator.getWordInstance for th, which Lucene's ThaiTokenizer
uses) gives for the same strings.
"""
from __future__ import annotations

import numpy as np
import pytest

from sounding.analysis import thai


def _segments(words: list[str], text: str) -> list[str]:
    """The kept segments of the dictionary ranges of `text` (and the stretches between them) under
    a word list of `words`."""
    cps = np.frombuffer(text.encode("utf-32-le"), np.int32)
    spans = thai._compiled()(cps, thai._char_classes(), thai.trie_array(words)).tolist()
    return [text[max(s, -1 - s) : e] for s, e in zip(spans[1::2], spans[2::2])]


# ---------------------------------------------------------------------------------------------
# The dictionary search
def test_longest_word_wins():
    assert _segments(["ก่อ", "ก่อตั้ง", "ตั้ง"], "ก่อตั้ง") == ["ก่อตั้ง"]
    assert _segments(["ก่อ", "ตั้ง"], "ก่อตั้ง") == ["ก่อ", "ตั้ง"]


def test_search_backs_up_to_an_earlier_word_end():
    # กขค is the longest word from the start, but nothing starts with ง: back up to กข, then คง
    assert _segments(["กข", "กขค", "คง"], "กขคง") == ["กข", "คง"]


def test_unknown_stretch_joins_the_word_after_it():
    # จ starts no word: the breaks that led furthest (after คง) are kept, and the search starts
    # again after จ, so กขจ joins คง
    assert _segments(["กข", "คง"], "คงกขจคง") == ["คง", "กขจคง"]
    # with no break kept before the unknown character, the whole range is one segment
    assert _segments(["กข", "คง"], "กขจคง") == ["กขจคง"]


def test_character_nothing_starts_from_is_a_segment_of_its_own():
    assert _segments(["กข"], "จกข") == ["จ", "กข"]


def test_range_read_with_fewer_than_two_dictionary_characters_is_one_segment():
    words = ["ก", "ๆ"]
    assert _segments(words, "กๆ") == ["กๆ"]  # the rules read ก only: not divided
    assert _segments(words, "กๆก") == ["ก", "ๆ", "ก"]  # they also read the ก after ๆ: divided


def test_stretches_between_ranges_are_marked_when_they_hold_a_letter_or_digit():
    cps = np.frombuffer("กข ABC คง ?".encode("utf-32-le"), np.int32)
    spans = thai._compiled()(cps, thai._char_classes(), thai.trie_array(["กข", "คง"])).tolist()
    # a flag (a stretch with a letter or digit exists), then (start, end) pairs, a stretch's start
    # as -1 - start; " ?" holds neither
    assert spans == [1, 0, 2, -3, 7, 7, 9]
    cps = np.frombuffer("กข ? คง".encode("utf-32-le"), np.int32)
    assert thai._compiled()(cps, thai._char_classes(), thai.trie_array(["กข", "คง"])).tolist() == [0, 0, 2, 5, 7]


def test_trie_walks_dense_and_sparse_states_alike():
    """A state with many transitions (ก below: nine) is looked up by character, one with few
    (ค) through its sorted edges; a code's low bit marks a word's end."""
    thai._compiled()
    words = ["ก", "ค", "คง", "ขคง", "ฎ"] + ["ก" + c for c in "กขคงจฉชซฌ"]
    trie = thai.trie_array(words)
    assert trie[1] == 1  # one dense row: ก's

    def walk(text):
        code = 0
        for c in text:
            code = thai._next_state(trie, code, ord(c))
            if code <= 0:
                return code
        return code

    for word in words:
        assert walk(word) > 0 and walk(word) & 1, word
    assert walk("ขค") > 0 and not walk("ขค") & 1  # on the way to a word, not one
    # no word goes on with the character (from a dense, a sparse, an edgeless state and the root)
    assert walk("กฎ") == 0 and walk("คจ") == 0 and walk("กกก") == 0 and walk("ฉ") == 0
    assert thai._next_state(trie, walk("คง"), ord("a")) == -1  # not a word-list character, a word ends
    assert thai._next_state(trie, 0, ord("a")) == 0  # at the root no word ends


def test_word_list_takes_thai_characters_only():
    with pytest.raises(ValueError, match="outside the Thai block"):
        thai.trie_array(["กข", "abc"])


def test_packaged_word_list_is_the_jdks_with_its_licence():
    text = (thai.resources.files(thai.__package__) / thai._WORDS_FILE).read_text("utf-8")
    words = [line for line in text.splitlines() if line and not line.startswith("#")]
    assert len(words) == 31_992 and "ก่อตั้ง" in words and "ประเทศไทย" not in words
    assert words == sorted(words)
    assert "The Royal Institute, Thai Royal Government" in text and "Permission is hereby granted" in text


# ---------------------------------------------------------------------------------------------
# The analyzer: segments the JDK's BreakIterator gives for the same strings, less those
# ThaiTokenizer drops
JDK_SEGMENTS = [
    ("ภาษาไทย", ["ภาษา", "ไทย"]),
    ("บริษัทก่อตั้งขึ้นในปี", ["บริษัท", "ก่อตั้ง", "ขึ้น", "ใน", "ปี"]),  # ICU's list lacks ก่อตั้ง
    ("ของประเทศฝ", ["ของประเทศฝ"]),  # no word ends before ฝ: the breaks that led furthest go too
    ("กๆ", ["กๆ"]),
    ("คนฯลฯดี", ["คน", "ฯลฯ", "ดี"]),  # ฯลฯ is a range of its own
    ("กรุงเทพฯ", ["กรุงเทพฯ"]),
    ("ไทย\u200bดี", ["ไทย\u200bดี"]),  # a format character inside a range belongs to it
    ("ช่องCCTVมี", ["ช่อง", "CCTV", "มี"]),
    ("วง KAT-TUN ได้ 99% ไหม", ["วง", "KAT-TUN", "ได้", "99%", "ไหม"]),
    ("ราคา $100 บาท", ["ราคา", "บาท"]),  # $100 is one segment, dropped: it starts with $
    ("๑๒๓ ครั้ง", ["๑๒๓", "ครั้ง"]),
]


@pytest.mark.parametrize("text, segments", JDK_SEGMENTS)
def test_analyzer_segments_as_the_jdk(text, segments):
    pytest.importorskip("icu")
    assert thai.ThaiAnalyzer().segments(text) == segments


def test_analyzer_terms():
    pytest.importorskip("icu")
    th = thai.ThaiAnalyzer()
    # Lucene 9.9.1's terms for two Mr. TyDi topics (the oracle's); เป็น, ใน, ได้, รับ and จาก are stop words
    assert th("ใครเป็นผู้ก่อการ ใน เหตุโจมตีในนอร์เวย์ พ.ศ. 2554?") == [
        "ใคร", "ผู้", "ก่อการ", "เหตุ", "โจมตี", "นอร์เวย์", "พ", "ศ", "2554"]
    assert th("อหังการ์ราชันย์ยักษ์ ได้รับรางวัลการ์ตูนไทยยอดเยี่ยมประจำปี 2553 จากงานใคร?") == [
        "อหังการ์ราชันย์", "ยักษ์", "รางวัล", "การ์ตูน", "ไทย", "ยอด", "เยี่ยม", "ประจำ", "ปี", "2553", "งาน", "ใคร"]
    assert th("") == [] and th("   ?") == []


def test_thai_only_texts_take_the_same_terms_as_mixed_ones():
    """A text of Thai runs alone takes a shorter path (its segments are their own terms) than one
    with other letters or digits between the runs: both drop the same stop words (ขึ้น, ใน)."""
    pytest.importorskip("icu")
    th = thai.ThaiAnalyzer()
    text = "บริษัทก่อตั้งขึ้นในปี กรุงเทพฯ คนฯลฯดี ไทย\u200bดี?"
    terms = ["บริษัท", "ก่อตั้ง", "ปี", "กรุงเทพฯ", "คน", "ฯลฯ", "ดี", "ไทย\u200bดี"]
    assert th(text) == terms
    assert th("ABC " + text) == ["abc", *terms] and th(text + " ๑๒") == [*terms, "12"]


def test_range_characters_are_their_own_terms():
    """The analyzer takes a dictionary range's segments as terms without lowercasing or the digit
    filter: every character a range can hold is left as it is by both."""
    from sounding.analysis.cjk import java_lower
    from sounding.analysis.filters import decimal_digits

    classes = thai._char_classes()
    chars = [chr(c) for c in range(0x10000) if classes[c] & (thai._DICT | thai._IGNORE)] + ["ๆ", "ฯ"]
    assert len(chars) > 1000 and "\u200b" in chars and "\u0301" in chars
    assert [c for c in chars if decimal_digits(java_lower(c)) != c] == []


def test_analyzer_gives_the_same_terms_from_many_threads():
    """ICU's BreakIterator holds the text it breaks: each thread gets its own, so texts analysed at
    once in several threads get the terms they get alone."""
    pytest.importorskip("icu")
    from concurrent.futures import ThreadPoolExecutor

    texts = [f"ราคา {i} บาท ช่องCCTVมี ภาษาไทยเป็นภาษาราชการ KAT-TUN {i}%" for i in range(400)]
    alone = [thai.ThaiAnalyzer()(t) for t in texts]
    th = thai.ThaiAnalyzer()
    with ThreadPoolExecutor(4) as pool:
        assert list(pool.map(th, texts)) == alone
