"""ir_measures syntax with trec_eval semantics, and trec_eval's official set: names, values, and the oracles.

Oracles: hand-computed values (always), pytrec_eval with its relevance_level (trec_eval's C code at full
precision, always), ir_measures' own calc_aggregate (always), and a trec_eval 10 binary (`-q -c`, `-l 2`,
`-M 100`), on random collections and on nfcorpus's graded qrels (real data; skipped, saying so, without it).
"""
import gzip
import json
import random
from collections import namedtuple

import ir_measures
import numpy as np
import pytest
import pytrec_eval
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sounding
from sounding.errors import SoundingError
from sounding.eval import OFFICIAL, evaluate, parse_measure, parse_measures, per_query_arrays
from sounding.eval.measures import FAMILIES, Measure
from trec_eval_binary import binary_tolerance, needs_trec_eval, run_trec_eval, run_trec_eval_files, write_trec

# -- names ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text, canonical", [
    ("AP(rel=2)@1000", "AP(rel=2)@1000"), ("P(rel=2)@10", "P(rel=2)@10"), ("R(rel=2)@100", "R(rel=2)@100"),
    ("nDCG@10", "nDCG@10"), ("RR@100", "RR@100"), ("Success@10", "Success@10"), ("Bpref", "bpref"),
    ("Judged@10", "judged@10"), ("AP(rel=1)@1000", "AP@1000"), ("AP( rel = 2 )", "AP(rel=2)"),
    ("RR(rel=2)@3", "RR(rel=2)@3"), ("Bpref(rel=2)", "bpref(rel=2)"), ("nDCG(judged_only=True)@10", "nDCG'@10"),
    ("P(judged_only=True,rel=2)@5", "P(judged_only=True,rel=2)@5"), ("IPrec@0.1", "iprec_at_recall_0.10"),
    ("NumQ", "num_q"), ("NumRet", "num_ret"), ("NumRel", "num_rel"), ("NumRelRet", "num_rel_ret"), ("Rprec", "Rprec"),
    ("num_q", "num_q"), ("num_rel_ret", "num_rel_ret"), ("gm_map", "gm_map"), ("GMAP", "gm_map"),
    ("iprec_at_recall_0.00", "iprec_at_recall_0.00"), ("iprec_at_recall_1.00", "iprec_at_recall_1.00"),
    ("11pt_avg", "11pt_avg"), ("IPrec(rel=2)@0.3", "iprec_at_recall(rel=2)_0.30"), ("map", "AP"), ("P_1000", "P@1000"), ("recip_rank", "RR"), ("Judged", "judged"),
])
def test_names(text, canonical):
    assert str(parse_measure(text)) == canonical
    assert parse_measure(canonical) == parse_measure(text)  # the canonical name parses back to the same measure


@pytest.mark.parametrize("text", ["AP(rel=2)@1000", "P(rel=2)@10", "R(rel=2)@100", "nDCG@10", "RR@100",
                                  "Success@10", "RR(rel=2)@3", "nDCG(judged_only=True)@10", "Rprec", "Bpref(rel=2)"])
def test_ir_measures_reads_the_same_measure(text):
    theirs = ir_measures.parse_measure(text)
    ours = parse_measure(text)
    assert dict(ours.params) == {k: v for k, v in theirs.params.items() if k != "cutoff"}
    assert ours.k == theirs.params.get("cutoff")


def test_official_is_trec_eval_s_set_in_its_order():
    names = [m.trec_eval_name for m in parse_measures("official")]
    assert names == ["num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
                     *(f"iprec_at_recall_{x / 10:.2f}" for x in range(11)),
                     *(f"P_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000))]
    assert len(OFFICIAL) == 29


@pytest.mark.parametrize("text, says", [
    ("foo", "unknown measure 'foo'"), ("AP(rel=x)@10", "parameter rel must be a whole number, got 'x'"),
    ("AP(foo=1)", "AP takes rel, judged_only; got 'foo=1'"), ("AP(rel=2,rel=3)", "parameter rel given twice"),
    ("nDCG(rel=2)@10", "nDCG takes judged_only; got 'rel=2'"), ("num_ret@10", "num_ret takes no cutoff"),
    ("P(rel=2)", "needs a cutoff"), ("iprec_at_recall_1.5", "recall must be between 0.0 and 1.0"),
    ("IPrec", "needs a value after '@'"), ("P@2.5", "the cutoff must be a whole number"),
    ("AP(rel=-1)", "rel must be at least 0"), ("nDCG'(judged_only=False)@10", "nDCG' means judged_only=True"),
    ("AP(rel=2", "unknown measure"), ("nDCG(judged_only=yes)@10", "judged_only must be True or False"),
    ("AP\x1b[31m", "unknown measure"),
])
def test_a_bad_measure_is_one_line_naming_the_fault(text, says):
    with pytest.raises(SoundingError) as e:
        parse_measure(text)
    assert says in str(e.value) and "\n" not in str(e.value)
    assert "\x1b" not in str(e.value)  # shown with repr: a control character is escaped


def test_every_family_is_declared_once_with_a_documented_value_function():
    assert {"AP", "nDCG", "P", "R", "RR", "Success", "judged", "bpref", "Rprec", "gm_map", "iprec_at_recall",
            "11pt_avg", "num_q", "num_ret", "num_rel", "num_rel_ret"} <= set(FAMILIES)
    for fam in FAMILIES.values():
        assert fam.doc and callable(fam.value), fam.name
        assert fam.value.__module__.rsplit(".", 1)[0] == "sounding.eval.measures"


# -- values by hand: the collection trec_eval printed these for (trec_eval 10, -c) ----------------------------

QRELS = {"1": {"a": 2, "b": 1, "c": 0, "d": 2, "e": 1}, "2": {"x": 1, "y": 0}, "3": {"z": 0}}
RUN = {"1": {"a": 5.0, "c": 4.0, "f": 3.0, "b": 2.0, "g": 1.0}, "2": {"y": 3.0, "q": 2.0}, "4": {"x": 1.0}}
# `trec_eval -c` and `trec_eval -c -l 2` on QRELS and RUN (4 decimals, as printed)
PRINTED = {
    "num_q": 3, "num_ret": 7, "num_rel": 5, "num_rel_ret": 2, "map": 0.1250, "gm_map": 0.0003, "Rprec": 0.1667,
    "bpref": 0.0833, "recip_rank": 0.3333, "iprec_at_recall_0.30": 0.3333, "iprec_at_recall_0.40": 0.1667,
    "iprec_at_recall_0.70": 0.0, "P_5": 0.1333, "P_1000": 0.0007, "11pt_avg": 0.1667,
}
PRINTED_L2 = {"num_rel_ret": 1, "map": 0.1667, "bpref": 0.1667, "P_5": 0.0667, "11pt_avg": 0.2424}


def test_official_values_by_hand():
    got = evaluate(QRELS, RUN, ["official", "11pt_avg"])
    by_trec = {parse_measure(n).trec_eval_name: v for n, v in got.items()}
    for name, printed in PRINTED.items():
        assert abs(by_trec[name] - printed) <= 0.5e-4, name
    # query 1: relevant a (rank 1) and b (rank 4) of R = 4: iprec at 0.3 (lround(1.2) = 1 hit) = 1/1,
    # at 0.4 (2 hits) = 2/4; Rprec = 2 of the top 4 / 4
    per = evaluate(QRELS, RUN, ["iprec_at_recall_0.30", "iprec_at_recall_0.40", "Rprec"], per_query=True)["per_query"]
    assert per["iprec_at_recall_0.30"]["1"] == 1.0 and per["iprec_at_recall_0.40"]["1"] == 0.5
    assert per["Rprec"]["1"] == 0.5


def test_rel_2_values_by_hand():
    got = evaluate(QRELS, RUN, ["num_rel_ret(rel=2)", "AP(rel=2)", "bpref(rel=2)", "P(rel=2)@5", "11pt_avg(rel=2)"])
    for (name, value), printed in zip(got.items(), PRINTED_L2.values()):
        assert abs(value - printed) <= 0.5e-4, name


def test_counts_are_totals_and_gm_map_a_geometric_mean():
    got = evaluate(QRELS, RUN, ["num_q", "num_ret", "num_rel", "gm_map", "AP"], per_query=True)
    assert (got["num_q"], got["num_ret"], got["num_rel"]) == (3.0, 7.0, 5.0)  # query 4 has no judgement: not counted
    aps = [got["per_query"]["AP"][q] for q in "123"]
    assert got["per_query"]["gm_map"] == got["per_query"]["AP"]  # per query, AP
    assert got["gm_map"] == pytest.approx(np.exp(np.mean(np.log(np.maximum(aps, 1e-5)))), rel=1e-12)


def test_a_judged_query_the_run_misses_still_counts_its_judgements():
    qrels = {"1": {"a": 1, "b": 2}, "2": {"x": 1, "y": 2}}
    got = evaluate(qrels, {"1": {"a": 5.0}}, ["num_q", "num_rel", "num_rel(rel=2)", "num_ret", "AP"], per_query=True)
    assert got["per_query"]["num_rel"]["2"] == 2.0 and got["per_query"]["num_rel(rel=2)"]["2"] == 1.0
    assert got["num_q"] == 2.0 and got["per_query"]["num_ret"]["2"] == 0.0 and got["per_query"]["AP"]["2"] == 0.0


# -- pytrec_eval at full precision, with its relevance_level ---------------------------------------------------

DOCS = ["a", "b", "c", "d", "e", "f", "g", "h", "9", "10", "100", "x1"]


@st.composite
def collections(draw):
    """Graded qrels (-1..3; a query judged only with negative grades is left out: trec_eval refuses it) and runs
    with ties (scores exact in float32, as pytrec_eval reads them), unjudged hits and judged queries without hits."""
    qrels, run = {}, {}
    for q in draw(st.lists(st.sampled_from(["q1", "q2", "q3", "q4"]), min_size=1, max_size=4, unique=True)):
        if draw(st.booleans()) or not qrels:
            qrels[q] = draw(st.dictionaries(st.sampled_from(DOCS), st.integers(-1, 3), min_size=1, max_size=10))
            if not any(g >= 0 for g in qrels[q].values()):
                qrels[q]["a"] = 0
        if draw(st.integers(0, 4)):
            run[q] = draw(st.dictionaries(st.sampled_from(DOCS), st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.0, -1.0, 0.25]),
                                          min_size=1, max_size=12))
    if not run:
        run[next(iter(qrels))] = {"a": 1.0}
    return qrels, run


PYTREC = {  # ours -> pytrec_eval's name
    "AP": "map", "AP@5": "map_cut_5", "P@5": "P_5", "P@10": "P_10", "R@5": "recall_5", "Rprec": "Rprec",
    "bpref": "bpref", "RR": "recip_rank", "Success@3": "success_3", "num_rel": "num_rel",
    "num_rel_ret": "num_rel_ret", "num_ret": "num_ret", "nDCG@5": "ndcg_cut_5", "nDCG": "ndcg",
}


def _with(text: str, **params) -> Measure:
    """The measure with these parameters where its family takes them (defaults left out, as parsing does)."""
    m = parse_measure(text)
    fam = m.family
    given = {**dict(m.params), **{k: v for k, v in params.items() if k in fam.params and v != fam.params[k].default}}
    return Measure(m.name, m.k, tuple(sorted(given.items())))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections(), st.sampled_from([1, 2, 3]), st.booleans())
def test_matches_pytrec_eval_with_relevance_level(data, rel, judged_only):
    qrels, run = data
    # trec_eval -J: unjudged hits out before ranking; num_ret then counts the judged hits (not our num_ret)
    names = {_with(o, rel=rel, judged_only=judged_only): p for o, p in PYTREC.items()
             if not (judged_only and o == "num_ret")}
    qids, ours = per_query_arrays(qrels, run, list(names))
    ref = pytrec_eval.RelevanceEvaluator(qrels, set(names.values()), relevance_level=rel,
                                         judged_docs_only_flag=judged_only).evaluate(run)
    for m, ref_name in names.items():
        for i, q in enumerate(qids):
            expected = ref.get(q, {}).get(ref_name)
            if expected is None:  # -c: pytrec_eval leaves out a judged query without hits
                expected = float(sum(1 for g in qrels[q].values() if g >= rel)) if ref_name == "num_rel" else 0.0
            assert abs(ours[str(m)][i] - expected) <= 1e-12, (str(m), q, ours[str(m)][i], expected)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections())
def test_matches_ir_measures_where_every_judged_query_has_hits(data):
    qrels, run = data
    run = {q: h for q, h in run.items() if q in qrels}
    qrels = {q: j for q, j in qrels.items() if q in run}  # ir_measures averages over the run's queries only
    if not qrels or not any(g > 0 for j in qrels.values() for g in j.values()):
        return
    # distinct scores: ir_measures breaks ties by docid ascending (its Judged), trec_eval descending
    run = {q: {d: float(i) for i, d in enumerate(sorted(h))} for q, h in run.items()}
    texts = ["AP(rel=2)@1000", "P(rel=2)@10", "R(rel=2)@100", "nDCG@10", "Success@10", "Bpref", "Judged@10", "Rprec",
             "RR(rel=2)", "NumQ", "NumRet", "NumRelRet"]
    theirs = ir_measures.calc_aggregate([ir_measures.parse_measure(t) for t in texts], qrels, run)
    ours = sounding.calc_aggregate(texts, qrels, run)
    for t in texts:
        assert abs(ours[parse_measure(t)] - theirs[ir_measures.parse_measure(t)]) <= 1e-12, t


# -- trec_eval 10 --------------------------------------------------------------------------------------------


def _check_against_binary(qrels, run, names, args, *, summary=True):
    printed = run_trec_eval(args, qrels, run, summary=summary)
    got = evaluate(qrels, run, names, per_query=True)
    tol = binary_tolerance()
    checked = 0
    for name in names:
        m = parse_measure(name)
        for (ref_name, qid), text in printed.items():
            if ref_name != m.trec_eval_name:
                continue
            if qid == "all":
                if m.name == "num_rel" and m.param("rel") != 1:
                    continue  # trec_eval -c totals grade > 0 whatever -l says (m_num_rel.c); we sum per query
                value = got[str(m)]
            else:
                value = got["per_query"][str(m)][qid]
            assert abs(value - float(text)) <= (0 if m.family.integer else tol), (name, qid, value, text)
            checked += 1
    return checked


@needs_trec_eval
def test_official_set_equals_trec_eval_on_the_hand_made_collection():
    assert _check_against_binary(QRELS, RUN, [*OFFICIAL, "11pt_avg"], ["-m", "official", "-m", "11pt_avg"]) > 80
    rel2 = [f"{n}(rel=2)" for n in ("num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
                                    "11pt_avg")] + [f"P(rel=2)@{k}" for k in (5, 10)] + [
        f"iprec_at_recall(rel=2)_{x / 10:.2f}" for x in range(11)]
    assert _check_against_binary(QRELS, RUN, rel2, ["-l", "2", "-m", "official", "-m", "11pt_avg"]) > 40


@needs_trec_eval
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections(), st.sampled_from([1, 2]))
def test_official_set_equals_trec_eval_on_random_collections(data, rel):
    qrels, run = data
    if rel == 1:
        names, args = [*OFFICIAL, "11pt_avg"], ["-m", "official", "-m", "11pt_avg"]
    else:
        names = ["AP(rel=2)", "gm_map(rel=2)", "Rprec(rel=2)", "bpref(rel=2)", "RR(rel=2)", "num_rel(rel=2)",
                 "num_rel_ret(rel=2)", "11pt_avg(rel=2)", "P(rel=2)@5", "P(rel=2)@10",
                 *(f"iprec_at_recall(rel=2)_{x / 10:.2f}" for x in range(11))]
        args = ["-l", "2", "-m", "official", "-m", "11pt_avg"]
    assert _check_against_binary(qrels, run, names, args) > 0


def _nfcorpus(beir_dir):
    folder = beir_dir("nfcorpus")
    qrels: dict = {}
    for line in (folder / "qrels" / "test.tsv").read_text().splitlines()[1:]:
        q, d, g = line.split("\t")
        qrels.setdefault(q, {})[d] = int(g)
    with gzip.open(folder / "corpus.jsonl.gz", "rt") as f:
        docids = [json.loads(line)["_id"] for line in f]
    rng = random.Random(7)
    run = {}
    for q, judged in qrels.items():  # judged documents mixed into random ones, scores with ties
        hits = set(rng.sample(docids, 300)) | set(rng.sample(sorted(judged), max(1, len(judged) // 2)))
        # a judged document is lifted half the time (a run that finds some), scores in eighths (many ties)
        run[q] = {d: rng.randrange(200) / 8 + (20 if d in judged and rng.random() < 0.5 else 0) for d in sorted(hits)}
    return qrels, run


@pytest.mark.realdata
@needs_trec_eval
def test_ir_measures_strings_equal_trec_eval_on_nfcorpus_graded_qrels(beir_dir, tmp_path):
    qrels, run = _nfcorpus(beir_dir)
    assert {g for j in qrels.values() for g in j.values()} == {1, 2}  # graded: 2 highly relevant, 1 relevant
    qf, rf = write_trec(qrels, run, tmp_path)
    cases = [  # (our string, trec_eval args, trec_eval's name)
        ("AP(rel=2)@1000", ["-l", "2", "-m", "map_cut.1000"], "map_cut_1000"),
        ("P(rel=2)@10", ["-l", "2", "-m", "P.10"], "P_10"),
        ("R(rel=2)@100", ["-l", "2", "-m", "recall.100"], "recall_100"),
        ("nDCG@10", ["-m", "ndcg_cut.10"], "ndcg_cut_10"),
        ("RR@100", ["-M", "100", "-m", "recip_rank"], "recip_rank"),
        ("Success@10", ["-m", "success.10"], "success_10"),
        ("Bpref", ["-m", "bpref"], "bpref"),
        ("Bpref(rel=2)", ["-l", "2", "-m", "bpref"], "bpref"),
        ("AP", ["-m", "map"], "map"),
        ("nDCG(judged_only=True)@10", ["-J", "-m", "ndcg_cut.10"], "ndcg_cut_10"),
    ]
    got = evaluate(qrels, run, [c[0] for c in cases], per_query=True)
    tol = binary_tolerance()
    for text, args, ref_name in cases:
        printed = run_trec_eval_files(args, qf, rf, summary=True)
        key = str(parse_measure(text))
        values = [(got[key] if q == "all" else got["per_query"][key][q], float(v))
                  for (n, q), v in printed.items() if n == ref_name]
        assert len(values) == len(qrels) + 1, text
        assert max(abs(a - b) for a, b in values) <= tol, text
        assert len({round(a, 4) for a, _ in values}) > 2, text  # the queries differ: a real check, not all zeros


@pytest.mark.realdata
@needs_trec_eval
def test_official_set_equals_trec_eval_on_nfcorpus(beir_dir, tmp_path):
    qrels, run = _nfcorpus(beir_dir)
    for args, names in ((["-m", "official", "-m", "11pt_avg"], [*OFFICIAL, "11pt_avg"]),
                        (["-l", "2", "-m", "official", "-m", "11pt_avg"],
                         [f"{n}(rel=2)" for n in ("map", "gm_map", "Rprec", "bpref", "recip_rank", "num_rel_ret",
                                                  "11pt_avg")] + [f"iprec_at_recall(rel=2)_{x / 10:.2f}" for x in range(11)])):
        assert _check_against_binary(qrels, run, names, args) > 1000


# -- iter_calc -------------------------------------------------------------------------------------------------


def test_iter_calc_yields_ir_measures_shaped_records():
    records = list(sounding.iter_calc(["nDCG@10", "AP(rel=2)", "num_q"], QRELS, RUN))
    assert [r._fields for r in records[:1]] == [("query_id", "measure", "value")]
    assert [(r.query_id, str(r.measure)) for r in records[:3]] == [("1", "nDCG@10"), ("1", "AP(rel=2)"), ("1", "num_q")]
    assert len(records) == 9  # every judged query (3) x 3 measures; query 4 is not judged
    per = evaluate(QRELS, RUN, ["nDCG@10", "AP(rel=2)"], per_query=True)["per_query"]
    assert all(r.value == per[str(r.measure)][r.query_id] for r in records if str(r.measure) in per)


def test_iter_calc_takes_what_ir_measures_takes(tmp_path):
    Qrel = namedtuple("Qrel", "query_id doc_id relevance")
    ScoredDoc = namedtuple("ScoredDoc", "query_id doc_id score")
    qrels = [Qrel(q, d, g) for q, j in QRELS.items() for d, g in j.items()]
    run = [ScoredDoc(q, d, s) for q, h in RUN.items() for d, s in h.items()]
    expected = list(sounding.iter_calc(["AP", "P@5"], QRELS, RUN))
    assert list(sounding.iter_calc(["AP", "P@5"], qrels, run)) == expected
    assert list(sounding.iter_calc(["AP", "P@5"], [tuple(q) for q in qrels], [tuple(r) for r in run])) == expected
    qf, rf = write_trec(QRELS, RUN, tmp_path)
    assert list(sounding.iter_calc(["AP", "P@5"], str(qf), rf)) == expected
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(run, columns=["qid", "docno", "score"])  # PyTerrier's columns
    assert list(sounding.iter_calc(["AP", "P@5"], pd.DataFrame(qrels), frame)) == expected


@pytest.mark.parametrize("qrels, run, says", [
    ({"q": {"a": 1}}, [("q", "a")], "run: a record needs query_id, doc_id, score"),
    ({"q": {"a": 1}}, [("q", "a", "high")], "run: the score of 'q' / 'a' must be a number, got 'high'"),
    ([("q", "a", 1.5)], {"q": {"a": 1.0}}, "qrels: the grade of 'q' / 'a' must be a whole number, got 1.5"),
    ({"q": {"a": 1}}, [("q", "a", 1.0), ("q", "a", 2.0)], "run: query 'q' lists document 'a' twice"),
    ({"q": {"a": 1}}, 42, "run: expected a dict, a path, records or a DataFrame, got int"),
    ({"q": {"a": 1}}, [(1, "a", 1.0)], "run: query and document ids must be strings"),
])
def test_iter_calc_input_faults_are_one_line(qrels, run, says):
    with pytest.raises(SoundingError) as e:
        list(sounding.iter_calc(["AP"], qrels, run))
    assert says in str(e.value) and "\n" not in str(e.value)


@needs_trec_eval
@pytest.mark.parametrize("flags", [[], ["-q"]])
def test_trec_layout_is_trec_eval_s_own_output(tmp_path, capsys, flags):
    """`sounding eval --trec -m official` prints what `trec_eval -c -m official` prints (but its runid line)."""
    import subprocess

    from sounding.cli import main
    from trec_eval_binary import TREC_EVAL

    qf, rf = write_trec(QRELS, RUN, tmp_path)
    assert main(["eval", str(qf), str(rf), "-m", "official", "-m", "11pt_avg", "--trec", *flags]) == 0
    ours = capsys.readouterr().out.splitlines()
    theirs = subprocess.run([TREC_EVAL, "-c", *flags, "-m", "official", "-m", "11pt_avg", str(qf), str(rf)],
                            capture_output=True, text=True, timeout=60).stdout.splitlines()
    assert ours == [line for line in theirs if not line.startswith("runid")]
