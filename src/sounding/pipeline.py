"""High-level calls behind `sounding index` and `sounding search`: datasets in, indexes and runs out."""
from __future__ import annotations

from pathlib import Path

from .analysis import DEFAULT_ANALYZER
from .datasets import iter_corpus, load_dataset, load_queries
from .errors import SoundingError
from .index import BuildReport, build_index
from .index.writer import estimate_bytes
from .search import BM25Params, Results, Searcher


def default_analyzer(language: str | None) -> str:
    """The analyzer Anserini uses for a language (English: the Lucene-parity chain)."""
    if not language or language == "en":
        return DEFAULT_ANALYZER
    from .analysis.languages import MRTYDI_ANALYZERS

    if language not in MRTYDI_ANALYZERS:
        raise SoundingError(f"no analyzer for language {language!r}; pass --analyzer")
    return MRTYDI_ANALYZERS[language]


def index_dataset(name_or_dir: str | Path, out: str | Path, *, analyzer: str | None = None,
                  data_dir: str | Path | None = None, positions: bool = False, progress=None,
                  workers: int | None = None, unverified: bool = False, memory: int | None = None,
                  postings: str | None = None) -> BuildReport:
    """Index a dataset's corpus (a registry name, or a folder in BEIR / Mr. TyDi layout)."""
    path = Path(name_or_dir)
    if path.is_file():  # a bare corpus file
        return build_index(iter_corpus(path), out, analyzer=analyzer or DEFAULT_ANALYZER, source=str(path),
                           positions=positions, progress=progress, workers=workers, need_bytes=estimate_bytes(path),
                           memory=memory, postings=postings)
    ds = load_dataset(name_or_dir, data_dir=data_dir, unverified=unverified)
    if ds.corpus_path is None:
        raise SoundingError(f"{ds.root}: no corpus file in this dataset folder")
    return build_index(iter_corpus(ds.corpus_path), out, analyzer=analyzer or default_analyzer(ds.language),
                       source=str(ds.corpus_path), positions=positions, progress=progress, workers=workers,
                       need_bytes=estimate_bytes(ds.corpus_path), memory=memory, postings=postings)


def search_queries_file(index: str | Path, queries: str | Path, params: BM25Params | None = None, /, *,
                        threads: int = 1, **options) -> Results:
    """Search every query of a BEIR queries.jsonl[.gz] or a `qid<TAB>text` file (options as `Searcher.search`)."""
    return Searcher(index).search(load_queries(queries), params, threads=threads, **options)
