"""MeCab's compiled dictionaries (sys.dic, unk.dic, char.bin, matrix.bin) read as MeCab reads them,
for the Japanese (IPADIC, `kuromoji.py`) and Korean (mecab-ko-dic, `nori.py`) tokenizers."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np

BYTES = np.dtype(np.uint8)  # a text's UTF-8 array (the dtype made once)


class _DictionaryFile:
    """One of MeCab's compiled dictionary files (sys.dic, unk.dic), mapped read-only: a 72-byte
    header (magic, version, type, entries, left and right id counts, then the byte sizes of the
    double array, the tokens and the features; the charset), the double array (int32 base and
    check per unit), the tokens (16 bytes: left id, right id, part-of-speech id, word cost,
    feature offset, compound) and the NUL-terminated feature strings."""

    _TOKEN = np.dtype([("lid", "<u2"), ("rid", "<u2"), ("pos", "<u2"), ("cost", "<i2"),
                       ("feature", "<u4"), ("compound", "<u4")])

    def __init__(self, path: Path) -> None:
        raw = np.memmap(path, dtype=np.uint8, mode="r")
        header = np.frombuffer(raw, dtype="<u4", count=10)
        dsize, tsize, fsize = (int(x) for x in header[6:9])
        if header[1] != 102 or bytes(raw[40:72]).rstrip(b"\0").lower().replace(b"-", b"") != b"utf8":
            raise ValueError(f"{path}: not a MeCab 0.996 UTF-8 dictionary")
        self.da = np.frombuffer(raw, dtype="<i4", count=dsize // 4, offset=72).reshape(-1, 2)
        # base, check as Python ints, read in the machine's byte order as MeCab reads the file
        self._units = memoryview(self.da.reshape(-1)).cast("B").cast("i")
        tokens = np.frombuffer(raw, dtype=self._TOKEN, count=tsize // 16, offset=72 + dsize)
        self.lids, self.rids, self.costs = (tokens[f] for f in ("lid", "rid", "cost"))
        self.feature_at = tokens["feature"]
        self.feature_texts = np.frombuffer(raw, dtype=np.uint8, count=fsize, offset=72 + dsize + tsize)

    def exact(self, key: bytes) -> int:
        """The value a key maps to (Darts' exactMatchSearch), or -1."""
        units, size = self._units, len(self.da)
        b = units[0]
        for c in key:
            q = b + c + 1
            if q >= size or units[2 * q + 1] != b:
                return -1
            b = units[2 * q]
        v = units[2 * b]
        return -v - 1 if units[2 * b + 1] == b and v < 0 else -1

    def feature(self, token: int) -> str:
        start = int(self.feature_at[token])
        window = 256
        while True:
            chunk = self.feature_texts[start:start + window].tobytes()
            end = chunk.find(b"\0")
            if end >= 0 or start + window >= len(self.feature_texts):
                return chunk[:end if end >= 0 else len(chunk)].decode("utf-8")
            window *= 4


class Dictionary:
    """A MeCab dictionary read from its compiled files, as MeCab's tokenizer reads them: sys.dic,
    unk.dic (one key per character class), char.bin (the class names, then char.def's info for
    each BMP code point), matrix.bin (two uint16 sizes, then int16 cost[right id of the left token
    + lsize * left id of the right token]). Read-only: one per dictionary and process."""

    def __init__(self, dicdir: str) -> None:
        folder = Path(dicdir)
        self.sys = _DictionaryFile(folder / "sys.dic")
        self.unk = _DictionaryFile(folder / "unk.dic")
        raw = np.memmap(folder / "char.bin", dtype=np.uint8, mode="r")
        classes = int.from_bytes(bytes(raw[:4]), "little")
        names = [bytes(raw[4 + 32 * i:36 + 32 * i]).rstrip(b"\0") for i in range(classes)]
        self.class_names = [name.decode("ascii") for name in names]  # char.def's classes, by id
        self.char_info = np.frombuffer(raw, dtype="<u4", count=0xFFFF, offset=4 + 32 * classes)
        self.unk_start = np.zeros(classes, dtype=np.int64)
        self.unk_size = np.zeros(classes, dtype=np.int64)
        for i, name in enumerate(names):
            value = self.unk.exact(name)
            if value >= 0:
                self.unk_start[i], self.unk_size[i] = value >> 8, value & 0xFF
        raw = np.memmap(folder / "matrix.bin", dtype=np.uint8, mode="r")
        self.lsize = int(raw[0]) | int(raw[1]) << 8
        self.matrix = np.frombuffer(raw, dtype="<i2", offset=4)
        self._features: dict[tuple[int, int], str] = {}

    def feature(self, stat: int, token: int) -> str:
        """The features of a node's token (`stat` 1: of unk.dic)."""
        key = (stat, token)
        found = self._features.get(key)
        if found is None:
            found = self._features[key] = (self.unk if stat == 1 else self.sys).feature(token)
        return found


@lru_cache(maxsize=None)
def dictionary(dicdir: str) -> Dictionary:
    return Dictionary(dicdir)
