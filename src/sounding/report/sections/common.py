"""Helpers and constants that several sections share."""
from __future__ import annotations

from typing import Iterable

from ..result_table import MAIN, ResultTable, as_number

RAW = "nDCG@10/raw"  # the headline measure with own hits kept
JUDGED_ONLY = "nDCG'@10"  # nDCG@10 on the judged-only list (trec_eval -J): the "Pool bias" section
# pool-coverage diagnostics, not quality: never highlighted as best, shown in the "Pool bias" section only
DIAGNOSTICS = ("judged@10", JUDGED_ONLY, "bpref")
ALPHA = 0.05
PERMUTATIONS = 10_000


def best(values: Iterable[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return max(present) if present else None


def engine_of(row: dict) -> str:
    return str(row.get("engine") or row["setting"].split(".")[0])


def published_measures(row: dict) -> list[str]:
    pub = row.get("published")
    if not isinstance(pub, dict):
        return []
    # published dicts also carry bookkeeping (title, split, verified, ...): only measure names count
    metrics = row.get("metrics") or {}
    return [m for m in pub if ("@" in m or m in metrics) and as_number(pub[m]) is not None]


def pool_reference(res: ResultTable, dataset: str) -> str | None:
    """The BM25 row the other arms are measured against: Sounding's flat Anserini run, else the best BM25 run."""
    bm25 = [s for s in res.settings if res.row(dataset, s) and res.row(dataset, s).get("arm", "bm25") == "bm25"
            and res.metric(dataset, s, MAIN) is not None]
    if "sounding.bm25.flat.anserini" in bm25:
        return "sounding.bm25.flat.anserini"
    return max(bm25, key=lambda s: res.metric(dataset, s, MAIN), default=None)


def reference_setting(res: ResultTable, dataset: str) -> tuple[str, str] | None:
    """(setting, why) of the dataset's reference: the run of the best published configuration, or, where no
    row carries a published figure, the run with the best nDCG@10 (labelled as such)."""
    rows = [(s, res.row(dataset, s)) for s in res.settings if res.row(dataset, s)]
    published = [(as_number(r["published"].get(MAIN)), s) for s, r in rows if isinstance(r.get("published"), dict)]
    published = [(v, s) for v, s in published if v is not None]
    if published:
        v, s = max(published, key=lambda x: x[0])  # max keeps the first of equals: Sounding before comparators
        pub = res.row(dataset, s)["published"]
        label = pub.get("title") or pub.get("source") or "published"
        return s, f"best published configuration ({MAIN} {v:.4f}, {label})"
    own = [(res.metric(dataset, s, MAIN), s) for s in res.settings if res.metric(dataset, s, MAIN) is not None]
    if not own:
        return None
    v, s = max(own, key=lambda x: x[0])
    return s, f"no published figure for this dataset: best run of this report ({MAIN} {v:.4f})"


def user_rows(res: ResultTable) -> list[dict]:
    return [r for r in res.rows() if r.get("arm") == "user"]
