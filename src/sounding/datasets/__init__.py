"""Datasets: the registry (URLs, checksums, counts), verified fetching, and streaming loaders.

    list_datasets() / get_info(name)            the registry (BEIR, CQADupStack forums, Mr. TyDi v1.1)
    fetch(name, source=None, home=None)         download + verify + unpack into the cache, or import --from
    resolve(name_or_dir, data_dir=None)         folder as is; else data_dir, $SOUNDING_DATA, cache, download
    iter_corpus / load_queries / load_qrels     streaming file readers (gz or plain)
    load_dataset(name_or_dir, split="test")     judged queries + qrels of a split, and the corpus path
"""
from typing import NamedTuple


class Document(NamedTuple):
    """One corpus document; `line` is its 1-based line in the corpus file, for error messages."""

    id: str
    title: str
    text: str
    line: int


# Imported after Document: the readers build Documents.
from .registry import REGISTRY, DatasetInfo, Split, get_info, list_datasets, register  # noqa: E402
from .readers import iter_corpus, iter_qrels, load_qrels, load_queries  # noqa: E402
from .loader import Dataset, check_counts, count, load_dataset  # noqa: E402
from .fetch import cache_home, fetch, find_local, resolve  # noqa: E402

__all__ = [
    "Document", "DatasetInfo", "Split", "REGISTRY", "list_datasets", "get_info", "register",
    "iter_corpus", "iter_qrels", "load_queries", "load_qrels", "Dataset", "load_dataset", "count",
    "check_counts", "fetch", "resolve", "find_local", "cache_home",
]
