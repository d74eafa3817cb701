"""Compiled kernels of an index build: a chunk's token streams into postings, and counting sorts.

A chunk's postings come out document-major (documents ascending; within a document, terms in order
of first occurrence): every later step sorts them by term with a stable counting sort, so documents
stay ascending within each term, and the index bytes do not depend on how the corpus was chunked.
"""
from __future__ import annotations

import numba as nb
import numpy as np


@nb.njit
def _field(toks, a1, z1, a2, z2, slot, doc, term, docs, tf, p, positions, pos, q, cur):
    """Postings of one document's field: its tokens toks[a1:z1] then toks[a2:z2] (term ids; < 0 for a
    dropped token) from posting p (and position q) on. (next p, next q, field length)."""
    p0 = p
    length = 0
    for r in range(2):
        a, z = (a1, z1) if r == 0 else (a2, z2)
        for i in range(a, z):
            g = toks[i]
            if g < 0:
                continue
            length += 1
            s = slot[g]
            if s < 0:
                slot[g] = p
                term[p] = g
                docs[p] = doc
                tf[p] = 1
                p += 1
            else:
                tf[s] += 1
    if positions:  # each posting's positions, ascending: the title's come before the text's
        c = q
        for x in range(p0, p):
            cur[x - p0] = c
            c += tf[x]
        at = 0
        for r in range(2):
            a, z = (a1, z1) if r == 0 else (a2, z2)
            for i in range(a, z):
                g = toks[i]
                if g < 0:
                    continue
                k = slot[g] - p0
                pos[cur[k]] = at
                cur[k] += 1
                at += 1
        q = c
    for x in range(p0, p):
        slot[term[x]] = -1
    return p, q, length


@nb.njit(cache=True, nogil=True)
def chunk_postings(toks, bounds, slot, first_doc, positions):
    """Postings of a chunk of documents: document d's title terms are toks[bounds[2d]:bounds[2d + 1]],
    its text's toks[bounds[2d + 1]:bounds[2d + 2]] (term ids; < 0: a dropped token);
    `slot` (int32, one per term, all -1) is scratch and is left as it was found.
    Returns the kept tokens per document (2, n: title, text) and, per field (flat, title, text),
    term, doc (first_doc + d), tf and the positions (empty unless `positions`), document-major."""
    n = (bounds.shape[0] - 1) // 2
    lengths = np.zeros((2, n), np.int64)
    n_title = 0
    longest = 0
    for d in range(n):
        n_title += bounds[2 * d + 1] - bounds[2 * d]
        longest = max(longest, bounds[2 * d + 2] - bounds[2 * d])
    n_text = bounds[2 * n] - bounds[0] - n_title
    caps = (n_title + n_text, n_title, n_text)
    out = []
    for f in range(3):
        cap = caps[f]
        out.append((np.empty(cap, np.uint32), np.empty(cap, np.uint32), np.empty(cap, np.uint32),
                    np.empty(cap if positions else 0, np.uint32)))
    cur = np.empty(longest, np.int64)
    used = np.zeros((3, 2), np.int64)  # postings and positions written per field
    for d in range(n):
        a, b, c = bounds[2 * d], bounds[2 * d + 1], bounds[2 * d + 2]
        doc = np.uint32(first_doc + d)
        for f in range(3):
            a1, z1, a2, z2 = (a, b, b, c) if f == 0 else ((a, b, b, b) if f == 1 else (b, c, c, c))
            term, docs, tf, pos = out[f]
            p, q, length = _field(toks, a1, z1, a2, z2, slot, doc, term, docs, tf, used[f, 0], positions, pos,
                                  used[f, 1], cur)
            used[f, 0] = p
            used[f, 1] = q
            if f > 0:
                lengths[f - 1, d] = length
    return (lengths,
            out[0][0][: used[0, 0]], out[0][1][: used[0, 0]], out[0][2][: used[0, 0]], out[0][3][: used[0, 1]],
            out[1][0][: used[1, 0]], out[1][1][: used[1, 0]], out[1][2][: used[1, 0]], out[1][3][: used[1, 1]],
            out[2][0][: used[2, 0]], out[2][1][: used[2, 0]], out[2][2][: used[2, 0]], out[2][3][: used[2, 1]])


def field_postings(result: tuple, positions: bool) -> tuple[dict, dict]:
    """chunk_postings' result as ({field: (term, doc, tf, positions or None)}, {named field: lengths});
    tf as uint16 where every value fits."""
    lengths, flat = result[0], result[1:]
    fields = {}
    for i, f in enumerate(("flat", "title", "text")):
        term, doc, tf, pos = flat[4 * i : 4 * i + 4]
        if tf.max(initial=0) <= np.iinfo(np.uint16).max:
            tf = tf.astype(np.uint16)
        fields[f] = (term, doc, tf, pos if positions else None)
    return fields, {"title": lengths[0], "text": lengths[1]}


@nb.njit(cache=True, nogil=True)
def count_terms(term, remap, counts):
    """counts[remap[t]] += 1 for each t of `term`."""
    for i in range(term.shape[0]):
        counts[remap[term[i]]] += 1


@nb.njit(cache=True, nogil=True)
def place(term, doc, tf, remap, cursor, docs_out, tfs_out):
    """A stable counting sort's placing pass: posting i goes to cursor[remap[term[i]]], which moves on."""
    for i in range(term.shape[0]):
        t = remap[term[i]]
        d = cursor[t]
        cursor[t] = d + 1
        docs_out[d] = doc[i]
        tfs_out[d] = tf[i]


@nb.njit(cache=True, nogil=True)
def place_positions(term, tf, pos, remap, cursor, pos_offsets, out):
    """place's pass for positions: posting i's tf[i] positions (pos, in posting order) go to
    out[pos_offsets[place]:], its place taken from cursor as in `place`."""
    at = 0
    for i in range(term.shape[0]):
        t = remap[term[i]]
        d = cursor[t]
        cursor[t] = d + 1
        o = pos_offsets[d]
        for k in range(tf[i]):
            out[o + k] = pos[at + k]
        at += tf[i]


@nb.njit(cache=True, nogil=True)
def run_counts(remap, terms, offs, tfs, counts, pos_counts, positions):
    """counts[t] += the postings of final term t in a run (its terms: term ids, offs: each one's first
    posting; remap: term id → final id), and pos_counts[t] += their positions."""
    for j in range(terms.shape[0]):
        t = remap[terms[j]]
        counts[t] += offs[j + 1] - offs[j]
        if positions:
            s = 0
            for i in range(offs[j], offs[j + 1]):
                s += tfs[i]
            pos_counts[t] += s


@nb.njit(cache=True, nogil=True)
def gather_run(t0, t1, remap, terms, offs, docs, tfs, pos, j, pp, cursor, pos_cursor, out_docs, out_tfs, out_pos,
               positions):
    """A run's postings of final terms t0..t1-1 (see run_counts), from its term j and position pp on,
    to out_docs/out_tfs at cursor[t - t0] (their positions to out_pos at pos_cursor[t - t0]); the
    cursors move on. A run's terms come in final order, so each call reads on from where the last one
    stopped: returns the next term and position."""
    while j < terms.shape[0]:
        t = remap[terms[j]]
        if t >= t1:
            break
        a, b = offs[j], offs[j + 1]
        d = cursor[t - t0]
        n = 0
        for i in range(a, b):
            out_docs[d] = docs[i]
            out_tfs[d] = tfs[i]
            n += tfs[i]
            d += 1
        cursor[t - t0] = d
        if positions:
            q = pos_cursor[t - t0]
            for i in range(n):
                out_pos[q + i] = pos[pp + i]
            pos_cursor[t - t0] = q + n
            pp += n
        j += 1
    return j, pp


@nb.njit(cache=True, nogil=True)
def char_to_byte(buf, chars):
    """Byte offsets in UTF-8 `buf` (surrogates passed: one sequence a code point) of the ascending
    character offsets `chars`."""
    out = np.empty(chars.shape[0], np.int64)
    c = 0
    b = 0
    for k in range(chars.shape[0]):
        want = chars[k]
        while c < want:
            b += 1
            while b < buf.shape[0] and (buf[b] & 0xC0) == 0x80:
                b += 1
            c += 1
        out[k] = b
    return out
