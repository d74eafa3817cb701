"""Sounding's `english-lucene` analysis against Lucene itself, through LuceneOracle.java.

Runs only with the Anserini fatjar (bundled in Pyserini's sdist/wheel; see lucene_oracle/README.md)
at $SOUNDING_LUCENE_JAR and a Java >= 21; otherwise every test skips, saying why. The normal test
suite never needs Java: tests/test_english_analysis.py holds hand-checked cases from these runs.
"""
import importlib.util
import os
import random
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location("lucene_oracle_driver", Path(__file__).parent / "lucene_oracle" / "oracle.py")
oracle = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(oracle)


@pytest.fixture(scope="module")
def jar() -> str:
    path = os.environ.get("SOUNDING_LUCENE_JAR")
    if not path:
        pytest.skip("Lucene oracle off: set SOUNDING_LUCENE_JAR to Anserini's fatjar (tests/comparison/lucene_oracle/README.md)")
    if not Path(path).is_file():
        pytest.skip(f"SOUNDING_LUCENE_JAR={path} is not a file")
    if oracle.find_java() is None:
        pytest.skip("Lucene oracle off: no Java >= 21 found (set JAVA_HOME)")
    return path


def test_scanner_tables_are_lucenes(jar):
    from sounding.analysis import standard

    ours = standard._load_scanner(standard._SCANNER)
    assert standard._load_scanner(oracle.pack_tables(oracle.oracle_tables(jar))) == ours


@pytest.mark.parametrize("stage", ["tokenize", "analyze"])
def test_random_texts_match_lucene(jar, stage):
    texts = oracle.random_texts(random.Random(20261129), 3000)
    ours = oracle.sounding(stage)
    lucene = oracle.run_oracle(jar, stage, texts)
    assert [(t, ours(t)) for t, l in zip(texts, lucene) if ours(t) != l] == []


def test_porter_matches_lucene(jar):
    from sounding.analysis.porter import LuceneStemmer

    words = sorted(set(oracle.random_words(random.Random(7), 20000)))
    lucene = [x[0] for x in oracle.run_oracle(jar, "porter", words)]
    assert [(w, s, l) for w, s, l in zip(words, LuceneStemmer().stem_words(words), lucene) if s != l] == []


@pytest.mark.realdata
@pytest.mark.slow
@pytest.mark.parametrize("name", oracle.DATASETS)
def test_beir_texts_match_lucene(jar, beir_dir, name):
    texts = oracle.load_texts(beir_dir(name).parents[1], name)
    analyzer = oracle.sounding("analyze")
    lucene = oracle.run_oracle(jar, "analyze", [t for _, t in texts])
    differing = [label for (label, t), l in zip(texts, lucene) if analyzer(t) != l]
    assert differing == []
