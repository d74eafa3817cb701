"""tantivy-py: one `body` field (title + text) with the en_stem tokenizer (lower-case, Snowball
English stemmer, no stop words), term frequencies without positions (BM25 needs no positions).

The Python bindings fix BM25 at k1=1.2, b=0.75: any other k1/b asked for is recorded in
`last_settings` (`k1_requested`, `b_requested`) and the actual 1.2/0.75 is used. Query syntax
characters are replaced by spaces (tantivy's tokenizer splits on them anyway) and the query is
lower-cased so that AND/OR/NOT are words, then parsed as a disjunction over `body`. tantivy has no
batch search API: batch=True loops over the queries in one call (same as per-query).
Internal doc numbers come from a u64 fast field `n`, mapped to document ids outside the timer.
"""
from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Sequence

from .engine import Engine, IndexStats, Run, dir_bytes, flat_text, package_version, per_query

TANTIVY_K1, TANTIVY_B = 1.2, 0.75
_SYNTAX = re.compile(r"[^\w\s]+")


def strip_query(text: str) -> str:
    return _SYNTAX.sub(" ", text).lower()


class TantivyEngine(Engine):
    name = "tantivy"
    requirement = "pip install 'sounding[peers]' (tantivy)"
    modules = ("tantivy",)
    native_batch = False
    native_threads = False

    def __init__(self, heap_bytes: int = 1 << 30, index_threads: int = 1) -> None:
        super().__init__()
        self.heap_bytes, self.index_threads = heap_bytes, index_threads
        self._index = self._searcher = None
        self._docids: list[str] = []

    @classmethod
    def version(cls) -> str:
        return package_version("tantivy")

    @staticmethod
    def _schema():
        import tantivy

        sb = tantivy.SchemaBuilder()
        sb.add_text_field("body", stored=False, tokenizer_name="en_stem", index_option="freq")
        sb.add_unsigned_field("n", stored=False, indexed=False, fast=True)
        return sb.build()

    def index(self, docs: Sequence, workdir: Path) -> IndexStats:
        import tantivy

        self.require()
        workdir = self._prepare_workdir(workdir)
        path = workdir / "index"
        if path.exists():
            import shutil

            shutil.rmtree(path)
        path.mkdir()
        docs = list(docs)
        start = time.perf_counter()
        index = tantivy.Index(self._schema(), path=str(path))
        writer = index.writer(self.heap_bytes, self.index_threads)
        for n, d in enumerate(docs):
            doc = tantivy.Document()
            doc.add_text("body", flat_text(d))
            doc.add_unsigned("n", n)
            writer.add_document(doc)
        writer.commit()
        writer.wait_merging_threads()
        (path / "docids.json").write_text(json.dumps([d.id for d in docs]))
        seconds = time.perf_counter() - start
        self.load(workdir)
        return IndexStats(seconds, dir_bytes(path), len(docs),
                          {"tokenizer": "en_stem", "index_option": "freq", "writer_threads": self.index_threads,
                           "segments": self._searcher.num_segments})

    def load(self, workdir: Path) -> None:
        import tantivy

        self.require()
        self.workdir = Path(workdir)
        path = self.workdir / "index"
        self._index = tantivy.Index.open(str(path))
        self._index.reload()
        self._searcher = self._index.searcher()
        self._docids = json.loads((path / "docids.json").read_text())

    def _one(self, text: str, k: int):
        cleaned = strip_query(text)
        if not cleaned.strip():
            return []
        query = self._index.parse_query(cleaned, ["body"])
        return self._searcher.search(query, k, count=False).hits

    def search_native(self, items, *, k, k1, b, threads, batch):
        self.last_settings = dict(k1=TANTIVY_K1, b=TANTIVY_B, k1_requested=k1, b_requested=b, k=k,
                                  tokenizer="en_stem", batch_api=False)
        return per_query(lambda _q, t: self._one(t, k), items, threads)

    def to_run(self, native, items) -> Run:
        ids = self._docids
        run: Run = {}
        for (qid, _), hits in zip(items, native):
            if hits:
                ns = self._searcher.fast_field_values("n", [a for _, a in hits])
                run[qid] = {ids[n]: float(s) for (s, _), n in zip(hits, ns)}
            else:
                run[qid] = {}
        return run

    def close(self) -> None:
        self._index = self._searcher = None
