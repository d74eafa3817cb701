"""What the run explorer shows of a dataset (sounding.report.explorer.topics): the words marked are those
whose analysed terms are query terms, at the right characters; snippets hold the best window; ids that need
JSON escapes are found; a large query set is sampled evenly."""
from __future__ import annotations

import json
from pathlib import Path

from sounding.report.explorer import topics as T

REPO = Path(__file__).resolve().parents[1]
TINY = REPO / "tests" / "fixtures" / "tiny-beir"


def test_marks_are_the_words_the_index_matches(tmp_path):
    corpus = tmp_path / "corpus.jsonl"
    long_text = "Filler words here. " * 40 + "Viruses replicate in host cells, (replication!) fast. " + "More filler. " * 40
    docs = [{"_id": "a", "title": "Replicating viruses", "text": long_text},
            {"_id": 'we"ird', "title": "Cells", "text": "cell cells CELL"},
            {"_id": "unused", "title": "x", "text": "y"}]
    corpus.write_text("".join(json.dumps(d) + "\n" for d in docs))
    queries = {"q1": "how do viruses replicate", "q2": "cells"}
    qrels = {"q1": {"a": 1}, "q2": {'we"ird': 2}}
    got = T.build_topics(queries, qrels, corpus, "english-lucene", [{"q1": ["a"], "q2": ['we"ird', "a"]}])
    terms = got["terms"]
    assert set(got["docs"]) == {"a", 'we"ird'}  # the escaped id found, the unused document never parsed
    title, title_marks, snippet, marks = got["docs"]["a"]

    def words(text, spans):
        return [(text[a:z], sorted(terms[i] for i in ids)) for a, z, *ids in spans]

    assert words(title, title_marks) == [("Replicating", ["replic"]), ("viruses", ["virus"])]
    shown = words(snippet, marks)
    # the window with the most matches of q1 and q2: the sentence in the middle, punctuation left unmarked
    assert ("replicate", ["replic"]) in shown and ("replication", ["replic"]) in shown and ("cells", ["cell"]) in shown
    assert snippet.startswith("… ") and snippet.endswith(" …") and len(snippet) <= T.SNIPPET + 4
    assert got["queries"]["q2"] == ["cells", [terms.index("cell")]]
    assert words(*got["docs"]['we"ird'][2:]) == [("cell", ["cell"]), ("cells", ["cell"]), ("CELL", ["cell"])]


def test_a_large_query_set_is_sampled_evenly():
    qids = [f"q{i:05d}" for i in range(T.MAX_QUERIES * 3 + 1)]
    kept = T.explored(qids)
    assert len(kept) == T.MAX_QUERIES and kept[0] == qids[0] and kept == sorted(kept)
    assert T.explored(qids[:10]) == qids[:10]


def test_topics_files_round_trip_and_reject_other_formats(tmp_path):
    from sounding.datasets import load_dataset

    ds = load_dataset(str(TINY))
    path = T.write_topics(tmp_path, ds, "english-lucene", [{"q1": ["d1", "d5"]}], key="k")
    data = T.read_topics(tmp_path, ds.name)
    assert data["key"] == "k" and set(data["docs"]) >= {"d1", "d5"} and path == T.topics_path(tmp_path, ds.name)
    path.write_text(json.dumps({"format": 99}))
    assert T.read_topics(tmp_path, ds.name) is None
    path.write_text("{")
    assert T.read_topics(tmp_path, ds.name) is None


def _reference(corpus: Path, wanted: set[str]) -> list[tuple[str, str, str]]:
    """The wanted documents as reading every line as JSON finds them."""
    from sounding.datasets.readers import iter_lines

    out = []
    for _, line in iter_lines(corpus):
        obj = json.loads(line)
        doc_id = str(next(obj[k] for k in ("_id", "docid", "id") if k in obj))
        if doc_id in wanted:
            wanted = wanted - {doc_id}
            out.append((doc_id, obj.get("title") or "", obj.get("text") or obj.get("contents") or ""))
    return out


def test_the_corpus_pass_finds_the_wanted_documents_whatever_their_lines(tmp_path, monkeypatch):
    """Blocks of BEIR lines (ids read by one expression) and blocks with other lines (looked at one by one)
    find the same documents as reading every line: other key orders and id keys, escaped and non-ASCII ids,
    blank and CRLF lines, a byte-order mark, a gzip of two members; blocks of 64 bytes to a whole file."""
    import gzip
    import random

    rng = random.Random(3)
    lines = []
    for i in range(400):
        doc_id = rng.choice([f"d{i}", f"d\u00e9{i}", f'q"{i}', f"b\\\\{i}", f"{i}"])
        doc = {"_id": doc_id, "title": f"t{i}", "text": "w " * rng.randint(0, 30)}
        form = rng.randrange(6)
        if form == 1:
            doc = {"title": doc["title"], "_id": doc_id, "text": doc["text"]}  # another key order
        elif form == 2:
            doc = {"docid": doc_id, "text": doc["text"]}
        elif form == 3:
            doc = {"id": doc_id, "contents": doc["text"]}
        line = json.dumps(doc, ensure_ascii=rng.random() < 0.5, separators=(",", ":") if form == 4 else None)
        lines.append(line + ("\r\n" if form == 5 else "\n") + ("\n" if rng.random() < 0.05 else ""))
    ids = [str(next(v for k, v in json.loads(l).items() if k in ("_id", "docid", "id"))) for l in lines]
    wanted = set(rng.sample(ids, 120)) | {ids[0], ids[-1]}
    beir = [json.dumps({"_id": f"x{i}", "title": "", "text": "v"}) + "\n" for i in range(300)]
    text = "\ufeff" + "".join(beir[:150] + lines + beir[150:])
    wanted |= {"x0", "x149", "x150", "x299"}
    plain = tmp_path / "corpus.jsonl"
    plain.write_text(text, encoding="utf-8")
    packed = tmp_path / "corpus.jsonl.gz"
    data = text.encode("utf-8")
    packed.write_bytes(gzip.compress(data[: len(data) // 3]) + gzip.compress(data[len(data) // 3 :]))
    want = _reference(plain, set(wanted))
    assert len(want) == len(wanted)
    for block in (64, 1000, 1 << 20):
        monkeypatch.setattr(T, "BLOCK", block)
        for corpus in (plain, packed):
            assert list(T._documents(corpus, wanted)) == want, (block, corpus.name)


def test_corpus_blocks_keep_line_numbers_and_refuse_bad_files(tmp_path):
    import gzip

    import pytest

    from sounding.datasets.readers import iter_blocks
    from sounding.errors import DataError

    text = "".join(f"line {i}\n" + ("\n" if i % 7 == 0 else "") for i in range(200)) + "last"
    path = tmp_path / "f.txt"
    path.write_text(text)
    for size in (5, 64, 1 << 20):
        got = []
        for first, block in iter_blocks(path, size):
            assert block.startswith(b"\n")
            got += [(first + i, line) for i, line in enumerate(block[1:].split(b"\n"))]
        assert got == [(i + 1, line.encode()) for i, line in enumerate(text.split("\n"))]
    cut = tmp_path / "cut.gz"
    cut.write_bytes(gzip.compress(text.encode() * 50)[:-20])
    with pytest.raises(DataError, match="truncated or corrupt"):
        list(iter_blocks(cut, 64))
    long = tmp_path / "long.txt"
    long.write_text("x" * 500 + "\n")
    with pytest.raises(DataError, match="line longer than"):
        list(iter_blocks(long, 64, limit=100))


def test_the_compiled_analysis_marks_the_words_the_python_analysis_marks(tmp_path, monkeypatch):
    """_Marker.learn (the analyzer's compiled chain, pieces in one call) gives each piece the terms the
    Python chain gives it: the whole explorer file is the same either way."""
    import random

    words = ["Viruses", "virus", "replicating", "(replication!)", "cells,", "CELL", "café", "naïve", "it's",
             "JOHN'S", "B2B", "1,000", "中国", "x" * 300, "the", "of", "running", "runs"]
    rng = random.Random(5)
    corpus = tmp_path / "corpus.jsonl"
    docs = [{"_id": f"d{i}", "title": " ".join(rng.choices(words, k=4)), "text": " ".join(rng.choices(words, k=80))}
            for i in range(60)]
    corpus.write_text("".join(json.dumps(d) + "\n" for d in docs))
    queries = {f"q{i}": " ".join(rng.choices(words, k=3)) for i in range(20)}
    qrels = {q: {f"d{rng.randrange(60)}": 1} for q in queries}
    lists = [{q: [f"d{rng.randrange(60)}" for _ in range(5)] for q in queries}]
    for analyzer in ("english-lucene", "english-snowball"):
        compiled = T.build_topics(queries, qrels, corpus, analyzer, lists)
        monkeypatch.setattr(T._Marker, "learn", lambda self, texts: None)
        monkeypatch.setattr(T._Marker, "__init__", _python_marker)
        python = T.build_topics(queries, qrels, corpus, analyzer, lists)
        monkeypatch.undo()
        assert compiled == python and any(m for d in compiled["docs"].values() for m in d[3])


def _python_marker(self, analyze, number):
    self.analyze, self.number, self.cache, self.compiled = analyze, number, {}, None


def test_a_bad_wanted_line_is_one_error_naming_file_and_line(tmp_path):
    """A wanted document's line that is not JSON (or not UTF-8), and a cut-short gzip: one error naming the
    file (and line); a bad line nobody wants is never read."""
    import gzip

    import pytest

    from sounding.errors import DataError, SoundingError

    good = "".join(json.dumps({"_id": f"d{i}", "title": "t", "text": "x"}) + "\n" for i in range(5))
    for bad in (b'{"_id": "w", "text": "cut\n', b'{"_id": "w", "text": "\xff"}\n'):
        corpus = tmp_path / "corpus.jsonl"
        corpus.write_bytes(good.encode() + b'{"_id": "u", "text": \n' + bad)
        with pytest.raises(SoundingError, match=r"corpus\.jsonl:7: bad JSON"):
            list(T._documents(corpus, {"d1", "w"}))
        assert [d for d, _, _ in T._documents(corpus, {"d1", "d4"})] == ["d1", "d4"]
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(gzip.compress(good.encode() * 200)[:-30])
    with pytest.raises(DataError, match=r"cut\.jsonl\.gz.*truncated or corrupt"):
        list(T._documents(cut, {"missing"}))
