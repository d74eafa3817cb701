"""The registry of systems: every arm and peer engine a row, model routing by kind, and a new arm added as one row."""
import pytest

from sounding import run_experiment
from sounding.errors import SoundingError
from sounding.experiment.settings import Setting, arm_settings
from sounding.retrieval import systems
from test_dense import tiny_docs, write_beir


class Overlap:
    """A retriever that scores a document by the query words it holds (a toy arm)."""

    name = "overlap"

    def index(self, documents):
        self.docs = {d.id: set(f"{d.title} {d.text}".lower().split()) for d in documents}

    def search(self, queries, k):
        out = {}
        for q, text in queries.items():
            words = set(text.lower().split())
            scored = {d: float(len(words & w)) for d, w in self.docs.items() if words & w}
            out[q] = dict(sorted(scored.items(), key=lambda x: (-x[1], x[0]))[:k])
        return out

    def details(self):
        return {"vocabulary": "whitespace"}


def test_every_arm_and_engine_is_a_row():
    assert systems.arm_names() == ["bm25", "dense", "hybrid", "sparse", "rerank"]
    assert systems.engine_names()[0] == "sounding" and {"bm25s", "tantivy"} <= set(systems.engine_names())
    assert systems.system_for(Setting()).name == "bm25"
    assert systems.system_for(Setting(engine="bm25s")).name == "bm25s"
    with pytest.raises(SoundingError, match="unknown system 'colbert'"):
        systems.system_for(Setting(arm="colbert"))


def test_models_go_to_the_arms_of_their_kind():
    got = [(s.arm, s.params, s.model) for s in arm_settings(["hybrid", "sparse"], ["minilm", "splade-tiny"])]
    assert got == [("hybrid", "wrrf", "minilm"), ("hybrid", "rrf", "minilm"), ("hybrid", "linear0.5", "minilm"),
                   ("sparse", "u8", "splade-tiny")]


def test_a_new_arm_is_one_row(tmp_path, monkeypatch):
    write_beir(tmp_path / "tiny", tiny_docs(40), {"q1": "capital city", "q2": "deep sea fish"},
               {"q1": {"doc001": 1}, "q2": {"doc006": 1}})
    monkeypatch.setitem(systems.SYSTEMS, "overlap", systems.System(
        "overlap", "query words a document holds", systems.retriever_arm(Overlap), Overlap))
    assert "overlap" in systems.arm_names()
    res = run_experiment([str(tmp_path / "tiny")], tmp_path / "out", arms=["overlap"], log=lambda m: None)
    (row,) = res.to_dicts()
    assert row["setting"] == "sounding.overlap" and row["vocabulary"] == "whitespace"
    first = (tmp_path / "out" / row["run_file"]).read_text().splitlines()[0].split()
    assert first[:2] == ["q1", "Q0"] and first[2] in {f"doc{i:03d}" for i in range(1, 40, 8)}  # a "capital city" doc
    assert row["metrics"]["R@100"] == 1.0
