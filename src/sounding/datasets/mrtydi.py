"""Mr. TyDi folder layouts.

* Anserini / shared layout: `topics.mrtydi-v1.1-<lang>.<split>.txt[.gz]` (TSV) and
  `qrels.mrtydi-v1.1-<lang>.<split>.txt` (TREC), as in castorini/anserini-tools.
* The official castorini tarball (`mrtydi-v1.1-<language>/`): `topic.<split>.tsv`,
  `qrels.<split>.txt` and the corpus `collection/docs.jsonl.gz` (`id`, `contents`).
The corpus may also sit beside the topics as corpus.jsonl[.gz] (e.g. the Hugging Face
`castorini/mr-tydi-corpus` export, `docid`/`title`/`text`). It is optional.
"""
from __future__ import annotations

import re
from pathlib import Path

from ..errors import SoundingError
from .beir import Files, first_existing, with_gz

_QRELS = re.compile(r"^qrels\.mrtydi-v1\.1-([a-z]{2})\.")


def is_mrtydi(root: Path) -> bool:
    return any(root.glob("qrels.mrtydi-*.txt*")) or any(root.glob("qrels.*.txt")) or (root / "collection").is_dir()


def language(root: Path) -> str | None:
    """The language code named by the Anserini-style file names or the tarball folder, if any."""
    for p in sorted(root.glob("qrels.mrtydi-v1.1-*")):
        m = _QRELS.match(p.name)
        if m:
            return m.group(1)
    from .registry import REGISTRY  # folder `mrtydi-v1.1-swahili` → sw

    for info in REGISTRY.values():
        if info.kind == "mrtydi" and info.archive_root == root.name:
            return info.language
    return None


def files(root: Path, split: str, lang: str | None = None) -> Files:
    lang = lang or language(root)
    qrels_names = ([f"qrels.mrtydi-v1.1-{lang}.{split}.txt"] if lang else []) + [f"qrels.{split}.txt"]
    qrels = first_existing(root, with_gz(*qrels_names))
    if qrels is None:
        raise SoundingError(f"{root}: missing {qrels_names[0]} (Mr. TyDi qrels for split {split!r})")
    topic_names = ([f"topics.mrtydi-v1.1-{lang}.{split}.txt"] if lang else []) + [f"topic.{split}.tsv"]
    topics = first_existing(root, with_gz(*topic_names))
    if topics is None:
        raise SoundingError(f"{root}: missing {topic_names[0]}[.gz] (Mr. TyDi topics for split {split!r})")
    corpus = first_existing(root, with_gz("collection/docs.jsonl", "corpus.jsonl", "docs.jsonl"))
    return Files(corpus, topics, qrels)
