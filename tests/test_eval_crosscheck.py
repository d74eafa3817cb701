"""pytrec_eval cross-check: agreement on synthetic and real (BEIR) qrels, and that a mismatch is caught."""
import importlib
import random

import pytest

from sounding.cli import main
from sounding.eval import crosscheck, evaluate, read_qrels, read_run, write_run

crosscheck_module = importlib.import_module("sounding.eval.crosscheck")


def noisy_run(qrels, seed=0, hits=150, pool=5000):
    """A deterministic run mixing judged docids (relevant and not) with unjudged ones, with many ties."""
    rng = random.Random(seed)
    run = {}
    for qid, judged in sorted(qrels.items()):
        h = {d: round(rng.random() + 0.3 * max(g, 0), 1) for d, g in judged.items() if rng.random() < 0.8}
        while len(h) < hits:
            h[f"u{rng.randrange(pool)}"] = round(rng.random(), 1)
        run[qid] = h
    for qid in rng.sample(sorted(run), len(run) // 10):  # some judged queries have no hits at all
        del run[qid]
    run["not-judged"] = {"x": 1.0}
    return run


def test_crosscheck_agrees_with_pytrec_eval_on_ties_and_missing_queries():
    rng = random.Random(1)
    qrels = {f"q{i}": {f"d{j}": rng.randint(0, 3) for j in rng.sample(range(300), 20)} for i in range(60)}
    run = noisy_run(qrels, hits=400, pool=1000)  # more than 100 hits: the top-100 cut matters
    report = crosscheck(qrels, run)
    assert report.ok and report.max_diff < 1e-12 and report.queries == 60
    assert [c.measure for c in report.checks] == ["nDCG@10", "R@100", "RR@100"]
    assert "OK" in str(report)


def test_crosscheck_with_self_hits_removed():
    qrels = {"q1": {"q1": 1, "a": 1}, "q2": {"b": 2}}
    run = {"q1": {"q1": 9.0, "a": 1.0, "z": 2.0}, "q2": {"q2": 5.0, "b": 1.0}}
    report = crosscheck(qrels, run, remove_self_hits=True)
    assert report.ok
    assert report.checks[2].ours == evaluate(qrels, run, ["RR@100"], remove_self_hits=True)["RR@100"] == 0.75


def test_crosscheck_reports_a_difference_and_where(monkeypatch):
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    run = {"q1": {"a": 1.0, "c": 2.0}, "q2": {"b": 1.0}}
    real = crosscheck_module.per_query_arrays

    def off_by_a_little(*args, **kwargs):
        qids, values = real(*args, **kwargs)
        values["R@100"][qids.index("q2")] -= 1e-4
        return qids, values

    monkeypatch.setattr(crosscheck_module, "per_query_arrays", off_by_a_little)
    report = crosscheck(qrels, run)
    assert not report.ok
    bad = {c.measure: c for c in report.checks}["R@100"]
    assert bad.worst_qid == "q2" and bad.max_diff == pytest.approx(1e-4)
    assert "MISMATCH" in str(report)


@pytest.mark.realdata
@pytest.mark.parametrize("name", ["scifact", "nfcorpus"])
def test_real_qrels_crosscheck_and_cli(shared_data, tmp_path, capsys, name):
    path = shared_data / "beir" / name / "qrels" / "test.tsv"
    if not path.exists():
        pytest.skip(f"{path} not present")
    qrels = read_qrels(path)
    assert len(qrels) == {"scifact": 300, "nfcorpus": 323}[name]
    run = noisy_run(qrels, seed=7)
    run_path = write_run(run, tmp_path / f"{name}.run.gz")
    read_back = read_run(run_path)
    assert read_back == run  # scores have one decimal: the file holds them exactly

    report = crosscheck(qrels, read_back)
    assert report.ok, str(report)

    assert main(["eval", str(path), str(run_path), "--json"]) == 0
    assert main(["crosscheck", str(path), str(run_path)]) == 0
    out = capsys.readouterr().out
    assert "OK:" in out and "MISMATCH" not in out


def test_top_candidates_keeps_every_hit_that_can_reach_the_cut():
    """top_candidates against a plain reference: hits scored at least as high as the (cut+1)-th best, in
    their order; rows best-first or not, ties at the border, rows shorter than the cut."""
    import numpy as np

    from sounding.eval.arrayeval import top_candidates

    rng = np.random.default_rng(7)
    n_rows, width, cut = 60, 40, 10
    docs = rng.integers(0, 10_000, (n_rows, width))
    scores = np.round(rng.random((n_rows, width)) * 4, 0).astype(np.float32)  # many ties
    counts = rng.integers(0, width + 1, n_rows)
    for r in range(0, n_rows, 2):  # half of the rows best first, as a search gives them
        scores[r, : counts[r]] = np.sort(scores[r, : counts[r]])[::-1]
    rows = rng.permutation(n_rows)[:45]
    out_docs, out_scores, kept = top_candidates(docs, scores, counts, rows, cut)
    for i, r in enumerate(rows):
        s = scores[r, : counts[r]]
        border = np.sort(s)[::-1][cut] if counts[r] > cut + 1 else -np.inf
        want = [j for j in range(counts[r]) if s[j] >= border]
        assert kept[i] == len(want) >= min(counts[r], cut + 1)
        assert out_docs[i, : kept[i]].tolist() == docs[r, want].tolist()
        assert out_scores[i, : kept[i]].tolist() == s[want].tolist()
