"""Exact dense search: blocked float32 matrix products, a numba top-k with trec_eval's tie order.

Determinism: every score is produced by one single-threaded BLAS call of a fixed shape,
(QUERY_BLOCK × dim) · (dim × DOC_BLOCK), the last query and document blocks zero-padded to that
shape. Parallelism is over query blocks (Python threads; BLAS and the numba kernel release the GIL)
with BLAS itself held to one thread (threadpoolctl). A query's scores therefore come from the
same instruction sequence whatever the thread count, and runs are byte-identical at 1, 2 or N
threads. Top-k (`_select_topk`, numba) orders by score descending, then the document id's byte-order
rank descending (trec_eval's order, the rank idea of the BM25 index): a score histogram finds a cut
that keeps at least k candidates and only those are sorted, by one uint64 key (order-preserving float
bits, rank). It returns exactly what `sounding.retrieval.search.kernels.selection.heap_push_topk` returns (tested), ~15×
faster at k = 1,000 over a dense row, where the heap's sift-downs dominate.

Memory: one (QUERY_BLOCK × n_docs) float32 score buffer per thread (100k docs: 12.8 MB; 2.7M: 345 MB).
"""
from __future__ import annotations

import contextlib
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Iterable, Mapping, Sequence

import numba as nb
import numpy as np

from ... import validate
from ...errors import SoundingError
from ..search.hits import Results
from ..search.kernels.selection import heap_push_topk

QUERY_BLOCK = 32
DOC_BLOCK = 4096


def byte_order_rank(docids: Sequence[str]) -> np.ndarray:
    """Rank of each id in UTF-8 byte order (trec_eval compares docnos with strcmp)."""
    order = sorted(range(len(docids)), key=lambda i: docids[i].encode("utf-8", "surrogatepass"))
    rank = np.empty(len(docids), dtype=np.uint32)
    rank[np.asarray(order, dtype=np.int64)] = np.arange(len(docids), dtype=np.uint32)
    return rank


_N_BINS = 2048


@nb.njit(nogil=True, cache=True)
def _select_topk(row, n, rank, k, out_docs, out_scores):
    """Top-k of row[:n] by (score, rank) descending, written best first; returns the count.

    A histogram of the scores (2,048 bins between min and max) gives a bin whose lower edge keeps at
    least k scores; only those candidates are sorted, by one uint64 key (order-preserving float32 bits
    << 32 | byte-order rank). Same order as `heap_push_topk` (tested), without its sift-downs, which
    dominate at k = 1,000. NaN scores are never returned."""
    if n == 0 or k == 0:
        return 0
    lo = np.inf
    hi = -np.inf
    for i in range(n):
        x = row[i]
        if x < lo:
            lo = x
        if x > hi:
            hi = x
    if not (hi >= lo):  # all NaN
        return 0
    span = hi - lo
    scale = _N_BINS / span if (hi > lo and np.isfinite(span)) else 0.0  # 0: one bin (all equal, or infinities)
    hist = np.zeros(_N_BINS, np.int64)
    bins = np.empty(n, np.int16)
    for i in range(n):
        x = row[i]
        if x == x:
            b = min(int((x - lo) * scale), _N_BINS - 1) if scale > 0.0 else 0
            hist[b] += 1
            bins[i] = b
        else:
            bins[i] = -1
    need = min(k, n)
    cut = _N_BINS - 1
    acc = hist[cut]
    while acc < need and cut > 0:
        cut -= 1
        acc += hist[cut]
    cand = np.empty(acc, np.int64)
    vals = np.empty(acc, np.float32)
    j = 0
    for i in range(n):
        x = row[i]
        if bins[i] >= cut:
            cand[j] = i
            vals[j] = x + np.float32(0.0)  # -0.0 → +0.0: equal scores get equal keys
            j += 1
    bits = vals.view(np.uint32)
    keys = np.empty(j, np.uint64)
    for c in range(j):
        b = np.uint64(bits[c])
        if b & np.uint64(0x80000000):
            b = (~b) & np.uint64(0xFFFFFFFF)
        else:
            b = b | np.uint64(0x80000000)
        keys[c] = (b << np.uint64(32)) | np.uint64(rank[cand[c]])
    order = np.argsort(keys)
    m = min(k, j)
    for p in range(m):
        c = order[j - 1 - p]
        out_docs[p] = cand[c]
        out_scores[p] = vals[c]
    return m


@nb.njit(nogil=True, cache=True)
def _rows_topk(buf, n_rows, n_docs, rank, k, out_docs, out_scores, out_n):
    """Top-k of each of the first n_rows score rows (over the first n_docs columns)."""
    for r in range(n_rows):
        out_n[r] = _select_topk(buf[r], n_docs, rank, k, out_docs[r], out_scores[r])


@nb.njit(nogil=True, cache=True)
def _rows_topk_heap(buf, n_rows, n_docs, rank, k, out_docs, out_scores, out_n):
    """The same with the BM25 searcher's heap (`heap_push_topk`); kept as the reference order."""
    touched = np.arange(n_docs)
    for r in range(n_rows):
        out_n[r] = heap_push_topk(touched, n_docs, buf[r], rank, k, out_docs[r], out_scores[r])


@contextlib.contextmanager
def blas_threads(n: int = 1):
    """Hold BLAS (and OpenMP) to n threads inside the block; a no-op without threadpoolctl."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - threadpoolctl ships with scikit-learn/sentence-transformers
        yield
        return
    with threadpool_limits(limits=n, user_api="blas"):
        yield


class ExactIndex:
    """Document vectors in memory, searched exhaustively (inner product; cosine on normalised rows)."""

    def __init__(self, matrix: np.ndarray, docids: Sequence[str], *, similarity: str = "cosine"):
        matrix = np.asarray(matrix, dtype=np.float32)
        if matrix.ndim != 2 or matrix.shape[0] != len(docids):
            raise SoundingError(f"vectors of shape {matrix.shape} do not match {len(docids)} document ids")
        self.n_docs, self.dim = matrix.shape
        n_pad = -(-max(self.n_docs, 1) // DOC_BLOCK) * DOC_BLOCK
        self.vectors = np.zeros((n_pad, self.dim), dtype=np.float32)  # zero rows pad the last block
        self.vectors[: self.n_docs] = matrix
        self.docids = list(docids)
        self.rank = byte_order_rank(self.docids)
        self.similarity = similarity

    @classmethod
    def from_store(cls, store) -> "ExactIndex":
        return cls(store.matrix(), store.ids, similarity=store.similarity)

    def search_vectors(self, queries: np.ndarray, qids: Sequence[str] | None = None, *, k: int = 1000,
                       threads: int = 1) -> Results:
        """Top-k per query vector (rows of `queries`), as a Results (docs -1 padded, scores float32)."""
        Q = np.asarray(queries, dtype=np.float32)
        if Q.ndim != 2 or Q.shape[1] != self.dim:
            raise SoundingError(f"query vectors have shape {Q.shape}; the index has dimension {self.dim}")
        validate.integer("hits (k)", k)
        threads = validate.threads(threads)
        qids = list(qids) if qids is not None else [str(i) for i in range(len(Q))]
        n_q = len(Q)
        kk = min(k, self.n_docs) if self.n_docs else 1
        out_docs = np.full((n_q, kk), -1, dtype=np.int64)
        out_scores = np.zeros((n_q, kk), dtype=np.float32)
        out_n = np.zeros(n_q, dtype=np.int64)
        _rows_topk(np.zeros((1, 1), np.float32), 0, 0, self.rank, kk, out_docs[:0], out_scores[:0], out_n[:0])  # compile
        start = time.perf_counter()
        n_blocks = -(-n_q // QUERY_BLOCK)
        threads = max(1, min(int(threads or 1), n_blocks))
        n_pad = self.vectors.shape[0]

        def worker(block_ids: Iterable[int]) -> None:
            qbuf = np.zeros((QUERY_BLOCK, self.dim), dtype=np.float32)
            buf = np.empty((QUERY_BLOCK, n_pad), dtype=np.float32)
            tmp = np.empty((QUERY_BLOCK, DOC_BLOCK), dtype=np.float32)
            for b in block_ids:
                lo, hi = b * QUERY_BLOCK, min((b + 1) * QUERY_BLOCK, n_q)
                qbuf[:] = 0.0
                qbuf[: hi - lo] = Q[lo:hi]
                for d0 in range(0, n_pad, DOC_BLOCK):
                    np.matmul(qbuf, self.vectors[d0:d0 + DOC_BLOCK].T, out=tmp)
                    buf[:, d0:d0 + DOC_BLOCK] = tmp
                _rows_topk(buf, hi - lo, self.n_docs, self.rank, kk, out_docs[lo:hi], out_scores[lo:hi], out_n[lo:hi])

        with blas_threads(1):
            if self.n_docs == 0:
                pass
            elif threads == 1:
                worker(range(n_blocks))
            else:
                parts = [range(t, n_blocks, threads) for t in range(threads)]  # any split: blocks are independent
                with ThreadPoolExecutor(threads) as pool:
                    list(pool.map(worker, parts))
        seconds = time.perf_counter() - start
        return Results(qids, out_docs, out_scores, out_n, self.docids, seconds,
                       {"k": k, "threads": threads, "similarity": self.similarity, "exact": True})


class DenseSearcher:
    """Query encoder + stored document vectors → Results (the same type BM25 search returns)."""

    def __init__(self, store, encoder=None, *, check: bool = True):
        from .vectors import VectorStore

        self.store = store if isinstance(store, VectorStore) else VectorStore(store)
        if encoder is not None and check:
            self.store.check_encoder(encoder)
        self.encoder = encoder
        self.index = ExactIndex.from_store(self.store)

    def search(self, queries: Mapping[str, str] | Iterable[tuple[str, str]], *, k: int = 1000, threads: int = 1,
               batch_size: int | None = None, progress: bool = False) -> Results:
        if self.encoder is None:
            raise SoundingError("DenseSearcher needs a query encoder to search text (or use search_vectors)")
        items = list(queries.items()) if isinstance(queries, Mapping) else list(queries)
        t0 = time.perf_counter()
        Q = self.encoder.encode([t for _, t in items], "query", batch_size=batch_size, progress=progress)
        encode_seconds = time.perf_counter() - t0
        res = self.index.search_vectors(Q, [q for q, _ in items], k=k, threads=threads)
        res.settings["query_encode_seconds"] = encode_seconds
        res.settings["search_seconds"] = res.seconds
        res.seconds = encode_seconds + res.seconds
        return res

    def search_vectors(self, Q: np.ndarray, qids: Sequence[str], *, k: int = 1000, threads: int = 1) -> Results:
        return self.index.search_vectors(Q, qids, k=k, threads=threads)


# -- approximate (optional) -------------------------------------------------------------------------
class HNSWIndex:
    """HNSW over the same vectors (usearch, or faiss-cpu when usearch is missing); inner product."""

    def __init__(self, matrix: np.ndarray, docids: Sequence[str], *, connectivity: int = 16,
                 expansion_add: int = 128, threads: int = 1):
        X = np.ascontiguousarray(matrix, dtype=np.float32)
        self.docids = list(docids)
        self.dim = X.shape[1]
        t0 = time.perf_counter()
        try:
            from usearch.index import Index

            self.backend = "usearch"
            self._ix = Index(ndim=self.dim, metric="ip", dtype="f32", connectivity=connectivity,
                             expansion_add=expansion_add)
            self._ix.add(np.arange(len(X), dtype=np.uint64), X, threads=threads)
        except ImportError:
            try:
                import faiss
            except ImportError as e:
                raise SoundingError("HNSW needs usearch or faiss-cpu: pip install usearch") from e
            self.backend = "faiss"
            self._ix = faiss.IndexHNSWFlat(self.dim, connectivity, faiss.METRIC_INNER_PRODUCT)
            self._ix.hnsw.efConstruction = expansion_add
            self._ix.add(X)
        self.build_seconds = time.perf_counter() - t0
        self.rank = byte_order_rank(self.docids)

    def search_vectors(self, Q: np.ndarray, qids: Sequence[str], *, k: int = 1000, expansion_search: int | None = None,
                       threads: int = 1) -> Results:
        Q = np.ascontiguousarray(Q, dtype=np.float32)
        ef = max(expansion_search or 0, k)
        t0 = time.perf_counter()
        if self.backend == "usearch":
            self._ix.expansion_search = ef
            m = self._ix.search(Q, k, threads=threads)
            keys = np.asarray(m.keys, dtype=np.int64).reshape(len(Q), -1)
            scores = (1.0 - np.asarray(m.distances, dtype=np.float32)).reshape(len(Q), -1)
            counts = np.asarray(m.counts, dtype=np.int64).reshape(-1)
        else:
            self._ix.hnsw.efSearch = ef
            scores, keys = self._ix.search(Q, k)
            counts = (keys >= 0).sum(1)
        seconds = time.perf_counter() - t0
        docs = np.full((len(Q), k), -1, np.int64)
        out = np.zeros((len(Q), k), np.float32)
        for i in range(len(Q)):  # reorder by (score, id rank): the same tie rule as exact search
            n = int(counts[i])
            kd, ks = keys[i, :n], scores[i, :n].astype(np.float32)
            order = np.lexsort((-self.rank[kd].astype(np.int64), -ks))
            docs[i, :n], out[i, :n] = kd[order], ks[order]
        return Results(list(qids), docs, out, np.asarray(counts, np.int64), self.docids, seconds,
                       {"k": k, "hnsw": self.backend, "expansion_search": ef})


def recall_against(exact: Results, approx: Results, k: int | None = None) -> float:
    """Mean over queries of |approx top-k ∩ exact top-k| / |exact top-k| (recall@k of an ANN run)."""
    vals = []
    for i in range(len(exact.qids)):
        ne = int(exact.counts[i]) if k is None else min(k, int(exact.counts[i]))
        na = int(approx.counts[i]) if k is None else min(k, int(approx.counts[i]))
        e = set(exact.docs[i, :ne].tolist())
        if e:
            vals.append(len(e & set(approx.docs[i, :na].tolist())) / len(e))
    return float(np.mean(vals)) if vals else float("nan")


def numpy_baseline(matrix: np.ndarray, Q: np.ndarray, k: int = 1000) -> tuple[np.ndarray, np.ndarray]:
    """Plain numpy: full matmul, argsort each row, cut to k (the speed baseline of benchmarks)."""
    S = Q @ matrix.T
    order = np.argsort(-S, axis=1)[:, :k]
    return order, np.take_along_axis(S, order, axis=1)


__all__ = ["ExactIndex", "DenseSearcher", "HNSWIndex", "recall_against", "numpy_baseline", "byte_order_rank",
           "blas_threads", "QUERY_BLOCK", "DOC_BLOCK"]
