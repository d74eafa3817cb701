"""Dataset-level loading: one split's judged queries and qrels, plus a path to stream the corpus."""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..errors import SoundingError
from .counts import split_files, verify_counts
from .fetch import resolve
from .readers import Document, iter_corpus, load_qrels, load_queries
from .names import irds_id, is_irds_id, lookup
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
    irds_id: str | None = None  # ir_datasets' id of this dataset and split (datasets/names.py), if it has one

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


def load_dataset(name_or_dir: str | Path, *, split: str | None = None, data_dir: str | Path | None = None,
                 unverified: bool = False) -> Dataset:
    """Load `split` of a registry dataset (found locally or fetched) or of a folder in BEIR/Mr. TyDi layout.

    A dataset is named by Sounding's name (`scifact`) or ir_datasets' id (`beir/scifact/test`): both give the
    same dataset (datasets/names.py). `split` defaults to the one the id names, else "test". Any other
    ir_datasets id is loaded through the ir_datasets package (datasets/irds.py).

    A registry dataset found by name (in `data_dir`, $SOUNDING_DATA or the cache) is checked against
    the registry's counts before it is trusted: a mismatch is an error saying what was expected and
    found, unless `unverified`. A folder given by path whose place names a registry dataset (e.g.
    …/beir/scifact) is checked too, and a mismatch only marks it: either way the dataset then has
    `verified=False`, and every result computed from it says so."""
    ref = None if Path(name_or_dir).is_dir() else lookup(str(name_or_dir))
    info = ref.info if ref is not None else None
    split = ref.split_or(split) if ref is not None else split or "test"
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
    if info is not None:
        ds.irds_id = irds_id(info, split)
    elif ref is None and not Path(name_or_dir).is_dir() and is_irds_id(str(name_or_dir)):
        ds.irds_id = str(name_or_dir)  # loaded through ir_datasets
    return ds


def qrels_for(name_or_file: str | Path, *, compiled: bool | None = None) -> dict[str, dict[str, int]]:
    """The qrels a file holds (TREC or BEIR TSV, .gz accepted), or a dataset's (its name or an ir_datasets id:
    the test qrels, or the split the id names). A file of that name wins over a dataset's name."""
    from ..eval.trec import read_qrels

    path = Path(name_or_file).expanduser()
    if path.is_file():
        return read_qrels(path, fast=compiled)
    return _named(name_or_file, "qrels").qrels


def queries_for(name_or_file: str | Path) -> dict[str, str]:
    """The queries a file holds (BEIR queries.jsonl[.gz] or TSV of id and text), or a dataset's judged queries
    of its test split (or the split an ir_datasets id names). A file of that name wins over a dataset's name."""
    path = Path(name_or_file).expanduser()
    if path.is_file():
        return load_queries(path)
    return _named(name_or_file, "queries").queries


def _named(text: str | Path, what: str) -> Dataset:
    text = str(text)
    if lookup(text) is None and not is_irds_id(text):
        raise SoundingError(f"{text}: no such {what} file, and no dataset of that name (`sounding datasets` lists them)")
    return load_dataset(text)
