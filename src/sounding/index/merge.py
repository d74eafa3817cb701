"""The postings of a build into the index's arrays: held in memory, or spilled to sorted runs on disk.

Chunks arrive in document order, each with its postings document-major (index/build_kernels.py). When
the postings held exceed the memory budget they go to a run on disk (`spill`); at the end the runs
are merged a range of terms at a time (`merge_runs`), or, if nothing was spilled, a counting sort by
final term id places every chunk's postings straight into the final arrays (`merge_held`). Both
sorts are stable, so documents stay ascending within each term, and the index bytes do not depend
on the budget, the chunking or the number of workers.
"""
from __future__ import annotations

import contextlib
from pathlib import Path

import numpy as np

from .format import remove_tree, write_npy_header
from .packed import PackedWriter
from .pages import release_pages
from .build_kernels import count_terms, gather_run, place, place_positions, run_counts

FIELDS = ("title", "text")
ALL_FIELDS = ("flat",) + FIELDS
MEMORY_BUDGET = 1 << 29  # postings held in memory before a sorted run goes to disk (bytes)
MERGE_POSTINGS = 1 << 24  # most postings merged per step of the final pass
MERGE_BYTES = 40  # bytes of temporaries per posting in a merge step (measured ~35): steps of budget / MERGE_BYTES


def held_bytes(chunk: dict) -> int:
    """Bytes of a chunk's postings and positions ({field: (term, doc, tf, positions or None)})."""
    return sum(sum(0 if a is None else a.nbytes for a in chunk[f]) for f in ALL_FIELDS)


def merge_held(chunks: list[dict], remap: np.ndarray, n_terms: int, positions: bool) -> dict:
    """All chunks' postings into the final arrays, field after field, by a stable counting sort on the
    final term id (no sort of the whole collection, no copy of it beside the output); each chunk's
    field is freed once placed."""
    n_fields = len(ALL_FIELDS)
    offsets = np.zeros((n_fields, n_terms + 1), dtype=np.int64)
    total = 0
    for i, f in enumerate(ALL_FIELDS):  # per-field term counts → offsets
        counts = np.zeros(n_terms, dtype=np.int64)
        for c in chunks:
            count_terms(c[f][0], remap, counts)
        offsets[i, 0] = total
        offsets[i, 1:] = total + np.cumsum(counts)
        total = int(offsets[i, -1])
    wide = any(c[f][2].dtype == np.uint32 for c in chunks for f in ALL_FIELDS)
    docs = np.empty(total, dtype=np.uint32)
    tfs = np.empty(total, dtype=np.uint32 if wide else np.uint16)
    out = {"offsets": offsets, "docs": docs, "tfs": tfs}
    if positions:  # occurrence positions of posting i: positions[pos_offsets[i]:pos_offsets[i + 1]]
        pos_offsets = out["pos_offsets"] = np.zeros(total + 1, np.int64)
        out["positions"] = np.empty(sum(len(c[f][3]) for c in chunks for f in ALL_FIELDS), np.uint32)
    for i, f in enumerate(ALL_FIELDS):
        a, z = int(offsets[i, 0]), int(offsets[i, -1])
        cursor = offsets[i, :-1].copy()
        for c in chunks:
            term, doc, tf, _ = c[f]
            place(term, doc, tf, remap, cursor, docs, tfs)
        if positions:
            np.cumsum(tfs[a:z], dtype=np.int64, out=pos_offsets[a + 1 : z + 1])
            pos_offsets[a + 1 : z + 1] += pos_offsets[a]
            cursor = offsets[i, :-1].copy()
            for c in chunks:
                term, _, tf, pos = c[f]
                place_positions(term, tf, pos, remap, cursor, pos_offsets, out["positions"])
        for c in chunks:
            c[f] = None  # this chunk's field is in the output now: free it
    return out


def spill(chunks: list[dict], run: Path, rank: np.ndarray) -> Path:
    """Write the held chunks' postings to the folder `run`, each field sorted by `rank` (term id → its
    place in the vocabulary known now: the final order of those terms) with a stable counting sort,
    so documents stay ascending within each term; positions, if any, move with their postings. Per
    field: <field>-terms.npy (the term ids present, in that order), -offsets.npy (each one's first
    posting), -doc, -tf and -pos.npy. Each chunk's field is freed once placed: memory holds the chunks
    and one sorted field."""
    run.mkdir()
    n = len(rank)
    by_rank = np.empty(n, np.uint32)
    by_rank[rank] = np.arange(n, dtype=np.uint32)
    positions = chunks[0][ALL_FIELDS[0]][3] is not None
    for f in ALL_FIELDS:
        counts = np.zeros(n, np.int64)
        for c in chunks:
            count_terms(c[f][0], rank, counts)
        present = np.flatnonzero(counts)
        offsets = np.zeros(len(present) + 1, np.int64)
        np.cumsum(counts[present], out=offsets[1:])
        np.save(run / f"{f}-terms.npy", by_rank[present])
        np.save(run / f"{f}-offsets.npy", offsets)
        cursor = np.zeros(n, np.int64)
        cursor[present] = offsets[:-1]
        del counts, present, offsets
        wide = any(c[f][2].dtype == np.uint32 for c in chunks)
        total = sum(len(c[f][0]) for c in chunks)
        docs = np.empty(total, np.uint32)
        tfs = np.empty(total, np.uint32 if wide else np.uint16)
        start = cursor.copy() if positions else None
        for c in chunks:
            term, doc, tf, _ = c[f]
            place(term, doc, tf, rank, cursor, docs, tfs)
        if positions:
            pos_offsets = np.zeros(len(tfs) + 1, np.int64)
            np.cumsum(tfs, dtype=np.int64, out=pos_offsets[1:])
            out = np.empty(int(pos_offsets[-1]), np.uint32)
            for c in chunks:
                term, _, tf, pos = c[f]
                place_positions(term, tf, pos, rank, start, pos_offsets, out)
            del pos_offsets, start
            np.save(run / f"{f}-pos.npy", out)
            del out
        for c in chunks:
            c[f] = None
        del cursor
        np.save(run / f"{f}-doc.npy", docs)
        np.save(run / f"{f}-tf.npy", tfs)
        del docs, tfs
    return run


def merge_runs(runs: list[Path], remap: np.ndarray, n_terms: int, folder: Path, postings: str = "raw",
               positions: bool = False, budget: int = MEMORY_BUDGET) -> dict:
    """The runs on disk into docs.npy and tfs.npy (or packed postings), and pos_offsets.npy and
    positions.npy, written front to back, a range of terms at a time (about budget / MERGE_BYTES
    postings, and as many positions): each term's postings are its slices of the runs, in run order,
    which is document order; each run is read once, front to back (its ranks follow the final term
    order). Memory: one range. Same bytes as merge_held."""
    step = max(1, min(MERGE_POSTINGS, budget // MERGE_BYTES))
    n_fields = len(ALL_FIELDS)
    counts = np.zeros((n_fields, n_terms), np.int64)
    pos_counts = np.zeros((n_fields, n_terms if positions else 0), np.int64)
    wide = False
    for run in runs:
        for i, f in enumerate(ALL_FIELDS):
            terms, offs, tf = (np.load(run / f"{f}-{part}.npy", mmap_mode="r") for part in ("terms", "offsets", "tf"))
            wide |= tf.dtype == np.uint32
            run_counts(remap, np.asarray(terms), np.asarray(offs), np.asarray(tf), counts[i], pos_counts[i], positions)
            for view in (terms, offs, tf):
                release_pages(view)
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
        for i, f in enumerate(ALL_FIELDS):
            _merge_field(runs, f, remap, offsets[i], pos_ends[i] if positions else None, step, tf_dtype, outs, packer)
        if packer is not None:
            packer.close()
    for run in runs:
        remove_tree(run)
    return {"offsets": offsets, "docs": None, "tfs": None}


def _merge_field(runs, f: str, remap, offsets, pos_ends, step: int, tf_dtype, outs: dict, packer) -> None:
    """One field of merge_runs: its postings (offsets: the index's, pos_ends: positions before each
    term, or None) from the runs to `outs` (or the packer), a range of terms at a time."""
    positions = pos_ends is not None
    parts = ("terms", "offsets", "doc", "tf") + (("pos",) if positions else ())
    maps = [tuple(np.load(run / f"{f}-{part}.npy", mmap_mode="r") for part in parts) for run in runs]
    at = [(0, 0) for _ in runs]  # each run's next term and position
    n_terms = len(offsets) - 1
    t0 = 0
    while t0 < n_terms:
        t1 = t0 + max(1, int(np.searchsorted(offsets[t0 + 1:] - offsets[t0], step, side="right")))
        if positions:
            t1 = min(t1, t0 + max(1, int(np.searchsorted(pos_ends[t0 + 1:] - pos_ends[t0], step, side="right"))))
        docs = np.empty(int(offsets[t1] - offsets[t0]), np.uint32)
        tfs = np.empty(len(docs), tf_dtype)
        cursor = offsets[t0:t1] - offsets[t0]
        pos = np.empty(int(pos_ends[t1] - pos_ends[t0]) if positions else 0, np.uint32)
        pos_cursor = pos_ends[t0:t1] - pos_ends[t0] if positions else cursor[:0]
        for r, m in enumerate(maps):
            j, pa = at[r]
            run_pos = np.asarray(m[4]) if positions else _NO_POSITIONS
            k, pb = gather_run(t0, t1, remap, np.asarray(m[0]), np.asarray(m[1]), np.asarray(m[2]), np.asarray(m[3]),
                               run_pos, j, pa, cursor, pos_cursor, docs, tfs, pos, positions)
            at[r] = (k, pb)
            a, b = int(m[1][j]), int(m[1][k])
            for view in (m[0][j:k], m[1][j:k], m[2][a:b], m[3][a:b]) + ((m[4][pa:pb],) if positions else ()):
                release_pages(view)  # read once: their mapped pages leave the resident set
        if packer is None:
            outs["docs"].write(docs.tobytes())
            outs["tfs"].write(tfs.tobytes())
        else:
            packer.add(np.diff(offsets[t0 : t1 + 1]), docs, tfs)
        if positions:
            outs["positions"].write(pos.tobytes())
            outs["pos_offsets"].write((pos_ends[t0] + np.cumsum(tfs, dtype=np.int64)).tobytes())
        del docs, tfs, pos
        t0 = t1


_NO_POSITIONS = np.zeros(0, np.uint32)


def _cumulative(counts: np.ndarray) -> np.ndarray:
    """(n_fields, n_terms) counts → (n_fields, n_terms + 1) int64 ends, the fields following one another."""
    out = np.zeros((counts.shape[0], counts.shape[1] + 1), dtype=np.int64)
    out[:, 1:] = np.cumsum(counts, axis=1)
    out += np.concatenate([[0], np.cumsum(out[:-1, -1])])[:, None]
    return out
