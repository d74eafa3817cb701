"""Streaming index writer: documents in, per-field postings and statistics out.

Fields: `flat` (title + text as one field, what Pyserini's flat indexes hold), then each named
field (`title`, `text`). Analysis runs once per field; flat postings are the per-document sum of
the field postings, exactly what analysing "title text" gives (tokens never span the space).

Data flow: the parent reads documents (content hash; ids, lines and lengths go to disk as they
come, index/doctable.py) and cuts them into chunks, which workers turn into postings (index/chunks.py:
compiled analysis in threads, other analyzers in forked processes), with no Python object
per token; the parent keeps each chunk's postings (and positions) compactly (uint32 term and doc,
uint16 tf where it fits) and merges them into the index's arrays (index/merge.py): in memory, or
through sorted runs on disk beyond the memory budget. The index bytes do not depend on the budget
or the number of workers.

Memory: the budget of postings held, one merge step (budget / MERGE_BYTES postings), the vocabulary
(its terms' bytes and ~30 B each: it grows with the corpus, slower than it), fixed buffers, and per
worker one chunk plus a table of the tokens it has seen (bounded; chunks.py, analysis/compiled.py).
"""
from __future__ import annotations

import contextlib
import hashlib
import os
import time
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

import numpy as np

from ..analysis import DEFAULT_ANALYZER, get_analyzer
from ..analysis.bytetable import ByteTable
from ..errors import SoundingError
from .. import validate
from ..io import check_output_dir, os_error, remove_stale, writer_lock
from .chunks import CHUNK_DOCS, Analysts
from .doctable import DocTable
from .format import (
    POSTINGS,
    FieldStats,
    Manifest,
    remove_tree,
    commit_generation,
    crc32_file,
    next_generation_name,
)
from .merge import ALL_FIELDS, FIELDS, MEMORY_BUDGET, held_bytes, merge_held, merge_runs, spill
from .packed import PackedWriter
from .pages import trim_heap

DEFAULT_POSTINGS = "raw"
SPILL_AT = 0.5  # postings held, as a share of the budget, that go to a run (sorting its largest field takes half as much)
WAIT_AT = 0.25  # postings held meanwhile beyond which the reading waits for that run
__all__ = ["FIELDS", "ALL_FIELDS", "BuildReport", "build_index", "estimate_bytes", "postings_layout"]


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
    workers: int | None = None,
    need_bytes: int = 0,
    memory: int | None = None,
    postings: str | None = None,
) -> BuildReport:
    """Index `docs` (objects with .id, .title, .text and optionally .line) into the folder `out`.

    `positions=True` also stores each occurrence's token position (for proximity scoring);
    indexes without them pay nothing for the option.
    `workers`: analysis workers (default: the cores this process may use, up to 8; 1 analyses inline):
    threads for analyzers with a compiled chain (without the GIL), forked processes for the others.
    The index is the same, byte for byte, whatever the number.
    The previous index at `out`, if any, stays live until the new one is complete; one process
    writes an index at a time (a second one fails at once), and an OS fault (full disk, read-only
    place) is a one-line `SoundingError` that leaves the previous index as it was.
    `need_bytes`: the free space to insist on before starting (an estimate from the input size).
    A repeated document id is a `DataError` at its second line naming the first, raised once the
    input has been read (the ids are checked by an external sort, not held in memory).
    `memory`: bytes of postings the build may hold before it writes them to a sorted run on disk
    (default MEMORY_BUDGET); the runs are merged in one streaming pass at the end. The index bytes do
    not depend on it. Positions spill and merge with their postings.
    `postings`: "raw" (6 bytes a posting; DEFAULT_POSTINGS) or "packed" (blocks of bit-packed gaps and
    term frequencies, index/packed.py: ~1.5 bytes a posting); positions are kept with raw postings only.
    `progress`, if given, is called with the number of documents indexed so far.
    """
    start = time.perf_counter()
    root = Path(out)
    analyze = get_analyzer(analyzer)  # an unknown analyzer fails before anything is written
    postings = postings_layout(postings, positions)
    check_output_dir(root, need_bytes=need_bytes)
    with writer_lock(root, f"the index {root}"), _os_faults(root):
        _clean_partials(root)
        name = next_generation_name(root)
        partial = root / f"{name}.partial-{os.getpid()}"
        partial.mkdir()
        try:
            budget = MEMORY_BUDGET if memory is None else validate.integer("memory budget (bytes)", memory)
            manifest = _write(docs, partial, analyze, source, positions, progress, _n_workers(workers), budget, postings)
            final = root / name
            os.rename(partial, final)
            commit_generation(root, final)
        except BaseException:
            remove_tree(partial)
            raise
        size = sum(p.stat().st_size for p in final.iterdir())
    return BuildReport(final.parent, manifest.n_docs, manifest.n_terms, time.perf_counter() - start, size,
                       manifest.empty_docs, manifest.docs_without_title)


def postings_layout(postings: str | None, positions: bool) -> str:
    """The postings layout to build: the one asked for, checked, or the default for the options."""
    if postings is None:
        return DEFAULT_POSTINGS
    if postings not in POSTINGS:
        raise SoundingError(f"unknown postings layout {postings!r} (choose from: {', '.join(POSTINGS)})")
    if positions and postings != "raw":
        raise SoundingError("positions are kept beside raw postings only: build with postings \"raw\"")
    return postings


def estimate_bytes(corpus: str | Path) -> int:
    """About the size an index of this corpus file takes: measured on BEIR sets at ~0.9 bytes of
    index per byte of uncompressed JSON lines (gzip shrinks those ~3×)."""
    p = Path(corpus)
    try:
        size = p.stat().st_size
    except OSError:
        return 0
    return int(size * (3 if p.suffix == ".gz" else 1) * 0.9)


@contextlib.contextmanager
def _os_faults(root: Path):
    """OS errors as one line: a fault while writing names the index folder, one while reading the
    file that could not be read."""
    try:
        yield
    except OSError as e:
        inside = str(e.filename or root).startswith(str(root))  # numpy's short writes name no file
        raise os_error(e, root if inside else e.filename, "write the index" if inside else "read") from None


def _n_workers(workers: int | None) -> int:
    if workers is not None:
        return max(1, int(workers))
    try:
        return max(1, min(8, len(os.sched_getaffinity(0))))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, min(8, os.cpu_count() or 1))


# -- the parent: read, hash, dispatch, hold, spill, merge -----------------------------------------
class _Build:
    """One build's state: the vocabulary, the documents' table, the postings held and the runs spilled."""

    def __init__(self, folder: Path, analyze, source: str, positions: bool, budget: int, progress):
        self.folder, self.positions, self.budget, self.progress = folder, positions, budget, progress
        self.table = DocTable(folder, source)  # ids (checked), lines and lengths, on disk as they come
        self.hasher = hashlib.sha256(analyze.name.encode())
        self.chunks: list[dict] = []  # per chunk: field → (term id, global doc, tf, positions or None)
        self.runs: list[Path] = []  # chunks already written to disk, in document order (see merge.spill)
        self.held = 0  # bytes of postings (and positions) in `chunks`
        self.analysed = 0
        self._spiller: ThreadPoolExecutor | None = None  # writes runs while the documents are read on
        self._spilling: Future | None = None

    def collect(self, first_doc: int, result: dict, vocab: ByteTable) -> None:
        """A chunk's postings, held (or spilled beyond the budget), and its lengths."""
        fields = result["fields"]
        if "terms" in result:  # a Python analyzer's chunk: its own term ids and documents from 0
            ids = vocab.add_all(result["terms"]).astype(np.uint32)
            fields = {f: (ids[t], d + np.uint32(first_doc), tf, pos) for f, (t, d, tf, pos) in fields.items()}
        self.chunks.append(fields)
        self.held += held_bytes(fields)
        if self._spilling is not None and self.held > WAIT_AT * self.budget:
            self.wait()
        if self.held > SPILL_AT * self.budget:
            self.spill(vocab)
        self.table.add_lengths(result["lengths"])
        self.analysed += len(result["lengths"]["text"])
        if self.progress:
            self.progress(self.analysed)

    def read(self, docs: Iterable, analysts: Analysts, vocab: ByteTable) -> None:
        """Every document, in chunks of CHUNK_DOCS, analysed by `analysts` with a bounded read-ahead."""
        pending: deque = deque()  # (first doc, future or result) in document order

        def dispatch(batch: list, lines: list[int], more: bool) -> None:
            titles = [d.title or "" for d in batch]
            texts = [d.text or "" for d in batch]
            ids = [d.id for d in batch]
            first_doc = self.table.n
            self.table.add(ids, lines)
            pending.append((first_doc, analysts.submit(titles, texts, ids, first_doc, self.hasher, more)))
            while pending and (len(pending) > 2 * analysts.workers or not isinstance(pending[0][1], Future)):
                d0, fut = pending.popleft()  # bounded read-ahead: memory holds a few chunks
                self.collect(d0, fut.result() if isinstance(fut, Future) else fut, vocab)

        batch: list = []
        lines: list[int] = []
        for n, doc in enumerate(docs, 1):
            batch.append(doc)
            lines.append(getattr(doc, "line", n) or n)
            if len(batch) == CHUNK_DOCS:
                dispatch(batch, lines, True)
                batch, lines = [], []
        if batch:
            dispatch(batch, lines, False)
        while pending:
            d0, fut = pending.popleft()
            self.collect(d0, fut.result() if isinstance(fut, Future) else fut, vocab)

    def spill(self, vocab: ByteTable) -> None:
        """The held postings to a run on disk, sorted in the order of the vocabulary known now, written by
        another thread (its kernels hold no GIL) while this one reads on; one run at a time."""
        self.wait()
        chunks, known = self.chunks, vocab.n  # every term id of these chunks is below `known`
        self.chunks, self.held = [], 0
        run = self.folder / f"run-{len(self.runs):05d}"
        self.runs.append(run)
        if self._spiller is None:
            self._spiller = ThreadPoolExecutor(1, thread_name_prefix="sounding-spill")
        self._spilling = self._spiller.submit(_write_run, chunks, run, vocab, known)

    def wait(self) -> None:
        """Until the run being written is on disk (its error, if any, raised here)."""
        if self._spilling is not None:
            spilling, self._spilling = self._spilling, None
            spilling.result()

    def close(self) -> None:
        if self._spiller is not None:
            self._spiller.shutdown(wait=True, cancel_futures=True)
            self._spiller = None

    def postings(self, vocab: ByteTable, postings: str) -> tuple[list[str], dict]:
        """The sorted vocabulary, and the postings arrays (those not written by the merge of runs)."""
        terms, remap = _sorted_vocabulary(vocab)
        n_terms = len(terms)
        if self.runs:  # some postings are on disk: merge every run, these last chunks as one more
            if self.chunks:
                self.spill(vocab)
            self.wait()
            trim_heap()  # the held postings' blocks, before the merge's arrays
            return terms, merge_runs(self.runs, remap, n_terms, self.folder, postings, self.positions, self.budget)
        arrays = merge_held(self.chunks, remap, n_terms, self.positions)
        self.chunks.clear()
        if postings == "packed":
            packer = PackedWriter(self.folder)
            offsets = arrays["offsets"]
            for i in range(len(ALL_FIELDS)):
                a, z = int(offsets[i, 0]), int(offsets[i, -1])
                packer.add(np.diff(offsets[i]), arrays["docs"][a:z], arrays["tfs"][a:z])
            packer.close()
            arrays["docs"] = arrays["tfs"] = None
        return terms, arrays


def _write_run(chunks: list[dict], run: Path, vocab: ByteTable, known: int) -> None:
    spill(chunks, run, _sorted_vocabulary(vocab, known)[1])
    del chunks[:]
    trim_heap()


def _sorted_vocabulary(vocab: ByteTable, known: int | None = None) -> tuple[list[str], np.ndarray]:
    """The vocabulary's terms (the first `known`) in order (code points, which is UTF-8 byte order), and
    each term id's place among them (uint32): sorted ids do not depend on the document order, and
    prefixes stay together."""
    words = vocab.keys(0, known)
    order = sorted(range(len(words)), key=words.__getitem__)
    terms = [words[i] for i in order]
    rank = np.empty(len(terms), dtype=np.uint32)
    rank[np.asarray(order, dtype=np.int64)] = np.arange(len(terms), dtype=np.uint32)
    return terms, rank


def _write(docs: Iterable, folder: Path, analyze, source: str, positions: bool, progress, workers: int,
           budget: int = MEMORY_BUDGET, postings: str = "raw") -> Manifest:
    build = _Build(folder, analyze, source, positions, budget, progress)
    analysts = Analysts(analyze, positions, workers)
    vocab = analysts.compiled.vocab if analysts.compiled else ByteTable(1 << 16, 1 << 20)
    try:
        try:
            build.read(docs, analysts, vocab)
        finally:
            analysts.close()
            build.table.close_files()
        doc_stats = build.table.finish(source)  # lengths.npy, docid_rank.npy; a repeated id fails here
        if not build.table.n:
            raise SoundingError(f"{source or 'corpus'}: no documents to index")
        terms, arrays = build.postings(vocab, postings)
    finally:
        build.close()
    del analysts, vocab
    stats = {}
    for i, f in enumerate(ALL_FIELDS):
        doc_count, sum_length = doc_stats["lengths"][f]
        stats[f] = FieldStats(doc_count=doc_count, sum_length=sum_length,
                              postings=int(arrays["offsets"][i, -1] - arrays["offsets"][i, 0]))
    for key, arr in arrays.items():
        if arr is not None:  # None: already written by the merge of runs
            np.save(folder / f"{key}.npy", arr)
    (folder / "terms.txt").write_text("\n".join(terms), encoding="utf-8")
    manifest = Manifest(
        analyzer=analyze.name, n_docs=build.table.n, n_terms=len(terms), fields=list(ALL_FIELDS), field_stats=stats,
        empty_docs=doc_stats["empty"], docs_without_title=doc_stats["untitled"], source=str(source),
        content_hash=build.hasher.hexdigest(), positions=positions, postings=postings,
    )
    manifest.checksums = {p.name: crc32_file(p) for p in sorted(folder.iterdir())}
    (folder / "manifest.json").write_text(manifest.to_json())
    return manifest


def _clean_partials(root: Path) -> None:
    """Remove folders left by builds that were killed (their process is gone)."""
    remove_stale(root, "gen-*.partial-*")
    remove_stale(root, "CURRENT.tmp-*")
