"""read_qrels' one-split path gives the line reader's qrels, and hands every unusual file to it (which names
the fault as before)."""
import numpy as np
import pytest

from sounding.errors import DataError
from sounding.eval import read_qrels
from sounding.eval.trec import _read_qrels_fast, _read_qrels_lines


def _text(seed=0, n=400):
    rng = np.random.default_rng(seed)
    lines = [f"q{rng.integers(40)} 0 d{i} {rng.integers(0, 4)}" for i in range(n)]
    return "\n".join(lines) + "\n"


VARIANTS = {
    "plain": lambda t: t,
    "tabs": lambda t: t.replace(" ", "\t"),
    "crlf, blank lines, no final newline": lambda t: "\n\n" + t.replace("\n", "\r\n").rstrip() + "\n   \n" + "qz 0 dz 7",
    "runs of spaces": lambda t: t.replace(" ", "   "),
}


@pytest.mark.parametrize("name", list(VARIANTS))
def test_fast_path_reads_what_the_line_reader_reads(tmp_path, name):
    p = tmp_path / "q.txt"
    p.write_text(VARIANTS[name](_text()))
    data = p.read_bytes()
    fast = _read_qrels_fast(data)
    assert fast is not None and fast == _read_qrels_lines(data, p)
    assert list(fast) == list(_read_qrels_lines(data, p))  # the same order of queries
    assert read_qrels(p) == fast


@pytest.mark.parametrize("line,message", [
    ("q1 0 d1", "expected 4 columns"),
    ("q1 0 d1 1 extra", "expected 4 columns"),
    ("q1 0 dup 2", "judged twice"),
    ("q1 0 d9 1x", "not an integer"),
    ("q1 0 d9 \x1c", "not an integer"),  # 0x1c: whitespace to str.split(), not to bytes.split()
])
def test_what_the_fast_path_refuses_the_line_reader_reports(tmp_path, line, message):
    p = tmp_path / "q.txt"
    p.write_text("q1 0 dup 1\nq2 0 d2 0\n" + line + "\n")
    assert _read_qrels_fast(p.read_bytes()) is None
    with pytest.raises(DataError, match=message) as e:
        read_qrels(p)
    assert ":3" in str(e.value)


@pytest.mark.parametrize("text", ["q1 0 d1 +2\n", "# comment\nq1 0 d1 2\n", "q1 0 dé 1\n",
                                  "query-id\tcorpus-id\tscore\nq1\td1\t1\n", ""])
def test_other_files_go_the_line_readers_way(tmp_path, text):
    p = tmp_path / "q.txt"
    p.write_text(text, encoding="utf-8")
    assert _read_qrels_fast(p.read_bytes()) is None
    assert read_qrels(p) == _read_qrels_lines(p.read_bytes(), p)
