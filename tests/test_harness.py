"""`sounding run`: the grid, results.json, caching and resume, the gate, and its bad-input errors."""
import json
import shutil

import pytest

from sounding.cli import main
from sounding.experiment import gate_failures, run_experiment


def make_beir(root, *, qrels=True, judged_in_corpus=True):
    root.mkdir(parents=True)
    docs = [
        ("d1", "Virus replication", "The virus replicates inside host cells."),
        ("d2", "Protein folding", "Chaperones help proteins fold correctly."),
        ("d3", "Tumor growth", "Tumor cells divide quickly and need nutrients."),
        ("d4", "", "Gene expression changes when cells are stressed."),
        ("q2", "Protein folding chaperones", "Protein folding chaperones: protein folding and chaperones again."),
    ]
    with open(root / "corpus.jsonl", "w") as f:
        for i, t, x in docs:
            f.write(json.dumps({"_id": i, "title": t, "text": x}) + "\n")
    with open(root / "queries.jsonl", "w") as f:
        for q, t in [("q1", "how do viruses replicate"), ("q2", "protein folding chaperones"), ("q3", "tumor cells")]:
            f.write(json.dumps({"_id": q, "text": t}) + "\n")
    if qrels:
        (root / "qrels").mkdir()
        prefix = "" if judged_in_corpus else "x"
        (root / "qrels" / "test.tsv").write_text(
            f"query-id\tcorpus-id\tscore\r\nq1\t{prefix}d1\t1\r\nq2\t{prefix}d2\t2\r\nq3\t{prefix}d3\t1\r\nq3\t{prefix}d4\t0\r\n")
    return root


def test_run_grid_writes_rows_runs_and_reuses_them(tmp_path):
    data = make_beir(tmp_path / "toy")
    logs = []
    res = run_experiment([str(data)], tmp_path / "out", log=logs.append)
    assert len(res.to_dicts()) == 14  # 4 layouts × 2 parameter sets, and Lucene's arithmetic beside 3 of the layouts
    assert sum(r["lucene_norms"] for r in res.to_dicts()) == 6
    row = res.to_dicts()[0]
    assert {"dataset", "engine", "layout", "k1", "b", "metrics"} <= set(row)
    assert set(row["metrics"]) >= {"nDCG@10", "R@100", "R@1000", "RR@100", "judged@10"}
    assert set(row["raw_metrics"]) == {"nDCG@10"}
    assert all(r["crosscheck"]["ok"] for r in res.to_dicts())
    assert json.loads((tmp_path / "out" / "results.json").read_text()) == res.to_dicts()
    for r in res.to_dicts():
        assert (tmp_path / "out" / r["run_file"]).is_file() and (tmp_path / "out" / r["per_query_file"]).is_file()
    flat = next(r for r in res.to_dicts() if r["setting"] == "sounding.bm25.flat.anserini")
    # q2's own document "q2" is dropped under the BEIR convention; raw keeps it
    assert flat["metrics"]["nDCG@10"] != flat["raw_metrics"]["nDCG@10"]
    assert any("indexing" in m for m in logs)

    logs.clear()
    again = run_experiment([str(data)], tmp_path / "out", log=logs.append)
    assert [{**r, "reused": False} for r in again.to_dicts()] == res.to_dicts()  # nothing recomputed
    assert all(r.reused for r in again.rows) and not any(r.reused for r in res.rows)
    assert len(logs) == 1 and logs[0].startswith("toy: 14 of 14 rows reused from earlier runs (computed ")

    # an interrupted run: one setting's row never written → only that one is redone
    logs.clear()
    (tmp_path / "out" / res.to_dicts()[0]["run_file"].replace("runs/", "rows/", 1).rsplit("/", 1)[0]
     / "sounding.bm25.bm25f.lucene.json").unlink()
    run_experiment([str(data)], tmp_path / "out", log=logs.append)
    assert logs[0] == "toy: sounding.bm25.bm25f.lucene" and "13 of 14 rows reused" in logs[1]


def test_results_do_not_depend_on_threads(tmp_path):
    data = make_beir(tmp_path / "toy")
    a = run_experiment([str(data)], tmp_path / "a", threads=1, log=lambda m: None)
    b = run_experiment([str(data)], tmp_path / "b", threads=2, log=lambda m: None)
    for ra, rb in zip(a.to_dicts(), b.to_dicts()):
        assert (tmp_path / "a" / ra["run_file"]).read_bytes() == (tmp_path / "b" / rb["run_file"]).read_bytes()
        assert ra["metrics"] == rb["metrics"]


def test_gate_names_what_failed():
    rows = [
        {"dataset": "scifact", "engine": "sounding", "setting": "s.flat", "layout": "flat", "k1": 0.9, "b": 0.4,
         "metrics": {"nDCG@10": 0.60}, "published": {"nDCG@10": 0.6789, "source": "2CR"}},
        {"dataset": "scifact", "engine": "bm25s", "setting": "b.flat", "layout": "flat", "k1": 0.9, "b": 0.4,
         "metrics": {"nDCG@10": 0.6762}, "published": None},
    ]
    failures = gate_failures(rows)
    assert len(failures) == 2
    assert "0.0789 below the published 0.6789" in failures[0] and "below bm25s (0.6762)" in failures[1]
    rows[0]["metrics"]["nDCG@10"] = 0.6700  # within one point of both
    assert gate_failures(rows) == []


@pytest.mark.parametrize("case,message", [
    ("unknown", "unknown dataset"),
    ("no-qrels", "qrels"),
    ("not-judged", "none of the"),
    ("old-format", "another Sounding format"),
])
def test_bad_input_gives_one_line_error(tmp_path, capsys, case, message):
    out = tmp_path / "out"
    if case == "unknown":
        target = "scifactt"
    elif case == "no-qrels":
        target = str(make_beir(tmp_path / "toy", qrels=False))
    elif case == "not-judged":
        target = str(make_beir(tmp_path / "toy", judged_in_corpus=False))
    else:
        target = str(make_beir(tmp_path / "toy"))
        out.mkdir()
        (out / "run.json").write_text(json.dumps({"format": "sounding-run", "version": 0}))
    code = main(["run", target, "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) <= 3  # one message (rich may wrap it)


def test_cli_run_prints_table_and_gate(tmp_path, capsys):
    data = make_beir(tmp_path / "toy")
    code = main(["run", str(data), "--out", str(tmp_path / "out"), "--layouts", "flat", "--params", "anserini", "--gate"])
    out = capsys.readouterr().out
    assert code == 0 and "flat.anserini" in out and "Gate passed" in out
    assert (tmp_path / "out" / "report.html").is_file()


@pytest.mark.realdata
def test_sounding_run_scifact_nfcorpus_reproduces_pyserini(shared_data, tmp_path):
    res = run_experiment(["scifact", "nfcorpus"], tmp_path / "out", layouts=["flat", "multifield"], params=["anserini"],
                         data_dir=shared_data, gate=True, log=lambda m: None)
    want = {("scifact", "flat"): 0.6789, ("scifact", "multifield"): 0.6647,
            ("nfcorpus", "flat"): 0.3218, ("nfcorpus", "multifield"): 0.3254}
    for r in res.to_dicts():
        assert abs(r["metrics"]["nDCG@10"] - want[r["dataset"], r["layout"]]) <= 0.002
    assert res.gate_failures == []
