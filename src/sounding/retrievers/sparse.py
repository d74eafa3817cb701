"""Learned-sparse retrieval as a Retriever: a SPLADE-style model's impacts in an inverted index."""
from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from ..errors import SoundingError
from ..types import Document
from .encoded import EncodedCorpus

DEFAULT_SPARSE = "splade-tiny"


class SparseRetriever(EncodedCorpus):
    """Impact scoring (Σ query weight × quantised document impact) over the model's document vectors.

    `model`: a model name or path, or a loaded `sounding.sparse.SparseModel`; `bits`: 8 or 16 per impact;
    `store`: where the impact index is kept (see EncodedCorpus). `build(corpus_text, model, root, bits)`:
    another way to build the same index (a Ray Data job); by default `sounding.sparse.build_impact_index`."""

    kind = "sparse"

    def __init__(self, model=DEFAULT_SPARSE, *, bits: int = 8, store: str | Path | None = None,
                 batch_size: int | None = None, threads: int = 1, progress: bool = False,
                 log: Callable[[str], None] | None = None, build: Callable | None = None, device: str = "auto"):
        if bits not in (8, 16):
            raise SoundingError(f"sparse retriever: bits must be 8 or 16, not {bits!r}")
        super().__init__(model, store=store, batch_size=batch_size, threads=threads, progress=progress, log=log,
                         device=device)
        self.bits, self.build = bits, build
        self.impacts = None  # the last index's ImpactIndex

    def _load(self):
        from ..sparse import SparseModel

        return SparseModel(self.model, batch_size=self.batch_size, device=self.device)

    @property
    def sparse_model(self):
        return self.loaded

    @property
    def fingerprint(self) -> str:
        return f"sparse:{self.model if isinstance(self.model, str) else self.sparse_model.model_key}:u{self.bits}"

    def index(self, documents: Iterable[Document]) -> None:
        from ..sparse import SparseSearcher, build_impact_index

        ct, root = self._corpus(documents)
        if self.build is not None:
            ix = self.build(ct, self.sparse_model, root, self.bits)
        else:
            ix = build_impact_index(ct, self.sparse_model, root, bits=self.bits, progress=self.progress, log=self.log)
        self.impacts = ix
        self._searcher = SparseSearcher(ix, self.sparse_model)

    def details(self) -> dict:
        """What a results row says of this system's last index: model, encoding cost, index size."""
        m, ix = self.sparse_model, self.impacts
        out: dict = {"model": {"name": m.name, "provenance": m.provenance, "device": getattr(m, "device", "cpu"),
                               "precision": getattr(m, "precision", "float32")}, "impact_bits": self.bits}
        if ix is not None:
            out.update({"encode_seconds": ix.manifest.get("encode_seconds"), "index_bytes_sparse": ix.nbytes,
                        "mean_terms_per_doc": ix.manifest.get("mean_terms_per_doc")})
        return out
