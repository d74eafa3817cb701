"""PyTerrier both ways, with no JVM: Sounding's BM25 as a `pt.Transformer` (its results are `sounding search`'s),
and any `pt.Transformer` as a system of the harness (a row in results.json and the report)."""
import json
import random
import sys
import textwrap

import numpy as np
import pytest

pt = pytest.importorskip("pyterrier", reason="the pyterrier extra (python-terrier) is not installed")
pd = pytest.importorskip("pandas")

from sounding import build_index  # noqa: E402
from sounding.cli import main  # noqa: E402
from sounding.datasets import iter_corpus  # noqa: E402
from sounding.errors import SoundingError  # noqa: E402
from sounding.experiment import run_experiment  # noqa: E402
from sounding.pyterrier import BM25  # noqa: E402

WORDS = "virus cell protein fold tumor gene growth host bind acid heat cold light dark fast slow".split()


@pytest.fixture(scope="module")
def collection(tmp_path_factory):
    """A BEIR-layout folder of 300 documents (few words: many tied scores), 20 queries and their qrels, indexed."""
    root = tmp_path_factory.mktemp("ptcoll")
    rng = random.Random(3)
    (root / "qrels").mkdir()
    with open(root / "corpus.jsonl", "w") as f:
        for i in range(300):
            text = " ".join(rng.choice(WORDS) for _ in range(rng.randrange(3, 9)))
            f.write(json.dumps({"_id": f"d{i}", "title": rng.choice(WORDS), "text": text}) + "\n")
    queries = {f"q{i}": " ".join(rng.sample(WORDS, 3)) for i in range(20)}
    (root / "queries.jsonl").write_text("".join(json.dumps({"_id": q, "text": t}) + "\n" for q, t in queries.items()))
    (root / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n" + "".join(
        f"{q}\td{rng.randrange(300)}\t{rng.choice([1, 2])}\n" for q in queries for _ in range(3)))
    index = root.parent / f"{root.name}-index"
    build_index(iter_corpus(root / "corpus.jsonl"), index, workers=1)
    return root, index, queries


def _rows(out):
    saved = json.loads((out / "results.json").read_text())
    return saved["rows"] if isinstance(saved, dict) else saved


def _read_run(path):
    out = {}
    for line in path.read_text().splitlines():
        q, _, d, rank, score, _ = line.split()
        out.setdefault(q, []).append((d, int(rank), np.float32(float(score))))
    return out


@pytest.mark.parametrize("options, flags", [
    ({}, []),
    ({"layout": "multifield", "k1": 1.2, "b": 0.75, "num_results": 7}, ["--layout", "multifield", "--k1", "1.2",
                                                                        "--b", "0.75", "--hits", "7"]),
    ({"lucene_norms": True, "k": 50}, ["--lucene-norms", "--hits", "50"]),
])
def test_bm25_transformer_gives_sounding_search_s_results(collection, tmp_path, capsys, options, flags):
    root, index, queries = collection
    run = tmp_path / "search.run"
    assert main(["search", str(index), "--queries", str(root / "queries.jsonl"), "--run", str(run), *flags]) == 0
    capsys.readouterr()
    topics = pd.DataFrame({"qid": list(queries), "query": list(queries.values())})
    got = BM25(index, **options).transform(topics)
    assert list(got.columns) == ["qid", "query", "docno", "score", "rank"]
    expected = _read_run(run)
    assert set(got["qid"]) == set(expected)
    for qid, hits in got.groupby("qid", sort=False):
        ours = list(zip(hits["docno"], hits["rank"] + 1, hits["score"].astype(np.float32)))
        assert ours == expected[qid], qid  # same documents, order (ties by docid, descending) and float32 scores
    assert not pt.java.started()


def test_bm25_transformer_composes_in_pipelines_without_java(collection):
    _, index, queries = collection
    topics = pd.DataFrame({"qid": ["q1", "q2"], "query": [queries["q1"], queries["q2"]], "extra": ["a", "b"]})
    cut = (BM25(index) % 3).transform(topics)  # PyTerrier's rank cutoff operator
    assert cut.groupby("qid").size().max() == 3 and set(cut["extra"]) == {"a", "b"}  # other columns carried
    assert "sounding.pyterrier.BM25" in repr(BM25(index, k1=1.2))
    with pytest.raises(SoundingError, match="qid and query"):
        BM25(index).transform(pd.DataFrame({"qid": ["q1"]}))
    with pytest.raises(SoundingError, match="depth once"):
        BM25(index, num_results=5, k=6)
    with pytest.raises(SoundingError):
        BM25(index, layout="no-such-layout")  # checked when made, not at the first query
    assert not pt.java.started()


def test_a_transformer_is_a_row_of_results_json_and_the_report(collection, tmp_path):
    root, index, _ = collection
    res = run_experiment([str(root)], tmp_path / "out", retrievers={"pt-bm25": BM25(index)}, log=lambda m: None)
    rows = {r.setting: r for r in res.rows}
    ours, reference = rows["user.pt-bm25"], rows["sounding.bm25.flat.anserini"]
    assert ours.metrics == reference.metrics  # the same search, through PyTerrier's frame and back
    assert "user.pt-bm25" in {r["setting"] for r in _rows(tmp_path / "out")}
    import sounding

    sounding.write_report(tmp_path / "out")
    assert "user.pt-bm25" in (tmp_path / "out" / "report.md").read_text()
    assert not pt.java.started()


def test_any_transformer_by_import_path_on_the_command_line(collection, tmp_path, monkeypatch, capsys):
    root, _, queries = collection
    qrels = [line.split("\t") for line in (root / "qrels" / "test.tsv").read_text().splitlines()[1:]]
    fixed = pd.DataFrame([(q, d, 10.0 - i) for i, (q, d, _) in enumerate(qrels)], columns=["qid", "docno", "score"])
    fixed.to_csv(tmp_path / "fixed.csv", index=False)
    (tmp_path / "pt_system.py").write_text(textwrap.dedent(f"""
        import pandas as pd
        import pyterrier as pt

        transformer = pt.Transformer.from_df(pd.read_csv({str(tmp_path / 'fixed.csv')!r}, dtype={{"qid": str, "docno": str}}))
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    code = main(["run", str(root), "--out", str(tmp_path / "out"), "--retriever", "fixed=pt_system:transformer"])
    assert code == 0, capsys.readouterr().err
    row = next(r for r in _rows(tmp_path / "out") if r["setting"] == "user.fixed")
    assert "user.fixed" in (tmp_path / "out" / "report.md").read_text()
    assert row["metrics"]["R@100"] == 1.0  # it returns every judged document
    sys.modules.pop("pt_system", None)


def test_a_transformer_that_fails_or_gives_no_scores_is_one_line(collection, tmp_path):
    root, _, _ = collection

    class Broken(pt.Transformer):
        def transform(self, inp):
            raise RuntimeError("the index is gone")

    class NoScores(pt.Transformer):
        def transform(self, inp):
            return inp.assign(docno="d1")

    for system, says in ((Broken(), "the index is gone"), (NoScores(), "lack the columns score")):
        with pytest.raises(SoundingError) as e:
            run_experiment([str(root)], tmp_path / f"out-{says[:3]}", retrievers={"bad": system}, log=lambda m: None)
        assert says in str(e.value) and "\n" not in str(e.value)
