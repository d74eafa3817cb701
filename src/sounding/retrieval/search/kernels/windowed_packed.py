"""The sum kernel of windowed.py over packed postings (index/packed.py): the same windows, the same
MaxScore pruning, the same float64 sums in the same order, so the same top k bit for bit.

Each clause keeps a cursor (its current block, decoded into a 128-posting buffer, and a place in
it). A window first moves every cursor to the window's first document: whole blocks are skipped
by their last document (`blk_last`) without decoding, and a block is decoded only when one of its
postings is read (a clause the pruning skips decodes nothing). A clause's bound in the window is the largest
block maximum (per packed block and BM25 setting: `packed_maxima`) from its cursor's block to the
block holding the window's end. Essential clauses then score their postings block by block from
the buffer; non-essential ones either read theirs the same way with a bit test, or look each live
document up: the block by a binary search of the last documents, then a scan of that block's gaps
up to the document, the term frequency read straight from its place. An impact
tf / (tf + k1·(1 − b + b·len/avglen)) is computed where it is used, in float32 as
bounds.fill_lists makes it: the document's norm lies in the window, a cache-resident slice.

Why lists are held decoded (ListCache): decoding costs ~4 ns a posting in the kernel, about what the
raw kernel spends on a whole posting, and a batch of queries asks for the frequent terms' lists again
and again (NQ-size synthetic: 23,784 clauses over 15,798 lists, 46.4 M postings in all). A list asked
for is decoded whole once, its impacts made once for the setting, and read from then on as the raw
kernel reads its postings (a cursor, a binary search for the window's end, block maxima by position);
the values are the ones computed here from the blocks, so the bits cannot change. Holding even the
lists asked for once paid: decoding a list whole in one tight loop cost less than decoding its blocks
inside the kernel (NQ-size synthetic, one batch of 3,452 queries at top 1,000: 0.54-0.77 of raw's
speed holding the lists asked for twice, 0.80-1.03 holding all; filling all took ~0.5 s of CPU).
"""
from __future__ import annotations

import threading

import numba as nb
import numpy as np

from ....index.packed import BLOCK, BLOCK_SHIFT, decode_block, decode_list, get_bits
from .postings import Held, PackedPostings
from .selection import emit
from .window import (clause_bound, close_window, drop_hopeless, essential_clauses, lower_bound, most_clauses,
                     raise_theta, rank_ties, window_end)

_F32_ONE = np.float32(1.0)
_ONE = np.uint64(1)
CACHE_BYTES = 384 << 20  # decoded lists held per BM25 setting: a document id and an impact, 8 bytes a posting
CACHE_MIN_READS = 1  # a list is decoded whole once this many clauses have asked for it (1: measured best)


@nb.njit(nogil=True, cache=True)
def fill_tfs(postings, fs, ts, ats, docs, tfs):
    """Decode the lists (fs[x], ts[x]) whole into docs/tfs (of the raw index's tf type) from ats[x] on."""
    first_block, blk_last = postings[1], postings[2]
    for x in range(fs.shape[0]):
        f, t = fs[x], ts[x]
        length = postings[0][f, t + 1] - postings[0][f, t]
        decode_list(first_block, blk_last, postings[3], postings[4], postings[5], f, t, length, docs[ats[x]:],
                    tfs[ats[x]:])


@nb.njit(nogil=True, cache=True)
def fill_lists(postings, norms, lucene, fs, ts, ats, docs, vals):
    """Decode the lists (fs[x], ts[x]) whole into docs/vals from ats[x] on, with each posting's value
    made as the kernel makes it from tf and the document's norm (the same float32 steps, the same bits)."""
    offsets, first_block, blk_last, blk_start, blk_width, words = postings
    tbuf = np.empty(BLOCK, np.uint32)
    for x in range(fs.shape[0]):
        f, t, at = fs[x], ts[x], ats[x]
        length = offsets[f, t + 1] - offsets[f, t]
        b0 = first_block[f, t]
        nf = norms[f]
        p = at
        for b in range(b0, first_block[f, t + 1]):
            n = _block_size(b, b0, length)
            prev = np.int64(blk_last[b - 1]) if b > b0 else np.int64(-1)
            decode_block(words, blk_start, blk_width, b, n, prev, docs[p:], tbuf)
            for i in range(n):
                tf = np.float32(tbuf[i])
                nd = nf[docs[p + i]]
                vals[p + i] = tf * nd if lucene else tf / (tf + nd)
            p += n


class ListCache:
    """Lists of one BM25 setting held decoded, shared by the searcher's threads: a batch of queries reads
    the frequent terms' lists again and again (Zipf), and decoding costs about what scoring does. Each
    list and how many clauses have asked for it is counted; once a list has been asked for
    CACHE_MIN_READS times it is decoded whole into an arena of `capacity` bytes (most asked for first,
    each that still fits; never evicted) and read from there as the raw kernel reads its postings. The values
    are those the kernel computes from the packed blocks, so the results cannot change. Filled under a
    lock; a filled list is never written again, so kernels read it while others are filled."""

    def __init__(self, postings: PackedPostings, norms: np.ndarray, lucene: bool, capacity: int, tf_dtype=None):
        """`tf_dtype`: hold term frequencies of this type (the grouped kernels') in place of impacts."""
        n_fields, self._cols = postings.offsets.shape
        self._postings, self._norms, self._lucene = postings, norms, bool(lucene)
        self._reads = np.zeros(n_fields * self._cols, np.int32)  # zero pages: memory only where touched
        self._slot = np.zeros(n_fields * self._cols, np.int64)  # 1 + the list's first posting held, 0: none
        self._tfs = tf_dtype is not None
        vals = np.dtype(tf_dtype) if self._tfs else np.dtype(np.float32)
        size = max(0, int(capacity)) // (4 + vals.itemsize)
        self.docs, self.vals = np.empty(size, np.uint32), np.empty(size, vals)
        self.used = 0
        self._lock = threading.Lock()

    def held(self, c_field: np.ndarray, c_term: np.ndarray, a: int, z: int) -> Held:
        """Count clauses a..z−1's lists as asked for, decode those now due, and say where each is held."""
        keys = c_field[a:z].astype(np.int64) * self._cols + c_term[a:z]
        at = np.full(len(c_field), -1, np.int64)
        with self._lock:
            u, n = np.unique(keys, return_counts=True)
            self._reads[u] += n.astype(np.int32)
            due = u[(self._slot[u] == 0) & (self._reads[u] >= CACHE_MIN_READS)]
            if len(due):
                due = due[np.argsort(-self._reads[due], kind="stable")]  # most asked for first
                f, t = np.divmod(due, self._cols)
                lengths = self._postings.offsets[f, t + 1] - self._postings.offsets[f, t]
                take = np.zeros(len(due), bool)  # in that order, each list that still fits
                starts = np.zeros(len(due), np.int64)
                room, used = len(self.docs), self.used
                for x, n in enumerate(lengths.tolist()):
                    if used + n <= room:
                        take[x], starts[x] = True, used
                        used += n
                if used > self.used and self._tfs:
                    fill_tfs(self._postings, f[take], t[take], starts[take], self.docs, self.vals)
                elif used > self.used:
                    fill_lists(self._postings, self._norms, self._lucene, f[take], t[take], starts[take], self.docs,
                               self.vals)
                if used > self.used:
                    self._slot[due[take]] = starts[take] + 1
                    self.used = used
            at[a:z] = self._slot[keys] - 1
        return Held(at, self.docs, self.vals)


@nb.njit(nogil=True, cache=True, inline="always")
def _block_size(b, b0, length):
    return min(BLOCK, length - ((b - b0) << BLOCK_SHIFT))


@nb.njit(nogil=True, cache=True, inline="always")
def _load(postings, i, b, b0, length, dbuf, tbuf):
    """Decode block b of clause i's list (first block b0, `length` postings) into row i of the buffers."""
    _, _, blk_last, blk_start, blk_width, words = postings
    prev = np.int64(blk_last[b - 1]) if b > b0 else np.int64(-1)
    decode_block(words, blk_start, blk_width, b, _block_size(b, b0, length), prev, dbuf[i], tbuf[i])


@nb.njit(nogil=True, cache=True, inline="always")
def _seek(postings, i, target, cb, cpos, ctarget, bend, b0, plen, dbuf):
    """Move clause i's cursor to its first posting with a document ≥ target. Whole blocks are skipped
    by their last document; a block reached that way is not decoded yet (cpos −1, the place to find
    in it kept in ctarget) until a posting of it is read (_ensure): a clause the pruning skips costs
    no decoding."""
    blk_last = postings[2]
    b = cb[i]
    if b >= bend[i]:
        return
    if np.int64(blk_last[b]) < target:
        cb[i] = window_end(blk_last, b + 1, bend[i], target)
        cpos[i] = -1
        ctarget[i] = target
    elif cpos[i] >= 0:
        cpos[i] = lower_bound(dbuf[i], cpos[i], _block_size(b, b0[i], plen[i]), np.uint32(target))
    else:
        ctarget[i] = max(ctarget[i], target)


@nb.njit(nogil=True, cache=True, inline="always")
def _ensure(postings, i, cb, cpos, ctarget, bend, b0, plen, dbuf, tbuf):
    """Decode clause i's current block into its buffer row if it is not there yet."""
    if cpos[i] < 0 and cb[i] < bend[i]:
        _load(postings, i, cb[i], b0[i], plen[i], dbuf, tbuf)
        cpos[i] = lower_bound(dbuf[i], 0, _block_size(cb[i], b0[i], plen[i]), np.uint32(ctarget[i]))


@nb.njit(nogil=True, cache=True, inline="always")
def _impact(w, tf, d, f, norms, lucene):
    if lucene:
        w32 = np.float32(w)
        return np.float64(w32 - w32 / (_F32_ONE + np.float32(tf) * norms[f, d]))
    t = np.float32(tf)
    return w * (t / (t + norms[f, d]))


@nb.njit(nogil=True, cache=True)
def _find(postings, d, b, b0, length):
    """Posting of document d in block b, not decoded: its term frequency, or 0 if absent."""
    _, _, blk_last, blk_start, blk_width, words = postings
    n = _block_size(b, b0, length)
    base = blk_start[b]
    wd = np.int64(blk_width[b, 0])
    md = (_ONE << np.uint64(wd)) - _ONE
    x = np.int64(blk_last[b - 1]) if b > b0 else np.int64(-1)
    for i in range(n):
        x += np.int64(get_bits(words, base, i, wd, md)) + 1
        if x >= d:
            if x == d:
                wt = np.int64(blk_width[b, 1])
                mt = (_ONE << np.uint64(wt)) - _ONE
                return np.uint32(get_bits(words, base + ((n * wd + 31) >> 5), i, wt, mt) + _ONE)
            return np.uint32(0)
    return np.uint32(0)


@nb.njit(nogil=True, cache=True, inline="always")
def _scan(postings, i, stop, start, f, w, norms, lucene, cb, cpos, ctarget, bend, b0, plen, dbuf, tbuf, wacc, wtouched,
          nt, wbits, essential):
    """Clause i's postings below `stop`, from its cursor: essential, every one is added (first touches
    listed in wtouched); else only to documents whose bit is set. Returns (nt, postings read)."""
    _ensure(postings, i, cb, cpos, ctarget, bend, b0, plen, dbuf, tbuf)
    blk_last = postings[2]
    b = cb[i]
    pos = cpos[i]
    read = 0
    u_start = np.uint64(start)
    while b < bend[i]:
        n = _block_size(b, b0[i], plen[i])
        e = n if np.int64(blk_last[b]) < stop else lower_bound(dbuf[i], pos, n, np.uint32(stop))
        read += e - pos
        if essential:
            for x in range(np.uint64(pos), np.uint64(e)):
                d = np.uint64(dbuf[i, x])
                j = d - u_start
                a = wacc[j]
                wtouched[np.uint64(nt)] = np.int64(j)
                nt += a == 0.0  # scores are > 0: zero marks a first touch
                wacc[j] = a + _impact(w, tbuf[i, x], d, f, norms, lucene)
        else:
            for x in range(np.uint64(pos), np.uint64(e)):
                d = np.uint64(dbuf[i, x])
                j = d - u_start
                if (wbits[j >> np.uint64(6)] >> (j & np.uint64(63))) & _ONE:
                    wacc[j] += _impact(w, tbuf[i, x], d, f, norms, lucene)
        if e < n:
            pos = e
            break
        b += 1
        pos = 0
        if b < bend[i]:
            _load(postings, i, b, b0[i], plen[i], dbuf, tbuf)
    cb[i] = b
    cpos[i] = pos
    return nt, read


@nb.njit(nogil=True, cache=True, inline="always")
def _scan_held(hdocs, hvals, p, e, start, w, lucene, wacc, wtouched, nt, wbits, essential):
    """A held list's postings p..e−1 (the window's), as the raw kernel reads its own: essential, every one
    is added (first touches listed); else only to documents whose bit is set. A posting adds what
    clause_bound makes of its held value (w·impact, or Lucene's float32 steps). Returns nt."""
    u_start = np.uint64(start)
    if essential and lucene:  # four loops, each without a branch on the arithmetic
        for x in range(np.uint64(p), np.uint64(e)):
            j = np.uint64(hdocs[x]) - u_start
            a = wacc[j]
            wtouched[np.uint64(nt)] = np.int64(j)
            nt += a == 0.0  # scores are > 0: zero marks a first touch
            wacc[j] = a + clause_bound(w, hvals[x], True)
    elif essential:
        for x in range(np.uint64(p), np.uint64(e)):
            j = np.uint64(hdocs[x]) - u_start
            a = wacc[j]
            wtouched[np.uint64(nt)] = np.int64(j)
            nt += a == 0.0
            wacc[j] = a + w * hvals[x]
    elif lucene:
        for x in range(np.uint64(p), np.uint64(e)):
            j = np.uint64(hdocs[x]) - u_start
            if (wbits[j >> np.uint64(6)] >> (j & np.uint64(63))) & _ONE:
                wacc[j] += clause_bound(w, hvals[x], True)
    else:
        for x in range(np.uint64(p), np.uint64(e)):
            j = np.uint64(hdocs[x]) - u_start
            if (wbits[j >> np.uint64(6)] >> (j & np.uint64(63))) & _ONE:
                wacc[j] += w * hvals[x]
    return nt


@nb.njit(nogil=True, cache=True)
def search_windowed_packed(clauses, postings, norms, lucene, maxima, prune, lookup_ratio, ranking, out, window,
                           selection, held):
    """windowed.search_windowed over packed postings: the same arguments but the impacts (made where
    used), with `maxima[b]` the largest impact (or float32 tf·(1/norm)) of packed block b, and `held`
    (Held): the clauses whose lists are held decoded, read like raw postings. Returns the number of
    postings read or looked up."""
    q_ptr, c_field, c_term, c_weight = clauses
    offsets, first_block, blk_last = postings[0], postings[1], postings[2]
    rank, rank_to_doc, rank_bits, k = ranking
    out_docs, out_bits, out_n = out
    wacc, wtouched, wbits = window
    sel, tmp, hist = selection
    h_at, hdocs, hvals = held
    n_docs = rank.shape[0]
    window = wacc.shape[0]
    max_clauses = most_clauses(q_ptr)
    cb = np.empty(max_clauses, np.int64)  # each clause's current block (decoded in its buffer row)
    cpos = np.empty(max_clauses, np.int64)  # its next posting in that block (−1: the block is not decoded yet)
    ctarget = np.empty(max_clauses, np.int64)  # with cpos −1: the cursor is at the block's first document ≥ this
    bend = np.empty(max_clauses, np.int64)  # the end of its blocks
    b0 = np.empty(max_clauses, np.int64)  # its first block
    plen = np.empty(max_clauses, np.int64)  # its postings
    eb = np.empty(max_clauses, np.int64)  # the block holding its last posting in the window (−1: none)
    hat = np.empty(max_clauses, np.int64)  # a held list: its first posting in hdocs (−1: read from blocks)
    hp = np.empty(max_clauses, np.int64)  # a held list's next posting in hdocs
    he = np.empty(max_clauses, np.int64)  # and its first past the window
    dbuf = np.empty((max_clauses, BLOCK), np.uint32)
    tbuf = np.empty((max_clauses, BLOCK), np.uint32)
    rest = np.zeros(max_clauses + 1, np.float64)  # rest[i]: the most clauses i.. add in the window
    compact_at = max(2 * k, 1024)
    keys = np.empty(compact_at + window, np.uint64)  # candidates: (score bits << 32) | document
    read = 0
    for q in range(q_ptr.shape[0] - 1):
        first, end = q_ptr[q], q_ptr[q + 1]
        n_cl = end - first
        for i in range(n_cl):
            f, t = c_field[first + i], c_term[first + i]
            b0[i] = cb[i] = first_block[f, t]
            bend[i] = first_block[f, t + 1]
            plen[i] = offsets[f, t + 1] - offsets[f, t]
            cpos[i] = -1
            ctarget[i] = 0
            hat[i] = hp[i] = h_at[first + i]
        rest[n_cl] = 0.0
        theta = np.uint64(0)  # float32 bits of a lower bound on the k-th best score
        m = 0
        for start in range(0, n_docs, window):
            stop = start + window
            for i in range(n_cl - 1, -1, -1):  # each clause's share of the window, and its bound
                c = first + i
                bound = 0.0
                eb[i] = -1  # nothing in the window
                if hat[i] >= 0:
                    p = hp[i]
                    e = window_end(hdocs, p, hat[i] + plen[i], stop)
                    he[i] = e
                    if e > p:
                        eb[i] = b0[i] + ((e - 1 - hat[i]) >> BLOCK_SHIFT)
                        x = np.float32(0.0)
                        for bb in range(b0[i] + ((p - hat[i]) >> BLOCK_SHIFT), eb[i] + 1):
                            x = max(x, maxima[bb])
                        bound = clause_bound(c_weight[c], x, lucene)
                    rest[i] = rest[i + 1] + bound
                    continue
                _seek(postings, i, start, cb, cpos, ctarget, bend, b0, plen, dbuf)
                b = cb[i]
                if b >= bend[i]:
                    maybe = False
                elif cpos[i] >= 0:
                    maybe = np.int64(dbuf[i, cpos[i]]) < stop
                else:  # not decoded: its first document comes after the previous block's last
                    maybe = b == b0[i] or np.int64(blk_last[b - 1]) + 1 < stop
                if maybe:
                    e = cb[i] if np.int64(blk_last[cb[i]]) >= stop else min(
                        window_end(blk_last, cb[i] + 1, bend[i], stop), bend[i] - 1)
                    eb[i] = e
                    x = np.float32(0.0)
                    for bb in range(cb[i], e + 1):
                        x = max(x, maxima[bb])
                    bound = clause_bound(c_weight[c], x, lucene)
                rest[i] = rest[i + 1] + bound
            n_essential = essential_clauses(rest, n_cl, theta, prune)  # the clauses after cannot bring a new document in
            nt = 0
            for i in range(n_essential):  # every posting; remember first touches
                c = first + i
                if eb[i] < 0:
                    continue
                if hat[i] >= 0:
                    nt = _scan_held(hdocs, hvals, hp[i], he[i], start, c_weight[c], lucene, wacc, wtouched, nt,
                                    wbits, True)
                    read += he[i] - hp[i]
                    continue
                nt, r = _scan(postings, i, stop, start, np.uint64(c_field[c]), c_weight[c], norms, lucene, cb, cpos,
                              ctarget, bend, b0, plen, dbuf, tbuf, wacc, wtouched, nt, wbits, True)
                read += r
            if n_essential < n_cl and nt > 0:
                for i in range(n_essential, n_cl):  # the rest only add to the documents found
                    nt = drop_hopeless(rest[i], theta, wacc, wtouched, nt, wbits)
                    if nt == 0:
                        break
                    if eb[i] < 0:
                        continue
                    c = first + i
                    f = np.uint64(c_field[c])
                    w = c_weight[c]
                    if hat[i] >= 0:
                        p, e = hp[i], he[i]
                        if nt * lookup_ratio < e - p:  # few documents: look each one up
                            read += nt
                            for x in range(nt):
                                j = wtouched[x]
                                at = lower_bound(hdocs, p, e, np.uint32(start + j))
                                if at < e and np.int64(hdocs[at]) == start + j:
                                    wacc[j] += clause_bound(w, hvals[at], lucene)
                        else:
                            nt = _scan_held(hdocs, hvals, p, e, start, w, lucene, wacc, wtouched, nt, wbits, False)
                            read += e - p
                    elif nt * lookup_ratio < (eb[i] - cb[i] + 1) * BLOCK:  # few documents: look each one up
                        read += nt
                        n_cur = _block_size(cb[i], b0[i], plen[i])
                        for x in range(nt):
                            j = wtouched[x]
                            d = start + j
                            bb = cb[i] if np.int64(blk_last[cb[i]]) >= d else window_end(
                                blk_last, cb[i] + 1, eb[i] + 1, d)
                            if bb > eb[i]:
                                continue
                            if bb == cb[i] and cpos[i] >= 0:
                                at = lower_bound(dbuf[i], cpos[i], n_cur, np.uint32(d))
                                tf = tbuf[i, at] if at < n_cur and np.int64(dbuf[i, at]) == d else np.uint32(0)
                            else:
                                tf = _find(postings, d, bb, b0[i], plen[i])
                            if tf:
                                wacc[j] += _impact(w, tf, np.uint64(d), f, norms, lucene)
                    else:
                        nt, r = _scan(postings, i, stop, start, f, w, norms, lucene, cb, cpos, ctarget, bend, b0,
                                      plen, dbuf, tbuf, wacc, wtouched, nt, wbits, False)
                        read += r
            for i in range(n_cl):  # held lists move past the window (the others seek at the next one)
                if hat[i] >= 0:
                    hp[i] = he[i]
            m = close_window(wacc, wbits, wtouched, nt, start, keys, m, theta)
            if m >= compact_at:
                keys, m, theta = raise_theta(keys, m, k, hist, window)
        rank_ties(keys, m, rank, rank_bits)
        out_n[q] = emit(keys, m, k, rank_bits, rank_to_doc, sel, tmp, hist, out_docs[q], out_bits[q])
    return read


@nb.njit(nogil=True, cache=True)
def packed_maxima(postings, norms_f, f, t0, t1, lucene, out):
    """out[b] for the blocks of terms t0..t1−1 of field f: the largest float32 impact tf / (tf + norm)
    of the block (default arithmetic, bounds.fill_lists' bits), or float32 tf·(1/norm) (Lucene's)."""
    offsets, first_block, blk_last, blk_start, blk_width, words = postings
    dbuf = np.empty((1, BLOCK), np.uint32)
    tbuf = np.empty((1, BLOCK), np.uint32)
    for t in range(t0, t1):
        length = offsets[f, t + 1] - offsets[f, t]
        b0 = first_block[f, t]
        for b in range(b0, first_block[f, t + 1]):
            _load(postings, 0, b, b0, length, dbuf, tbuf)
            x = np.float32(0.0)
            for i in range(_block_size(b, b0, length)):
                tf = np.float32(tbuf[0, i])
                nd = norms_f[dbuf[0, i]]
                x = max(x, tf * nd if lucene else tf / (tf + nd))
            out[b] = x
