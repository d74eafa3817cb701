"""BM25 engines behind one protocol (see base.Engine): Sounding itself and the peers it is measured
against (bm25s, tantivy, PISA, Pyserini), each optional and reported "not installed" when absent.

    from sounding.retrieval.engines import ENGINES, get_engine, available_engines
    eng = get_engine("bm25s")
    stats = eng.index(docs, workdir)                       # IndexStats(seconds, bytes, n_docs)
    run, seconds = eng.search(queries, k=1000, k1=0.9, b=0.4, threads=1, batch=True)
"""
from __future__ import annotations

from ...errors import SoundingError
from .engine import Engine, IndexStats, Run, dir_bytes, per_query, resolve_threads
from .bm25s_engine import BM25SEngine
from .pisa_engine import PisaEngine
from .pyserini_engine import PyseriniEngine
from .sounding_bm25 import SoundingEngine
from .tantivy_engine import TantivyEngine

ENGINES: dict[str, type[Engine]] = {
    "sounding": SoundingEngine,
    "bm25s": BM25SEngine,
    "tantivy": TantivyEngine,
    "pisa": PisaEngine,
    "pyserini": PyseriniEngine,
}


def get_engine(name: str, **options) -> Engine:
    """A new, unbound engine by name; SoundingError when unknown or not installed (saying what to install)."""
    cls = ENGINES.get(name)
    if cls is None:
        raise SoundingError(f"unknown engine {name!r}; choose from: {', '.join(ENGINES)}")
    if not cls.available():
        raise SoundingError(f"engine {name!r} is not installed: {cls.requirement}")
    return cls(**options)


def available_engines() -> dict[str, bool]:
    return {name: cls.available() for name, cls in ENGINES.items()}


__all__ = ["Engine", "IndexStats", "Run", "ENGINES", "get_engine", "available_engines", "dir_bytes",
           "per_query", "resolve_threads", "BM25SEngine", "PisaEngine", "PyseriniEngine", "SoundingEngine",
           "TantivyEngine"]
