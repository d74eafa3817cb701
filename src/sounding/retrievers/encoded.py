"""What the model-based retrievers (dense, learned sparse) share: a model loaded on first use, a store
folder for what it computes from the corpus, and the search call."""
from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from ..errors import SoundingError
from ..types import Document


class EncodedCorpus:
    """`model`: a name or path (loaded on first use by `_load`) or a loaded model object. `store`: the
    folder the corpus's encoding is kept in, keyed by model and corpus content, so indexing the same
    corpus again encodes nothing (default: a temporary folder that lives as long as the retriever)."""

    kind = ""

    def __init__(self, model, *, store: str | Path | None, batch_size: int | None, threads: int, progress: bool,
                 log: Callable[[str], None] | None, device: str = "auto"):
        self.model = model
        self.device = device  # where a model loaded by name runs: auto, cpu, cuda, mps (dense/device.py)
        self.name = self.kind
        self.store_root = Path(store) if store is not None else None
        self.batch_size, self.threads, self.progress, self.log = batch_size, threads, progress, log
        self._tmp: tempfile.TemporaryDirectory | None = None
        self._loaded = None if isinstance(model, str) else model
        self._searcher = None

    def _load(self):  # pragma: no cover - each retriever loads its own kind of model
        raise NotImplementedError

    @property
    def loaded(self):
        if self._loaded is None:
            self._loaded = self._load()
        return self._loaded

    def _corpus(self, documents: Iterable[Document]):
        """(the corpus as CorpusText, the store folder to encode it into)."""
        from ..dense.vectors import CorpusText, corpus_texts

        ct = documents if isinstance(documents, CorpusText) else corpus_texts(documents)
        if self.store_root is not None:
            return ct, self.store_root
        self._tmp = tempfile.TemporaryDirectory(prefix=f"sounding-{self.kind}-")
        return ct, Path(self._tmp.name)

    def search(self, queries: Mapping[str, str], k: int):
        if self._searcher is None:
            raise SoundingError(f"{self.kind} retriever: call index(documents) before search")
        return self._searcher.search(queries, k=k, threads=self.threads)
