"""Learned-sparse retrieval as a Retriever: a SPLADE-style model's impacts in an inverted index."""
from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from ..errors import SoundingError
from ..types import Document

DEFAULT_SPARSE = "splade-tiny"


class SparseRetriever:
    """Impact scoring (Σ query weight × quantised document impact) over the model's document vectors.

    `model`: a model name or path, or a loaded `sounding.sparse.SparseModel`; `bits`: 8 or 16 per impact;
    `store`: the folder the impact index is kept in, keyed by model and corpus content (default: a
    temporary folder that lives as long as the retriever). `build(corpus_text, model, root, bits)`:
    another way to build the same index (a Ray Data job); by default `sounding.sparse.build_impact_index`."""

    def __init__(self, model=DEFAULT_SPARSE, *, bits: int = 8, store: str | Path | None = None,
                 batch_size: int | None = None, threads: int = 1, progress: bool = False,
                 log: Callable[[str], None] | None = None, build: Callable | None = None):
        if bits not in (8, 16):
            raise SoundingError(f"sparse retriever: bits must be 8 or 16, not {bits!r}")
        self.model, self.bits = model, bits
        self.name = "sparse"
        self.store_root = Path(store) if store is not None else None
        self.batch_size, self.threads, self.progress, self.log, self.build = batch_size, threads, progress, log, build
        self._tmp: tempfile.TemporaryDirectory | None = None
        self._model = None if isinstance(model, str) else model
        self._searcher = None
        self.impacts = None  # the last index's ImpactIndex

    @property
    def fingerprint(self) -> str:
        return f"sparse:{self.model if isinstance(self.model, str) else self.sparse_model.model_key}:u{self.bits}"

    @property
    def sparse_model(self):
        if self._model is None:
            from ..sparse import SparseModel

            self._model = SparseModel(self.model, batch_size=self.batch_size or 32)
        return self._model

    def index(self, documents: Iterable[Document]) -> None:
        from ..dense.vectors import CorpusText, corpus_texts
        from ..sparse import SparseSearcher, build_impact_index

        ct = documents if isinstance(documents, CorpusText) else corpus_texts(documents)
        root = self.store_root
        if root is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="sounding-sparse-")
            root = Path(self._tmp.name)
        if self.build is not None:
            ix = self.build(ct, self.sparse_model, root, self.bits)
        else:
            ix = build_impact_index(ct, self.sparse_model, root, bits=self.bits, progress=self.progress, log=self.log)
        self.impacts = ix
        self._searcher = SparseSearcher(ix, self.sparse_model)

    def search(self, queries: Mapping[str, str], k: int):
        if self._searcher is None:
            raise SoundingError("sparse retriever: call index(documents) before search")
        return self._searcher.search(queries, k=k, threads=self.threads)

    def details(self) -> dict:
        """What a results row says of this system's last index: model, encoding cost, index size."""
        m, ix = self.sparse_model, self.impacts
        out: dict = {"model": {"name": m.name, "provenance": m.provenance}, "impact_bits": self.bits}
        if ix is not None:
            out.update({"encode_seconds": ix.manifest.get("encode_seconds"), "index_bytes_sparse": ix.nbytes,
                        "mean_terms_per_doc": ix.manifest.get("mean_terms_per_doc")})
        return out
