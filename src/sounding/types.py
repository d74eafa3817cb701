"""The shared data types of the public API: runs, qrels and documents.

    Run   = {qid: {docid: score}}     what a retriever returns and a TREC run file holds
    Qrels = {qid: {docid: grade}}     relevance judgements
    Document(id, title, text)         one corpus document, as a retriever's `index` receives it

This module imports nothing heavy, so type hints on these names cost nothing at import time.
"""
from __future__ import annotations

from dataclasses import dataclass

Run = dict[str, dict[str, float]]
Qrels = dict[str, dict[str, int]]


@dataclass(frozen=True, slots=True)
class Document:
    """One corpus document: its id, title ("" when the corpus has none) and text."""

    id: str
    title: str
    text: str


__all__ = ["Document", "Qrels", "Run"]
