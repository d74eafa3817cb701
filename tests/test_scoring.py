"""A setting scored from a search's arrays (experiment/scoring.score_results) gives exactly what the dict path
(score_run on results.to_run(): evaluate twice, unjudged_in_top, crosscheck) gives: every mean, every
per-query value, the pool counts and the queries without hits, to the last digit."""
import json

import numpy as np
import pytest

from sounding.datasets import Document, iter_corpus, load_dataset
from sounding.experiment import scoring
from sounding.experiment.runner import BEIR_MEASURES, MRTYDI_MEASURES
from sounding.experiment.scoring import score_results, score_run
from sounding.index import build_index
from sounding.retrieval.search import Results, Searcher
from sounding.retrieval.search.queries import QueryAnalysis

ALL = [*BEIR_MEASURES, "AP", "RR", "P@5", "Success@3", "nDCG"]


def _same(a, b):
    assert json.dumps(a.metrics) == json.dumps(b.metrics)  # same keys, same order, same digits
    assert json.dumps(a.raw_metrics) == json.dumps(b.raw_metrics)
    assert json.dumps(a.per_query) == json.dumps(b.per_query)
    assert a.unjudged == b.unjudged
    assert a.queries_without_hits == b.queries_without_hits
    assert a.check.ok and b.check.ok
    if a.checked == b.checked:
        assert [c.ours for c in a.check.checks] == pytest.approx([c.ours for c in b.check.checks], abs=1e-12)


def _random_case(seed, n_docs=400, n_q=80, k=60):
    """Hits with many exact ties (scores on a coarse grid), ids whose byte order differs from their number
    order ("d10" < "d9"), self hits, judged documents missing from the collection, negative and zero grades,
    a repeated qid (its last row counts), queries without hits and judged queries never searched."""
    rng = np.random.default_rng(seed)
    ids = [f"d{i}" for i in range(n_docs)]
    ids[3], ids[4] = "q1", "q2"  # documents whose id is a query's
    qids = [f"q{i}" for i in range(n_q)]
    qids[7] = "q1"  # repeated: the last row is the one that counts
    docs = np.full((n_q, k), -1, np.int64)
    scores = np.zeros((n_q, k), np.float32)
    counts = rng.integers(0, k + 1, n_q)
    counts[::11] = 0
    for r in range(n_q):
        n = counts[r]
        docs[r, :n] = rng.choice(n_docs, n, replace=False)
        if r % 5 == 0 and n:
            docs[r, 0] = 3 if r % 2 else 4  # a self hit for q1 / q2 rows
        scores[r, :n] = np.sort(np.round(rng.random(n) * 3, 1).astype(np.float32))[::-1]
    qrels = {}
    for q in sorted(set(qids)) + ["q-never"]:
        pick = rng.choice(n_docs, int(rng.integers(1, 30)), replace=False)
        qrels[q] = {ids[d]: int(g) for d, g in zip(pick, rng.integers(-1, 4, len(pick)))}
        if rng.random() < 0.3:
            qrels[q]["not-in-collection"] = 2
    qrels["q1"]["q1"] = 2  # the query's own document is judged: removed for the BEIR measures, kept raw
    qrels["q-empty"] = {}
    rank = np.argsort(np.argsort([d.encode() for d in ids], kind="stable"))
    res = Results(qids, docs, scores, counts, ids, rank=rank if seed % 2 else None)
    return qrels, qids + ["q-not-searched"], res


@pytest.mark.parametrize("seed", range(6))
def test_arrays_score_as_the_dicts_on_random_ties(seed):
    qrels, queries, res = _random_case(seed)
    for ms in (BEIR_MEASURES, MRTYDI_MEASURES, ALL, ["nDCG@10", "R@100"]):
        for pool_k in (10, 3):
            got = score_results(qrels, queries, ms, res, pool_k)
            _same(got, score_run(qrels, queries, ms, res.to_run(), pool_k))
    assert got.checked == got.judged


def test_judged_docs_made_once_score_as_made_each_time():
    from sounding.experiment.scoring import judged_docs

    qrels, queries, res = _random_case(3)
    judged = judged_docs(qrels, res.docids)
    assert judged.unique and judged.found() == sum(d in set(res.docids) for q in judged.qids for d in qrels[q])
    _same(score_results(qrels, queries, BEIR_MEASURES, res, judged=judged),
          score_run(qrels, queries, BEIR_MEASURES, res.to_run()))
    other = judged_docs({"q1": {"d1": 1}}, res.docids)  # made for other qrels: not used, made again
    _same(score_results(qrels, queries, BEIR_MEASURES, res, judged=other),
          score_run(qrels, queries, BEIR_MEASURES, res.to_run()))


def test_a_large_query_set_is_crosschecked_on_a_sample(monkeypatch):
    qrels, queries, res = _random_case(1)
    monkeypatch.setattr(scoring, "CROSSCHECK_QUERIES", 10)
    got = score_results(qrels, queries, BEIR_MEASURES, res)
    assert got.checked == 10 and got.check.queries == 10 and got.judged == len([q for q in qrels if qrels[q]])
    assert got.crosscheck_row()["queries"] == 10 and got.crosscheck_row()["of"] == got.judged
    _same(got, score_run(qrels, queries, BEIR_MEASURES, res.to_run()))  # the values are all computed
    assert "queries" not in score_run(qrels, queries, BEIR_MEASURES, res.to_run()).crosscheck_row()


def test_a_wrong_value_fails_the_crosscheck(monkeypatch):
    """The check compares pytrec_eval with the values the row holds, not with a second computation of ours."""
    qrels, queries, res = _random_case(2)
    real = scoring.query_values

    def off(ms, *a):
        return [v + 0.01 if str(m) == "R@100" else v for m, v in zip(ms, real(ms, *a))]

    monkeypatch.setattr(scoring, "query_values", off)
    got = score_results(qrels, queries, BEIR_MEASURES, res)
    assert not got.check.ok and got.check.max_diff >= 0.01


def test_a_nan_score_goes_the_dict_way():
    qrels, queries, res = _random_case(3)
    r = next(r for r in range(2, 80) if res.counts[r] and r != 7)
    res.scores[r, 0] = np.nan
    with pytest.raises(Exception, match="NaN"):
        score_results(qrels, queries, BEIR_MEASURES, res)


def test_tie_index_all_layouts(tmp_path):
    rng = np.random.default_rng(7)
    words = ["alpha", "beta", "gamma", "delta", "cell", "the"]
    ids = [f"d{i:04d}" if i % 97 else f"dé{i}" for i in range(800)]
    ids[5] = "q3"
    docs = [Document(d, " ".join(rng.choice(words, 2)), " ".join(rng.choice(words, int(rng.integers(1, 20)))), i + 1)
            for i, d in enumerate(ids)]
    build_index(docs, tmp_path / "ix")
    queries = [(f"q{i}", " ".join(rng.choice(words, int(rng.integers(1, 4))))) for i in range(40)]
    qrels = {q: {ids[d]: int(g) for d, g in zip(rng.choice(800, 15, replace=False), rng.integers(0, 3, 15))}
             for q, _ in queries}
    qrels["q3"]["q3"] = 1
    s = Searcher(tmp_path / "ix")
    for layout in ("flat", "multifield", "multifield-max", "bm25f"):
        for ties in (False, True):
            res = s.search(queries, layout=layout, anserini_ties=ties, lucene_norms=ties and layout != "bm25f", k=500)
            qs = [q for q, _ in queries]
            _same(score_results(qrels, qs, BEIR_MEASURES, res), score_run(qrels, qs, BEIR_MEASURES, res.to_run()))


@pytest.mark.parametrize("name", ["scifact", "nfcorpus"])
def test_real_datasets_every_setting(beir_dir, tmp_path, name):
    ds = load_dataset(name, data_dir=beir_dir(name).parent)
    build_index(iter_corpus(ds.corpus_path), tmp_path / "ix")
    s = Searcher(tmp_path / "ix")
    for layout, lucene in (("flat", True), ("flat", False), ("multifield", False), ("bm25f", False)):
        res = s.search(ds.queries, layout=layout, lucene_norms=lucene, anserini_ties=lucene, k=1000, threads=2)
        got = score_results(ds.qrels, ds.queries, BEIR_MEASURES, res)
        _same(got, score_run(ds.qrels, ds.queries, BEIR_MEASURES, res.to_run()))
        assert got.checked == got.judged and got.check.exact


def _rows_by_dicts(monkeypatch):
    """Make `sounding run` score every setting the dict way (the reference)."""
    monkeypatch.setattr(scoring, "score_results",
                        lambda qrels, queries, ms, results, pool_k=10, judged=None:
                        score_run(qrels, queries, ms, results.to_run(), pool_k))


TIMES = ("search_seconds", "qps", "index_seconds", "setup_seconds", "computed")  # clock readings: they differ from one run to the next


def _outputs(out):
    rows = [{k: v for k, v in r.items() if k not in TIMES} for r in json.loads((out / "results.json").read_text())]
    per_query = {r["per_query_file"]: (out / r["per_query_file"]).read_bytes() for r in rows}
    return rows, per_query


def test_run_rows_and_files_are_those_of_the_dict_path(tmp_path, monkeypatch):
    from sounding.experiment import run_experiment
    from test_harness import make_beir

    data = make_beir(tmp_path / "toy")
    run_experiment([str(data)], tmp_path / "arrays", log=lambda m: None)
    with monkeypatch.context() as m:
        _rows_by_dicts(m)
        run_experiment([str(data)], tmp_path / "dicts", log=lambda m: None)
    (rows, pq), (rows_d, pq_d) = _outputs(tmp_path / "arrays"), _outputs(tmp_path / "dicts")
    assert rows == rows_d and pq == pq_d and len(rows) == 14
    for r in rows:
        assert (tmp_path / "arrays" / r["run_file"]).read_bytes() == (tmp_path / "dicts" / r["run_file"]).read_bytes()


@pytest.mark.realdata
def test_run_opens_one_searcher_and_analyses_the_queries_once_per_dataset(tmp_path, monkeypatch):
    import sounding.retrieval.search as search_package
    from sounding.experiment import run_experiment
    from sounding.retrieval import arms
    from test_harness import make_beir

    data = make_beir(tmp_path / "toy")
    opened, analysed = [], []
    real_batch = QueryAnalysis.analyse_batch

    class Counting(Searcher):
        def __init__(self, *a, **kw):
            opened.append(a)
            super().__init__(*a, **kw)

    monkeypatch.setattr(search_package, "Searcher", Counting)  # what the BM25 arm opens
    monkeypatch.setattr(QueryAnalysis, "analyse_batch", lambda self, texts, *a: analysed.extend(texts) or real_batch(self, texts, *a))
    res = run_experiment([str(data)], tmp_path / "out", layouts=["flat", "multifield", "bm25f"], params=["anserini"],
                         log=lambda m: None)
    assert len(res.rows) == 5 and len(opened) == 1  # bm25f has no Lucene arithmetic
    queries = load_dataset(str(data)).queries
    warm_up = list(arms._warm_up_query(queries).values())  # the query each setting is set up with, once more
    assert sorted(analysed) == sorted([*queries.values(), *warm_up])  # once each, not once per setting


def test_run_finishes_settings_beside_the_next_search_in_order_and_reports_its_errors(tmp_path, monkeypatch):
    from sounding.experiment import run_experiment, runner
    from test_harness import make_beir

    data = make_beir(tmp_path / "toy")
    real, finished = runner._finish_setting, []

    def finish(ds, s, *a):
        finished.append(s.name)
        if s.name == "sounding.bm25.multifield.anserini":
            raise RuntimeError("scoring failed")
        return real(ds, s, *a)

    started = []
    res = run_experiment([str(data)], tmp_path / "ok", layouts=["flat", "multifield"],
                         log=lambda m: started.append(m.removeprefix("toy: ")) if m.startswith("toy: ") else None)
    assert [r.setting for r in res.rows] == started and len(started) == 8  # rows in the settings' order
    monkeypatch.setattr(runner, "_finish_setting", finish)
    with pytest.raises(RuntimeError, match="scoring failed"):
        run_experiment([str(data)], tmp_path / "bad", layouts=["flat", "multifield"], log=lambda m: None)
    assert "sounding.bm25.multifield.anserini" in finished


def test_run_hashes_an_unchanged_corpus_once(tmp_path, monkeypatch):
    import os

    from sounding.datasets import identity
    from sounding.experiment import run_experiment
    from test_harness import make_beir

    data = make_beir(tmp_path / "toy")
    hashed = []
    real = identity._content_sha256
    monkeypatch.setattr(identity, "_content_sha256", lambda p: hashed.append(p) or real(p))
    first = run_experiment([str(data)], tmp_path / "out", layouts=["flat"], params=["anserini"], norms="exact",
                           log=lambda m: None)
    again = run_experiment([str(data)], tmp_path / "out", layouts=["flat"], params=["anserini"], norms="exact",
                           log=lambda m: None)
    assert len(hashed) == 1 and first.to_dicts()[0]["metrics"] == again.to_dicts()[0]["metrics"]
    corpus = load_dataset(str(data)).corpus_path
    st = os.stat(corpus)
    os.utime(corpus, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))  # touched: hashed again, same index
    run_experiment([str(data)], tmp_path / "out", layouts=["flat"], params=["anserini"], norms="exact",
                   log=lambda m: None)
    assert len(hashed) == 2 and len([p for p in (tmp_path / "out" / "indexes").iterdir() if p.is_dir()]) == 1


def test_searcher_analyses_a_repeated_batch_once(tmp_path, monkeypatch):
    data_path = tmp_path / "ix"
    build_index([Document(f"d{i}", "", w, i + 1) for i, w in enumerate(["a b", "b c", "c d", "a d"])], data_path)
    s = Searcher(data_path)
    calls = []
    real = QueryAnalysis.analyse_batch
    monkeypatch.setattr(QueryAnalysis, "analyse_batch", lambda self, texts, *a: calls.extend(texts) or real(self, texts, *a))
    qs = {"q1": "a", "q2": "c d"}
    first = s.search(qs, k=3)
    again = s.search(qs, layout="multifield", k1=1.2, k=3)
    assert calls == ["a", "c d"]
    assert (again.docs == s.search(qs, layout="multifield", k1=1.2, k=3).docs).all()
    s.search({"q1": "b", "q3": "b c"}, k=3)  # other texts are analysed (one query alone goes by search/single.py)
    s.search(qs, k=3, typos=True)  # and typo matching is another analysis
    assert calls == ["a", "c d", "b", "b c", "a", "c d"]
    assert first.to_run() == s.search(qs, k=3).to_run()
    # analysed as a batch or one at a time: the same hits
    assert first.to_run() == {q: Searcher(data_path).search({q: t}, k=3).to_run()[q] for q, t in qs.items()}


def test_run_scifact_rows_are_those_of_the_dict_path(shared_data, tmp_path, monkeypatch):
    from sounding.experiment import run_experiment

    kw = dict(layouts=["flat", "bm25f"], params=["anserini"], data_dir=shared_data, log=lambda m: None)
    run_experiment(["scifact"], tmp_path / "arrays", **kw)
    with monkeypatch.context() as m:
        _rows_by_dicts(m)
        run_experiment(["scifact"], tmp_path / "dicts", **kw)
    (rows, pq), (rows_d, pq_d) = _outputs(tmp_path / "arrays"), _outputs(tmp_path / "dicts")
    assert rows == rows_d and pq == pq_d and len(rows) == 3


def test_cli_runs_gz_writes_gzip_runs_with_the_same_text_and_rows(tmp_path, capsys):
    import gzip

    from sounding.cli import main
    from test_harness import make_beir

    data = make_beir(tmp_path / "toy")
    opts = ["--layouts", "flat,bm25f", "--params", "anserini"]
    assert main(["run", str(data), "--out", str(tmp_path / "plain"), *opts]) == 0
    assert main(["run", str(data), "--out", str(tmp_path / "gz"), "--run-format", "gz", *opts]) == 0
    rows, _ = _outputs(tmp_path / "plain")
    rows_gz, _ = _outputs(tmp_path / "gz")
    assert len(rows) == len(rows_gz) > 0
    for r, g in zip(rows, rows_gz):
        assert g["run_file"] == r["run_file"] + ".gz" and g["metrics"] == r["metrics"]
        text = (tmp_path / "plain" / r["run_file"]).read_bytes()
        packed = (tmp_path / "gz" / g["run_file"]).read_bytes()
        assert packed[:2] == b"\x1f\x8b" and gzip.decompress(packed) == text and text
        assert not (tmp_path / "gz" / r["run_file"]).exists()
    # a plain rerun into the gzip folder recomputes (the row's key holds the format) and writes plain runs
    assert main(["run", str(data), "--out", str(tmp_path / "gz"), *opts]) == 0
    assert all((tmp_path / "gz" / r["run_file"]).is_file() for r in rows)
    capsys.readouterr()
    assert main(["run", str(data), "--out", str(tmp_path / "x"), "--run-format", "zip"]) == 2
    err = capsys.readouterr().err
    assert "--run-format 'zip'" in err and "Traceback" not in err
    # the two options cannot be confused silently: each names the other when given the other's value
    assert main(["run", str(data), "--out", str(tmp_path / "x"), "--run-format", "mine=runs/a.trec"]) == 2
    assert "give it as --run mine=runs/a.trec" in " ".join(capsys.readouterr().err.split())
    assert main(["run", str(data), "--out", str(tmp_path / "x"), "--run", "gz"]) == 2
    assert "use --run-format gz" in " ".join(capsys.readouterr().err.split())


def test_judged_in_collection_counts_ids_found():
    from sounding.experiment.scoring import judged_in_collection
    from sounding.index.docids import DocIds

    ids = DocIds("d1\nd22\nq1\ndé\n".rstrip("\n").encode())
    assert judged_in_collection({"d1", "dé", "d2", "x"}, ids) == 2
    assert judged_in_collection(["d22", "d22"], ["d1", "d22"]) == 1
    assert judged_in_collection({"zz"}, ids) == 0 and judged_in_collection(set(), ids) == 0
    assert judged_in_collection({"d1"}, ["d1", "d1"]) == 1  # an id twice in the collection


def test_each_setting_finishes_its_warm_up_search_in_its_set_up(tmp_path, monkeypatch):
    """What finishing compiles for a kind of results is set-up: the first Sounding BM25 setting of each kind of
    results (exact or Lucene arithmetic) finishes its one-query warm-up search (run file and scores, thrown
    away) before its timed search, with the experiment's measures."""
    from sounding.experiment import run_experiment, runner
    from test_harness import make_beir

    data = make_beir(tmp_path / "toy")
    real, warmed = runner.warm_finishing, []

    def recording(results, job, **kw):
        warmed.append((len(results.qids), kw["measures"]))
        return real(results, job, **kw)

    monkeypatch.setattr(runner, "warm_finishing", recording)
    res = run_experiment([str(data)], tmp_path / "out", layouts=["flat", "multifield"], params=["anserini"],
                         log=lambda m: None)
    assert len(res.rows) == 4 and len(warmed) == 2  # flat.anserini and flat.anserini.lucene-norms
    assert all(n == 1 and measures == runner.BEIR_MEASURES for n, measures in warmed)
    assert not list((tmp_path / "out").rglob("warm-up.trec"))  # thrown away
