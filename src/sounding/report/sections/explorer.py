"""The "Per-query explorer" section: any two systems of the report side by side, query by query (the page's
script; the data is built by sounding.report.explorer from the output folder)."""
from __future__ import annotations

from pathlib import Path

from ..blocks import Explorer, Para, Section
from ..charts import colours
from ..explorer.topics import MAX_QUERIES
from ..result_table import MAIN, ResultTable
from .common import user_rows
from .verdict import best_bm25


def section(res: ResultTable, per_query: dict | None, out_dir: Path | None) -> Section:
    from ...results import TOP

    s = Section("per-query", "Per-query explorer: two systems side by side")
    s.blocks.append(Para(
        f"Choose a dataset and two systems A and B (at first: your system against the best BM25 row, else the "
        f"two best settings). Queries are sorted by Δ {MAIN} = A − B (click a column head to sort by it), with "
        f"the win/tie/loss count, and per query the rank-biased overlap (p = 0.9) and Kendall's tau over the "
        f"union (KTU) of the two top {TOP} lists, as repro_eval defines them (docs/definitions.md). Click a "
        f"query to see both top {TOP} lists side by side: each document's grade (unjudged ones marked), title "
        f"and a snippet with the words the index matches to the query's terms highlighted, where it ranks in "
        f"the other list, and the relevant documents each list misses. A dataset with more than "
        f"{MAX_QUERIES:,} judged queries shows {MAX_QUERIES:,} of them, evenly spaced in query id order."))
    data = _data(res, per_query or {}, out_dir) if out_dir is not None else None
    if data is None:
        s.blocks.append(Para("No rankings to explore: the rows' per-query files hold no top 10 lists, or "
                             "OUT/explorer has no titles and judgements (rows computed by an earlier version "
                             "of Sounding: run them again).", "note"))
    else:
        s.blocks.append(Explorer(data))
    return s


def default_pair(res: ResultTable, dataset: str, systems: list[str]) -> tuple[str, str] | None:
    """The pair shown first: the first user system against the best BM25 row, else the two best settings."""
    users = [r["setting"] for r in user_rows(res) if r["dataset"] == dataset and r["setting"] in systems]
    best = best_bm25(res, dataset)
    if users and best in systems:
        return users[0], best
    ranked = sorted(systems, key=lambda st: -(res.metric(dataset, st, MAIN) or -1.0))
    return (ranked[0], ranked[1]) if len(ranked) > 1 else None


def _data(res: ResultTable, per_query: dict, out_dir: Path) -> str | None:
    from ..explorer import build, encode, rankings, read_topics

    lists = rankings(out_dir, list(res.rows()))
    topics = {d: t for d in res.datasets if (t := read_topics(out_dir, d)) is not None}
    pairs = {}
    for d in res.datasets:
        systems = [st for st in res.settings if (d, st) in lists]
        pair = default_pair(res, d, systems)
        if pair:
            pairs[d] = pair
    data = build(res, per_query, lists, topics, pairs, colours(res.settings))
    return encode(data) if data["datasets"] else None
