"""Compact postings: each term's list in blocks of BLOCK postings, bit-packed with one width per block.

A block holds up to BLOCK postings of one term in one field (a term's last block may hold fewer).
Its documents are stored as gaps, `doc − previous doc − 1` (the first block of a term counts from
−1, a later one from the last document of the block before), and its term frequencies as `tf − 1`;
each part is packed little-endian into 32-bit words with the fewest bits that hold the block's
largest value, and starts on a word of its own. Per block the index keeps:

    blk_last   (n_blocks)      uint32  the block's last document (skipping: no decoding needed)
    blk_start  (n_blocks + 1)  int64   the block's first word in `packed`
    blk_width  (n_blocks, 2)   uint8   bit width of its document gaps and of its tf − 1
    packed     (words + 1)     uint32  the blocks, one after another, and one zero word (a decoder
                                       reads two words at a time)

Blocks follow the posting order (field by field, terms ascending), so term t of field f owns the
blocks first_blocks(offsets)[f, t] .. [f, t + 1] − 1, derived from the postings counts. A value of
width w at bit i·w of a part is read from the two words from word (i·w) >> 5 on, without
branches; a width of 0 stores nothing (every tf 1, or consecutive documents).
"""
from __future__ import annotations

import numba as nb
import numpy as np

from .format import write_npy_header

BLOCK_SHIFT = 7
BLOCK = 1 << BLOCK_SHIFT  # postings per block
PACKED_ARRAYS = ("blk_last", "blk_start", "blk_width", "packed")


def first_blocks(offsets: np.ndarray) -> np.ndarray:
    """(n_fields, n_terms + 1) int64: the first block of each term's list (the last column: the
    end of the field's blocks), from the postings `offsets`."""
    counts = -(-np.diff(offsets, axis=1) // BLOCK)  # blocks per term
    out = np.zeros(offsets.shape, np.int64)
    out[:, 1:] = np.cumsum(counts, axis=1)
    ends = out[:, -1].copy()
    out += np.concatenate([[0], np.cumsum(ends[:-1])])[:, None]  # fields follow one another
    return out


@nb.njit(nogil=True, cache=True, inline="always")
def _bits(v):
    n = 0
    while v:
        n += 1
        v >>= np.uint64(1)
    return n


@nb.njit(nogil=True, cache=True)
def _plan(lengths, docs, tfs, last, width, n_words):
    """Per block of the lists (lengths, one after another in docs/tfs): its last document, the bit
    widths of its gaps and tf − 1, and its words. Returns the number of blocks."""
    p = 0
    b = 0
    for t in range(lengths.shape[0]):
        prev = np.int64(-1)
        end = p + lengths[t]
        while p < end:
            n = min(BLOCK, end - p)
            gmax = np.uint64(0)
            tmax = np.uint64(0)
            for i in range(p, p + n):
                d = np.int64(docs[i])
                gmax |= np.uint64(d - prev - 1)
                prev = d
                tmax |= np.uint64(tfs[i] - 1)
            wd = _bits(gmax)  # the width of an OR is the width of the largest value
            wt = _bits(tmax)
            last[b] = np.uint32(prev)
            width[b, 0] = wd
            width[b, 1] = wt
            n_words[b] = ((n * wd + 31) >> 5) + ((n * wt + 31) >> 5)
            b += 1
            p += n
    return b


@nb.njit(nogil=True, cache=True, inline="always")
def _put(words, base, i, w, v):
    bit = i * w
    at = base + (bit >> 5)
    sh = np.uint64(bit & 31)
    x = np.uint64(v) << sh
    words[at] |= np.uint32(x & np.uint64(0xFFFFFFFF))
    if (bit & 31) + w > 32:
        words[at + 1] |= np.uint32(x >> np.uint64(32))


@nb.njit(nogil=True, cache=True)
def _fill(lengths, docs, tfs, width, starts, words):
    """Pack the blocks planned by _plan into `words` (zeroed), block b from word starts[b]."""
    p = 0
    b = 0
    for t in range(lengths.shape[0]):
        prev = np.int64(-1)
        end = p + lengths[t]
        while p < end:
            n = min(BLOCK, end - p)
            wd = np.int64(width[b, 0])
            wt = np.int64(width[b, 1])
            base = starts[b]
            tbase = base + ((n * wd + 31) >> 5)
            for i in range(n):
                d = np.int64(docs[p + i])
                if wd:
                    _put(words, base, i, wd, d - prev - 1)
                if wt:
                    _put(words, tbase, i, wt, np.int64(tfs[p + i]) - 1)
                prev = d
            b += 1
            p += n


def encode(lengths: np.ndarray, docs: np.ndarray, tfs: np.ndarray):
    """Pack consecutive posting lists (`lengths[t]` postings each, in docs/tfs): returns blk_last,
    blk_width, the number of words of each block, and the words."""
    lengths = np.ascontiguousarray(lengths, dtype=np.int64)
    n_blocks = int((-(-lengths // BLOCK)).sum())
    last = np.empty(n_blocks, np.uint32)
    width = np.empty((n_blocks, 2), np.uint8)
    n_words = np.empty(n_blocks, np.int64)
    _plan(lengths, docs, tfs, last, width, n_words)
    starts = np.zeros(n_blocks + 1, np.int64)
    np.cumsum(n_words, out=starts[1:])
    words = np.zeros(int(starts[-1]) + 1, np.uint32)  # + 1: _put may touch the next word with nothing in it
    _fill(lengths, docs, tfs, width, starts, words)
    return last, width, n_words, words[:-1]


@nb.njit(nogil=True, cache=True, inline="always")
def get_bits(words, base, i, w, mask):
    bit = i * w
    at = base + (bit >> 5)
    x = np.uint64(words[at]) | (np.uint64(words[at + 1]) << np.uint64(32))
    return (x >> np.uint64(bit & 31)) & mask


_U1 = np.uint64(1)
_U5 = np.uint64(5)
_U31 = np.uint64(31)
_U32 = np.uint64(32)


@nb.njit(nogil=True, cache=True, inline="always")
def decode_block(words, blk_start, blk_width, b, n, prev, dbuf, tbuf):
    """Block b (n postings; `prev`: the document before it in its list, −1 for a first block) into
    dbuf[:n] (documents) and tbuf[:n] (term frequencies). A bit reader: a 64-bit buffer topped up a
    word at a time (unsigned throughout: ~1.5 ns a posting, 2-3× reading each value from its place)."""
    base = np.uint64(blk_start[b])
    wd = np.uint64(blk_width[b, 0])
    wt = np.uint64(blk_width[b, 1])
    nu = np.uint64(n)
    md = (_U1 << wd) - _U1
    d = np.uint64(prev + 1)
    buf = np.uint64(0)
    avail = np.uint64(0)
    at = base
    for i in range(nu):
        if avail < wd:
            buf |= np.uint64(words[at]) << avail
            at += _U1
            avail += _U32
        d += buf & md
        buf >>= wd
        avail -= wd
        dbuf[i] = np.uint32(d)
        d += _U1
    if wt == 0:
        for i in range(nu):
            tbuf[i] = 1
        return
    mt = (_U1 << wt) - _U1
    at = base + ((nu * wd + _U31) >> _U5)
    buf = np.uint64(0)
    avail = np.uint64(0)
    for i in range(nu):
        if avail < wt:
            buf |= np.uint64(words[at]) << avail
            at += _U1
            avail += _U32
        tbuf[i] = np.uint32((buf & mt) + _U1)
        buf >>= wt
        avail -= wt


@nb.njit(nogil=True, cache=True, inline="always")
def block_tf(words, blk_start, blk_width, b, n, i):
    """The term frequency of posting i of block b (n postings), without decoding the block."""
    wd = np.int64(blk_width[b, 0])
    wt = np.int64(blk_width[b, 1])
    mt = (np.uint64(1) << np.uint64(wt)) - np.uint64(1)
    return np.uint32(get_bits(words, blk_start[b] + ((n * wd + 31) >> 5), i, wt, mt) + np.uint64(1))


@nb.njit(nogil=True, cache=True)
def decode_list(tblk, blk_last, blk_start, blk_width, words, f, t, length, dbuf, tbuf):
    """Term t of field f (`length` postings) into dbuf[:length] and tbuf[:length]."""
    b0 = tblk[f, t]
    prev = np.int64(-1)
    p = 0
    for b in range(b0, tblk[f, t + 1]):
        n = min(BLOCK, length - p)
        decode_block(words, blk_start, blk_width, b, n, prev, dbuf[p:], tbuf[p:])
        prev = np.int64(blk_last[b])
        p += n
    return length


def _npy_header(dtype: np.dtype, shape: tuple, size: int = 128) -> bytes:
    """A .npy (1.0) header of exactly `size` bytes, so one written before the data can be rewritten in place."""
    import struct

    text = repr({"descr": np.lib.format.dtype_to_descr(np.dtype(dtype)), "fortran_order": False, "shape": shape})
    body = text.encode("latin1")
    pad = size - 10 - len(body) - 1
    if pad < 0:
        raise ValueError("shape too long for a .npy header")
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", size - 10) + body + b" " * pad + b"\n"


class PackedWriter:
    """Writes packed postings into `folder` list by list, as they come (term ranges of one field after
    another, in posting order): `packed.npy` streams to disk, and so do the per-block arrays (through
    `*.part` files turned into their .npy files by `close`), so memory holds one call's blocks. The
    bytes do not depend on how the lists are cut into calls."""

    _PARTS = (("blk_last", np.uint32), ("blk_width", np.uint8), ("n_words", np.int64))

    def __init__(self, folder):
        from pathlib import Path

        self.folder = Path(folder)
        self._out = open(self.folder / "packed.npy", "wb")
        self._out.write(_npy_header(np.uint32, (0,)))
        self._words = 0
        self._blocks = 0
        self._parts = {name: open(self.folder / f"{name}.part", "wb") for name, _ in self._PARTS}

    def add(self, lengths: np.ndarray, docs: np.ndarray, tfs: np.ndarray) -> None:
        last, width, n_words, words = encode(lengths, docs, tfs)
        self._out.write(words.tobytes())
        self._words += len(words)
        self._blocks += len(last)
        for name, values in (("blk_last", last), ("blk_width", width), ("n_words", n_words)):
            self._parts[name].write(values.tobytes())

    def close(self) -> None:
        self._out.write(np.zeros(1, np.uint32).tobytes())  # the decoder's spare word
        self._out.seek(0)
        self._out.write(_npy_header(np.uint32, (self._words + 1,)))
        self._out.close()
        for f in self._parts.values():
            f.close()
        n = self._blocks
        step = 1 << 20
        with open(self.folder / "blk_last.npy", "wb") as out, open(self.folder / "blk_last.part", "rb") as part:
            write_npy_header(out, np.uint32, (n,))
            while chunk := part.read(4 * step):
                out.write(chunk)
        with open(self.folder / "blk_width.npy", "wb") as out, open(self.folder / "blk_width.part", "rb") as part:
            write_npy_header(out, np.uint8, (n, 2))
            while chunk := part.read(2 * step):
                out.write(chunk)
        with open(self.folder / "blk_start.npy", "wb") as out, open(self.folder / "n_words.part", "rb") as part:
            write_npy_header(out, np.int64, (n + 1,))
            start = np.zeros(1, np.int64)
            out.write(start.tobytes())
            while len(n_words := np.fromfile(part, dtype=np.int64, count=step)):
                ends = start[-1] + np.cumsum(n_words)
                out.write(ends.tobytes())
                start = ends[-1:]
        self._remove_parts()

    def abort(self) -> None:
        self._out.close()
        for f in self._parts.values():
            f.close()
        self._remove_parts()

    def _remove_parts(self) -> None:
        for name, _ in self._PARTS:
            (self.folder / f"{name}.part").unlink(missing_ok=True)
