"""Text analysis: named analyzer chains (tokenise → normalise → stop → stem), recorded in every index.

An analyzer is a callable `text -> list[str]` with a stable `name`; queries are analysed with the
analyzer named in the index manifest, so a query can never be analysed differently from its index.
Register new chains with `register(name, factory, description)`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Protocol

from ..errors import SoundingError


class Analyzer(Protocol):
    name: str

    def __call__(self, text: str) -> list[str]: ...


@dataclass(frozen=True)
class AnalyzerInfo:
    name: str
    description: str
    factory: Callable[[], Analyzer]


_REGISTRY: dict[str, AnalyzerInfo] = {}
_INSTANCES: dict[str, Analyzer] = {}
DEFAULT_ANALYZER = "english-lucene"


def register(name: str, factory: Callable[[], Analyzer], description: str) -> None:
    _REGISTRY[name] = AnalyzerInfo(name, description, factory)


def get_analyzer(name: str = DEFAULT_ANALYZER) -> Analyzer:
    """The analyzer registered under `name` (one shared instance: analyzers cache their stems)."""
    _load_builtin()
    if name not in _REGISTRY:
        raise SoundingError(f"unknown analyzer {name!r}; known: {', '.join(sorted(_REGISTRY))}")
    if name not in _INSTANCES:
        _INSTANCES[name] = _REGISTRY[name].factory()
    return _INSTANCES[name]


def list_analyzers() -> list[AnalyzerInfo]:
    _load_builtin()
    return [_REGISTRY[k] for k in sorted(_REGISTRY)]


def _load_builtin() -> None:
    # Imported lazily so that `import sounding` stays light; each module registers its chains.
    # Optional segmenters (Japanese, Korean, Thai) are imported inside their factories, not here.
    from . import english, languages  # noqa: F401
