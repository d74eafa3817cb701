"""Bring your own system: the user's retrievers and run files as rows of the experiment.

A user system is anything with `index(documents)` and `search(queries, k)` (sounding.types.Retriever):

    class MyRetriever:
        name = "mine"
        def index(self, documents):            # once per dataset: an iterable of sounding.Document
            ...
        def search(self, queries, k):          # {qid: text} -> {qid: {docid: score}} or sounding.Results
            ...

    sounding.run_experiment(["scifact"], out="out", retrievers={"mine": MyRetriever()},
                            runs={"theirs": "runs/{dataset}.trec"})

`sounding run` gives each one a row beside Sounding's BM25 (the reference row, flat layout, Anserini
k1=0.9 b=0.4), scored the way the built-in arms are: run file written, BEIR own-hit convention and raw
nDCG@10, pytrec_eval cross-check, per-query values, and a paired test of per-query nDCG@10 against the
reference (row["vs_bm25"]).

Optional members a retriever may have:
    fingerprint: str                    a string that changes whenever the system's results may change
                                        (model version, parameters); rows are cached under it. Without
                                        one a retriever's rows are recomputed on every run.
    for_dataset(name) -> Retriever      the retriever to use for dataset `name` (a run file per dataset
                                        is one; RunFileRetriever uses it).

Systems are named as `sounding.retrievers.load_retriever` reads them: an import path
"package.module:factory" or a registered name (the built-in "bm25", "dense", "sparse", "hybrid",
"rerank", and whatever installed packages declare in the entry point group `sounding.retrievers`).
"""
from __future__ import annotations

import math
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import SoundingError
from ..retrievers import RunFileRetriever, load_retriever
from ..retrievers.registry import NAME as _NAME
from ..retrievers.registry import is_retriever as _is_retriever
from ..types import Document, Run
from .settings import Setting

if TYPE_CHECKING:
    from ..datasets import Dataset

REFERENCE = Setting()  # BM25, flat, Anserini k1=0.9 b=0.4: the row user systems are tested against
MEASURE = "nDCG@10"
PERMUTATIONS = 10_000


# -- settings: one row per user system ------------------------------------------------------------------
@dataclass(frozen=True)
class UserSetting(Setting):
    """A user system in the settings grid; its row names it `user.<system>`."""

    engine: str = "user"
    arm: str = "user"
    layout: str = ""
    params: str = ""
    system: str = ""
    kind: str = "retriever"  # "retriever" (an object) or "run" (a run file)
    source: str = ""  # the import path, the object's class, or the run file pattern
    reference: str = REFERENCE.name  # the BM25 row it is tested against
    retriever: Any = field(default=None, compare=False, repr=False)

    @property
    def name(self) -> str:
        return f"user.{self.system}"

    def describe(self) -> dict:
        return {"engine": "user", "arm": "user", "layout": None, "params": None, "lucene_norms": False,
                "model": "", "proximity": 0.0, "typos": False, "k1": None, "b": None, "setting": self.name,
                "system": self.system, "kind": self.kind, "source": self.source}

    def for_dataset(self, dataset: str):
        r = self.retriever
        return r.for_dataset(dataset) if callable(getattr(r, "for_dataset", None)) else r

    def fingerprint(self, dataset: str) -> str | None:
        """The cache identity of this system on `dataset`, or None: do not reuse its rows."""
        r = self.for_dataset(dataset)
        fp = getattr(r, "fingerprint", None)
        return f"{self.kind}:{_describe_object(r)}:{fp}" if isinstance(fp, str) and fp else None


def user_settings(retrievers: Mapping[str, Any] | Iterable[Any] | None = None,
                  runs: Mapping[str, str | Path] | None = None) -> list[UserSetting]:
    """Settings for the user's systems: retrievers (objects, import paths or registered names) by label,
    or a list of objects labelled by their `name`; run files by label (path with `{dataset}`)."""
    out: list[UserSetting] = []
    items = list(retrievers.items()) if isinstance(retrievers, Mapping) else \
        [(getattr(r, "name", None), r) for r in (retrievers or [])]
    for label, r in items:
        if label is None:
            raise SoundingError(f"retriever {r!r} has no name: give retrievers as {{name: retriever}}")
        if isinstance(r, str):
            out.append(UserSetting(system=_check_name(label), kind="retriever", source=r, retriever=load_retriever(r)))
        elif isinstance(r, (Path, RunFileRetriever)):
            rf = r if isinstance(r, RunFileRetriever) else RunFileRetriever(r, label)
            out.append(UserSetting(system=_check_name(label), kind="run", source=rf.pattern, retriever=rf))
        elif _is_retriever(r):
            out.append(UserSetting(system=_check_name(label), kind="retriever", source=_describe_object(r),
                                   retriever=r))
        else:
            raise SoundingError(f"retriever {label!r}: a {type(r).__name__} has no index(documents) and "
                                f"search(queries, k) methods")
    for label, path in (runs or {}).items():
        out.append(UserSetting(system=_check_name(label), kind="run", source=str(path),
                               retriever=RunFileRetriever(path, label)))
    names = [s.system for s in out]
    dup = next((n for n in names if names.count(n) > 1), None)
    if dup:
        raise SoundingError(f"two user systems are named {dup!r}; give each its own name")
    return out


def _check_name(label) -> str:
    label = str(label)
    if not _NAME.fullmatch(label):
        raise SoundingError(f"system name {label!r}: use letters, digits, '_', '.', '+' or '-' (it names the "
                            f"run file and its tag)")
    return label


def _describe_object(r) -> str:
    cls = type(r)
    return f"{cls.__module__}.{cls.__qualname__}"


def with_reference(settings: list[Setting], users: list[UserSetting], bm25_asked: bool) -> list[Setting]:
    """The grid with the user systems appended and the BM25 reference row present: the reference alone
    when the caller asked for no BM25 settings, else the asked ones (plus the reference if missing)."""
    if not users:
        return settings
    if not bm25_asked:
        settings = [REFERENCE]
    ref = next((s for s in settings if replace(s, lucene_norms=False) == REFERENCE), None)
    if ref is None:
        settings, ref = [REFERENCE, *settings], REFERENCE
    return [*settings, *(replace(u, reference=ref.name) for u in users)]


# -- running one system on one dataset ----------------------------------------------------------------
def documents(ds: Dataset) -> Iterator[Document]:
    """The dataset's corpus as Documents (streamed)."""
    from ..datasets import iter_corpus

    for d in iter_corpus(ds.corpus_path):
        yield Document(d.id, d.title, d.text)


def run_user(s: UserSetting, ds: Dataset, k: int, log=None) -> tuple[Run, float | None, dict]:
    """(run on the judged queries, search seconds (None for a run file), row extras) of a user system."""
    r = s.for_dataset(ds.name)
    where = _where(s, r)
    index_seconds = None
    if s.kind != "run":
        t0 = time.perf_counter()
        r.index(documents(ds))
        index_seconds = time.perf_counter() - t0
    t0 = time.perf_counter()
    got = r.search(dict(ds.queries), k)
    seconds = None if s.kind == "run" else time.perf_counter() - t0  # reading a file is no search time
    run = _checked_run(_as_run(got, where), ds, where)
    extra = {"system": s.system, "kind": s.kind, "source": str(getattr(r, "path", s.source)),
             "index_seconds": index_seconds}
    return run, seconds, extra


def _where(s: UserSetting, r) -> str:
    return str(r.path) if isinstance(r, RunFileRetriever) else f"retriever {s.system!r} ({s.source})"


def _as_run(got, where: str) -> Run:
    """A returned run or Results as {qid: {docid: score}} with the scores the run file will hold (9
    significant digits), so the row scores exactly what OUT/runs holds."""
    if callable(getattr(got, "to_run", None)):
        got = got.to_run()
    if not isinstance(got, Mapping):
        raise SoundingError(f"{where}: search returned a {type(got).__name__}; expected {{qid: {{docid: score}}}} "
                            f"or Results")
    run: Run = {}
    for q, hits in got.items():
        if not isinstance(hits, Mapping):
            raise SoundingError(f"{where}: the hits of query {q!r} are a {type(hits).__name__}, not {{docid: score}}")
        out = {}
        for d, score in hits.items():
            try:
                v = float(score)
            except (TypeError, ValueError):
                raise SoundingError(f"{where}: query {q!r}, document {d!r}: score {score!r} is not a number") from None
            if not math.isfinite(v):
                raise SoundingError(f"{where}: query {q!r}, document {d!r}: score {score!r} is not finite")
            out[str(d)] = float(f"{v:.9g}")
        run[str(q)] = out
    return run


def _checked_run(run: Run, ds: Dataset, where: str) -> Run:
    """The run cut to the dataset's judged queries; a query id that is no query of the dataset at all, or
    a run without any judged query, is an error naming the first such id."""
    unknown = [q for q in run if q not in ds.queries]
    if unknown:
        known = _all_query_ids(ds)
        bad = [q for q in unknown if q not in known]
        if bad:
            raise SoundingError(f"{where}: query id {bad[0]!r} is not a query of {ds.name} ({len(bad):,} of the "
                                f"run's {len(run):,} query ids are not; its judged {ds.split} queries are "
                                f"{_examples(ds.queries)})")
    if not any(q in run for q in ds.queries):
        first = f"; its first query id is {next(iter(run))!r}" if run else " (it holds no query)"
        raise SoundingError(f"{where}: none of the {len(ds.queries):,} judged {ds.split} queries of {ds.name} "
                            f"({_examples(ds.queries)}) is in the run{first}")
    return {q: run[q] for q in ds.queries if q in run}


def _examples(ids) -> str:
    ids = list(ids)
    return ", ".join(repr(q) for q in ids[:3]) + (", …" if len(ids) > 3 else "")


def _all_query_ids(ds: Dataset) -> set[str]:
    """Every query id of the dataset's queries file (all splits); the judged ones if it cannot be read."""
    try:
        from ..datasets.counts import split_files
        from ..datasets.readers import load_queries

        files, _ = split_files(ds.root, ds.split, ds.info)
        return set(load_queries(files.queries))
    except (SoundingError, OSError):
        return set(ds.queries)


def against_reference(per_query: Mapping[str, float], reference: Mapping[str, float], setting: str) -> dict | None:
    """Paired comparison of per-query nDCG@10 with the reference row's (difference = system − BM25)."""
    from ..eval.significance import compare

    qids = sorted(per_query.keys() & reference.keys())
    if len(qids) < 2:
        return None
    c = compare([per_query[q] for q in qids], [reference[q] for q in qids], permutations=PERMUTATIONS)
    return {"reference": setting, "measure": MEASURE, "n": c.n, "mean": c.mean_a, "reference_mean": c.mean_b,
            "diff": c.diff, "ci_low": c.ci_low, "ci_high": c.ci_high, "confidence": c.confidence,
            "t_pvalue": c.t_pvalue, "rand_pvalue": c.rand_pvalue, "permutations": c.permutations,
            "wins": c.wins, "ties": c.ties, "losses": c.losses}


def check_run_files(settings: list[Setting], datasets: list[str]) -> None:
    """A missing run file fails before any indexing, naming the file."""
    for s in settings:
        if isinstance(s, UserSetting) and s.kind == "run":
            for name in datasets:
                path = s.for_dataset(name).path
                if not path.is_file():
                    raise SoundingError(f"{path}: no such run file (system {s.system!r}, dataset {name})")


def row_extras(s: UserSetting, dataset: str, out: Path, per_query: Mapping[str, Mapping[str, float]]) -> dict:
    """What a user system's row adds once scored: the paired test against the BM25 reference row (whose
    per-query file the grid wrote first) and the published figures of other systems on the dataset."""
    ref_file = Path(out) / "per_query" / dataset / f"{s.reference}.json"
    vs = None
    if ref_file.is_file():
        import json

        vs = against_reference(per_query[MEASURE], json.loads(ref_file.read_text())[MEASURE], s.reference)
    return {"vs_bm25": vs, "published_beside": published_beside(dataset)}


def published_beside(dataset: str) -> list[dict]:
    """Verified published nDCG@10 figures of any system on `dataset` (test split), for the report."""
    from .baselines import all_baselines

    return [{"condition": e["condition"], "title": e["title"], MEASURE: e[MEASURE]}
            for e in all_baselines() if e["dataset"] == dataset and e["split"] == "test" and MEASURE in e]


__all__ = ["REFERENCE", "UserSetting", "against_reference", "check_run_files", "run_user", "row_extras",
           "user_settings", "with_reference"]
