"""Evaluate a TREC run file as it lies on disk: `evaluate_run_file` scores it without building the run's
dict (large files through the compiled scan of runscan.py, loaded only for them), and `coverage_warnings`
says why a readable run would score 0 everywhere."""
from __future__ import annotations

import os

from ..errors import SoundingError
from ..trec import files
from .measures import parse_measures
from .metrics import Qrels, Run, evaluate, judged_qids


def large_run(path: str | os.PathLike) -> bool:
    """Will `evaluate_run_file` read this run with the compiled scanner (numba loaded, so that the qrels'
    compiled reader costs nothing more)? False for a file it cannot stat (the reader reports it)."""
    try:
        return os.path.getsize(path) >= files.FAST_PATH_MIN_BYTES
    except OSError:
        return False


def evaluate_run_file(qrels: Qrels, path: str | os.PathLike, measures, *, remove_self_hits: bool = False,
                      per_query: bool = False, fast: bool | None = None) -> tuple[dict, dict[str, int]]:
    """`evaluate(qrels, read_run(path), measures, ...)` without building the run: the same result, plus
    {qid: number of hits} of the run's queries (what `coverage_warnings` needs).

    `fast` None: the compiled pass for files of 32 MB and more (below, importing numba and loading its
    kernels costs more than it saves), True: always, False: never."""
    ms = parse_measures(measures)
    qids = judged_qids(qrels)
    if not qids:
        raise SoundingError("the qrels hold no judged queries")
    data = files.read_bytes(path, mapped=True)
    if fast is None:
        fast = len(data) >= files.FAST_PATH_MIN_BYTES
    got = None
    if fast:
        from .runscan import scan

        got = scan(data, qrels, qids, ms, remove_self_hits)
    if got is None:  # the checked reader decides (and names any fault)
        if not isinstance(data, bytes):  # a map, unchecked: its lines before its bytes are copied
            files.check_lines(data, path)
            data = data[:]
        run = files.run_from_bytes(data, path)
        return evaluate(qrels, run, ms, remove_self_hits=remove_self_hits, per_query=per_query), \
            {q: len(h) for q, h in run.items()}
    table, counts = got
    values = {str(m): table[:, c] for c, m in enumerate(ms)}
    out: dict = {str(m): m.aggregate(values[str(m)]) for m in ms}
    if per_query:
        out["per_query"] = {name: dict(zip(qids, v.tolist())) for name, v in values.items()}
    return out, counts


def coverage_warnings(qrels: Qrels, run: Run, name: str = "run") -> list[str]:
    """Why a readable run scores 0 on every query, one message each with its counts; [] when it does not.

    Two cases are warnings, not errors (trec_eval accepts both): the run holds no hits at all, or none of
    its queries is judged in the qrels (often query ids that do not match). `name` starts each message.
    """
    judged = sum(1 for j in qrels.values() if j)
    queries = [q for q, hits in run.items() if hits]
    if not queries:
        return [f"{name}: the run is empty (0 hits): all {judged} judged queries score 0"]
    if not any(qrels.get(q) for q in queries):
        return [
            f"{name}: none of the run's {len(queries)} queries is judged in the qrels ({judged} judged queries): "
            "all score 0; do the query ids match?"
        ]
    return []
