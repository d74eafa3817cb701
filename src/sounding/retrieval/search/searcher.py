"""Batch BM25 search over an index: `Searcher` coordinates the pieces, each in its own module.

    collection.py     the index's arrays a search reads (postings, ranks, statistics)
    queries.py        query texts → matched terms → the setting's clauses
    setting_build.py  a BM25 setting's norms, impacts, block maxima, idf (made once, list by list)
    dispatch.py       which compiled kernel searches a layout (kernels/), per block of queries
    scratch.py        each search thread's scratch arrays
    bonus.py          the proximity bonus added to a top k; kernels/ties.py Anserini's ties
    hits.py           `Results`, the arrays handed back
    single.py         one query at a time, as an application asks: its clauses kept, one compiled call
"""
from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Iterable, Iterator, Mapping

import numpy as np

from ... import validate
from ...analysis import get_analyzer
from ...errors import SoundingError
from ...index import Index
from ...index.pages import release_pages
from .collection import Collection
from .dispatch import KERNELS, Block
from .hits import Results
from .kernels.ties import apply_anserini_ties
from .params import BM25Params
from .queries import QueryAnalysis, make_clauses
from .scratch import Scratch
from .setting_build import SettingBuilder
from .single import SingleQuery

if TYPE_CHECKING:
    from .stats import GlobalStats


def _items(queries: Mapping[str, str] | Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """(qid, text) pairs of a mapping or an iterable of pairs, in their order."""
    return list(queries.items()) if isinstance(queries, Mapping) else list(queries)


class Searcher:
    """BM25 over one index, with the BM25 setting chosen per search (nothing baked in).

    Every search takes a `BM25Params` (or its fields by name: `layout`, `k1`, `b`, `k`, `lucene_norms`,
    `title_weight`, `proximity`, `window`, `typos`, `typo_factor`, `anserini_ties`, `lucene_ties`).

    `prune` (default on) lets every layout skip work that cannot change the top k (exact dynamic
    pruning: kernels/windowed.py for flat and multifield, kernels/grouped.py for multifield-max and bm25f);
    off, every posting is scored (bm25f and multifield-max by kernels/exhaustive.py). The results are the
    same bit for bit; the switch is there to check that.
    """

    def __init__(self, index: Index | str, *, analyzer: str | None = None, stats: GlobalStats | None = None):
        """`stats`: collection statistics to score with instead of this index's own — the merged
        statistics of all shards, so that a shard scores every document exactly as one index would."""
        self.index = index if isinstance(index, Index) else Index(index)
        self.collection = Collection(self.index, stats)
        self.queries = QueryAnalysis(get_analyzer(analyzer or self.index.analyzer), self.index)
        self.settings = SettingBuilder(self.collection)
        self._compiled: set = set()  # kernels already compiled (or loaded) for this process
        self._local = threading.local()  # per-thread scratch buffers, reused across searches
        self._pool: tuple[ThreadPoolExecutor | None, int] = (None, 0)  # search threads and their number
        self.prune = True
        self.postings_read = 0  # by the last search's pruned kernel (read in full or looked up): a diagnostic
        self.single = SingleQuery(self, self._compile, self._scratch)  # one query at a time (single.py)

    @property
    def analyze(self):
        """The analyzer: text → tokens."""
        return self.queries.analyze

    @property
    def rank(self) -> np.ndarray:
        """Each document's place in docid byte order (trec_eval's tie order)."""
        return self.collection.rank

    # -- public -------------------------------------------------------------------------------
    def search(self, queries: Mapping[str, str] | Iterable[tuple[str, str]], params: BM25Params | None = None, /, *,
               threads: int = 1, **options) -> Results:
        """Top-k documents per query, best first, for the BM25 setting `params` (with `options` in place
        of its own values; without it, `options` over the defaults): see `BM25Params`.

        `proximity` > 0 adds weight × a term-proximity bonus to the top k (needs an index built with
        positions); `typos` also matches index terms within a length-based typo budget, each typo
        multiplying the variant's weight by `typo_factor` (see docs/scoring.md).
        `anserini_ties` hands back what Pyserini writes: ties ordered by id ascending, Anserini's
        ScoreTiesAdjusterReranker and "%.6f" scores (with `lucene_norms`: Pyserini's run, exactly).
        `lucene_ties` keeps, of the documents tied at the cut, those first in docid byte order, as Lucene
        does (the hits then run score descending, id ascending); `anserini_ties` implies it, but for a
        proximity bonus, which reorders the top k afterwards (the ties are then re-picked from the top 2k).
        Results do not depend on `threads`.
        """
        if self.prune:
            single = self.single.search(queries, params, threads, options)  # one query, as an application asks
            if single is not None:
                return single
        params = BM25Params.of(params, **options)
        threads = validate.threads(threads)
        items = _items(queries)
        k, capped = validate.hits(params.k, self.index.n_docs)  # more hits than documents cannot be returned
        if params.proximity and self.index.positions is None:
            raise SoundingError(f"{self.index.root}: proximity needs positions; rebuild with `sounding index --positions`")
        setup = time.perf_counter()
        setting = self.settings.get(params, prune=self.prune)  # norms (impacts and maxima as lists are read): outside the timing
        self._compile(params, setting, k)
        if params.typos:
            self.queries.warm_typos()  # outside the timing
        start = time.perf_counter()
        setup = start - setup
        matches = self.queries.analysed(items, params.typos, params.typo_factor)
        clauses = make_clauses(self.collection, matches, params.layout, setting, params.k1, params.lucene_norms,
                               self.settings.idf(params.lucene_norms))
        filling = self.settings.fill(setting, clauses[1], clauses[2])  # the setting's part these queries read
        n_q = len(items)
        # Lucene keeps, of the documents tied at the cut, those with the lowest ids: the kernels cut in that order
        # (Block.ascending_ties). A proximity bonus reorders the top k afterwards: with Anserini's ties it gets the
        # top 2k to re-pick the ties from, as it gets its candidates.
        ascending_ties = params.lucene_ties or (params.anserini_ties and not params.proximity)
        k_out, k = k, (2 * k if params.anserini_ties and params.proximity else k)
        out_docs = np.full((n_q, k), -1, dtype=np.int64)
        out_scores = np.zeros((n_q, k), dtype=np.float32)
        out_n = np.zeros(n_q, dtype=np.int64)
        block = Block(self.collection, params, setting, clauses, k, out_docs, out_scores, out_n, self.prune,
                      ascending_ties)
        n_blocks = max(1, min(threads, n_q))
        if n_blocks == 1:
            self.postings_read = self._run(block, 0, n_q)
        else:  # contiguous blocks of queries, one per thread; each query is computed by one thread
            cuts = np.linspace(0, n_q, n_blocks + 1).astype(int)
            self.postings_read = sum(self._thread_pool(n_blocks).map(self._run, [block] * n_blocks, cuts[:-1],
                                                                     cuts[1:]))
        if params.proximity:
            from .bonus import add_proximity

            add_proximity(self.collection, matches, out_docs, out_scores, out_n, params.proximity, params.window)
        if params.anserini_ties:
            out_docs, out_scores, out_n = apply_anserini_ties(out_docs, out_scores, out_n, k_out, self.rank)
        seconds = time.perf_counter() - start - filling
        settings = params.describe()
        settings["k"] = k_out
        if capped:
            settings["k_asked"] = params.k  # more hits than documents were asked for: k is the collection size
        settings["empty_queries"] = [q for (q, _), m in zip(items, matches) if not m]
        return Results([q for q, _ in items], out_docs, out_scores, out_n, self.index.docids, seconds, settings,
                       self.rank, setup + filling)

    def search_batches(self, queries: Mapping[str, str] | Iterable[tuple[str, str]], params: BM25Params | None = None,
                       /, *, batch: int = 1024, threads: int = 1, **options) -> Iterator[Results]:
        """`search` (same options) `batch` queries at a time, in the order given: each query gets the
        hits one search of all would give it, and memory is bound by the batch, not by the number of
        queries (a run file can be written as the batches come)."""
        batch = validate.integer("batch", batch)
        params = BM25Params.of(params, **options)
        items = _items(queries)
        for a in range(0, len(items), batch):
            yield self.search(items[a : a + batch], params, threads=threads)

    def prepare(self, queries: Mapping[str, str] | Iterable[tuple[str, str]], params: BM25Params | None = None, /, *,
                threads: int = 1, **options) -> float:
        """Analyse these queries and make the part of the BM25 setting they read (impacts and block maxima of
        their lists, one thread), for a `search` of the same queries and setting to come, which then only
        searches. A caller searching batch after batch prepares the next batch in another thread while this
        one's kernel runs (`search_to_run`): at NQ size (synthetic) making each batch's lists in the searching
        thread cost ~0.6 s of a 5 s command. `threads` is ignored; bad values raise as in `search`. Returns
        the seconds spent making lists. Packed postings: analysis only (their lists are held decoded in a
        bounded cache that a concurrent search reads)."""
        params = BM25Params.of(params, **options)
        matches = self.queries.analysed(_items(queries), params.typos, params.typo_factor)
        if self.collection.packed is not None:
            return 0.0
        setting = self.settings.get(params, prune=self.prune)
        clauses = make_clauses(self.collection, matches, params.layout, setting, params.k1, params.lucene_norms,
                               self.settings.idf(params.lucene_norms))
        return self.settings.fill(setting, clauses[1], clauses[2], threads=1)

    def analyse(self, queries: Mapping[str, str] | Iterable[tuple[str, str]], params: BM25Params | None = None, /,
                **options) -> None:
        """Analyse these queries now for a `search` of the same texts (and typo options) to come, which then
        finds them analysed (the last two batches are kept): a caller searching batch after batch analyses
        the next batch in another thread while this one's kernel (which holds no GIL) runs."""
        params = BM25Params.of(params, **options)
        self.queries.analysed(_items(queries), params.typos, params.typo_factor)

    def release_postings(self) -> None:
        """Let go of this process's resident pages of the mapped postings (a later search faults them back in
        from the page cache): a caller keeping one Searcher for settings that read other fields (`sounding
        run`) then holds only what the next setting reads, as a new Searcher would."""
        for name in ("docs", "tfs", "packed"):
            arr = getattr(self.index, name, None)
            if arr is not None:
                release_pages(arr)

    # -- internals ----------------------------------------------------------------------------
    def _run(self, block: Block, lo: int, hi: int) -> int:
        """Queries lo..hi−1 of the block through its layout's kernel, with this thread's scratch."""
        return KERNELS[block.params.layout.kind.kernel].run(block, self._scratch(), lo, hi)

    def _scratch(self) -> Scratch:
        """This thread's scratch arrays (made on its first search)."""
        scratch = getattr(self._local, "scratch", None)
        if scratch is None:
            scratch = self._local.scratch = Scratch(self.collection)
        return scratch

    def _thread_pool(self, threads: int) -> ThreadPoolExecutor:
        """Search threads kept between calls, so their scratch buffers (thread-local, the size of
        the collection) are made once, not per search."""
        pool, size = self._pool
        if size < threads:
            if pool is not None:
                pool.shutdown(wait=False)
            pool = ThreadPoolExecutor(threads, thread_name_prefix="sounding-search")
            self._pool = (pool, threads)
        return pool

    def _compile(self, params: BM25Params, setting, k: int) -> None:
        """Compile (or load from numba's cache) the kernel with an empty batch, outside any timing,
        once per kernel: a query-at-a-time caller pays no extra call. The clause builder and the
        analyzer are warmed up the same way, once."""
        lucene = params.lucene_norms
        if ("clauses", lucene) not in self._compiled:  # Lucene's idf is float32: its own compiled version
            self.queries.warm()
            make_clauses(self.collection, [[]], params.layout, setting, params.k1, lucene, self.settings.idf(lucene))
            self._compiled.add(("clauses", lucene))
        kernel = (params.layout.kind.kernel, lucene, self.prune)
        if kernel not in self._compiled:
            empty = (np.zeros(1, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.float64),
                     np.zeros(0, np.int64), np.zeros(0, np.float64))
            self._run(Block(self.collection, params, setting, empty, k, np.zeros((0, k), np.int64),
                            np.zeros((0, k), np.float32), np.zeros(0, np.int64), self.prune, False), 0, 0)
            self._compiled.add(kernel)
