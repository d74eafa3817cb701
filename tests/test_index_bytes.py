"""The index bytes are those of the writer before compiled analysis, for every analysis path (compiled
chains in threads, a Python analyzer in worker processes), postings layout, memory budget and number
of workers.

GOLDEN: `digest` of the generation the writer of Sounding 0e5dcc6 built from english_docs();
LANGUAGE_GOLDEN: that of Sounding f503e00 (the StandardTokenizer languages and Japanese still
analysed in Python worker processes) from language_docs(analyzer) and japanese_docs().
"""
import hashlib
import json
import random
from pathlib import Path

import pytest

from sounding.datasets import Document
from sounding.index import build_index
from sounding.index.format import live_generation

WORDS = ["The", "the", "cell's", "cells", "Cell", "protein", "proteins", "running", "runs", "ran", "physiology",
         "possibly", "trekking", "revving", "U.S.A.", "1,000.5", "3.14", "don't", "can\u2019t", "caf\u00e9", "na\u00efve",
         "\u0130stanbul", "\u039f\u0394\u039f\u03a3", "\u4e2d\u56fd\u4eba", "\U0001F4A9", "a_b", "it's", "JOHN'S",
         "dog\u2019S", "and", "of", "to", "in", "is", "generalization", "B2B", "R2D2", "foo-bar", "\u00a9", "mo\u0364chte",
         "\u0e01\u0e32\u0e23\u0e17\u0e35\u0e48", "\U0001d400s", "x" * 300, "\u2b55\ufe0e\u200d\u2b55", "e\u0301t\u00e9"]


def english_docs(n=2600, seed=7):
    """Documents for index byte checks: English forms, possessives, stop words, non-ASCII text and ids,
    empty titles and texts, a token past the 255-unit buffer, one tf beyond uint16."""
    rng = random.Random(seed)
    docs = []
    for i in range(n):
        title = " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 5)))
        text = " ".join(rng.choice(WORDS) + rng.choice(["", "", ",", ".", " (", "\u2019s"]) for _ in range(rng.randint(0, 60)))
        if i == 13:
            text += " often" * 70_000
        doc_id = f"d{rng.randint(0, 10**9)}" if i % 5 else f"D{i}\u00e9"
        docs.append((doc_id, title, text, i + 1))
    return docs


# words of each StandardTokenizer language with a compiled chain: case variants, digits of its script,
# stop words, joiners and marks
LANGUAGE_WORDS = {
    "russian": ["Москва", "москва", "МОСКВЫ", "и", "в", "не", "книги", "книгами", "бежать", "бегущий", "Ёлка", "ёлки",
                "США", "2024", "обороноспособность"],
    "arabic": ["القاهرة", "والكتاب", "الكتب", "كتاب", "في", "من", "مدرسة", "المدارس", "١٢٣", "٤٥٦٧", "أحمد", "إسلام",
               "آمنة", "مكتبة", "ـــطويل"],
    "bengali": ["বাংলাদেশ", "বাংলা", "এবং", "ও", "১২৩", "কলকাতা", "বইগুলো", "ছেলেরা", "মানুষের", "বিশ্ববিদ্যালয়",
                "\u09b0\u200d\u09cd\u09af\u09be\u09ac"],
    "telugu": ["తెలుగు", "భాష", "మరియు", "౧౨౩", "హైదరాబాద్", "పుస్తకాలు", "ప్రభుత్వం", "ఎవరో", "ఒకరు", "వారు", "కూడా"],
    "finnish": ["Helsinki", "Helsingissä", "ja", "on", "vanhin", "python", "Pythonin", "talossa", "talojen", "kauniita",
                "Äiti", "äidille", "öljy"],
    "indonesian": ["Jakarta", "dan", "yang", "membaca", "pembacaan", "bacaan", "kebersamaan", "diperbaiki",
                   "perbaikan", "buku-buku", "berlari"],
}
OTHER_WORDS = ["The", "the", "cell's", "U.S.A.", "1,000.5", "3.14", "don't", "caf\u00e9", "\u0130stanbul",
               "\u039f\u0394\u039f\u03a3", "\u4e2d\u56fd\u4eba", "\U0001F4A9", "a_b", "x" * 300, "e\u0301t\u00e9"]


def language_docs(analyzer: str, n=1500, seed=11):
    """Documents in one language, with English, other scripts and a token past the 255-unit buffer."""
    rng = random.Random(seed)
    words = LANGUAGE_WORDS[analyzer] * 3 + OTHER_WORDS
    docs = []
    for i in range(n):
        title = " ".join(rng.choice(words) for _ in range(rng.randint(0, 5)))
        text = " ".join(rng.choice(words) + rng.choice(["", "", ",", ".", " (", "-"]) for _ in range(rng.randint(0, 60)))
        doc_id = f"d{rng.randint(0, 10**9)}" if i % 5 else f"D{i}\u00e9"
        docs.append(Document(doc_id, title, text, i + 1))
    return docs


JAPANESE_WORDS = ["東京", "大学", "日本語", "の", "は", "を", "です", "ました", "コンピューター", "ｶﾞｷﾞｸﾞ", "ﾊﾟｿｺﾝ",
                  "ＡＢＣ１２３", "（注）", "食べる", "食べました", "走っている", "カタカナー", "The", "cell's", "3.14",
                  "中国人", "\U0001F4A9", "x" * 300, "、", "。"]


def japanese_docs(n=800, seed=5):
    """Japanese documents (no spaces between words), half-width katakana and full-width ASCII among them."""
    rng = random.Random(seed)
    docs = []
    for i in range(n):
        title = "".join(rng.choice(JAPANESE_WORDS) for _ in range(rng.randint(0, 4)))
        text = "".join(rng.choice(JAPANESE_WORDS) + rng.choice(["", "", " ", "。", "、"]) for _ in range(rng.randint(0, 50)))
        docs.append(Document(f"d{i}", title, text, i + 1))
    return docs


def digest(generation: Path) -> str:
    """sha256 over the generation's file names and bytes; of manifest.json, its fields but the format's own
    (name, version, self-digest), so that a new format version keeps the digests of the same index."""
    h = hashlib.sha256()
    for p in sorted(generation.iterdir()):
        h.update(p.name.encode())
        if p.name == "manifest.json":
            fields = {k: v for k, v in json.loads(p.read_text()).items() if k not in ("format", "version", "digest")}
            h.update(json.dumps(fields, sort_keys=True).encode())
        else:
            h.update(p.read_bytes())
    return h.hexdigest()


GOLDEN = {
    "english-lucene raw": "e80d9504ea52331b2342de3ae44975b136aeae4f9506cf9d387abc0533862228",
    "english-lucene packed": "d80a306baec1e07710902dea1a40eaad6dc7560e29f10a59b6166de84293915c",
    "english-lucene positions": "99c23f557eec198dd1c35aaa1a6047efb3d80f09963b8bcdf7f98dbe098b7e2b",
    "english-snowball raw": "1afbddb43ceb96f5cc262c4027dc7b27379dc037c0c577c82c495a203679b2ea",
    "english-snowball packed": "b30b0455a5dd672cd391a9bcb7e0f384bc8a42bc91478de1309dceef979af230",
    "english-snowball positions": "52e9d80eaa2ccf9d3c20a18c22440cd5f031a5bc76eceebb578e7fe3d58b67f6",
    "swahili raw": "cbb6c5e913e1520eb70b8536dd4fb8b51cd239990e24fe84ec92426598bc11f0",
    "swahili packed": "ff8ccea556a2cef244b44a039c599edb46d7f9dd3242a44056ebc6e509545dc7",
    "swahili positions": "bb431d7beb57dee55dc1f3eb301ccfc4418195003ad2771498ed67991f6cc916",
}
LANGUAGE_GOLDEN = {
    "russian raw": "aa7f984f1a389de1c6d8552853167873997d099f80c09847c7764b390e956b45",
    "russian packed": "163743077248fc226d4c5c8d3695aa03877cb495ce23ca582d59164285d517c0",
    "russian positions": "f3d22f936bacf64b34f9bf6700f517b9a441dc13e6bf52dbee1d9b4dc0911f1d",
    "arabic raw": "2b54d20563239cad8d87d9bb2031465e77139cf0acdf2f1bd79dfdcc2062664a",
    "arabic packed": "b04d085ccaf1444670c1430ea55838330a0bcc6ebd1a42e6f1d79744099714f0",
    "arabic positions": "3b0d0b617eb8da3f7243399866a1d1328efff21c6ae9279863c881b9ddc573d8",
    "bengali raw": "f2b5852be9e891e96f5551b9e28eafa4eba0fef87fd86f3c0c59fd4d438d7d32",
    "bengali packed": "3d6b5d1d3e254c6958e690d4e2fad1f767fc52755976ce477b5ad70e2b39d5e8",
    "bengali positions": "370259f4867ff5c23b5fd193421df1b20f51a6725f6d74c47e432e9603738e81",
    "telugu raw": "9d9ff2bf0c7e037eee0e2e7f28257c29de2f520dd5f1939844ccfca7cd4054b7",
    "telugu packed": "efae3a2383d92a75676f4affe1ae36442e8ac44514fd62d501f4147f35aff604",
    "telugu positions": "8f4e2e28d999daba8ce99fccc5b7576eef3e0b726c69608e0b900f71dcd05173",
    "finnish raw": "831b719e274be4495a9af297c1c408e79cba2ae7661fbe0269b6a0b34e9d89c0",
    "finnish packed": "3819bbe9b2876886b231585497caf3de9e53c19ecb9b579f250777a0109ac401",
    "finnish positions": "6bf0e923f14c32bbe260b375490b162deab8cce74629283410f495f955e6098c",
    "indonesian raw": "b3d16a8a103f6e9680113a8878467bcc81ea715e00e0c2f0bbe93a19d3a182f1",
    "indonesian packed": "f891f7e67ec52e50c1b77e2a0b3fcd10988e654f27ade4323908d452913aae6c",
    "indonesian positions": "ccd64b1320e1700460ed1aa98755d96a8c0b3f3670b8a69d1333e72fb337f007",
    "japanese raw": "742be821366a460ec0764074873b8a36e0dd0137a354caf0c4d1af30193ec28e",
    "japanese packed": "f6f5bfcb1c9e3c25a7f4b882bcaeb3b3be288b2729e704aca1a476509e5bb846",
    "japanese positions": "84796ac2f41193509cef47a1a82113c47ae6c55818fa8a84501badbfcf13a22b",
}
OPTIONS = {"raw": {}, "packed": {"postings": "packed"}, "positions": {"positions": True}}


@pytest.fixture(scope="module")
def docs():
    return [Document(*d) for d in english_docs()]


@pytest.mark.parametrize("analyzer", ["english-lucene", "english-snowball", "swahili"])
@pytest.mark.parametrize("option", list(OPTIONS))
def test_index_bytes_equal_the_earlier_writers(tmp_path, docs, analyzer, option):
    for workers, memory in ((1, None), (2, 40_000)):  # in memory, one worker; many runs on disk, two
        ix = tmp_path / f"w{workers}"
        build_index(docs, ix, analyzer=analyzer, workers=workers, memory=memory, **OPTIONS[option])
        assert digest(live_generation(ix)) == GOLDEN[f"{analyzer} {option}"], (workers, memory)


@pytest.mark.parametrize("analyzer", list(LANGUAGE_WORDS) + ["japanese"])
@pytest.mark.parametrize("option", list(OPTIONS))
def test_language_index_bytes_equal_the_python_analysis(tmp_path, analyzer, option):
    if analyzer == "japanese":
        pytest.importorskip("ipadic", reason="ipadic not installed (sounding[langs])")
    docs = japanese_docs() if analyzer == "japanese" else language_docs(analyzer)
    for workers, memory in ((1, None), (2, 40_000)):
        ix = tmp_path / f"w{workers}"
        build_index(docs, ix, analyzer=analyzer, workers=workers, memory=memory, **OPTIONS[option])
        assert digest(live_generation(ix)) == LANGUAGE_GOLDEN[f"{analyzer} {option}"], (workers, memory)


# sha256 of scifact's index files (default build) as the earlier writer wrote them
SCIFACT = "35bebbb4e7d08458b7e3ad64d39600bd159b8d661327e25c9a7064980dc7d730"


@pytest.mark.realdata
@pytest.mark.slow
def test_scifact_index_bytes_equal_the_earlier_writers(tmp_path, beir_dir):
    from sounding.datasets import iter_corpus

    corpus = beir_dir("scifact") / "corpus.jsonl.gz"
    for workers in (1, 2):
        build_index(iter_corpus(corpus), tmp_path / f"w{workers}", source="scifact", workers=workers)
        assert digest(live_generation(tmp_path / f"w{workers}")) == SCIFACT
