"""`sounding eval | crosscheck | compare`: output, exit codes, and one-line errors for bad input."""
import gzip
import json

import pytest

from sounding.cli import main

QRELS = "q1 0 a 1\nq1 0 b 0\nq2 0 c 2\nq3 0 d 1\n"
RUN_A = "q1 Q0 a 1 3.0 A\nq1 Q0 x 2 2.0 A\nq2 Q0 y 1 5.0 A\nq2 Q0 c 2 4.0 A\nq3 Q0 d 1 1.0 A\n"
RUN_B = "q1 Q0 x 1 3.0 B\nq1 Q0 a 2 2.0 B\nq2 Q0 c 1 5.0 B\nq3 Q0 z 1 1.0 B\n"


@pytest.fixture
def files(tmp_path):
    out = {}
    for name, text in (("qrels", QRELS), ("a.run", RUN_A), ("b.run", RUN_B)):
        out[name] = tmp_path / name
        out[name].write_text(text)
    return out


def run_cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_eval_json_defaults_and_per_query(files, capsys):
    code, out, _ = run_cli(capsys, "eval", files["qrels"], files["a.run"], "--json")
    assert code == 0
    result = json.loads(out)
    assert list(result) == ["nDCG@10", "R@100", "RR@100", "judged@10"]
    assert result["RR@100"] == pytest.approx((1 + 1 / 2 + 1) / 3)
    code, out, _ = run_cli(capsys, "eval", files["qrels"], files["a.run"], "-m", "ndcg_cut_10", "-m", "MRR@1", "--per-query", "--json")
    result = json.loads(out)
    assert result["per_query"]["RR@1"] == {"q1": 1.0, "q2": 0.0, "q3": 1.0}
    assert set(result) == {"nDCG@10", "RR@1", "per_query"}


def test_eval_table_and_self_hits(files, capsys, tmp_path):
    code, out, _ = run_cli(capsys, "eval", files["qrels"], files["a.run"], "-m", "P@1")
    assert code == 0 and "P@1" in out and "0.6667" in out
    self_run = tmp_path / "self.run"
    self_run.write_text("q1 Q0 q1 1 9.0 S\nq1 Q0 a 2 1.0 S\n")
    code, out, _ = run_cli(capsys, "eval", files["qrels"], self_run, "-m", "RR", "--json", "--remove-self-hits")
    assert json.loads(out)["RR"] == pytest.approx(1 / 3)  # q1 only; q2, q3 have no hits


def test_eval_notes_judged_queries_without_hits(files, capsys, tmp_path):
    partial = tmp_path / "partial.run"
    partial.write_text("q1 Q0 a 1 3.0 P\n")
    code, _, err = run_cli(capsys, "eval", files["qrels"], partial)
    assert code == 0 and "2 of 3 judged queries have no hits" in err
    code, _, err = run_cli(capsys, "eval", files["qrels"], files["a.run"])
    assert code == 0 and "no hits" not in err


def test_crosscheck_exit_codes(files, capsys, monkeypatch):
    code, out, _ = run_cli(capsys, "crosscheck", files["qrels"], files["a.run"], files["b.run"])
    assert code == 0 and out.count("OK:") == 2
    code, out, _ = run_cli(capsys, "crosscheck", files["qrels"], files["a.run"], "--tolerance", "-1")
    assert code == 1 and "MISMATCH" in out  # nothing can be within a negative tolerance


def test_compare_prints_every_statistic(files, capsys):
    code, out, _ = run_cli(capsys, "compare", files["qrels"], files["a.run"], files["b.run"], "-m", "nDCG@10", "-m", "RR", "--json")
    assert code == 0
    result = json.loads(out)
    assert set(result) == {"nDCG@10", "RR"}
    rr = result["RR"]  # A (the baseline, the first run) against B: differences are A - B, wins A's
    assert (rr["wins"], rr["ties"], rr["losses"]) == (2, 0, 1) and rr["n"] == 3
    assert rr["t_pvalue_holm"] >= rr["t_pvalue"] and rr["rand_pvalue_holm"] >= rr["rand_pvalue"]
    code, out, _ = run_cli(capsys, "compare", files["qrels"], files["a.run"], files["b.run"])
    assert code == 0 and "randomization p" in out and "judged@10" in out


def write_bytes(tmp_path, name, data):
    p = tmp_path / name
    p.write_bytes(data)
    return p


@pytest.mark.parametrize(
    "qrels_text, run_bytes, where, what",
    [
        (QRELS, b"q1 Q0 a 1 3.0 A\nq1 Q0 b 2 A\n", "bad.run:2", "expected 6 columns"),
        (QRELS, b"q1 Q0 a 1 3.0 A\nq1 Q0 b 2 nan A\n", "bad.run:2", "not finite"),
        (QRELS, b"q1 Q0 a 1 3.0 A\nq2 Q0 c 1 1.0 A\nq1 Q0 a 3 1.0 A\n", "bad.run:3", "appears twice"),
        ("q1 0 a 1\nq1 0 b\n", RUN_A.encode(), "bad.qrels:2", "expected 4 columns"),
        (QRELS, gzip.compress("".join(f"q1 Q0 d{i} {i} 1.0 A\n" for i in range(3000)).encode())[:300], "bad.run", "truncated"),
    ],
)
@pytest.mark.parametrize("command", ["eval", "crosscheck", "compare"])
def test_bad_input_gives_a_one_line_error_not_a_traceback(tmp_path, capsys, qrels_text, run_bytes, where, what, command):
    qrels = write_bytes(tmp_path, "bad.qrels", qrels_text.encode())
    run = write_bytes(tmp_path, "bad.run", run_bytes)
    args = [command, qrels, run] + ([run] if command == "compare" else [])
    code, out, err = run_cli(capsys, *args)
    assert code == 2
    assert "Traceback" not in out + err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:")
    assert where in lines[0] and what in lines[0]


def test_unknown_measure_is_a_one_line_error(files, capsys):
    code, _, err = run_cli(capsys, "eval", files["qrels"], files["a.run"], "-m", "bogus@10")
    assert code == 2 and "unknown measure" in err and "nDCG@k" in err and len(err.strip().splitlines()) == 1


# -- several runs, trec_eval's layout, dataset names, --version --------------------------------------------

RUN_C = "q1 Q0 a 1 3.0 C\nq2 Q0 c 1 5.0 C\nq3 Q0 d 1 1.0 C\n"


@pytest.fixture
def three(files, tmp_path):
    c = tmp_path / "c.run"
    c.write_text(RUN_C)
    return [files["a.run"], files["b.run"], c]


def test_eval_three_runs_a_row_each(files, three, capsys):
    code, out, _ = run_cli(capsys, "eval", files["qrels"], *three, "-m", "RR", "-m", "P@1", "--json")
    assert code == 0
    got = json.loads(out)
    assert list(got) == [str(r) for r in three]  # {run: {measure: value}}, in the order given
    assert got[str(three[2])] == {"RR": 1.0, "P@1": 1.0}
    for r in three:  # each row is what the run alone gives
        code, alone, _ = run_cli(capsys, "eval", files["qrels"], r, "-m", "RR", "-m", "P@1", "--json")
        assert json.loads(alone) == got[str(r)]
    code, out, _ = run_cli(capsys, "eval", files["qrels"], *three, "-m", "RR")
    assert code == 0 and all(r.name in out for r in three) and "1.0000" in out


def test_compare_three_runs_against_the_first_or_the_baseline(files, three, capsys):
    code, out, _ = run_cli(capsys, "compare", files["qrels"], *three, "-m", "RR", "-m", "P@1", "--json",
                           "--permutations", "200")
    assert code == 0
    got = json.loads(out)
    assert list(got) == [str(three[1]), str(three[2])]  # every run but the baseline (the first)
    c = got[str(three[2])]["RR"]
    assert c["mean_a"] == pytest.approx((1 + 1 / 2 + 1) / 3) and c["mean_b"] == 1.0  # A: the baseline, B: this run
    # Holm over the family of 2 runs x 2 measures: the smallest p is multiplied by 4
    ps = sorted(v["t_pvalue"] for per in got.values() for v in per.values())
    holms = sorted(v["t_pvalue_holm"] for per in got.values() for v in per.values())
    assert holms[0] == pytest.approx(min(1.0, 4 * ps[0]))
    code, out, _ = run_cli(capsys, "compare", files["qrels"], *three, "--baseline", three[2], "-m", "RR", "--json",
                           "--permutations", "200")
    assert list(json.loads(out)) == [str(three[0]), str(three[1])]
    code, out, _ = run_cli(capsys, "compare", files["qrels"], *three, "-m", "RR", "--permutations", "200")
    assert code == 0 and "baseline a" in out and "b - a" in out and "c - a" in out


def test_compare_marks_a_significant_difference_with_the_baseline_s_letter(tmp_path, capsys):
    qrels = "".join(f"q{i} 0 d{i} 1\n" for i in range(30))
    good = "".join(f"q{i} Q0 d{i} 1 2.0 G\nq{i} Q0 x 2 1.0 G\n" for i in range(30))
    bad = "".join(f"q{i} Q0 x 1 2.0 B\nq{i} Q0 d{i} 2 1.0 B\n" for i in range(30))
    paths = []
    for name, text in (("qrels", qrels), ("bad.run", bad), ("good.run", good)):
        paths.append(tmp_path / name)
        paths[-1].write_text(text)
    code, out, _ = run_cli(capsys, "compare", *paths, "-m", "RR", "--permutations", "200")
    assert code == 0 and "1.0000ᵃ" in out  # every query better: significant after Holm
    code, out, _ = run_cli(capsys, "compare", paths[0], paths[2], paths[1], "-m", "RR", "--permutations", "200")
    assert "0.5000ₐ" in out  # and the other way round, worse


@pytest.mark.parametrize("args, says", [
    (["--test", "wilcoxon"], "--test must be t or randomization"),
    (["--alpha", "2"], "--alpha must be between 0 and 1"),
])
def test_compare_bad_options_are_one_line(files, capsys, args, says):
    code, _, err = run_cli(capsys, "compare", files["qrels"], files["a.run"], files["b.run"], *args)
    assert code == 2 and says in err and len(err.strip().splitlines()) == 1


def test_compare_needs_two_runs(files, capsys):
    code, _, err = run_cli(capsys, "compare", files["qrels"], files["a.run"])
    assert code == 2 and "at least two runs" in err


def test_version(capsys):
    from sounding import __version__

    code, out, _ = run_cli(capsys, "--version")
    assert code == 0 and out.strip() == f"sounding {__version__}"


def test_qrels_that_are_neither_a_file_nor_a_dataset_are_one_line(files, capsys):
    code, _, err = run_cli(capsys, "eval", "no-such-qrels", files["a.run"])
    assert code == 2 and "no-such-qrels: no such qrels file, and no dataset of that name" in err
    code, _, err = run_cli(capsys, "eval", "beir/scifcat/test", files["a.run"])
    assert code == 2 and "unknown dataset 'beir/scifcat/test'" in err and "beir/scifact/test" in err
    assert len(err.strip().splitlines()) == 1


def test_a_run_given_twice_is_a_second_row(files, capsys):
    code, out, _ = run_cli(capsys, "eval", files["qrels"], files["a.run"], files["a.run"], "-m", "RR", "--json")
    got = json.loads(out)
    assert code == 0 and list(got) == [str(files["a.run"]), f"{files['a.run']} (2)"] and len(set(map(str, got.values()))) == 1
