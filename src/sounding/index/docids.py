"""The collection's document ids, read from docids.txt and decoded only when asked for.

A list of 2.68 M Python strings costs ~185 MiB (NQ size, synthetic, measured); search only needs
internal numbers, and a run file only the ids of its hits. So the ids stay as the file's UTF-8
bytes plus one offset per line (~12 bytes an id) and are decoded one by one on access.
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np


class DocIds(Sequence):
    """Read-only sequence of document ids (str), in internal document order."""

    def __init__(self, blob: bytes):
        self._blob = blob
        newlines = np.flatnonzero(np.frombuffer(blob, dtype=np.uint8) == 0x0A)
        dtype = np.uint32 if len(blob) < 2**32 else np.int64
        # line i spans starts[i] .. starts[i+1]-1 (the newline excluded); the last line has none
        self._starts = np.concatenate(([0], newlines + 1, [len(blob) + 1])).astype(dtype)
        self._n = len(newlines) + 1 if blob else 0

    @classmethod
    def read(cls, path: str | Path) -> "DocIds":
        return cls(Path(path).read_bytes())

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(self._n))]
        i = int(i)
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError(f"document {i} out of range (0..{self._n - 1})")
        return self._blob[int(self._starts[i]) : int(self._starts[i + 1]) - 1].decode("utf-8")

    def __iter__(self):
        return iter(self._blob.decode("utf-8").split("\n") if self._n else ())

    def __eq__(self, other) -> bool:
        return isinstance(other, Sequence) and len(other) == self._n and all(a == b for a, b in zip(self, other))

    __hash__ = None
