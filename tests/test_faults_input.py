"""Untrusted input, second round: ids and scores checked where they come in, lines read with a bound,
checksummed index statistics, and text escaped for where it goes. Each case asserts the exit code, one
line naming the file:line (or path, or system), no traceback, and that the files that existed before the
command are unchanged."""
import gzip
import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from sounding.cli import main
from sounding.errors import SoundingError
from sounding.eval import read_qrels, read_run
from sounding.eval.run_file import evaluate_run_file
from sounding.index import Index, build_index
from test_faults import _docs, mini_dataset, no_temp_files, one_line_error, run_cli


def snapshot(root: Path) -> dict[str, str]:
    """Every file under `root` with the sha256 of its bytes: what must be unchanged after a refused command."""
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(Path(root).rglob("*")) if p.is_file()}


def corpus_file(path: Path, docs: list[dict]) -> Path:
    path.write_text("".join(json.dumps(d) + "\n" for d in docs))
    return path


# -- ids: refused where they come in, naming file:line -----------------------------------------------------------
@pytest.mark.parametrize("bad_id,why", [("d\ud800x", "lone surrogate"), ("d\x1b[31mx", "control character"),
                                        ("d x", "whitespace"), ("", "document has no id"), (["d"], "is a list")])
def test_bad_corpus_ids_refused_at_loading(tmp_path, capsys, bad_id, why):
    corpus = corpus_file(tmp_path / "c.jsonl", [{"_id": "d1", "text": "alpha"}, {"_id": bad_id, "text": "beta"}])
    before = snapshot(tmp_path)
    assert main(["index", str(corpus), "--out", str(tmp_path / "ix")]) == 2
    err = capsys.readouterr().err
    one_line_error(err, f"{corpus}:2", why)
    assert "\x1b" not in err  # shown as \x1b, never sent to the terminal raw
    assert snapshot(tmp_path) == before or not (tmp_path / "ix" / "CURRENT").exists()


def test_surrogate_id_from_the_api_is_a_data_error(tmp_path):
    """Documents given from Python (no file read) are checked too: no UnicodeEncodeError from the build."""
    class Doc:
        def __init__(self, id, line):
            self.id, self.title, self.text, self.line = id, "", "alpha", line

    with pytest.raises(SoundingError, match=r"corpus:2: document id 'd\\ud800' holds a lone surrogate"):
        build_index([Doc("d1", 1), Doc("d\ud800", 2)], tmp_path / "ix", workers=1)
    with pytest.raises(SoundingError, match="document id 7 is an int"):
        build_index([Doc(7, 1)], tmp_path / "ix2", workers=1)


def test_integer_and_string_ids_do_not_collide(tmp_path, capsys):
    """A JSON integer id is read as its digits, so `1` and "1" in one corpus are one id twice: refused."""
    corpus = corpus_file(tmp_path / "c.jsonl", [{"_id": 1, "text": "alpha"}, {"_id": "1", "text": "beta"}])
    assert main(["index", str(corpus), "--out", str(tmp_path / "ix")]) == 2
    one_line_error(capsys.readouterr().err, f"{corpus}:2", "duplicate document id '1'")


@pytest.mark.parametrize("line,why", [('{"_id": "q\\u001b", "text": "x"}', "control character"),
                                      ('{"_id": "q1", "text": ["alpha", "beta"]}', "query text is a list"),
                                      ('{"_id": 1.5, "text": "x"}', "is a float"),
                                      ("q 1\talpha", "whitespace")])
def test_bad_queries_refused_at_loading(tmp_path, capsys, line, why):
    ds = mini_dataset(tmp_path / "ds", n_docs=20)
    (ds / "queries.jsonl").write_text((ds / "queries.jsonl").read_text() + line + "\n")
    before = snapshot(tmp_path)
    assert main(["run", str(ds), "--out", str(tmp_path / "out"), "--layouts", "flat"]) == 2
    one_line_error(capsys.readouterr().err, f"{ds / 'queries.jsonl'}:51", why)
    assert snapshot(tmp_path) == {**before, **{k: v for k, v in snapshot(tmp_path).items() if k.startswith("out/")}}
    assert not (tmp_path / "out" / "results.json").exists()


def test_search_refuses_an_escape_sequence_in_a_query_id(tmp_path, capsys):
    """The id never reaches the terminal raw: refused at loading, shown escaped."""
    build_index(_docs(20), tmp_path / "ix", workers=1)
    q = tmp_path / "q.tsv"
    q.write_text("q1\talpha\nq\x1b[2J\x1b[31mred\tthe\n")
    assert main(["search", str(tmp_path / "ix"), "-q", str(q), "--run", str(tmp_path / "r.trec")]) == 2
    err = capsys.readouterr().err
    one_line_error(err, f"{q}:2", "control character", "\\x1b[2J")
    assert "\x1b[2J" not in err and not (tmp_path / "r.trec").exists()


@pytest.mark.parametrize("qrels_line,why", [("q1\td\x7fx\t1", "control character"), ("q1\td\xa0x\t1", "whitespace")])
def test_bad_qrels_ids_refused(tmp_path, capsys, qrels_line, why):
    ds = mini_dataset(tmp_path / "ds", n_docs=20)
    with open(ds / "qrels" / "test.tsv", "a", encoding="utf-8") as f:
        f.write(qrels_line + "\n")
    assert main(["run", str(ds), "--out", str(tmp_path / "out"), "--layouts", "flat"]) == 2
    one_line_error(capsys.readouterr().err, f"{ds / 'qrels' / 'test.tsv'}:52", why)
    qrels = tmp_path / "q.trec"
    qrels.write_text(f"q1 0 d1 1\n{qrels_line.replace(chr(9), ' 0 ', 1).replace(chr(9), ' ')}\n")
    with pytest.raises(SoundingError, match=f"{qrels}:2: document id .* holds (a )?{why}"):
        read_qrels(qrels)
    with pytest.raises(SoundingError, match=f"{qrels}:2: document id .* holds (a )?{why}"):
        read_qrels(qrels, fast=True)  # the compiled reader hands the line to the checked one


@pytest.mark.parametrize("byte", [b"\x7f", b"\x1b", b"\x01", b"\xc2\x85"])  # DEL, ESC, SOH, NEL (C1)
def test_control_bytes_in_run_ids_refused_by_every_reader(tmp_path, byte):
    run = tmp_path / "r.trec"
    run.write_bytes(b"q1 Q0 d1 1 2.0 t\nq1 Q0 d" + byte + b"2 2 1.0 t\n")
    with pytest.raises(SoundingError, match=f"{run}:2: document id"):
        read_run(run)
    with pytest.raises(SoundingError, match=f"{run}:2: document id"):
        evaluate_run_file({"q1": {"d1": 1}}, run, ["nDCG@10"], fast=True)


# -- bounded reading: a line over 64 KiB refused with file:line before it is held whole -------------------------
def _long_line_run(tmp_path: Path, gz: bool) -> Path:
    body = b"q1 Q0 d1 1 2.0 t\n" + b"q1 Q0 d2 2 1.0 " + b"t" * (70 << 10) + b"\n"
    path = tmp_path / ("r.trec.gz" if gz else "r.trec")
    path.write_bytes(gzip.compress(body) if gz else body)
    return path


@pytest.mark.parametrize("gz", [False, True])
def test_run_and_qrels_lines_over_64_kib_are_refused(tmp_path, capsys, gz):
    run = _long_line_run(tmp_path, gz)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d1 1\n")
    for read in (read_run, lambda p: evaluate_run_file({"q1": {"d1": 1}}, p, ["nDCG@10"], fast=True)):
        with pytest.raises(SoundingError, match=f"{run}:2: line longer than 64 KiB"):
            read(run)
    assert main(["eval", str(qrels), str(run)]) == 2
    one_line_error(capsys.readouterr().err, f"{run}:2", "line longer than 64 KiB")
    long_qrels = tmp_path / "long.qrels"
    long_qrels.write_bytes(b"q1 0 d1 1\n" * 3 + b"q1 0 " + b"d" * (65 << 10) + b" 1\n")
    for fast in (False, True):
        with pytest.raises(SoundingError, match=f"{long_qrels}:4: line longer than 64 KiB"):
            read_qrels(long_qrels, fast=fast)


def test_a_gzip_of_one_endless_line_is_refused_in_bounded_memory(tmp_path):
    """1 GiB of one line, gzipped to ~1 MB: refused after a block, not unpacked whole (the process stays
    far below the line's size)."""
    run = tmp_path / "bomb.trec.gz"
    with gzip.open(run, "wb", compresslevel=9) as f:
        block = b"x" * (1 << 24)
        for _ in range(64):
            f.write(block)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d1 1\n")
    if not Path("/proc/self/status").is_file():
        pytest.skip("needs /proc/self/status (Linux) to read the process's peak memory")
    # VmHWM: this process's peak resident memory (getrusage's maxrss would count the forking parent's)
    code = ("import re, sys; from sounding.cli import main; rc = main(sys.argv[1:]); "
            "hwm = re.search(r'VmHWM:\\s+(\\d+)', open('/proc/self/status').read()).group(1); "
            "print('maxrss', hwm, file=sys.stderr); sys.exit(rc)")
    r = subprocess.run([sys.executable, "-c", code, "eval", str(qrels), str(run)], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 2, r.stderr
    err = r.stderr.replace(r.stderr.splitlines()[-1], "")
    one_line_error(err, f"{run}:1", "line longer than 64 KiB")
    assert int(r.stderr.split("maxrss")[-1]) < 600 * 1024  # KiB: far below the 1 GiB line


def test_a_corpus_line_is_read_with_a_bound(tmp_path, monkeypatch):
    from sounding.datasets import readers

    monkeypatch.setattr(readers, "MAX_RECORD", 1000)
    corpus = corpus_file(tmp_path / "c.jsonl", [{"_id": "d1", "text": "a" * 900}, {"_id": "d2", "text": "b" * 2000}])
    with pytest.raises(SoundingError, match=f"{corpus}:2: line longer than 0 KiB"):
        list(readers.iter_lines(corpus, 1000))


# -- checksummed statistics ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("edit", ["sum_length", "n_docs", "doc_count", "checksum"])
def test_a_changed_manifest_statistic_is_found_on_open_and_by_check(tmp_path, capsys, edit):
    build_index(_docs(30), tmp_path / "ix", workers=1)
    Index(tmp_path / "ix")  # opened once: the stamp that skips the crc32 checks is written
    gen = Index(tmp_path / "ix").folder
    manifest = json.loads((gen / "manifest.json").read_text())
    if edit == "sum_length":
        manifest["field_stats"]["flat"]["sum_length"] *= 2
    elif edit == "n_docs":
        manifest["n_docs"] += 1
    elif edit == "doc_count":
        manifest["field_stats"]["text"]["doc_count"] -= 1
    else:
        manifest["checksums"]["docs.npy"] = "00000000"
    (gen / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True))
    with pytest.raises(SoundingError, match="manifest.json does not match its digest"):
        Index(tmp_path / "ix")
    assert main(["index", str(tmp_path / "ix"), "--check"]) == 2
    one_line_error(capsys.readouterr().err, str(tmp_path / "ix"), "damaged index", "manifest.json does not match")


def test_a_changed_shard_set_statistic_is_found(tmp_path):
    from sounding.scale import ShardedSearcher
    from sounding.scale.shards import build_shards

    build_shards(_docs(30), tmp_path / "sh", 2)
    ShardedSearcher(tmp_path / "sh")
    raw = json.loads((tmp_path / "sh" / "shards.json").read_text())
    raw["field_stats"]["flat"]["sum_length"] += 10
    (tmp_path / "sh" / "shards.json").write_text(json.dumps(raw))
    with pytest.raises(SoundingError, match="shards.json: damaged: it does not match its digest"):
        ShardedSearcher(tmp_path / "sh")
    no_temp_files(tmp_path / "sh")


# -- untrusted text kept in its place ------------------------------------------------------------------------------
def _hostile_dataset(root: Path) -> Path:
    """A dataset whose folder name and query ids are HTML and Markdown."""
    ds = mini_dataset(root / "x<img src=x onerror=alert(1)>|*_[a](b)", n_docs=30)
    for name in ("queries.jsonl", "qrels/test.tsv"):
        (ds / name).write_text((ds / name).read_text().replace("q1", "q<script>1"))
    return ds


def test_report_md_shows_hostile_names_as_text(tmp_path, capsys):
    markdown_it = pytest.importorskip("markdown_it")
    ds = _hostile_dataset(tmp_path)
    out = tmp_path / "out"
    assert main(["run", str(ds), "--out", str(out), "--layouts", "flat", "--params", "anserini"]) == 0
    md = (out / "report.md").read_text()
    assert "<img" not in md and "<script>" not in md and "&lt;img src=x onerror=alert(1)&gt;" in md
    rendered = markdown_it.MarkdownIt("commonmark").enable("table").render(md)
    assert "<img" not in rendered and "<script" not in rendered and "<a href" not in rendered
    assert "x&lt;img src=x onerror=alert(1)&gt;|*_[a](b)" in rendered  # the name, as the same characters


def test_report_refuses_paths_from_results_json_that_leave_out(tmp_path):
    import sounding

    ds = mini_dataset(tmp_path / "ds", n_docs=30)
    out = tmp_path / "out"
    assert main(["run", str(ds), "--out", str(out), "--layouts", "flat", "--params", "anserini"]) == 0
    secret = tmp_path / "secret.json"
    secret.write_text('["not", "per-query values"]')
    rows = json.loads((out / "results.json").read_text())
    for bad, message in ((str(secret), "is not a path inside"), ("../secret.json", "leads outside"),
                         ("per_query/../../secret.json", "leads outside")):
        (out / "results.json").write_text(json.dumps([{**rows[0], "per_query_file": bad}, *rows[1:]]))
        before = snapshot(out)
        with pytest.raises(SoundingError, match=f"results.json row 0 .*per_query_file '{bad}' {message}"):
            sounding.write_report(out)
        assert snapshot(out) == before
    (out / "results.json").write_text(json.dumps(rows))
    (out / rows[0]["per_query_file"]).write_text('{"nDCG@10": {"q1": "high"}}')
    with pytest.raises(SoundingError, match="not a per-query file of `sounding run`"):
        sounding.write_report(out)
