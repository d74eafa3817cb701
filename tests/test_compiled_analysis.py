"""Compiled analysis (analysis/compiled.py) gives the Python chain's tokens and terms.

The Python chains (english.py, standard.py, porter.py; languages.py's StandardTokenizer chains) are
the reference, themselves checked against Lucene (tests/test_english_analysis.py,
tests/test_languages.py, tests/comparison): every case here compares the two.
"""
import gzip
import importlib.util
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sounding.analysis import get_analyzer, list_analyzers
from sounding.analysis import compiled
from sounding.analysis.bytetable import ByteTable
from sounding.analysis.porter import LuceneStemmer
from sounding.analysis.porter_kernel import stem_words
from sounding.analysis.standard import scanner_arrays, standard_tokenize

from test_english_analysis import ANALYZER_CASES, TOKENIZER_CASES

CHAINS = ("english-lucene", "english-snowball")
# the Mr. TyDi languages whose chains start with the StandardTokenizer (Mr. TyDi code: analyzer)
LANGUAGES = {"ar": "arabic", "bn": "bengali", "fi": "finnish", "id": "indonesian", "ru": "russian", "te": "telugu"}


def reference(name: str):
    """A fresh Python chain (its own memo of terms)."""
    return next(a.factory for a in list_analyzers() if a.name == name)()


def test_scanner_shortcuts_hold():
    roles = compiled.ascii_roles(*scanner_arrays()[:3])
    assert (roles == compiled.ROLES).all()
    role = {chr(c): int(roles[c]) for c in range(128)}
    assert {role[c] for c in "azAZ09"} == {compiled.WORD}
    assert {role[c] for c in " \t\n-/()!?"} == {compiled.SKIP}
    assert {role[c] for c in ",.;:'"} == {compiled.JOIN}
    assert role['"'] == compiled.BREAK and role["_"] == compiled.SLOW


@pytest.mark.parametrize("text,expected", TOKENIZER_CASES)
def test_compiled_tokenizer_matches_lucene(text, expected):
    assert compiled.tokenize(text) == expected


@pytest.mark.parametrize("text,expected", ANALYZER_CASES)
def test_compiled_english_lucene_matches_lucene(text, expected):
    assert get_analyzer("english-lucene").compiled().terms([text]) == [expected]


TEXT = st.lists(
    st.one_of(
        st.sampled_from(list("aZsS09_.,;:'\" \t\n\u00a0\u202f\u2019\uff07©®™é\u0301\u200d\ufe0f\u20e3あア中กיİΣ\"")),
        st.sampled_from(["'s", "'S", "\u2019s", "\U0001F4A9", "\U0001d400", "\ud83d", "the", "The", "it's"]),
        st.characters(codec="utf-8"),
        st.characters(min_codepoint=0, max_codepoint=0x7F),
    ),
    max_size=60,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(st.lists(TEXT, min_size=1, max_size=8))
def test_compiled_chains_agree_with_python(texts):
    for text in texts:
        assert compiled.tokenize(text) == standard_tokenize(text)
    for name in CHAINS:
        assert get_analyzer(name).compiled().terms(texts) == [reference(name)(t) for t in texts]


# letters, marks and digits of the languages' scripts, upper and lower case where the script has them
SCRIPTS = list("МоскваЁёЙйЪъ" "القاهرةأإآـ٠١٢٣٤٥٦٧٨٩ً" "বাংলাদেশ্১২৩\u09bc" "తెలుగుభాష్౧౨౩" "ÄäÖöÅåŠšŽž" "IıİSsß") + [
    "\u200c", "\u200d", "\u0640", "\u064b", "\u09cd", "\u0c4d", "ja", "dan", "и", "في", "এবং", "మరియు", "vanhin",
    "python", "Pythonin", "pembacaan", "МОСКВЫ", "talojen"]
LANGUAGE_TEXT = st.lists(
    st.one_of(st.sampled_from(SCRIPTS), st.sampled_from(list("aZ09_.,;:'\" \t\n-\u00a0")), st.characters(codec="utf-8")),
    max_size=60,
).map("".join)


@settings(max_examples=200, deadline=None)
@given(st.lists(LANGUAGE_TEXT, min_size=1, max_size=8))
def test_compiled_language_chains_agree_with_python(texts):
    for name in LANGUAGES.values():
        assert get_analyzer(name).compiled().terms(texts) == [reference(name)(t) for t in texts], name


def test_compiled_language_chains_fold_ascii_as_their_chain_does():
    # Telugu's chain has no lower-case filter: its ASCII keys keep their case; the others fold them
    text = "Python python PYTHON Pythonin"
    assert get_analyzer("telugu").compiled().terms([text]) == [["Python", "python", "PYTHON", "Pythonin"]]
    assert get_analyzer("russian").compiled().terms([text]) == [["python", "python", "python", "pythonin"]]
    assert get_analyzer("finnish").compiled().terms([text]) == [reference("finnish")(text)]


def _vocabulary(name: str, texts: list[str]) -> ByteTable:
    vocab = ByteTable()
    vocab.add_all(sorted({t for text in texts for t in reference(name)(text)}))
    return vocab


@pytest.mark.parametrize("name", list(LANGUAGES.values()))
def test_compiled_language_queries_match_python(name):
    texts = ["Москва и МОСКВЫ москва", "القاهرة والكتاب ١٢٣", "বাংলাদেশ এবং বাংলা", "తెలుగు భాష Python",
             "Helsingissä ja vanhin python", "pembacaan dan membaca", "", "the The"]
    vocab = _vocabulary(name, texts[:4])  # the later texts' terms are mostly outside it: dropped
    words = vocab.keys()
    chain = get_analyzer(name).compiled(vocab, grow=False)
    for text in texts:
        want: dict[str, float] = {}
        for t in reference(name)(text):
            if t in words:
                want[t] = want.get(t, 0.0) + 1.0
        ids, counts = chain.query(text)
        assert dict(zip((words[i] for i in ids.tolist()), counts.tolist())) == want, text
        assert ids.dtype == np.int64 and list(want) == [words[i] for i in ids.tolist()]  # first occurrence first


def _random_texts(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    pool = list("aZ09_.,;:'\" \t\n\u00a0\u202f\u2019©®™é\u0301\u200d\ufe0f\u20e3あア中กי\"sS") + [
        "\U0001F4A9", "\U0001d400", "\ud83d", "İ", "Σ", "'s", "’S", " the ", " ing", "ed ", "B2B", "1,000.5"]
    words = ["caresses", "ponies", "trekking", "physiology", "possibly", "generalization", "running", "Agreed"]
    out = []
    for _ in range(n):
        parts = []
        for _ in range(rng.randint(0, 30)):
            x = rng.random()
            if x < 0.45:
                parts.append(rng.choice(pool))
            elif x < 0.6:
                parts.append(rng.choice(words))
            elif x < 0.9:
                parts.append(chr(rng.randint(32, 126)))
            else:
                parts.append(chr(rng.randint(0x80, 0x10FFFF)))
        out.append("".join(parts))
    return out


@pytest.mark.slow
def test_compiled_chains_on_100k_random_strings():
    texts = _random_texts(100_000, 20261205)
    for name in CHAINS:
        got = get_analyzer(name).compiled().terms(texts)
        ref = reference(name)
        assert [(t, g) for t, g in zip(texts, got) if g != ref(t)] == []
    assert [t for t in texts[:20_000] if compiled.tokenize(t) != standard_tokenize(t)] == []


@pytest.mark.slow
def test_compiled_language_chains_on_random_strings():
    rng = random.Random(20261206)
    pool = SCRIPTS + list("aZ09_.,;:'\" \t\n-\u00a0\u2019") + ["\U0001F4A9", "\ud83d", "İ", "Σ"]
    texts = ["".join(rng.choice(pool) if rng.random() < 0.9 else chr(rng.randint(0x80, 0x10FFFF))
                     for _ in range(rng.randint(0, 40))) for _ in range(20_000)]
    for name in LANGUAGES.values():
        got = get_analyzer(name).compiled().terms(texts)
        ref = reference(name)
        assert [(t, g) for t, g in zip(texts, got) if g != ref(t)] == [], name


@pytest.mark.realdata
@pytest.mark.parametrize("code", list(LANGUAGES))
def test_compiled_language_chains_on_mrtydi_topics(shared_data, code):
    texts = []
    for split in ("train", "dev", "test"):
        path = shared_data / "mrtydi" / code / f"topics.mrtydi-v1.1-{code}.{split}.txt.gz"
        if path.exists():
            with gzip.open(path, "rt", encoding="utf-8") as f:
                texts += [line.rstrip("\n").split("\t", 1)[1] for line in f if "\t" in line]
    if not texts:
        pytest.skip(f"Mr. TyDi {code} topics not in {shared_data}")
    name = LANGUAGES[code]
    got = get_analyzer(name).compiled().terms(texts)
    ref = reference(name)
    assert [(t, g) for t, g in zip(texts, got) if g != ref(t)] == []


def test_compiled_porter_matches_lucene_stemmer():
    rng = random.Random(5)
    suffixes = ["s", "es", "ies", "sses", "ed", "ing", "eed", "at", "bl", "iz", "y", "ational", "tional", "enci",
                "izer", "bli", "alli", "entli", "eli", "ousli", "ization", "ation", "ator", "alism", "iveness",
                "fulness", "aliti", "biliti", "logi", "icate", "ative", "alize", "iciti", "ical", "ful", "ness",
                "ance", "ement", "ment", "ion", "sion", "tion", "ou", "ism", "ate", "iti", "ous", "ive", "ize", "ll"]
    words = set()
    while len(words) < 30_000:
        w = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz" if rng.random() < 0.7 else "aeiouy")
                    for _ in range(rng.randint(1, 8)))
        if rng.random() < 0.7:
            w += rng.choice(suffixes)
        if rng.random() < 0.05:
            w = w[:2] + rng.choice("0123456789_.':,;") + w[2:]
        words.add(w)
    words = sorted(words)
    assert [(w, a, b) for w, a, b in zip(words, stem_words(words), LuceneStemmer().stem_words(words)) if a != b] == []


def test_key_table_grows_and_keeps_entries():
    table = ByteTable(2, 4)  # tiny: every few keys make it grow
    words = [f"w{i}\u00e9" for i in range(5000)]
    first = table.add_all(words)
    assert table.n == 5000 and list(first) == list(range(5000))
    assert list(table.add_all(words[::-1])) == list(range(4999, -1, -1))
    assert table.keys(10, 13) == words[10:13]
    text = " ".join(words)
    vocab = ByteTable(2, 4)
    assert get_analyzer("english-snowball").compiled(vocab).terms([text]) == [reference("english-snowball")(text)]


def test_reserved_room_holds_without_growing():
    table = ByteTable(2, 4)
    table.reserve(300, 3000)
    assert table.has_room(300, 3000)
    arrays = table.t
    words = [f"w{i:03d}" for i in range(300)]
    assert list(table.add_all(words)) == list(range(300))
    assert all(a is b for a, b in zip(arrays, table.t))  # no array was replaced
    assert table.keys() == words and list(table.find_all(words + ["nope"])) == list(range(300)) + [-1]


@pytest.mark.realdata
@pytest.mark.slow
@pytest.mark.parametrize("dataset", ["scifact", "nfcorpus", "arguana"])
def test_compiled_chains_on_beir_corpora(beir_dir, dataset):
    from sounding.datasets import iter_corpus

    docs = list(iter_corpus(beir_dir(dataset) / "corpus.jsonl.gz"))
    texts = [d.title for d in docs] + [d.text for d in docs]
    for name in CHAINS:
        got = get_analyzer(name).compiled().terms(texts)
        want = reference(name).analyze_many(texts)
        assert [i for i, (g, w) in enumerate(zip(got, want)) if g != w] == []


# -- Japanese (japanese_compiled.py): Kuromoji over a chunk, keys by dictionary entry and surface ---------
needs_ja = pytest.mark.skipif(importlib.util.find_spec("ipadic") is None,
                              reason="ipadic not installed (sounding[langs])")
JAPANESE = list("東京大学日本語のはをですましたコンピューター食べる走っているカタカナー中国人、。「」・ー々〇") + [
    "ｶﾞｷﾞｸﾞ", "ﾊﾟｿｺﾝ", "ｳﾞ", "ﾞ", "ﾟ", "ＡＢＣ１２３", "（注）", "！？", "The", "cell's", "3.14", "\U0001F4A9", "\ud83d",
    "x" * 300, " ", "\n", "\u3000", "Ｗｉｋｉ"]
JAPANESE_TEXT = st.lists(st.one_of(st.sampled_from(JAPANESE), st.characters(codec="utf-8")), max_size=40).map("".join)


@needs_ja
@settings(max_examples=150, deadline=None)
@given(st.lists(JAPANESE_TEXT, min_size=1, max_size=8))
def test_compiled_japanese_agrees_with_python(texts):
    assert get_analyzer("japanese").compiled().terms(texts) == [reference("japanese")(t) for t in texts]


@needs_ja
def test_compiled_japanese_chunks_fold_width_where_needed():
    # spans that need width folding beside spans that do not, empty ones, a chunk needing none
    texts = ["東京大学", "", "ｶﾞｷﾞｸﾞのﾊﾟｿｺﾝ", "ＡＢＣ１２３です", "食べました", "", "Ｗｉｋｉ（注）"]
    ref = reference("japanese")
    chain = get_analyzer("japanese").compiled()
    assert chain.terms(texts) == [ref(t) for t in texts]
    assert chain.terms(["東京大学", "食べました"]) == [ref("東京大学"), ref("食べました")]
    assert chain.terms([]) == []


@needs_ja
def test_compiled_japanese_queries_match_python():
    texts = ["東京大学の日本語", "ｶﾞｷﾞｸﾞ ﾊﾟｿｺﾝ パソコン", "食べる 食べました 食べる", "", "知らない言葉"]
    vocab = _vocabulary("japanese", texts[:3])
    words = vocab.keys()
    chain = get_analyzer("japanese").compiled(vocab, grow=False)
    for text in texts:
        want: dict[str, float] = {}
        for t in reference("japanese")(text):
            if t in words:
                want[t] = want.get(t, 0.0) + 1.0
        ids, counts = chain.query(text)
        assert [words[i] for i in ids.tolist()] == list(want) and counts.tolist() == list(want.values()), text


@needs_ja
@pytest.mark.realdata
def test_compiled_japanese_on_mrtydi_topics(shared_data):
    texts = []
    for path in sorted((shared_data / "mrtydi" / "ja").glob("topics.mrtydi-v1.1-ja.*.txt.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as f:
            texts += [line.rstrip("\n").split("\t", 1)[1] for line in f if "\t" in line]
    if not texts:
        pytest.skip(f"Mr. TyDi ja topics not in {shared_data}")
    got = get_analyzer("japanese").compiled().terms(texts)
    ref = reference("japanese")
    assert [(t, g) for t, g in zip(texts, got) if g != ref(t)] == []


@needs_ja
def test_compiled_japanese_long_text_and_its_arc_table():
    from sounding.analysis import japanese_compiled

    long = "東京大学の日本語です。ｶﾞｷﾞｸﾞ" * 2500  # its arc table outgrows what a thread keeps between chunks
    chain = get_analyzer("japanese").compiled()
    assert chain.terms([long, "食べました"]) == [reference("japanese")(long), reference("japanese")("食べました")]
    assert chain._local.arcs is None
    chain.terms(["食べました"])
    assert len(chain._local.arcs) <= japanese_compiled.KEPT_ARCS
