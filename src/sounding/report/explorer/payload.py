"""The run explorer's data, as embedded in report.html: per dataset, the queries, the documents shown, the
judgements, each system's per-query nDCG@10 and top 10, and the agreement (RBO, KTU) of every pair of
systems on every query, computed here (sounding.eval.agreement) so the page only shows numbers.

Embedded as gzip-compressed JSON in base64 (`encode`); the page's script inflates it with the browser's
DecompressionStream. Documents are numbered in docid order, so a document's number is its key for KTU.
"""
from __future__ import annotations

import base64
import gzip
import json
from collections.abc import Mapping
from itertools import combinations
from pathlib import Path

import numpy as np

from ...eval.agreement import RBO_P, agreement
from ...results import RANKING, TOP
from ..result_table import MAIN, ResultTable

DIGITS = 4  # RBO and KTU as shown


def rankings(out: Path, rows: list[dict]) -> dict[tuple[str, str], dict[str, list[str]]]:
    """{(dataset, setting): {qid: top docids}} from the rows' per-query files (rows without rankings left out)."""
    found = {}
    for row in rows:
        path = Path(out) / (row.get("per_query_file") or f"per_query/{row['dataset']}/{row['setting']}.json")
        try:
            lists = json.loads(path.read_text(encoding="utf-8")).get(RANKING)
        except (OSError, ValueError, AttributeError):
            continue
        if isinstance(lists, dict):
            found[(row["dataset"], row["setting"])] = {str(q): [str(d) for d in v] for q, v in lists.items()
                                                       if isinstance(v, list)}
    return found


def build(res: ResultTable, per_query: Mapping[tuple[str, str], Mapping[str, float]],
          lists: Mapping[tuple[str, str], Mapping[str, list[str]]], topics: Mapping[str, dict],
          default_pairs: Mapping[str, tuple[str, str]], colours: Mapping[str, str], *, measure: str = MAIN,
          depth: int = TOP) -> dict:
    """The explorer's data for the datasets that have rankings and topics; `per_query` holds `measure`'s
    values, `lists` each system's top `depth` per query."""
    out = []
    for d in res.datasets:
        systems = [s for s in res.settings if (d, s) in lists]
        if len(systems) < 2 or d not in topics:
            continue
        out.append(_dataset(d, systems, per_query, lists, topics[d], default_pairs.get(d), depth))
    return {"depth": depth, "p": RBO_P, "measure": measure, "colours": dict(colours), "datasets": out}


def _dataset(d: str, systems: list[str], per_query, lists, topics: dict, default: tuple[str, str] | None,
             depth: int) -> dict:
    queries = sorted(topics.get("queries") or {})
    qrels = topics.get("qrels") or {}
    ids = set()
    for s in systems:
        for q in queries:
            ids.update(lists[(d, s)].get(q, ()))
    for q in queries:
        ids.update(doc for doc, g in (qrels.get(q) or {}).items() if g > 0)
    docs = sorted(ids)
    number = {doc: i for i, doc in enumerate(docs)}
    shown = topics.get("docs") or {}
    keys = {}
    for s in systems:
        k = np.full((len(queries), depth), -1, np.int64)
        for i, q in enumerate(queries):
            top = [number[doc] for doc in lists[(d, s)].get(q, ())[:depth]]
            k[i, : len(top)] = top
        keys[s] = k
    pairs = {}
    for (i, a), (j, b) in combinations(enumerate(systems), 2):
        rbo, ktu = agreement(keys[a], keys[b], RBO_P)
        pairs[f"{i},{j}"] = [_rounded(rbo), _rounded(ktu)]
    first = default or (systems[0], systems[1])
    return {
        "name": d,
        "queries": [[q, *(topics["queries"][q])] for q in queries],
        "docs": [[doc, *(shown.get(doc) or ["", [], "", []])] for doc in docs],
        "qrels": [[[number[doc], g] for doc, g in sorted((qrels.get(q) or {}).items()) if doc in number]
                  for q in queries],
        "systems": [{"name": s, "values": [_value(per_query.get((d, s), {}).get(q)) for q in queries],
                     "lists": [keys[s][i][keys[s][i] >= 0].tolist() for i in range(len(queries))]}
                    for s in systems],
        "pairs": pairs,
        "default": [systems.index(first[0]), systems.index(first[1])],
    }


def _value(v) -> float | None:
    return float(v) if isinstance(v, (int, float)) else None


def _rounded(values: np.ndarray) -> list[float | None]:
    return [None if np.isnan(v) else round(float(v), DIGITS) for v in values.tolist()]


def encode(data: dict) -> str:
    """The data as base64 of gzip-compressed JSON (text in it is never markup: the script sets it as text)."""
    raw = json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return base64.b64encode(gzip.compress(raw, compresslevel=9, mtime=0)).decode("ascii")
