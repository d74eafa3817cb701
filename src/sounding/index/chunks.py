"""Chunks of documents into postings, in as many workers as cores.

Two ways, the same postings:

* compiled chains (analyzers with `analyzer.compiled()`: English, the StandardTokenizer chains of
  Arabic, Bengali, Finnish, Indonesian, Russian and Telugu, and Japanese): a chunk travels as one UTF-8
  buffer (each document's title, text and id, as the content hash reads them) and is analysed in
  a thread: the kernels release the GIL, so threads run side by side with the parent reading the
  corpus, and nothing is copied to them. Tokens become term ids of the build's vocabulary directly.
* Python analyzers (Korean, Thai, Swahili): the chunk's texts go to a forked worker process once;
  it returns the postings over the chunk's own term list, which the parent maps to the vocabulary.

Either way a chunk comes back as {"fields": {field: (term, doc, tf, positions or None)}, "lengths":
{named field: tokens per document}}, postings document-major (index/build_kernels.py).
"""
from __future__ import annotations

import multiprocessing
import os
import threading
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from itertools import chain, repeat

import numpy as np

from ..analysis import list_analyzers
from ..analysis.bytetable import ByteTable
from .pages import trim_heap
from .build_kernels import char_to_byte, chunk_postings, field_postings

CHUNK_DOCS = 500  # small enough to spread a small corpus over the workers
ANALYZER_DOCS = 500_000  # documents a Python analysis process analyses before it takes a fresh analyzer (_Analysis): a
# fresh English analyzer relearns ~1.5-2.5 s of CPU per 50k documents of synthetic text, so fewer renewals cost time


def chunk_text(titles: list[str], texts: list[str], ids: list[str]) -> tuple[bytes, np.ndarray]:
    """The documents as one UTF-8 stream (surrogates passed), each `title NUL text NUL id` (the bytes
    the content hash reads), and the byte spans of each title and text, in that order ((2n, 2) int64)."""
    joined = "".join(chain.from_iterable(zip(titles, repeat("\0"), texts, repeat("\0"), ids)))
    raw = joined.encode("utf-8", "surrogatepass")
    n = len(titles)
    lens = np.empty((n, 3), np.int64)
    lens[:, 0] = np.fromiter(map(len, titles), np.int64, n)
    lens[:, 1] = np.fromiter(map(len, texts), np.int64, n)
    lens[:, 2] = np.fromiter(map(len, ids), np.int64, n)
    starts = np.zeros(n, np.int64)
    np.cumsum(lens[:-1].sum(axis=1) + 2, out=starts[1:])
    spans = np.empty((2 * n, 2), np.int64)
    spans[0::2, 0] = starts
    spans[0::2, 1] = starts + lens[:, 0]
    spans[1::2, 0] = starts + lens[:, 0] + 1
    spans[1::2, 1] = spans[1::2, 0] + lens[:, 1]
    if len(raw) != len(joined):  # characters beyond ASCII: character offsets → byte offsets
        flat = spans.ravel()
        spans = char_to_byte(np.frombuffer(raw, np.uint8), flat).reshape(spans.shape)
    return raw, spans


class CompiledChunks:
    """Chunks analysed by a compiled chain into postings over the build's vocabulary (`vocab`, term →
    id in order of first sight). Callable from several threads at once."""

    def __init__(self, analyzer, positions: bool):
        self.chain = analyzer.compiled(ByteTable(1 << 16, 1 << 20))
        self.vocab = self.chain.vocab
        self.positions = positions
        self._local = threading.local()

    def __call__(self, raw: bytes, spans: np.ndarray, first_doc: int) -> dict:
        toks, bounds = self.chain.scan(np.frombuffer(raw, np.uint8), spans)
        slot = getattr(self._local, "slot", None)
        n = self.vocab.n
        if slot is None or len(slot) < n:  # scratch of one int32 per term: grown with the vocabulary
            slot = self._local.slot = np.full(max(2 * n, 1 << 16), -1, np.int32)
        fields, lengths = field_postings(chunk_postings(toks, bounds, slot, first_doc, self.positions), self.positions)
        return {"fields": fields, "lengths": lengths}


# -- Python analyzers: chunks in forked worker processes ----------------------------------------
class _Analysis:
    """Chunks analysed by an analyzer of its own, replaced by a fresh one every ANALYZER_DOCS documents:
    an analyzer caches the stem of every token it has seen, a cache that grows with the vocabulary.
    The tokens do not depend on the cache."""

    def __init__(self, name: str):
        self._factory = next(a.factory for a in list_analyzers() if a.name == name)
        self._analyzer = None
        self._docs = 0

    def __call__(self, texts: dict[str, list[str]], positions: bool) -> dict:
        if self._analyzer is None or self._docs >= ANALYZER_DOCS:
            self._analyzer = None  # the old cache goes before the new analyzer fills its own
            trim_heap()
            self._analyzer = self._factory()
            self._docs = 0
        self._docs += len(texts["text"])
        return analyze_chunk(self._analyzer, texts, positions)


def analyze_chunk(analyze, texts: dict[str, list[str]], positions: bool) -> dict:
    """Postings of one chunk by a Python analyzer, over the chunk's own terms ("terms": term of each
    id) and documents (from 0)."""
    many = analyze.analyze_many if hasattr(analyze, "analyze_many") else (lambda ts: list(map(analyze, ts)))
    per_doc = [t for pair in zip(many(texts["title"]), many(texts["text"])) for t in pair]
    local: defaultdict[str, int] = defaultdict()
    local.default_factory = local.__len__  # term → id on first sight, one C-level call per token
    bounds = np.zeros(len(per_doc) + 1, np.int64)
    np.cumsum(np.fromiter(map(len, per_doc), np.int64, len(per_doc)), out=bounds[1:])
    toks = np.fromiter(map(local.__getitem__, chain.from_iterable(per_doc)), np.int32, int(bounds[-1]))
    terms = list(local)
    local.default_factory = None  # the factory is local's own method: a cycle that only the collector would free
    fields, lengths = field_postings(chunk_postings(toks, bounds, np.full(len(terms), -1, np.int32), 0, positions),
                                     positions)
    return {"terms": terms, "fields": fields, "lengths": lengths}


_WORKER_ANALYSIS: _Analysis | None = None


def _init_worker(analyzer_name: str, parent: int) -> None:
    global _WORKER_ANALYSIS
    _die_with_parent(parent)
    _WORKER_ANALYSIS = _Analysis(analyzer_name)


def _die_with_parent(parent: int) -> None:
    """A killed build must not leave its workers behind (they would wait on the task queue
    forever): on Linux the kernel kills this process when its parent dies."""
    try:
        import ctypes
        import signal

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        return
    if os.getppid() != parent:  # the parent died before the line above
        os._exit(1)


def _analyze_in_worker(texts: dict[str, list[str]], positions: bool) -> dict:
    return _WORKER_ANALYSIS(texts, positions)


def can_fork() -> bool:
    """Python analyzers' workers are forked (they start in milliseconds with the analyzer loaded).
    Forking a process that runs other Python threads (a Ray driver, a server) can copy a held
    lock, so there the analysis stays in this process: slower, the same index. (Sounding's own
    idle search threads wait on a queue, holding nothing.)"""
    others = [t for t in threading.enumerate()
              if t is not threading.main_thread() and not t.name.startswith("sounding-search")]
    return "fork" in multiprocessing.get_all_start_methods() and not others


class Analysts:
    """Where chunks are analysed: inline, in threads (compiled chains) or in forked processes
    (Python analyzers). `submit(chunk)` returns a future, or the result when analysed inline."""

    def __init__(self, analyzer, positions: bool, workers: int):
        self.positions = positions
        self.workers = workers
        self.compiled = CompiledChunks(analyzer, positions) if hasattr(analyzer, "compiled") else None
        self._name = analyzer.name
        self._inline = None if self.compiled else _Analysis(analyzer.name)
        self._pool = None

    def submit(self, titles: list[str], texts: list[str], ids: list[str], first_doc: int, hasher, more: bool):
        """Analyse one chunk (`more`: more chunks may follow); the content hash reads its bytes."""
        raw, spans = chunk_text(titles, texts, ids)
        hasher.update(raw)
        if self.compiled is not None:
            if self.workers > 1 and self._pool is None and more:
                self._pool = ThreadPoolExecutor(self.workers, thread_name_prefix="sounding-analysis")
            if self._pool is None:
                return self.compiled(raw, spans, first_doc)
            return self._pool.submit(self.compiled, raw, spans, first_doc)
        chunk = {"title": titles, "text": texts}
        if self.workers > 1 and self._pool is None and more and can_fork():
            self._pool = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("fork"),
                                             initializer=_init_worker, initargs=(self._name, os.getpid()))
        if self._pool is None:
            return self._inline(chunk, self.positions)
        return self._pool.submit(_analyze_in_worker, chunk, self.positions)

    def close(self) -> None:
        """Stop the workers and let go of the analyzers' state (the compiled chain's key tables; the
        vocabulary stays with whoever holds it)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
        self._inline = None
        self.compiled = None
