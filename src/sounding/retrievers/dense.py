"""Exact dense retrieval as a Retriever: a sentence encoder's document vectors, stored and reused."""
from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from ..errors import SoundingError
from ..types import Document

DEFAULT_DENSE = "sentence-transformers/all-MiniLM-L6-v2"


class DenseRetriever:
    """Cosine (or the model's similarity) top-k over every document vector, ties in trec_eval's order.

    `model`: a model name or path (`sounding.dense.load_encoder`) or a loaded Encoder. `store`: the
    folder the vectors are kept in, keyed by model and corpus content, so a second `index` of the same
    corpus encodes nothing (default: a temporary folder that lives as long as the retriever).
    `encode(corpus_text, encoder, root)`: another way to encode the corpus into the same store (a Ray
    Data job); by default `sounding.dense.encode_corpus`."""

    def __init__(self, model=DEFAULT_DENSE, *, store: str | Path | None = None, batch_size: int | None = None,
                 threads: int = 1, progress: bool = False, log: Callable[[str], None] | None = None,
                 encode: Callable | None = None):
        self.model = model
        self.name = "dense"
        self.store_root = Path(store) if store is not None else None
        self.batch_size, self.threads, self.progress, self.log, self.encode = batch_size, threads, progress, log, encode
        self._tmp: tempfile.TemporaryDirectory | None = None
        self._encoder = None if isinstance(model, str) else model
        self._searcher = None
        self.report = None  # the last index's EncodeReport

    @property
    def fingerprint(self) -> str:
        return f"dense:{self.model if isinstance(self.model, str) else self.encoder.model_key}"

    @property
    def encoder(self):
        if self._encoder is None:
            from ..dense import load_encoder

            self._encoder = load_encoder(self.model, batch_size=self.batch_size)
        return self._encoder

    def index(self, documents: Iterable[Document]) -> None:
        from ..dense import DenseSearcher, encode_corpus
        from ..dense.vectors import CorpusText, corpus_texts

        ct = documents if isinstance(documents, CorpusText) else corpus_texts(documents)
        root = self.store_root
        if root is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="sounding-dense-")
            root = Path(self._tmp.name)
        if self.encode is not None:
            rep = self.encode(ct, self.encoder, root)
        else:
            rep = encode_corpus(ct, self.encoder, root, batch_size=self.batch_size, progress=self.progress,
                                log=self.log)
        self.report = rep
        self._searcher = DenseSearcher(rep.store, self.encoder)

    def search(self, queries: Mapping[str, str], k: int):
        if self._searcher is None:
            raise SoundingError("dense retriever: call index(documents) before search")
        return self._searcher.search(queries, k=k, threads=self.threads)

    def details(self) -> dict:
        """What a results row says of this system's last index: model, encoding cost, vector store."""
        enc, rep = self.encoder, self.report
        if rep is None:
            return {"model": {"name": enc.name, "provenance": enc.provenance}}
        store = rep.store
        out = {
            "model": {"name": enc.name, "provenance": enc.provenance},
            "encode_seconds": rep.total_encode_seconds, "encoded_now": rep.encoded,
            "docs_per_second": (store.count / rep.total_encode_seconds) if rep.total_encode_seconds else None,
            "vectors_bytes": store.nbytes, "vectors_dtype": store.dtype, "dim": store.dim,
            "vectors": str(store.path),
        }
        if rep.backend:  # encoded now, by a Ray Data job
            out["encode_ray"] = {k: rep.backend[k] for k in ("actors", "gpus_per_actor", "chunks")}
        return out
