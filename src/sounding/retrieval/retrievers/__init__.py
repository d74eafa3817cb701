"""Retrieval systems behind one protocol, and the registry that names them.

A first-stage system is a `Retriever` (sounding.types): `index(documents)` once per corpus, then
`search(queries, k)` returning {qid: {docid: score}} or `Results`. A later stage is a `Stage`:
`apply(queries, runs, k)` over first-stage runs (fusion, reranking). Sounding's own arms are
implementations of both, and `Pipeline` joins first stages to a stage:

    BM25Retriever(layout, k1, b)      BM25 over an inverted index (every layout and preset)
    DenseRetriever(model)             exact dense search over stored document vectors
    SparseRetriever(model)            learned-sparse impacts (SPLADE-style)
    RunFileRetriever(path)            an existing TREC run file (plain or gzip)
    Fusion(method)                    RRF, weighted RRF or linear fusion of two runs
    Rerank(scorer, depth)             a cross-/bi-encoder over a run's top hits
    Pipeline(first, stage)            first-stage retrievers → one stage (hybrid = BM25 + dense → Fusion)

The registry of systems (`sounding.retrieval.systems`: `load_retriever`, `register_retriever`, the entry point
group `sounding.retrievers`) names them for `sounding run --retriever NAME=SPEC` and `run_experiment(retrievers=...)`.
"""
from ...types import Retriever, Stage
from .bm25 import BM25Retriever
from .dense import DEFAULT_DENSE, DenseRetriever
from .runfile import RunFileRetriever
from .sparse import DEFAULT_SPARSE, SparseRetriever
from .stages import Fusion, Pipeline, Rerank, as_run

__all__ = ["BM25Retriever", "DEFAULT_DENSE", "DEFAULT_SPARSE", "DenseRetriever", "Fusion", "Pipeline", "Rerank",
           "Retriever", "RunFileRetriever", "SparseRetriever", "Stage", "as_run"]
