"""Exact dense retrieval as a Retriever: a sentence encoder's document vectors, stored and reused."""
from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from ..types import Document
from .encoded import EncodedCorpus

DEFAULT_DENSE = "sentence-transformers/all-MiniLM-L6-v2"


class DenseRetriever(EncodedCorpus):
    """Cosine (or the model's similarity) top-k over every document vector, ties in trec_eval's order.

    `model`: a model name or path (`sounding.dense.load_encoder`) or a loaded Encoder; `store`: where the
    vectors are kept (see EncodedCorpus). `encode(corpus_text, encoder, root)`: another way to encode the
    corpus into the same store (a Ray Data job); by default `sounding.dense.encode_corpus`."""

    kind = "dense"

    def __init__(self, model=DEFAULT_DENSE, *, store: str | Path | None = None, batch_size: int | None = None,
                 threads: int = 1, progress: bool = False, log: Callable[[str], None] | None = None,
                 encode: Callable | None = None, device: str = "auto"):
        super().__init__(model, store=store, batch_size=batch_size, threads=threads, progress=progress, log=log,
                         device=device)
        self.encode = encode
        self.report = None  # the last index's EncodeReport

    def _load(self):
        from ..dense import load_encoder

        return load_encoder(self.model, batch_size=self.batch_size, device=self.device)

    @property
    def encoder(self):
        return self.loaded

    @property
    def fingerprint(self) -> str:
        return f"dense:{self.model if isinstance(self.model, str) else self.encoder.model_key}"

    def index(self, documents: Iterable[Document]) -> None:
        from ..dense import DenseSearcher, encode_corpus

        ct, root = self._corpus(documents)
        if self.encode is not None:
            rep = self.encode(ct, self.encoder, root)
        else:
            rep = encode_corpus(ct, self.encoder, root, batch_size=self.batch_size, progress=self.progress,
                                log=self.log)
        self.report = rep
        self._searcher = DenseSearcher(rep.store, self.encoder)

    def details(self) -> dict:
        """What a results row says of this system's last index: model, encoding cost, vector store."""
        enc, rep = self.encoder, self.report
        out: dict = {"model": {"name": enc.name, "provenance": enc.provenance, "device": enc.device,
                               "precision": enc.precision}}
        if rep is None:
            return out
        store = rep.store
        out.update({
            "encode_seconds": rep.total_encode_seconds, "encoded_now": rep.encoded,
            "docs_per_second": (store.count / rep.total_encode_seconds) if rep.total_encode_seconds else None,
            "vectors_bytes": store.nbytes, "vectors_dtype": store.dtype, "dim": store.dim,
            "vectors": str(store.path),
        })
        if rep.backend:  # encoded now, by a Ray Data job
            out["encode_ray"] = {k: rep.backend[k] for k in ("actors", "gpus_per_actor", "chunks")}
        return out
