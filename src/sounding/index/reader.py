"""Open a built index: validate the manifest, check file checksums, map the arrays from disk."""
from __future__ import annotations

import contextlib
import json
from bisect import bisect_left
from collections.abc import Mapping
from functools import cached_property
from pathlib import Path

import numpy as np

from ..errors import SoundingError
from ..io import atomic_write
from .docids import DocIds
from .format import TEXT_FILES, Manifest, array_names, crc32_file, live_generation, verified_stamp
from .packed import first_blocks




class Index:
    """A read-only index. Arrays are memory-mapped, so opening costs little beyond the checks.

    `verify`: True checks every file's crc32 against the manifest the first time a generation is
    opened, then again only when a file's size or modification time changed (the stamp
    `.verified-<generation>` beside it, written where the folder is writable); "always" reads every byte every time
    (`sounding index INDEX --check`); False checks nothing."""

    def __init__(self, path: str | Path, *, verify: bool | str = True):
        self.root = Path(path)
        self.folder = live_generation(self.root)
        self.manifest = Manifest.from_json((self.folder / "manifest.json").read_text(), self.folder)
        array_list = array_names(self.manifest)
        names = [f"{a}.npy" for a in array_list] + list(TEXT_FILES)
        for name in names:
            if not (self.folder / name).is_file():
                raise SoundingError(f"{self.root}: damaged index: {name} is missing")
        if verify:
            self._verify(names, always=verify == "always")
        try:
            arrays = {a: np.load(self.folder / f"{a}.npy", mmap_mode="r") for a in array_list}
        except ValueError as e:
            raise SoundingError(f"{self.root}: damaged index: {e}") from None
        self.postings = self.manifest.postings  # "raw": docs and tfs; "packed": the blk_* arrays and packed
        self.offsets, self.docs, self.tfs = arrays["offsets"], arrays.get("docs"), arrays.get("tfs")
        self.blk_last, self.blk_start = arrays.get("blk_last"), arrays.get("blk_start")
        self.blk_width, self.packed = arrays.get("blk_width"), arrays.get("packed")
        self.lengths, self.docid_rank = arrays["lengths"], arrays["docid_rank"]
        self.pos_offsets, self.positions = arrays.get("pos_offsets"), arrays.get("positions")
        m = self.manifest
        if self.offsets.shape != (len(m.fields), m.n_terms + 1) or self.lengths.shape != (len(m.fields), m.n_docs):
            raise SoundingError(f"{self.root}: damaged index: array shapes disagree with the manifest")
        if self.postings == "packed":
            blocks = int(self.first_blocks[-1, -1])
            if (self.blk_last.shape != (blocks,) or self.blk_start.shape != (blocks + 1,)
                    or self.blk_width.shape != (blocks, 2) or self.packed.shape != (int(self.blk_start[-1]) + 1,)):
                raise SoundingError(f"{self.root}: damaged index: packed postings disagree with the manifest")
            # what the decoder trusts (cheap beside a search: ~30 ms at 2.7 M documents)
            if blocks and (self.blk_width.max() > 32 or self.blk_start[0] != 0 or (np.diff(self.blk_start) < 0).any()):
                raise SoundingError(f"{self.root}: damaged index: packed block table out of range")

    def _verify(self, names: list[str], *, always: bool) -> None:
        state = json.dumps({n: [(st := (self.folder / n).stat()).st_size, st.st_mtime_ns] for n in sorted(names)})
        stamp = self.root / verified_stamp(self.folder.name)
        try:
            if not always and stamp.read_text() == state:
                return
        except OSError:
            pass
        for name in names:
            if self.manifest.checksums.get(name) != crc32_file(self.folder / name):
                raise SoundingError(f"{self.root}: damaged index: checksum of {name} does not match its manifest")
        with contextlib.suppress(SoundingError):  # a read-only index is checked in full each time
            atomic_write(stamp, state)

    @cached_property
    def first_blocks(self) -> np.ndarray:
        """Packed postings: (n_fields, n_terms + 1) int64, the first block of each term's list."""
        return first_blocks(np.asarray(self.offsets))

    @property
    def analyzer(self) -> str:
        return self.manifest.analyzer

    @property
    def n_docs(self) -> int:
        return self.manifest.n_docs

    def field_id(self, name: str) -> int:
        try:
            return self.manifest.fields.index(name)
        except ValueError:
            raise SoundingError(f"index has no field {name!r} (fields: {', '.join(self.manifest.fields)})") from None

    @cached_property
    def docids(self) -> DocIds:
        """Document ids in internal order, decoded on access (a list of strings costs ~70 B an id)."""
        return DocIds.read(self.folder / "docids.txt")

    @cached_property
    def terms(self) -> list[str]:
        text = (self.folder / "terms.txt").read_text(encoding="utf-8")
        return text.split("\n") if text else []

    @cached_property
    def term_ids(self) -> TermIds:
        return TermIds(self.terms)

    def doc_freq(self, field: int) -> np.ndarray:
        """Documents containing each term in `field` (int64, one per term)."""
        return np.diff(self.offsets[field])

    def size_bytes(self) -> int:
        return sum(p.stat().st_size for p in self.folder.iterdir())


class TermIds(Mapping):
    """Term → id over the sorted vocabulary (terms.txt, id = line number), by binary search: opening an
    index builds no dict of every term (0.2 s and ~100 MB at NQ size) when a search looks up a few."""

    def __init__(self, terms: list[str]):
        self._terms = terms

    def __getitem__(self, term: str) -> int:
        i = bisect_left(self._terms, term)
        if i < len(self._terms) and self._terms[i] == term:
            return i
        raise KeyError(term)

    def __iter__(self):
        return iter(self._terms)

    def __len__(self) -> int:
        return len(self._terms)
