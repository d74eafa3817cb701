"""A BM25 setting's lists kept beside the index, so that a later search of the same setting maps them
instead of making them again.

A setting over raw postings makes, list by list as searches read them, each posting's impact (or
Lucene's y, or its document norm) and the maxima of the blocks holding it (`Searcher._fill_lists`,
`bounds.fill_lists`): at NQ size (2.68 M documents) the lists of 3,452 queries take ~0.5–1 s of a
~5.5 s `sounding search`. `save` writes what a setting has made to one file in the index's generation
folder (`settings/<key>.setting`); `load` maps it back (copy-on-write: lists made later go to this
process's memory, never to the file).

The file: a header page (JSON: what the setting is, the sections' places and their crc32s), which
lists are made (one byte per field and term), the block maxima, the made lists' ranges of postings,
and the impacts, where only those ranges are written (the rest is a hole: disk holds the lists made,
not the whole span). `load` checks every section's crc32 and that the header names the same setting
(the key is a digest of it, including the arithmetic's source), else the file is not used. Written
to a temp file, synced and renamed: a reader maps a whole file, old or new, and two writers each put
a whole file in place. A failure to write (a read-only index, a full disk) leaves the search as it
was: the cache is skipped, never an error.
"""
from __future__ import annotations

import contextlib
import functools
import json
import mmap
import os
import zlib
from pathlib import Path

import numpy as np

from ..io import digest, remove_stale

VERSION = 1
FOLDER = "settings"  # in the generation folder: a new generation starts with none
SUFFIX = ".setting"
PAGE = 4096
GAP = 1 << 10  # made lists closer than this many postings (a page of impacts) are written as one range


def setting_key(params: dict) -> str:
    """The file name stem for a setting described by `params` (JSON-able; `load` compares them too)."""
    return digest(json.dumps(params, sort_keys=True))[:32]


@functools.cache
def arithmetic_source() -> str:
    """A digest of the code that makes a setting's values (the norms, impacts and maxima): a cached
    setting made by other code is not used (its key differs)."""
    from . import bm25, bounds, searcher

    return digest(*(Path(m.__file__).read_text(encoding="utf-8") for m in (bm25, bounds, searcher)))


def made_ranges(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """(n, 2) int64 ranges covering lists starts[i]..ends[i]−1, sorted, lists less than GAP apart
    joined (what is between them is written too: zeros or values of lists not made, never read)."""
    keep = ends > starts
    starts, ends = starts[keep], ends[keep]
    if not len(starts):
        return np.zeros((0, 2), np.int64)
    order = np.argsort(starts, kind="stable")
    starts, ends = starts[order].astype(np.int64), np.maximum.accumulate(ends[order].astype(np.int64))
    new = np.ones(len(starts), np.bool_)
    new[1:] = starts[1:] > ends[:-1] + GAP
    first = np.flatnonzero(new)
    last = np.r_[first[1:], len(starts)] - 1
    return np.stack([starts[first], ends[last]], axis=1)


def _crc_ranges(impacts: np.ndarray, ranges: np.ndarray) -> int:
    crc = 0
    for a, z in ranges.tolist():
        crc = zlib.crc32(impacts[a:z], crc)
    return crc


def _pad(n: int) -> int:
    return -(-n // PAGE) * PAGE


def load(folder: Path, params: dict, n_lists: int, n_blocks: int, n_impacts: int):
    """(made, maxima, impacts) of the setting `params` from its file in `folder`, or None when there is
    none, or it does not match (another setting, other sizes, a crc32 that differs). `made` and
    `maxima` are this process's copies; `impacts` maps the file copy-on-write."""
    path = Path(folder) / FOLDER / (setting_key(params) + SUFFIX)
    try:
        with open(path, "rb") as f:
            head = json.loads(f.read(PAGE).rstrip(b"\0").decode("utf-8"))
            if (head.get("version") != VERSION or head.get("params") != params
                    or head.get("sizes") != [n_lists, n_blocks, n_impacts]):
                return None
            sec, crc = head["sections"], head["crc"]
            parts = []
            for name, dtype, n in (("made", np.bool_, n_lists), ("maxima", np.float32, n_blocks),
                                   ("ranges", np.int64, 2 * head["n_ranges"])):
                f.seek(sec[name])
                part = np.fromfile(f, dtype, n)
                if len(part) != n or zlib.crc32(part) != crc[name]:
                    return None
                parts.append(part)
            made, maxima, ranges = parts[0], parts[1], parts[2].reshape(-1, 2)
            if len(ranges) and (ranges.min() < 0 or ranges.max() > n_impacts):
                return None
            impacts = np.zeros(0, np.float32)
            if n_impacts:  # copy-on-write: lists made later stay in this process
                buf = mmap.mmap(f.fileno(), 4 * n_impacts, access=mmap.ACCESS_COPY, offset=sec["impacts"])
                if hasattr(mmap, "MADV_NOHUGEPAGE"):  # lists read here and there: 4 KiB pages (searcher._unwritten)
                    buf.madvise(mmap.MADV_NOHUGEPAGE)
                impacts = np.frombuffer(buf, np.float32)
                if _crc_ranges(impacts, ranges) != crc["impacts"]:
                    return None
    except (OSError, ValueError, KeyError, TypeError, UnicodeDecodeError):
        return None
    return made, maxima, impacts


def save(folder: Path, params: dict, made: np.ndarray, maxima: np.ndarray, impacts: np.ndarray,
         ranges: np.ndarray) -> Path | None:
    """Write the setting's file in `folder` (atomically): `made` lists, `maxima`, and the impacts of
    `ranges` (from `made_ranges`). Returns its path, or None when it could not be written."""
    folder = Path(folder) / FOLDER
    path = folder / (setting_key(params) + SUFFIX)
    made = np.ascontiguousarray(made, np.bool_)
    maxima = np.ascontiguousarray(maxima, np.float32)
    ranges = np.ascontiguousarray(ranges, np.int64)
    sections = {"made": PAGE}
    sections["maxima"] = sections["made"] + _pad(made.nbytes)
    sections["ranges"] = sections["maxima"] + _pad(maxima.nbytes)
    sections["impacts"] = sections["ranges"] + _pad(ranges.nbytes)
    head = {"version": VERSION, "params": params, "sizes": [len(made), len(maxima), len(impacts)],
            "n_ranges": len(ranges), "sections": sections,
            "crc": {"made": zlib.crc32(made), "maxima": zlib.crc32(maxima), "ranges": zlib.crc32(ranges),
                    "impacts": _crc_ranges(impacts, ranges)}}
    text = json.dumps(head, sort_keys=True).encode("utf-8")
    if len(text) > PAGE:
        return None
    tmp = folder / f".{path.name}.{os.getpid()}.tmp"
    try:
        folder.mkdir(exist_ok=True)
        remove_stale(folder, ".*.tmp")  # what a killed writer left
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            os.ftruncate(fd, sections["impacts"] + impacts.nbytes)  # a hole where no list was made
            for where, data in ((0, text), (sections["made"], made), (sections["maxima"], maxima),
                                (sections["ranges"], ranges)):
                _pwrite_all(fd, memoryview(data).cast("B"), where)
            for a, z in ranges.tolist():
                _pwrite_all(fd, memoryview(impacts[a:z]).cast("B"), sections["impacts"] + 4 * a)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink()
        return None
    _remove_other_code(folder, params.get("code"))
    return path


def _remove_other_code(folder: Path, code) -> None:
    """Remove the settings made by other code than this (their keys differ: no search of this code maps them)."""
    for other in folder.glob("*" + SUFFIX):
        with contextlib.suppress(OSError, ValueError, AttributeError):
            with open(other, "rb") as f:
                made_by = json.loads(f.read(PAGE).rstrip(b"\0").decode("utf-8"))["params"].get("code")
            if made_by != code:
                other.unlink()


def _pwrite_all(fd: int, data: memoryview, offset: int) -> None:
    while len(data):
        n = os.pwrite(fd, data, offset)
        data, offset = data[n:], offset + n
