"""Run and qrels files: formats, errors naming file:line, atomic writes, and the fast reader's equivalence."""
import gzip
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sounding.errors import DataError, SoundingError
from sounding.eval import read_qrels, read_run, write_run
from sounding.trec import files as trec


def write(tmp_path, name, text, gz=False):
    p = tmp_path / name
    data = text.encode("utf-8")
    p.write_bytes(gzip.compress(data) if gz else data)
    return p


# ---------------------------------------------------------------------------------------------- qrels


def test_trec_and_beir_qrels_read_the_same(tmp_path):
    expected = {"1": {"d1": 1, "d2": 0}, "2": {"d9": 2}}
    trec_text = "1 0 d1 1\n1 0 d2 0\n\n2 Q0 d9 2\n"
    beir_text = "query-id\tcorpus-id\tscore\r\n1\td1\t1\r\n1\td2\t0\r\n2\td9\t2\r\n"  # CRLF, as scifact's
    assert read_qrels(write(tmp_path, "q.txt", trec_text)) == expected
    assert read_qrels(write(tmp_path, "q.tsv", beir_text)) == expected
    assert read_qrels(write(tmp_path, "q.tsv.gz", beir_text, gz=True)) == expected
    assert read_qrels(write(tmp_path, "q-noheader.tsv", "1\td1\t1\n1\td2\t0\n2\td9\t2\n")) == expected


@pytest.mark.parametrize(
    "text, line, what",
    [
        ("1 0 d1 1\n1 0 d2\n", 2, "expected 4 columns"),
        ("1 0 d1 1\n1 0 d2 x\n", 2, "not an integer"),
        ("query-id\tcorpus-id\tscore\n1\td1\t1\n1\td1\t0\n", 3, "judged twice"),
        ("query-id\tcorpus-id\tscore\n1\td1\n", 2, "expected 3 columns"),
        ("query-id\tcorpus-id\tscore\n1\td1\t1.5\n", 2, "not an integer"),
    ],
)
def test_malformed_qrels_name_file_and_line(tmp_path, text, line, what):
    p = write(tmp_path, "bad.qrels", text)
    with pytest.raises(DataError) as e:
        read_qrels(p)
    assert f"{p}:{line}:" in str(e.value) and what in str(e.value) and e.value.line == line


# ------------------------------------------------------------------------------------------------ runs

RUN_TEXT = "q1 Q0 d1 1 2.5 t\nq1 Q0 d2 2 1.25 t\r\nq2 Q0 d1 1 -3e-2 t\n\nq1 Q0 d3 3 1 t\n"
RUN = {"q1": {"d1": 2.5, "d2": 1.25, "d3": 1.0}, "q2": {"d1": -0.03}}


def test_read_run_plain_and_gz(tmp_path):
    assert read_run(write(tmp_path, "r.txt", RUN_TEXT)) == RUN
    assert read_run(write(tmp_path, "r.txt.gz", RUN_TEXT, gz=True)) == RUN
    assert read_run(write(tmp_path, "r.gzipped", RUN_TEXT, gz=True)) == RUN  # known by its bytes, not its name
    assert read_run(write(tmp_path, "empty.run", "")) == {}


@pytest.mark.parametrize(
    "text, line, what",
    [
        ("q1 Q0 d1 1 2.5 t\nq1 Q0 d2 2 1.0\n", 2, "expected 6 columns"),
        ("q1 Q0 d1 1 2.5 t extra\n", 1, "expected 6 columns"),
        ("q1 Q0 d1 1 2.5 t\n\nq1 Q0 d2 2 nan t\n", 3, "not finite"),
        ("q1 Q0 d1 1 inf t\n", 1, "not finite"),
        ("q1 Q0 d1 1 -Infinity t\n", 1, "not finite"),
        ("q1 Q0 d1 1 1e999 t\n", 1, "not finite"),
        ("q1 Q0 d1 1 abc t\n", 1, "not a number"),
        ("q1 Q0 d1 1 2.5 t\nq2 Q0 d1 1 2.5 t\nq1 Q0 d1 2 1.0 t\n", 3, "appears twice"),
    ],
)
def test_malformed_runs_name_file_and_line(tmp_path, text, line, what):
    p = write(tmp_path, "bad.run", text)
    with pytest.raises(DataError) as e:
        read_run(p)
    assert f"{p}:{line}:" in str(e.value) and what in str(e.value)


def test_truncated_gzip_and_missing_files_are_user_errors(tmp_path):
    whole = gzip.compress(("q1 Q0 d1 1 2.5 t\n" * 5000).encode())
    cut = tmp_path / "cut.run.gz"
    cut.write_bytes(whole[: len(whole) // 2])
    with pytest.raises(SoundingError, match="cut.run.gz.*truncated"):
        read_run(cut)
    with pytest.raises(SoundingError, match="cut.run.gz.*truncated"):
        read_qrels(cut)
    with pytest.raises(SoundingError, match="no such file"):
        read_run(tmp_path / "absent.run")


# ---------------------------------------------------------------------------------------------- writing


def test_write_run_order_ranks_format_and_cut(tmp_path):
    run = {"q2": {"a": 1.0, "b": 1.0, "c": 3.0}, "q10": {"x": 0.1234567891234, "y": 2.0}}
    p = write_run(run, tmp_path / "out" / "r.run", tag="bm25")
    lines = p.read_text().splitlines()
    assert lines == [
        "q10 Q0 y 1 2 bm25",
        "q10 Q0 x 2 0.123456789 bm25",  # f"{score:.9g}"
        "q2 Q0 c 1 3 bm25",
        "q2 Q0 b 2 1 bm25",  # tie: docid descending
        "q2 Q0 a 3 1 bm25",
    ]  # qids in sorted string order
    write_run(run, p, k=1)
    assert [line.split()[2] for line in p.read_text().splitlines()] == ["y", "c"]


def test_write_run_orders_by_the_scores_it_writes(tmp_path):
    # 1.0000000001 and 1.0000000002 both print as "1": in the file they tie, so "b" must rank first
    p = write_run({"q": {"a": 1.0000000002, "b": 1.0000000001}}, tmp_path / "r.run")
    assert [line.split()[2] for line in p.read_text().splitlines()] == ["b", "a"]


def test_write_then_read_round_trips(tmp_path):
    run = {"q1": {"d1": 2.5, "d2": -1.0, "d3": 1e-7}, "q2": {"z": 3.0}}
    for name in ("r.run", "r.run.gz"):
        assert read_run(write_run(run, tmp_path / name)) == run
    assert gzip.decompress((tmp_path / "r.run.gz").read_bytes()) == (tmp_path / "r.run").read_bytes()


def test_write_run_is_atomic(tmp_path, monkeypatch):
    p = write_run({"q": {"a": 1.0}}, tmp_path / "r.run")
    before = p.read_bytes()

    def crash(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(KeyboardInterrupt):
        write_run({"q": {"b": 2.0}}, p)
    assert p.read_bytes() == before
    assert sorted(x.name for x in tmp_path.iterdir()) == ["r.run"]  # no temp file left behind


@pytest.mark.parametrize("run", [{"q": {"a": float("nan")}}, {"q": {"a b": 1.0}}, {"q x": {"a": 1.0}}, {"q": {"": 1.0}}])
def test_write_run_refuses_what_a_trec_file_cannot_hold(tmp_path, run):
    with pytest.raises(SoundingError):
        write_run(run, tmp_path / "r.run")
    assert not (tmp_path / "r.run").exists()


# ------------------------------------------------------------------------- fast reader == line reader

GOOD = ["1", "-2.5", "0.000123", "1e-3", "1E+2", ".5", "5.", "+3", "-0", "12345678901234567890", "0.1234567890123",
        "1e-30", "7e22", "9007199254740993", "1_0", "0001.5000", "1e-400", "4.9e-324", "1.7976931348623157e308"]
BAD = ["nan", "inf", "-Infinity", "1e999", "abc", "1e", "-", "0x10", "1.2.3"]


@st.composite
def run_files(draw):
    lines = []
    for _ in range(draw(st.integers(0, 25))):
        q = draw(st.sampled_from(["q1", "q2", "10", "3"]))
        d = draw(st.sampled_from(["d", "D", "1#", "x"])) + str(draw(st.integers(0, 99)))
        s = draw(st.sampled_from(GOOD) | st.floats(allow_nan=False, allow_infinity=False).map(repr))
        if draw(st.integers(0, 60)) == 0:
            s = draw(st.sampled_from(BAD))
        cols = [q, "Q0", d, "1", s, "tag"]
        if draw(st.integers(0, 60)) == 0:
            cols = cols[: draw(st.integers(1, 5))]  # a short line now and then
        sep = draw(st.sampled_from([" ", "\t", "  ", " \t"]))
        lines.append(sep.join(cols) + draw(st.sampled_from(["", "\r", " "])))
        if draw(st.integers(0, 10)) == 0:
            lines.append(draw(st.sampled_from(["", "   ", "\r"])))
    if draw(st.integers(0, 20)) == 0:
        lines.append("q1 Q0 dé 1 1.0 t")  # non-ASCII goes to the line reader
    return ("\n".join(lines) + draw(st.sampled_from(["", "\n"]))).encode("utf-8")


def as_hex(run):
    return {q: {d: s.hex() for d, s in h.items()} for q, h in run.items()}  # bit-exact, -0.0 != 0.0


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(run_files())
def test_fast_reader_equals_line_reader(data):
    assert_fast_equals_lines(trec._read_run_fast, trec._read_run_lines, data, as_hex)


def assert_fast_equals_lines(fast_reader, line_reader, data, view):
    """A compiled reader gives what the line reader gives (seen through `view`), or hands the file over
    (None); every error is left to the line reader, which names the line."""
    fast = fast_reader(data)
    try:
        slow = line_reader(data, "f")
    except DataError:
        assert fast is None
        return
    if fast is not None:
        assert view(fast) == view(slow)


def test_fast_reader_takes_well_formed_files(tmp_path, monkeypatch):
    lines = [f"q{q} Q0 doc{d} {d + 1} {1.5 - d / 7:.6f} run" for q in (3, 1, 2) for d in range(50)]
    lines.insert(10, "")
    lines.append(lines.pop(0))  # q3's lines are not contiguous
    data = ("\n".join(lines) + "\n").encode()
    fast = trec._read_run_fast(data)
    assert fast is not None and as_hex(fast) == as_hex(trec._read_run_lines(data, "f"))
    monkeypatch.setattr(trec, "FAST_PATH_MIN_BYTES", 0)  # read_run now goes through the fast path
    p = write(tmp_path, "r.run.gz", data.decode(), gz=True)
    assert as_hex(read_run(p)) == as_hex(fast)
    bad = write(tmp_path, "bad.run", data.decode() + "q1 Q0 doc4 9 1.0 run\n")
    with pytest.raises(DataError, match=rf"bad.run:{len(lines) + 1}: document 'doc4' appears twice"):
        read_run(bad)


@st.composite
def qrels_files(draw):
    """Mostly well-formed TREC qrels, with the layouts and faults the compiled reader must take or hand over."""
    lines = []
    if draw(st.integers(0, 8)) == 0:
        lines.append(draw(st.sampled_from(["# a comment", "#\tx\ty", "query-id\tcorpus-id\tscore", "q1\td1\t1"])))
    for _ in range(draw(st.integers(0, 40))):
        q = draw(st.sampled_from(["q1", "q2", "10", "q#", "Q"]))
        d = f"d{draw(st.integers(0, 9999))}"
        if draw(st.integers(0, 30)) == 0:
            d = draw(st.sampled_from(["d1", "doc-4", "#5"]))
        g = draw(st.sampled_from(["0", "1", "2", "-1", "+3", "007", "-0", "123456789012345678"]))
        if draw(st.integers(0, 300)) == 0:
            g = draw(st.sampled_from(["1.5", "x", "1_0", "1234567890123456789", "99999999999999999999", "+", ""]))
        cols = [q, draw(st.sampled_from(["0", "Q0"])), d, g]
        if draw(st.integers(0, 300)) == 0:
            cols = cols[: draw(st.integers(1, 3))] + (["extra", "cols"] if draw(st.booleans()) else [])
        sep = draw(st.sampled_from([" ", "\t", "  ", " \t"]))
        lines.append(draw(st.sampled_from(["", " "])) + sep.join(cols) + draw(st.sampled_from(["", "\r", " "])))
        if draw(st.integers(0, 10)) == 0:
            lines.append(draw(st.sampled_from(["", "   ", "\r", "# note", " # q d 1"])))
    if draw(st.integers(0, 20)) == 0:
        lines.append(draw(st.sampled_from(["q1 0 dé 1", "q1 0 d\x01 1", "q1 0 d\x00 1"])))
    return ("\n".join(lines) + draw(st.sampled_from(["", "\n"]))).encode("utf-8")


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(qrels_files())
def test_fast_qrels_reader_equals_line_reader(data):
    # the same queries, documents and grades, in the same order
    assert_fast_equals_lines(trec._read_qrels_fast, trec._read_qrels_lines, data,
                             lambda qrels: [(q, list(j.items())) for q, j in qrels.items()])


def test_fast_qrels_reader_takes_well_formed_files(tmp_path):
    lines = [f"q{q} 0 doc{d} {(q * d) % 4 - 1}" for q in (3, 1, 2) for d in range(40)]
    lines.insert(5, "# judged by hand")
    lines.append(lines.pop(0))  # q3's judgements are not contiguous
    text = "\n".join(lines) + "\r\n"
    fast = trec._read_qrels_fast(text.encode())
    assert fast is not None and fast == trec._read_qrels_lines(text.encode(), "f") and list(fast) == ["q3", "q1", "q2"]
    p = write(tmp_path, "q.txt.gz", text, gz=True)
    assert read_qrels(p, fast=True) == fast
    assert trec._read_qrels_fast(b"query-id\tcorpus-id\tscore\n1\td1\t1\n") is None  # BEIR TSV: the line reader
    bad = write(tmp_path, "bad.qrels", text + "q1 0 doc4 2\n")
    with pytest.raises(DataError, match=rf"bad.qrels:{len(lines) + 1}: document 'doc4' is judged twice"):
        read_qrels(bad, fast=True)
