"""Two runs compared query by query (`sounding diff`): each judged query's value of a measure in both runs
(exactly what `sounding eval --per-query` gives each run), their difference, the agreement of the two top-k
lists (RBO and KTU, sounding.eval.agreement) and the paired test of the differences.

    d = diff_runs(qrels, "a.trec", "b.trec")
    d.comparison.diff, d.comparison.rand_pvalue        # mean of A − B, paired randomization p
    d.queries[0]                                        # QueryDiff(qid, a, b, diff, rbo, ktu)
"""
from __future__ import annotations

import os
from dataclasses import asdict, dataclass

import numpy as np

from .agreement import DEPTH, RBO_P, agreement, keys, ranking
from .metrics import Qrels, Run, judged_qids
from .significance import Comparison, compare


@dataclass(frozen=True)
class QueryDiff:
    qid: str
    a: float
    b: float
    diff: float  # a - b
    rbo: float
    ktu: float  # NaN when undefined (fewer than 2 documents)


@dataclass
class RunDiff:
    measure: str
    depth: int
    p: float
    queries: list[QueryDiff]  # the judged queries, sorted by qid
    comparison: Comparison
    rankings: tuple[dict[str, list[str]], dict[str, list[str]]]  # each run's top `depth` per judged query

    def biggest(self, n: int) -> list[QueryDiff]:
        """The n queries with the largest |A − B|, largest first (then by qid)."""
        return sorted(self.queries, key=lambda d: (-abs(d.diff), d.qid))[:n]

    def to_dict(self) -> dict:
        def number(x: float):
            return None if isinstance(x, float) and np.isnan(x) else x

        return {"measure": self.measure, "depth": self.depth, "rbo_p": self.p, **asdict(self.comparison),
                "mean_rbo": _nanmean([q.rbo for q in self.queries]), "mean_ktu": _nanmean([q.ktu for q in self.queries]),
                "per_query": {q.qid: {"a": q.a, "b": q.b, "diff": q.diff, "rbo": number(q.rbo), "ktu": number(q.ktu)}
                              for q in self.queries}}


def _nanmean(values: list[float]) -> float | None:
    kept = [v for v in values if not np.isnan(v)]
    return float(np.mean(kept)) if kept else None


def diff_runs(qrels: Qrels, run_a: str | os.PathLike, run_b: str | os.PathLike, *, measure: str = "nDCG@10",
              remove_self_hits: bool = False, depth: int = DEPTH, p: float = RBO_P, permutations: int = 10_000,
              seed: int = 0) -> RunDiff:
    """Compare two TREC run files on `qrels` (see the module's docstring)."""
    from .measures import parse_measures
    from ..trec import read_run
    from .run_file import evaluate_run_file

    name = str(parse_measures([measure])[0])
    qids = judged_qids(qrels)
    values = []
    lists = []
    for path in (run_a, run_b):
        scored, _ = evaluate_run_file(qrels, path, [name], remove_self_hits=remove_self_hits, per_query=True)
        values.append(scored["per_query"][name])
        lists.append(top_lists(read_run(path), qids, depth, remove_self_hits))
    rbo, ktu = _agreement(lists[0], lists[1], qids, depth, p)
    va, vb = values
    rows = [QueryDiff(q, va[q], vb[q], va[q] - vb[q], rbo[i], ktu[i]) for i, q in enumerate(qids)]
    comparison = compare([va[q] for q in qids], [vb[q] for q in qids], permutations=permutations, seed=seed)
    return RunDiff(name, depth, p, rows, comparison, (lists[0], lists[1]))


def top_lists(run: Run, qids: list[str], depth: int, remove_self_hits: bool) -> dict[str, list[str]]:
    """Each query's top `depth` docids in trec_eval's order (own hit dropped under the BEIR convention)."""
    return {q: ranking(run.get(q) or {}, depth=depth, drop=q if remove_self_hits else None) for q in qids}


def _agreement(a: dict[str, list[str]], b: dict[str, list[str]], qids: list[str], depth: int, p: float):
    rows_a, rows_b = [], []
    for q in qids:
        ka, kb = keys(a[q], b[q], depth=depth)
        rows_a.append(ka[0])
        rows_b.append(kb[0])
    if not qids:
        return np.zeros(0), np.zeros(0)
    rbo, ktu = agreement(np.array(rows_a), np.array(rows_b), p)
    return rbo.tolist(), ktu.tolist()


__all__ = ["QueryDiff", "RunDiff", "diff_runs", "top_lists"]
