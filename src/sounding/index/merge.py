"""The postings of a build into the index's arrays: held in memory, or spilled to sorted runs on disk.

Chunks arrive in document order, each with its postings document-major (index/postings.py). When
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

from .format import _remove_tree, write_npy_header
from .packed import PackedWriter
from .pages import release_pages
from .postings import count_terms, first_at_least, place, place_positions, scatter, stable_dest

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


def spill(chunks: list[dict], run: Path) -> Path:
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


def merge_runs(runs: list[Path], remap: np.ndarray, n_terms: int, folder: Path, postings: str = "raw",
                positions: bool = False, budget: int = MEMORY_BUDGET) -> dict:
    """The runs on disk into docs.npy and tfs.npy (or packed postings), and pos_offsets.npy and
    positions.npy, written front to back: each run is sorted once by final term id (stable, so
    documents stay ascending; positions move with their postings), then every field is merged a range
    of terms at a time (about budget / MERGE_BYTES postings, and as many positions), the runs' slices
    taken in run order, which is document order. Memory: one field of one run while sorting, one range
    while merging. Same bytes as merge_held."""
    step = max(1, min(MERGE_POSTINGS, budget // MERGE_BYTES))
    counts, pos_counts, wide = _sort_runs(runs, remap, n_terms, positions, step)
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
                    b = at[r] = first_at_least(np.asarray(term), a, t1)
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
        _remove_tree(run)
    return {"offsets": offsets, "docs": None, "tfs": None}


def _sort_runs(runs: list[Path], remap: np.ndarray, n_terms: int, positions: bool, step: int):
    """Sort each run's fields by final term id in place (stable: documents stay ascending; positions
    move with their postings): (postings per field and term, positions per field and term, whether
    some tf needs uint32)."""
    n_fields = len(ALL_FIELDS)
    counts = np.zeros((n_fields, n_terms), dtype=np.int64)
    pos_counts = np.zeros((n_fields, n_terms if positions else 0), dtype=np.int64)
    wide = False
    for run in runs:
        for i, f in enumerate(ALL_FIELDS):
            t = remap[np.load(run / f"{f}-term.npy")]
            # a stable counting sort by term: 4 bytes a posting of where it goes (an argsort: 8, and a gather)
            dest = np.empty(len(t), np.uint32 if len(t) < 2**32 else np.int64)
            stable_dest(t, counts[i], dest)
            tf = np.load(run / f"{f}-tf.npy")
            wide |= tf.dtype == np.uint32
            if positions:
                pos_counts[i] += np.bincount(t, weights=tf, minlength=n_terms).astype(np.int64)
                order = scatter(np.arange(len(t), dtype=dest.dtype), dest)  # the posting each place takes
                _save_segments(run / f"{f}-pos.npy", np.load(run / f"{f}-pos.npy"), tf, order, step)
                del order
            np.save(run / f"{f}-term.npy", scatter(t, dest))
            del t
            np.save(run / f"{f}-tf.npy", scatter(tf, dest))
            del tf
            np.save(run / f"{f}-doc.npy", scatter(np.load(run / f"{f}-doc.npy"), dest))
            del dest
    return counts, pos_counts, wide


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


