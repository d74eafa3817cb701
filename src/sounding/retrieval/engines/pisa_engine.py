"""PISA through pyterrier-pisa (binary wheels, no Java): porter2 stemmer, Terrier stop words (its
default), block_simdbp postings, block-max WAND; k1 and b chosen at search time.

Batch: one transformer call with all queries (`threads` = PISA's own query threads). Per query:
one call per query with a one-row topics frame, which carries PyTerrier's per-call overhead.
"""
from __future__ import annotations

import itertools
import os
import shutil
import threading
import time
from pathlib import Path
from typing import Sequence

from .engine import Engine, IndexStats, Run, dir_bytes, flat_text, package_version, per_query


class PisaEngine(Engine):
    name = "pisa"
    requirement = "pip install 'sounding[peers]' (pyterrier-pisa)"
    modules = ("pyterrier_pisa", "pyterrier")

    def __init__(self, stemmer: str = "porter2", index_threads: int = 1) -> None:
        super().__init__()
        self.stemmer, self.index_threads = stemmer, index_threads
        self._index = None
        self._retrievers: dict = {}

    @classmethod
    def version(cls) -> str:
        return f"pyterrier-pisa {package_version('pyterrier-pisa')}"

    @staticmethod
    def _quiet() -> None:
        # PyTerrier prints progress and may try to start Java on some calls; neither is needed here.
        os.environ.setdefault("PYTERRIER_NO_JAVA", "1")

    def index(self, docs: Sequence, workdir: Path) -> IndexStats:
        self.require()
        self._quiet()
        from pyterrier_pisa import PisaIndex

        workdir = self._prepare_workdir(workdir)
        path = workdir / "index"
        if path.exists():
            shutil.rmtree(path)
        docs = list(docs)
        start = time.perf_counter()
        idx = PisaIndex(str(path), text_field="text", stemmer=self.stemmer, threads=self.index_threads)
        idx.index({"docno": d.id, "text": flat_text(d)} for d in docs)
        seconds = time.perf_counter() - start
        self.load(workdir)
        return IndexStats(seconds, dir_bytes(path), len(docs),
                          {"stemmer": self.stemmer, "stops": "terrier (default)", "threads": self.index_threads})

    def load(self, workdir: Path) -> None:
        self.require()
        self._quiet()
        from pyterrier_pisa import PisaIndex

        self.workdir = Path(workdir)
        self._index = PisaIndex(str(self.workdir / "index"), text_field="text", stemmer=self.stemmer, threads=1)
        self._retrievers = {}

    def _retriever(self, k1, b, k, threads, slot=0):
        key = (k1, b, k, threads, slot)
        if key not in self._retrievers:
            self._retrievers[key] = self._index.bm25(k1=k1, b=b, num_results=k, threads=threads)
        return self._retrievers[key]

    def search_native(self, items, *, k, k1, b, threads, batch):
        import pandas as pd

        self.last_settings = dict(k1=k1, b=b, k=k, stemmer=self.stemmer, stops="terrier",
                                  query_algorithm="block_max_wand")
        if batch:
            retr = self._retriever(k1, b, k, threads)
            start = time.perf_counter()  # the topics frame is the API's input: built on the clock, as per query
            topics = pd.DataFrame({"qid": [q for q, _ in items], "query": [t for _, t in items]})
            return [retr(topics)], time.perf_counter() - start
        # a retriever holds one PISA retrieval context: one per client thread, made before the clock
        pool = [self._retriever(k1, b, k, 1, slot) for slot in range(threads)]
        local, slots = threading.local(), itertools.count()

        def one(qid, text):
            retr = getattr(local, "retr", None)
            if retr is None:
                retr = local.retr = pool[next(slots) % len(pool)]
            return retr(pd.DataFrame({"qid": [qid], "query": [text]}))

        return per_query(one, items, threads)

    def to_run(self, native, items) -> Run:
        run: Run = {q: {} for q, _ in items}
        for df in native:
            if len(df):
                for qid, docno, score in zip(df["qid"].tolist(), df["docno"].tolist(), df["score"].tolist()):
                    run[qid][docno] = float(score)
        return run

    def close(self) -> None:
        self._index = None
        self._retrievers = {}
