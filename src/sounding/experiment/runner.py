"""`sounding run`: datasets × settings → run files, metrics, cross-checks, results.json.

Layout of an output folder (everything keyed by content, so a second run reuses what it can):

    OUT/run.json                    metadata, format version, gate verdict
    OUT/results.json                list of rows, one per dataset × setting
    OUT/indexes/<dataset>-<key>/    index, key = sha256(corpus file, analyzer, index format)
    OUT/indexes/corpus-sha256.json  each corpus file's sha256, under its size, modification time and inode
    OUT/indexes/<dataset>-<key>-<N>shards/   the same as N shards, built on Ray (`--ray`, see on_ray.py)
    OUT/runs/<dataset>/<setting>.trec       (.trec.gz with gzip_runs, `--runs gz`)
    OUT/rows/<dataset>/<setting>.json      the row + the cache key it was computed under
    OUT/per_query/<dataset>/<setting>.json per-query values (for reports and significance)

A setting whose row file carries the current key is not recomputed: an interrupted run resumes
where it stopped, and an unchanged rerun only re-reads rows and rewrites the reports.
"""
from __future__ import annotations

import contextlib
import functools
import json
import os
import platform
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from .. import __version__
from ..datasets import Dataset, iter_corpus, load_dataset
from .. import validate
from ..errors import SoundingError
from ..io import atomic_write_json as _write_json
from ..io import digest as _digest
from ..io import file_sha256 as _file_sha256
from ..io import remove_stale, writer_lock
from ..index import FORMAT_VERSION as INDEX_FORMAT
from ..index import Index, build_index
from ..pipeline import default_analyzer
from ..search import Searcher
from ..results import RESULTS_SCHEMA as RESULTS_FORMAT
from ..results import ResultRow, match_key, to_pandas
from ..eval.metrics import judged_qids
from .scoring import JudgedDocs, judged_docs, judged_in_collection, write_and_score
from .settings import Setting, grid

# nDCG'@10 and bpref are the pool-bias measures (judged-only scores): the report's "Pool bias" section
BEIR_MEASURES = ["nDCG@10", "R@100", "R@1000", "RR@100", "judged@10", "nDCG'@10", "bpref"]
MRTYDI_MEASURES = ["RR@100", "R@100", "Success@100", "nDCG@10", "judged@10", "nDCG'@10", "bpref"]
POOL_K, POOL_SHOWN = 10, 5  # a row names the POOL_SHOWN queries with the most unjudged hits in its top POOL_K
GATE_POINTS = 0.01  # "more than one point below" a published figure or a comparator


@dataclass
class ExperimentResult:
    out: Path
    rows: list[ResultRow]  # one per dataset × setting; results.json holds their to_dict()
    gate_failures: list[str] = field(default_factory=list)
    crosscheck_failures: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def to_dicts(self) -> list[dict]:
        """The rows as results.json holds them."""
        return [r.to_dict() for r in self.rows]

    def to_pandas(self):
        """One DataFrame row per result, one column per measure (needs pandas)."""
        return to_pandas(self.rows)


def _one_writer(fn):
    """One process writes an experiment folder at a time (a second fails at once, naming the first)."""
    @functools.wraps(fn)
    def locked(datasets, out, *args, **kwargs):
        with writer_lock(Path(out), f"the experiment folder {out}"):
            for pattern in ("**/.*.tmp-*", "**/.*.tmp"):  # what a killed run left half-written
                remove_stale(Path(out), pattern)
            return fn(datasets, out, *args, **kwargs)
    return locked


@_one_writer
def run_experiment(
    datasets: list[str],
    out: str | Path,
    *,
    engines: list[str] | None = None,
    layouts: list[str] | None = None,
    params: list[str] | None = None,
    lucene_norms: bool = False,
    norms: str | None = None,
    hits: int | None = None,
    threads: int | None = None,
    data_dir: str | Path | None = None,
    phase: str = "all",
    gate: bool = False,
    arms: list[str] | None = None,
    models: list[str] | None = None,
    variants: list[str] | None = None,
    ray: str | None = None,
    shards: int | None = None,
    retrievers: Mapping[str, Any] | Iterable[Any] | None = None,
    runs: Mapping[str, str | Path] | None = None,
    unverified_data: bool = False,
    gzip_runs: bool = False,
    command: str = "",
    log: Callable[[str], None] = print,
) -> ExperimentResult:
    """Index each dataset once, run every setting, score, cross-check and write OUT/results.json.

    `ray`: "local", "auto" or a cluster address: BM25 indexes are built as `shards` shards (default:
    the cluster's CPUs, at least 2) by Ray tasks and searched by shard actors, and the dense and
    sparse arms' corpora are encoded by Ray Data jobs, with the same run files (experiment/on_ray.py
    says what runs where and what is refused).

    `retrievers` ({name: Retriever, import path or registered name}) and `runs` ({name: run file path,
    `{dataset}` filled per dataset}) add the user's own systems as rows `user.<name>`, scored like every
    arm and tested against the BM25 reference row (flat, Anserini 0.9/0.4), which runs alone when no
    BM25 setting was asked for (experiment/user_systems.py).

    `gzip_runs`: run files are written gzip-compressed (`<setting>.trec.gz`); every reader takes both.
    """
    from .settings import LAYOUTS, PRESETS, VARIANTS, parse_list

    start = time.perf_counter()
    bm25_asked = any(x is not None for x in (engines, arms, layouts, params, norms)) or bool(variants) or lucene_norms
    # BM25 rows in both arithmetics by default: Lucene's (equal to Pyserini's published figures) beside exact
    norms = norms or ("lucene" if lucene_norms else "both")
    out = Path(out)
    _check_out_dir(out)
    if phase not in ("all", "index", "search"):
        raise SoundingError(f"unknown phase {phase!r}; choose all, index or search")
    engines = parse_list(engines or ["sounding"], tuple(_known_engines()), "engine")
    arms = parse_list(arms or ["bm25"], ("bm25", *_known_arms()), "arm")
    variants = parse_list(variants or [], VARIANTS, "variant")
    settings = grid(engines, parse_list(layouts, LAYOUTS, "layout"), parse_list(params, tuple(PRESETS), "params"),
                    norms, variants) if "bm25" in arms else []
    if set(arms) - {"bm25"}:
        from .arms import arm_settings  # dense, hybrid, sparse, rerank (need the `dense` extra)

        settings += arm_settings([a for a in arms if a != "bm25"], models or [])
    if retrievers or runs:  # the user's own systems, beside the BM25 reference row
        from .user_systems import user_settings, with_reference

        settings = with_reference(settings, user_settings(retrievers, runs), bm25_asked)
    on_ray = _ray_grid(ray, shards, settings, log)
    if hits is not None:
        validate.integer("hits", hits)
    threads = validate.threads(threads) if threads else (os.cpu_count() or 1)
    # fail fast on any bad name or folder, and on data that is not what the registry says it is
    loaded = [load_dataset(d, data_dir=data_dir, unverified=unverified_data) for d in datasets]
    for ds in loaded:
        if ds.corpus_path is None:
            raise SoundingError(f"{ds.name}: no corpus in {ds.root}; `sounding run` needs the documents")
    if runs:
        from .user_systems import check_run_files

        check_run_files(settings, [ds.name for ds in loaded])

    rows: list[ResultRow] = []
    checks_failed: list[str] = []
    with on_ray or contextlib.nullcontext():
        for ds in loaded:
            if on_ray:
                index_dir, index_info = on_ray.ensure_index(ds, out, phase)
            else:
                index_dir, index_info = _ensure_index(ds, out, phase, log, positions="proximity" in variants)
            if phase == "index":
                continue
            judged = _check_judged_docs_indexed(ds, on_ray.docids(index_dir) if on_ray
                                                else Index(index_dir, verify=False).docids)
            if hits and hits > (index_info.get("n_docs") or hits):
                log(f"{ds.name}: {hits:,} hits asked for, but it has {index_info['n_docs']:,} documents: "
                    f"at most {index_info['n_docs']:,} per query")
            searchers: dict = {}  # this dataset's Searcher, shared by its settings
            with on_ray.searching(index_dir) if on_ray else contextlib.nullcontext(), \
                    _Finisher(enabled=not on_ray) as finisher:
                for s in settings:
                    finisher.add(s, _run_setting(ds, s, out, index_dir, index_info, hits, threads, log, on_ray,
                                                 gzip_runs, searchers, None if on_ray else judged,  # shards: own numbers
                                                 finisher.later(s)))
                for s, row in finisher.rows():
                    rows.append(row)
                    if row.crosscheck and not row.crosscheck["ok"]:
                        checks_failed.append(f"{ds.name} {s.name}: pytrec_eval differs by "
                                             f"{row.crosscheck['max_diff']:.2e}")
            searchers.clear()  # its arrays go before the next dataset is indexed
    failures = gate_failures(rows) if gate else []
    if phase != "index":
        _write_json(out / "results.json", [r.to_dict() for r in rows])
    _write_json(out / "run.json", {
        "format": "sounding-run", "version": RESULTS_FORMAT, "sounding_version": __version__,
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "command": command,
        "machine": {"cpu": _cpu_name(), "cores": os.cpu_count(), "python": platform.python_version()},
        "datasets": [ds.name for ds in loaded], "settings": [s.name for s in settings],
        "gate": {"passed": not failures, "failures": failures} if gate else None,
        **({"ray": on_ray.info} if on_ray else {}),
    })
    return ExperimentResult(out, rows, failures, checks_failed, time.perf_counter() - start)


def _ray_grid(ray: str | None, shards: int | None, settings: list[Setting], log):
    """The Ray side of the run (`--ray`), or None; refuses what Ray cannot run exactly, before any work."""
    if not ray:
        if shards:
            raise SoundingError("--shards builds sharded indexes on Ray: give --ray local, auto or an address too")
        return None
    from .on_ray import RayGrid, check_settings

    check_settings(settings)
    return RayGrid(ray, shards, log)


# -- indexing ----------------------------------------------------------------------------------
def _ensure_index(ds: Dataset, out: Path, phase: str, log, positions: bool = False) -> tuple[Path, dict]:
    analyzer = default_analyzer(ds.language)
    key = _digest(_corpus_sha256(Path(ds.corpus_path), out), analyzer, f"index-format-{INDEX_FORMAT}",
                  *(["positions"] if positions else []))
    index_dir = out / "indexes" / f"{ds.name}-{key[:12]}"
    info_file = index_dir / "build.json"
    if info_file.is_file():
        return index_dir, json.loads(info_file.read_text())
    if phase == "search":
        raise SoundingError(f"{ds.name}: no index in {out / 'indexes'}; run `sounding run --phase index` first")
    log(f"indexing {ds.name} ({analyzer})")
    report = build_index(iter_corpus(ds.corpus_path), index_dir, analyzer=analyzer, source=str(ds.corpus_path),
                         positions=positions)
    info = {"key": key, "analyzer": analyzer, "index_seconds": report.seconds, "index_bytes": report.bytes,
            "n_docs": report.n_docs, "empty_docs": report.empty_docs, "docs_without_title": report.docs_without_title}
    _write_json(info_file, info)
    return index_dir, info


def _corpus_sha256(path: Path, out: Path) -> str:
    """sha256 of a corpus file, remembered in OUT/indexes/corpus-sha256.json under the file's path, size,
    modification time and inode: hashing it cost every `sounding run` ~0.7 s at NQ size (0.6 GB). A file
    that changed in any of these is hashed again (as an index's checksums are: docs/reliability.md)."""
    st = path.stat()
    state = [st.st_size, st.st_mtime_ns, st.st_ino]
    memo_file = out / "indexes" / "corpus-sha256.json"
    name = str(path.resolve())
    try:
        memo = json.loads(memo_file.read_text())
        entry = memo.get(name) if isinstance(memo, dict) else None
    except (OSError, ValueError):
        memo, entry = {}, None
    if isinstance(entry, dict) and entry.get("state") == state and isinstance(entry.get("sha256"), str):
        return entry["sha256"]
    sha = _file_sha256(path)
    memo = memo if isinstance(memo, dict) else {}
    memo[name] = {"state": state, "sha256": sha}
    with contextlib.suppress(OSError):  # a read-only folder: hashed again next time
        memo_file.parent.mkdir(parents=True, exist_ok=True)
        _write_json(memo_file, memo)
    return sha


def _check_judged_docs_indexed(ds: Dataset, docids: list[str]) -> JudgedDocs | None:
    """A corpus that holds none of the judged documents would score 0 everywhere: say so instead. Returns
    where the judged documents are (`judged_docs`, for scoring every setting), None where it cannot say."""
    located = judged_docs(ds.qrels, docids) if judged_qids(ds.qrels) else None
    judged = {d for j in ds.qrels.values() for d in j}
    found = located.found() if located is not None and located.unique else None
    if judged and not (found if found is not None else judged_in_collection(judged, docids)):
        raise SoundingError(f"{ds.name}: none of the {len(judged):,} judged documents of the qrels is in the corpus "
                            f"{ds.corpus_path}; are corpus and qrels from the same dataset?")
    return located


# -- one setting -------------------------------------------------------------------------------
class _Finisher:
    """Finishes a Sounding BM25 setting (run file, scores, cross-check, row) in a second thread while the next
    setting is searched: the search kernels and the run-file formatting run outside Python's lock, so on two
    cores a setting costs about the longer of its search and its finishing, not their sum. At most one
    setting is finished at a time and at most one waits (memory: two settings' hits); rows come out in the
    settings' order. Every other setting (and --ray's) runs whole in the calling thread, after the
    finishing in flight: a user system's row reads the reference row's per-query file."""

    def __init__(self, *, enabled: bool):
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="sounding-finish") if enabled else None
        self._done: list = []  # (setting, row or Future), in order

    def later(self, s: Setting):
        """The executor to finish setting `s` on, or None (finish it here, after what is in flight)."""
        if self._pool is not None and s.arm == "bm25" and s.engine == "sounding":
            return self
        self.wait()
        return None

    def submit(self, finish):
        self.wait()  # the previous setting is finished before this one starts finishing
        return self._pool.submit(finish)

    def add(self, s: Setting, got) -> None:
        self._done.append((s, got))

    def wait(self) -> None:
        for _, got in self._done:
            if isinstance(got, Future):
                got.result()

    def rows(self):
        return [(s, got.result() if isinstance(got, Future) else got) for s, got in self._done]

    def __enter__(self) -> "_Finisher":
        return self

    def __exit__(self, *exc) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)  # an error in the search still lets the file in progress complete


def _run_setting(ds: Dataset, s: Setting, out: Path, index_dir: Path, index_info: dict, hits, threads, log,
                 on_ray=None, gzip_runs: bool = False, searchers: dict | None = None,
                 judged: JudgedDocs | None = None, later: _Finisher | None = None) -> ResultRow | Future:
    """The setting's row, or with `later` a Future of it: the search is done here, the rest in `later`."""
    k = hits or ds.depth  # each search caps it at the collection's size
    measures = MRTYDI_MEASURES if ds.info and ds.info.kind == "mrtydi" else BEIR_MEASURES
    user_key = s.fingerprint(ds.name) if s.arm == "user" else ""  # None: a user system with no fingerprint
    key = _digest(index_info["key"], s.name, str(k), json.dumps(sorted(ds.queries.items())),
                  json.dumps(sorted((q, sorted(j.items())) for q, j in ds.qrels.items())), f"results-{RESULTS_FORMAT}",
                  ",".join(measures),
                  *([user_key] if user_key else []), *(["runs-gz"] if gzip_runs else []))
    row_file = out / "rows" / ds.name / f"{s.name}.json"
    if row_file.is_file() and user_key is not None:  # a user system without a fingerprint is never reused
        cached = json.loads(row_file.read_text())
        if cached.get("key") == key:
            return ResultRow.from_dict(cached["row"])
    log(f"{ds.name}: {s.name}")
    extra: dict = {}
    results = None  # a Sounding search's arrays: its run file is written from them (same bytes, compiled)
    if s.arm == "bm25":
        run, seconds, results = _search(ds, s, index_dir, k, threads, on_ray, dicts=False, searchers=searchers)
    elif s.arm == "user":  # the user's own retriever or run file (experiment/user_systems.py)
        from .user_systems import run_user

        run, seconds, extra = run_user(s, ds, k, log)
    else:
        from .arms import ArmContext, run_arm

        ctx = ArmContext(out=out, k=k, threads=threads,
                         bm25_run=lambda: _search(ds, Setting(), index_dir, k, threads, on_ray, searchers=searchers)[0],
                         log=log,
                         ray=on_ray)
        arm = run_arm(s, ds, ctx)
        run, seconds, extra = arm.run, arm.seconds, dict(arm.extra)
    run_file = out / "runs" / ds.name / f"{s.name}.trec{'.gz' if gzip_runs else ''}"
    run_file.parent.mkdir(parents=True, exist_ok=True)
    finish = functools.partial(_finish_setting, ds, s, out, index_info, k, measures, key, row_file, run_file, run,
                               results, seconds, extra, threads, judged, on_ray)
    return later.submit(finish) if later is not None else finish()


def _finish_setting(ds: Dataset, s: Setting, out: Path, index_info: dict, k: int, measures: list[str], key: str,
                    row_file: Path, run_file: Path, run, results, seconds: float, extra: dict, threads: int,
                    judged: JudgedDocs | None, on_ray) -> ResultRow:
    """Write the run file, score, cross-check, and write the per-query values and the row."""
    # BEIR convention (own hits dropped) is what published BEIR figures use; raw nDCG is kept beside it;
    # a Sounding search's run is written and scored from its arrays (experiment/scoring.py: the same bytes
    # and values as from dicts), the writing in a second thread
    scored = write_and_score(run_file, s.name, ds.qrels, ds.queries, measures, results=results, run=run,
                             pool_k=POOL_K, judged=judged)
    per_query, unjudged, metrics, raw_metrics = scored.per_query, scored.unjudged, scored.metrics, scored.raw_metrics
    pq_file = out / "per_query" / ds.name / f"{s.name}.json"
    _write_json(pq_file, per_query)
    if s.arm == "user":
        from .user_systems import row_extras

        extra.update(row_extras(s, ds.name, out, per_query))
    row = ResultRow.from_dict({
        "dataset": ds.name, **s.describe(), "metrics": metrics, "raw_metrics": raw_metrics, "n_queries": len(ds.qrels),
        "crosscheck": scored.crosscheck_row(),
        "index_seconds": index_info["index_seconds"] if s.engine == "sounding" else None,
        "index_bytes": index_info["index_bytes"] if s.engine == "sounding" else None,
        "search_seconds": seconds, "qps": len(ds.queries) / seconds if seconds else None,
        "hits": k, "threads": threads,
        "queries_without_hits": scored.queries_without_hits,
        **({"unverified_data": True} if not ds.verified else {}),
        "run_file": str(run_file.relative_to(out)), "per_query_file": str(pq_file.relative_to(out)),
        "published": _published(ds.name, s), "model": extra.pop("model", None),
        "pool": _pool_holes(ds.qrels, unjudged), **extra,
        **({"ray": on_ray.info} if on_ray and _searches_bm25(s) else {}),
    })
    _write_json(row_file, {"key": key, "row": row.to_dict()})
    return row


def _pool_holes(qrels: dict, unjudged: dict[str, int]) -> dict:
    """A row's "pool": the queries with the most unjudged hits in the top POOL_K (count descending, then qid),
    how many queries have any, and how many grade-0 judgements the qrels hold (with none, a judged-only
    list holds only relevant documents)."""
    worst = sorted(((q, n) for q, n in unjudged.items() if n), key=lambda x: (-x[1], x[0]))[:POOL_SHOWN]
    return {"k": POOL_K, "queries_with_unjudged": sum(1 for n in unjudged.values() if n),
            "most_unjudged": [[q, n] for q, n in worst],
            "judged_nonrelevant": sum(1 for j in qrels.values() for g in j.values() if g == 0)}


def _search(ds: Dataset, s: Setting, index_dir: Path, k: int, threads: int, on_ray=None, dicts: bool = True,
            searchers: dict | None = None):
    """(run dict, or None when `dicts` is False and the hits are arrays; seconds; the results or None).
    `searchers` ({index folder: Searcher}) keeps the Searcher for the next setting."""
    if s.engine == "sounding":
        if on_ray:  # the shard actors, merged exactly (same run file)
            searcher = on_ray
        else:  # one Searcher for every setting of the dataset: the index opened, the queries analysed once
            searcher = searchers.get(index_dir) if searchers is not None else None
            if searcher is None:
                searcher = Searcher(index_dir)
                if searchers is not None:
                    searchers[index_dir] = searcher
        results = searcher.search(ds.queries, s.bm25(k), threads=threads)
        if not on_ray:
            searcher.release_postings()  # the next setting may read other fields: their pages, not these, stay
        return results.to_run() if dicts or not hasattr(results, "write_run") else None, results.seconds, results
    from ..engines import get_engine

    engine = get_engine(s.engine)
    workdir = index_dir.parent / f"{index_dir.name}.{s.engine}"
    engine.index(list(iter_corpus(ds.corpus_path)), workdir)
    return (*engine.search(ds.queries, k=k, k1=s.k1, b=s.b, threads=threads, batch=True), None)


def _searches_bm25(s: Setting) -> bool:
    """Whether a row's Sounding BM25 search ran (the plain BM25 settings; hybrid and rerank's first stage)."""
    return s.engine == "sounding" and s.arm in ("bm25", "hybrid", "rerank")


def _published(dataset: str, s: Setting) -> dict | None:
    from .baselines import baseline_for_row

    return baseline_for_row({"dataset": dataset, **s.describe()})


# -- gate --------------------------------------------------------------------------------------
def gate_failures(rows: list[ResultRow | dict], measure: str = "nDCG@10") -> list[str]:
    """Sounding rows more than one point below their published figure or a comparator at matched settings."""
    rows = [r if isinstance(r, ResultRow) else ResultRow.from_dict(r) for r in rows]
    failures = []
    for row in rows:
        if row.engine != "sounding":
            continue
        ours = row.metrics.get(measure)
        pub = (row.published or {}).get(measure)
        if pub is not None and ours < pub - GATE_POINTS:
            failures.append(f"{row.dataset} {row.setting}: {measure} {ours:.4f} is {pub - ours:.4f} below "
                            f"the published {pub:.4f} ({row.published.get('source', '?')})")
        for other in rows:
            if (other.engine not in ("sounding", "user") and row.layout is not None
                    and match_key(other) == match_key(row) and ours < other.metrics[measure] - GATE_POINTS):
                failures.append(f"{row.dataset} {row.setting}: {measure} {ours:.4f} is below {other.engine} "
                                f"({other.metrics[measure]:.4f}) at matched settings")
    return failures


# -- helpers -----------------------------------------------------------------------------------
def _known_arms() -> list[str]:
    from .arms import ARMS

    return list(ARMS)


def _known_engines() -> list[str]:
    from ..engines import ENGINES

    return list(dict.fromkeys(["sounding", *ENGINES]))


def _check_out_dir(out: Path) -> None:
    meta = out / "run.json"
    if meta.is_file():
        try:
            version = json.loads(meta.read_text()).get("version")
        except json.JSONDecodeError:
            version = None
        if version != RESULTS_FORMAT:
            raise SoundingError(f"{out} holds results of another Sounding format (version {version}); "
                                f"choose a new --out or delete the folder")
    out.mkdir(parents=True, exist_ok=True)


def _cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"
