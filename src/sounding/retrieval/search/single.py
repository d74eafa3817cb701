"""The per-query path: `Searcher.search` with one query, as an application embedding Sounding calls it.

A batch spreads its Python work over many queries; one query cannot, and that work (analysis, clause
arrays, the kernel's arguments, the results' settings) cost ~50 µs a query, several times the kernel's
own at top 10 on a small collection. So this path keeps what repeats:

* per BM25 setting (`Plan`, the last one searched): its arrays and the kernel's constant arguments;
* per query text (the plan's last TEXTS texts): its clauses, the terms looked up and their lists' part
  of the setting made once, the text analysed by the compiled chain straight to index term ids
  (analysis/compiled.py, `grow` off) where the analyzer has one;
* per thread and setting: the kernel's arguments, with the thread's scratch (the Searcher's).

A query is then one compiled call (`search_one`). Where a setting's queries read many postings, the call
lets the GIL go for the kernel and takes part in a turn (kernels/handover.py) so that the thread coming
back from its kernel takes the GIL as the other lets it go, without a sleep: client threads each searching
one query run side by side. The hits, scores and settings are those the batch path gives the same query
(the same kernel, kernels/windowed.py); the path takes the sum layouts (flat, multifield) on raw postings
without a proximity bonus, typos or Anserini's ties, and leaves everything else to the batch path.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Mapping

import numba as nb
import numpy as np

from ... import validate
from .hits import Results
from .kernels import handover, windowed
from .kernels.clauses import Clauses
from .kernels.postings import Postings
from .kernels.selection import Ranking, Selection, TopK
from .kernels.window import LOOKUP_RATIO, Window
from .params import BM25Params
from .queries import clause_arrays

TEXTS = 1 << 14  # query texts whose clauses a plan keeps (the oldest go first)


def _search_one(c_field, c_term, c_weight, offsets, docs, tfs, impacts, imp_base, lucene, maxima, max_base, prune,
                lookup_ratio, rank, rank_to_doc, rank_bits, k, wacc, wtouched, wbits, sel, tmp, hist):
    """kernels.windowed.search_windowed for one query given as plain arrays (a call's arguments cost
    less to pass than the kernel's grouped ones): (docs (1, k) int64, -1 past the hits; scores (1, k)
    float32; count (1,) int64)."""
    out_docs = np.full((1, k), -1, np.int64)
    out_scores = np.zeros((1, k), np.float32)
    out_n = np.zeros(1, np.int64)
    q_ptr = np.zeros(2, np.int64)
    q_ptr[1] = c_field.shape[0]
    windowed.search_windowed(Clauses(q_ptr, c_field, c_term, c_weight), Postings(offsets, docs, tfs), impacts,
                             imp_base, lucene, maxima, max_base, prune, lookup_ratio,
                             Ranking(rank, rank_to_doc, rank_bits, k), TopK(out_docs, out_scores.view(np.uint32), out_n),
                             Window(wacc, wtouched, wbits), Selection(sel, tmp, hist))
    return out_docs, out_scores, out_n


search_one_gil = nb.njit(cache=True)(_search_one)


def _search_one_released(c_field, c_term, c_weight, offsets, docs, tfs, impacts, imp_base, lucene, maxima, max_base,
                         prune, lookup_ratio, rank, rank_to_doc, rank_bits, k, wacc, wtouched, wbits, sel, tmp, hist,
                         turn, me):
    """search_one_gil without the GIL, taking part in the turn (`turn`, this thread's mark `me`)."""
    handover.give_up(turn, me)
    out = search_one_gil(c_field, c_term, c_weight, offsets, docs, tfs, impacts, imp_base, lucene, maxima, max_base,
                         prune, lookup_ratio, rank, rank_to_doc, rank_bits, k, wacc, wtouched, wbits, sel, tmp, hist)
    handover.wait_for(turn, me)
    return out


search_one = nb.njit(nogil=True, cache=True)(_search_one_released)

# Mean postings a query of a setting reads (over the texts searched so far) from which its queries' kernels
# let the GIL go. Each query holds the GIL for ~5 µs of Python (the call, its arguments, the results), about
# twice that while another thread searches (the objects it touches come from the other core's cache); a
# kernel much shorter than that gains nothing from a second thread, and each hand-over costs. Measured at
# top 10, two client threads against one, each searching the dataset's queries over and over
# (docs/benchmarks-log.md, third 2026-12-05 round): nfcorpus (mean 671 postings, ~3 µs kernels)
# 0.64x one thread when every kernel lets go, 0.88x when none does; scifact (4,376) 1.22x against 0.79x;
# synthetic-0.05 (12,831) 1.69x against 1.22x. Queries of one setting all go one way: mixing the two was
# slower than either (a thread holding the GIL through its kernel keeps the other waiting for it).
RELEASE_POSTINGS = 1 << 11


@nb.njit(cache=True)
def list_state(offsets, filled, c_field, c_term):
    """The postings in a query's lists, and whether the setting has made all of them (`filled`: per
    field and term, or empty when the setting makes nothing per list)."""
    n_terms = offsets.shape[1] - 1
    postings = 0
    made = True
    for i in range(c_field.shape[0]):
        f, t = c_field[i], c_term[i]
        postings += offsets[f, t + 1] - offsets[f, t]
        if filled.shape[0] and not filled[f * n_terms + t]:
            made = False
    return postings, made


class Plan:
    """What one BM25 setting's single queries share: the kernel's constant arguments, the settings the
    results report, and each query text's clauses."""

    def __init__(self, searcher, params: BM25Params, warm):
        coll = searcher.collection
        self.params = params
        self.k, capped = validate.hits(params.k, searcher.index.n_docs)
        self.setting = searcher.settings.get(params, prune=searcher.prune)
        warm(params, self.setting, self.k)  # the batch path's kernels and analyzer (compiled or loaded), once
        lucene = params.lucene_norms
        self.idf = searcher.settings.idf(lucene)
        ranking = coll.ranking(self.k, ascending_ties=params.lucene_ties)
        offsets, docs, tfs = coll.postings
        s = self.setting
        self.args = (offsets, docs, tfs, s.impacts, s.impact_base, lucene, s.maxima, s.maxima_base, searcher.prune,
                     LOOKUP_RATIO, *ranking)
        self.settings = params.describe()
        self.settings["k"] = self.k
        if capped:
            self.settings["k_asked"] = params.k
        self.texts: dict[str, tuple] = {}  # text → (field, term, weight) clause arrays
        self.postings = self.searched = 0  # postings in the lists of the texts searched, and their number
        self.release = False  # whether a query's kernel lets the GIL go (RELEASE_POSTINGS)
        self.docids, self.rank = searcher.index.docids, searcher.rank
        self.filled = s.filled if s.filled is not None else np.zeros(0, np.bool_)


class SingleQuery:
    """`Searcher.search` of one query (see the module's docstring)."""

    def __init__(self, searcher, warm, scratch):
        """`warm(params, setting, k)` compiles (or loads) the batch path's kernels; `scratch()` is the
        calling thread's Scratch."""
        self.searcher = searcher
        self._warm, self._thread_scratch = warm, scratch
        self._local = threading.local()
        self._plan: Plan | None = None
        self._last: tuple | None = None  # the options of the last call by name, and their BM25Params
        self._lock = threading.RLock()
        self._chain = None  # the compiled analysis, over the index's vocabulary (made on first use)

    @staticmethod
    def handles(searcher, params: BM25Params) -> bool:
        """Whether this path searches `params` (else the batch path does)."""
        return (params.layout.kind.kernel == "sum" and searcher.collection.packed is None and not params.proximity
                and not params.typos and not params.anserini_ties)

    def search(self, queries, params: BM25Params | None, threads, options: dict) -> Results | None:
        """`Searcher.search(queries, params, threads=threads, **options)` when `queries` is one query this
        path takes, else None."""
        kind = type(queries)
        if (kind is list or kind is tuple) and len(queries) == 1:
            qid, text = queries[0]
        elif isinstance(queries, Mapping) and len(queries) == 1:
            qid, text = next(iter(queries.items()))
        else:
            return None
        if threads != 1:
            validate.threads(threads)  # (results do not depend on it)
        last = self._last  # the same options as the last call give the same params: checked once
        if params is None and last is not None and last[0] == options:
            params = last[1]
        else:
            given = params
            params = BM25Params.of(params, **options)
            if given is None:
                self._last = (options, params)
        plan = self._plan
        if plan is None or plan.params is not params:
            if not self.handles(self.searcher, params):
                return None
            plan = self._plan_for(params)
        start = time.perf_counter()
        clauses = plan.texts.get(text)
        filling = 0.0
        if clauses is None:
            clauses, filling = self._clauses(plan, text)
        call = getattr(self._local, "call", None)
        if call is None or call[0] is not plan:
            call = self._local.call = self._call_for(plan, call)
        last, mark = handover.LAST, call[2][-1]  # (kernels/handover.py)
        if last[0] != mark:
            last[0], last[1] = mark, handover.SIDE_BY_SIDE
        elif last[1]:
            last[1] -= 1
        if plan.release and last[1]:
            docs, scores, counts = search_one(*clauses, *call[2])
        else:
            docs, scores, counts = search_one_gil(*clauses, *call[1])
        seconds = time.perf_counter() - start - filling
        settings = dict(plan.settings)
        settings["empty_queries"] = [] if len(clauses[0]) else [qid]
        return Results([qid], docs, scores, counts, plan.docids, seconds, settings, plan.rank, filling)

    def _call_for(self, plan: Plan, last: tuple | None) -> tuple:
        """This thread's arguments to the kernel for `plan`: (plan, search_one_gil's: the plan's arguments and
        this thread's scratch, search_one's: those, the turn and this thread's mark). The plan's arrays are
        passed as this thread's own views of them: a call changes the reference count of each array it is
        given, and an array object two threads share moves between their cores' caches at every query
        (~0.1 µs an array; a call takes 17)."""
        buf = self._thread_scratch().window(plan.k)
        mark = last[2][-1] if last is not None else handover.mark()
        own = tuple(a.view() if isinstance(a, np.ndarray) else a for a in plan.args)
        held = own + (buf["wacc"], buf["wtouched"], buf["wbits"], buf["sel"], buf["tmp"], buf["hist"])
        return plan, held, held + (handover.TURN.view(), mark)

    def _plan_for(self, params: BM25Params) -> Plan:
        with self._lock:
            plan = self._plan
            if plan is None or plan.params != params:
                plan = Plan(self.searcher, params, self._warm)
                self._load_kernels(plan)
            self._plan = plan
            return plan

    def _load_kernels(self, plan: Plan) -> None:
        """Call each of this path's compiled functions once, before the first query: numba compiles
        (or loads from its cache) a function at its first call, 10-50 ms each."""
        chain = self._chain if self._chain is not None else self._compiled_chain()
        if chain is not False:
            chain.query("warm up \u00fcber")  # a key for the Python filters too
        none, weights = np.zeros(0, np.int64), np.zeros(0, np.float64)
        clause_arrays(self.searcher.collection, np.zeros(1, np.int64), none, weights, plan.params.layout, plan.setting,
                      plan.params.k1, plan.params.lucene_norms, plan.idf)
        list_state(self.searcher.collection.offsets, plan.filled, none, none)
        buf = self._thread_scratch().window(plan.k)
        scratch = (buf["wacc"], buf["wtouched"], buf["wbits"], buf["sel"], buf["tmp"], buf["hist"])
        search_one_gil(none, none, weights, *plan.args, *scratch)
        search_one(none, none, weights, *plan.args, *scratch, np.zeros(1, np.int64), 1)

    def _clauses(self, plan: Plan, text: str) -> tuple[tuple, float]:
        """A query text's clause arrays (field, term, weight), its lists' part of the setting made (and the
        seconds that took); the plan's count of postings read a query updated."""
        s = self.searcher
        params = plan.params
        terms, counts = self._terms(text)
        _, c_field, c_term, c_weight = clause_arrays(s.collection, np.array([len(terms)], np.int64), terms, counts,
                                                     params.layout, plan.setting, params.k1, params.lucene_norms,
                                                     plan.idf)[:4]
        postings, made = list_state(s.collection.offsets, plan.filled, c_field, c_term)
        filling = 0.0 if made else s.settings.fill(plan.setting, c_field, c_term)
        clauses = (c_field, c_term, c_weight)
        plan.postings += postings
        plan.searched += 1
        plan.release = plan.postings >= RELEASE_POSTINGS * plan.searched
        texts = plan.texts
        if len(texts) >= TEXTS:
            texts.pop(next(iter(texts)), None)
        texts[text] = clauses
        return clauses, filling

    def _terms(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        """The text's distinct index terms, first occurrence first, and how often each occurs (the counts
        QueryAnalysis.matches gives): by the compiled chain where the analyzer has one."""
        chain = self._chain
        if chain is None:
            chain = self._compiled_chain()
        if chain is not False:
            return chain.query(text)
        queries = self.searcher.queries
        with queries.lock:
            matches = queries.analyse_batch((text,), False, 0.0)[0]
        return (np.array([t for t, _ in matches], np.int64), np.array([c for _, c in matches], np.float64))

    def _compiled_chain(self):
        with self._lock:
            if self._chain is None:
                analyzer = self.searcher.queries.analyze
                if not hasattr(analyzer, "compiled"):
                    self._chain = False
                else:
                    from ...analysis.bytetable import ByteTable

                    terms = self.searcher.index.terms
                    vocab = ByteTable(max(2, len(terms)), max(1 << 16, 16 * len(terms)))
                    vocab.add_all(terms)  # entry i = term id i (terms.txt's order)
                    self._chain = analyzer.compiled(vocab, grow=False)
            return self._chain
