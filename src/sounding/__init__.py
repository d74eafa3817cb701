"""Sounding: a retrieval engine and zero-shot evaluation harness.

The public API is re-exported here; every CLI command is one of these calls.

    import sounding
    ds = sounding.load_dataset("scifact")
    result = sounding.run_experiment(["scifact"], out="out", retrievers={"mine": MyRetriever()})
    sounding.write_report("out")                     # out/report.md, out/report.html

Names are loaded on first use, so `import sounding` stays cheap (no numba, numpy or torch until a call
needs them). docs/api.md documents each one.
"""
from __future__ import annotations

import importlib

from .errors import DataError, SoundingError
from .types import Document, Qrels, Run

__version__ = "0.1.0"

# public name -> (module, attribute); imported on first access
_LAZY: dict[str, tuple[str, str]] = {
    "load_dataset": ("sounding.datasets", "load_dataset"),
    "Dataset": ("sounding.datasets", "Dataset"),
    "build_index": ("sounding.index", "build_index"),
    "Searcher": ("sounding.search", "Searcher"),
    "BM25Params": ("sounding.search", "BM25Params"),
    "Results": ("sounding.search", "Results"),
    "evaluate": ("sounding.eval", "evaluate"),
    "read_run": ("sounding.eval", "read_run"),
    "write_run": ("sounding.eval", "write_run"),
    "read_qrels": ("sounding.eval", "read_qrels"),
    "compare": ("sounding.eval.significance", "compare"),
    "Comparison": ("sounding.eval.significance", "Comparison"),
    "run_experiment": ("sounding.experiment.runner", "run_experiment"),
    "ExperimentResult": ("sounding.experiment.runner", "ExperimentResult"),
    "write_report": ("sounding.report", "write_reports"),
    "ResultRow": ("sounding.results", "ResultRow"),
    "Retriever": ("sounding.types", "Retriever"),
    "Stage": ("sounding.types", "Stage"),
    "BM25Retriever": ("sounding.retrievers", "BM25Retriever"),
    "DenseRetriever": ("sounding.retrievers", "DenseRetriever"),
    "SparseRetriever": ("sounding.retrievers", "SparseRetriever"),
    "RunFileRetriever": ("sounding.retrievers", "RunFileRetriever"),
    "Fusion": ("sounding.retrievers", "Fusion"),
    "Rerank": ("sounding.retrievers", "Rerank"),
    "Pipeline": ("sounding.retrievers", "Pipeline"),
    "load_retriever": ("sounding.retrievers", "load_retriever"),
    "register_retriever": ("sounding.retrievers", "register_retriever"),
}

__all__ = [
    # data
    "load_dataset", "Dataset", "Document", "Run", "Qrels",
    # engine
    "build_index", "Searcher", "BM25Params", "Results",
    # evaluation
    "evaluate", "read_run", "write_run", "read_qrels", "compare", "Comparison",
    # experiments and reports
    "run_experiment", "ExperimentResult", "ResultRow", "write_report",
    # your own systems
    "Retriever", "Stage", "BM25Retriever", "DenseRetriever", "SparseRetriever", "RunFileRetriever",
    "Fusion", "Rerank", "Pipeline", "load_retriever", "register_retriever",
    # errors
    "SoundingError", "DataError",
]


def __getattr__(name: str):
    try:
        module, attr = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'sounding' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), attr)
    globals()[name] = value  # the next access is a plain lookup
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
