"""An existing TREC run file as a Retriever: the system ran elsewhere; Sounding scores its output."""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from ...errors import SoundingError
from ...io import file_sha256
from ...types import Document, Run


class RunFileRetriever:
    """A TREC run file (plain or gzip) as a system; `{dataset}` in the path is the dataset name.

    `index` reads nothing; `search` returns the file's run. The file's sha256 is the fingerprint, so a
    changed file is scored again and an unchanged one is not."""

    def __init__(self, path: str | Path, name: str = "", *, dataset: str | None = None):
        self.pattern = str(path)
        self.name = name or Path(self.pattern.replace("{dataset}", "")).name.split(".")[0] or "run"
        self.dataset = dataset

    def for_dataset(self, dataset: str) -> RunFileRetriever:
        return RunFileRetriever(self.pattern, self.name, dataset=dataset)

    @property
    def path(self) -> Path:
        if "{dataset}" in self.pattern and self.dataset is None:
            raise SoundingError(f"{self.pattern}: names no file until a dataset fills in {{dataset}}")
        return Path(self.pattern.replace("{dataset}", self.dataset or ""))

    @property
    def fingerprint(self) -> str:
        if not self.path.is_file():
            raise SoundingError(f"{self.path}: no such run file")
        return f"run-file:{file_sha256(self.path)}"

    def index(self, documents: Iterable[Document]) -> None:
        """Nothing to index: the run was made elsewhere."""

    def search(self, queries: Mapping[str, str], k: int) -> Run:
        from ...eval import read_run  # plain or gzip, recognised by its magic bytes

        return read_run(self.path)
