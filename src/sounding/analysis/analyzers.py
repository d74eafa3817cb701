"""The analyzer registry: named chains, each built once per process (analyzers cache their stems).

Analyzer modules (english.py, languages.py) register their chains here when imported; the package
imports them on first use (`sounding.analysis.get_analyzer`), so `import sounding` stays light.
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


DEFAULT_ANALYZER = "english-lucene"
_REGISTRY: dict[str, AnalyzerInfo] = {}
_INSTANCES: dict[str, Analyzer] = {}


def register(name: str, factory: Callable[[], Analyzer], description: str) -> None:
    _REGISTRY[name] = AnalyzerInfo(name, description, factory)


def instance(name: str) -> Analyzer:
    """The shared instance of a registered analyzer (registered modules must be imported first)."""
    if name not in _REGISTRY:
        raise SoundingError(f"unknown analyzer {name!r}; known: {', '.join(sorted(_REGISTRY))}")
    if name not in _INSTANCES:
        _INSTANCES[name] = _REGISTRY[name].factory()
    return _INSTANCES[name]


def registered() -> list[AnalyzerInfo]:
    return [_REGISTRY[k] for k in sorted(_REGISTRY)]
