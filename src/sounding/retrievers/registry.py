"""Names for retrievers: the built-in ones, `register_retriever`'s, and installed plugins'.

A retriever is named by a registered name ("bm25", "dense", "hybrid", a plugin's name) or by an import
path "package.module:factory" (a callable returning a Retriever, or a Retriever object). Installed
packages add names through the entry point group `sounding.retrievers` (name = "package.module:factory").
"""
from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from typing import Any

from ..errors import SoundingError, UserCodeError
from ..types import Retriever

ENTRY_POINT_GROUP = "sounding.retrievers"
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]*")


def _bm25():
    from .bm25 import BM25Retriever

    return BM25Retriever()


def _dense():
    from .dense import DenseRetriever

    return DenseRetriever()


def _sparse():
    from .sparse import SparseRetriever

    return SparseRetriever()


def _hybrid():
    from .bm25 import BM25Retriever
    from .dense import DenseRetriever
    from .stages import Fusion, Pipeline

    return Pipeline([BM25Retriever(), DenseRetriever()], Fusion("wrrf"), name="hybrid")


def _rerank():
    from .bm25 import BM25Retriever
    from .stages import Pipeline, Rerank

    return Pipeline([BM25Retriever()], Rerank(), name="rerank")


_REGISTRY: dict[str, Callable[[], Any]] = {
    "bm25": _bm25,  # flat layout, Anserini k1=0.9 b=0.4
    "dense": _dense,  # all-MiniLM-L6-v2, exact search
    "sparse": _sparse,  # splade-tiny impacts
    "hybrid": _hybrid,  # BM25 + dense, weighted RRF
    "rerank": _rerank,  # BM25's top 100 rescored by the bi-encoder
}


def register_retriever(name: str, factory: Callable[[], Any]) -> None:
    """Make `name` usable wherever a retriever is named (`--retriever mine=NAME`, load_retriever)."""
    if not NAME.fullmatch(name):
        raise SoundingError(f"retriever name {name!r}: use letters, digits, '_', '.', '+' or '-'")
    _REGISTRY[name] = factory


def retriever_factories() -> dict[str, Callable[[], Any]]:
    """Registered factories by name: the built-in ones, register_retriever's, then the entry point group
    `sounding.retrievers` of installed packages (loaded only when used)."""
    from importlib.metadata import entry_points

    out: dict[str, Callable[[], Any]] = dict(_REGISTRY)
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        out.setdefault(ep.name, _entry_point_factory(ep))
    return out


def _entry_point_factory(ep) -> Callable[[], Any]:
    def load():
        try:
            factory = ep.load()
        except Exception as e:  # a broken plugin is the plugin's error, said in one line
            raise UserCodeError(f"retriever {ep.name!r} (entry point {ep.value} in group {ENTRY_POINT_GROUP}): "
                                f"cannot load it ({type(e).__name__}: {e})") from e
        return factory()

    return load


def load_retriever(spec: str) -> Retriever:
    """A Retriever from "package.module:factory" (a callable returning one, or a Retriever object; the
    attribute may be dotted) or from a registered name ("bm25", a plugin's name)."""
    spec = spec.strip()
    if ":" not in spec:
        factories = retriever_factories()
        if spec not in factories:
            raise SoundingError(f"unknown retriever {spec!r}: give an import path 'package.module:factory' or "
                                f"a registered name ({', '.join(sorted(factories))})")
        return _made(factories[spec], spec)
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise SoundingError(f"retriever {spec!r}: expected 'package.module:factory'")
    try:
        obj: Any = importlib.import_module(module_name)
    except ModuleNotFoundError as e:
        if e.name and (module_name == e.name or module_name.startswith(e.name + ".")):
            raise SoundingError(f"retriever {spec!r}: no module named {e.name!r} (is it installed or on "
                                f"PYTHONPATH?)") from None
        raise UserCodeError(f"retriever {spec!r}: importing {module_name} failed: {e}") from e
    except Exception as e:
        raise UserCodeError(f"retriever {spec!r}: importing {module_name} failed ({type(e).__name__}: {e})") from e
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise SoundingError(f"retriever {spec!r}: {module_name} has no attribute {attr!r}")
        obj = getattr(obj, part)
    if is_retriever(obj) and not isinstance(obj, type):
        return obj  # a ready object
    from .pyterrier import TransformerRetriever, is_transformer

    if is_transformer(obj):  # a PyTerrier transformer (a pipeline, a retriever): searched as it is
        return TransformerRetriever(obj, attr)
    if not callable(obj):
        raise SoundingError(f"retriever {spec!r}: {attr} is neither a retriever nor a callable that makes one")
    return _made(obj, spec)


def _made(factory: Callable[[], Any], spec: str) -> Retriever:
    try:
        obj = factory()
    except SoundingError:
        raise
    except Exception as e:
        raise UserCodeError(f"retriever {spec!r}: the factory raised {type(e).__name__}: {e}") from e
    from .pyterrier import TransformerRetriever, is_transformer

    if is_transformer(obj):
        return TransformerRetriever(obj, spec)
    if not is_retriever(obj):
        raise SoundingError(f"retriever {spec!r}: the factory returned a {type(obj).__name__}, which has no "
                            f"index(documents) and search(queries, k) methods")
    return obj


def is_retriever(obj) -> bool:
    return callable(getattr(obj, "index", None)) and callable(getattr(obj, "search", None))
