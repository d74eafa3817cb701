"""trec_eval's ranking of a query's hits: score descending, ties by docid descending (its qsort of the run)."""
from __future__ import annotations

import heapq
from operator import itemgetter
from typing import Mapping


def trec_order(hits: Mapping[str, float], k: int | None = None) -> list[str]:
    """Docids in trec_eval's order (score descending, ties by docid descending), the top k if given."""
    if k is not None and 4 * k < len(hits):  # a heap pays only when it keeps a small part
        return [d for d, _ in heapq.nlargest(k, hits.items(), key=_SCORE_THEN_DOCID)]
    return [d for d, _ in sorted(hits.items(), key=_SCORE_THEN_DOCID, reverse=True)[:k]]


_SCORE_THEN_DOCID = itemgetter(1, 0)  # (score, docid), compared descending: trec_eval's order
