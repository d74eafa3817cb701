"""Sounding's own BM25 engine (flat layout, english-lucene analysis), driven through the Engine protocol."""
from __future__ import annotations

import time
from pathlib import Path
from typing import Sequence

from .base import Engine, IndexStats, Run, per_query


class SoundingEngine(Engine):
    name = "sounding"
    requirement = "it is part of sounding itself"
    modules = ("numba",)

    def __init__(self, analyzer: str = "english-lucene", layout: str = "flat") -> None:
        super().__init__()
        self.analyzer = analyzer
        self.layout = layout
        self._searcher = None

    @classmethod
    def version(cls) -> str:
        from .. import __version__

        return __version__

    def index(self, docs: Sequence, workdir: Path) -> IndexStats:
        from ..index import build_index

        workdir = self._prepare_workdir(workdir)
        start = time.perf_counter()
        report = build_index(docs, workdir / "index", analyzer=self.analyzer)
        seconds = time.perf_counter() - start
        self.load(workdir)
        return IndexStats(seconds, report.bytes, report.n_docs,
                          {"analyzer": self.analyzer, "n_terms": report.n_terms,
                           "fields": "flat + title + text postings"})

    def load(self, workdir: Path) -> None:
        from ..search import Searcher

        self.workdir = Path(workdir)
        self._searcher = Searcher(self.workdir / "index")

    def search_native(self, items, *, k, k1, b, threads, batch):
        from ..search import BM25Params

        s = self._searcher
        params = BM25Params(layout=self.layout, k1=k1, b=b, k=k)
        self.last_settings = dict(k1=params.k1, b=params.b, k=k, layout=self.layout, analyzer=s.index.analyzer)
        if batch:
            start = time.perf_counter()
            res = s.search(items, params, threads=threads)
            return [res], time.perf_counter() - start
        return per_query(lambda q, t: s.search([(q, t)], params), items, threads)

    def to_run(self, native, items) -> Run:
        run: Run = {q: {} for q, _ in items}
        for res in native:
            run.update(res.to_run())
        return run

    def close(self) -> None:
        self._searcher = None
