"""ir_metadata headers (PRIMAD, schema 0.1): written by `search --metadata` and `run --metadata`, skipped by
`sounding eval` and trec_eval 10 (an annotated run scores as the bare one), read back, and a broken one said in
one line."""
import gzip
import subprocess

import pytest
import yaml

from sounding import build_index
from sounding.cli import main
from sounding.datasets import iter_corpus
from sounding.errors import DataError
from sounding.experiment import run_experiment
from sounding.provenance import END, START, header, read_metadata
from toy_beir import QRELS, write_beir
from trec_eval_binary import TREC_EVAL, needs_trec_eval

@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    root = write_beir(tmp_path_factory.mktemp("prov") / "toy")
    (root.parent / "qrels.trec").write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in QRELS))
    build_index(iter_corpus(root / "corpus.jsonl"), root.parent / "index", workers=1)
    return root


def _cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out, err


def test_search_metadata_writes_a_primad_header_that_reads_back(toy, tmp_path, capsys):
    plain, annotated = tmp_path / "plain.run", tmp_path / "annotated.run"
    for run, extra in ((plain, []), (annotated, ["--metadata"])):
        _cli(capsys, "search", toy.parent / "index", "--queries", toy / "queries.jsonl", "--run", run, "--k1", "1.2",
             "--tag", "mine", *extra)
    text = annotated.read_text()
    assert text.startswith(START + "\n") and text.endswith(plain.read_text())  # the header, then the same lines
    assert all(line.startswith("#") for line in text[: len(text) - len(plain.read_text())].splitlines())
    meta = read_metadata(annotated)
    assert meta["schema-version"] == 0.1 and meta["tag"] == "mine"
    assert {"platform", "implementation", "method", "data"} <= set(meta)
    (step,) = meta["method"]["retrieval"]
    assert step["name"] == "bm25" and step["k1"] == 1.2 and step["b"] == 0.4 and step["layout"] == "flat"
    assert meta["method"]["indexing"]["analyzer"] == "english-lucene"
    assert any(t.startswith("sounding==") for t in meta["platform"]["software"]["retrieval toolkit"])
    assert len(meta["data"]["test collection"]["topics sha256"]) == 64
    assert "--metadata" in meta["implementation"]["executable"]["cmd"]
    assert read_metadata(plain) is None


def test_repro_eval_reads_the_header_the_same_way(toy, tmp_path, capsys):
    run = tmp_path / "annotated.run"
    _cli(capsys, "search", toy.parent / "index", "--queries", toy / "queries.jsonl", "--run", run, "--metadata")
    lines = run.read_text().splitlines(keepends=True)
    # repro_eval's MetadataHandler.read_metadata: the first line is the start mark, then '#' stripped until the end
    assert lines[0].strip("\n") == START
    body = ""
    for line in lines[1:]:
        if line.strip("\n") == END:
            break
        body += line.strip("#")
    assert yaml.safe_load(body) == read_metadata(run)


def test_an_annotated_run_scores_as_the_bare_one(toy, tmp_path, capsys):
    plain, annotated = tmp_path / "plain.run", tmp_path / "annotated.run"
    for run, extra in ((plain, []), (annotated, ["--metadata"])):
        _cli(capsys, "search", toy.parent / "index", "--queries", toy / "queries.jsonl",
             "--run", run, *extra)
    outs = [_cli(capsys, "eval", toy.parent / "qrels.trec", run, "-m", "official", "-m", "nDCG@10", "--json", "-q")
            for run in (plain, annotated)]
    assert outs[0][0] == outs[1][0] and "warning" not in outs[1][1]


@needs_trec_eval
def test_trec_eval_10_skips_the_header(toy, tmp_path, capsys):
    plain, annotated = tmp_path / "plain.run", tmp_path / "annotated.run"
    for run, extra in ((plain, []), (annotated, ["--metadata"])):
        _cli(capsys, "search", toy.parent / "index", "--queries", toy / "queries.jsonl", "--run", run, *extra)
    outs = [subprocess.run([TREC_EVAL, "-q", "-c", "-m", "all_trec", str(toy.parent / "qrels.trec"), str(run)],
                           capture_output=True, text=True, timeout=60) for run in (plain, annotated)]
    assert outs[0].returncode == outs[1].returncode == 0
    assert outs[0].stdout == outs[1].stdout and "map" in outs[0].stdout


@pytest.mark.parametrize("gz", [False, True])
def test_run_metadata_heads_every_run_file(toy, tmp_path, gz):
    kw = dict(layouts=["flat", "multifield"], params=["anserini"], norms="exact", log=lambda m: None,
              gzip_runs=gz, command="sounding run toy --metadata")
    plain = run_experiment([str(toy)], tmp_path / "plain", **kw)
    annotated = run_experiment([str(toy)], tmp_path / "annotated", metadata=True, **kw)
    for a, b in zip(plain.rows, annotated.rows):
        assert a.metrics == b.metrics and a.setting == b.setting
        meta = read_metadata(tmp_path / "annotated" / b.run_file)
        assert meta["tag"] == b.setting and meta["implementation"]["executable"]["cmd"] == kw["command"]
        assert meta["method"]["retrieval"][0]["layout"] == b.layout
        assert len(meta["data"]["test collection"]["corpus sha256"]) == 64
        opener = gzip.open if gz else open
        with opener(tmp_path / "annotated" / b.run_file, "rt") as f, opener(tmp_path / "plain" / a.run_file, "rt") as g:
            assert [line for line in f if not line.startswith("#")] == list(g)


@pytest.mark.parametrize("text, line, says", [
    (f"{START}\n# a: 1\nq1 Q0 d1 1 1.0 t\n", 3, f"no '{END}' line before the first result line"),
    (f"{START}\n# a: 1\n", 3, f"no '{END}' line before the end of the file"),
    (f"{START}\n# a: [1, 2\n{END}\nq1 Q0 d1 1 1.0 t\n", 2, "not YAML"),
    (f"{START}\n# - just\n# - a list\n{END}\nq1 Q0 d1 1 1.0 t\n", 2, "not a YAML mapping"),
])
def test_a_broken_header_is_one_line(toy, tmp_path, capsys, text, line, says):
    run = tmp_path / "broken.run"
    run.write_text(text)
    with pytest.raises(DataError) as e:
        read_metadata(run)
    assert f"broken.run:{line}: ir_metadata header: {says}" in str(e.value) and "\n" not in str(e.value)
    bare = tmp_path / "bare.run"
    bare.write_text("".join(x for x in text.splitlines(keepends=True) if not x.startswith("#")))
    out, err = _cli(capsys, "eval", toy.parent / "qrels.trec", run, "-m", "P@1", "--json")
    warnings = [x for x in err.splitlines() if "ir_metadata" in x]
    assert len(warnings) == 1 and warnings[0].startswith("warning:") and says in warnings[0]
    assert f"broken.run:{line}" in warnings[0]
    assert out == _cli(capsys, "eval", toy.parent / "qrels.trec", bare, "-m", "P@1", "--json")[0]


def test_header_lines_are_comments_and_values_round_trip():
    meta = {"schema-version": 0.1, "tag": "t", "note": "a # in a value\nand a second line", "data": {"x": [1, 2]}}
    lines = header(meta).splitlines()
    assert lines[0] == START and lines[-1] == END and all(x.startswith("#") for x in lines)
    assert yaml.safe_load("\n".join(x[2:] for x in lines[1:-1])) == meta
