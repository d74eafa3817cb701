"""eval.run_file.evaluate_run_file (one compiled pass over the run's bytes) gives exactly evaluate(qrels, read_run(path))."""
import gzip
import json
import math

import numpy as np
import pytest

from sounding.cli import main
from sounding.errors import DataError, SoundingError
from sounding.eval import evaluate, read_run, write_run
from sounding.eval.run_file import evaluate_run_file

MEASURES = ["nDCG@10", "R@100", "RR", "P@10", "AP", "judged@10", "bpref", "nDCG'@10", "RR@100", "Success@5"]


def _data(seed=0, queries=60, hits=300):
    rng = np.random.default_rng(seed)
    names = [f"d{i}" for i in range(3000)]
    qrels, run = {}, {}
    for i in range(queries):
        q = f"q{i}"
        docs = rng.choice(len(names), hits, replace=False)
        scores = np.round(rng.random(hits) * 5, 1)  # many ties
        run[q] = {names[d]: float(s) for d, s in zip(docs, scores)}
        if i % 7 == 0:
            run[q][q] = 4.0  # a self hit
        judged = np.concatenate([docs[rng.choice(hits, 8, replace=False)], rng.choice(len(names), 4)])
        qrels[q] = {names[d]: int(g) for d, g in zip(judged, rng.integers(-1, 4, len(judged)))}
    qrels["q-judged-only"] = {"d1": 1}
    qrels["q-zero"] = {"d2": 0}
    run["q-unjudged"] = {"d5": 1.0}
    return qrels, run


@pytest.mark.parametrize("self_hits", [False, True])
def test_same_values_as_reading_the_run(tmp_path, self_hits):
    qrels, run = _data()
    path = write_run(run, tmp_path / "r.run")
    for ms in (MEASURES, ["nDCG@10", "R@100"]):
        expected = evaluate(qrels, read_run(path), ms, remove_self_hits=self_hits, per_query=True)
        got, counts = evaluate_run_file(qrels, path, ms, remove_self_hits=self_hits, per_query=True, fast=True)
        assert got == expected  # to the last digit
        assert counts == {q: len(h) for q, h in run.items()}


def test_layouts_of_the_file_the_fast_pass_reads_itself_or_hands_over(tmp_path):
    qrels, run = _data(1, queries=20)
    lines = write_run(run, tmp_path / "r.run").read_text().splitlines()
    variants = {
        "comments and blank lines": "# a comment\n\n" + "\n".join(lines) + "\n\n",
        "tabs, no final newline": "\n".join(line.replace(" ", "\t") for line in lines),
        "queries not contiguous": "\n".join(lines[1::2] + lines[::2]) + "\n",
        "shuffled lines of a query": "\n".join(sorted(lines, key=lambda x: (x.split()[0], x.split()[2]))) + "\n",
        "hexadecimal score": "\n".join(lines) + "\nq1 Q0 dzz 1 0x1p1 t\n",
    }
    for name, text in variants.items():
        p = tmp_path / "v.run"
        p.write_text(text)
        expected = evaluate(qrels, read_run(p), MEASURES, per_query=True)
        assert evaluate_run_file(qrels, p, MEASURES, per_query=True, fast=True)[0] == expected, name
    gz = tmp_path / "v.run.gz"
    gz.write_bytes(gzip.compress(variants["comments and blank lines"].encode()))
    assert evaluate_run_file(qrels, gz, MEASURES, fast=True)[0] == evaluate(qrels, read_run(gz), MEASURES)


def test_faults_are_reported_as_the_reader_reports_them(tmp_path):
    qrels = {"q": {"a": 1}}
    for text, why in (("q Q0 a 1 2.0 t\nq Q0 a 2 1.0 t\n", "twice"), ("q Q0 a 1 t\n", "6 columns"),
                      ("q Q0 a 1 inf t\n", "not finite"), ("q Q0 a 1 1_0 t\n", "not a number"),
                      ("q Q0 a 1 1.0 t\nq Q0 b\x00 1 1.0 t\n", "NUL")):
        p = tmp_path / "bad.run"
        p.write_text(text)
        with pytest.raises(DataError, match=why):
            evaluate_run_file(qrels, p, ["nDCG@10"], fast=True)
    with pytest.raises(SoundingError, match="no judged"):
        evaluate_run_file({}, p, ["nDCG@10"], fast=True)


def test_cli_eval_uses_it(tmp_path, capsys):
    qrels, run = _data(2, queries=10)
    (tmp_path / "q.txt").write_text("".join(f"{q} 0 {d} {g}\n" for q, j in qrels.items() for d, g in j.items()))
    path = write_run(run, tmp_path / "r.run")
    assert main(["eval", str(tmp_path / "q.txt"), str(path), "-m", "AP", "-m", "nDCG@10", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out == evaluate(qrels, run, ["AP", "nDCG@10"])


def test_two_parts_scanned_side_by_side_give_the_same(tmp_path, monkeypatch):
    from sounding.eval import runscan

    monkeypatch.setattr(runscan, "_PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(runscan.os, "cpu_count", lambda: 2)
    qrels, run = _data(3, queries=30)
    lines = write_run(run, tmp_path / "r.run").read_text().splitlines(keepends=True)
    half = len(lines) // 2
    texts = {"whole": "".join(lines),
             "a query on both sides of the cut": "".join(lines[:half] + lines[half + 3 :] + lines[half : half + 3]),
             "one query only": "".join(line for line in lines if line.startswith("q1 "))}
    for name, text in texts.items():
        p = tmp_path / "v.run"
        p.write_text(text)
        expected = evaluate(qrels, read_run(p), MEASURES, remove_self_hits=True, per_query=True)
        got, counts = evaluate_run_file(qrels, p, MEASURES, remove_self_hits=True, per_query=True, fast=True)
        assert got == expected, name
        assert counts == {q: len(h) for q, h in read_run(p).items()}, name


def test_long_queries_unordered_lines_and_separators(tmp_path):
    """A query of more lines than the scanner's first arrays hold (they grow, its lines so far moved), lines
    not in score order (every hit is compared), tabs and spaces, CRLF, trailing blanks; a document
    repeated after the arrays grew is still found."""
    rng = np.random.default_rng(4)
    docs = [f"d{i}" for i in range(6000)]
    run = {"big": {d: float(s) for d, s in zip(docs, np.round(rng.random(6000) * 3, 1))},
           "small": {d: float(s) for d, s in zip(docs[:50], np.round(rng.random(50), 1))}}
    run["big"]["big"] = 1.5  # a self hit inside a tie
    qrels = {"big": {d: int(g) for d, g in zip(rng.choice(docs, 40).tolist(), rng.integers(0, 3, 40))} | {"big": 1},
             "small": {"d3": 1, "d7": 2}}
    lines = write_run(run, tmp_path / "r.run").read_text().splitlines()
    shuffled = [lines[i] for i in rng.permutation(len(lines))]
    shuffled.sort(key=lambda x: x.split()[0])  # queries contiguous, lines of each in random order
    text = "".join(line.replace(" ", "\t", 2) + (" \r\n" if k % 3 else "\n") for k, line in enumerate(shuffled))
    p = tmp_path / "v.run"
    p.write_text(text)
    for self_hits in (False, True):
        expected = evaluate(qrels, read_run(p), MEASURES, remove_self_hits=self_hits, per_query=True)
        got, counts = evaluate_run_file(qrels, p, MEASURES, remove_self_hits=self_hits, per_query=True, fast=True)
        assert got == expected
        assert counts == {"big": 6001, "small": 50}
    p.write_text("".join(line + "\n" for line in lines) + "big Q0 d17 9999 0.5 t\n")
    with pytest.raises(DataError, match="twice"):
        evaluate_run_file(qrels, p, ["nDCG@10"], fast=True)


def test_fast_score_parser_gives_float_or_hands_over():
    """parse_scores' fast path gives exactly float()'s double; whatever it does not take, it hands over."""
    from sounding.trec.scan import parse_scores

    rng = np.random.default_rng(5)
    texts = ["0", "-0", "+0", "0.0", "-0.0", "1", "1.", ".5", "-.5", "+1.5", "5e0", "1e22", "1e23", "1e-22", "1e-23",
             "9007199254740993", "9007199254740992", "123456789012345678", "1234567890123456789", "0.1", "0.3",
             "2.2250738585072014e-308", "1.7976931348623157e308", "1e", "1e+", "e5", ".", "-", "+", "1.2.3", "1_0",
             "inf", "-inf", "nan", "0x1p3", "1e0000005", "1e000001", "00000000000000000000001.5", "1.5e-0",
             "0.000000000000000000000000001", "4.35", "19.96", "-7.123456789"]
    for _ in range(3000):
        mant = "".join(rng.choice(list("0123456789"), int(rng.integers(1, 22))))
        cut = int(rng.integers(0, len(mant) + 1))
        t = (rng.choice(["", "-", "+"]) + mant[:cut] + ("." if rng.random() < 0.8 else "") + mant[cut:]
             + (f"e{int(rng.integers(-30, 30))}" if rng.random() < 0.3 else ""))
        texts.append(t)
        texts.append(repr(float(rng.standard_normal() * 10.0 ** rng.integers(-5, 6))))
        texts.append(f"{rng.random() * 40:.9g}")
    blob = "".join(texts).encode()
    starts = np.cumsum([0] + [len(t) for t in texts[:-1]]).astype(np.int64)
    ends = starts + np.array([len(t) for t in texts], np.int64)
    values, exact = parse_scores(np.frombuffer(blob, np.uint8), starts, ends)
    taken = 0
    for t, v, ok in zip(texts, values.tolist(), exact.tolist()):
        if ok:
            ref = float(t)
            assert v == ref and math.copysign(1, v) == math.copysign(1, ref), t
            taken += 1
    assert taken > 0.7 * len(texts)  # the common forms take the fast path
    assert not any(ok for t, ok in zip(texts, exact.tolist()) if t in ("1e", "e5", ".", "1_0", "inf", "nan", "0x1p3"))
