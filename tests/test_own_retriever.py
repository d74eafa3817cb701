"""Bring your own system: a retriever object, an import path and run files through `sounding run`, scored,
tested against the BM25 reference row and shown in the report; the public API; the README quickstart."""
from __future__ import annotations

import gzip
import json
import math
import re
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

import pytest

import sounding
from sounding.cli import main
from sounding.retrieval.retrievers import BM25Retriever, RunFileRetriever
from sounding.retrieval.systems import load_retriever

REPO = Path(__file__).resolve().parents[1]
TINY = REPO / "tests" / "fixtures" / "tiny-beir"
REF = "sounding.bm25.flat.anserini"
MEASURES = ["nDCG@10", "R@100", "R@1000", "RR@100", "judged@10"]


class TfIdf:
    """A small TF-IDF retriever (cosine over log-tf × idf weights), defined outside the package."""

    name = "tfidf"

    def index(self, documents):
        tf = {d.id: Counter(re.findall(r"[a-z0-9]+", f"{d.title} {d.text}".lower())) for d in documents}
        df = Counter(t for c in tf.values() for t in c)
        self.idf = {t: math.log(len(tf) / n) + 1.0 for t, n in df.items()}
        self.postings = defaultdict(list)
        for doc, counts in tf.items():
            w = {t: (1 + math.log(n)) * self.idf[t] for t, n in counts.items()}
            norm = math.sqrt(sum(v * v for v in w.values())) or 1.0
            for t, v in w.items():
                self.postings[t].append((doc, v / norm))

    def search(self, queries, k):
        run = {}
        for qid, text in queries.items():
            scores = defaultdict(float)
            for t in set(re.findall(r"[a-z0-9]+", text.lower())):
                for doc, v in self.postings.get(t, ()):
                    scores[doc] += v * self.idf[t]
            run[qid] = dict(sorted(scores.items(), key=lambda h: (-h[1], h[0]))[:k])
        return run


def quiet(_msg):
    pass


def eval_json(qrels: Path, run: Path, capsys) -> dict:
    """`sounding eval` on a run file (BEIR convention), as the CLI prints it."""
    capsys.readouterr()
    args = ["eval", str(qrels), str(run), "--remove-self-hits", "--json"] + [a for m in MEASURES for a in ("-m", m)]
    assert main(args) == 0
    return json.loads(capsys.readouterr().out)


def per_query(out: Path, row: dict) -> dict:
    return json.loads((out / row["per_query_file"]).read_text())["nDCG@10"]


def check_user_rows(out: Path, rows: list[dict], dataset: str, names: list[str]) -> dict[str, dict]:
    """The BM25 reference row and one row per system, each scored, cross-checked and tested against BM25."""
    by = {r["setting"]: r for r in rows if r["dataset"] == dataset}
    assert REF in by
    ref = by[REF]
    out_rows = {}
    for name in names:
        row = by[f"user.{name}"]
        assert row["engine"] == "user" and row["arm"] == "user" and row["system"] == name
        assert row["layout"] is None and row["k1"] is None and row["published"] is None
        assert set(MEASURES) <= set(row["metrics"]) and set(row["raw_metrics"]) == {"nDCG@10"}
        assert row["crosscheck"]["ok"]
        assert (out / row["run_file"]).is_file()
        assert re.fullmatch(rf"runs/{dataset}-[0-9a-f]{{12}}/user\.{name}\.trec", row["run_file"])
        vs = row["vs_bm25"]
        assert vs["reference"] == REF and vs["measure"] == "nDCG@10"
        # the stored test is the paired comparison of the two per-query files
        a, b = per_query(out, row), per_query(out, ref)
        qids = sorted(a.keys() & b.keys())
        c = sounding.compare([a[q] for q in qids], [b[q] for q in qids])
        assert vs["n"] == c.n == row["n_queries"]
        assert vs["diff"] == pytest.approx(row["metrics"]["nDCG@10"] - ref["metrics"]["nDCG@10"], abs=1e-12)
        assert (vs["t_pvalue"], vs["rand_pvalue"], vs["diff"]) == (c.t_pvalue, c.rand_pvalue, c.diff)
        out_rows[name] = row
    return out_rows


def check_report(out: Path, dataset: str, rows: dict[str, dict]) -> None:
    sounding.write_report(out)
    md, page = (out / "report.md").read_text(), (out / "report.html").read_text()
    assert "## Your systems against BM25" in md and '<section id="user">' in page
    section = md[md.index("## Your systems against BM25"):]
    section = section[: section.index("\n## ", 3)]
    for name, row in rows.items():
        line = next(x for x in section.splitlines() if f"| user.{name} |" in x and x.startswith(f"| {dataset} "))
        assert f"{row['metrics']['nDCG@10']:.4f}" in line and f"{row['vs_bm25']['diff']:+.4f}" in line
        cell = re.search(rf'data-kind="user-diff" data-dataset="{re.escape(dataset)}" data-setting="user\.{name}"'
                         rf' data-measure="nDCG@10" data-value="([^"]+)"', page)
        assert cell and float(cell.group(1)) == row["vs_bm25"]["diff"]
        cell = re.search(rf'data-kind="user-p-rand" data-dataset="{re.escape(dataset)}" data-setting="user\.{name}"'
                         rf' data-measure="nDCG@10" data-value="([^"]+)"', page)
        assert cell and float(cell.group(1)) == row["vs_bm25"]["rand_pvalue"]
    # user systems are also rows of the main tables, beside BM25
    main_table = md[md.index("## Settings × datasets"):md.index("## Your systems")]
    assert all(f"| user.{n} |" in main_table for n in rows) and f"| {REF} |" in main_table


# -- the public API ----------------------------------------------------------------------------------
def test_public_api_lists_and_resolves_every_name():
    want = {"load_dataset", "build_index", "Searcher", "evaluate", "read_run", "write_run", "read_qrels", "compare",
            "run_experiment", "write_report", "Retriever", "Document", "Run", "Qrels", "Results", "ExperimentResult",
            "SoundingError", "DataError", "RunFileRetriever", "load_retriever"}
    assert want <= set(sounding.__all__)
    for name in sounding.__all__:
        assert getattr(sounding, name) is not None
    d = sounding.Document("d1", "t", "x")
    with pytest.raises(AttributeError):
        d.id = "d2"  # frozen
    assert not hasattr(d, "__dict__")  # slots
    assert isinstance(TfIdf(), sounding.Retriever)
    with pytest.raises(AttributeError):
        sounding.no_such_name  # noqa: B018


def test_import_sounding_is_cheap():
    code = ("import sys, sounding; print(sounding.__all__); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('numba', 'torch', 'numpy', 'scipy')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    listed, heavy = out.splitlines()
    assert "run_experiment" in listed and "Retriever" in listed
    assert heavy == "[]"


# -- a retriever object through run_experiment ------------------------------------------------------------
def test_tfidf_object_beside_bm25_on_the_fixture(tmp_path):
    out = tmp_path / "out"
    logs: list[str] = []
    res = sounding.run_experiment([str(TINY)], out, retrievers={"tfidf": TfIdf()}, log=logs.append)
    # no BM25 setting asked for: the reference row alone, then the system
    assert [r["setting"] for r in res.to_dicts()] == [REF, "user.tfidf"]
    rows = check_user_rows(out, res.to_dicts(), "tiny-beir", ["tfidf"])
    assert rows["tfidf"]["kind"] == "retriever" and rows["tfidf"]["source"].endswith("TfIdf")
    assert rows["tfidf"]["index_seconds"] is not None and rows["tfidf"]["qps"]
    assert json.loads((out / "results.json").read_text()) == res.to_dicts()
    check_report(out, "tiny-beir", rows)

    # an object without a fingerprint is never taken from the row cache; the BM25 row is
    logs.clear()
    again = sounding.run_experiment([str(TINY)], out, retrievers={"tfidf": TfIdf()}, log=logs.append)
    assert logs[0] == "tiny-beir: user.tfidf" and logs[1].startswith("tiny-beir: 1 of 2 rows reused") and len(logs) == 2
    assert again.to_dicts()[1]["metrics"] == res.to_dicts()[1]["metrics"]


def test_reference_row_is_the_same_run_file_with_or_without_user_systems(tmp_path):
    plain = sounding.run_experiment([str(TINY)], tmp_path / "a", layouts=["flat"], params=["anserini"], log=quiet)
    mixed = sounding.run_experiment([str(TINY)], tmp_path / "b", layouts=["flat", "bm25f"], params=["anserini"],
                                    retrievers=[TfIdf()], log=quiet)
    assert [r["setting"] for r in mixed.to_dicts()] == [REF, f"{REF}.lucene-norms", "sounding.bm25.bm25f.anserini",
                                                  "user.tfidf"]
    assert (tmp_path / "a" / plain.to_dicts()[0]["run_file"]).read_bytes() == \
        (tmp_path / "b" / mixed.to_dicts()[0]["run_file"]).read_bytes()
    assert plain.to_dicts()[0]["metrics"] == mixed.to_dicts()[0]["metrics"]
    # asked BM25 settings without the reference: the reference is added, first
    lucene = sounding.run_experiment([str(TINY)], tmp_path / "c", params=["lucene"], layouts=["flat"],
                                     retrievers={"t": TfIdf()}, log=quiet)
    assert [r["setting"] for r in lucene.to_dicts()] == [REF, "sounding.bm25.flat.lucene",
                                                   "sounding.bm25.flat.lucene.lucene-norms", "user.t"]


def test_bm25_retriever_returns_results_and_matches_the_builtin_row(tmp_path):
    """The registered "bm25" retriever returns Results; it must score exactly the built-in row, and with a
    fingerprint its row is reused on a rerun that gives it the same way."""
    out = tmp_path / "out"
    res = sounding.run_experiment([str(TINY)], out, retrievers={"mybm25": "bm25"}, log=quiet)
    ref, mine = res.to_dicts()
    assert mine["setting"] == "user.mybm25" and mine["metrics"] == ref["metrics"]
    strip = lambda p: [line.rsplit(" ", 1)[0] for line in (out / p).read_text().splitlines()]  # noqa: E731
    assert strip(mine["run_file"]) == strip(ref["run_file"])  # the same lines but for the tag
    assert mine["vs_bm25"]["diff"] == 0 and mine["vs_bm25"]["rand_pvalue"] == 1.0
    logs: list[str] = []
    sounding.run_experiment([str(TINY)], out, retrievers={"mybm25": "bm25"}, log=logs.append)
    assert len(logs) == 1 and logs[0].startswith("tiny-beir: 2 of 2 rows reused")
    logs.clear()  # the same class given another way: its row says so, so it is computed again
    sounding.run_experiment([str(TINY)], out, retrievers={"mybm25": BM25Retriever()}, log=logs.append)
    assert logs[0] == "tiny-beir: user.mybm25 (computed again: changed: the setting's source)"


# -- the CLI: --retriever and --run -----------------------------------------------------------------------
def write_factory_module(tmp_path: Path, name: str) -> Path:
    """A module outside the package whose `make()` returns the TF-IDF retriever of this file."""
    src = Path(__file__).read_text()
    cls = src[src.index("class TfIdf:"):src.index("def quiet(")]
    (tmp_path / f"{name}.py").write_text("import math\nimport re\nfrom collections import Counter, defaultdict\n\n\n"
                                         + cls + "\ndef make():\n    return TfIdf()\n")
    return tmp_path


def test_cli_retriever_import_path(tmp_path, monkeypatch, capsys):
    monkeypatch.syspath_prepend(str(write_factory_module(tmp_path, "own_tfidf_cli")))
    out = tmp_path / "out"
    code = main(["run", str(TINY), "--out", str(out), "--retriever", "mine=own_tfidf_cli:make",
                 "--retriever", "cls=own_tfidf_cli:TfIdf"])
    printed = capsys.readouterr().out
    assert code == 0 and "user.mine" in printed
    rows = json.loads((out / "results.json").read_text())
    got = check_user_rows(out, rows, "tiny-beir", ["mine", "cls"])
    assert got["mine"]["source"] == "own_tfidf_cli:make"
    assert got["mine"]["metrics"] == got["cls"]["metrics"]
    # the row is the run file's `sounding eval`
    assert eval_json(TINY / "qrels" / "test.tsv", out / got["mine"]["run_file"], capsys) == \
        {m: got["mine"]["metrics"][m] for m in MEASURES}
    assert "## Your systems against BM25" in (out / "report.md").read_text()


def test_cli_run_files_plain_and_gz_equal_sounding_eval(tmp_path, capsys):
    run = TfIdf()
    run.index(sounding.Document(d["_id"], d["title"], d["text"])
              for d in map(json.loads, (TINY / "corpus.jsonl").read_text().splitlines()))
    queries = {q["_id"]: q["text"] for q in map(json.loads, (TINY / "queries.jsonl").read_text().splitlines())}
    runs = tmp_path / "runs"
    sounding.write_run(run.search(queries, 1000), runs / "tiny-beir.trec", tag="theirs")
    sounding.write_run(run.search(queries, 1000), runs / "tiny-beir.trec.gz", tag="theirs")
    assert (runs / "tiny-beir.trec.gz").read_bytes()[:2] == b"\x1f\x8b"
    out = tmp_path / "out"
    code = main(["run", str(TINY), "--out", str(out), "--run", f"plain={runs}/{{dataset}}.trec",
                 "--run", f"gz={runs}/{{dataset}}.trec.gz"])
    assert code == 0, capsys.readouterr().err
    rows = json.loads((out / "results.json").read_text())
    got = check_user_rows(out, rows, "tiny-beir", ["plain", "gz"])
    assert got["plain"]["kind"] == "run" and got["plain"]["source"] == str(runs / "tiny-beir.trec")
    assert got["plain"]["search_seconds"] is None and got["plain"]["index_seconds"] is None
    for name, path in (("plain", runs / "tiny-beir.trec"), ("gz", runs / "tiny-beir.trec.gz")):
        assert eval_json(TINY / "qrels" / "test.tsv", path, capsys) == {m: got[name]["metrics"][m] for m in MEASURES}
    # an unchanged run file is not scored again; a changed one is
    logs: list[str] = []
    sounding.run_experiment([str(TINY)], out, runs={"plain": f"{runs}/{{dataset}}.trec"}, log=logs.append)
    assert len(logs) == 1 and logs[0].startswith("tiny-beir: 2 of 2 rows reused")
    logs.clear()
    lines = (runs / "tiny-beir.trec").read_text().splitlines()
    (runs / "tiny-beir.trec").write_text("\n".join(lines[1:]) + "\n")
    sounding.run_experiment([str(TINY)], out, runs={"plain": f"{runs}/{{dataset}}.trec"}, log=logs.append)
    assert logs[0] == "tiny-beir: user.plain (computed again: changed: the system's fingerprint)"


# -- one-line errors --------------------------------------------------------------------------------------
def one_line_error(argv, capsys) -> str:
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err, err
    assert len(err.strip().splitlines()) == 1, err
    return err


def test_run_file_with_foreign_query_ids_is_one_line_error(tmp_path, capsys):
    bad = tmp_path / "bad.trec"
    bad.write_text("q1 Q0 d1 1 2.0 x\nPLAIN-7 Q0 d2 1 1.0 x\n")
    err = one_line_error(["run", str(TINY), "--out", str(tmp_path / "out"), "--run", f"bad={bad}"], capsys)
    assert str(bad) in err and "'PLAIN-7'" in err and "not a query of tiny-beir" in err
    none = tmp_path / "none.trec"  # ids of the queries file, but none judged: still nothing to score
    none.write_text("")
    err = one_line_error(["run", str(TINY), "--out", str(tmp_path / "out"), "--run", f"none={none}"], capsys)
    assert str(none) in err and "none of the 7 judged test queries" in err
    err = one_line_error(["run", str(TINY), "--out", str(tmp_path / "out"), "--run",
                          f"missing={tmp_path}/{{dataset}}.trec"], capsys)
    assert f"{tmp_path}/tiny-beir.trec: no such run file" in err


def test_bad_import_paths_are_one_line_errors(tmp_path, monkeypatch, capsys):
    monkeypatch.syspath_prepend(str(write_factory_module(tmp_path, "own_tfidf_bad")))
    (tmp_path / "own_not_a_retriever.py").write_text("def make():\n    return 42\n")
    out = str(tmp_path / "out")
    cases = [
        ("x=no_such_module_xyz:make", "no module named 'no_such_module_xyz'"),
        ("x=own_tfidf_bad:nothere", "has no attribute 'nothere'"),
        ("x=own_not_a_retriever:make", "returned a int"),
        ("x=no-colon-and-unregistered", "unknown retriever 'no-colon-and-unregistered'"),
        ("just-a-path:make", "expected NAME=VALUE"),
        ("bad name=own_tfidf_bad:make", "system name 'bad name'"),
    ]
    for spec, message in cases:
        err = one_line_error(["run", str(TINY), "--out", out, "--retriever", spec], capsys)
        assert message in err, (spec, err)
    with pytest.raises(sounding.SoundingError, match="no module named"):
        load_retriever("no_such_module_xyz:make")


def test_entry_point_plugins_and_registered_names(tmp_path, monkeypatch, capsys):
    import importlib.metadata

    monkeypatch.syspath_prepend(str(write_factory_module(tmp_path, "own_tfidf_plugin")))
    eps = [importlib.metadata.EntryPoint("tfidf-plugin", "own_tfidf_plugin:make", "sounding.retrievers"),
           importlib.metadata.EntryPoint("broken", "own_no_such_module:make", "sounding.retrievers")]
    real = importlib.metadata.entry_points
    monkeypatch.setattr(importlib.metadata, "entry_points",
                        lambda **kw: [e for e in eps if e.group == kw.get("group")] if "group" in kw else real(**kw))
    assert type(load_retriever("tfidf-plugin")).__name__ == "TfIdf"
    with pytest.raises(sounding.SoundingError, match="entry point own_no_such_module:make"):
        load_retriever("broken")
    sounding.register_retriever("tfidf-registered", TfIdf)
    assert isinstance(load_retriever("tfidf-registered"), TfIdf)
    out = tmp_path / "out"
    assert main(["run", str(TINY), "--out", str(out), "--retriever", "p=tfidf-plugin"]) == 0
    assert "user.p" in {r["setting"] for r in json.loads((out / "results.json").read_text())}
    err = one_line_error(["run", str(TINY), "--out", str(out), "--retriever", "b=broken"], capsys)
    assert "cannot load it" in err


def test_run_file_retriever_fills_dataset(tmp_path):
    r = RunFileRetriever(tmp_path / "{dataset}.trec.gz", "theirs")
    with gzip.open(tmp_path / "scifact.trec.gz", "wt") as f:
        f.write("1 Q0 d1 1 2.5 t\n")
    bound = r.for_dataset("scifact")
    assert bound.path == tmp_path / "scifact.trec.gz" and bound.search({"1": "x"}, 10) == {"1": {"d1": 2.5}}
    assert bound.fingerprint.startswith("run-file:")


# -- the README quickstart --------------------------------------------------------------------------------
def readme_quickstart() -> str:
    text = (REPO / "README.md").read_text()
    block = re.search(r"## Quickstart[^\n]*\n.*?```python\n(.*?)```", text, re.S)
    assert block, "README.md has no Quickstart python block"
    return block.group(1)


def test_readme_quickstart_runs_on_the_fixture(tmp_path, monkeypatch):
    code = readme_quickstart()
    assert '["scifact"]' in code and len(code.strip().splitlines()) <= 15
    monkeypatch.chdir(tmp_path)
    ns: dict = {}
    exec(compile(code.replace('["scifact"]', repr([str(TINY)])), "README.md", "exec"), ns)
    assert [r["setting"] for r in ns["result"].to_dicts()] == [REF, "user.overlap"]
    assert "## Your systems against BM25" in Path(ns["md"]).read_text()


@pytest.mark.realdata
def test_readme_quickstart_on_scifact(shared_data, tmp_path, monkeypatch):
    monkeypatch.setenv("SOUNDING_DATA", str(shared_data))
    monkeypatch.chdir(tmp_path)
    ns: dict = {}
    exec(compile(readme_quickstart(), "README.md", "exec"), ns)
    ref, mine = ns["result"].to_dicts()
    assert ref["published"]["nDCG@10"] == 0.6789 and abs(ref["metrics"]["nDCG@10"] - 0.6789) < 0.01
    assert mine["vs_bm25"]["diff"] < 0 and mine["vs_bm25"]["rand_pvalue"] < 0.05  # word overlap loses to BM25
    assert "| scifact | user.overlap |" in Path(ns["md"]).read_text()


# -- real data: TF-IDF on scifact and nfcorpus beside BM25 --------------------------------------------------
@pytest.mark.realdata
def test_tfidf_on_scifact_and_nfcorpus_beside_bm25(shared_data, tmp_path, capsys):
    out = tmp_path / "out"
    res = sounding.run_experiment(["scifact", "nfcorpus"], out, data_dir=shared_data, retrievers={"tfidf": TfIdf()},
                                  log=quiet)
    assert [(r["dataset"], r["setting"]) for r in res.to_dicts()] == [
        ("scifact", REF), ("scifact", "user.tfidf"), ("nfcorpus", REF), ("nfcorpus", "user.tfidf")]
    published = {"scifact": 0.6789, "nfcorpus": 0.3218}
    tfidf = {}
    for dataset, pub in published.items():
        rows = check_user_rows(out, res.to_dicts(), dataset, ["tfidf"])
        ref = next(r for r in res.to_dicts() if r["dataset"] == dataset and r["setting"] == REF)
        assert ref["published"]["nDCG@10"] == pub and abs(ref["metrics"]["nDCG@10"] - pub) < 0.01
        tfidf[dataset] = rows["tfidf"]
        assert 0.2 < rows["tfidf"]["metrics"]["nDCG@10"] < ref["metrics"]["nDCG@10"] + 0.05
        assert any(p["condition"] == "bm25-flat" for p in rows["tfidf"]["published_beside"])
        check_report(out, dataset, rows)
    assert tfidf["scifact"]["n_queries"] == 300 and tfidf["nfcorpus"]["n_queries"] == 323
    # on scifact, this TF-IDF is clearly below BM25
    assert tfidf["scifact"]["vs_bm25"]["diff"] < 0 and tfidf["scifact"]["vs_bm25"]["rand_pvalue"] < 0.05
    assert "scifact — this run beside published nDCG@10 figures" in (out / "report.md").read_text()

    # the same runs as gzipped run files, {dataset} filled per dataset, through the CLI: the same metrics,
    # equal to `sounding eval` on each file
    runs = tmp_path / "runs"
    runs.mkdir()
    for dataset, row in tfidf.items():
        (runs / f"{dataset}.trec.gz").write_bytes(gzip.compress((out / row["run_file"]).read_bytes()))
    code = main(["run", "scifact", "nfcorpus", "--data-dir", str(shared_data), "--out", str(tmp_path / "out2"),
                 "--run", f"tfidf-file={runs}/{{dataset}}.trec.gz"])
    assert code == 0
    rows = json.loads((tmp_path / "out2" / "results.json").read_text())
    for dataset, row in tfidf.items():
        mine = next(r for r in rows if r["dataset"] == dataset and r["setting"] == "user.tfidf-file")
        assert mine["metrics"] == row["metrics"] and mine["vs_bm25"]["diff"] == row["vs_bm25"]["diff"]
        qrels = shared_data / "beir" / dataset / "qrels" / "test.tsv"
        assert eval_json(qrels, runs / f"{dataset}.trec.gz", capsys) == {m: mine["metrics"][m] for m in MEASURES}


def test_readme_shell_line_finds_the_module_in_the_current_folder(tmp_path):
    """The README's `sounding run ... --retriever overlap=mymodule:WordOverlap`, run as the installed script
    runs (the script's folder, not the current one, first on the import path) from the folder holding
    mymodule.py, which holds the README's class."""
    text = (REPO / "README.md").read_text()
    line = re.search(r"`(sounding run scifact --out my-run --retriever overlap=mymodule:WordOverlap)`", text)
    assert line, "README.md lost its own-retriever shell line"
    folder = tmp_path / "work"
    folder.mkdir()
    (folder / "mymodule.py").write_text(readme_quickstart().split("result = ")[0])
    launcher = tmp_path / "bin" / "sounding"  # as pip's console script: sys.path[0] is its own folder
    launcher.parent.mkdir()
    launcher.write_text("import sys\nfrom sounding.cli import main\nsys.exit(main())\n")
    args = line.group(1).split()[1:]
    args[args.index("scifact")] = str(TINY)
    r = subprocess.run([sys.executable, str(launcher), *args], cwd=folder, capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    rows = json.loads((folder / "my-run" / "results.json").read_text())
    assert [row["setting"] for row in rows] == [REF, "user.overlap"]
