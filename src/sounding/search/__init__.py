"""BM25 search: scoring functions, layouts, compiled top-k kernels, the batch searcher."""
from .bm25 import PRESETS, BM25Params
from .layouts import LAYOUTS, Layout
from .searcher import Results, Searcher

__all__ = ["PRESETS", "BM25Params", "LAYOUTS", "Layout", "Results", "Searcher"]
