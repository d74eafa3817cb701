"""What is added to a top k after the kernels: the term-proximity bonus (docs/scoring.md), computed by
kernels/proximity.py over the flat field's positions, then the hits put back in trec order."""
from __future__ import annotations

import numpy as np

from . import bm25
from .collection import Collection
from .kernels.proximity import proximity_bonus


def add_proximity(coll: Collection, matches: list, out_docs, out_scores, out_n, weight: float, window: int) -> None:
    """Add weight × proximity bonus to each hit, then restore trec order (score desc, id desc)."""
    index = coll.index
    flat = coll.fields.index("flat")
    n_flat = coll.field_stats["flat"].doc_count
    ptr = np.cumsum([0] + [len(m) for m in matches]).astype(np.int64)
    terms = np.asarray([t for m in matches for t, _ in m], dtype=np.int64)
    idf = bm25.idf(coll.df[flat, terms], n_flat) if len(terms) else np.zeros(0)
    bonus = proximity_bonus(ptr, terms, idf, flat, coll.offsets, coll.docs, np.asarray(index.pos_offsets),
                            np.asarray(index.positions), out_docs, out_n, int(window))
    for q in range(len(matches)):
        n = int(out_n[q])
        docs = out_docs[q, :n]
        scores = (out_scores[q, :n].astype(np.float64) + weight * bonus[q, :n]).astype(np.float32)
        order = np.lexsort((-coll.rank[docs].astype(np.int64), -scores))
        out_docs[q, :n], out_scores[q, :n] = docs[order], scores[order]
