"""Streaming index writer: documents in, per-field postings and statistics out.

Fields: `flat` (title + text as one field, what Pyserini's flat indexes hold), then each named
field (`title`, `text`). Analysis runs once per field; flat postings are the per-document sum of
the field postings, exactly what analysing "title text" gives (tokens never span the space).

Data flow: the parent reads documents (content hash; ids, lines and lengths go to disk as they
come, index/doctable.py) and cuts them into chunks; `analyze_chunk` turns a chunk into postings
over the chunk's own term list, in worker processes when there are several cores (analysis is ~70%
of indexing and pure Python); the parent maps each chunk's terms to global ids and keeps its
postings (and positions) compactly (uint32 term and doc, uint16 tf where it fits). When they
exceed the memory budget they go to a run on disk (`_spill`); at the end the runs are merged a
range of terms at a time (`_merge_runs`), or, if nothing was spilled, a counting sort by term
places every chunk's postings straight into the final arrays (`_merge_postings`). Chunks arrive in
document order, so documents stay ascending within each term either way, and the index bytes do
not depend on the budget or the number of workers.

Memory: the budget of postings held, one merge step (budget / MERGE_BYTES postings), the vocabulary
(a dict entry per distinct term: it grows with the corpus, slower than it), fixed buffers, and per
analysis worker one chunk plus a stem cache renewed every ANALYZER_DOCS documents.
"""
from __future__ import annotations

import contextlib
import hashlib
import multiprocessing
import os
import threading
import time
from collections import defaultdict, deque
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from itertools import chain
from pathlib import Path
from typing import Iterable

import numba as nb
import numpy as np

from ..analysis import DEFAULT_ANALYZER, get_analyzer, list_analyzers
from ..errors import SoundingError
from .. import validate
from ..io import check_output_dir, os_error, remove_stale, writer_lock
from .doctable import DocTable
from .packed import PackedWriter
from .pages import release_pages, trim_heap
from .format import (
    POSTINGS,
    FieldStats,
    Manifest,
    remove_tree,
    commit_generation,
    crc32_file,
    next_generation_name,
    write_npy_header,
)

FIELDS = ("title", "text")
ALL_FIELDS = ("flat",) + FIELDS
CHUNK_DOCS = 500  # small enough to spread a small corpus over the workers
MEMORY_BUDGET = 1 << 29  # postings held in memory before a sorted run goes to disk (bytes): NQ-size synthetic peaks at 1.23 GiB, all processes
DEFAULT_POSTINGS = "raw"
MERGE_POSTINGS = 1 << 24  # most postings merged per step of the final pass
MERGE_BYTES = 40  # bytes of temporaries per posting in a merge step (measured ~35): steps of budget / MERGE_BYTES
ANALYZER_DOCS = 500_000  # documents an analysis process analyses before it takes a fresh analyzer (_Analysis): a
# fresh English analyzer relearns ~1.5-2.5 s of CPU per 50k documents of synthetic text, so fewer renewals cost time


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
    `workers`: analysis processes (default: the cores this process may use; 1 analyses inline).
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


def _can_fork() -> bool:
    """Workers are forked (they start in milliseconds with the analyzer already loaded). Forking a
    process that runs other Python threads (a Ray driver, a server) can copy a held lock, so
    there the analysis stays in this process: slower, the same index. (Sounding's own idle
    search threads wait on a queue, holding nothing.)"""
    others = [t for t in threading.enumerate()
              if t is not threading.main_thread() and not t.name.startswith("sounding-search")]
    return "fork" in multiprocessing.get_all_start_methods() and not others


# -- analysis of one chunk (runs in a worker process, or inline) --------------------------------
class _Analysis:
    """Chunks analysed by an analyzer of its own, replaced by a fresh one every ANALYZER_DOCS documents:
    an analyzer caches the stem of every token it has seen, a cache that grows with the vocabulary
    (~0.65 GiB a worker at 8.85 M synthetic documents). The tokens do not depend on the cache."""

    def __init__(self, name: str):
        self._factory = next(a.factory for a in list_analyzers() if a.name == name)
        self._analyzer = None
        self._docs = 0

    def __call__(self, texts: dict[str, list[str]], positions: bool) -> dict:
        if self._analyzer is None or self._docs >= ANALYZER_DOCS:
            self._analyzer = None  # the old cache goes before the new analyzer fills its own
            trim_heap()
            self._analyzer = self._factory()
            self._docs = 0
        self._docs += len(texts["text"])
        return analyze_chunk(self._analyzer, texts, positions)


_WORKER_ANALYSIS: _Analysis | None = None


def _init_worker(analyzer_name: str, parent: int) -> None:
    global _WORKER_ANALYSIS
    _die_with_parent(parent)
    _WORKER_ANALYSIS = _Analysis(analyzer_name)


def _die_with_parent(parent: int) -> None:
    """A killed build must not leave its workers behind (they would wait on the task queue
    forever): on Linux the kernel kills this process when its parent dies."""
    try:
        import ctypes
        import signal

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        return
    if os.getppid() != parent:  # the parent died before the line above
        os._exit(1)


def _analyze_in_worker(texts: dict[str, list[str]], positions: bool) -> dict:
    return _WORKER_ANALYSIS(texts, positions)


def analyze_chunk(analyze, texts: dict[str, list[str]], positions: bool) -> dict:
    """Postings of one chunk over the chunk's own terms: {"terms": [...], "lengths": {field: int64},
    field: (term uint32, doc uint32 within the chunk, tf, positions or None), ...}, each field's
    postings sorted by (term, doc)."""
    local: defaultdict[str, int] = defaultdict()
    local.default_factory = local.__len__  # term → id on first sight, one C-level call per token
    out: dict = {"lengths": {}}
    flat_keys, flat_tfs, flat_pos = [], [], []
    title_lens = None
    for f in FIELDS:
        tokens = analyze.analyze_many(texts[f]) if hasattr(analyze, "analyze_many") else list(map(analyze, texts[f]))
        lens = np.fromiter(map(len, tokens), dtype=np.int64, count=len(tokens))
        out["lengths"][f] = lens
        ids = np.fromiter(map(local.__getitem__, chain.from_iterable(tokens)), dtype=np.int64, count=int(lens.sum()))
        doc = np.repeat(np.arange(len(tokens), dtype=np.int64), lens)
        token_keys = (ids << 32) | doc
        if positions:
            # position of each token within its field; the flat field continues after the title
            pos = np.arange(len(ids), dtype=np.int64) - np.repeat(np.cumsum(lens) - lens, lens)
            order = np.argsort(token_keys, kind="stable")
            keys, tfs = np.unique(token_keys[order], return_counts=True)
            out[f] = _split(keys, tfs, pos[order])
            flat_pos.append(pos if f == "title" else pos + np.repeat(title_lens, lens))
            flat_keys.append(token_keys)
        else:
            keys, tfs = np.unique(token_keys, return_counts=True)
            out[f] = _split(keys, tfs, None)
            flat_keys.append(keys)
            flat_tfs.append(tfs)
        if f == "title":
            title_lens = lens
    keys = np.concatenate(flat_keys)  # flat = title + text, summed per (term, doc)
    if positions:
        order = np.argsort(keys, kind="stable")  # title occurrences first, then text: ascending positions
        uniq, tfs = np.unique(keys[order], return_counts=True)
        out["flat"] = _split(uniq, tfs, np.concatenate(flat_pos)[order])
    else:
        uniq, inverse = np.unique(keys, return_inverse=True)
        out["flat"] = _split(uniq, np.bincount(inverse, weights=np.concatenate(flat_tfs)).astype(np.int64), None)
    out["terms"] = list(local)
    local.default_factory = None  # the factory is local's own method: a cycle that only the collector would free
    return out


def _split(keys: np.ndarray, tfs: np.ndarray, pos):
    """(term << 32 | doc) keys → compact (term, doc, tf[, positions]) arrays."""
    tf_dtype = np.uint16 if tfs.max(initial=0) <= np.iinfo(np.uint16).max else np.uint32
    return ((keys >> 32).astype(np.uint32), (keys & 0xFFFFFFFF).astype(np.uint32), tfs.astype(tf_dtype),
            None if pos is None else pos.astype(np.uint32))


# -- the parent: read, hash, dispatch, merge ------------------------------------------------------
def _write(docs: Iterable, folder: Path, analyze, source: str, positions: bool, progress, workers: int,
           budget: int = MEMORY_BUDGET, postings: str = "raw") -> Manifest:
    vocab: defaultdict[str, int] = defaultdict()
    vocab.default_factory = vocab.__len__
    table = DocTable(folder, source)  # ids, lines and lengths, on disk as they come
    analysed = 0
    hasher = hashlib.sha256(analyze.name.encode())
    chunks: list[dict] = []  # per chunk: field → (global term, global doc, tf, positions or None)
    runs: list[Path] = []  # chunks already written to disk, in document order (see _spill)
    held = 0  # bytes of postings (and positions) in `chunks`
    pool = None
    inline = _Analysis(analyze.name)
    pending: deque = deque()  # (first doc, future or result) in document order

    def collect(first_doc: int, result: dict) -> None:
        nonlocal held, analysed
        gids = np.fromiter(map(vocab.__getitem__, result["terms"]), dtype=np.uint32, count=len(result["terms"]))
        chunk = {}
        for f in ALL_FIELDS:
            term, doc, tf, pos = result[f]
            chunk[f] = (gids[term], doc + np.uint32(first_doc), tf, pos)
            held += term.nbytes + doc.nbytes + tf.nbytes + (0 if pos is None else pos.nbytes)
        chunks.append(chunk)
        if held > budget:
            runs.append(_spill(chunks, folder / f"run-{len(runs):05d}"))
            chunks.clear()
            held = 0
        table.add_lengths(result["lengths"])
        analysed += len(result["lengths"]["text"])
        if progress:
            progress(analysed)

    def dispatch(batch: list, lines: list[int]) -> None:
        nonlocal pool
        first_doc = table.n
        table.add([d.id for d in batch], lines)  # the ids checked first
        texts = {f: [getattr(d, f) or "" for d in batch] for f in FIELDS}
        for title, text, d in zip(texts["title"], texts["text"], batch):
            hasher.update(title.encode("utf-8", "surrogatepass"))
            hasher.update(b"\x00")
            hasher.update(text.encode("utf-8", "surrogatepass"))
            hasher.update(b"\x00")
            hasher.update(d.id.encode("utf-8", "surrogatepass"))
        if workers > 1 and pool is None and len(batch) == CHUNK_DOCS and _can_fork():  # more may follow
            pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"),
                                       initializer=_init_worker, initargs=(analyze.name, os.getpid()))
        if pool is None:
            collect(first_doc, inline(texts, positions))
            return
        pending.append((first_doc, pool.submit(_analyze_in_worker, texts, positions)))
        while len(pending) > 2 * workers:  # bounded read-ahead: memory holds a few chunks
            d0, fut = pending.popleft()
            collect(d0, fut.result())

    try:
        batch: list = []
        lines: list[int] = []
        for n, doc in enumerate(docs, 1):
            batch.append(doc)
            lines.append(getattr(doc, "line", n) or n)
            if len(batch) == CHUNK_DOCS:
                dispatch(batch, lines)
                batch, lines = [], []
        if batch:
            dispatch(batch, lines)
        while pending:
            d0, fut = pending.popleft()
            collect(d0, fut.result())
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
        table.close_files()
    del inline
    doc_stats = table.finish(source)  # lengths.npy, docid_rank.npy; a repeated id fails here
    if not table.n:
        raise SoundingError(f"{source or 'corpus'}: no documents to index")

    # Sorted vocabulary: deterministic ids whatever the document order, and prefix/typo lookups.
    terms = sorted(vocab)
    remap = np.empty(len(vocab), dtype=np.uint32)
    remap[np.fromiter((vocab[t] for t in terms), dtype=np.int64, count=len(terms))] = np.arange(len(terms))
    del vocab

    n_docs, n_terms = table.n, len(terms)
    if runs:  # some postings are on disk: merge every run, these last chunks as one more
        if chunks:
            runs.append(_spill(chunks, folder / f"run-{len(runs):05d}"))
            chunks.clear()
        trim_heap()  # the held postings' blocks, before the merge's arrays
        arrays = _merge_runs(runs, remap, n_terms, folder, postings, positions, budget)
    else:
        arrays = _merge_postings(chunks, remap, n_terms, positions)
        if postings == "packed":
            packer = PackedWriter(folder)
            offsets = arrays["offsets"]
            for i in range(len(ALL_FIELDS)):
                a, z = int(offsets[i, 0]), int(offsets[i, -1])
                packer.add(np.diff(offsets[i]), arrays["docs"][a:z], arrays["tfs"][a:z])
            packer.close()
            arrays["docs"] = arrays["tfs"] = None
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
        analyzer=analyze.name, n_docs=n_docs, n_terms=n_terms, fields=list(ALL_FIELDS), field_stats=stats,
        empty_docs=doc_stats["empty"], docs_without_title=doc_stats["untitled"], source=str(source), content_hash=hasher.hexdigest(),
        positions=positions, postings=postings,
    )
    manifest.checksums = {p.name: crc32_file(p) for p in sorted(folder.iterdir())}
    (folder / "manifest.json").write_text(manifest.to_json())
    return manifest


def _merge_postings(chunks: list[dict], remap: np.ndarray, n_terms: int, positions: bool) -> dict:
    """All chunks' postings into the final arrays, field after field, by a counting sort on the
    sorted term id (no sort of the whole collection, no copy of it beside the output)."""
    n_fields = len(ALL_FIELDS)
    offsets = np.zeros((n_fields, n_terms + 1), dtype=np.int64)
    total = 0
    for i, f in enumerate(ALL_FIELDS):  # per-field term counts → offsets
        counts = np.zeros(n_terms, dtype=np.int64)
        for c in chunks:
            t, n = np.unique(remap[c[f][0]], return_counts=True)
            counts[t] += n
        offsets[i, 0] = total
        offsets[i, 1:] = total + np.cumsum(counts)
        total = int(offsets[i, -1])
    wide = any(c[f][2].dtype == np.uint32 for c in chunks for f in ALL_FIELDS)
    docs = np.empty(total, dtype=np.uint32)
    tfs = np.empty(total, dtype=np.uint32 if wide else np.uint16)
    dests = []
    for i, f in enumerate(ALL_FIELDS):
        cursor = offsets[i, :-1].copy()
        for c in chunks:
            term, doc, tf, _ = c[f]
            t = remap[term]
            order = np.argsort(t, kind="stable")  # docs stay ascending within a term
            t = t[order]
            first = np.flatnonzero(np.r_[True, t[1:] != t[:-1]]) if len(t) else np.zeros(0, np.int64)
            sizes = np.diff(np.r_[first, len(t)])
            dest = cursor[t] + (np.arange(len(t)) - np.repeat(first, sizes))
            cursor[t[first]] += sizes
            docs[dest] = doc[order]
            tfs[dest] = tf[order]
            if positions:
                dests.append((dest, order))
            else:
                c[f] = None  # this chunk's field is in the output now: free it
    out = {"offsets": offsets, "docs": docs, "tfs": tfs}
    if positions:  # occurrence positions of posting i: positions[pos_offsets[i]:pos_offsets[i + 1]]
        pos_offsets = np.concatenate([[0], np.cumsum(tfs, dtype=np.int64)])
        out_pos = np.empty(int(pos_offsets[-1]), dtype=np.uint32)
        k = 0
        for f in ALL_FIELDS:
            for c in chunks:
                dest, order = dests[k]
                k += 1
                _, _, tf, pos = c[f]
                seg = _reorder_segments(pos, tf.astype(np.int64), order)
                out_pos[_segment_index(pos_offsets[dest], tf[order].astype(np.int64))] = seg
        out["pos_offsets"], out["positions"] = pos_offsets, out_pos
    return out


def _spill(chunks: list[dict], run: Path) -> Path:
    """Write the held chunks' postings (in document order, terms by first-seen id), and their positions
    if they have any, to the folder `run`, chunk after chunk, without a copy of them all beside the chunks."""
    run.mkdir()
    with_positions = chunks[0][ALL_FIELDS[0]][3] is not None
    for f in ALL_FIELDS:
        wide = any(c[f][2].dtype == np.uint32 for c in chunks)
        parts = [("term", np.uint32), ("doc", np.uint32), ("tf", np.uint32 if wide else np.uint16)]
        for k, (name, dtype) in enumerate(parts + [("pos", np.uint32)] * with_positions):
            with open(run / f"{f}-{name}.npy", "wb") as out:
                write_npy_header(out, dtype, (sum(len(c[f][k]) for c in chunks),))
                for c in chunks:
                    out.write(np.ascontiguousarray(c[f][k], dtype=dtype).tobytes())
    return run


def _merge_runs(runs: list[Path], remap: np.ndarray, n_terms: int, folder: Path, postings: str = "raw",
                positions: bool = False, budget: int = MEMORY_BUDGET) -> dict:
    """The runs on disk into docs.npy and tfs.npy (or packed postings), and pos_offsets.npy and
    positions.npy, written front to back: each run is sorted once by final term id (stable, so
    documents stay ascending; positions move with their postings), then every field is merged a range
    of terms at a time (about budget / MERGE_BYTES postings, and as many positions), the runs' slices
    taken in run order, which is document order. Memory: one field of one run while sorting, one range
    while merging. Same bytes as _merge_postings."""
    n_fields = len(ALL_FIELDS)
    counts = np.zeros((n_fields, n_terms), dtype=np.int64)  # postings per term
    pos_counts = np.zeros((n_fields, n_terms if positions else 0), dtype=np.int64)  # positions per term
    step = max(1, min(MERGE_POSTINGS, budget // MERGE_BYTES))
    wide = False
    for run in runs:
        for i, f in enumerate(ALL_FIELDS):
            t = remap[np.load(run / f"{f}-term.npy")]
            # a stable counting sort by term: 4 bytes a posting of where it goes (an argsort: 8, and a gather)
            dest = np.empty(len(t), np.uint32 if len(t) < 2**32 else np.int64)
            _stable_dest(t, counts[i], dest)
            tf = np.load(run / f"{f}-tf.npy")
            wide |= tf.dtype == np.uint32
            if positions:
                pos_counts[i] += np.bincount(t, weights=tf, minlength=n_terms).astype(np.int64)
                order = _scatter(np.arange(len(t), dtype=dest.dtype), dest)  # the posting each place takes
                _save_segments(run / f"{f}-pos.npy", np.load(run / f"{f}-pos.npy"), tf, order, step)
                del order
            np.save(run / f"{f}-term.npy", _scatter(t, dest))
            del t
            np.save(run / f"{f}-tf.npy", _scatter(tf, dest))
            del tf
            np.save(run / f"{f}-doc.npy", _scatter(np.load(run / f"{f}-doc.npy"), dest))
            del dest
    offsets = _cumulative(counts)
    pos_ends = _cumulative(pos_counts)  # positions before each term's, over all fields (positions only)
    total = int(offsets[-1, -1])
    tf_dtype = np.dtype(np.uint32 if wide else np.uint16)
    packer = PackedWriter(folder) if postings == "packed" else None
    with contextlib.ExitStack() as stack:
        outs = {}
        names = ([] if packer else [("docs", np.uint32, total), ("tfs", tf_dtype, total)]) + (
            [("pos_offsets", np.int64, total + 1), ("positions", np.uint32, int(pos_ends[-1, -1]))] if positions else [])
        for name, dtype, size in names:
            outs[name] = stack.enter_context(open(folder / f"{name}.npy", "wb"))
            write_npy_header(outs[name], dtype, (size,))
        if packer is not None:
            stack.callback(packer.abort)
        if positions:
            outs["pos_offsets"].write(np.zeros(1, np.int64).tobytes())
        seen = 0  # positions written so far
        for i, f in enumerate(ALL_FIELDS):
            parts_of = ("term", "doc", "tf") + (("pos",) if positions else ())
            maps = [tuple(np.load(run / f"{f}-{part}.npy", mmap_mode="r") for part in parts_of) for run in runs]
            pos_at = [0] * len(runs)  # each run's first position not merged yet
            at = [0] * len(runs)  # each run's first posting not merged yet
            t0 = 0
            while t0 < n_terms:
                t1 = t0 + max(1, int(np.searchsorted(offsets[i, t0 + 1:] - offsets[i, t0], step, side="right")))
                if positions:
                    t1 = min(t1, t0 + max(1, int(np.searchsorted(pos_ends[i, t0 + 1:] - pos_ends[i, t0], step, side="right"))))
                parts = []
                for r, m in enumerate(maps):
                    term, doc, tf = m[:3]
                    # a binary search from where the last step ended: np.searchsorted on the mapped
                    # array made ~40 % of its pages resident at each call (measured)
                    a = at[r]
                    b = at[r] = _first_at_least(np.asarray(term), a, t1)
                    part = (term[a:b], doc[a:b], tf[a:b])
                    if positions:
                        p1 = pos_at[r] + int(part[2].sum(dtype=np.int64))
                        part += (m[3][pos_at[r]:p1],)
                        pos_at[r] = p1
                    parts.append(part)
                docs = np.concatenate([p[1] for p in parts]).astype(np.uint32, copy=False)
                tfs = np.concatenate([p[2] for p in parts]).astype(tf_dtype, copy=False)
                pos = np.concatenate([p[3] for p in parts]) if positions else None
                if t1 - t0 > 1:  # one term's slices are in document order already, in run order
                    order = np.argsort(np.concatenate([p[0] for p in parts]), kind="stable")
                    if positions:
                        pos = _reorder_segments(pos, tfs.astype(np.int64), order)
                    docs, tfs = docs[order], tfs[order]
                    del order
                if packer is None:
                    outs["docs"].write(docs.tobytes())
                    outs["tfs"].write(tfs.tobytes())
                else:
                    packer.add(np.diff(offsets[i, t0 : t1 + 1]), docs, tfs)
                if positions:
                    outs["positions"].write(pos.astype(np.uint32, copy=False).tobytes())
                    outs["pos_offsets"].write((seen + np.cumsum(tfs, dtype=np.int64)).tobytes())
                    seen += len(pos)
                del docs, tfs, pos
                for part in parts:  # read once: their mapped pages leave the resident set
                    for view in part:
                        release_pages(view)
                t0 = t1
            del maps
        if packer is not None:
            packer.close()
    for run in runs:
        remove_tree(run)
    return {"offsets": offsets, "docs": None, "tfs": None}


@nb.njit(cache=True)
def _stable_dest(t, counts, dest):
    """dest[i]: the place of posting i (term t[i]) once the postings are sorted by term, stably; adds
    each term's postings to `counts` (int64, one per term)."""
    first = np.zeros(counts.shape[0] + 1, np.int64)
    for i in range(t.shape[0]):
        first[t[i] + 1] += 1
    for k in range(counts.shape[0]):
        counts[k] += first[k + 1]
        first[k + 1] += first[k]
    for i in range(t.shape[0]):
        dest[i] = first[t[i]]
        first[t[i]] += 1


@nb.njit(cache=True)
def _first_at_least(values, lo, key):
    """The first index from `lo` on whose value is >= key (values ascending)."""
    hi = values.shape[0]
    while lo < hi:
        mid = (lo + hi) >> 1
        if values[mid] < key:
            lo = mid + 1
        else:
            hi = mid
    return lo


@nb.njit(cache=True)
def _scatter(values, dest):
    """out[dest[i]] = values[i] (dest: a permutation)."""
    out = np.empty_like(values)
    for i in range(values.shape[0]):
        out[dest[i]] = values[i]
    return out


def _cumulative(counts: np.ndarray) -> np.ndarray:
    """(n_fields, n_terms) counts → (n_fields, n_terms + 1) int64 ends, the fields following one another."""
    out = np.zeros((counts.shape[0], counts.shape[1] + 1), dtype=np.int64)
    out[:, 1:] = np.cumsum(counts, axis=1)
    out += np.concatenate([[0], np.cumsum(out[:-1, -1])])[:, None]
    return out


def _segment_index(starts: np.ndarray, lens: np.ndarray) -> np.ndarray:
    """Indexes of the segments values[starts[i] : starts[i] + lens[i]], one after another (int64 lens)."""
    return np.repeat(starts - (np.cumsum(lens) - lens), lens) + np.arange(int(lens.sum()))


def _reorder_segments(values: np.ndarray, seg_lengths: np.ndarray, order: np.ndarray) -> np.ndarray:
    """Concatenate the segments of `values` (lengths `seg_lengths`, int64) in the order `order`."""
    starts = np.cumsum(seg_lengths) - seg_lengths
    return values[_segment_index(starts[order], seg_lengths[order])]


def _save_segments(path: Path, values: np.ndarray, seg_lengths: np.ndarray, order: np.ndarray, step: int) -> None:
    """_reorder_segments into the .npy file `path`, about `step` values at a time (bounded temporaries)."""
    seg_lengths = seg_lengths.astype(np.int64)
    starts = np.cumsum(seg_lengths) - seg_lengths
    with open(path, "wb") as out:
        write_npy_header(out, values.dtype, (len(values),))
        a = 0
        while a < len(order):
            b = a + max(1, int(np.searchsorted(np.cumsum(seg_lengths[order[a : a + step]]), step, side="right")))
            o = order[a:b]
            out.write(values[_segment_index(starts[o], seg_lengths[o])].tobytes())
            a = b


def _clean_partials(root: Path) -> None:
    """Remove folders left by builds that were killed (their process is gone)."""
    remove_stale(root, "gen-*.partial-*")
    remove_stale(root, "CURRENT.tmp-*")
