"""`sounding diff QRELS|DATASET RUN_A RUN_B`: per-query values equal to `sounding eval --per-query` (on the
fixture, and on scifact and nfcorpus runs of `sounding run`), RBO and KTU as sounding.eval.agreement gives
them, the paired test as `sounding compare`, --json for scripts, --html for the standalone explorer page."""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from sounding.cli import main
from sounding.eval import read_qrels, read_run, write_run
from sounding.eval.agreement import ktu, ranking, rbo

REPO = Path(__file__).resolve().parents[1]
TINY = REPO / "tests" / "fixtures" / "tiny-beir"


def cli_json(capsys, *args) -> dict:
    capsys.readouterr()
    assert main(list(args)) == 0
    return json.loads(capsys.readouterr().out)


@pytest.fixture
def two_runs(tmp_path):
    """Two runs of the fixture's queries: B ranks the documents the other way round; the query q1 has its own
    id among A's hits (the BEIR convention drops it)."""
    docs = [f"d{i}" for i in range(1, 9)]
    qrels = read_qrels(TINY / "qrels" / "test.tsv")
    a = {q: {d: 10.0 - i for i, d in enumerate(docs)} for q in qrels}
    a["q1"]["q1"] = 20.0
    b = {q: {d: 1.0 + i for i, d in enumerate(docs)} for q in qrels}
    b["q2"] = {"d2": 1.0, "d3": 1.0}  # a tie: trec_eval's order (docid descending) decides
    write_run(a, tmp_path / "a.trec", tag="a")
    write_run(b, tmp_path / "b.trec", tag="b")
    return tmp_path / "a.trec", tmp_path / "b.trec"


@pytest.mark.parametrize("own", [[], ["--remove-self-hits"]])
def test_per_query_values_are_sounding_evals(two_runs, capsys, own):
    a, b = two_runs
    qrels = TINY / "qrels" / "test.tsv"
    got = cli_json(capsys, "diff", str(qrels), str(a), str(b), "--json", *own)
    per = got["per_query"]
    for side, path in (("a", a), ("b", b)):
        ev = cli_json(capsys, "eval", str(qrels), str(path), "-m", "nDCG@10", "--per-query", "--json", *own)
        assert {q: v[side] for q, v in per.items()} == ev["per_query"]["nDCG@10"]  # exactly, not approximately
        assert got[f"mean_{side}"] == ev["nDCG@10"]
    ra, rb = read_run(a), read_run(b)
    drop = bool(own)
    for q, v in per.items():
        assert v["diff"] == v["a"] - v["b"]
        la = ranking(ra.get(q, {}), drop=q if drop else None)
        lb = ranking(rb.get(q, {}), drop=q if drop else None)
        assert v["rbo"] == pytest.approx(rbo(la, lb), abs=1e-12)  # one query or many at once: sums in another order
        assert (v["ktu"] is None and math.isnan(ktu(la, lb))) or v["ktu"] == pytest.approx(ktu(la, lb), abs=1e-12)
    assert ("q1" in ranking(ra["q1"])) and ("q1" not in ranking(ra["q1"], drop="q1"))
    # the paired test is `sounding compare`'s
    cmp = cli_json(capsys, "compare", str(qrels), str(a), str(b), "-m", "nDCG@10", "--json", *own)["nDCG@10"]
    assert {k: got[k] for k in ("diff", "t_pvalue", "rand_pvalue", "wins", "ties", "losses")} == \
        {k: cmp[k] for k in ("diff", "t_pvalue", "rand_pvalue", "wins", "ties", "losses")}


def test_terminal_table_and_html_page(two_runs, tmp_path, capsys):
    a, b = two_runs
    page = tmp_path / "diff.html"
    capsys.readouterr()
    assert main(["diff", str(TINY), str(a), str(b), "--top", "3", "--html", str(page)]) == 0
    out, err = capsys.readouterr()
    assert "wins/ties/losses" in out and "mean RBO" in out and "largest |A − B|" in out
    assert f"explorer page: {page}" in err
    html = page.read_text()
    assert 'id="explorer"' in html and 'id="explorer-data"' in html and "<title>Sounding diff — a.trec vs b.trec" in html
    assert "No dataset was named" not in html  # a dataset: titles and snippets
    assert main(["diff", str(TINY / "qrels" / "test.tsv"), str(a), str(b), "--html", str(page)]) == 0
    assert "No dataset was named" in page.read_text()


def test_bad_input_is_one_line(two_runs, tmp_path, capsys):
    a, _ = two_runs
    capsys.readouterr()
    assert main(["diff", str(TINY), str(a), str(tmp_path / "missing.trec")]) == 2
    err = capsys.readouterr().err
    assert "missing.trec" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


@pytest.mark.realdata
@pytest.mark.parametrize("dataset", ["scifact", "nfcorpus"])
def test_equal_to_sounding_eval_on_real_runs(beir_dir, tmp_path, capsys, dataset):
    from sounding.experiment import run_experiment

    data = beir_dir(dataset)
    run_experiment([str(data)], tmp_path / "out", layouts=["flat"], params=["anserini"], log=lambda m: None)
    runs = sorted((tmp_path / "out" / "runs").glob(f"{dataset}-*/*.trec"))
    assert len(runs) == 2  # exact and Lucene arithmetic
    qrels = data / "qrels" / "test.tsv"
    got = cli_json(capsys, "diff", str(qrels), str(runs[0]), str(runs[1]), "--json", "--remove-self-hits")
    for side, path in (("a", runs[0]), ("b", runs[1])):
        ev = cli_json(capsys, "eval", str(qrels), str(path), "--per-query", "--json", "--remove-self-hits",
                      "-m", "nDCG@10")
        assert {q: v[side] for q, v in got["per_query"].items()} == ev["per_query"]["nDCG@10"]
    # the run's own top 10 lists, as `sounding run` kept them, are the ones compared
    from sounding.results import RANKING

    kept = json.loads((tmp_path / "out" / "per_query" / runs[0].parent.name / f"{runs[0].name[:-5]}.json").read_text())[RANKING]
    run = read_run(runs[0])
    assert all(kept[q] == ranking(run.get(q, {}), drop=q) for q in kept)
    assert 0.5 < got["mean_rbo"] < 1.0  # the two arithmetics mostly agree
