"""The shared data types of the public API: runs, qrels and documents.

    Run   = {qid: {docid: score}}     what a retriever returns and a TREC run file holds
    Qrels = {qid: {docid: grade}}     relevance judgements
    Document(id, title, text)         one corpus document, as a retriever's `index` receives it
    Retriever                         a first-stage system: index(documents), then search(queries, k)
    Stage                             a later stage over first-stage runs (fusion, rerank): apply(queries, runs, k)

This module imports nothing heavy, so type hints on these names cost nothing at import time.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

Run = dict[str, dict[str, float]]
Qrels = dict[str, dict[str, int]]


@dataclass(frozen=True, slots=True)
class Document:
    """One corpus document: its id, title ("" when the corpus has none) and text."""

    id: str
    title: str
    text: str


@runtime_checkable
class Retriever(Protocol):
    """A retrieval system the harness can evaluate: indexes a corpus once, then answers queries.

    Optional members: `fingerprint` (a string that changes whenever results may change; rows are cached
    under it), `for_dataset(name)` (the retriever for one dataset), `details()` (facts for the row).
    """

    name: str

    def index(self, documents: Iterable[Document]) -> None:
        """Take in the corpus of one dataset (called once per dataset, before `search`)."""

    def search(self, queries: Mapping[str, str], k: int) -> Any:
        """The top `k` documents of each query: a Run ({qid: {docid: score}}) or Sounding's `Results`."""


@runtime_checkable
class Stage(Protocol):
    """A stage after first-stage retrieval: takes their runs, returns one run (fusion, reranking).

    A stage that needs document texts (a reranker) also has `index(documents)`."""

    name: str

    def apply(self, queries: Mapping[str, str], runs: Sequence[Run], k: int) -> Run:
        """One run from the first-stage `runs` (in the stage's documented order)."""


__all__ = ["Document", "Qrels", "Retriever", "Run", "Stage"]
