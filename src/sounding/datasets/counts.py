"""What a dataset folder holds, and whether it is what the registry says: the files of a split in
either layout (BEIR, Mr. TyDi), counts of documents, judged queries and qrels lines, and the
registry check (remembered per folder state, so a copy found right is not read again)."""
from __future__ import annotations

import contextlib
import hashlib
import json
from pathlib import Path

from ..errors import SoundingError
from . import beir, mrtydi
from .readers import iter_corpus, iter_qrels
from .registry import DatasetInfo, cache_home


def split_files(root: Path, split: str, info: DatasetInfo | None = None) -> tuple[beir.Files, str]:
    """The files of `split` in `root` and the language, whichever layout the folder uses."""
    if info is not None:
        kind = info.kind
    elif beir.is_beir(root):
        kind = "beir"
    elif mrtydi.is_mrtydi(root):
        kind = "mrtydi"
    else:
        raise SoundingError(f"{root}: not a dataset folder (no qrels/ folder, corpus.jsonl or Mr. TyDi qrels)")
    if kind == "mrtydi":
        lang = info.language if info else mrtydi.language(root)
        return mrtydi.files(root, split, lang), lang or "und"
    return beir.files(root, split), (info.language if info else "en")


def count(root: Path, info: DatasetInfo | None = None, *, docs: bool = True) -> dict[str, int]:
    """What a folder holds: docs (when a corpus is present) and, per split present, judged queries and qrels lines."""
    out: dict[str, int] = {}
    splits = list(info.splits) if info and info.splits else ["test", "dev", "train"]
    corpus = None
    for split in splits:
        try:
            files, _ = split_files(root, split, info)
        except SoundingError:
            continue
        corpus = corpus or files.corpus
        judged: set[str] = set()
        lines = 0
        for qid, _, _, _ in iter_qrels(files.qrels):
            judged.add(qid)
            lines += 1
        out[f"{split}_queries"], out[f"{split}_qrels"] = len(judged), lines
    if docs and corpus is not None:
        out["docs"] = sum(1 for _ in iter_corpus(corpus))
    return out


def check_counts(root: Path, info: DatasetInfo) -> list[str]:
    """Differences between a folder and the registry's verified counts ([] when all agree)."""
    found = count(root, info, docs=info.docs is not None)
    problems = []
    if "test_qrels" not in found and "test" in info.splits:
        problems.append("no test qrels found")
    expected = {"docs": info.docs}
    for split, s in info.splits.items():
        expected[f"{split}_queries"], expected[f"{split}_qrels"] = s.queries, s.qrels
    for key, want in expected.items():
        if want is not None and key in found and found[key] != want:
            problems.append(f"{key.replace('_', ' ')}: expected {want:,}, found {found[key]:,}")
    if info.kind == "beir" and info.docs is not None and "docs" not in found:
        problems.append("no corpus.jsonl found")
    return problems


def verify_counts(root: Path, info: DatasetInfo) -> list[str]:
    """`check_counts`, remembered per folder state (every file's size and mtime) in the cache, so
    that a folder already found right is not read again until one of its files changes."""
    try:
        files = sorted(p for p in root.rglob("*") if p.is_file())
        state = hashlib.sha256(json.dumps([info.name] + [
            [str(p.relative_to(root)), (st := p.stat()).st_size, st.st_mtime_ns] for p in files]).encode()).hexdigest()
    except OSError:
        state = None
    memo = cache_home() / "verified"
    if state and (memo / state).is_file():
        return []
    problems = check_counts(root, info)
    if state and not problems:
        with contextlib.suppress(OSError):  # a read-only cache only costs a recount next time
            memo.mkdir(parents=True, exist_ok=True)
            (memo / state).write_text(f"{info.name}\t{root}\n")
    return problems
