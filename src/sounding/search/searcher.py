"""Batch BM25 search over an index: query analysis, clause building, parallel compiled kernels."""
from __future__ import annotations

import mmap
import os
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cached_property, partial
from typing import Iterable, Iterator, Mapping

import numpy as np

from ..analysis import get_analyzer
from .. import validate
from ..errors import SoundingError
from ..index import Index
from . import bm25, bounds, clauses, grouped, topk, windowed, windowed_packed
from ..index.packed import decode_list
from ..index.pages import release_pages as _release_pages
from .ties import apply_anserini_ties
from .layouts import Layout


SUM_LAYOUTS = ("flat", "multifield")  # one group of clauses: the pruned sum kernel
GROUPED_LAYOUTS = ("multifield-max", "bm25f")  # sums in the query's order: the pruned grouped kernel
IMPACT_BLOCK = 1 << 22  # postings per range of terms when computing packed block maxima (4 M)
SETUP_THREADS = 4  # at most, for a setting's impacts and maxima (compiled, no GIL): whatever cores the machine has, up to this
FILL_MIN_POSTINGS = 1 << 20  # postings a setting-building thread is given at least (fewer: not worth a thread)


def _hit_ids(docids, docs: np.ndarray, counts: np.ndarray) -> list[str]:
    """The ids of every hit, row by row (the first counts[i] of row i): for ids kept as docids.txt's bytes,
    gathered by compiled code and decoded in one call, not one Python call an id."""
    mask = np.arange(docs.shape[1]) < np.asarray(counts)[:, None]
    hit_docs = docs[mask]
    if not isinstance(getattr(docids, "_blob", None), bytes) or not len(hit_docs):
        return [docids[d] for d in hit_docs.tolist()]
    from ..eval._fastscan import join_fields

    starts = np.asarray(docids._starts).astype(np.int64, copy=False)
    blob = np.frombuffer(docids._blob, np.uint8)
    return join_fields(blob, starts[hit_docs], starts[hit_docs + 1] - 1)[:-1].tobytes().decode("utf-8").split("\n")


def _items(queries: Mapping[str, str] | Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """(qid, text) pairs of a mapping or an iterable of pairs, in their order."""
    return list(queries.items()) if isinstance(queries, Mapping) else list(queries)


def _unwritten(n: int, dtype) -> np.ndarray:
    """n items of `dtype` whose memory is made page by page (4 KiB) as they are written: for arrays filled
    list by list, of which a search writes a part. numpy maps large arrays in 2 MiB transparent huge
    pages, and a list written anywhere in one makes all of it resident and zeroed: at NQ size the
    impacts of a third of the postings made ~565 MB resident instead of ~250 MB, and took longer."""
    size = n * np.dtype(dtype).itemsize
    if size < mmap.PAGESIZE:
        return np.zeros(n, dtype)
    buf = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    if hasattr(mmap, "MADV_NOHUGEPAGE"):
        buf.madvise(mmap.MADV_NOHUGEPAGE)  # where huge pages are on for every mapping
    return np.frombuffer(buf, dtype)


class LastSetting:
    """The arrays one BM25 setting needs (norms, impacts, block maxima, layout arrays), kept under the
    setting's key while it is searched again: a query-at-a-time caller repeats the setting, and
    rebuilding even the small parts cost ~20 µs a query. One setting at a time (memory): the previous
    one is let go before the next is made."""

    def __init__(self):
        self.key: tuple | None = None
        self.value = None

    def get(self, key: tuple, make):
        if self.key != key:
            self.key, self.value = None, None
            self.value = make()
            self.key = key
        return self.value


@dataclass
class Results:
    """Top-k per query: internal doc numbers (-1 padded) and float32 scores, best first."""

    qids: list[str]
    docs: np.ndarray
    scores: np.ndarray
    counts: np.ndarray
    docids: list[str]
    seconds: float = 0.0
    settings: dict = field(default_factory=dict)
    rank: np.ndarray | None = None  # each document's place in docid byte order (trec_eval's tie order)
    setup_seconds: float = 0.0  # building the BM25 setting and compiling (or loading) kernels: not in `seconds`

    def hits(self, i: int, *, remove_self_hits: bool = False) -> list[tuple[str, float]]:
        qid, ids = self.qids[i], self.docids
        out = [(ids[d], float(s)) for d, s in zip(self.docs[i, : self.counts[i]].tolist(),
                                                    self.scores[i, : self.counts[i]].tolist())]
        return [h for h in out if h[0] != qid] if remove_self_hits else out

    def to_run(self, *, remove_self_hits: bool = False) -> dict[str, dict[str, float]]:
        """qid → {docid: score} (the Run type of sounding.eval); own hits dropped if asked."""
        scores, counts = self.scores.tolist(), self.counts.tolist()  # one C call each
        ids = _hit_ids(self.docids, self.docs, self.counts)
        run, at = {}, 0
        for q, s, n in zip(self.qids, scores, counts):
            hits = dict(zip(ids[at : at + n], s[:n]))
            at += n
            if remove_self_hits:
                hits.pop(q, None)
            run[q] = hits
        return run

    def write_run(self, path, *, tag: str = "sounding", remove_self_hits: bool = False, header: str = ""):
        """Write the TREC run file `write_run(self.to_run(...), path, tag)` writes, byte for byte, from the
        arrays (compiled formatting, no Python object per hit); `.gz` names write gzip; `header`: comment
        lines first (an ir_metadata header). Returns the path."""
        from ..eval.runfile import write_results

        return write_results(self, path, tag=tag, remove_self_hits=remove_self_hits, header=header)

    @property
    def queries_per_second(self) -> float:
        return len(self.qids) / self.seconds if self.seconds else float("inf")


class Searcher:
    """BM25 over one index, with k1, b and the layout chosen per search (nothing baked in).

    `prune` (default on) lets every layout skip work that cannot change the top k (exact dynamic
    pruning: windowed.py for flat and multifield, grouped.py for multifield-max and bm25f); off, every
    posting is scored (bm25f and multifield-max by the term-at-a-time kernels of topk.py). The results
    are the same bit for bit; the switch is there to check that.
    """

    def __init__(self, index: Index | str, *, analyzer: str | None = None, stats: "GlobalStats | None" = None):
        """`stats`: collection statistics to score with instead of this index's own — the merged
        statistics of all shards, so that a shard scores every document exactly as one index would."""
        self.index = index if isinstance(index, Index) else Index(index)
        self.analyze = get_analyzer(analyzer or self.index.analyzer)
        ix = self.index
        self._offsets = np.asarray(ix.offsets)
        self._packed = None  # packed postings (windowed_packed.PackedPostings), or raw docs and tfs
        if ix.postings == "packed":
            self._docs = self._tfs = None
            self._packed = windowed_packed.PackedPostings(self._offsets, ix.first_blocks, np.asarray(ix.blk_last),
                                                          np.asarray(ix.blk_start), np.asarray(ix.blk_width),
                                                          np.asarray(ix.packed))
        else:
            self._docs = np.asarray(ix.docs)
            self._tfs = np.asarray(ix.tfs)
        self._rank = np.asarray(ix.docid_rank)
        self._rank_to_doc = np.empty(len(self._rank), np.int64)  # the inverse permutation, in O(n)
        self._rank_to_doc[self._rank] = np.arange(len(self._rank), dtype=np.int64)
        self._rank_bits = max(1, int(self.index.n_docs - 1).bit_length())  # ranks are 0..n_docs-1
        if stats is None:
            self._df, self._field_stats = np.diff(self._offsets, axis=1), ix.manifest.field_stats
        else:
            self._df, self._field_stats = stats.for_index(ix)
        self._idf_cache: dict[tuple, np.ndarray] = {}
        self._settings = LastSetting()  # norms, impacts, block maxima, layout arrays of the last BM25 setting
        self._compiled: set = set()  # kernels already compiled (or loaded) for this process
        self._local = threading.local()  # per-thread scratch buffers, reused across searches
        self._analysis_lock = threading.Lock()  # the analyzer and typo matcher: one thread at a time
        self._analysed_batches: dict[tuple, list] = {}  # the last two batches' analysed texts (`_analysed`)
        self._pool: tuple[ThreadPoolExecutor | None, int] = (None, 0)  # search threads and their number
        self.prune = True
        self.postings_read = 0  # by the last search's pruned kernel (read in full or looked up): a diagnostic

    # -- public -------------------------------------------------------------------------------
    def search(
        self,
        queries: Mapping[str, str] | Iterable[tuple[str, str]],
        *,
        layout: str | Layout = "flat",
        k1: float = 0.9,
        b: float = 0.4,
        k: int = 1000,
        threads: int = 1,
        lucene_norms: bool = False,
        title_weight: float | None = None,
        proximity: float = 0.0,
        window: int = 5,
        typos: bool = False,
        typo_factor: float = 0.5,
        anserini_ties: bool = False,
        lucene_ties: bool = False,
    ) -> Results:
        """Top-k documents per query, best first.

        `proximity` > 0 adds weight × a term-proximity bonus to the top k (needs an index built with
        positions); `typos` also matches index terms within a length-based typo budget, each typo
        multiplying the variant's weight by `typo_factor` (see docs/scoring.md).
        `anserini_ties` hands back what Pyserini writes: ties ordered by id ascending, Anserini's
        ScoreTiesAdjusterReranker and "%.6f" scores (with `lucene_norms`: Pyserini's run, exactly).
        `lucene_ties` keeps, of the documents tied at the cut, those first in docid byte order, as Lucene
        does (the hits then run score descending, id ascending); `anserini_ties` implies it, but for a
        proximity bonus, which reorders the top k afterwards (the ties are then re-picked from the top 2k).
        """
        # Checked here, before any compiled kernel sees them: a negative k1 or b outside [0, 1] can
        # make the pruning bounds meaningless (endless loops), and a huge k allocates for hits that
        # cannot exist.
        k1, b = validate.bm25(k1, b)
        k_asked = validate.integer("hits (k)", k)
        k, capped = validate.hits(k_asked, self.index.n_docs)
        threads = validate.threads(threads)
        proximity = validate.weight("proximity weight", proximity)
        window = validate.integer("proximity window", window)
        typo_factor = validate.finite("typo factor", typo_factor, low=0.0, high=1.0)
        lay = layout if isinstance(layout, Layout) else Layout.named(layout, title_weight=title_weight)
        items = _items(queries)
        if lucene_norms and lay.name == "bm25f":
            raise SoundingError("lucene_norms applies to Lucene's BM25 layouts (flat, multifield, multifield-max), not bm25f")
        if lucene_ties and proximity:
            raise SoundingError("lucene_ties cuts the kernels' top k in Lucene's order; a proximity bonus reorders it "
                                "afterwards (anserini_ties re-picks the ties from the top 2k then)")
        if proximity and self.index.positions is None:
            raise SoundingError(f"{self.index.root}: proximity needs positions; rebuild with `sounding index --positions`")
        for name, w in lay.weights.items():
            validate.weight(f"{name} weight", w)
        for name, fb in lay.field_b.items():
            if fb is not None:
                validate.finite(f"{name} b", fb, low=0.0, high=1.0)
        setup = time.perf_counter()
        setting = self._setting(lay, k1, b, lucene_norms)  # norms (impacts and maxima as lists are read): outside the timing
        self._compile(lay, k1, b, lucene_norms, setting, k)
        if typos:
            with self._analysis_lock:
                self._typo_matcher.variants("warmup")  # builds the symmetric-delete index outside the timing
        start = time.perf_counter()
        setup = start - setup
        matches = self._analysed(items, typos, typo_factor)
        clauses = self._clauses(matches, lay, k1, b, lucene_norms)
        filling = self._fill_lists(setting, clauses[1], clauses[2])  # the setting's part these queries read
        n_q = len(items)
        # Lucene keeps, of the documents tied at the cut, those with the lowest ids: the kernels cut in that order
        # (`_run_block`'s ascending_ties). A proximity bonus reorders the top k afterwards: with Anserini's ties it
        # gets the top 2k to re-pick the ties from, as it gets its candidates.
        ascending_ties = lucene_ties or (anserini_ties and not proximity)
        k_out, k = k, (2 * k if anserini_ties and proximity else k)
        out_docs = np.full((n_q, k), -1, dtype=np.int64)
        out_scores = np.zeros((n_q, k), dtype=np.float32)
        out_n = np.zeros(n_q, dtype=np.int64)
        run = partial(self._run_block, lay, k1, lucene_norms, setting, clauses, k, out_docs, out_scores, out_n,
                      ascending_ties=ascending_ties)
        n_blocks = max(1, min(threads, n_q))
        if n_blocks == 1:
            self.postings_read = run(0, n_q)
        else:  # contiguous blocks of queries, one per thread; each query is computed by one thread
            cuts = np.linspace(0, n_q, n_blocks + 1).astype(int)
            self.postings_read = sum(self._thread_pool(n_blocks).map(run, cuts[:-1], cuts[1:]))
        if proximity:
            self._add_proximity(matches, out_docs, out_scores, out_n, proximity, window)
        if anserini_ties:
            out_docs, out_scores, out_n = apply_anserini_ties(out_docs, out_scores, out_n, k_out, self._rank)
        k = k_out
        seconds = time.perf_counter() - start - filling
        setup += filling
        settings = dict(layout=lay.name, k1=k1, b=b, k=k, lucene_norms=lucene_norms, weights=lay.weights,
                        proximity=proximity, window=window, typos=typos, anserini_ties=anserini_ties)
        if capped:
            settings["k_asked"] = k_asked  # more hits than documents were asked for: k is the collection size
        settings["empty_queries"] = [q for (q, _), m in zip(items, matches) if not m]
        return Results([q for q, _ in items], out_docs, out_scores, out_n, self.index.docids, seconds, settings,
                       self._rank, setup)

    def search_batches(self, queries: Mapping[str, str] | Iterable[tuple[str, str]], *, batch: int = 1024,
                       **options) -> Iterator[Results]:
        """`search` (same options) `batch` queries at a time, in the order given: each query gets the
        hits one search of all would give it, and memory is bound by the batch, not by the number of
        queries (a run file can be written as the batches come)."""
        batch = validate.integer("batch", batch)
        items = _items(queries)
        for a in range(0, len(items), batch):
            yield self.search(items[a : a + batch], **options)

    # -- internals ----------------------------------------------------------------------------
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

    def _compile(self, lay: Layout, k1, b, lucene, setting, k) -> None:
        """Compile (or load from numba's cache) the kernel with an empty batch, outside any timing,
        once per kernel: a query-at-a-time caller pays no extra call. The clause builder and the
        analyzer are warmed up the same way, once."""
        if ("clauses", lucene) not in self._compiled:  # Lucene's idf is float32: its own compiled version
            with self._analysis_lock:
                self.analyze("warm up")
            self._clauses([[]], lay, k1, b, lucene)
            self._compiled.add(("clauses", lucene))
        kernel = (lay.name if lay.name in GROUPED_LAYOUTS else "sum", lucene, self.prune)
        if kernel not in self._compiled:
            empty = (np.zeros(1, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.float64),
                     np.zeros(0, np.int64), np.zeros(0, np.float64))
            self._run_block(lay, k1, lucene, setting, empty, k, np.zeros((0, k), np.int64),
                            np.zeros((0, k), np.float32), np.zeros(0, np.int64), 0, 0)
            self._compiled.add(kernel)

    def _matches(self, tokens: list[str], typos: bool, typo_factor: float, lookup) -> list[tuple[int, float]]:
        """(term id, weight factor) per query term occurrence group of a query's analysed `tokens`, in
        first-occurrence order; `lookup(term)` gives a term's id or None.

        A term repeated in the query counts once per occurrence (Lucene's BooleanQuery); with typo
        tolerance, index terms near a query term join it, down-weighted per typo."""
        counts = Counter(tokens)  # insertion order: deterministic clause order
        if not typos:
            return [(t, float(c)) for t, c in zip(map(lookup, counts), counts.values()) if t is not None]
        out: dict[int, float] = {}
        for term, count in counts.items():
            t = lookup(term)
            if t is not None:
                out[t] = out.get(t, 0.0) + count
            for variant, n in self._typo_matcher.variants(term):
                t = lookup(variant)
                out[t] = out.get(t, 0.0) + count * typo_factor**n
        return list(out.items())

    def release_postings(self) -> None:
        """Let go of this process's resident pages of the mapped postings (a later search faults them back in
        from the page cache): a caller keeping one Searcher for settings that read other fields (`sounding
        run`) then holds only what the next setting reads, as a new Searcher would."""
        for name in ("docs", "tfs", "packed"):
            arr = getattr(self.index, name, None)
            if arr is not None:
                _release_pages(arr)

    def prepare(self, queries: Mapping[str, str] | Iterable[tuple[str, str]], *, layout: str | Layout = "flat",
                k1: float = 0.9, b: float = 0.4, lucene_norms: bool = False, title_weight: float | None = None,
                typos: bool = False, typo_factor: float = 0.5, **_search_only) -> float:
        """Analyse these queries and make the part of the BM25 setting they read (impacts and block maxima of
        their lists, one thread), for a `search` of the same queries and options to come, which then only
        searches. A caller searching batch after batch prepares the next batch in another thread while this
        one's kernel runs (`search_to_run`): at NQ size (synthetic) making each batch's lists in the searching
        thread cost ~0.6 s of a 5 s command. Options `search` alone reads are ignored; bad values raise as in
        `search`. Returns the seconds spent making lists. Packed postings: analysis only (their
        lists are held decoded in a bounded cache that a concurrent search reads)."""
        k1, b = validate.bm25(k1, b)
        typo_factor = validate.finite("typo factor", typo_factor, low=0.0, high=1.0)
        lay = layout if isinstance(layout, Layout) else Layout.named(layout, title_weight=title_weight)
        items = _items(queries)
        matches = self._analysed(items, bool(typos), typo_factor)
        if self._packed is not None or (lucene_norms and lay.name == "bm25f"):
            return 0.0
        setting = self._setting(lay, k1, b, lucene_norms)
        clauses = self._clauses(matches, lay, k1, b, lucene_norms)
        return self._fill_lists(setting, clauses[1], clauses[2], threads=1)

    def analyse(self, queries: Mapping[str, str] | Iterable[tuple[str, str]], *, typos: bool = False,
                typo_factor: float = 0.5) -> None:
        """Analyse these queries now for a `search` of the same texts (and typo options) to come, which then
        finds them analysed (the last two batches are kept): a caller searching batch after batch analyses
        the next batch in another thread while this one's kernel (which holds no GIL) runs."""
        typo_factor = validate.finite("typo factor", typo_factor, low=0.0, high=1.0)
        self._analysed(_items(queries), bool(typos), typo_factor)

    def _analysed(self, items: list[tuple[str, str]], typos: bool, typo_factor: float) -> list:
        """`_matches` of every query text, kept for the last two batches of texts: `sounding run` searches the
        same queries once per BM25 setting, and analysing them again cost ~0.3 s a setting at 3,452 queries;
        a batch analysed ahead (`analyse`, another thread) is found here. An analyzer need not be thread-safe
        (a stemmer may keep state): one thread at a time analyses, under `_analysis_lock`."""
        key = (tuple(text for _, text in items), typos, typo_factor if typos else None)
        found = self._analysed_batches.get(key)  # one dict read (atomic): no lock while another batch is analysed
        if found is not None:
            return found
        with self._analysis_lock:
            found = self._analysed_batches.get(key)
            if found is None:
                found = self._analysed_batches[key] = self._analyse_batch(key[0], typos, typo_factor)
                while len(self._analysed_batches) > 2:
                    del self._analysed_batches[next(iter(self._analysed_batches))]
            return found

    def _analyse_batch(self, texts: tuple[str, ...], typos: bool, typo_factor: float) -> list:
        """`_matches` of each text: through the analyzer's batch call where it has one (new tokens stemmed
        together), each distinct term looked up once."""
        many = getattr(self.analyze, "analyze_many", None)
        tokens = many(list(texts)) if many is not None and len(texts) > 1 else map(self.analyze, texts)
        term_ids, seen = self.index.term_ids, {}

        def lookup(term: str) -> int | None:
            return seen[term] if term in seen else seen.setdefault(term, term_ids.get(term))

        return [self._matches(toks, typos, typo_factor, lookup) for toks in tokens]

    @cached_property
    def _typo_matcher(self):
        from .typos import TypoMatcher

        return TypoMatcher(self.index.terms)

    def _idf(self, lucene: bool) -> np.ndarray:
        """idf per field and term (n_fields, n_terms): float64, or Lucene's float32 when `lucene`."""
        key = ("idf", lucene)
        if key not in self._idf_cache:
            fn = bm25.idf_lucene if lucene else bm25.idf
            fields = self.index.manifest.fields
            self._idf_cache[key] = np.stack([fn(self._df[i], self._field_stats[f].doc_count) for i, f in enumerate(fields)])
        return self._idf_cache[key]

    def _clauses(self, matches, lay: Layout, k1, b, lucene):
        """Per-query clause arrays (CSR): field, term, weight, group, and idf for bm25f (see clauses.py)."""
        fields = self.index.manifest.fields
        setting = self._setting(lay, k1, b, lucene)
        lay_fields, lay_weights = setting["lay_fields"], setting["lay_weights"]
        lens = np.fromiter((len(m) for m in matches), dtype=np.int64, count=len(matches))
        terms = np.fromiter((t for m in matches for t, _ in m), dtype=np.int64, count=sum(map(len, matches)))
        counts = np.fromiter((c for m in matches for _, c in m), dtype=np.float64, count=len(terms))
        mode = clauses.BM25F if lay.name == "bm25f" else clauses.LUCENE if lucene else clauses.DEFAULT
        return clauses.build_clauses(lens, terms, counts, lay_fields, lay_weights, self._df, self._idf(lucene),
                                     fields.index("flat"), float(k1), mode, lay.name == "multifield-max",
                                     lay.name in SUM_LAYOUTS)

    def _add_proximity(self, matches, out_docs, out_scores, out_n, weight, window) -> None:
        """Add weight × proximity bonus to each hit, then restore trec order (score desc, id desc)."""
        from .proximity import proximity_bonus

        flat = self.index.manifest.fields.index("flat")
        n_flat = self._field_stats["flat"].doc_count
        ptr = np.cumsum([0] + [len(m) for m in matches]).astype(np.int64)
        terms = np.asarray([t for m in matches for t, _ in m], dtype=np.int64)
        idf = bm25.idf(self._df[flat, terms], n_flat) if len(terms) else np.zeros(0)
        bonus = proximity_bonus(ptr, terms, idf, flat, self._offsets, self._docs, np.asarray(self.index.pos_offsets),
                                np.asarray(self.index.positions), out_docs, out_n, int(window))
        for q in range(len(matches)):
            n = int(out_n[q])
            docs = out_docs[q, :n]
            scores = (out_scores[q, :n].astype(np.float64) + weight * bonus[q, :n]).astype(np.float32)
            order = np.lexsort((-self._rank[docs].astype(np.int64), -scores))
            out_docs[q, :n], out_scores[q, :n] = docs[order], scores[order]

    def _norms(self, lay: Layout, k1, b, lucene) -> np.ndarray:
        """Per field and document: k1·(1−b+b·len/avg) (default), Lucene's 1/norm, or 1/B_f (bm25f)."""
        ix = self.index
        # rows of fields the layout does not read stay zero pages: no memory, lengths unread
        norms = np.zeros((len(ix.manifest.fields), ix.n_docs), dtype=np.float32)
        for f, fname in enumerate(ix.manifest.fields):
            if fname not in lay.weights:
                continue
            st = self._field_stats[fname]
            lengths = ix.lengths[f]
            avg = st.sum_length / st.doc_count if st.doc_count else 1.0
            if lay.name == "bm25f":
                fb = lay.field_b.get(fname)
                fb = b if fb is None else fb
                norms[f] = 1.0 / (1.0 - fb + fb * lengths / avg)
            elif lucene:
                norms[f] = bm25.inverse_norm_lucene(lengths, st.sum_length, st.doc_count, k1, b)
            else:
                norms[f] = bm25.length_norm(lengths, avg, k1, b)
        return norms

    def _fill_lists(self, setting: dict, c_field: np.ndarray, c_term: np.ndarray, threads: int = SETUP_THREADS) -> float:
        """Make the impacts and block maxima of the (field, term) lists c_field[i], c_term[i] that this
        setting has not made yet: a search reads those of its clauses' lists only, and a batch of
        queries reads a fraction of the postings (a third at NQ size). Up to SETUP_THREADS threads over
        runs of lists (each posting's impact and each block's maximum made alone: the same bits
        whatever the split or order); one search at a time fills, so no list is made twice. Packed
        postings: the lists are decoded whole into the setting's held lists (windowed_packed.ListCache),
        as raw postings' impacts are made here: the setting's build, not the search.
        Returns the seconds spent (setting build, not search)."""
        if "hold" in setting and len(c_field):  # packed postings: decode the lists these queries read, once
            start = time.perf_counter()
            lucene, tf_dtype = setting["hold"]
            windowed_packed.held_lists(setting, self._packed, lucene, c_field, c_term, 0, len(c_field), tf_dtype)
            return time.perf_counter() - start
        filled = setting["filled"]
        if filled is None or not len(c_field):
            return 0.0
        n_terms = self._offsets.shape[1] - 1
        keys = c_field * n_terms + c_term
        if filled[keys].all():
            return 0.0
        start = time.perf_counter()
        with setting["lock"]:
            keys = np.unique(keys)
            keys = keys[~filled[keys]]
            if not len(keys):  # another search made them while this one waited
                return time.perf_counter() - start
            fields, terms = np.divmod(keys, n_terms)
            starts, ends = self._offsets[fields, terms], self._offsets[fields, terms + 1]
            reach = np.cumsum(ends - starts)
            workers = min(threads, os.cpu_count() or 1, -(-int(reach[-1]) // FILL_MIN_POSTINGS))
            cuts = np.searchsorted(reach, np.linspace(0, reach[-1], workers + 1)[1:-1])
            parts = [(a, z) for a, z in zip([0, *cuts], [*cuts, len(keys)]) if z > a]

            def fill(part) -> None:
                a, z = part
                bounds.fill_lists(starts[a:z], ends[a:z], fields[a:z], setting["span"], self._docs, self._tfs,
                                  setting["norms"], setting["mode"], setting["impacts"], setting["impact_base"],
                                  setting["maxima"], setting["kept"])

            if len(parts) > 1:
                with ThreadPoolExecutor(len(parts), thread_name_prefix="sounding-setting") as pool:
                    list(pool.map(fill, parts))
            else:
                fill(parts[0])
            filled[keys] = True
            if len(setting["impacts"]) and setting["kept"] == bounds.KEEP_PART:  # these parts are read, not tfs: let their pages go
                span = setting["span"]
                _release_pages(self._tfs[span.base : span.hi])
        return time.perf_counter() - start

    def _packed_maxima(self, norms: np.ndarray, fields: list[int], lucene: bool) -> np.ndarray:
        """Per packed block of `fields`: its largest impact (or Lucene's float32 tf·(1/norm)), made in up
        to SETUP_THREADS threads over ranges of terms (each block alone: the same bits whatever the split)."""
        fb = self.index.first_blocks
        out = np.zeros(int(fb[-1, -1]), np.float32)
        n_terms = self._offsets.shape[1] - 1
        parts = []
        for f in fields:
            reach = self._offsets[f, 1:] - self._offsets[f, 0]  # postings up to each term's end
            cuts = np.searchsorted(reach, np.arange(IMPACT_BLOCK, int(reach[-1]) if n_terms else 0, IMPACT_BLOCK))
            bounds_ = np.unique(np.concatenate([[0], cuts, [n_terms]]))
            parts += [(f, int(a), int(z)) for a, z in zip(bounds_[:-1], bounds_[1:])]

        def fill(part) -> None:
            f, t0, t1 = part
            windowed_packed.packed_maxima(self._packed, norms[f], f, t0, t1, lucene, out)

        workers = min(SETUP_THREADS, os.cpu_count() or 1, len(parts))
        if workers > 1:
            with ThreadPoolExecutor(workers, thread_name_prefix="sounding-maxima") as pool:
                list(pool.map(fill, parts))
        else:
            for part in parts:
                fill(part)
        return out

    @cached_property
    def _tf_dtype(self) -> np.dtype:
        """The dtype raw postings of this index keep term frequencies in (uint16 unless one exceeds
        65,535): the multifield-max kernel's default arithmetic adds tf to a float32 norm, and its bits
        follow numpy's promotion of that type, so packed postings are decoded into the same type."""
        if self._packed is None:
            return self._tfs.dtype
        wide = np.flatnonzero(self._packed.blk_width[:, 1] >= 16)
        if not len(wide):
            return np.dtype(np.uint16)
        fb = self.index.first_blocks
        term_of = np.searchsorted(fb.ravel(), wide, side="right") - 1  # flat (field, term) of each block
        n_cols = fb.shape[1]
        dbuf, tbuf = np.empty(self._max_df, np.uint32), np.empty(self._max_df, np.uint32)
        for ft in np.unique(term_of):
            f, t = divmod(int(ft), n_cols)
            n = int(self._offsets[f, t + 1] - self._offsets[f, t])
            decode_list(fb, self._packed.blk_last, self._packed.blk_start, self._packed.blk_width, self._packed.words,
                        f, t, n, dbuf, tbuf)
            if tbuf[:n].max(initial=0) > np.iinfo(np.uint16).max:
                return np.dtype(np.uint32)
        return np.dtype(np.uint16)

    @cached_property
    def _max_df(self) -> int:
        return int(np.diff(self._offsets, axis=1).max(initial=0))

    def _buffers(self, k: int) -> dict:
        """This thread's scratch arrays for the windowed kernel (one window's accumulator, touched
        list and bitmap) and top-k selection, made once and reused: allocating and zeroing them per
        call cost query-at-a-time search. The kernels hand them back zeroed."""
        buf = getattr(self._local, "buf", None)
        w = max(64, min(windowed.window_size(k), -(-self.index.n_docs // 64) * 64))  # or a small collection whole
        if buf is None or buf["wacc"].shape[0] != w:  # (another window size: every scratch array made anew)
            buf = self._local.buf = {
                "wacc": np.zeros(w, np.float64), "wtouched": np.empty(w, np.int64),
                "wbits": np.zeros(w // 64, np.uint64),
                "hist": np.empty(topk.N_BUCKETS, np.int64),
            }
        if len(buf.get("sel", ())) < k:
            buf["sel"], buf["tmp"] = np.empty(k, np.uint64), np.empty(k, np.uint64)
        return buf

    def _group_buffers(self, n_groups: int) -> dict:
        """Per-thread collection-sized arrays of the multi-group and BM25F kernels, made on first use."""
        buf = self._local.buf
        n = self.index.n_docs
        if "acc" not in buf:
            buf["acc"], buf["touched"] = np.zeros(n, np.float64), np.empty(n + 1, np.int64)
        if self._packed is not None and "dbuf" not in buf:  # a term's list, decoded
            buf["dbuf"], buf["tbuf"] = np.empty(self._max_df, np.uint32), np.empty(self._max_df, self._tf_dtype)
        elif "dbuf" not in buf:
            buf["dbuf"], buf["tbuf"] = np.empty(0, np.uint32), np.empty(0, self._tfs.dtype)
        if "groups" not in buf or buf["groups"].shape[0] < n_groups:
            buf["groups"] = np.zeros((n_groups, n), np.float64)
            buf["total"] = np.zeros(n, np.float64)
            buf["term_touched"] = np.empty(n + 1, np.int64)
        return buf

    def _window_group_buffers(self, n_acc: int, queries: topk.Clauses) -> dict:
        """This thread's scratch for the grouped kernel: n_acc window sums, a window of pseudo term
        frequencies and their list (zeroed, handed back zeroed), and for packed postings room to
        decode the longest query's lists (grown as needed)."""
        buf = self._local.buf
        w = buf["wacc"].shape[0]
        if buf.get("gacc") is None or buf["gacc"].shape[0] < n_acc:
            buf["gacc"] = np.zeros((n_acc, w), np.float64)
            buf["pseudo"], buf["ptouched"] = np.zeros(w, np.float64), np.empty(w, np.int64)
        need = 0
        if self._packed is not None:
            a, z = int(queries.q_ptr[0]), int(queries.q_ptr[-1])
            f, t = queries.field[a:z], queries.term[a:z]
            reach = np.concatenate([[0], np.cumsum(self._offsets[f, t + 1] - self._offsets[f, t])])
            need = int(np.diff(reach[queries.q_ptr - a]).max(initial=0))
        if "qdbuf" not in buf or len(buf["qdbuf"]) < need:
            buf["qdbuf"] = np.empty(need, np.uint32)
            buf["qtbuf"] = np.empty(need, self._tf_dtype if self._packed is not None else self._tfs.dtype)
        return {"gacc": buf["gacc"][:n_acc], "pseudo": buf["pseudo"], "ptouched": buf["ptouched"],
                "qdbuf": buf["qdbuf"], "qtbuf": buf["qtbuf"]}

    def _setting(self, lay: Layout, k1, b, lucene) -> dict:
        """What the kernels need for one BM25 setting: norms, block maxima for the pruned kernels
        (and impacts for the sum kernel), the layout's fields and weights. The last setting is kept:
        a query-at-a-time caller repeats it, and rebuilding even the small parts cost ~20 µs a query."""
        key = (lay.name, tuple(lay.weights.items()), tuple(sorted(lay.field_b.items())), float(k1), float(b), bool(lucene))
        return self._settings.get(key, lambda: self._make_setting(lay, k1, b, lucene))

    def _make_setting(self, lay: Layout, k1, b, lucene) -> dict:
        """The setting's arrays. Raw postings: impacts (the sum kernel's default arithmetic) and block
        maxima are left unmade here (impacts not written cost no memory: `_unwritten`) and
        made list by list as searches read them (`_fill_lists`); packed postings' maxima are made whole."""
        fields = self.index.manifest.fields
        lay_fields = np.array([fields.index(f) for f in lay.weights], dtype=np.int64)
        lay_weights = np.array(list(lay.weights.values()), dtype=np.float64)
        norms = self._norms(lay, k1, b, lucene)
        # block maxima bound what the kernel reads per posting: on raw postings the impacts tf/(tf + norm)
        # (sum kernel) or, with Lucene's arithmetic, y = 1 + tf·(1/norm) (sum and multifield-max kernels);
        # else tf·norm (bm25f: norm = 1/B_f; packed Lucene: 1/norm) or tf/(tf + norm)
        product = lucene or lay.name == "bm25f"
        searched = [fields.index(f) for f in lay.weights]
        setting = {"norms": norms, "impacts": np.zeros(0, np.float32), "impact_base": 0, "maxima_base": 0,
                   "lay_fields": lay_fields, "lay_weights": lay_weights, "filled": None, "kept": bounds.KEEP_PART,
                   "min_y": np.ones(len(fields), np.float32)}
        if self._packed is not None:
            setting["maxima"] = self._packed_maxima(norms, searched, product)
            # the kernels read lists held decoded (windowed_packed.ListCache): impacts for the sum kernel, tfs
            # for the grouped one; the exhaustive kernels (prune off) read the blocks
            grouped_ = lay.name in GROUPED_LAYOUTS
            if self.prune or not grouped_:
                setting["hold"] = (lucene, self._tf_dtype if grouped_ else None)
            return setting
        lo = int(min(self._offsets[f, 0] for f in searched))
        hi = int(max(self._offsets[f, -1] for f in searched))
        # the sum kernel reads impacts, not tfs; with Lucene's arithmetic the sum and multifield-max kernels read y;
        # multifield-max's default arithmetic reads float64 impacts (no division per posting), bm25f tfs and each
        # posting's document norm (1/B_f), kept per posting in the impacts' place: read in order, not gathered
        mode = bounds.PRODUCT if lay.name == "bm25f" else bounds.LUCENE_Y if lucene else bounds.IMPACT
        parts = lay.name in SUM_LAYOUTS or lucene
        if not parts and lay.name in GROUPED_LAYOUTS:
            setting["kept"] = bounds.KEEP_NORM if lay.name == "bm25f" else bounds.KEEP_IMPACT64
        if parts or setting["kept"] != bounds.KEEP_PART:
            dtype = np.float64 if setting["kept"] == bounds.KEEP_IMPACT64 else np.float32
            setting["impacts"], setting["impact_base"] = _unwritten(hi - lo, dtype), lo
        if lucene:  # 1 + each searched field's smallest 1/norm: the least y (grouped._exact_sums)
            min_y = setting["min_y"]
            for f in searched if self.index.n_docs else ():
                min_y[f] = np.float32(1.0) + norms[f].min()
        # a block's maximum spans every field's postings in it when impacts are kept (an unread field's
        # norm is 0: impact 1), the searched fields' only otherwise
        on = np.ones(len(fields), np.bool_) if parts else np.isin(np.arange(len(fields)), searched)
        span = bounds.Span(lo, hi, self._offsets[:, 0].copy(), self._offsets[:, -1].copy(), on)
        setting.update(maxima=np.zeros(-(-(hi - lo) // bounds.BLOCK), np.float32), maxima_base=lo, span=span,
                       mode=mode, lock=threading.Lock(),
                       filled=np.zeros(self._offsets.shape[0] * (self._offsets.shape[1] - 1), np.bool_))
        return setting

    @cached_property
    def _reversed_ranks(self) -> tuple[np.ndarray, np.ndarray]:
        """Each document's rank in descending docid byte order, and its inverse."""
        n = len(self._rank)
        return (n - 1 - self._rank).astype(self._rank.dtype), self._rank_to_doc[::-1].copy()

    def _run_block(self, lay, k1, lucene, setting, clauses, k, out_docs, out_scores, out_n, lo: int, hi: int,
                   ascending_ties: bool = False) -> int:
        """Queries lo..hi-1 through the layout's kernel, into rows lo..hi-1 of the outputs; returns
        the postings a pruned kernel read (0 for the term-at-a-time ones). The kernels keep, of documents
        tied at the cut, those last in docid byte order (trec_eval's order); with `ascending_ties`, those
        first (Lucene's), by handing them the ranks reversed."""
        ptr, c_field, c_term, c_weight, c_group, c_idf = clauses
        queries = topk.Clauses(ptr[lo : hi + 1], c_field, c_term, c_weight)
        norms = setting["norms"]
        buf = self._buffers(k)
        postings = self._packed if self._packed is not None else topk.Postings(self._offsets, self._docs, self._tfs)
        rank, rank_to_doc = self._reversed_ranks if ascending_ties else (self._rank, self._rank_to_doc)
        ranking = topk.Ranking(rank, rank_to_doc, self._rank_bits, k)
        out = topk.TopK(out_docs[lo:hi], out_scores.view(np.uint32)[lo:hi], out_n[lo:hi])
        selection = topk.Selection(buf["sel"], buf["tmp"], buf["hist"])
        if lay.name in GROUPED_LAYOUTS and self.prune:
            bm25f = lay.name == "bm25f"
            n_acc = 1 if bm25f else len(lay.weights)  # multifield-max: one sum per field
            g = self._window_group_buffers(n_acc, queries)
            if self._packed is not None:  # lists asked for again are held decoded (document ids and tfs)
                postings = windowed_packed.PackedHeld(*postings, *windowed_packed.held_lists(
                    setting, postings, lucene, c_field, c_term, int(ptr[lo]), int(ptr[hi]), self._tf_dtype))
            return grouped.search_grouped(queries, c_group, c_idf, bm25f, float(k1), n_acc, postings,
                                          norms, lucene, setting["impacts"], setting["impact_base"], setting["min_y"],
                                          setting["maxima"], setting["maxima_base"],
                                          windowed.LOOKUP_RATIO, grouped.ORDER_ULPS, ranking, out, g["gacc"], buf["wbits"],
                                          buf["wtouched"], g["pseudo"], g["ptouched"], selection, g["qdbuf"],
                                          g["qtbuf"])
        if lay.name == "bm25f":  # every posting scored, term at a time (prune off)
            g = self._group_buffers(1)
            topk.search_bm25f(queries, c_group, c_idf, float(k1), postings, norms, ranking, out,
                              buf["acc"], buf["touched"], g["term_touched"], g["total"], selection, g["dbuf"], g["tbuf"])
            return 0
        if lay.name == "multifield-max":
            g = self._group_buffers(2)
            topk.search_sum(queries, c_group, 2, True, postings, norms, lucene, ranking, out,
                            g["groups"], g["total"], buf["touched"], selection, g["dbuf"], g["tbuf"])
            return 0
        win = windowed.Window(buf["wacc"], buf["wtouched"], buf["wbits"])
        if self._packed is not None:
            held = windowed_packed.held_lists(setting, postings, lucene, c_field, c_term, int(ptr[lo]), int(ptr[hi]))
            return windowed_packed.search_windowed_packed(queries, postings, norms, lucene, setting["maxima"], self.prune,
                                                          windowed.LOOKUP_RATIO, ranking, out, win, selection, held)
        return windowed.search_windowed(queries, postings,
                                        setting["impacts"], setting["impact_base"], lucene, setting["maxima"],
                                        setting["maxima_base"], self.prune, windowed.LOOKUP_RATIO,
                                        ranking, out, windowed.Window(buf["wacc"], buf["wtouched"], buf["wbits"]),
                                        selection)
