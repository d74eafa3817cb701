"""Collection statistics merged across shards, so sharded scores equal single-index scores exactly.

BM25 needs, per field, the document count (N), the total length (for avglen) and each term's
document frequency. Shards hold disjoint documents, so the global values are plain sums; terms
are matched by their text because each shard numbers its own vocabulary.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import SoundingError
from ..index import Index
from ..index.format import FieldStats


@dataclass
class GlobalStats:
    fields: list[str]
    field_stats: dict[str, FieldStats]
    doc_freq: dict[str, np.ndarray]  # term → df per field (aligned with `fields`)
    analyzer: str

    @classmethod
    def merge(cls, indexes: list[Index]) -> "GlobalStats":
        if not indexes:
            raise SoundingError("no shards to merge")
        first = indexes[0].manifest
        for ix in indexes[1:]:
            if ix.manifest.fields != first.fields or ix.manifest.analyzer != first.analyzer:
                raise SoundingError(f"{ix.root}: shard has other fields or analyzer than {indexes[0].root}")
        stats = {f: FieldStats(0, 0, 0) for f in first.fields}
        doc_freq: dict[str, np.ndarray] = {}
        for ix in indexes:
            for f in first.fields:
                st = ix.manifest.field_stats[f]
                acc = stats[f]
                stats[f] = FieldStats(acc.doc_count + st.doc_count, acc.sum_length + st.sum_length,
                                      acc.postings + st.postings)
            df = np.diff(np.asarray(ix.offsets), axis=1).T  # (n_terms, n_fields)
            for term, row in zip(ix.terms, df):
                if term in doc_freq:
                    doc_freq[term] = doc_freq[term] + row
                else:
                    doc_freq[term] = row.copy()
        return cls(list(first.fields), stats, doc_freq, first.analyzer)

    def for_index(self, ix: Index) -> tuple[np.ndarray, dict[str, FieldStats]]:
        """(df array (n_fields, n_terms) in `ix`'s term numbering, field statistics)."""
        if ix.manifest.fields != self.fields:
            raise SoundingError(f"{ix.root}: fields differ from the merged statistics")
        df = np.stack([self.doc_freq[t] for t in ix.terms], axis=1) if ix.terms else np.zeros((len(self.fields), 0), np.int64)
        return df.astype(np.int64), self.field_stats
