"""Collection statistics merged across shards, so sharded scores equal single-index scores exactly.

BM25 needs, per field, the document count (N), the total length (for avglen) and each term's
document frequency. Shards hold disjoint documents, so the global values are plain sums; terms
are matched by their text because each shard numbers its own vocabulary.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...errors import SoundingError
from ...index import Index
from ...index.format import FieldStats


@dataclass
class GlobalStats:
    fields: list[str]
    field_stats: dict[str, FieldStats]
    doc_freq: dict[str, np.ndarray]  # term → df per field (aligned with `fields`)
    analyzer: str

    @classmethod
    def merge(cls, indexes: list[Index]) -> "GlobalStats":
        stats, dfs = merge_stats(indexes)
        doc_freq = {term: df[:, i] for ix, df in zip(indexes, dfs) for i, term in enumerate(ix.terms)}
        first = indexes[0].manifest
        return cls(list(first.fields), stats, doc_freq, first.analyzer)

    def for_index(self, ix: Index) -> tuple[np.ndarray, dict[str, FieldStats]]:
        """(df array (n_fields, n_terms) in `ix`'s term numbering, field statistics)."""
        if ix.manifest.fields != self.fields:
            raise SoundingError(f"{ix.root}: fields differ from the merged statistics")
        df = np.stack([self.doc_freq[t] for t in ix.terms], axis=1) if ix.terms else np.zeros((len(self.fields), 0), np.int64)
        return df.astype(np.int64), self.field_stats


def merge_stats(indexes: list[Index]) -> tuple[dict[str, FieldStats], list[np.ndarray]]:
    """Merged field statistics, and each shard's global document frequencies in its own numbering.

    Sums over disjoint shards; terms are matched by text (each shard numbers its own vocabulary).
    One dictionary lookup per shard term, the rest in numpy.
    """
    if not indexes:
        raise SoundingError("no shards to merge")
    first = indexes[0].manifest
    for ix in indexes[1:]:
        if ix.manifest.fields != first.fields or ix.manifest.analyzer != first.analyzer:
            raise SoundingError(f"{ix.root}: shard has other fields or analyzer than {indexes[0].root}")
    stats = {}
    for f in first.fields:
        parts = [ix.manifest.field_stats[f] for ix in indexes]
        stats[f] = FieldStats(sum(p.doc_count for p in parts), sum(p.sum_length for p in parts),
                              sum(p.postings for p in parts))
    ids: dict[str, int] = {}
    maps = [np.fromiter((ids.setdefault(t, len(ids)) for t in ix.terms), dtype=np.int64, count=ix.manifest.n_terms)
            for ix in indexes]
    total = np.zeros((len(first.fields), len(ids)), dtype=np.int64)
    dfs = [np.diff(np.asarray(ix.offsets), axis=1) for ix in indexes]
    for m, df in zip(maps, dfs):
        total[:, m] += df  # a shard's terms are distinct: no repeated index in one update
    return stats, [np.ascontiguousarray(total[:, m]) for m in maps]
