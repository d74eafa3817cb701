"""Dataset-level loading: one split's judged queries and qrels, plus a path to stream the corpus."""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..errors import SoundingError
from ..validate import DEFAULT_HITS
from .counts import split_files, verify_counts
from .fetch import resolve
from .readers import Document, iter_corpus, load_qrels, load_queries
from .registry import REGISTRY, DatasetInfo


@dataclass
class Dataset:
    name: str
    root: Path
    corpus_path: Path | None
    queries: dict[str, str]  # only the queries judged in `split`
    qrels: dict[str, dict[str, int]]
    language: str
    split: str
    info: DatasetInfo | None = None
    verified: bool = True  # False: the counts differ from the registry's and the user chose to go on

    @property
    def depth(self) -> int:
        """Hits per query unless asked otherwise: the registry entry's (Mr. TyDi 100), else DEFAULT_HITS."""
        return self.info.depth if self.info is not None else DEFAULT_HITS

    def corpus(self) -> Iterator[Document]:
        """Stream the documents; a clear error when this copy has no corpus (e.g. Mr. TyDi topics only)."""
        if self.corpus_path is None:
            raise SoundingError(
                f"{self.name}: no corpus in {self.root} (expected corpus.jsonl[.gz] or collection/docs.jsonl.gz); "
                f"run `sounding fetch {self.name}` or point --data-dir at a full copy")
        return iter_corpus(self.corpus_path)


def info_for_folder(root: Path) -> DatasetInfo | None:
    """The registry entry a folder stands for, judged by its place (beir/scifact, mrtydi/sw, scifact)."""
    root = root.resolve()
    name, parent = root.name, root.parent.name
    candidates = [name, f"{parent}-{name}"]
    if parent == "mrtydi":
        candidates.append(f"mrtydi-{name}")
    candidates += [i.name for i in REGISTRY.values() if i.archive_root and i.archive_root == name]
    for c in candidates:
        if c in REGISTRY:
            return REGISTRY[c]
    return None


def load_split(root: Path, split: str = "test", info: DatasetInfo | None = None) -> Dataset:
    files, lang = split_files(root, split, info)
    qrels = load_qrels(files.qrels)
    all_queries = load_queries(files.queries)
    # The split's queries are exactly the judged ones (BEIR and trec_eval -c both average over them).
    missing = [q for q in qrels if q not in all_queries]
    if missing:
        raise SoundingError(f"{files.qrels}: {len(missing)} judged queries have no text in {files.queries} "
                            f"(e.g. {', '.join(missing[:3])})")
    queries = {q: text for q, text in all_queries.items() if q in qrels}  # file order
    name = info.name if info else root.name
    return Dataset(name, root, files.corpus, queries, qrels, lang, split, info)


def load_dataset(name_or_dir: str | Path, *, split: str = "test", data_dir: str | Path | None = None,
                 unverified: bool = False) -> Dataset:
    """Load `split` of a registry dataset (found locally or fetched) or of a folder in BEIR/Mr. TyDi layout.

    A registry dataset found by name (in `data_dir`, $SOUNDING_DATA or the cache) is checked against
    the registry's counts before it is trusted: a mismatch is an error saying what was expected and
    found, unless `unverified`. A folder given by path whose place names a registry dataset (e.g.
    …/beir/scifact) is checked too, and a mismatch only marks it: either way the dataset then has
    `verified=False`, and every result computed from it says so."""
    info = None if Path(name_or_dir).is_dir() else REGISTRY.get(str(name_or_dir))
    kids = [i.name for i in REGISTRY.values() if info and i.parent == info.name]
    if kids:  # cqadupstack: scored per forum, then averaged
        raise SoundingError(f"{info.name} is a bundle of {len(kids)} sub-forums; load one of them "
                            f"({', '.join(kids[:3])}, …) and average the per-forum means")
    root = resolve(name_or_dir, data_dir=data_dir)
    by_name, info = info is not None, info or info_for_folder(root)
    problems = verify_counts(root, info) if info is not None else []
    if problems and by_name and not unverified:
        raise SoundingError(f"{root} does not hold the registry's {info.name}: {'; '.join(problems)}. "
                            f"Point Sounding at the right copy, or pass --unverified-data to use it anyway "
                            f"(results are then marked unverified)")
    ds = load_split(root, split, info)
    ds.verified = not problems
    return ds
