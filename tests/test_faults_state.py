"""State checked before it is trusted, second round: folders copied without following links, output folders
keyed by what made them, resume that verifies before it reuses, and user code that fails in one line. Each
case asserts the exit code, one line naming the path or system, no traceback, and that the files that
existed before the command are unchanged."""
import json
import os
import shutil
import time
from pathlib import Path

import pytest

from sounding.cli import main
from sounding.datasets import REGISTRY, DatasetInfo, Split
from test_faults import mini_dataset, one_line_error
from test_faults_input import snapshot


# -- fetch --from DIR: no folder links followed, a bounded copy -------------------------------------------------
@pytest.fixture
def small_info(monkeypatch):
    """A registry entry whose archive is 20 kB: a copy of more than 2 × 5 × 20 kB stops."""
    info = DatasetInfo(name="tiny-test", kind="beir", language="en", size=20_000, docs=30,
                       splits={"test": Split(None, None)})
    monkeypatch.setitem(REGISTRY, info.name, info)
    return info


def _beir_folder(root: Path) -> Path:
    return mini_dataset(root, n_docs=30)


def test_fetch_from_a_folder_refuses_a_folder_link(tmp_path, capsys, small_info):
    src = _beir_folder(tmp_path / "src" / "tiny-test")
    before = snapshot(src)
    (src / "loop").symlink_to(".")
    (src / "qrels" / "again").symlink_to("..")
    home = tmp_path / "home"
    t0 = time.monotonic()
    assert main(["fetch", "tiny-test", "--from", str(src), "--cache-dir", str(home)]) == 2
    err = capsys.readouterr().err
    one_line_error(err, "is a link to a folder", str(src / "loop"))
    assert len(err) < 600 and time.monotonic() - t0 < 30
    assert not (home / "beir" / "tiny-test").exists()
    assert not [p for p in (home / "beir").iterdir() if ".tmp-" in p.name]
    os.unlink(src / "loop")
    os.unlink(src / "qrels" / "again")
    assert snapshot(src) == before


def test_fetch_from_a_folder_stops_at_twice_the_expected_size(tmp_path, capsys, small_info):
    src = _beir_folder(tmp_path / "src" / "tiny-test")
    (src / "extra.bin").write_bytes(b"\0" * 300_000)
    before = snapshot(tmp_path / "src")
    home = tmp_path / "home"
    assert main(["fetch", "tiny-test", "--from", str(src), "--cache-dir", str(home)]) == 2
    one_line_error(capsys.readouterr().err, f"--from {src}", "stopped after copying", "2 times the 100,000")
    assert snapshot(tmp_path / "src") == before
    assert not (home / "beir" / "tiny-test").exists()
    assert not [p for p in (home / "beir").iterdir() if ".tmp-" in p.name]


@pytest.mark.parametrize("kind", ["device", "fifo"])
def test_fetch_from_a_folder_refuses_what_is_not_a_file(tmp_path, capsys, small_info, kind):
    src = _beir_folder(tmp_path / "src" / "tiny-test")
    if kind == "device":
        (src / "zero").symlink_to("/dev/zero")  # a link to a file would be copied; to a device, never
    else:
        os.mkfifo(src / "zero")  # opening it would wait for a writer for ever
    home = tmp_path / "home"
    assert main(["fetch", "tiny-test", "--from", str(src), "--cache-dir", str(home)]) == 2
    one_line_error(capsys.readouterr().err, str(src / "zero"), "is not a regular file")
    assert not (home / "beir" / "tiny-test").exists()


def test_fetch_from_a_folder_copies_file_links(tmp_path, small_info):
    src = _beir_folder(tmp_path / "src" / "tiny-test")
    shutil.move(src / "corpus.jsonl", tmp_path / "corpus.jsonl")
    (src / "corpus.jsonl").symlink_to(tmp_path / "corpus.jsonl")
    home = tmp_path / "home"
    assert main(["fetch", "tiny-test", "--from", str(src), "--cache-dir", str(home)]) == 0
    copied = home / "beir" / "tiny-test" / "corpus.jsonl"
    assert not copied.is_symlink() and copied.read_bytes() == (tmp_path / "corpus.jsonl").read_bytes()


# -- one output folder per dataset identity ----------------------------------------------------------------------
def _outside_lock(state: dict) -> dict:
    """A snapshot without the writer lock file (each writer records its pid there: io.writer_lock)."""
    return {k: v for k, v in state.items() if not k.endswith(".sounding-writer.lock")}


def test_two_folders_with_one_name_are_refused_naming_both(tmp_path, capsys):
    a, b = mini_dataset(tmp_path / "a" / "plain", n_docs=40), mini_dataset(tmp_path / "b" / "plain", n_docs=40)
    with open(b / "qrels" / "test.tsv", "a") as f:  # the same corpus and queries, other qrels
        f.write("q1\td7\t1\n")
    out = tmp_path / "out"
    assert main(["run", str(a), "--out", str(out), "--layouts", "flat", "--params", "anserini"]) == 0
    capsys.readouterr()
    before = _outside_lock(snapshot(tmp_path))
    assert main(["run", str(a), str(b), "--out", str(out), "--layouts", "flat", "--params", "anserini"]) == 2
    one_line_error(capsys.readouterr().err, "two datasets are named 'plain' but hold different data (different qrels)",
                   str(a), str(b))
    assert _outside_lock(snapshot(tmp_path)) == before


def test_a_second_dataset_of_the_same_name_gets_its_own_folders(tmp_path, capsys):
    """Run one after the other into one OUT, the two `plain`s keep their own runs, rows and per-query
    files: nothing of the first is overwritten."""
    a, b = mini_dataset(tmp_path / "a" / "plain", n_docs=40), mini_dataset(tmp_path / "b" / "plain", n_docs=30)
    out = tmp_path / "out"
    args = ["--out", str(out), "--layouts", "flat", "--params", "anserini"]
    assert main(["run", str(a), *args]) == 0
    first = snapshot(out / "runs") | snapshot(out / "per_query")
    first_rows = json.loads((out / "results.json").read_text())
    assert main(["run", str(b), *args]) == 0
    second_rows = json.loads((out / "results.json").read_text())
    assert {r["dataset_id"] for r in first_rows}.isdisjoint(r["dataset_id"] for r in second_rows)
    assert {r["run_file"] for r in first_rows}.isdisjoint(r["run_file"] for r in second_rows)
    assert (snapshot(out / "runs") | snapshot(out / "per_query")).items() >= first.items()  # all still there
    capsys.readouterr()
    assert main(["run", str(a), *args]) == 0  # and the first is reused as it was
    assert "2 of 2 rows reused" in capsys.readouterr().out
    again = json.loads((out / "results.json").read_text())
    assert [{**r, "reused": False} for r in again] == first_rows and all(r["reused"] for r in again)


def test_the_same_data_under_two_names_has_one_identity(tmp_path, shared_data):
    """A registry name and a folder holding the same data (plain instead of gzip) are one dataset identity."""
    import gzip

    from sounding.datasets import dataset_identity, load_dataset

    src = shared_data / "beir" / "scifact"
    copy = tmp_path / "my-scifact"
    (copy / "qrels").mkdir(parents=True)
    for name in ("corpus.jsonl", "queries.jsonl"):
        (copy / name).write_bytes(gzip.decompress((src / f"{name}.gz").read_bytes()))
    shutil.copy(src / "qrels" / "test.tsv", copy / "qrels" / "test.tsv")
    by_name, by_path = load_dataset("scifact"), load_dataset(copy)
    assert by_name.name != by_path.name
    assert dataset_identity(by_name).key == dataset_identity(by_path).key
    qrels = copy / "qrels" / "test.tsv"
    qrels.write_bytes(qrels.read_bytes().replace(b"\t1\r\n", b"\t2\r\n", 1))
    assert dataset_identity(load_dataset(copy)).changed(dataset_identity(by_name).to_dict()) == ["qrels"]


# -- resume verifies before reusing ------------------------------------------------------------------------------
@pytest.fixture
def finished_run(tmp_path):
    """A finished `sounding run` of two settings, and how to run it again (in-process, its stdout)."""
    ds = mini_dataset(tmp_path / "ds", n_docs=60)
    out = tmp_path / "out"
    args = ["run", str(ds), "--out", str(out), "--layouts", "flat", "--params", "anserini", "--threads", "1"]
    assert main(args) == 0
    rows = {r["setting"]: r for r in json.loads((out / "results.json").read_text())}
    return out, args, rows


FLAT = "sounding.bm25.flat.anserini"


def _again(args, capsys) -> tuple[str, dict]:
    capsys.readouterr()
    assert main(args) == 0
    printed = capsys.readouterr()
    assert "Traceback" not in printed.err
    rows = json.loads((Path(args[args.index("--out") + 1]) / "results.json").read_text())
    return printed.out, {r["setting"]: r for r in rows}


@pytest.mark.parametrize("damage", ["deleted", "truncated", "flipped"])
def test_a_damaged_run_file_is_computed_again(finished_run, capsys, damage):
    out, args, rows = finished_run
    run = out / rows[FLAT]["run_file"]
    good = run.read_bytes()
    if damage == "deleted":
        run.unlink()
    elif damage == "truncated":
        run.write_bytes(good[: len(good) // 2])
    else:
        run.write_bytes(good[:-3] + bytes([good[-3] ^ 1]) + good[-2:])  # same size, one bit
    printed, again = _again(args, capsys)
    assert f"{FLAT} (computed again: its file {run}" in " ".join(printed.split())
    assert run.read_bytes() == good and not again[FLAT]["reused"]
    assert again[FLAT]["metrics"] == rows[FLAT]["metrics"] and again[FLAT]["run_file_sha256"] == rows[FLAT]["run_file_sha256"]
    assert again[f"{FLAT}.lucene-norms"]["reused"]


def test_an_edited_row_is_not_carried_into_results(finished_run, capsys):
    out, args, rows = finished_run
    row_file = out / rows[FLAT]["run_file"].replace("runs/", "rows/", 1).replace(".trec", ".json")
    saved = json.loads(row_file.read_text())
    saved["row"]["metrics"]["nDCG@10"] = 0.99
    row_file.write_text(json.dumps(saved))
    printed, again = _again(args, capsys)
    assert "no longer matches its digest" in printed
    assert again[FLAT]["metrics"]["nDCG@10"] == rows[FLAT]["metrics"]["nDCG@10"] != 0.99


@pytest.mark.parametrize("content", ['{"key":', "[]", "", '{"key": "x", "row": 1, "digest": "0"}'])
def test_a_corrupt_row_file_is_computed_again_without_a_traceback(finished_run, capsys, content):
    out, args, rows = finished_run
    row_file = out / rows[FLAT]["run_file"].replace("runs/", "rows/", 1).replace(".trec", ".json")
    row_file.write_text(content)
    printed, again = _again(args, capsys)
    assert f"{FLAT} (computed again: its row file" in " ".join(printed.split())
    assert again[FLAT]["metrics"] == rows[FLAT]["metrics"]


def test_an_edited_per_query_file_is_computed_again(finished_run, capsys):
    out, args, rows = finished_run
    pq = out / rows[FLAT]["per_query_file"]
    good = pq.read_bytes()
    values = json.loads(good)
    values["nDCG@10"]["q1"] = 1.0
    pq.write_text(json.dumps(values))
    printed, again = _again(args, capsys)
    assert "computed again: its file" in printed and not again[FLAT]["reused"]
    assert pq.read_bytes() == good


def test_rows_say_what_made_them_and_reuse_needs_all_of_it(finished_run, capsys):
    out, args, rows = finished_run
    row = rows[FLAT]
    run = out / row["run_file"]
    assert row["run_file_bytes"] == run.stat().st_size and len(row["run_file_sha256"]) == 64
    assert row["computed"][:4].isdigit() and row["reused"] is False and len(row["dataset_id"]) == 64
    printed, again = _again(args + ["--hits", "50"], capsys)
    assert "(computed again: changed: hits 1000 → 50)" in printed
    printed, again = _again(args, capsys)
    assert "(computed again: changed: hits 50 → 1000)" in printed
    printed, again = _again(args, capsys)
    assert "2 of 2 rows reused from earlier runs (computed" in printed and again[FLAT]["reused"]
    assert again[FLAT]["computed"] > row["computed"] or again[FLAT]["computed"][:10] == row["computed"][:10]


# -- user code fails in one line; what it returns is checked as a run file is ------------------------------------
SYSTEMS = '''
class Base:
    def index(self, documents):
        self.ids = [d.id for d in documents]

    def search(self, queries, k):
        return {q: {d: 1.0 / (i + 1) for i, d in enumerate(self.ids[:k])} for q in queries}


class FailsInSearch(Base):
    def search(self, queries, k):
        raise ValueError("boom in search")


class FailsInIndex(Base):
    def index(self, documents):
        raise RuntimeError("boom in index")


def failing_factory():
    raise KeyError("no model here")


class IntIds(Base):
    def search(self, queries, k):
        return {q: {1: 2.0, "1": 1.0} for q in queries}


class StringScores(Base):
    def search(self, queries, k):
        return {q: {self.ids[0]: "1_0"} for q in queries}


class NulId(Base):
    def search(self, queries, k):
        return {q: {"d\\x00x": 1.0} for q in queries}


class AllDocs(Base):  # every document for every query, and the query nobody asked for
    def search(self, queries, k):
        return {q: {d: 1.0 / (i + 1) for i, d in enumerate(self.ids)} for q in [*queries, "q99"]}


class NotInCorpus(Base):
    def search(self, queries, k):
        return {q: {**{d: 2.0 for d in self.ids[:3]}, "ghost1": 1.0, "ghost2": 0.5} for q in queries}
'''


@pytest.fixture
def systems(tmp_path, monkeypatch):
    """A dataset, an OUT holding its finished BM25 reference row, and a module of user systems on the path."""
    (tmp_path / "mods").mkdir()
    (tmp_path / "mods" / "hostile_systems.py").write_text(SYSTEMS)
    monkeypatch.syspath_prepend(str(tmp_path / "mods"))
    ds = mini_dataset(tmp_path / "ds", n_docs=60)
    with open(ds / "queries.jsonl", "a") as f:
        f.write(json.dumps({"_id": "q99", "text": "alpha"}) + "\n")  # a query of the dataset nobody judged
    out = tmp_path / "out"
    assert main(["run", str(ds), "--out", str(out), "--layouts", "flat", "--params", "anserini", "--norms", "exact"]) == 0
    return ds, out


@pytest.mark.parametrize("spec,step", [("hostile_systems:FailsInSearch", "search raised ValueError: boom in search"),
                                       ("hostile_systems:FailsInIndex", "index raised RuntimeError: boom in index"),
                                       ("hostile_systems:failing_factory", "the factory raised KeyError: 'no model here'")])
def test_user_code_that_raises_is_one_line_and_keeps_nothing(systems, capsys, spec, step):
    ds, out = systems
    before = _outside_lock(snapshot(out))
    capsys.readouterr()
    args = ["run", str(ds), "--out", str(out), "--retriever", f"bad={spec}"]
    assert main(args) == 2
    err = capsys.readouterr().err
    one_line_error(err, step, "--debug")
    assert "'bad'" in err or spec in err
    assert _outside_lock(snapshot(out)) == before  # no row, run or per-query file of it; results.json as it was
    assert main(["--debug", *args]) == 2
    err = capsys.readouterr().err
    assert "Traceback (most recent call last)" in err and step.split(": ", 1)[1].strip("'") in err
    assert err.strip().splitlines()[-1].startswith("error:")


@pytest.mark.parametrize("cls,message", [("IntIds", "document id 1 is an int, not a string"),
                                         ("StringScores", "score '1_0' is a str, not a number"),
                                         ("NulId", r"document id 'd\x00x' holds a control character")])
def test_retriever_results_checked_as_run_files_are(systems, capsys, cls, message):
    ds, out = systems
    before = _outside_lock(snapshot(out))
    capsys.readouterr()
    assert main(["run", str(ds), "--out", str(out), "--retriever", f"mine=hostile_systems:{cls}"]) == 2
    one_line_error(capsys.readouterr().err, "retriever 'mine' (hostile_systems:", message)
    assert _outside_lock(snapshot(out)) == before


def test_more_than_k_hits_and_queries_not_asked_for_are_said_once(systems, capsys):
    ds, out = systems
    capsys.readouterr()
    assert main(["run", str(ds), "--out", str(out), "--retriever", "all=hostile_systems:AllDocs", "--hits", "5"]) == 0
    printed = " ".join(capsys.readouterr().out.split())
    assert printed.count("got more than the 5 hits asked for") == 1 and "50 queries got more" in printed
    assert printed.count("1 query of its results was not asked for") == 1
    row = next(r for r in json.loads((out / "results.json").read_text()) if r["setting"] == "user.all")
    lines = (out / row["run_file"]).read_text().splitlines()
    assert max(int(line.split()[3]) for line in lines) == 5 and not any(line.startswith("q99 ") for line in lines)
    assert row["hits_capped_queries"] == 50 and row["queries_not_asked"] == 1


def test_documents_not_in_the_corpus_are_counted_per_system(systems, capsys):
    ds, out = systems
    capsys.readouterr()
    assert main(["run", str(ds), "--out", str(out), "--retriever", "ghosts=hostile_systems:NotInCorpus"]) == 0
    printed = " ".join(capsys.readouterr().out.split())
    assert "100 of 250 returned documents are not in the corpus" in printed
    row = next(r for r in json.loads((out / "results.json").read_text()) if r["setting"] == "user.ghosts")
    assert row["not_in_corpus"] == {"hits": 100, "of": 250}
