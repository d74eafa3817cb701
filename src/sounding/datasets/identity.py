"""A dataset's identity: what its content is, whatever it is called and wherever it lies.

    identity = dataset_identity(ds, memo=OUT / "corpus-digests.json")   (or a CorpusMemo, saved when you say)
    identity.key        sha256 (hex) naming the dataset's content; identity.short its first 12 characters
    identity.changed(other)   which parts differ ("corpus", "queries", "qrels")

The identity is made of three digests, each of the content as Sounding reads it, not of file names:

* corpus: the sha256 of the corpus file's bytes, unpacked when the file is gzip (so `corpus.jsonl` and a
  gzipped copy of it are one corpus);
* queries: the sha256 of the split's judged queries, {qid: text} as sorted JSON;
* qrels: the sha256 of the split's judgements, {qid: {docid: grade}} as sorted JSON (a BEIR TSV and a TREC
  qrels file of the same judgements are one; judgements of other splits do not count).

So two folders that share a name but not their data (`a/plain` and `b/plain` with other qrels) have two
identities, and the same data reached by two names (a registry name and a folder path, or a name that
resolves to the same files) has one. `sounding run` keys its output folders and rows by it
(experiment/rows.py). A dataset read from somewhere other than a corpus file (an iterator of documents)
needs a corpus digest of its own: `corpus_digest` is the one for files.

`memo` (a `CorpusMemo`, or the path of its JSON file): each corpus file's digest remembered under its resolved
path, size, modification time and inode: unpacking and hashing a corpus of 2.7 M documents costs seconds, so
a file is hashed again only when one of these changed (as an index's checksums are checked again:
docs/reliability.md).
"""
from __future__ import annotations

import contextlib
import gzip
import hashlib
import json
import zlib
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Mapping

from ..errors import SoundingError
from ..io import atomic_write_json, os_error

if TYPE_CHECKING:
    from .loader import Dataset

IDENTITY_VERSION = 1  # changes when what the digests cover changes


@dataclass(frozen=True)
class DatasetIdentity:
    corpus: str  # sha256 of the corpus content ("" for a dataset without a corpus file)
    queries: str  # sha256 of the split's judged queries
    qrels: str  # sha256 of the split's judgements

    @property
    def key(self) -> str:
        """The dataset's identity: sha256 of the three digests."""
        parts = f"sounding-dataset-{IDENTITY_VERSION}\0{self.corpus}\0{self.queries}\0{self.qrels}"
        return hashlib.sha256(parts.encode("ascii")).hexdigest()

    @property
    def short(self) -> str:
        """The key's first 12 characters (48 bits), as output folder names carry it."""
        return self.key[:12]

    def to_dict(self) -> dict:
        return {"key": self.key, **asdict(self)}

    def changed(self, other: Mapping | None) -> list[str]:
        """The parts ("corpus", "queries", "qrels") whose digest differs from `other` (a `to_dict()`)."""
        other = other if isinstance(other, Mapping) else {}
        return [part for part, value in asdict(self).items() if other.get(part) != value]


def dataset_identity(ds: "Dataset", memo: "str | Path | CorpusMemo | None" = None) -> DatasetIdentity:
    """The identity of a loaded dataset (its split's queries and qrels, its corpus file); see the module.
    `memo`: a CorpusMemo, or the path of its file (then saved at once)."""
    book = CorpusMemo(memo) if isinstance(memo, (str, Path)) else memo
    corpus = "" if ds.corpus_path is None else book.digest(ds.corpus_path) if book else corpus_digest(ds.corpus_path)
    if isinstance(memo, (str, Path)):
        book.save()
    return DatasetIdentity(corpus, _json_digest(sorted(ds.queries.items())),
                           _json_digest(sorted((q, sorted(j.items())) for q, j in ds.qrels.items())))


def _json_digest(value) -> str:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def corpus_digest(path: str | Path) -> str:
    """sha256 of a corpus file's content (unpacked if gzip)."""
    return _content_sha256(Path(path))


class CorpusMemo:
    """Corpus digests remembered in a JSON file under each file's resolved path, size, modification time
    and inode (see the module). `digest` reads it; `save` writes what was added (skipped quietly where the
    folder is read-only: the file is then hashed again next time)."""

    def __init__(self, file: str | Path):
        self.file = Path(file)
        self._book: dict = {}
        self._added = False
        with contextlib.suppress(OSError, ValueError):
            book = json.loads(self.file.read_text())
            self._book = book if isinstance(book, dict) else {}

    def digest(self, path: str | Path) -> str:
        path = Path(path)
        try:
            st = path.stat()
        except OSError as e:
            raise os_error(e, path, "read") from None
        state, name = [st.st_size, st.st_mtime_ns, st.st_ino], str(path.resolve())
        entry = self._book.get(name)
        if isinstance(entry, dict) and entry.get("state") == state and isinstance(entry.get("sha256"), str):
            return entry["sha256"]
        sha = _content_sha256(path)
        self._book[name] = {"state": state, "sha256": sha}
        self._added = True
        return sha

    def save(self) -> None:
        if self._added:
            with contextlib.suppress(OSError, SoundingError):
                atomic_write_json(self.file, self._book)
            self._added = False


def _content_sha256(path: Path) -> str:
    h = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            gz = f.read(2) == b"\x1f\x8b"
            f.seek(0)
            stream = gzip.GzipFile(fileobj=f) if gz else f
            while block := stream.read(1 << 22):
                h.update(block)
    except (EOFError, zlib.error, gzip.BadGzipFile) as e:
        raise SoundingError(f"{path}: gzip data is truncated or corrupt ({e}); fetch or copy the file again") from None
    except OSError as e:
        raise os_error(e, path, "read") from None
    return h.hexdigest()


__all__ = ["CorpusMemo", "DatasetIdentity", "corpus_digest", "dataset_identity"]
