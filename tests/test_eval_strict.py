"""Input read as trec_eval 10 reads it (C strtod / strtol, whole fields, no NUL), warnings for runs that
cannot score, and a cross-check that explains single- versus double-precision differences."""
import ctypes
import ctypes.util
import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sounding.cli import main
from sounding.errors import DataError
from sounding.eval import coverage_warnings, crosscheck, evaluate, read_qrels, read_run
from sounding.trec import files as trec

QRELS = "q1 0 a 1\nq1 0 b 0\nq2 0 c 2\nq3 0 d 1\n"
RUN = "q1 Q0 a 1 3.0 A\nq1 Q0 x 2 2.0 A\nq2 Q0 c 1 4.0 A\nq3 Q0 d 1 1.0 A\n"


def write(tmp_path, name, data):
    p = tmp_path / name
    p.write_bytes(data if isinstance(data, bytes) else data.encode())
    return p


def read_run_both_ways(path, monkeypatch):
    """read_run through the line reader and through the fast reader: (result or error message) of each."""
    out = []
    for min_bytes in (1 << 62, 0):
        monkeypatch.setattr(trec, "FAST_PATH_MIN_BYTES", min_bytes)
        try:
            out.append(read_run(path))
        except DataError as e:
            out.append(str(e))
    return out


def as_hex(run):
    return {q: {d: s.hex() for d, s in h.items()} for q, h in run.items()}


# ------------------------------------------------------------------------------------------- run scores

ACCEPTED = [
    ("2.5", 2.5), ("-1e-3", -0.001), (".5", 0.5), ("5.", 5.0), ("+3", 3.0), ("1E+2", 100.0), ("0001.50", 1.5),
    ("0x1p3", 8.0), ("0X1P-3", 0.125), ("0x10", 16.0), ("-0x1.8p1", -3.0), ("0x.8", 0.5), ("0x1.p3", 8.0),
    ("1e-400", 0.0), ("12345678901234567890", 1.2345678901234567e19),
]
REFUSED = [
    ("1_0", "not a number ('_' digit separators"),
    ("1_000.5", "not a number ('_' digit separators"),
    ("1.2.3", "would read only its start '1.2'"),
    ("1e", "would read only its start '1'"),
    ("0x", "would read only its start '0'"),
    ("0x1p", "would read only its start '0x1'"),
    ("abc", "would read no number from it"),
    ("١", "not a number"),  # a non-ASCII digit: Python's float() reads it, strtod does not
    ("inf", "not finite"), ("-Infinity", "not finite"), ("nan", "not finite"), ("NAN(abc)", "not finite"),
    ("1e999", "not finite"), ("0x1p99999", "not finite"),
]


@pytest.mark.parametrize("text, value", ACCEPTED)
def test_scores_trec_eval_reads_are_read_the_same_way(tmp_path, monkeypatch, text, value):
    p = write(tmp_path, "r.run", f"q1 Q0 a 1 {text} t\nq1 Q0 b 2 1.0 t\n")
    line, fast = read_run_both_ways(p, monkeypatch)
    assert line == {"q1": {"a": value, "b": 1.0}}
    assert as_hex(fast) == as_hex(line)


@pytest.mark.parametrize("text, what", REFUSED)
def test_scores_trec_eval_would_misread_are_refused_by_both_readers(tmp_path, monkeypatch, text, what):
    p = write(tmp_path, "bad.run", f"q1 Q0 a 1 1.0 t\nq1 Q0 b 2 {text} t\n")
    line, fast = read_run_both_ways(p, monkeypatch)
    assert line == fast  # the same message, whichever reader ran
    assert isinstance(line, str) and line.startswith(f"{p}:2: score ") and what in line
    assert trec._read_run_fast(p.read_bytes()) is None


def test_score_1_0_is_not_ten(tmp_path, monkeypatch):
    # trec_eval 10 reads '1_0' as 1 (strtod stops at '_'), Python's float() as 10: neither is right to guess
    p = write(tmp_path, "r.run", "q1 Q0 a 1 1_0 t\n")
    line, fast = read_run_both_ways(p, monkeypatch)
    assert line == fast == f"{p}:1: score '1_0' is not a number ('_' digit separators are not part of a TREC " \
                           "number; trec_eval's strtod would read only its start '1')"


def test_rank_column_is_not_read(tmp_path, monkeypatch):
    p = write(tmp_path, "r.run", "q1 Q0 a x 1.0 t\nq1 Q0 b 1_0 2.0 t\n")
    line, fast = read_run_both_ways(p, monkeypatch)
    assert line == fast == {"q1": {"a": 1.0, "b": 2.0}}


def _libc():
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    libc = ctypes.CDLL(name)
    libc.strtod.restype = ctypes.c_double
    libc.strtod.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_char_p)]
    libc.strtoll.restype = ctypes.c_longlong
    libc.strtoll.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_char_p), ctypes.c_int]
    return libc


LIBC = _libc()
TOKEN = st.text(alphabet="0123456789+-.eEpPxXaAfF_in", min_size=1, max_size=12)


def _c_whole(fn, token: bytes, *extra):
    """C's reading of the whole token: (value, consumed everything)."""
    buf = ctypes.create_string_buffer(token)
    end = ctypes.c_char_p()
    value = fn(buf, ctypes.byref(end), *extra)
    consumed = ctypes.cast(end, ctypes.c_void_p).value - ctypes.addressof(buf)
    return value, consumed == len(token)


@pytest.mark.skipif(LIBC is None, reason="no C library to compare with")
@settings(max_examples=400, deadline=None)
@given(st.one_of(TOKEN, st.floats(allow_nan=False).map(repr), st.floats(allow_nan=False).map(float.hex)))
def test_score_rule_equals_c_strtod(token):
    token = token.encode()
    value, whole = _c_whole(LIBC.strtod, token)
    try:
        ours = trec._parse_score(token)
    except ValueError:
        assert not whole or not math.isfinite(value)
        return
    assert whole and ours.hex() == value.hex()


@pytest.mark.skipif(LIBC is None, reason="no C library to compare with")
@settings(max_examples=300, deadline=None)
@given(st.one_of(TOKEN, st.integers(-(2**70), 2**70).map(str)))
def test_grade_rule_equals_c_strtol(token):
    token = token.encode()
    value, whole = _c_whole(LIBC.strtoll, token, 10)
    try:
        ours = trec._parse_grade(token)
    except ValueError:
        assert not whole or abs(int(token)) >= 2**63 - 1  # refused: not whole, or clamped by strtol
        return
    assert whole and ours == value


# ------------------------------------------------------------------------------------------ qrels grades


@pytest.mark.parametrize(
    "text, line, what",
    [
        ("q1 0 a 1\nq1 0 b 1_0\n", 2, "grade '1_0' is not an integer ('_' digit separators"),
        ("query-id\tcorpus-id\tscore\n1\td1\t1_0\n", 2, "grade '1_0' is not an integer"),
        ("1\td1\t1_0\n1\td2\t1\n", 1, "grade '1_0' is not an integer"),  # not taken for a header
        ("q1 0 a 0x1\n", 1, "would read only its start '0'"),
        ("q1 0 a 2e1\n", 1, "would read only its start '2'"),
        ("q1 0 a 99999999999999999999\n", 1, "out of range"),
    ],
)
def test_grades_trec_eval_would_misread_are_refused(tmp_path, text, line, what):
    p = write(tmp_path, "bad.qrels", text)
    with pytest.raises(DataError) as e:
        read_qrels(p)
    assert str(e.value).startswith(f"{p}:{line}: ") and what in str(e.value)


def test_grades_trec_eval_reads(tmp_path):
    p = write(tmp_path, "q.qrels", "q1 0 a +2\nq1 0 b -1\nq1 0 c 007\n")
    assert read_qrels(p) == {"q1": {"a": 2, "b": -1, "c": 7}}


# --------------------------------------------------------------------------------------- NUL and comments


@pytest.mark.parametrize(
    "data, line",
    [
        (b"q1 Q0 a 1 1.0 t\nq1 Q0 b\x00 2 0.5 t\n", 2),  # in a docid
        (b"q\x001 Q0 a 1 1.0 t\n", 1),  # in a qid
        (b"q1 Q0 a 1 1.0 t\x00\n", 1),  # in the tag
        (b"q1 Q0 a 1 1.0 t\n\x00\n", 2),  # alone on a line
        (b"q1 Q0 a 1 1.0 t\n# a comment \x00\n", 2),  # in a comment
    ],
)
def test_nul_in_a_run_is_refused_by_both_readers(tmp_path, monkeypatch, data, line):
    p = write(tmp_path, "nul.run", data)
    slow, fast = read_run_both_ways(p, monkeypatch)
    assert slow == fast and slow.startswith(f"{p}:{line}: ") and "NUL byte" in slow


@pytest.mark.parametrize("data, line", [(b"q1 0 a\x00 1\n", 1), (b"q1 0 a 1\nq\x002 0 b 1\n", 2),
                                        (b"query-id\tcorpus-id\tscore\n1\td\x001\t1\n", 2)])
def test_nul_in_qrels_is_refused(tmp_path, data, line):
    p = write(tmp_path, "nul.qrels", data)
    with pytest.raises(DataError, match=rf"^{p}:{line}: .*NUL byte"):
        read_qrels(p)


def test_comment_lines_are_skipped_as_trec_eval_10_does(tmp_path, monkeypatch):
    p = write(tmp_path, "c.run", "# run bm25 k1 1.2 b 0.75\n  # indented\nq1 Q0 a 1 2 t\n#q1 Q0 b 2 3 t\n")
    slow, fast = read_run_both_ways(p, monkeypatch)
    assert slow == fast == {"q1": {"a": 2.0}}
    q = write(tmp_path, "c.qrels", "# judged by hand\nq1 0 a 1\n#q1 0 b 1\n")
    assert read_qrels(q) == {"q1": {"a": 1}}
    tsv = write(tmp_path, "c.tsv", "query-id\tcorpus-id\tscore\n#1\td1\t1\n")
    assert read_qrels(tsv) == {"#1": {"d1": 1}}  # BEIR TSV has no comments


# ----------------------------------------------------------------------------- runs that cannot score


def run_cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def files(tmp_path):
    return {
        "qrels": write(tmp_path, "qrels", QRELS),
        "a.run": write(tmp_path, "a.run", RUN),
        "empty.run": write(tmp_path, "empty.run", ""),
        "comments.run": write(tmp_path, "comments.run", "# nothing retrieved\n\n"),
        "unjudged.run": write(tmp_path, "unjudged.run", "x1 Q0 a 1 1.0 t\nx2 Q0 c 1 1.0 t\n"),
    }


def test_coverage_warnings_api(files):
    qrels = read_qrels(files["qrels"])
    assert coverage_warnings(qrels, read_run(files["a.run"])) == []
    assert coverage_warnings(qrels, {}, "e.run") == ["e.run: the run is empty (0 hits): all 3 judged queries score 0"]
    assert coverage_warnings(qrels, {"q1": {}}) == ["run: the run is empty (0 hits): all 3 judged queries score 0"]
    (w,) = coverage_warnings(qrels, read_run(files["unjudged.run"]), "u.run")
    assert w.startswith("u.run: none of the run's 2 queries is judged in the qrels (3 judged queries)")
    assert coverage_warnings(qrels, {"q1": {"zz": 1.0}}) == []  # a judged query without judged hits: fine


@pytest.mark.parametrize("name", ["empty.run", "comments.run"])
@pytest.mark.parametrize("as_json", [False, True])
def test_eval_of_an_empty_run_warns_on_one_line(files, capsys, name, as_json):
    code, out, err = run_cli(capsys, "eval", files["qrels"], files[name], *(["--json"] if as_json else []))
    assert code == 0 and "Traceback" not in err
    assert err.splitlines() == [f"warning: {files[name]}: the run is empty (0 hits): all 3 judged queries score 0"]
    if as_json:
        assert json.loads(out) == {"nDCG@10": 0.0, "R@100": 0.0, "RR@100": 0.0, "judged@10": 0.0}
    else:
        assert "mean over 3 judged queries" in " ".join(out.split()) and "0.0000" in out  # rich may wrap


def test_eval_of_a_run_with_no_judged_query_warns_on_one_line(files, capsys):
    code, out, err = run_cli(capsys, "eval", files["qrels"], files["unjudged.run"], "--json")
    assert code == 0 and json.loads(out)["nDCG@10"] == 0.0
    assert err.splitlines() == [
        f"warning: {files['unjudged.run']}: none of the run's 2 queries is judged in the qrels (3 judged queries): "
        "all score 0; do the query ids match?"
    ]


def test_compare_warns_once_per_run_that_cannot_score(files, capsys):
    code, out, err = run_cli(capsys, "compare", files["qrels"], files["a.run"], files["empty.run"], "-m", "RR", "--json")
    assert code == 0
    empty = f"warning: {files['empty.run']}: the run is empty (0 hits): all 3 judged queries score 0"
    assert err.splitlines() == [empty]
    rr = json.loads(out)["RR"]
    assert rr["n"] == 3 and rr["mean_b"] == 0.0 and rr["mean_a"] == pytest.approx(1.0)
    code, out, err = run_cli(capsys, "compare", files["qrels"], files["unjudged.run"], files["empty.run"])
    assert code == 0 and "randomization p" in out
    lines = err.splitlines()
    assert len(lines) == 2 and all(line.startswith("warning: ") for line in lines)
    assert "none of the run's 2 queries is judged" in lines[0] and "the run is empty" in lines[1]
    code, _, err = run_cli(capsys, "compare", files["qrels"], files["a.run"], files["a.run"])
    assert code == 0 and err == ""


# --------------------------------------------------------------------------------- CLI: one-line errors


@pytest.mark.parametrize(
    "qrels_data, run_data, where, what",
    [
        (QRELS, "q1 Q0 a 1 1_0 A\n", "bad.run:1", "score '1_0' is not a number"),
        ("q1 0 a 1\nq2 0 c 1_0\n", RUN, "bad.qrels:2", "grade '1_0' is not an integer"),
        (QRELS, b"q1 Q0 a 1 1.0 A\nq1 Q0 b\x00 2 0.5 A\n", "bad.run:2", "NUL byte"),
        (QRELS, b"q\x001 Q0 a 1 1.0 A\n", "bad.run:1", "NUL byte"),
        (b"q1 0 a 1\nq1 0 b\x00 1\n", RUN, "bad.qrels:2", "NUL byte"),
    ],
)
@pytest.mark.parametrize("command", ["eval", "compare", "crosscheck"])
def test_strict_input_errors_are_one_line(tmp_path, capsys, qrels_data, run_data, where, what, command):
    qrels = write(tmp_path, "bad.qrels", qrels_data)
    run = write(tmp_path, "bad.run", run_data)
    code, out, err = run_cli(capsys, command, qrels, run, *([run] if command == "compare" else []))
    assert code == 2 and out == "" and "Traceback" not in err
    (line,) = err.strip().splitlines()
    assert line.startswith("error: ") and where in line and what in line


def test_hex_scores_rank_as_trec_eval_ranks_them(files, capsys, tmp_path):
    run = write(tmp_path, "hex.run", "q1 Q0 a 1 0x1p3 t\nq1 Q0 b 2 0x10 t\n")  # 8 and 16: b first
    code, out, _ = run_cli(capsys, "eval", files["qrels"], run, "-m", "RR", "--json", "--per-query")
    assert code == 0 and json.loads(out)["per_query"]["RR"]["q1"] == 0.5


# ------------------------------------------------------------------------------ cross-check and float32

F32_QRELS = {"q1": {"a": 1}, "q2": {"c": 1}}
# 1.00000001 and 1.0 are distinct doubles but the same float32: in double a ranks first, in float32 the
# two tie and the docid order (descending) puts b first.
F32_RUN = {"q1": {"a": 1.00000001, "b": 1.0}, "q2": {"c": 2.0, "d": 1.0}}


def test_a_float32_only_difference_is_explained_not_a_mismatch():
    assert evaluate(F32_QRELS, F32_RUN, ["RR@100"])["RR@100"] == 1.0  # double precision, as trec_eval 10
    report = crosscheck(F32_QRELS, F32_RUN)
    assert not report.exact and report.explained_by_float32 and report.ok
    rr = {c.measure: c for c in report.checks}["RR@100"]
    assert rr.ours == 1.0 and rr.pytrec_eval == 0.75 and rr.worst_qid == "q1"  # the difference is still shown
    assert max(c.max_diff for c in report.float32_checks) == 0.0
    text = str(report)
    assert "MISMATCH" not in text and "OK (float32)" in text
    assert "pytrec_eval (trec_eval 9.x) reads scores in single precision, trec_eval 10 and Sounding in double" in text


def test_an_exact_agreement_does_not_rerun_in_float32():
    report = crosscheck(F32_QRELS, {"q1": {"a": 2.0, "b": 1.0}, "q2": {"c": 2.0}})
    assert report.exact and report.ok and report.float32_checks is None and not report.explained_by_float32
    assert str(report).splitlines()[-1].startswith("OK: 2 judged queries")


def test_crosscheck_cli_explains_float32_and_exits_0(tmp_path, capsys):
    qrels = write(tmp_path, "qrels", "q1 0 a 1\nq2 0 c 1\n")
    run = write(tmp_path, "f32.run", "q1 Q0 a 1 1.00000001 t\nq1 Q0 b 2 1.0 t\nq2 Q0 c 1 2 t\nq2 Q0 d 2 1 t\n")
    assert read_run(run) == F32_RUN
    code, out, err = run_cli(capsys, "crosscheck", qrels, run)
    assert code == 0 and err == ""
    assert "OK (float32)" in out and "MISMATCH" not in out and "single precision" in out
    code, out, _ = run_cli(capsys, "crosscheck", qrels, run, "--tolerance", "-1")
    assert code == 1 and "MISMATCH" in out  # a negative tolerance: nothing is explained either


def test_crosscheck_report_carries_coverage_warnings(files):
    qrels = read_qrels(files["qrels"])
    report = crosscheck(qrels, {}, name="empty.run")
    assert report.ok and report.warnings == ("empty.run: the run is empty (0 hits): all 3 judged queries score 0",)
    assert "warning: empty.run: the run is empty" in str(report)
