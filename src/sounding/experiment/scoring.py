"""Score one setting of `sounding run`: the measures, raw nDCG@10, per-query values, pool holes, cross-check.

A Sounding search is scored from its top-k arrays (`score_results`): the judged documents' ranks come from
compiled code (eval/arrayeval.py) and the values from the measures' own per-query code, so every number is
the one `score_run(qrels, results.to_run())` gives, to the last digit, without a dict per query. Any other
arm (dense, hybrid, sparse, rerank, the user's systems) hands a run dict to `score_run`.

The pytrec_eval cross-check (trec_eval's C code, eval/crosscheck.py) needs dicts. It gets, for every judged
query, the hits that can reach the top 100 once the query's own document is removed (those scored at least
as high as the 101st best; ties at the border all kept), as {docid: score}; it cuts them to the top 100 in
trec_eval's order itself, re-scores them, and compares each query's nDCG@10, R@100 and RR@100 with the
values this module put in the row. Above `CROSSCHECK_QUERIES` judged queries a deterministic sample of that
many (evenly spaced in sorted qid order) is checked, and the row's "crosscheck" says how many ("queries",
"of"); below it every judged query is.

Each judged query's top TOP documents as scored (trec_eval's order, own hit dropped) are kept too, under
RANKING in the per-query values: the report's run explorer and `sounding diff` compare them.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping

import numpy as np

from ..errors import SoundingError
from ..results import RANKING, TOP
from ..eval import evaluate
from ..eval.agreement import ranking
from ..eval.crosscheck import CHECKED, CUT, CrosscheckReport, crosscheck
from ..eval.measures import horizon, parse_measures, query_values
from ..eval.metrics import Qrels, Run, judged_qids, unjudged_in_top

RAW = "nDCG@10"  # scored on the ranking as retrieved too (the row's raw_metrics), own hits kept
CROSSCHECK_QUERIES = 5000  # judged queries checked against pytrec_eval at most (a deterministic sample above)


@dataclass
class Scored:
    metrics: dict[str, float]  # measure → mean (own hits removed)
    raw_metrics: dict[str, float]  # RAW → mean with own hits kept
    per_query: dict[str, dict]  # measure → {qid: value}, "nDCG@10/raw" (own hits kept), "unjudged@K" (counts),
    #                             RANKING → {qid: [docid, ...]}
    unjudged: dict[str, int]  # qid → hits in the top K without any judgement
    check: CrosscheckReport
    checked: int  # judged queries cross-checked
    judged: int  # judged queries
    queries_without_hits: int  # of the queries searched

    def crosscheck_row(self) -> dict:
        """The row's "crosscheck": verdict, largest difference, and how many queries a sample checked."""
        c = self.check
        return {"ok": c.ok, "max_diff": c.max_diff, **({"explained_by_float32": True} if c.explained_by_float32 else {}),
                **({"queries": self.checked, "of": self.judged} if self.checked < self.judged else {})}


def write_and_score(run_file: Path, tag: str, qrels: Qrels, queries: Iterable[str], measures: list[str], *,
                    results=None, run: Run | None = None, pool_k: int = 10, judged: "JudgedDocs | None" = None,
                    header: str = "") -> Scored:
    """Write the run file (from the arrays when `run` is None, else from the dict) in a second thread while
    the setting is scored (`score_setting`): formatting, compression and the disk mostly run outside
    Python's lock, scoring mostly inside it. The file is complete when this returns."""
    from concurrent.futures import ThreadPoolExecutor

    from ..trec.files import write_run

    with ThreadPoolExecutor(1, thread_name_prefix="sounding-run-writer") as pool:
        if run is None:
            written = pool.submit(results.write_run, run_file, tag=tag, header=header)
        else:
            written = pool.submit(write_run, run, run_file, tag=tag, header=header)
        try:
            scored = score_setting(qrels, queries, measures, results=results, run=run, pool_k=pool_k, judged=judged)
        finally:
            written.result()
    return scored


def warm_finishing(results, job, *, measures: list[str], pool_k: int, judged: "JudgedDocs | None") -> None:
    """A setting's finishing (`write_and_score`: its run file written from the arrays, its scores) done on a
    warm-up search's results and thrown away: what finishing this kind of results compiles (Lucene's float
    scores, Anserini's ties) is compiled in the setting's set-up, not in the finishing thread beside the next
    setting's timed search."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="sounding-warm-up-") as tmp:
        write_and_score(Path(tmp) / "warm-up.trec", "warm-up", job.dataset.qrels, list(results.qids), measures,
                        results=results, pool_k=pool_k, judged=judged)


def score_setting(qrels: Qrels, queries: Iterable[str], measures: list[str], *, results=None, run: Run | None = None,
                  pool_k: int = 10, judged: "JudgedDocs | None" = None) -> Scored:
    """Score a `run` dict, or else a Sounding search's `results` from its arrays (other result types through
    their run dict); own hits removed (BEIR's convention) except for the raw nDCG@10."""
    if run is not None:
        return score_run(qrels, queries, measures, run, pool_k)
    if hasattr(results, "counts") and hasattr(results, "docs"):
        return score_results(qrels, queries, measures, results, pool_k, judged=judged)
    return score_run(qrels, queries, measures, results.to_run(), pool_k)


def score_run(qrels: Qrels, queries: Iterable[str], measures: list[str], run: Run, pool_k: int = 10) -> Scored:
    """The dict path: `evaluate` twice (own hits removed; raw nDCG@10), `unjudged_in_top`, `crosscheck`."""
    scored = evaluate(qrels, run, measures, remove_self_hits=True, per_query=True)
    raw = evaluate(qrels, run, [RAW], per_query=True)
    per_query = dict(scored.pop("per_query"))
    per_query[f"{RAW}/raw"] = raw["per_query"][RAW]
    unjudged = unjudged_in_top(qrels, run, pool_k, remove_self_hits=True)
    per_query[f"unjudged@{pool_k}"] = unjudged
    per_query[RANKING] = {q: ranking(run.get(q) or {}, depth=TOP, drop=q) for q in judged_qids(qrels)}
    check = crosscheck(qrels, run, remove_self_hits=True)
    judged = len(judged_qids(qrels))
    return Scored(scored, {RAW: raw[RAW]}, per_query, unjudged, check, judged, judged, sum(1 for q in queries if not run.get(q)))


def score_results(qrels: Qrels, queries: Iterable[str], measures: list[str], results, pool_k: int = 10, *,
                  judged: "JudgedDocs | None" = None) -> Scored:
    """`score_run(qrels, queries, measures, results.to_run())` from the arrays: the same values and counts.
    `judged`: `judged_docs(qrels, results.docids)` made beforehand (once for every setting of a dataset)."""
    from ..eval.arrayeval import OK, judged_ranks
    from ..trec.run_writer import docid_byte_rank

    ms = parse_measures(measures)
    raw_m = parse_measures([RAW])
    qids = judged_qids(qrels)
    if not qids:
        raise SoundingError("the qrels hold no judged queries")
    if pool_k < 1:
        raise SoundingError(f"the cutoff must be at least 1, got {pool_k}")
    last = {q: i for i, q in enumerate(results.qids)}  # a repeated qid: its last row, as to_run's dict keeps
    counts = np.asarray(results.counts, dtype=np.int64)
    if judged is None or judged.qids != qids or judged.n_docs != len(results.docids):
        judged = judged_docs(qrels, results.docids)
    if judged is None:  # an id no UTF-8 file can hold: the dict path decides
        return score_run(qrels, queries, measures, results.to_run(), pool_k)
    first, numbers, n_judged = judged.first, judged.numbers, int(judged.first[-1])
    rows = np.array([last.get(q, -1) for q in qids], dtype=np.int64)
    reach = horizon(ms)
    status = not OK
    if judged.unique:
        status, ranks_self, ranks_raw, n_self, n_raw = judged_ranks(
            np.ascontiguousarray(results.docs), np.ascontiguousarray(results.scores), counts, rows,
            numbers[n_judged:], first, numbers[:n_judged], docid_byte_rank(results),
            float(min(max(reach, pool_k), 2.0**62)), float(min(horizon(raw_m), 2.0**62)), judged.n_docs)
    if status != OK:  # a NaN score, or an id twice: the dict path reports or decides
        return score_run(qrels, queries, measures, results.to_run(), pool_k)

    table_self = np.zeros((len(qids), len(ms)))
    table_raw = np.zeros((len(qids), 1))
    unjudged: dict[str, int] = {}
    rs_l, rr_l, ns_l, nr_l, first_l = ranks_self.tolist(), ranks_raw.tolist(), n_self.tolist(), n_raw.tolist(), first.tolist()
    for i, q in enumerate(qids):
        judgements = qrels[q]
        a, z = first_l[i], first_l[i + 1]
        grades = judgements.values()
        n = ns_l[i]
        found = [(r, g) for r, g in zip(rs_l[a:z], grades) if r] if n else []
        table_self[i] = query_values(ms, judgements, [r for r, _ in found], [g for _, g in found], n)
        unjudged[q] = min(pool_k, n) - sum(1 for r, _ in found if r <= pool_k)
        found = [(r, g) for r, g in zip(rr_l[a:z], grades) if r] if nr_l[i] else []
        table_raw[i] = query_values(raw_m, judgements, [r for r, _ in found], [g for _, g in found], nr_l[i])
    values = {str(m): table_self[:, j].copy() for j, m in enumerate(ms)}  # as per_query_arrays: columns copied
    raw = table_raw[:, 0].copy()
    metrics: dict = {str(m): m.aggregate(values[str(m)]) for m in ms}
    per_query: dict = {name: dict(zip(qids, v.tolist())) for name, v in values.items()}
    per_query[f"{RAW}/raw"] = dict(zip(qids, raw.tolist()))
    per_query[f"unjudged@{pool_k}"] = unjudged
    tops = _top_hits(results, qids, last, TOP)
    per_query[RANKING] = {q: ranking(tops.get(q) or {}, depth=TOP, drop=q) for q in qids}
    got = {q: int(counts[i]) for q, i in last.items()}
    without_hits = sum(1 for q in queries if not got.get(q))
    checked = _sample(qids, CROSSCHECK_QUERIES)
    check = _crosscheck_results(qrels, results, checked, last, per_query, ms)
    return Scored(metrics, {RAW: float(raw.mean())}, per_query, unjudged, check, len(checked), len(qids), without_hits)


@dataclass(frozen=True)
class JudgedDocs:
    """Where the judged documents and each judged query's own document are in one collection: a compiled pass
    over every id of the collection (~0.3 s at 2.7 M documents), made once for all the settings scored
    against it."""

    qids: list[str]  # the judged queries, sorted (judged_qids)
    first: np.ndarray  # query i's judgements are entries first[i]..first[i+1]-1 (qrels order)
    numbers: np.ndarray  # document number of each entry, then of each query's own id (-1: absent)
    unique: bool  # False when a wanted id is on two lines of the collection (numbers are then incomplete)
    n_docs: int

    def found(self) -> int:
        """How many judgement entries name a document of the collection."""
        return int(np.count_nonzero(self.numbers[: int(self.first[-1])] >= 0))


def judged_docs(qrels: Qrels, docids) -> JudgedDocs | None:
    """The judged documents' numbers in `docids` (None: an id no UTF-8 file can hold)."""
    from ..eval.arrayeval import lookup_ids
    from ..trec.run_writer import DocIdTable

    qids = judged_qids(qrels)
    try:
        want = [d.encode("utf-8") for q in qids for d in qrels[q]] + [q.encode("utf-8") for q in qids]
    except UnicodeEncodeError:
        return None
    want_ptr = np.zeros(len(want) + 1, np.int64)
    np.cumsum([len(w) for w in want], out=want_ptr[1:])
    want_blob = np.frombuffer(b"".join(want), np.uint8) if want_ptr[-1] else np.zeros(1, np.uint8)
    table = DocIdTable(docids)
    numbers, unique = lookup_ids(table.blob, np.asarray(table.starts), want_blob, want_ptr)
    first = np.zeros(len(qids) + 1, np.int64)
    np.cumsum([len(qrels[q]) for q in qids], out=first[1:])
    return JudgedDocs(qids, first, numbers, bool(unique), len(table.starts) - 1)


def judged_in_collection(ids: Iterable[str], docids) -> int:
    """How many of `ids` are among the collection's `docids` (compiled lookup over docids.txt's bytes;
    no set of every id)."""
    ids = list(dict.fromkeys(ids))
    return len(ids) - len(absent_ids(ids, docids))


def absent_ids(ids: Iterable[str], docids) -> set[str]:
    """Those of `ids` that are not among the collection's `docids` (the compiled lookup of
    `judged_in_collection`)."""
    from ..eval.arrayeval import lookup_ids
    from ..trec.run_writer import DocIdTable

    ids = list(dict.fromkeys(ids))
    try:
        want = [d.encode("utf-8") for d in ids]
    except UnicodeEncodeError:  # an id no UTF-8 file holds
        want = None
    if not ids:
        return set()
    if want is not None:
        ptr = np.zeros(len(want) + 1, np.int64)
        np.cumsum([len(w) for w in want], out=ptr[1:])
        table = DocIdTable(docids)
        found, unique = lookup_ids(table.blob, np.asarray(table.starts),
                                   np.frombuffer(b"".join(want) or b"\0", np.uint8), ptr)
        if unique:
            return {d for d, n in zip(ids, found.tolist()) if n < 0}
    return set(ids) - set(docids)  # (an id twice in the collection: the plain way)


def _sample(qids: list[str], most: int) -> list[str]:
    """At most `most` of the sorted qids, evenly spaced (all of them when there are no more)."""
    if len(qids) <= most:
        return qids
    return [qids[i * len(qids) // most] for i in range(most)]


def _top_hits(results, qids: list[str], last: Mapping[str, int], cut: int) -> dict[str, dict[str, float]]:
    """{qid: {docid: score}} of the hits of `qids` that can rank within the top `cut` once one hit (the query's
    own) is removed: those scored at least as high as the (cut+1)-th best, ties at the border all kept."""
    from ..eval.arrayeval import top_candidates
    from ..retrieval.search.hits import hit_ids

    names = [q for q in qids if q in last]
    rows = np.array([last[q] for q in names], dtype=np.int64)
    docs, scores, kept = top_candidates(np.ascontiguousarray(results.docs), np.ascontiguousarray(results.scores),
                                        np.asarray(results.counts, dtype=np.int64), rows, cut)
    ids = hit_ids(results.docids, docs, kept)
    values = scores.tolist()
    run: dict[str, dict[str, float]] = {}
    at = 0
    for q, s, n in zip(names, values, kept.tolist()):
        run[q] = dict(zip(ids[at : at + n], s[:n]))
        at += n
    return run


def _crosscheck_results(qrels: Qrels, results, qids: list[str], last: Mapping[str, int], per_query: dict,
                        ms) -> CrosscheckReport:
    """pytrec_eval on the hits of `qids` that can reach the top CUT without the own hit, against our values."""
    sub = {q: qrels[q] for q in qids}
    run: Run = _top_hits(results, qids, last, CUT)
    have = {str(m) for m in ms}
    ours = {name: {q: per_query[name][q] for q in qids} for name in CHECKED} if have >= set(CHECKED) else None
    return crosscheck(sub, run, remove_self_hits=True, ours=ours)
