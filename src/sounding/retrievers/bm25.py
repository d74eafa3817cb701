"""Sounding's BM25 as a Retriever: one index per corpus, any BM25 setting."""
from __future__ import annotations

import tempfile
from collections.abc import Iterable, Mapping

from ..analysis import DEFAULT_ANALYZER
from ..errors import SoundingError
from ..search.params import DEFAULT_B, DEFAULT_K1, BM25Params
from ..types import Document


class BM25Retriever:
    """BM25 (default: flat layout, Anserini k1=0.9 b=0.4) over an index built from the documents.

    `layout` is a layout name or a whole `BM25Params` (its depth is the `k` of each search). It scores
    exactly what the harness's own row of the same setting scores. `index` builds into a temporary folder
    that lives as long as the retriever (the previous one is removed)."""

    def __init__(self, layout: str | BM25Params = "flat", k1: float = DEFAULT_K1, b: float = DEFAULT_B,
                 analyzer: str = DEFAULT_ANALYZER, *, lucene_norms: bool = False):
        self.params = layout if isinstance(layout, BM25Params) else BM25Params(
            layout=layout, k1=k1, b=b, lucene_norms=lucene_norms, anserini_ties=lucene_norms)
        p = self.params
        self.layout, self.k1, self.b, self.lucene_norms = p.layout.name, p.k1, p.b, p.lucene_norms
        self.analyzer = analyzer
        self.name = "bm25"
        self.fingerprint = f"bm25:{p.layout.name}:{p.k1!r}:{p.b!r}:{analyzer}{':lucene-norms' if p.lucene_norms else ''}"
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
        return self._searcher.search(dict(queries), self.params.replace(k=k))
