"""BM25 search: scoring functions, layouts, compiled top-k kernels, the batch searcher."""
from .bm25 import PRESETS
from .layouts import LAYOUTS, Layout
from .searcher import Results, Searcher

__all__ = ["PRESETS", "LAYOUTS", "Layout", "Results", "Searcher"]
