"""Streaming index writer: documents in, per-field postings and statistics out.

Fields: `flat` (title + text as one field, what Pyserini's flat indexes hold), then each named
field (`title`, `text`). Analysis runs once per field; flat postings are the per-document sum of
the field postings, exactly what analysing "title text" gives (tokens never span the space).
Documents are processed in chunks; each chunk's (term, doc) pairs are counted with numpy, and the
chunks are merged by a stable sort on term at the end, which keeps doc ids ascending per term.
"""
from __future__ import annotations

import hashlib
import os
import time
from collections import defaultdict
from itertools import chain
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

import numpy as np

from ..analysis import DEFAULT_ANALYZER, get_analyzer
from ..errors import DataError, SoundingError
from .format import (
    FieldStats,
    Manifest,
    _remove_tree,
    commit_generation,
    crc32_file,
    next_generation_name,
)

FIELDS = ("title", "text")
CHUNK_DOCS = 20_000


@dataclass
class BuildReport:
    path: Path
    n_docs: int
    n_terms: int
    seconds: float
    bytes: int
    empty_docs: int
    docs_without_title: int


def build_index(
    docs: Iterable,
    out: str | Path,
    *,
    analyzer: str = DEFAULT_ANALYZER,
    source: str = "",
    positions: bool = False,
    progress=None,
) -> BuildReport:
    """Index `docs` (objects with .id, .title, .text and optionally .line) into the folder `out`.

    `positions=True` also stores each occurrence's token position (for proximity scoring);
    indexes without them pay nothing for the option.
    The previous index at `out`, if any, stays live until the new one is complete.
    `progress`, if given, is called with the number of documents indexed so far.
    """
    start = time.perf_counter()
    root = Path(out)
    root.mkdir(parents=True, exist_ok=True)
    _clean_partials(root)
    name = next_generation_name(root)
    partial = root / f"{name}.partial-{os.getpid()}"
    partial.mkdir()
    try:
        manifest = _write(docs, partial, get_analyzer(analyzer), source, positions, progress)
        final = root / name
        os.rename(partial, final)
        commit_generation(root, final)
    except BaseException:
        _remove_tree(partial)
        raise
    size = sum(p.stat().st_size for p in final.iterdir())
    return BuildReport(final.parent, manifest.n_docs, manifest.n_terms, time.perf_counter() - start, size,
                       manifest.empty_docs, manifest.docs_without_title)


def _write(docs: Iterable, folder: Path, analyze, source: str, positions: bool, progress) -> Manifest:
    # term → id, assigning the next id on first sight; `vocab[t]` is a C-level call per token
    vocab: defaultdict[str, int] = defaultdict()
    vocab.default_factory = vocab.__len__
    docids: list[str] = []
    first_line: dict[str, int] = {}
    hasher = hashlib.sha256(analyze.name.encode())
    chunks: list[dict[str, tuple]] = []  # per chunk: field → (keys, tfs, positions or None)
    lengths: dict[str, list[np.ndarray]] = {f: [] for f in FIELDS}
    empty = untitled = 0

    batch: list = []
    for n, doc in enumerate(docs, 1):
        line = getattr(doc, "line", n) or n
        if doc.id in first_line:
            raise DataError(source or "corpus", line,
                            f"duplicate document id {doc.id!r} (first on line {first_line[doc.id]})")
        first_line[doc.id] = line
        batch.append(doc)
        if len(batch) == CHUNK_DOCS:
            e, u = _index_chunk(batch, len(docids), analyze, vocab, chunks, lengths, hasher, positions)
            empty, untitled = empty + e, untitled + u
            docids.extend(d.id for d in batch)
            batch = []
            if progress:
                progress(len(docids))
    if batch:
        e, u = _index_chunk(batch, len(docids), analyze, vocab, chunks, lengths, hasher, positions)
        empty, untitled = empty + e, untitled + u
        docids.extend(d.id for d in batch)
        if progress:
            progress(len(docids))
    if not docids:
        raise SoundingError(f"{source or 'corpus'}: no documents to index")

    # Sorted vocabulary: deterministic ids whatever the document order, and prefix/typo lookups.
    terms = sorted(vocab)
    remap = np.empty(len(vocab), dtype=np.int64)
    remap[np.fromiter((vocab[t] for t in terms), dtype=np.int64, count=len(terms))] = np.arange(len(terms))

    all_fields = ("flat",) + FIELDS
    n_docs, n_terms = len(docids), len(terms)
    offsets = np.zeros((len(all_fields), n_terms + 1), dtype=np.int64)
    doc_parts, tf_parts, pos_parts, stats = [], [], [], {}
    base = 0
    field_lengths = {f: np.concatenate(lengths[f]) for f in FIELDS}
    field_lengths["flat"] = field_lengths["title"] + field_lengths["text"]
    for i, f in enumerate(all_fields):
        keys = np.concatenate([c[f][0] for c in chunks])
        tfs = np.concatenate([c[f][1] for c in chunks])
        term = remap[keys >> 32]
        order = np.argsort(term, kind="stable")  # chunks are in doc order: stable keeps docs ascending
        if positions:
            pos_parts.append(_reorder_segments(np.concatenate([c[f][2] for c in chunks]), tfs, order))
        term, doc, tf = term[order], (keys[order] & 0xFFFFFFFF).astype(np.uint32), tfs[order]
        offsets[i, 1:] = np.cumsum(np.bincount(term, minlength=n_terms)) + base
        offsets[i, 0] = base
        base += len(doc)
        doc_parts.append(doc)
        tf_parts.append(tf)
        lens = field_lengths[f]
        stats[f] = FieldStats(doc_count=int((lens > 0).sum()), sum_length=int(lens.sum()), postings=len(doc))
    tfs_all = np.concatenate(tf_parts)
    tf_dtype = np.uint16 if tfs_all.max(initial=0) <= np.iinfo(np.uint16).max else np.uint32
    arrays = {
        "offsets": offsets,
        "docs": np.concatenate(doc_parts).astype(np.uint32),
        "tfs": tfs_all.astype(tf_dtype),
        "lengths": np.stack([field_lengths[f] for f in all_fields]).astype(np.uint32),
        "docid_rank": _byte_order_rank(docids),
    }
    if positions:  # occurrence positions of posting i: positions[pos_offsets[i]:pos_offsets[i + 1]]
        arrays["pos_offsets"] = np.concatenate([[0], np.cumsum(tfs_all, dtype=np.int64)])
        arrays["positions"] = np.concatenate(pos_parts).astype(np.uint32)
    for key, arr in arrays.items():
        np.save(folder / f"{key}.npy", arr)
    (folder / "terms.txt").write_text("\n".join(terms), encoding="utf-8")
    (folder / "docids.txt").write_text("\n".join(docids), encoding="utf-8")
    manifest = Manifest(
        analyzer=analyze.name, n_docs=n_docs, n_terms=n_terms, fields=list(all_fields), field_stats=stats,
        empty_docs=empty, docs_without_title=untitled, source=str(source), content_hash=hasher.hexdigest(),
        positions=positions,
    )
    manifest.checksums = {p.name: crc32_file(p) for p in sorted(folder.iterdir())}
    (folder / "manifest.json").write_text(manifest.to_json())
    return manifest


def _index_chunk(batch, first_doc, analyze, vocab, chunks, lengths, hasher, positions) -> tuple[int, int]:
    """Analyse one chunk of documents and append its per-field (term<<32 | doc, tf[, positions]) counts."""
    per_field = {}
    flat_keys, flat_tfs, flat_pos = [], [], []
    title_lens = None
    for f in FIELDS:
        texts = [getattr(d, f) or "" for d in batch]
        for t in texts:
            hasher.update(t.encode("utf-8", "surrogatepass"))
            hasher.update(b"\x00")
        tokens = analyze.analyze_many(texts) if hasattr(analyze, "analyze_many") else list(map(analyze, texts))
        lens = np.fromiter((len(t) for t in tokens), dtype=np.int64, count=len(tokens))
        lengths[f].append(lens)
        ids = np.fromiter(map(vocab.__getitem__, chain.from_iterable(tokens)), dtype=np.int64, count=int(lens.sum()))
        doc = np.repeat(np.arange(first_doc, first_doc + len(batch), dtype=np.int64), lens)
        token_keys = (ids << 32) | doc
        if positions:
            # position of each token within its field; the flat field continues after the title
            pos = np.arange(len(ids), dtype=np.int64) - np.repeat(np.cumsum(lens) - lens, lens)
            order = np.argsort(token_keys, kind="stable")
            keys, tfs = np.unique(token_keys[order], return_counts=True)
            per_field[f] = (keys, tfs, pos[order])
            flat_pos.append(pos if f == "title" else pos + np.repeat(title_lens, lens))
            flat_keys.append(token_keys)
        else:
            keys, tfs = np.unique(token_keys, return_counts=True)
            per_field[f] = (keys, tfs, None)
            flat_keys.append(keys)
            flat_tfs.append(tfs)
        if f == "title":
            title_lens = lens
    # flat = title + text, summed per (term, doc)
    keys = np.concatenate(flat_keys)
    if positions:
        order = np.argsort(keys, kind="stable")  # title occurrences first, then text: ascending positions
        uniq, tfs = np.unique(keys[order], return_counts=True)
        per_field["flat"] = (uniq, tfs, np.concatenate(flat_pos)[order])
    else:
        uniq, inverse = np.unique(keys, return_inverse=True)
        per_field["flat"] = (uniq, np.bincount(inverse, weights=np.concatenate(flat_tfs)).astype(np.int64), None)
    for d in batch:
        hasher.update(d.id.encode("utf-8", "surrogatepass"))
    empty = int(((lengths["title"][-1] + lengths["text"][-1]) == 0).sum())
    chunks.append(per_field)
    return empty, int((title_lens == 0).sum())


def _reorder_segments(values: np.ndarray, seg_lengths: np.ndarray, order: np.ndarray) -> np.ndarray:
    """Concatenate the segments of `values` (lengths `seg_lengths`) in the order `order`."""
    starts = np.cumsum(seg_lengths) - seg_lengths
    lens = seg_lengths[order]
    out_starts = np.cumsum(lens) - lens
    idx = np.repeat(starts[order] - out_starts, lens) + np.arange(int(lens.sum()))
    return values[idx]


def _byte_order_rank(docids: list[str]) -> np.ndarray:
    """Rank of each id in UTF-8 byte order (trec_eval compares docnos with strcmp)."""
    order = sorted(range(len(docids)), key=lambda i: docids[i].encode("utf-8", "surrogatepass"))
    rank = np.empty(len(docids), dtype=np.uint32)
    rank[np.asarray(order, dtype=np.int64)] = np.arange(len(docids), dtype=np.uint32)
    return rank


def _clean_partials(root: Path) -> None:
    """Remove folders left by builds that were killed (their process is gone)."""
    for p in root.glob("gen-*.partial-*"):
        pid = p.name.rsplit("-", 1)[-1]
        if pid.isdigit() and not _alive(int(pid)):
            _remove_tree(p)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
