"""Dataset names: Sounding's and ir_datasets' ids resolve to the same dataset, everywhere a dataset goes; other
ir_datasets ids load through ir_datasets (tested offline with `ir_datasets.create_dataset` over local files)."""
import json
import sys
import uuid
from pathlib import Path

import pytest

from sounding.cli import main
from sounding.datasets import REGISTRY, DatasetInfo, Split, irds_id, load_dataset, lookup
from sounding.datasets.irds import MANIFEST, folder_name
from sounding.errors import SoundingError
from sounding.experiment import run_experiment
from toy_beir import DOCS, QRELS, QUERIES, write_beir

# -- the table of ids --------------------------------------------------------------------------------------


@pytest.mark.parametrize("text, name, split", [
    ("beir/scifact/test", "scifact", "test"), ("beir/scifact/train", "scifact", "train"),
    ("beir/nfcorpus/test", "nfcorpus", "test"), ("beir/nfcorpus", "nfcorpus", "test"),
    ("beir/cqadupstack/android", "cqadupstack-android", "test"), ("beir/msmarco/dev", "msmarco", "dev"),
    ("mr-tydi/ja/test", "mrtydi-ja", "test"), ("mr-tydi/sw/dev", "mrtydi-sw", "dev"), ("mr-tydi/ja", "mrtydi-ja", "test"),
    ("beir/arguana", "arguana", "test"), ("beir/webis-touche2020/v2", "webis-touche2020", "test"),
    ("BEIR/SciFact/Test", "scifact", "test"),
])
def test_ir_datasets_ids_name_registry_datasets(text, name, split):
    ref = lookup(text)
    assert ref.info.name == name and ref.split_or(None) == split


@pytest.mark.parametrize("name, expected", [
    ("scifact", "beir/scifact/test"), ("arguana", "beir/arguana"), ("cqadupstack-tex", "beir/cqadupstack/tex"),
    ("mrtydi-ja", "mr-tydi/ja/test"), ("webis-touche2020", "beir/webis-touche2020/v2"), ("robust04", None),
])
def test_every_registry_dataset_names_its_ir_datasets_id(name, expected):
    assert lookup(name).irds_id == expected and lookup(name).split is None


def test_each_id_leads_back_to_its_dataset_and_is_in_ir_datasets_catalogue():
    catalogue = None
    try:
        import ir_datasets

        catalogue = set(ir_datasets.registry._registered)  # the package's own list, on this machine
    except ImportError:
        pass
    ids = 0
    for info in REGISTRY.values():
        for split in info.splits:
            got = irds_id(info, split)
            if got is None:
                continue
            ids += 1
            ref = lookup(got)
            assert (ref.info.name, ref.split) == (info.name, split), got
            assert catalogue is None or got in catalogue, got
    assert ids > 50


def test_a_name_and_an_asked_split_that_disagree_are_one_line():
    with pytest.raises(SoundingError, match="beir/scifact/test names the test split, but split 'train' was asked for"):
        lookup("beir/scifact/test").split_or("train")


@pytest.mark.parametrize("text, says", [
    ("beir/scifcat/test", "did you mean beir/scifact/test"),
    ("beir/scifact/dev", "did you mean beir/scifact"),
    ("scifcat", "did you mean scifact"),
])
def test_unknown_names_are_one_line_with_close_matches(text, says):
    with pytest.raises(SoundingError) as e:
        load_dataset(text)
    assert says in str(e.value) and "\n" not in str(e.value) and f"unknown dataset {text!r}" in str(e.value)


# -- a registry dataset by both names (a toy entry, offline) -------------------------------------------------

@pytest.fixture
def toy(tmp_path, monkeypatch):
    """A registry entry `toyset` (ir_datasets id beir/toyset/test) whose copy is under $SOUNDING_DATA."""
    data = tmp_path / "data"
    write_beir(data / "beir" / "toyset", splits=("test", "dev"))
    monkeypatch.setenv("SOUNDING_DATA", str(data))
    monkeypatch.setenv("SOUNDING_HOME", str(tmp_path / "home"))
    info = DatasetInfo(name="toyset", kind="beir", language="en", url=None, docs=4,
                       splits={"test": Split(3, 4), "dev": Split(3, 4)})
    monkeypatch.setitem(REGISTRY, "toyset", info)
    return data / "beir" / "toyset"


def test_both_names_load_the_same_dataset(toy):
    a, b = load_dataset("toyset"), load_dataset("beir/toyset/test")
    assert a == b and a.irds_id == "beir/toyset/test" and a.name == "toyset" and a.root == toy
    assert load_dataset("beir/toyset/dev").split == "dev"


def _cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def test_eval_and_search_give_the_same_bytes_by_name_id_or_file(toy, tmp_path, capsys):
    from sounding import build_index
    from sounding.datasets import iter_corpus

    index = tmp_path / "index"
    build_index(iter_corpus(toy / "corpus.jsonl"), index, workers=1)
    runs = []
    for queries in ("toyset", "beir/toyset/test", toy / "queries.jsonl"):
        runs.append(tmp_path / f"run{len(runs)}.trec")
        _cli(capsys, "search", index, "--queries", queries, "--run", runs[-1], "--hits", "10")
    assert runs[0].read_bytes() == runs[1].read_bytes() == runs[2].read_bytes()
    outs = {_cli(capsys, "eval", qrels, runs[0], "-m", "official", "--json")
            for qrels in ("toyset", "beir/toyset/test", toy / "qrels" / "test.tsv")}
    assert len(outs) == 1 and json.loads(outs.pop())["num_q"] == 3


def test_run_experiment_by_name_or_id_writes_the_same_runs_and_rows(toy, tmp_path):
    rows = {}
    for name in ("toyset", "beir/toyset/test"):
        out = tmp_path / name.replace("/", "_")
        res = run_experiment([name], out, layouts=["flat"], params=["anserini"], norms="exact", log=lambda m: None)
        (row,) = res.rows
        rows[name] = (row, (out / row.run_file).read_bytes())
    (a, run_a), (b, run_b) = rows.values()
    assert run_a == run_b and a.metrics == b.metrics and a.dataset == b.dataset == "toyset"
    assert a.extra["ir_datasets"] == b.extra["ir_datasets"] == "beir/toyset/test"
    twice = run_experiment(["toyset", "beir/toyset/test"], tmp_path / "twice", layouts=["flat"], params=["anserini"],
                           norms="exact", log=lambda m: None)
    assert len(twice.rows) == 1  # one dataset named twice is run once


# -- other ir_datasets ids, through ir_datasets ------------------------------------------------------------


@pytest.fixture
def irds_toy(tmp_path, monkeypatch):
    """An ir_datasets dataset made by create_dataset over local TSV / TREC files, registered under a fresh id."""
    ir_datasets = pytest.importorskip("ir_datasets", reason="the irds extra (ir_datasets) is not installed")
    src = tmp_path / "src"
    src.mkdir()
    (src / "docs.tsv").write_text("".join(f"{i}\t{t} {x}\n" for i, t, x in DOCS))
    (src / "queries.tsv").write_text("".join(f"{q}\t{t}\n" for q, t in QUERIES))
    (src / "qrels.trec").write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in QRELS))
    ds = ir_datasets.create_dataset(docs_tsv=str(src / "docs.tsv"), queries_tsv=str(src / "queries.tsv"),
                                    qrels_trec=str(src / "qrels.trec"))
    dataset_id = f"sounding-test/toy-{uuid.uuid4().hex[:8]}"
    ir_datasets.registry.register(dataset_id, ds)
    monkeypatch.setenv("SOUNDING_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("SOUNDING_DATA", raising=False)
    return dataset_id


def test_an_ir_datasets_dataset_runs_through_run_experiment(irds_toy, tmp_path):
    res = run_experiment([irds_toy], tmp_path / "out", layouts=["flat"], params=["anserini"], norms="exact",
                         log=lambda m: None)
    (row,) = res.rows
    assert row.dataset == folder_name(irds_toy) and row.extra["ir_datasets"] == irds_toy
    assert row.n_queries == 3 and row.metrics["nDCG@10"] > 0.5
    home = Path(tmp_path / "home" / "irds" / folder_name(irds_toy))
    assert json.loads((home / MANIFEST).read_text())["ir_datasets"] == irds_toy
    ds = load_dataset(irds_toy)
    assert ds.qrels == {"q1": {"d1": 1}, "q2": {"d2": 2}, "q3": {"d3": 1, "d4": 0}}
    assert ds.queries == dict(QUERIES) and ds.irds_id == irds_toy


def test_an_ir_datasets_copy_without_its_manifest_is_made_again(irds_toy, tmp_path):
    root = load_dataset(irds_toy).root
    (root / MANIFEST).unlink()
    (root / "queries.jsonl").write_text("not json\n")  # a half-written copy
    assert load_dataset(irds_toy).queries == dict(QUERIES)


def test_eval_takes_an_ir_datasets_id_for_its_qrels(irds_toy, tmp_path, capsys):
    run = tmp_path / "run"
    run.write_text("q1 Q0 d1 1 2.0 t\nq2 Q0 d3 1 1.0 t\n")
    got = json.loads(_cli(capsys, "eval", irds_toy, run, "-m", "P@1", "--json"))
    assert got == {"P@1": pytest.approx(1 / 3)}


def test_without_ir_datasets_an_outside_id_is_one_line(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "ir_datasets", None)  # import fails
    monkeypatch.setenv("SOUNDING_HOME", str(tmp_path))
    with pytest.raises(SoundingError) as e:
        load_dataset("msmarco-passage/dev/small")
    assert "pip install 'sounding[irds]'" in str(e.value) and "\n" not in str(e.value)


@pytest.mark.realdata
def test_scifact_by_name_id_or_file_scores_the_same_bytes(beir_dir, tmp_path, capsys, monkeypatch):
    folder = beir_dir("scifact")
    monkeypatch.setenv("SOUNDING_DATA", str(folder.parents[1]))
    lines = (folder / "qrels" / "test.tsv").read_text().splitlines()[1:]
    run = tmp_path / "run"  # every judged document, half of them first, plus a few unjudged
    run.write_text("".join(f"{q} Q0 {d} {i} {100 - i % 7}.0 t\n{q} Q0 x{i} {i} 50.5 t\n"
                           for i, (q, d, _) in enumerate(line.split("\t") for line in lines)))
    outs = {_cli(capsys, "eval", qrels, run, "-m", "official", "-m", "nDCG@10", "--trec", "-q")
            for qrels in ("scifact", "beir/scifact/test", folder / "qrels" / "test.tsv")}
    assert len(outs) == 1 and "num_q                 \tall\t300" in outs.pop()
