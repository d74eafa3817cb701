"""Sounding's Mr. TyDi analyzers against Lucene's on every real Mr. TyDi v1.1 test and dev topic.

Runs only with the Anserini fatjar at $SOUNDING_LUCENE_JAR (and, for Nori, Lucene 8's core,
analyzers-common and analyzers-nori jars in $SOUNDING_NORI_CLASSPATH), a Java >= 21 and the Mr. TyDi
topics in the shared data; otherwise each test skips, saying why (lucene_oracle/README.md). The
normal suite never needs Java: tests/test_languages.py holds hand-checked cases from these runs.
"""
import importlib.util
import os
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location("lucene_oracle_mrtydi", Path(__file__).parent / "lucene_oracle" / "mrtydi.py")
mrtydi = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(mrtydi)


def _classpath(kind: str) -> str:
    var = "SOUNDING_LUCENE_JAR" if kind == "anserini" else "SOUNDING_NORI_CLASSPATH"
    value = os.environ.get(var)
    if not value:
        pytest.skip(f"Lucene oracle off: set {var} (tests/comparison/lucene_oracle/README.md)")
    missing = [p for p in value.split(os.pathsep) if not Path(p).is_file()]
    if missing:
        pytest.skip(f"{var}: {', '.join(missing)} not found")
    if mrtydi.oracle.find_java() is None:
        pytest.skip("Lucene oracle off: no Java >= 21 found (set JAVA_HOME)")
    return value


@pytest.mark.realdata
@pytest.mark.slow
@pytest.mark.parametrize("key", list(mrtydi.LANGUAGES))
def test_mrtydi_topics_match_lucene(shared_data, key):
    name, _, kind, lang = mrtydi.LANGUAGES[key]
    if not mrtydi.topics_present(shared_data, lang):
        pytest.skip(f"Mr. TyDi {lang} topics not in {shared_data}")
    if key in ("ja", "ko-nori"):
        pytest.importorskip("fugashi")
    if key == "th":
        pytest.importorskip("icu")
    classpath = _classpath(kind)
    topics, differing = mrtydi.compare(key, classpath, shared_data, None)
    share = 1 - len(differing) / len(topics)
    examples = [(label, mrtydi.term_diff(l, o)) for label, _, l, o in differing[:10]]
    assert share >= mrtydi.MIN_SHARE[key], (f"{name}: {share:.4f} of {len(topics)} topics identical", examples)
