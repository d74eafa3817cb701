"""Sounding's BM25 as a Retriever: one index per corpus, any layout and parameters."""
from __future__ import annotations

import tempfile
from collections.abc import Iterable, Mapping

from ..analysis import DEFAULT_ANALYZER
from ..errors import SoundingError
from ..types import Document


class BM25Retriever:
    """BM25 (default: flat layout, Anserini k1=0.9 b=0.4) over an index built from the documents.

    It scores exactly what the harness's own row of the same setting scores. `index` builds into a
    temporary folder that lives as long as the retriever (the previous one is removed)."""

    def __init__(self, layout: str = "flat", k1: float = 0.9, b: float = 0.4, analyzer: str = DEFAULT_ANALYZER,
                 *, lucene_norms: bool = False):
        self.layout, self.k1, self.b, self.analyzer, self.lucene_norms = layout, k1, b, analyzer, lucene_norms
        self.name = "bm25"
        self.fingerprint = f"bm25:{layout}:{k1!r}:{b!r}:{analyzer}{':lucene-norms' if lucene_norms else ''}"
        self._dir: tempfile.TemporaryDirectory | None = None
        self._searcher = None

    def index(self, documents: Iterable[Document]) -> None:
        from ..index import build_index
        from ..search import Searcher

        self._searcher = None
        self._dir = tempfile.TemporaryDirectory(prefix="sounding-bm25-")
        build_index(documents, self._dir.name, analyzer=self.analyzer, workers=1)
        self._searcher = Searcher(self._dir.name)

    def search(self, queries: Mapping[str, str], k: int):
        if self._searcher is None:
            raise SoundingError("bm25 retriever: call index(documents) before search")
        return self._searcher.search(dict(queries), layout=self.layout, k1=self.k1, b=self.b, k=k,
                                     lucene_norms=self.lucene_norms, anserini_ties=self.lucene_norms)
