"""load_dataset and resolve on small folders: layouts, split filtering, lookup order, clear errors."""
import gzip
import json

import pytest

from sounding.datasets import load_dataset, resolve
from sounding.errors import SoundingError


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("SOUNDING_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("SOUNDING_DATA", raising=False)
    monkeypatch.setenv("SOUNDING_TIMEOUT", "2")


def make_beir(root, docs=3, gz=False):
    (root / "qrels").mkdir(parents=True)
    corpus = "".join(json.dumps({"_id": f"d{i}", "title": f"t{i}", "text": f"x{i}"}) + "\n" for i in range(docs))
    name = "corpus.jsonl.gz" if gz else "corpus.jsonl"
    (root / name).write_bytes(gzip.compress(corpus.encode()) if gz else corpus.encode())
    (root / "queries.jsonl").write_text("".join(json.dumps({"_id": q, "text": f"query {q}"}) + "\n" for q in "123"))
    (root / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n1\td0\t1\n2\td1\t1\n2\td2\t0\n")
    (root / "qrels" / "train.tsv").write_text("query-id\tcorpus-id\tscore\n3\td2\t1\n")
    return root


def test_beir_folder_keeps_only_judged_queries(tmp_path):
    root = make_beir(tmp_path / "mine", gz=True)
    ds = load_dataset(root)
    assert ds.name == "mine" and ds.split == "test" and ds.language == "en"
    assert ds.queries == {"1": "query 1", "2": "query 2"}
    assert ds.qrels == {"1": {"d0": 1}, "2": {"d1": 1, "d2": 0}}
    assert [d.id for d in ds.corpus()] == ["d0", "d1", "d2"]
    assert load_dataset(root, split="train").queries == {"3": "query 3"}


def test_missing_qrels_names_the_file(tmp_path):
    root = make_beir(tmp_path / "mine")
    with pytest.raises(SoundingError, match=r"missing qrels/dev\.tsv .*present: test\.tsv, train\.tsv"):
        load_dataset(root, split="dev")


def test_judged_query_without_text_is_an_error(tmp_path):
    root = make_beir(tmp_path / "mine")
    with open(root / "qrels" / "test.tsv", "a") as f:
        f.write("9\td0\t1\n")
    with pytest.raises(SoundingError, match="1 judged queries have no text"):
        load_dataset(root)


def test_mrtydi_anserini_layout_without_corpus(tmp_path):
    root = tmp_path / "mrtydi" / "sw"
    root.mkdir(parents=True)
    (root / "topics.mrtydi-v1.1-sw.test.txt.gz").write_bytes(gzip.compress("1\tJe?\n2\tNini?\n".encode()))
    (root / "qrels.mrtydi-v1.1-sw.test.txt").write_text("1 Q0 5#1 1\n2 Q0 6#2 1\n")
    ds = load_dataset(root)
    assert ds.name == "mrtydi-sw" and ds.language == "sw" and len(ds.queries) == 2
    assert ds.corpus_path is None
    with pytest.raises(SoundingError, match="no corpus in"):
        ds.corpus()
    with pytest.raises(SoundingError, match=r"missing qrels\.mrtydi-v1\.1-sw\.dev\.txt"):
        load_dataset(root, split="dev")


def test_mrtydi_castorini_tarball_layout(tmp_path):
    root = tmp_path / "mrtydi-v1.1-swahili"
    (root / "collection").mkdir(parents=True)
    (root / "topic.test.tsv").write_text("1\tJe?\n")
    (root / "qrels.test.txt").write_text("1 Q0 5#1 1\n")
    (root / "collection" / "docs.jsonl.gz").write_bytes(gzip.compress(b'{"id": "5#1", "contents": "Kenya"}\n'))
    ds = load_dataset(root)
    assert ds.language == "sw" and ds.name == "mrtydi-sw"
    assert [(d.id, d.text) for d in ds.corpus()] == [("5#1", "Kenya")]


def test_resolve_order_and_layouts(tmp_path, monkeypatch):
    data, env, cache = tmp_path / "data", tmp_path / "env", tmp_path / "cache"
    make_beir(env / "beir" / "scifact")  # shared layout in $SOUNDING_DATA
    monkeypatch.setenv("SOUNDING_DATA", str(env))
    assert resolve("scifact") == env / "beir" / "scifact"
    make_beir(data / "scifact")  # flat layout in --data-dir wins over $SOUNDING_DATA
    assert resolve("scifact", data_dir=data) == data / "scifact"
    make_beir(cache / "beir" / "nfcorpus")  # the cache comes after both
    assert resolve("nfcorpus", data_dir=data) == cache / "beir" / "nfcorpus"
    make_beir(env / "cqadupstack" / "gis")
    assert resolve("cqadupstack-gis") == env / "cqadupstack" / "gis"
    mine = make_beir(tmp_path / "own")
    assert resolve(str(mine)) == mine  # a folder is used as is


def test_resolve_errors(tmp_path):
    with pytest.raises(SoundingError, match="unknown dataset 'scifakt'; did you mean scifact"):
        resolve("scifakt")
    with pytest.raises(SoundingError, match="no such folder"):
        resolve(str(tmp_path / "nope"))
    with pytest.raises(SoundingError, match="data dir .* no such folder"):
        resolve("scifact", data_dir=tmp_path / "missing")
    with pytest.raises(SoundingError, match="not on this machine"):
        resolve("scifact", download=False)
    with pytest.raises(SoundingError, match="robust04 is not openly downloadable"):
        resolve("robust04")
    with pytest.raises(SoundingError, match="cqadupstack is a bundle of 12 sub-forums"):
        load_dataset("cqadupstack")
