"""Datasets: the registry (URLs, checksums, counts), verified fetching, and streaming loaders.

    list_datasets() / get_info(name)            the registry (BEIR, CQADupStack forums, Mr. TyDi v1.1)
    fetch(name, source=None, home=None)         download + verify + unpack into the cache, or import --from
    resolve(name_or_dir, data_dir=None)         folder as is; else data_dir, $SOUNDING_DATA, cache, download
    iter_corpus / load_queries / load_qrels     streaming file readers (gz or plain)
    load_dataset(name_or_dir, split=None)       judged queries + qrels of a split, and the corpus path
    lookup(name) / irds_id(info, split)         Sounding's names and ir_datasets ids (beir/scifact/test)
    qrels_for / queries_for(name_or_file)       the qrels / queries of a file or of a dataset
    dataset_identity(ds)                        what the dataset's content is (digests of corpus, queries, qrels)
"""
from .registry import REGISTRY, DatasetInfo, Split, cache_home, list_datasets, register
from .names import DatasetRef, get_info, irds_id, lookup
from .readers import Document, iter_corpus, iter_qrels, load_qrels, load_queries
from .counts import check_counts, count
from .fetch import fetch, find_local, resolve
from .loader import Dataset, load_dataset, qrels_for, queries_for
from .identity import CorpusMemo, DatasetIdentity, corpus_digest, dataset_identity

__all__ = [
    "Document", "DatasetInfo", "Split", "REGISTRY", "list_datasets", "get_info", "register",
    "iter_corpus", "iter_qrels", "load_queries", "load_qrels", "Dataset", "load_dataset", "count",
    "check_counts", "fetch", "resolve", "find_local", "cache_home", "DatasetRef", "lookup", "irds_id", "qrels_for", "queries_for",
    "CorpusMemo", "DatasetIdentity", "corpus_digest", "dataset_identity",
]
