"""Per-document state of an index build, streamed to disk as the documents come.

Held in memory, a build's per-document state grows with the corpus: a Python string per id, a dict
entry per id for the duplicate check, an int64 length per document and field, and a sort of every id
at the end for the byte-order ranks (~200 B a document at the end of the build; 1.7 GB at 8.8 M
documents). Here it goes to the build's folder instead, and memory holds one run of ids and buffers
of fixed size:

    docids.txt          the ids, one a line, written as they arrive (the index's own file)
    build-len-<field>   each named field's analysed lengths (uint32), turned into lengths.npy at the end
    build-lines         each document's line in the input (int64), read only to name a duplicate
    build-ids-NNNNN.*   runs of ID_RUN ids sorted in UTF-8 byte order (the ids' bytes, their ends, their
                        documents); merged at the end into docid_rank.npy, which also finds duplicates

`finish` writes lengths.npy and docid_rank.npy with the bytes np.save gives the whole arrays and
removes the build-* files, so the index does not depend on how the state was streamed.
"""
from __future__ import annotations

import heapq
from pathlib import Path

import numpy as np

from ..errors import DataError
from ..validate import first_bad_id, id_problem
from .format import write_npy_header
from .pages import release_pages

ID_RUN = 1 << 19  # ids sorted in memory at a time (~90 B each while sorting)
BLOCK = 1 << 16  # ids or lengths read back at a time
FIELDS = ("title", "text")  # the named fields; flat = title + text


class DocTable:
    """Documents' ids, input lines and per-field lengths, in document order, on disk in `folder`."""

    def __init__(self, folder: Path, source: str = ""):
        self.folder = Path(folder)
        self.source = source  # the input's name, for errors
        self.n = 0  # documents added
        self._ids = open(self.folder / "docids.txt", "wb")
        self._lines = open(self.folder / "build-lines", "wb")
        self._lens = {f: open(self.folder / f"build-len-{f}", "wb") for f in FIELDS}
        self._n_lens = 0
        self._keys: list[bytes] = []  # ids of the current run (UTF-8)
        self._runs: list[Path] = []

    def add(self, ids: list[str], lines: list[int]) -> None:
        """The next documents' ids and input lines; an id that breaks `validate.id_problem`'s rule is a
        DataError naming its line (documents given from Python, not read from a checked file, included)."""
        bad = first_bad_id(ids)
        if bad >= 0:
            raise DataError(self.source or "corpus", lines[bad], id_problem(ids[bad], "document id"))
        text = "\n".join(ids)
        self._ids.write((("\n" if self.n else "") + text).encode("utf-8"))
        self._lines.write(np.asarray(lines, dtype=np.int64).tobytes())
        self.n += len(ids)
        self._keys.extend(i.encode("utf-8") for i in ids)
        if len(self._keys) >= ID_RUN:
            self._sort_run()

    def add_lengths(self, lengths: dict[str, np.ndarray]) -> None:
        """The next documents' analysed lengths per named field (documents in the order of `add`)."""
        for f in FIELDS:
            self._lens[f].write(np.asarray(lengths[f]).astype(np.uint32).tobytes())
        self._n_lens += len(lengths[FIELDS[0]])

    def _sort_run(self) -> None:
        keys, first = self._keys, self.n - len(self._keys)
        order = sorted(range(len(keys)), key=keys.__getitem__)  # stable: equal ids stay in document order
        run = self.folder / f"build-ids-{len(self._runs):05d}"
        ordered = [keys[i] for i in order]
        with open(run.with_suffix(".blob"), "wb") as out:
            out.write(b"".join(ordered))
        np.cumsum(np.fromiter(map(len, ordered), dtype=np.int64, count=len(ordered))).tofile(run.with_suffix(".ends"))
        (np.asarray(order, dtype=np.int64) + first).astype(np.uint32).tofile(run.with_suffix(".docs"))
        self._runs.append(run)
        self._keys = []

    def close_files(self) -> None:
        for f in (self._ids, self._lines, *self._lens.values()):
            f.close()

    def finish(self, source: str) -> dict:
        """Write lengths.npy (flat, title, text rows) and docid_rank.npy, remove the build-* files, and
        return the field statistics {"lengths": {field: (doc_count, sum_length)}, "empty", "untitled"}.
        A repeated id is a DataError at its second occurrence, naming the first (the earliest such
        repeat in input order)."""
        self.close_files()
        if self._keys:
            self._sort_run()
        if self._n_lens != self.n:
            raise AssertionError(f"lengths of {self._n_lens} documents for {self.n} ids")
        self._rank(source)
        stats = self._lengths()
        for p in self.folder.glob("build-*"):
            p.unlink()
        return stats

    def abort(self) -> None:
        self.close_files()

    # -- docid_rank.npy --------------------------------------------------------------------------
    def _rank(self, source: str) -> None:
        n = self.n
        path = self.folder / "docid_rank.npy"
        with open(path, "wb") as out:
            write_npy_header(out, np.uint32, (n,))
            header = out.tell()
            out.truncate(header + 4 * n)
        rank = np.memmap(path, dtype=np.uint32, mode="r+", offset=header, shape=(n,)) if n else np.zeros(0, np.uint32)
        repeat = None  # (second document, first document, id) of the earliest repeat in input order
        prev_key, prev_doc = None, -1
        pos = 0
        docs = np.empty(BLOCK, np.int64)  # the documents of the next BLOCK ranks
        held = 0
        block = max(64, BLOCK // max(1, len(self._runs)))  # ids read ahead: about BLOCK, however many runs
        for key, doc in heapq.merge(*(_read_run(r, block) for r in self._runs)):
            if key != prev_key:
                prev_key, prev_doc = key, doc
            elif repeat is None or doc < repeat[0]:  # equal ids come in document order
                repeat = (doc, prev_doc, key)
            docs[held] = doc
            held += 1
            if held == BLOCK:
                rank[docs] = np.arange(pos, pos + held, dtype=np.uint32)
                pos += held
                held = 0
                if pos % (BLOCK * 16) == 0:  # written pages stay in the page cache, not in this process
                    rank.flush()
                    release_pages(rank)
        if held:
            rank[docs[:held]] = np.arange(pos, pos + held, dtype=np.uint32)
        if isinstance(rank, np.memmap):
            rank.flush()
        del rank
        if repeat is not None:
            second, first, key = repeat
            lines = np.memmap(self.folder / "build-lines", dtype=np.int64, mode="r")
            raise DataError(source or "corpus", int(lines[second]),
                            f"duplicate document id {key.decode('utf-8')!r} (first on line {int(lines[first])})")

    # -- lengths.npy ------------------------------------------------------------------------------
    def _lengths(self) -> dict:
        n = self.n
        stats = {f: [0, 0] for f in ("flat",) + FIELDS}
        empty = untitled = 0
        paths = {f: self.folder / f"build-len-{f}" for f in FIELDS}
        with open(self.folder / "lengths.npy", "wb") as out:
            write_npy_header(out, np.uint32, (1 + len(FIELDS), n))
            for row in ("flat",) + FIELDS:
                for a in range(0, n, BLOCK * 16):
                    count = min(BLOCK * 16, n - a)
                    part = {f: np.fromfile(paths[f], dtype=np.uint32, count=count, offset=4 * a).astype(np.int64)
                            for f in FIELDS}
                    lens = part["title"] + part["text"] if row == "flat" else part[row]
                    stats[row][0] += int((lens > 0).sum())
                    stats[row][1] += int(lens.sum())
                    if row == "flat":
                        empty += int((lens == 0).sum())
                        untitled += int((part["title"] == 0).sum())
                    out.write(lens.astype(np.uint32).tobytes())
        return {"lengths": {f: tuple(v) for f, v in stats.items()}, "empty": empty, "untitled": untitled}


def _read_run(run: Path, block: int = BLOCK):
    """(id bytes, document) of a sorted run, in its order, `block` ids at a time."""
    with open(run.with_suffix(".ends"), "rb") as ends_in, open(run.with_suffix(".docs"), "rb") as docs_in, \
            open(run.with_suffix(".blob"), "rb") as blob:
        start = 0
        while len(ends := np.fromfile(ends_in, dtype=np.int64, count=block)):
            raw = blob.read(int(ends[-1]) - start)
            keys, prev = [], 0
            for c in (ends - start).tolist():
                keys.append(raw[prev:c])
                prev = c
            start = int(ends[-1])
            yield from zip(keys, np.fromfile(docs_in, dtype=np.uint32, count=len(ends)).tolist())
