"""MeCab's compiled dictionaries read as MeCab reads them (sys.dic, unk.dic, char.bin, matrix.bin),
for the Japanese (IPADIC) and Korean (mecab-ko-dic) analyzers; and MeCab's lattice for a text,
searched as Nori searches it: the dictionary's arcs, the connection-cost matrix, and a Viterbi
pass (numba) with the tokenizer's own penalties."""
from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from types import FunctionType
from typing import Callable

import numpy as np



def _viterbi(starts, ends, lids, rids, costs, n, prev_rid, next_lid, matrix, lsize):
    """The cheapest path over a lattice of tokens sorted by start (byte offsets; `ends` already
    moved past any whitespace), from a token with right id `prev_rid` at 0 to one with left id
    `next_lid` (-1: none) at `n`: (its cost, its last token or -1, each token's predecessor)."""
    inf = 1 << 60
    count = len(starts)
    best = np.full(count, inf, dtype=np.int64)
    back = np.full(count, -1, dtype=np.int64)
    for i in range(count):
        base = lids[i] * lsize
        if starts[i] == 0:
            low, b = matrix[base + prev_rid], -1
        else:
            low, b = inf, -1
            for j in range(i):
                if ends[j] == starts[i] and best[j] < inf:
                    c = best[j] + matrix[base + rids[j]]
                    if c < low:
                        low, b = c, j
            if b < 0:
                continue
        best[i] = low + costs[i]
        back[i] = b
    low, last = inf, -1
    for j in range(count):
        if ends[j] == n and best[j] < inf:
            c = best[j] + (matrix[next_lid * lsize + rids[j]] if next_lid >= 0 else 0)
            if c < low:
                low, last = c, j
    return low, last, back


def _mecab_nodes(data, da, lids, rids, costs, char_info, unk_start, unk_size, ulids, urids, ucosts,
                 space, max_group):
    """MeCab 0.996's lattice for the UTF-8 bytes `data` (`_fill_nodes`), in an array sized for it:
    one of 16 rows a byte first, four times as many while that is too few. (An array that a loop
    may replace, as growing it in place would, makes numba's code for every write in that loop
    many times slower.)"""
    cap = 16 * len(data) + 64
    while True:
        out = np.empty((cap, 7), dtype=np.int64)
        count = _fill_nodes(out, data, da, lids, rids, costs, char_info, unk_start, unk_size, ulids, urids,
                            ucosts, space, max_group)
        if count >= 0:
            return out[:count]
        cap *= 4


def common_prefixes(da, data, begin, ends, values):
    """Darts' commonPrefixSearch over a double array (`da`: base, check) from byte `begin` of the
    UTF-8 bytes `data`: the dictionary's keys that start there, shortest first, as their end byte
    (`ends`) and value (`values`: first token << 8 | token count); returns how many."""
    n = len(data)
    k = 0
    b, i = da[0, 0], begin
    while True:
        v = da[b, 0]
        if b == da[b, 1] and v < 0:
            ends[k], values[k] = i, -v - 1
            k += 1
        if i == n:
            break
        q = b + int(data[i]) + 1
        if q >= len(da) or da[q, 1] != b:
            break
        b = da[q, 0]
        i += 1
    return k


def _put_node(out, w, start, end, lid, rid, cost, stat, token):
    """Row `w` of a lattice's rows (`_fill_nodes`)."""
    out[w, 0], out[w, 1], out[w, 2], out[w, 3] = start, end, lid, rid
    out[w, 4], out[w, 5], out[w, 6] = cost, stat, token


def _fill_nodes(out, data, da, lids, rids, costs, char_info, unk_start, unk_size, ulids, urids, ucosts,
                space, max_group):
    """MeCab 0.996's lattice for the UTF-8 bytes `data`, as its all-morphemes output (`-a`) lists it:
    rows start byte, end byte, left id, right id, word cost, stat (1: unknown word), token index (in
    sys.dic, or in unk.dic for an unknown word). Tokenizer::lookup at each position a node ends
    (whitespace skipped first): the dictionary's words by common-prefix search over its double
    array (`da`: base, check), then, where none is found or the character's class invokes them,
    unknown words from char.def's class (`char_info`: type bits 0-17, default class 18-25, length
    26-29, group 30, invoke 31): the run of the class (if it is no longer than `max_group`) and its
    first 1 to `length` characters. MeCab puts each new node first in its position's list. The
    rows go into `out`; returns their count, or -1 where `out` is too short."""
    n = len(data)
    info_at = np.zeros(n + 1, dtype=np.int64)  # per character start: char.def's info, byte length
    len_at = np.ones(n + 1, dtype=np.int64)
    p = 0
    while p < n:  # utf8_to_ucs2: characters beyond the BMP (and broken bytes) read as code 0
        c, left, code, size = int(data[p]), n - p, 0, 1
        if c < 0x80:
            code = c
        elif left >= 2 and (c & 0xE0) == 0xC0:
            code, size = ((c & 0x1F) << 6) | (int(data[p + 1]) & 0x3F), 2
        elif left >= 3 and (c & 0xF0) == 0xE0:
            code, size = ((c & 0x0F) << 12) | ((int(data[p + 1]) & 0x3F) << 6) | (int(data[p + 2]) & 0x3F), 3
        elif left >= 4 and (c & 0xF8) == 0xF0:
            size = 4
        elif left >= 5 and (c & 0xFC) == 0xF8:
            size = 5
        elif left >= 6 and (c & 0xFE) == 0xFC:
            size = 6
        info_at[p], len_at[p] = char_info[min(code, len(char_info) - 1)], size
        p += size
    info_at[n] = char_info[0]  # MeCab reads the string's terminating NUL there
    reached = np.zeros(n + 1, dtype=np.bool_)
    reached[0] = True
    cap = len(out)
    count = 0  # rows before this position's
    ends = np.empty(17, dtype=np.int64)  # a position's unknown words' ends, in order (length <= 15)
    word_ends = np.empty(n + 1, dtype=np.int64)  # ... and its dictionary words' ends and values
    values = np.empty(n + 1, dtype=np.int64)
    for pos in range(n):
        if not reached[pos]:
            continue
        begin2, kind = pos, space  # skip whitespace (seekToOtherType)
        while begin2 < n and kind & info_at[begin2] & 0x3FFFF:
            kind = info_at[begin2]
            begin2 += len_at[begin2]
        if begin2 == n:  # trailing whitespace: MeCab makes a node past the end, which no path takes
            continue
        info = info_at[begin2]
        k = 0
        for m in range(common_prefixes(da, data, begin2, word_ends, values)):
            first, found = values[m] >> 8, values[m] & 0xFF
            for t in range(first, first + found):
                if count + k == cap:
                    return -1
                _put_node(out, count + k, begin2, word_ends[m], lids[t], rids[t], costs[t], 0, t)
                k += 1
        known = k > 0
        if not known or (info >> 31) & 1:
            kind, length, group, ctype = (info >> 18) & 0xFF, (info >> 26) & 0xF, (info >> 30) & 1, info & 0x3FFFF
            made = 0
            begin3 = begin2 + len_at[begin2]
            group_end = -1
            if group:
                q, last, run = begin3, info, 0
                while q < n and last & info_at[q] & 0x3FFFF:
                    last = info_at[q]
                    q += len_at[q]
                    run += 1
                if run <= max_group:
                    ends[made] = q
                    made += 1
                group_end = q
            for _ in range(length):
                if begin3 > n:
                    break
                if begin3 == group_end:
                    continue
                ends[made] = begin3
                made += 1
                if not ctype & info_at[begin3] & 0x3FFFF:
                    break
                begin3 += len_at[begin3]
            if not known and not made:
                ends[made] = begin3
                made += 1
            for e in range(made):
                for u in range(unk_start[kind], unk_start[kind] + unk_size[kind]):
                    if count + k == cap:
                        return -1
                    _put_node(out, count + k, begin2, ends[e], ulids[u], urids[u], ucosts[u], 1, u)
                    k += 1
        for j in range(k // 2):  # made in order, listed newest first
            a, b = count + j, count + k - 1 - j
            for c in range(7):
                out[a, c], out[b, c] = out[b, c], out[a, c]
        for j in range(count, count + k):
            if out[j, 1] <= n:
                reached[out[j, 1]] = True
        count += k
    return count


def _keep(arcs, penalties, barred, gap_from, gap_to):
    """The columns `Lattice._lattice` gives for the tokens not `barred`: start, end (moved past
    the whitespace run that starts there, `gap_from` → `gap_to`), left id, right id, word cost,
    penalty, whether it starts after whitespace, and its index in `arcs`."""
    count = 0
    for i in range(len(arcs)):
        count += not barred[i]
    starts = np.empty(count, dtype=np.int64)
    ends = np.empty(count, dtype=np.int64)
    lids = np.empty(count, dtype=np.int64)
    rids = np.empty(count, dtype=np.int64)
    wcosts = np.empty(count, dtype=np.int64)
    kept_penalties = np.empty(count, dtype=np.int64)
    after_gap = np.zeros(count, dtype=np.bool_)
    index = np.empty(count, dtype=np.int64)
    k = 0
    for i in range(len(arcs)):
        if barred[i]:
            continue
        start, end = arcs[i, 0], arcs[i, 1]
        for g in range(len(gap_from)):
            if end == gap_from[g]:
                end = gap_to[g]
            if start == gap_to[g]:
                after_gap[k] = True
        starts[k], ends[k], lids[k], rids[k], wcosts[k] = start, end, arcs[i, 2], arcs[i, 3], arcs[i, 4]
        kept_penalties[k], index[k] = penalties[i], i
        k += 1
    return starts, ends, lids, rids, wcosts, kept_penalties, after_gap, index


@lru_cache(maxsize=None)
def compiled_prefixes():
    """`common_prefixes` compiled (numba, cached on disk), for the lattice builders here and in kuromoji.py."""
    import numba

    return numba.njit(cache=True, nogil=True)(common_prefixes)


@lru_cache(maxsize=None)
def compiled() -> tuple:
    """`_viterbi`, `_mecab_nodes` and `_keep` compiled (numba, cached on disk), and run once on a
    one-token lattice so that later calls find them loaded. `_mecab_nodes` is compiled from its
    code with `_fill_nodes` bound to its compiled form, so that the module's functions stay plain
    Python."""
    import numba

    jit = numba.njit(cache=True, nogil=True)
    viterbi, keep = jit(_viterbi), jit(_keep)
    fill = jit(FunctionType(_fill_nodes.__code__, dict(globals(), common_prefixes=compiled_prefixes(),
                                                              _put_node=jit(_put_node)), "_fill_nodes"))
    nodes = jit(FunctionType(_mecab_nodes.__code__, dict(globals(), _fill_nodes=fill), "_mecab_nodes"))
    # arguments typed as in `Lattice` (the mapped and byte-backed ones read-only)
    da, char_info = np.frombuffer(bytes(8), dtype="<i4").reshape(-1, 2), np.frombuffer(bytes(4), dtype="<u4")
    token = np.frombuffer(bytes(32), dtype=_DictionaryFile._TOKEN)  # ids and costs: fields of the mapped tokens
    i64, u16, i16 = np.zeros(1, dtype=np.int64), token["lid"], token["cost"]
    nodes(np.frombuffer(b"A", dtype=np.uint8), da, u16, u16, i16, char_info, i64, i64, u16, u16, i16, 0, 24)
    arcs = np.array([[0, 1, 0, 0, 0, 1, 0]], dtype=np.int64)
    starts, ends, lids, rids, wcosts, penalties, _, _ = keep(arcs, np.zeros(1, dtype=np.int64),
                                                             np.zeros(1, dtype=np.bool_), _NO_GAPS, _NO_GAPS)
    viterbi(starts, ends, lids, rids, wcosts + penalties, 1, 0, -1, np.frombuffer(bytes(2), dtype="<i2"), 1)
    return viterbi, nodes, keep


_NO_GAPS = np.zeros(0, dtype=np.int64)
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
        self.space = int(self.char_info[0x20])  # the class MeCab skips between tokens
        raw = np.memmap(folder / "matrix.bin", dtype=np.uint8, mode="r")
        self.lsize = int(raw[0]) | int(raw[1]) << 8
        self.matrix = np.frombuffer(raw, dtype="<i2", offset=4)
        self._features: dict[tuple[int, int], str] = {}
        self.unknown_features: dict[str, list[int]] = {}  # features → the unk.dic entries that have them
        for t in range(len(self.unk.lids)):
            self.unknown_features.setdefault(self.unk.feature(t), []).append(t)

    def char_class(self, c: str) -> int:
        """char.def's default class of a character, read as MeCab reads it (beyond the BMP: code 0)."""
        code = ord(c)
        return (int(self.char_info[min(code if code < 0x10000 else 0, len(self.char_info) - 1)]) >> 18) & 0xFF

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


MAX_GROUPING_SIZE = 24  # MeCab's default (neither dicrc sets max-grouping-size)


class Lattice:
    """A MeCab dictionary's lattice for one stretch of text, and a Viterbi search over it.

    Nori scores its lattice as MeCab does (word cost plus connection cost, both from the same
    dictionary files) but adds a penalty that MeCab has no option for. Where it applies, the
    stretch it concerns is searched again here: the stretch's lattice is built from
    the dictionary files as MeCab builds it (`_mecab_nodes`: the same nodes in the order its
    all-morphemes output, `-a`, lists them; tests/test_languages.py compares the two), and the path
    is chosen with the penalties added (`score(text, tokens)` gives one per token, with
    `after_space_only` paid only by tokens that follow whitespace, and which tokens to leave out,
    or None). The lattice building and the search are compiled (numba) and
    loaded when the first analyzer is made, so that one pays their start-up (about half a second
    with numba's on-disk cache, a few seconds without), not its first texts. Node lines read
    `surface\tleft-id right-id cost\tfeatures`, as the analyzers' MeCab node format gives them.
    """

    def __init__(self, dicdir: str, space: re.Pattern, score: Callable[[str, "np.ndarray"], tuple],
                 after_space_only: bool) -> None:
        self._dic = dic = dictionary(dicdir)
        self._lsize = dic.lsize
        self._matrix = dic.matrix
        self._space = space
        self._score = score
        self._after_space_only = after_space_only
        self._arcs: dict[str, tuple] = {}
        self._viterbi, self._nodes, self._keep = compiled()
        # the dictionary's arguments of `_mecab_nodes`, in its order
        self._dic_args = (dic.sys.da, dic.sys.lids, dic.sys.rids, dic.sys.costs, dic.char_info, dic.unk_start,
                          dic.unk_size, dic.unk.lids, dic.unk.rids, dic.unk.costs, dic.space, MAX_GROUPING_SIZE)

    def nodes(self, text: str) -> np.ndarray:
        """MeCab's lattice for `text`, a row per node in the order of its all-morphemes output:
        start byte, end byte, left id, right id, word cost, stat (1: unknown word), token index."""
        return self._rows(np.frombuffer(text.encode("utf-8"), dtype=BYTES))

    def _rows(self, data: np.ndarray) -> np.ndarray:
        return self._nodes(data, *self._dic_args)

    def _lattice(self, text: str) -> tuple:
        """The tokens of `text` in MeCab's order (by start), less barred ones, as columns start,
        end (past any whitespace), left id, right id, word cost, penalty, follows whitespace,
        index in MeCab's output; `text`'s length in bytes; and every node's row."""
        arcs = self.nodes(text)
        penalties, barred = self._score(text, arcs)
        if barred is None:
            barred = np.zeros(len(arcs), dtype=np.bool_)
        gap_from = gap_to = _NO_GAPS
        if not text.isalnum():
            gaps = [(len(text[:a].encode("utf-8")), len(text[:b].encode("utf-8")))
                    for a, b in (m.span() for m in self._space.finditer(text))]
            if gaps:
                gap_from, gap_to = (np.array(column, dtype=np.int64) for column in zip(*gaps))
        return *self._keep(arcs, penalties, barred, gap_from, gap_to), len(text.encode("utf-8")), arcs

    def best(self, text: str, prev_rid: int, next_lid: int, after_space: bool = True) -> tuple[int, list[int]] | None:
        """(cost, [token index]) of the cheapest path over `text` after a token whose right id is
        `prev_rid` and before one whose left id is `next_lid` (-1: none), penalties included
        (`after_space`: whether `text` follows whitespace). None when no path covers `text`. `lines(text, indexes)` gives the tokens' node lines."""
        arcs = self._arcs.get(text)
        if arcs is None:
            if len(self._arcs) > 100_000:
                self._arcs.clear()
            arcs = self._arcs[text] = self._lattice(text)
        starts, ends, lids, rids, wcosts, penalties, after_gap, index, n, _ = arcs
        if self._after_space_only:
            penalties = penalties * (after_gap | ((starts == 0) & after_space))
        found = self._viterbi(starts, ends, lids, rids, wcosts + penalties, n, prev_rid, next_lid, self._matrix, self._lsize)
        low, last, back = found
        if last < 0:
            return None
        path = []
        while last >= 0:
            path.append(int(index[last]))
            last = back[last]
        return int(low), path[::-1]

    def lines(self, text: str, indexes: list[int]) -> list[str]:
        """The node lines of tokens `indexes` of `text`'s lattice (from `best`)."""
        return self.row_lines(text, self._arcs[text][-1][indexes])

    def row_lines(self, text: str, rows: np.ndarray) -> list[str]:
        """The node lines of lattice rows of `text` (from `nodes`)."""
        data, feature = text.encode("utf-8"), self.feature
        return [f"{data[start:end].decode('utf-8')}\t{lid} {rid} {cost}\t{feature(stat, token)}"
                for start, end, lid, rid, cost, stat, token in rows.tolist()]

    def feature(self, stat: int, token: int) -> str:
        """The features of a node (from `nodes`: its stat and token index)."""
        return self._dic.feature(stat, token)

    def ids(self, surface: str, features: str, with_cost: bool = False) -> tuple[int, ...] | None:
        """(left id, right id) of the entry MeCab's node for `surface` with `features` stands for,
        and its word cost if `with_cost`: the dictionary's entries for the surface with those
        features, and the unknown-word entries of the class of its first character (the class
        MeCab makes unknown words of there) with those features; None where they differ."""
        if not surface:
            return None
        d = self._dic
        found = set()
        unknown = d.unknown_features.get(features)
        if unknown:
            kind = d.char_class(surface[0])
            first, last = int(d.unk_start[kind]), int(d.unk_start[kind] + d.unk_size[kind])
            found.update((int(d.unk.lids[u]), int(d.unk.rids[u]), int(d.unk.costs[u])) if with_cost
                         else (int(d.unk.lids[u]), int(d.unk.rids[u])) for u in unknown if first <= u < last)
        value = d.sys.exact(surface.encode("utf-8"))
        if value >= 0:
            for t in range(value >> 8, (value >> 8) + (value & 0xFF)):
                if d.feature(0, t) == features:
                    found.add((int(d.sys.lids[t]), int(d.sys.rids[t]), int(d.sys.costs[t])) if with_cost
                              else (int(d.sys.lids[t]), int(d.sys.rids[t])))
        return found.pop() if len(found) == 1 else None

class _Flag(tuple):
    """Terms that stand for a decision, told apart from real terms by their class."""


REPARSE = _Flag(("",))  # a line's terms that say: analyse the text again, another way (see each analyzer)
NONE = object()
