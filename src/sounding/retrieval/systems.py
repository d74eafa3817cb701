"""The one registry of systems: every arm of an experiment and every named retriever is a row of `SYSTEMS`.

A `System` says what it is (a description), how an experiment runs it (`run`: one of arms.py's functions,
given the experiment's caches), how it is made as a Retriever on its own (`retriever`: a factory), which models
it takes (`models`: the kinds of `--model` routed to it, `default_model` when none is given) and the parameter
strings of its settings (`params`, e.g. the fusion methods of the hybrid arm). The peer engines are rows too
(`engine`: a Setting's `engine`, not its arm). `register_retriever` and the entry point group
`sounding.retrievers` add named retrievers; any "package.module:factory" import path names one as well.

    bm25     BM25 over Sounding's index (every layout, preset and arithmetic)
    dense    exact dense retrieval (default all-MiniLM-L6-v2)
    hybrid   BM25 + dense fusion: weighted RRF (k=10, semantic ratio 0.75), RRF (k=60), linear α=0.5
    sparse   learned sparse impacts (default splade-tiny)
    rerank   BM25's top 100 rescored (bi-encoder by default; a cross-encoder when --model is one)
    bm25s, tantivy, pisa, pyserini   the peer engines, flat layout (retrieval/engines/)

Adding an arm: a Retriever (retrievers/<name>.py) and its row here, `run=retriever_arm(factory)`; an arm that
shares the experiment's caches (stored vectors, the reference BM25 run) has its own function in arms.py.
"""
from __future__ import annotations

import dataclasses
import importlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..errors import SoundingError, UserCodeError
from ..types import Retriever
from . import arms
from .engines import ENGINES
from .retrievers.dense import DEFAULT_DENSE
from .retrievers.sparse import DEFAULT_SPARSE

ENTRY_POINT_GROUP = "sounding.retrievers"
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]*")
HYBRID_METHODS = ("wrrf", "rrf", "linear0.5")
SOUNDING = "sounding"  # the engine of Sounding's own systems (a Setting's `engine`)


@dataclass(frozen=True)
class System:
    """One system of the registry (see the module docstring)."""

    name: str
    description: str
    run: Callable | None = None  # run(spec, arms.Job, arms.Caches) -> arms.SystemRun, as an experiment's arm
    retriever: Callable[[], Any] | None = None  # a Retriever, made with no arguments (load_retriever)
    models: tuple[str, ...] = ()  # the model kinds routed to it, in the order its settings take them
    default_model: str = ""
    params: tuple[str, ...] = ("",)  # the parameter strings of its settings
    engine: bool = False  # a peer engine: a Setting's `engine`, searched with the flat layout


def retriever_arm(factory: Callable[[], Any]) -> Callable:
    """An arm that runs the retriever `factory` makes (arms.run_retriever), for a row's `run`."""
    def run(spec, job, caches):
        return arms.run_retriever(factory(), job, caches)
    return run


def _bm25():
    from .retrievers.bm25 import BM25Retriever

    return BM25Retriever()


def _dense():
    from .retrievers.dense import DenseRetriever

    return DenseRetriever()


def _sparse():
    from .retrievers.sparse import SparseRetriever

    return SparseRetriever()


def _hybrid():
    from .retrievers.bm25 import BM25Retriever
    from .retrievers.dense import DenseRetriever
    from .retrievers.stages import Fusion, Pipeline

    return Pipeline([BM25Retriever(), DenseRetriever()], Fusion("wrrf"), name="hybrid")


def _rerank():
    from .retrievers.bm25 import BM25Retriever
    from .retrievers.stages import Pipeline, Rerank

    return Pipeline([BM25Retriever()], Rerank(), name="rerank")


SYSTEMS: dict[str, System] = {s.name: s for s in (
    System("bm25", "BM25 over Sounding's index (every layout, preset and arithmetic)", arms.run_bm25, _bm25),
    System("dense", "exact dense retrieval (default all-MiniLM-L6-v2)", arms.run_dense, _dense, ("dense",),
           DEFAULT_DENSE),
    System("hybrid", "BM25 + dense fusion: weighted RRF (k=10, semantic ratio 0.75), RRF (k=60), linear α=0.5",
           arms.run_hybrid, _hybrid, ("dense",), DEFAULT_DENSE, HYBRID_METHODS),
    System("sparse", "learned sparse impacts (default splade-tiny)", arms.run_sparse, _sparse, ("sparse",),
           DEFAULT_SPARSE, ("u8",)),
    System("rerank", "rerank BM25's top-100 (bi-encoder by default; a cross-encoder when --model is one)",
           arms.run_rerank, _rerank, ("cross-encoder", "dense"), DEFAULT_DENSE, (f"top{arms.RERANK_DEPTH}",)),
    *(System(name, f"the peer engine {name} (flat layout, the setting's k1 and b)", arms.run_engine, engine=True)
      for name in ENGINES if name != SOUNDING),
)}


def arm_names() -> list[str]:
    """The arms an experiment can run (`sounding run --arms`): Sounding's systems with a `run`."""
    return [s.name for s in SYSTEMS.values() if s.run is not None and not s.engine]


def engine_names() -> list[str]:
    """The engines an experiment can compare (`sounding run --engines`): Sounding and the peers."""
    return [SOUNDING, *(s.name for s in SYSTEMS.values() if s.engine)]


def system_for(spec) -> System:
    """The system that runs a setting: its peer engine's row, or its arm's."""
    name = spec.arm if spec.engine == SOUNDING else spec.engine
    system = SYSTEMS.get(name)
    if system is None or system.run is None:
        raise SoundingError(f"unknown system {name!r}; choose from: {', '.join([*arm_names(), *engine_names()[1:]])}")
    return system


def register_retriever(name: str, factory: Callable[[], Any]) -> None:
    """Make `name` usable wherever a retriever is named (`--retriever mine=NAME`, load_retriever)."""
    if not NAME.fullmatch(name):
        raise SoundingError(f"retriever name {name!r}: use letters, digits, '_', '.', '+' or '-'")
    known = SYSTEMS.get(name)
    SYSTEMS[name] = dataclasses.replace(known, retriever=factory) if known else \
        System(name, "a registered retriever", retriever=factory)


def retriever_factories() -> dict[str, Callable[[], Any]]:
    """Registered factories by name: the built-in ones, register_retriever's, then the entry point group
    `sounding.retrievers` of installed packages (loaded only when used)."""
    from importlib.metadata import entry_points

    out: dict[str, Callable[[], Any]] = {s.name: s.retriever for s in SYSTEMS.values() if s.retriever is not None}
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
    from .retrievers.pyterrier import TransformerRetriever, is_transformer

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
    from .retrievers.pyterrier import TransformerRetriever, is_transformer

    if is_transformer(obj):
        return TransformerRetriever(obj, spec)
    if not is_retriever(obj):
        raise SoundingError(f"retriever {spec!r}: the factory returned a {type(obj).__name__}, which has no "
                            f"index(documents) and search(queries, k) methods")
    return obj


def is_retriever(obj) -> bool:
    return callable(getattr(obj, "index", None)) and callable(getattr(obj, "search", None))
