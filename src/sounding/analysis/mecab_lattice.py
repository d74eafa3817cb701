"""MeCab's lattice searched as Kuromoji and Nori search theirs: the dictionary's arcs for a text,
the connection-cost matrix, and a Viterbi pass (numba) with the tokenizers' own penalties, shared
by the Japanese (IPADIC) and Korean (mecab-ko-dic) analyzers."""
from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
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


def _kuromoji_marks(arcs, cps):
    """Per token of a text (rows start byte, end byte, left id, right id, cost, stat (1: unknown
    word) of MeCab's all-morphemes output; `cps` the text's code points): its SEARCH-mode length
    penalty (`search_penalty`), and whether Kuromoji's lattice lacks it. Both read IPADIC's
    char.def, but Kuromoji ignores its length field: at each position it adds one unknown word,
    the whole run of the character's class (a single character for KANJI, the only class not
    grouped), where MeCab also adds the run's first one and two characters (KANJI, HIRAGANA,
    KATAKANA)."""
    chars = len(cps)
    size = 0
    for k in range(chars):
        c = cps[k]
        size += 1 + (c >= 0x80) + (c >= 0x800) + (c >= 0x10000)
    char_at = np.zeros(size + 1, dtype=np.int64)  # byte offset → character index
    kanji = np.zeros(chars, dtype=np.bool_)  # the code-point ranges of _KANJI
    kanji_before = np.zeros(chars + 1, dtype=np.int64)
    pos = 0
    for k in range(chars):
        c = cps[k]
        char_at[pos] = k
        pos += 1 + (c >= 0x80) + (c >= 0x800) + (c >= 0x10000)
        kanji[k] = (0x2E80 <= c <= 0x2FDF) or (0x3005 <= c <= 0x3007) or (0x3400 <= c <= 0x4DBF) \
            or (0x4E00 <= c <= 0x9FFF) or (0xF900 <= c <= 0xFAFF)
        kanji_before[k + 1] = kanji_before[k] + kanji[k]
    char_at[pos] = chars
    count = len(arcs)
    penalties = np.zeros(count, dtype=np.int64)
    barred = np.zeros(count, dtype=np.bool_)
    grouped = np.zeros(count, dtype=np.bool_)  # unknown words of a grouped class
    for i in range(count):
        if not 0 <= arcs[i, 0] <= arcs[i, 1] <= size:  # not a token of this text
            barred[i] = True
            continue
        first = char_at[arcs[i, 0]]
        length = char_at[arcs[i, 1]] - first
        if length > 2:
            if kanji_before[first + length] - kanji_before[first] == length:
                penalties[i] = (length - 2) * 3000
            elif length > 7:
                penalties[i] = (length - 7) * 1700
        if arcs[i, 5] == 1:
            if kanji[first]:
                barred[i] = length > 1
            else:
                grouped[i] = True
    i = 0
    while i < count:  # tokens come by start: a grouped unknown word shorter than the longest from its start is barred
        j, longest = i, -1
        while j < count and arcs[j, 0] == arcs[i, 0]:
            if grouped[j] and arcs[j, 1] > longest:
                longest = arcs[j, 1]
            j += 1
        for k in range(i, j):
            if grouped[k] and arcs[k, 1] < longest:
                barred[k] = True
        i = j
    return penalties, barred


def _read_rows(data, columns):
    """Lines of whitespace-separated integers (ASCII bytes; the first `columns` of each line) as
    a (lines, columns) array: what np.fromstring(sep=" ") reads, at a fraction of its cost on the
    short lattices read here."""
    count = 0
    for b in data:
        count += b == 10
    if len(data) and data[-1] != 10:
        count += 1
    out = np.zeros((count, columns), dtype=np.int64)
    row, col, value, negative, digits = 0, 0, 0, False, False
    for i in range(len(data) + 1):
        b = data[i] if i < len(data) else 10
        if 48 <= b <= 57:
            value = value * 10 + b - 48
            digits = True
        elif b == 45:
            negative = True
        else:
            if digits and col < columns:
                out[row, col] = -value if negative else value
                col += 1
            value, negative, digits = 0, False, False
            if b == 10:
                row += 1
                col = 0
    return out


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
def compiled() -> tuple:
    """`_viterbi` and `_kuromoji_marks` compiled (numba, cached on disk), and run once on a
    one-token lattice so that later calls find them loaded."""
    import numba

    jit = numba.njit(cache=True, nogil=True)
    viterbi, marks, read, keep = jit(_viterbi), jit(_kuromoji_marks), jit(_read_rows), jit(_keep)
    arcs = read(np.frombuffer(b"0 1 0 0 0 1\n", dtype=np.uint8), 6)  # arguments typed as in `Lattice`
    penalties, barred = marks(arcs, np.frombuffer(b"A\0\0\0", dtype="<u4"))
    starts, ends, lids, rids, wcosts, penalties, _, _ = keep(arcs, penalties, barred, _NO_GAPS, _NO_GAPS)
    viterbi(starts, ends, lids, rids, wcosts + penalties, 1, 0, -1, np.frombuffer(bytes(2), dtype="<i2"), 1)
    return viterbi, marks, read, keep


_NO_GAPS = np.zeros(0, dtype=np.int64)




class Lattice:
    """A MeCab dictionary's connection matrix, and a Viterbi search over one stretch of text.

    Kuromoji and Nori score their lattices as MeCab does (word cost plus connection cost, both
    from the same dictionary files) but add penalties that MeCab has no option for. Where one
    applies, the stretch it concerns is searched again here: MeCab's all-morphemes output (`-a`)
    gives the stretch's lattice, and the path is chosen with the penalties added (`score(text,
    tokens)` gives one per token, with `after_space_only` paid only by tokens that follow
    whitespace, and which tokens to leave out, or None). The lattice reading, Kuromoji's marks
    and the search are compiled (numba) and loaded when the first analyzer is made, so that one
    pays their start-up (about half a second with numba's on-disk cache, a few seconds without),
    not its first texts.
    """

    def __init__(self, fugashi, args: str, dicdir: str, node_format: str, space: re.Pattern,
                 score: Callable[[str, "np.ndarray"], tuple], after_space_only: bool, features: bool) -> None:
        # every node of the all-morphemes output (`-a`): its numbers (start and end byte, left id,
        # right id, word cost, stat: 1 for an unknown word), then (`features`) a tab and its node
        # line. With the node lines, the chosen tokens' features come from the same pass, and a
        # new analyzer maps the dictionary in for one tagger less; without, each chosen token's
        # line is read from the all-morphemes output of its own surface (`lines`), cheaper where
        # lattices are long and few of their tokens are chosen (IPADIC's katakana and kanji runs).
        nums = "%ps %pe %phl %phr %c %s"
        spanned = f"{nums}\\t{node_format}" if features else f"{nums}\\n"
        self._parse_all = fugashi.GenericTagger(f'{args} -a -B "" -E "" -F "{spanned}" -U "{spanned}"').parse
        self._parse_lines = None
        if not features:
            spanned = "%ps %pe " + node_format  # node lines after their byte offsets
            self._parse_lines = fugashi.GenericTagger(f'{args} -a -B "" -E "" -F "{spanned}" -U "{spanned}"').parse
        raw = Path(dicdir, "matrix.bin").read_bytes()
        # matrix.bin: two uint16 sizes, then int16 cost[right id of the left token + lsize * left
        # id of the right token]
        self._lsize = int.from_bytes(raw[:2], "little")
        self._matrix = np.frombuffer(raw, dtype="<i2", offset=4)
        self._space = space
        self._score = score
        self._after_space_only = after_space_only
        self._arcs: dict[str, tuple] = {}
        self._known_lines: dict[tuple, str] = {}  # (surface bytes, ids, cost) → node line
        self._viterbi, _, self._read, self._keep = compiled()

    def nodes(self, text: str) -> tuple[np.ndarray, list[str]]:
        """MeCab's all-morphemes output for `text`: per node, a row (start byte, end byte, left id,
        right id, word cost, stat: 1 for an unknown word) and its output line."""
        out = self._parse_all(text)
        return self._read(np.frombuffer(out.encode("utf-8"), dtype=np.uint8), 6), out.split("\n")

    def _lattice(self, text: str) -> tuple:
        """The tokens of `text` in MeCab's order (by start), less barred ones, as columns start,
        end (past any whitespace), left id, right id, word cost, penalty, follows whitespace,
        index in MeCab's output; `text`'s length in bytes; every node's row and its output line."""
        arcs, every = self.nodes(text)
        penalties, barred = self._score(text, arcs)
        if barred is None:
            barred = np.zeros(len(arcs), dtype=np.bool_)
        gap_from = gap_to = _NO_GAPS
        if not text.isalnum():
            gaps = [(len(text[:a].encode("utf-8")), len(text[:b].encode("utf-8")))
                    for a, b in (m.span() for m in self._space.finditer(text))]
            if gaps:
                gap_from, gap_to = (np.array(column, dtype=np.int64) for column in zip(*gaps))
        return *self._keep(arcs, penalties, barred, gap_from, gap_to), len(text.encode("utf-8")), arcs, every

    def cost(self, rid: int, lid: int) -> int:
        return int(self._matrix[rid + self._lsize * lid]) if lid >= 0 else 0


    def best(self, text: str, prev_rid: int, next_lid: int, after_space: bool = True,
             penalised: bool = True) -> tuple[int, list[int]] | None:
        """(cost, [token index]) of the cheapest path over `text` after a token whose right id is
        `prev_rid` and before one whose left id is `next_lid` (-1: none), penalties included
        unless not `penalised` (`after_space`: whether `text` follows whitespace). None when no
        path covers `text`. `lines(text, indexes)` gives the tokens' node lines."""
        arcs = self._arcs.get(text)
        if arcs is None:
            if len(self._arcs) > 100_000:
                self._arcs.clear()
            arcs = self._arcs[text] = self._lattice(text)
        starts, ends, lids, rids, wcosts, penalties, after_gap, index, n, _, _ = arcs
        if self._after_space_only:
            penalties = penalties * (after_gap | ((starts == 0) & after_space))
        costs = wcosts + penalties if penalised else wcosts
        found = self._viterbi(starts, ends, lids, rids, costs, n, prev_rid, next_lid, self._matrix, self._lsize)
        low, last, back = found
        if last < 0:
            return None
        path = []
        while last >= 0:
            path.append(int(index[last]))
            last = back[last]
        return int(low), path[::-1]

    def lines(self, text: str, indexes: list[int]) -> list[str]:
        """The node lines of tokens `indexes` of `text`'s lattice (from `best`): from the lattice's
        own output when it has them, else each from the all-morphemes output of its own surface,
        where the same entry (the same ids and cost from offset 0 to the surface's end) is found
        at far less cost than in the whole text's, which is read only if one is missing."""
        arcs = self._arcs[text]
        if self._parse_lines is None:
            every = arcs[-1]
            return [every[i].partition("\t")[2] for i in indexes]
        every, data, known = arcs[-2], text.encode("utf-8"), self._known_lines
        out = []
        for i in indexes:
            start, end, lid, rid, cost = every[i, :5].tolist()
            key = (data[start:end], lid, rid, cost)  # one entry of the dictionary: one node line
            line = known.get(key)
            if line is None:
                head, ids = f"0 {end - start} ", f"{lid} {rid} {cost}"
                for line in self._parse_lines(data[start:end].decode("utf-8")).split("\n"):
                    if line.startswith(head) and line.split("\t", 2)[1] == ids:
                        line = line[len(head):]
                        break
                else:
                    nodes = self._parse_lines(text).split("\n")
                    return [nodes[i].partition(" ")[2].partition(" ")[2] for i in indexes]
                if len(known) > 100_000:
                    known.clear()
                known[key] = line
            out.append(line)
        return out



class _Flag(tuple):
    """Terms that stand for a decision, told apart from real terms by their class."""


REPARSE = _Flag(("",))  # a line's terms that say: analyse the text again, another way (see each analyzer)
DECOMPOUND = _Flag(("", ""))  # ... that say: this token may be decompounded (SEARCH mode)
RELATTICE = _Flag(("", "", ""))  # ... that say: Kuromoji's lattice lacks this token; search it
NONE = object()
