"""Which compiled kernel searches a layout, and with what arguments: `KERNELS`, keyed by `LayoutKind.kernel`.

A kernel call searches one block of a batch's queries (`Block`: the clauses of queries lo..hi−1 and where
their hits go) with one thread's `Scratch`, and returns the postings a pruned kernel read. The sum layouts
(flat, multifield) run the windowed kernel over raw or packed postings, pruned or not; the grouped layouts
run the pruned grouped kernel, or with pruning off their term-at-a-time kernels (kernels/exhaustive.py),
the reference whose bits the pruned ones give. A call holds no Python object in compiled code, so any
number of threads call at once without the GIL; a per-query caller makes a one-query `Block` and keeps a
`Scratch` per thread.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .collection import Collection
from .kernels import exhaustive, grouped, window, windowed, windowed_packed
from .kernels.clauses import Clauses
from .kernels.postings import PackedHeld
from .kernels.selection import TopK
from .params import BM25Params
from .scratch import Scratch
from .setting_build import SettingArrays


class Block(NamedTuple):
    """Queries lo..hi−1 of a batch, searched into rows lo..hi−1 of the outputs."""

    coll: Collection
    params: BM25Params
    setting: SettingArrays
    clauses: tuple  # (ptr, field, term, weight, group, idf) of the whole batch (queries.make_clauses)
    k: int
    out_docs: np.ndarray
    out_scores: np.ndarray
    out_n: np.ndarray
    prune: bool
    ascending_ties: bool  # of documents tied at the cut, keep those first in docid byte order (Lucene's)

    def queries(self, lo: int, hi: int) -> Clauses:
        ptr, c_field, c_term, c_weight = self.clauses[:4]
        return Clauses(ptr[lo : hi + 1], c_field, c_term, c_weight)

    def top_k(self, lo: int, hi: int) -> TopK:
        return TopK(self.out_docs[lo:hi], self.out_scores.view(np.uint32)[lo:hi], self.out_n[lo:hi])


class SumKernel:
    """One sum of clauses per document, heaviest clause first (flat, multifield): kernels/windowed.py."""

    def run(self, b: Block, scratch: Scratch, lo: int, hi: int) -> int:
        coll, setting, lucene = b.coll, b.setting, b.params.lucene_norms
        ptr, c_field, c_term = b.clauses[:3]
        scratch.window(b.k)
        queries, ranking, out = b.queries(lo, hi), coll.ranking(b.k, ascending_ties=b.ascending_ties), b.top_k(lo, hi)
        if coll.packed is not None:
            held = setting.list_cache(coll.packed, lucene).held(c_field, c_term, int(ptr[lo]), int(ptr[hi]))
            return windowed_packed.search_windowed_packed(queries, coll.packed, setting.norms, lucene, setting.maxima,
                                                          b.prune, window.LOOKUP_RATIO, ranking, out,
                                                          scratch.as_window(), scratch.selection(), held)
        return windowed.search_windowed(queries, coll.postings, setting.impacts, setting.impact_base, lucene,
                                        setting.maxima, setting.maxima_base, b.prune, window.LOOKUP_RATIO, ranking,
                                        out, scratch.as_window(), scratch.selection())


class GroupedKernel:
    """Clauses summed per group in the query's order (kernels/grouped.py; pruning off: kernels/exhaustive.py):
    `merged_tf`, one saturation of each term's merged field frequencies (BM25F); else each field's sum, the
    largest scoring (multifield-max)."""

    def __init__(self, merged_tf: bool):
        self.merged_tf = merged_tf

    def run(self, b: Block, scratch: Scratch, lo: int, hi: int) -> int:
        coll, setting, params = b.coll, b.setting, b.params
        lucene, k1 = params.lucene_norms, float(params.k1)
        ptr, c_field, c_term, _, c_group, c_idf = b.clauses
        buf = scratch.window(b.k)
        queries, ranking, out = b.queries(lo, hi), coll.ranking(b.k, ascending_ties=b.ascending_ties), b.top_k(lo, hi)
        postings = coll.postings
        n_groups = len(params.layout.weights)
        if not b.prune:  # every posting scored, term at a time
            if self.merged_tf:
                g = scratch.groups(1)
                exhaustive.search_bm25f(queries, c_group, c_idf, k1, postings, setting.norms, ranking, out,
                                        g["acc"], g["touched"], g["term_touched"], g["total"], scratch.selection(),
                                        g["dbuf"], g["tbuf"])
            else:
                g = scratch.groups(n_groups)
                exhaustive.search_sum(queries, c_group, n_groups, True, postings, setting.norms, lucene, ranking, out,
                                      g["groups"], g["total"], g["touched"], scratch.selection(), g["dbuf"], g["tbuf"])
            return 0
        n_acc = 1 if self.merged_tf else n_groups  # multifield-max: one sum per field
        g = scratch.window_groups(n_acc, queries)
        if coll.packed is not None:  # lists asked for again are held decoded (document ids and tfs)
            postings = PackedHeld(*postings, *setting.list_cache(postings, lucene, coll.tf_dtype).held(
                c_field, c_term, int(ptr[lo]), int(ptr[hi])))
        return grouped.search_grouped(queries, c_group, c_idf, self.merged_tf, k1, n_acc, postings, setting.norms,
                                      lucene, setting.impacts, setting.impact_base, setting.min_y, setting.maxima,
                                      setting.maxima_base, window.LOOKUP_RATIO, grouped.ORDER_ULPS, ranking, out,
                                      g["gacc"], buf["wbits"], buf["wtouched"], g["pseudo"], g["ptouched"],
                                      scratch.selection(), g["qdbuf"], g["qtbuf"])


KERNELS = {"sum": SumKernel(), "max": GroupedKernel(merged_tf=False), "bm25f": GroupedKernel(merged_tf=True)}
