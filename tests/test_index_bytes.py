"""The index bytes are those of the writer before compiled analysis (Sounding 0e5dcc6), for every
analysis path (compiled English chains in threads, a Python analyzer in worker processes), postings
layout, memory budget and number of workers.

GOLDEN: sha256 over a generation's file names and bytes, built by that writer from english_docs().
"""
import hashlib
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


def digest(generation: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(generation.iterdir()):
        h.update(p.name.encode())
        h.update(p.read_bytes())
    return h.hexdigest()


GOLDEN = {
    "english-lucene raw": "2c1053e3b36d5dd1d2baa69a6ff1bda3541b442f661df300169c0413afe5490e",
    "english-lucene packed": "3e5bbd285daaafd4a5f938234cd695e8d399cfe7bb03c1da9d7b1b760b0d7852",
    "english-lucene positions": "d3b75c4d5e2215aa2d69ad4fbeb9f0a9949695c7e49efab1738938154635f3be",
    "english-snowball raw": "c5ad4db866ff317be774ad6d24c3749444347b3d03b97e496c0a739fa2b3ecbf",
    "english-snowball packed": "22b1b608c96c30649bd567a02c8acd467ec2a3c00d7e1c97ccb4c5133974bc6b",
    "english-snowball positions": "fa41bdb9ecc507aa0153d0bdbfcf558e562e5203b46986ff1c13a8e6754c4a63",
    "swahili raw": "64f1d1fed89126a7955ab1578c63135b5e0175f8df7f7ead6375132d9ac1be91",
    "swahili packed": "03c3e1ed2534724a001f83ca58d3e0a68e8a38485fb5cefa4b44ab65752d3661",
    "swahili positions": "870628314fa296d952fd583a574f769d1554d999df0bbb75ca7f3201c0900bc9",
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


# sha256 of scifact's index files (default build) as the earlier writer wrote them
SCIFACT = "7896bea821600ec2955ca5904ae6245d5837b7101ce9af05caf7f0ade31a9073"


@pytest.mark.realdata
@pytest.mark.slow
def test_scifact_index_bytes_equal_the_earlier_writers(tmp_path, beir_dir):
    from sounding.datasets import iter_corpus

    corpus = beir_dir("scifact") / "corpus.jsonl.gz"
    for workers in (1, 2):
        build_index(iter_corpus(corpus), tmp_path / f"w{workers}", source="scifact", workers=workers)
        assert digest(live_generation(tmp_path / f"w{workers}")) == SCIFACT
