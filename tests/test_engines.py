"""Engine adapters (sounding.retrieval.engines): each installed engine indexes a tiny corpus and answers sensibly.

Engines that are not installed are skipped, saying what to install. Pyserini starts a JVM twice
(indexing subprocess + searcher), which takes tens of seconds: it runs only with
SOUNDING_TEST_PYSERINI=1.
"""
import os

import pytest

from sounding.datasets import Document
from sounding.retrieval.engines import ENGINES, Engine, get_engine
from sounding.errors import SoundingError

DOCS = [
    Document("d1", "Quantum computing", "Qubits use superposition and entanglement for computation.", 1),
    Document("d2", "Photosynthesis", "Plants convert sunlight, water and carbon dioxide into glucose.", 2),
    Document("d3", "Volcanoes", "Magma rises through the crust and erupts as lava from volcanoes.", 3),
    Document("d4", "", "Glaciers are slow rivers of ice that carve valleys over millennia.", 4),
    Document("d5", "Honeybees", "Bees pollinate flowers and make honey in hives; a colony has one queen.", 5),
    Document("d6", "Entanglement", "Entangled particles share a quantum state across distances.", 6),
    Document("d7", "Tides", "The moon's gravity pulls the oceans, causing tides twice a day.", 7),
    Document("d8", "Coffee", "Coffee beans are roasted seeds; caffeine is a stimulant.", 8),
]
QUERIES = {
    "q1": "quantum entanglement of particles",
    "q2": "how do plants use sunlight?",
    "q3": "lava erupting from a volcano",
    "q4": "zzzz unmatched",   # no term in the corpus: an empty result, not an error
    "d8": "roasted coffee beans",  # a query id equal to a docid: the adapter keeps the hit (raw run)
}
EXPECTED_TOP = {"q2": "d2", "q3": "d3", "d8": "d8"}
# bm25s's numba kernels are compiled on first use in every process (no cache: ~15 s per variant);
# its numpy backend takes the same adapter path, so the tests use it. The benchmark uses numba.
OPTIONS = {"bm25s": {"backend": "numpy"}}


def _skip_reason(name: str) -> str | None:
    cls = ENGINES[name]
    if not cls.available():
        return f"{name} not installed: {cls.requirement}"
    if name == "pyserini" and os.environ.get("SOUNDING_TEST_PYSERINI") != "1":
        return "pyserini starts a JVM (tens of seconds): set SOUNDING_TEST_PYSERINI=1 to run it"
    return None


PARAMS = [pytest.param(n, marks=pytest.mark.skipif(_skip_reason(n) is not None, reason=_skip_reason(n) or ""))
          for n in ENGINES]


@pytest.fixture(scope="module", params=PARAMS)
def built(request, tmp_path_factory):
    name = request.param
    eng = get_engine(name, **OPTIONS.get(name, {}))
    workdir = tmp_path_factory.mktemp(f"engine-{name}")
    stats = eng.index(DOCS, workdir)
    yield name, eng, stats, workdir
    eng.close()


def _k1b(name):
    return (1.2, 0.75) if name == "tantivy" else (0.9, 0.4)


def test_index_stats(built):
    name, eng, stats, _ = built
    assert stats.n_docs == len(DOCS)
    assert stats.seconds > 0 and stats.bytes > 0


def test_search_returns_sensible_run(built):
    name, eng, _, _ = built
    run, seconds = eng.search(QUERIES, k=5, k1=0.9, b=0.4, threads=1, batch=True)
    assert seconds > 0
    assert set(run) == set(QUERIES)
    ids = {d.id for d in DOCS}
    for qid, hits in run.items():
        assert set(hits) <= ids and len(hits) <= 5
        assert all(s > 0 for s in hits.values())
    assert run["q4"] == {}
    for qid, doc in EXPECTED_TOP.items():
        assert max(run[qid], key=run[qid].get) == doc, (name, qid, run[qid])
    assert set(list(sorted(run["q1"], key=run["q1"].get, reverse=True))[:2]) == {"d1", "d6"}
    assert eng.last_convert_seconds >= 0


def test_modes_and_threads_agree(built):
    name, eng, _, _ = built
    ref, _ = eng.search(QUERIES, k=10, threads=1, batch=True)
    for batch in (True, False):
        for threads in (1, 2):
            run, _ = eng.search(QUERIES, k=10, threads=threads, batch=batch)
            assert run.keys() == ref.keys()
            for q in ref:
                assert run[q].keys() == ref[q].keys(), (name, batch, threads, q)
                for d in ref[q]:
                    assert run[q][d] == pytest.approx(ref[q][d], rel=1e-6)


def test_reopen_in_a_new_engine(built):
    name, eng, _, workdir = built
    ref, _ = eng.search(QUERIES, k=10)
    fresh = get_engine(name, **OPTIONS.get(name, {}))
    fresh.load(workdir)
    run, _ = fresh.search(QUERIES, k=10)
    assert {q: sorted(h) for q, h in run.items()} == {q: sorted(h) for q, h in ref.items()}
    fresh.close()


def test_settings_recorded(built):
    name, eng, _, _ = built
    eng.search({"q1": QUERIES["q1"]}, k=3, k1=0.9, b=0.4)
    k1, b = _k1b(name)
    assert eng.last_settings["k1"] == pytest.approx(k1) and eng.last_settings["b"] == pytest.approx(b)
    assert eng.last_settings["k"] == 3
    if name == "tantivy":
        assert eng.last_settings["k1_requested"] == 0.9


def test_version_and_protocol(built):
    name, eng, _, _ = built
    assert isinstance(eng, Engine) and eng.name == name
    assert ENGINES[name].version() not in ("", "not installed")


@pytest.mark.skipif(not ENGINES["bm25s"].available(), reason="bm25s not installed")
def test_bm25s_other_k1_b(tmp_path):
    """bm25s bakes k1/b into its index: rebuilt from the kept tokens, or refused after load()."""
    eng = get_engine("bm25s", **OPTIONS["bm25s"])
    eng.index(DOCS, tmp_path)
    ref, _ = eng.search(QUERIES, k=5, k1=0.9, b=0.4)
    other, _ = eng.search(QUERIES, k=5, k1=1.2, b=0.75)
    assert eng.last_settings["k1"] == 1.2 and eng.last_settings["rescored_for_k1_b"]
    assert other["q1"] != ref["q1"] and other["q1"].keys() == ref["q1"].keys()
    fresh = get_engine("bm25s", **OPTIONS["bm25s"])
    fresh.load(tmp_path)
    with pytest.raises(SoundingError, match="fixes k1/b"):
        fresh.search(QUERIES, k=5, k1=1.5, b=0.75)


def test_unknown_engine():
    with pytest.raises(SoundingError, match="unknown engine 'lucene-9000'"):
        get_engine("lucene-9000")


def test_not_installed_engine_names_the_extra(monkeypatch):
    monkeypatch.setattr(ENGINES["tantivy"], "available", classmethod(lambda cls: False))
    with pytest.raises(SoundingError, match=r"not installed: pip install 'sounding\[peers\]'"):
        get_engine("tantivy")


def test_search_before_index_is_an_error():
    with pytest.raises(SoundingError, match="no index"):
        get_engine("sounding").search(QUERIES, k=5)
