"""File readers: corpus/queries/qrels formats, gzip by magic bytes, and errors that name file and line."""
import gzip
import json

import pytest

from sounding.datasets import Document, iter_corpus, load_qrels, load_queries
from sounding.errors import DataError, SoundingError


def write(path, text, gz=False):
    data = text.encode("utf-8") if isinstance(text, str) else text
    path.write_bytes(gzip.compress(data) if gz else data)
    return path


def jsonl(*rows):
    return "".join(json.dumps(r) + "\n" for r in rows)


def test_beir_corpus_plain_and_gz(tmp_path):
    text = jsonl({"_id": "d1", "title": "T", "text": "x"}, {"_id": "d2", "text": "y"}) + "\n"
    for gz in (False, True):
        p = write(tmp_path / f"c{gz}.jsonl", text, gz)  # extension says plain: magic bytes decide
        assert list(iter_corpus(p)) == [Document("d1", "T", "x", 1), Document("d2", "", "y", 2)]


def test_mrtydi_corpus_fields(tmp_path):
    p = write(tmp_path / "c.jsonl.gz", jsonl({"docid": "5#1", "title": "Kenya", "text": "Nairobi"},
                                            {"id": "5#2", "contents": "Mombasa"}), gz=True)
    assert list(iter_corpus(p)) == [Document("5#1", "Kenya", "Nairobi", 1), Document("5#2", "", "Mombasa", 2)]


def test_blank_lines_are_skipped_and_line_numbers_kept(tmp_path):
    p = write(tmp_path / "c.jsonl", "\n" + jsonl({"_id": "a", "text": "1"}) + "\r\n" + jsonl({"_id": "b", "text": "2"}))
    assert [(d.id, d.line) for d in iter_corpus(p)] == [("a", 2), ("b", 4)]


def test_bad_json_names_file_and_line(tmp_path):
    p = write(tmp_path / "corpus.jsonl", jsonl({"_id": "a", "text": "1"}) + '{"_id": "b", "text": \n')
    with pytest.raises(DataError, match=r"corpus\.jsonl:2: bad JSON") as e:
        list(iter_corpus(p))
    assert e.value.line == 2


def test_invalid_utf8_names_line(tmp_path):
    p = write(tmp_path / "corpus.jsonl.gz", jsonl({"_id": "a", "text": "1"}).encode() + b'{"_id": "b", "text": "\xff"}\n', gz=True)
    with pytest.raises(DataError, match=r"corpus\.jsonl\.gz:2: invalid UTF-8"):
        list(iter_corpus(p))


def test_missing_id_and_non_object(tmp_path):
    with pytest.raises(DataError, match=":1: document has no id"):
        list(iter_corpus(write(tmp_path / "a.jsonl", jsonl({"text": "x"}))))
    with pytest.raises(DataError, match=":1: expected a JSON object"):
        list(iter_corpus(write(tmp_path / "b.jsonl", "[1, 2]\n")))


def test_truncated_gzip_is_one_error_naming_the_file(tmp_path):
    full = gzip.compress(jsonl(*({"_id": str(i), "text": "word " * 50} for i in range(2000))).encode())
    p = write(tmp_path / "corpus.jsonl.gz", full[: len(full) // 2])
    with pytest.raises(DataError, match=r"corpus\.jsonl\.gz: gzip data is truncated") as e:
        list(iter_corpus(p))
    assert "\n" not in str(e.value)


def test_missing_file(tmp_path):
    with pytest.raises(SoundingError, match="file not found"):
        list(iter_corpus(tmp_path / "nope.jsonl"))


def test_queries_jsonl_tsv_and_gz(tmp_path):
    assert load_queries(write(tmp_path / "q.jsonl", jsonl({"_id": "1", "text": "a b", "metadata": {}}))) == {"1": "a b"}
    assert load_queries(write(tmp_path / "t.txt.gz", "7\tJe, x?\n8\tKwa nini\n", gz=True)) == {"7": "Je, x?", "8": "Kwa nini"}


def test_queries_errors(tmp_path):
    with pytest.raises(DataError, match=r"t\.tsv:2: expected `qid<TAB>text`"):
        load_queries(write(tmp_path / "t.tsv", "1\tok\nno tab here\n"))
    with pytest.raises(DataError, match=r":2: duplicate query id '1' \(first on line 1\)"):
        load_queries(write(tmp_path / "d.tsv", "1\ta\n1\tb\n"))


def test_qrels_beir_crlf_and_trec(tmp_path):
    beir = write(tmp_path / "test.tsv", b"query-id\tcorpus-id\tscore\r\n1\td1\t1\r\n1\td2\t2\r\n2\td1\t0\r\n")
    assert load_qrels(beir) == {"1": {"d1": 1, "d2": 2}, "2": {"d1": 0}}
    trec = write(tmp_path / "qrels.txt", "101 Q0 15607#5 1\n101\tQ0\t9#1\t1\n")
    assert load_qrels(trec) == {"101": {"15607#5": 1, "9#1": 1}}


def test_qrels_malformed_lines_name_file_and_line(tmp_path):
    with pytest.raises(DataError, match=r"q\.tsv:3: expected 3 \(BEIR\) or 4 \(TREC\) columns, got 2"):
        load_qrels(write(tmp_path / "q.tsv", "query-id\tcorpus-id\tscore\n1\td\t1\n1\td2\n"))
    with pytest.raises(DataError, match=r"r\.txt:1: relevance grade 'high' is not an integer"):
        load_qrels(write(tmp_path / "r.txt", "1 Q0 d high\n"))


def _lines_one_by_one(path, limit):
    """What iter_lines gives, a line at a time (readline, decode, strip), or the DataError it raises:
    ((line number, text) pairs, (line, message) of the error or None)."""
    from sounding.datasets.readers import is_gzip

    out = []
    with (gzip.open(path, "rb") if is_gzip(path) else open(path, "rb")) as f:
        for n, raw in enumerate(f, 1):
            body = raw[:-1] if raw.endswith(b"\n") else raw
            if len(body) > limit:
                return out, (n, "line longer than")
            try:
                line = body.decode("utf-8")
            except UnicodeDecodeError as e:
                return out, (n, f"invalid UTF-8 at byte {e.start}")
            line = (line.lstrip("\ufeff") if n == 1 else line).rstrip("\r")
            if line.strip():
                out.append((n, line))
    return out, None


def test_lines_are_the_lines_of_the_file(tmp_path):
    """iter_lines gives every line, number and error a plain reading of the file gives: blank, CRLF and
    non-ASCII lines, a BOM, a line of bad UTF-8 or longer than the limit, with or without a last line end,
    plain and gzip."""
    import random

    from sounding.datasets import readers

    rng = random.Random(7)
    pieces = ["abc", "d\u00e9j\u00e0 vu", "\u4e2d\u6587", "", "   ", "x" * 40, "tab\there"]
    for case in range(40):
        lines = [rng.choice(pieces).encode() + (b"\r" if rng.random() < 0.2 else b"") for _ in range(rng.randint(0, 30))]
        if lines and case % 3 == 0:
            lines[rng.randrange(len(lines))] = b"ok \xff bad"
        if lines and case % 4 == 1:
            lines[rng.randrange(len(lines))] = b"y" * 100
        data = (b"\xef\xbb\xbf" if case % 5 == 0 else b"") + b"\n".join(lines) + (b"\n" if case % 2 else b"")
        path = write(tmp_path / f"f{case}.txt", data, gz=case % 7 == 0)
        want, error = _lines_one_by_one(path, 60)
        got = []
        try:
            for item in readers.iter_lines(path, 60):
                got.append(item)
        except DataError as e:
            assert error is not None and e.line == error[0] and error[1] in str(e), (case, str(e))
        else:
            assert error is None, case
        assert got == want, case
