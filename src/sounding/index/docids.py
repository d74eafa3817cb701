"""The collection's document ids, read from docids.txt and decoded only when asked for.

A list of 2.68 M Python strings costs ~185 MiB (NQ size, synthetic, measured); search only needs
internal numbers, and a run file only the ids of its hits. So the ids stay as the file's UTF-8
bytes plus one offset per line (~12 bytes an id) and are decoded one by one on access. The file itself
is read on first use: a search hands its results the ids unread, and `sounding search` reads them in
its run writer's thread (~0.1 s at NQ size) while the first queries are searched.
"""
from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np


class DocIds(Sequence):
    """Read-only sequence of document ids (str), in internal document order."""

    def __init__(self, blob: bytes | None = None, *, path: str | Path | None = None):
        """The ids of `blob` (docids.txt's bytes), or of the file at `path`, read when first needed."""
        self._path, self._lock, self._loaded = path, threading.Lock(), None
        if blob is not None:
            self._loaded = self._parse(blob)

    @staticmethod
    def _parse(blob: bytes) -> tuple[bytes, np.ndarray, int]:
        newlines = np.flatnonzero(np.frombuffer(blob, dtype=np.uint8) == 0x0A)
        dtype = np.uint32 if len(blob) < 2**32 else np.int64
        # line i spans starts[i] .. starts[i+1]-1 (the newline excluded); the last line has none
        starts = np.concatenate(([0], newlines + 1, [len(blob) + 1])).astype(dtype)
        return blob, starts, (len(newlines) + 1 if blob else 0)

    def _load(self) -> tuple[bytes, np.ndarray, int]:
        loaded = self._loaded
        if loaded is None:
            with self._lock:  # one thread reads the file; another asking meanwhile waits for it
                if self._loaded is None:
                    self._loaded = self._parse(Path(self._path).read_bytes())
                loaded = self._loaded
        return loaded

    @property
    def blob(self) -> bytes:
        """docids.txt's bytes: id i is blob[starts[i] : starts[i + 1] − 1] (compiled readers take these)."""
        return self._load()[0]

    @property
    def starts(self) -> np.ndarray:
        return self._load()[1]

    @property
    def _n(self) -> int:
        return self._load()[2]

    @classmethod
    def read(cls, path: str | Path) -> "DocIds":
        """The ids of docids.txt at `path`, read on first use (an unreadable file fails then, naming it)."""
        return cls(path=path)

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(self._n))]
        i = int(i)
        if i < 0:
            i += self._n
        blob, starts, n = self._load()
        if not 0 <= i < n:
            raise IndexError(f"document {i} out of range (0..{n - 1})")
        return blob[int(starts[i]) : int(starts[i + 1]) - 1].decode("utf-8")

    def __iter__(self):
        blob, _, n = self._load()
        return iter(blob.decode("utf-8").split("\n") if n else ())

    def __eq__(self, other) -> bool:
        return isinstance(other, Sequence) and len(other) == self._n and all(a == b for a, b in zip(self, other))

    __hash__ = None
