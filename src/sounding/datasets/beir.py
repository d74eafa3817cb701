"""BEIR folder layout: corpus.jsonl[.gz], queries.jsonl[.gz], qrels/<split>.tsv[.gz]."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import SoundingError


@dataclass(frozen=True)
class Files:
    """The files of one split of a dataset folder (corpus may be absent: Mr. TyDi topics only)."""

    corpus: Path | None
    queries: Path
    qrels: Path


def first_existing(root: Path, names: list[str]) -> Path | None:
    for n in names:
        p = root / n
        if p.is_file():
            return p
    return None


def with_gz(*names: str) -> list[str]:
    return [v for n in names for v in (n, n + ".gz")]


def is_beir(root: Path) -> bool:
    return (root / "qrels").is_dir() or first_existing(root, with_gz("corpus.jsonl")) is not None


def files(root: Path, split: str) -> Files:
    qrels = first_existing(root, with_gz(f"qrels/{split}.tsv"))
    if qrels is None:
        have = sorted(p.name for p in (root / "qrels").glob("*.tsv*")) if (root / "qrels").is_dir() else []
        also = f" (present: {', '.join(have)})" if have else ""
        raise SoundingError(f"{root}: missing qrels/{split}.tsv for split {split!r}{also}")
    queries = first_existing(root, with_gz("queries.jsonl"))
    if queries is None:
        raise SoundingError(f"{root}: missing queries.jsonl (or queries.jsonl.gz)")
    return Files(first_existing(root, with_gz("corpus.jsonl")), queries, qrels)
