"""The one protocol every BM25 engine is driven through: index documents, search queries, return a Run.

An engine is created unbound, then either builds an index (`index`) or opens one built earlier in
another process (`load`, so search can be measured in a fresh process). `search` returns the run
(qid → {docid: score}, the Run type of sounding.eval) and the seconds the engine's own search
took: query analysis plus retrieval, up to the engine's native ranked hits (internal doc numbers,
DocAddresses or docnos). Turning those into the Run dict is common harness work for every engine;
its seconds are kept apart in `last_convert_seconds` and never counted as search time.

`batch=True`: one call with all queries (the engine's own batch API, parallel over `threads`).
`batch=False`: one call per query; with threads > 1 the per-query calls are issued from a pool of
`threads` Python threads (concurrent clients), each call itself single-threaded.
"""
from __future__ import annotations

import importlib.util
import itertools
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Sequence

from ...errors import SoundingError
from ..search.params import DEFAULT_B, DEFAULT_K1
from ...types import Run
from ...validate import DEFAULT_HITS


@dataclass
class IndexStats:
    seconds: float
    bytes: int
    n_docs: int = 0
    details: dict = field(default_factory=dict)

    @property
    def docs_per_second(self) -> float:
        return self.n_docs / self.seconds if self.seconds else float("inf")


def dir_bytes(path: Path) -> int:
    """Bytes of all regular files under `path` (an index on disk)."""
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            p = os.path.join(root, f)
            if os.path.isfile(p) and not os.path.islink(p):
                total += os.path.getsize(p)
    return total


def modules_available(*names: str) -> bool:
    """True when every module can be found (found, not imported: cheap and side-effect free)."""
    try:
        return all(importlib.util.find_spec(n) is not None for n in names)
    except (ImportError, ValueError):
        return False


def package_version(dist: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:
        return "not installed"


class Engine:
    """Base class: subclasses set `name`, `extra` (pip extra / requirement hint) and implement the hooks."""

    name: str = "engine"
    requirement: str = ""          # what to pip install when unavailable
    native_batch: bool = True      # False: the engine has no batch API, batch=True loops over queries
    native_threads: bool = True    # False: threads > 1 in batch mode is emulated with a thread pool
    modules: tuple[str, ...] = ()

    def __init__(self) -> None:
        self.workdir: Path | None = None
        self.last_convert_seconds: float = 0.0
        self.last_settings: dict = {}

    # -- availability ------------------------------------------------------------------------
    @classmethod
    def available(cls) -> bool:
        return modules_available(*cls.modules)

    @classmethod
    def version(cls) -> str:
        return "unknown"

    def require(self) -> None:
        if not self.available():
            raise SoundingError(f"engine {self.name!r} is not installed: {self.requirement}")

    # -- protocol ----------------------------------------------------------------------------
    def index(self, docs: Sequence, workdir: Path) -> IndexStats:
        raise NotImplementedError

    def load(self, workdir: Path) -> None:
        """Open the index that `index` wrote into `workdir` (e.g. in a fresh process)."""
        raise NotImplementedError

    def search(self, queries: dict[str, str], *, k: int = DEFAULT_HITS, k1: float = DEFAULT_K1, b: float = DEFAULT_B,
               threads: int = 1, batch: bool = True) -> tuple[Run, float]:
        """Top-k per query as a Run, and the seconds of the engine's own search (conversion excluded)."""
        self._check_bound()
        if k < 1:
            raise SoundingError("k (hits per query) must be at least 1")
        items = as_items(queries)
        native, seconds = self.search_native(items, k=k, k1=k1, b=b, threads=resolve_threads(threads), batch=batch)
        t0 = time.perf_counter()
        run = self.to_run(native, items)
        self.last_convert_seconds = time.perf_counter() - t0
        return run, seconds

    def search_native(self, items: list[tuple[str, str]], *, k: int, k1: float, b: float, threads: int,
                      batch: bool) -> tuple[object, float]:
        """The engine's own results (whatever its API returns) and the seconds they took."""
        raise NotImplementedError

    def to_run(self, native: object, items: list[tuple[str, str]]) -> Run:
        """Native results → qid → {docid: score}; every query of `items` present (empty if no hit)."""
        raise NotImplementedError

    def close(self) -> None:
        """Release the index (files stay on disk)."""

    # -- helpers for subclasses --------------------------------------------------------------
    def _check_bound(self) -> None:
        if self.workdir is None:
            raise SoundingError(f"engine {self.name!r}: no index; call index(docs, workdir) or load(workdir) first")

    @staticmethod
    def _prepare_workdir(workdir: Path | str) -> Path:
        p = Path(workdir)
        p.mkdir(parents=True, exist_ok=True)
        return p


def per_query(call: Callable[[str, str], object], items: Sequence[tuple[str, str]], threads: int) -> tuple[list, float]:
    """Run `call(qid, text)` once per query, from `threads` client threads, each taking the next query
    as it is free, as concurrent clients of an application would (an executor's task per query costs
    ~10-20 µs of Python under the GIL, more than a fast engine's whole query); (results in query order,
    seconds)."""
    start = time.perf_counter()
    if threads <= 1 or len(items) <= 1:
        return [call(q, t) for q, t in items], time.perf_counter() - start
    out: list = [None] * len(items)
    turns = itertools.count()  # next() on it is atomic: each query is taken once
    errors: list[BaseException] = []

    def client() -> None:
        try:
            while (i := next(turns)) < len(items):
                out[i] = call(*items[i])
        except BaseException as e:  # noqa: BLE001 - raised in the caller's thread below
            errors.append(e)

    clients = [threading.Thread(target=client, name=f"client-{c}") for c in range(min(threads, len(items)))]
    for c in clients:
        c.start()
    for c in clients:
        c.join()
    if errors:
        raise errors[0]
    return out, time.perf_counter() - start


def resolve_threads(threads: int) -> int:
    """0 or negative: all cores of this process (its CPU affinity)."""
    if threads and threads > 0:
        return int(threads)
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - non-Linux
        return os.cpu_count() or 1


def doc_fields(doc) -> tuple[str, str, str]:
    return doc.id, (getattr(doc, "title", "") or ""), (getattr(doc, "text", "") or "")


def flat_text(doc) -> str:
    """title + " " + text: the `flat` layout every engine indexes here."""
    _, title, text = doc_fields(doc)
    return f"{title} {text}" if title else text


def as_items(queries: dict[str, str] | Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    return list(queries.items()) if isinstance(queries, dict) else list(queries)
