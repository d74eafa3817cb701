"""Retrieval: every system that turns queries into a ranking, and the stages that combine or rescore rankings.

    search/      BM25 over Sounding's inverted index: settings (BM25Params), layouts, compiled kernels
    dense/       dense encoders, vector stores and exact search
    sparse.py    learned-sparse (SPLADE-style) impact indexes
    fusion/      RRF, weighted RRF, linear and castorini's hybrid fusion, and the weight sweep
    rerank.py    cross- and bi-encoder reranking of a run's top hits
    engines/     the peer engines (bm25s, tantivy, PISA, Pyserini) behind one interface
    retrievers/  every system behind the Retriever / Stage protocols, `Pipeline`, and the registry of names
    systems.py   the experiment's arms: one registry of factories taking the experiment's caches

Nothing is imported here: `import sounding.retrieval` loads nothing heavy.
"""
