"""One search thread's scratch arrays, made once and reused: allocating and zeroing them per call cost
query-at-a-time search. The kernels hand them back zeroed. A thread keeps its own (`Searcher` holds one per
thread, thread-local), so any number of threads search at once without the GIL.
"""
from __future__ import annotations

import numpy as np

from .collection import Collection
from .kernels.clauses import Clauses
from .kernels.selection import N_BUCKETS, Selection
from .kernels.window import Window, window_size


class Scratch:
    """A thread's scratch for the kernels: a window's accumulator, touched list and bitmap, the top-k
    selection's keys, and (made on first use) the collection-sized arrays of the term-at-a-time kernels
    and the grouped kernel's per-window sums."""

    def __init__(self, coll: Collection):
        self.coll = coll
        self.buf: dict = {}

    def window(self, k: int) -> dict:
        """The windowed kernels' arrays (one window's accumulator, touched list and bitmap) and top-k
        selection's, for a search of the top k: made anew when the window size changes."""
        buf = self.buf
        w = max(64, min(window_size(k), -(-self.coll.n_docs // 64) * 64))  # or a small collection whole
        if not buf or buf["wacc"].shape[0] != w:  # (another window size: every scratch array made anew)
            buf = self.buf = {
                "wacc": np.zeros(w, np.float64), "wtouched": np.empty(w, np.int64),
                "wbits": np.zeros(w // 64, np.uint64),
                "hist": np.empty(N_BUCKETS, np.int64),
            }
        if len(buf.get("sel", ())) < k:
            buf["sel"], buf["tmp"] = np.empty(k, np.uint64), np.empty(k, np.uint64)
        return buf

    def as_window(self) -> Window:
        return Window(self.buf["wacc"], self.buf["wtouched"], self.buf["wbits"])

    def selection(self) -> Selection:
        return Selection(self.buf["sel"], self.buf["tmp"], self.buf["hist"])

    def groups(self, n_groups: int) -> dict:
        """Collection-sized arrays of the term-at-a-time kernels (kernels/exhaustive.py), made on first use."""
        buf, coll = self.buf, self.coll
        n = coll.n_docs
        if "acc" not in buf:
            buf["acc"], buf["touched"] = np.zeros(n, np.float64), np.empty(n + 1, np.int64)
        if coll.packed is not None and "dbuf" not in buf:  # a term's list, decoded
            buf["dbuf"], buf["tbuf"] = np.empty(coll.max_df, np.uint32), np.empty(coll.max_df, coll.tf_dtype)
        elif "dbuf" not in buf:
            buf["dbuf"], buf["tbuf"] = np.empty(0, np.uint32), np.empty(0, coll.tfs.dtype)
        if "groups" not in buf or buf["groups"].shape[0] < n_groups:
            buf["groups"] = np.zeros((n_groups, n), np.float64)
            buf["total"] = np.zeros(n, np.float64)
            buf["term_touched"] = np.empty(n + 1, np.int64)
        return buf

    def window_groups(self, n_acc: int, queries: Clauses) -> dict:
        """The grouped kernel's: n_acc window sums, a window of pseudo term frequencies and their list
        (zeroed, handed back zeroed), and for packed postings room to decode the longest query's lists
        (grown as needed)."""
        buf, coll = self.buf, self.coll
        w = buf["wacc"].shape[0]
        if buf.get("gacc") is None or buf["gacc"].shape[0] < n_acc:
            buf["gacc"] = np.zeros((n_acc, w), np.float64)
            buf["pseudo"], buf["ptouched"] = np.zeros(w, np.float64), np.empty(w, np.int64)
        need = 0
        if coll.packed is not None:
            a, z = int(queries.q_ptr[0]), int(queries.q_ptr[-1])
            f, t = queries.field[a:z], queries.term[a:z]
            reach = np.concatenate([[0], np.cumsum(coll.offsets[f, t + 1] - coll.offsets[f, t])])
            need = int(np.diff(reach[queries.q_ptr - a]).max(initial=0))
        if "qdbuf" not in buf or len(buf["qdbuf"]) < need:
            buf["qdbuf"] = np.empty(need, np.uint32)
            buf["qtbuf"] = np.empty(need, coll.tf_dtype if coll.packed is not None else coll.tfs.dtype)
        return {"gacc": buf["gacc"][:n_acc], "pseudo": buf["pseudo"], "ptouched": buf["ptouched"],
                "qdbuf": buf["qdbuf"], "qtbuf": buf["qtbuf"]}
