"""Index a dataset's corpus: `sounding index` with a registry name, a dataset folder or a corpus file."""
from __future__ import annotations

from pathlib import Path

from ..analysis import DEFAULT_ANALYZER, default_analyzer
from ..datasets import iter_corpus, load_dataset
from ..errors import SoundingError
from .writer import BuildReport, build_index, estimate_bytes


def index_dataset(name_or_dir: str | Path, out: str | Path, *, analyzer: str | None = None,
                  data_dir: str | Path | None = None, positions: bool = False, progress=None,
                  workers: int | None = None, unverified: bool = False, memory: int | None = None,
                  postings: str | None = None) -> BuildReport:
    """Index a dataset's corpus (a registry name, or a folder in BEIR / Mr. TyDi layout), or a bare corpus file,
    with the analyzer Anserini uses for its language unless one is given."""
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
