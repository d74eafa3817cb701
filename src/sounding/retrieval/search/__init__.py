"""BM25 search: settings (`BM25Params`), layouts, the batch searcher, compiled kernels (kernels/).

Names are loaded on first use: `from sounding.retrieval.search import BM25Params` loads neither numpy nor numba."""
from __future__ import annotations

import importlib

_LAZY = {
    "BM25Params": "params", "PRESETS": "params", "DEFAULT_K1": "params", "DEFAULT_B": "params",
    "LAYOUTS": "layouts", "Layout": "layouts", "Results": "hits", "Searcher": "searcher",
}
__all__ = ["BM25Params", "DEFAULT_B", "DEFAULT_K1", "LAYOUTS", "Layout", "PRESETS", "Results", "Searcher"]


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
