"""bm25s (xhluca/bm25s): PyStemmer English + bm25s's "en" stop words, method "lucene", numba backend.

bm25s precomputes BM25 scores at indexing time, so k1 and b are fixed when the index is built
(constructor arguments, 0.9/0.4 by default). A search with other values rebuilds the score matrix
from the tokenised corpus kept by `index` (outside the search timer; `last_settings` says so); an
index opened with `load` has no tokens, and other values are then an error. It returns
k documents per query even when fewer match; hits with score 0 (no query term) are dropped from
the run, so every engine's run holds matching documents only.
"""
from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Sequence

import numpy as np

from ..errors import SoundingError
from ..search.params import DEFAULT_B, DEFAULT_K1
from .base import Engine, IndexStats, Run, dir_bytes, flat_text, package_version, per_query


class BM25SEngine(Engine):
    name = "bm25s"
    requirement = "pip install 'sounding[peers]' (bm25s, PyStemmer, numba)"
    modules = ("bm25s", "Stemmer", "numba")

    def __init__(self, k1: float = DEFAULT_K1, b: float = DEFAULT_B, backend: str = "numba") -> None:
        super().__init__()
        self.k1, self.b, self.backend = k1, b, backend
        self._model = None
        self._tokens = None  # the tokenised corpus of `index`, to rebuild for other k1/b
        self._docids: list[str] = []
        self._stemmer = None

    @classmethod
    def version(cls) -> str:
        return package_version("bm25s")

    def _tokenize(self, texts: list[str]):
        import bm25s

        return bm25s.tokenize(texts, stopwords="en", stemmer=self._stemmer, show_progress=False)

    def _setup(self) -> None:
        import Stemmer

        self.require()
        if self._stemmer is None:
            self._stemmer = Stemmer.Stemmer("english")

    def index(self, docs: Sequence, workdir: Path) -> IndexStats:
        import bm25s

        self._setup()
        workdir = self._prepare_workdir(workdir)
        docs = list(docs)
        start = time.perf_counter()
        tokens = self._tokenize([flat_text(d) for d in docs])
        model = bm25s.BM25(k1=self.k1, b=self.b, method="lucene", backend=self.backend)
        model.index(tokens, show_progress=False)
        model.save(str(workdir / "index"), show_progress=False)
        (workdir / "index" / "docids.json").write_text(json.dumps([d.id for d in docs]))
        seconds = time.perf_counter() - start
        self.load(workdir)
        self._tokens = tokens
        return IndexStats(seconds, dir_bytes(workdir / "index"), len(docs),
                          {"k1": self.k1, "b": self.b, "method": "lucene", "backend": self.backend,
                           "analysis": "bm25s.tokenize, stopwords='en', PyStemmer english"})

    def load(self, workdir: Path) -> None:
        import bm25s

        self._setup()
        self.workdir = Path(workdir)
        model = bm25s.BM25.load(str(self.workdir / "index"), load_corpus=False, show_progress=False,
                                backend=self.backend)
        self.k1, self.b = float(model.k1), float(model.b)
        self._model = model
        self._docids = json.loads((self.workdir / "index" / "docids.json").read_text())

    def _rescore(self, k1: float, b: float) -> None:
        import bm25s

        if self._tokens is None:
            raise SoundingError(f"bm25s fixes k1/b when indexing (this index: k1={self.k1}, b={self.b}); "
                                f"re-index with get_engine('bm25s', k1={k1}, b={b})")
        model = bm25s.BM25(k1=k1, b=b, method="lucene", backend=self.backend)
        model.index(self._tokens, show_progress=False)
        self._model, self.k1, self.b = model, float(k1), float(b)

    def search_native(self, items, *, k, k1, b, threads, batch):
        rescored = abs(k1 - self.k1) > 1e-9 or abs(b - self.b) > 1e-9
        if rescored:
            self._rescore(k1, b)  # before the clock: it is indexing work
        kk = min(k, len(self._docids))  # bm25s refuses k > number of documents
        self.last_settings = dict(k1=self.k1, b=self.b, k=k, method="lucene", backend=self.backend,
                                  rescored_for_k1_b=rescored)
        model = self._model
        if batch:
            start = time.perf_counter()
            tokens = self._tokenize([t for _, t in items])
            docs, scores = model.retrieve(tokens, k=kk, n_threads=threads, show_progress=False)
            return [(docs, scores)], time.perf_counter() - start

        def one(_q, text):
            docs, scores = model.retrieve(self._tokenize([text]), k=kk, n_threads=1, show_progress=False)
            return docs, scores

        return per_query(one, items, threads)

    def to_run(self, native, items) -> Run:
        ids = self._docids
        run: Run = {}
        qi = 0
        for docs, scores in native:
            for row_d, row_s in zip(np.asarray(docs).tolist(), np.asarray(scores).tolist()):
                run[items[qi][0]] = {ids[d]: s for d, s in zip(row_d, row_s) if s > 0.0}
                qi += 1
        return run

    def close(self) -> None:
        self._model = self._tokens = None
