"""The index bytes are those of the writer before compiled analysis (Sounding 0e5dcc6), for every
analysis path (compiled English chains in threads, a Python analyzer in worker processes), postings
layout, memory budget and number of workers.

GOLDEN: `digest` of the generation that writer built from english_docs().
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
SCIFACT = "35bebbb4e7d08458b7e3ad64d39600bd159b8d661327e25c9a7064980dc7d730"


@pytest.mark.realdata
@pytest.mark.slow
def test_scifact_index_bytes_equal_the_earlier_writers(tmp_path, beir_dir):
    from sounding.datasets import iter_corpus

    corpus = beir_dir("scifact") / "corpus.jsonl.gz"
    for workers in (1, 2):
        build_index(iter_corpus(corpus), tmp_path / f"w{workers}", source="scifact", workers=workers)
        assert digest(live_generation(tmp_path / f"w{workers}")) == SCIFACT
