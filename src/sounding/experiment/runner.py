"""`sounding run`: datasets × settings → run files, metrics, cross-checks, results.json.

Layout of an output folder (everything keyed by content, so a second run reuses what it can):

    OUT/run.json                    metadata, format version, gate verdict
    OUT/results.json                list of rows, one per dataset × setting of this run
    OUT/corpus-digests.json         each corpus file's content digest, under its size, modification time and inode
    OUT/indexes/<dataset>-<key>/    index, key = sha256(corpus content, analyzer, index format)
    OUT/indexes/<dataset>-<key>-<N>shards/   the same as N shards, built on Ray (`--ray`, see on_ray.py)
    OUT/runs/<label>/<setting>.trec         (.trec.gz with gzip_runs, `--run-format gz`)
    OUT/rows/<label>/<setting>.json         the row, what made it and the digests of its files (rows.py)
    OUT/per_query/<label>/<setting>.json    per-query values and top 10s (for reports and significance)
    OUT/explorer/<dataset>.json             query texts, judgements, titles and snippets (the run explorer)

`<label>` is the dataset's name and the start of its identity (`scifact-0d6a3c33b5e1`: experiment/rows.py),
so two datasets that share a name never share a file; two of them in one run are refused, naming both
folders (the name is what labels a dataset's rows in results.json and the reports).

A row is reused only when everything that made it is the same and its files are the ones it was scored
from (rows.reuse); otherwise it is computed again, and the terminal says why. An interrupted run
resumes where it stopped, and an unchanged rerun only re-reads rows and rewrites the reports.
"""
from __future__ import annotations

import contextlib
import functools
import json
import os
import platform
import time
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from .. import __version__
from ..datasets import CorpusMemo, Dataset, DatasetIdentity, dataset_identity, iter_corpus, load_dataset
from .. import validate
from ..errors import SoundingError
from ..io import atomic_write_json as _write_json
from ..io import digest as _digest
from ..io import remove_stale, writer_lock
from ..index import FORMAT_VERSION as INDEX_FORMAT
from ..index import Index, build_index
from ..analysis import default_analyzer
from ..results import RESULTS_SCHEMA as RESULTS_FORMAT
from ..results import ResultRow, match_key, to_pandas
from ..eval.measures import sets as measure_sets
from ..provenance import cpu_name
from ..eval.metrics import judged_qids
from .finisher import Finisher
from .progress import LogSteps, Steps
from .rows import folder_label, recipe, reuse, safe_name, write_row
from .scoring import JudgedDocs, judged_docs, judged_in_collection, warm_finishing, write_and_score
from ..retrieval.arms import Caches, Job, run_bm25
from ..retrieval.systems import SYSTEMS, arm_names, engine_names, system_for
from .settings import REFERENCE, Setting, arm_settings, grid

# nDCG'@10 and bpref are the pool-bias measures (judged-only scores): the report's "Pool bias" section
BEIR_MEASURES = list(measure_sets.BEIR)  # what a row holds (eval/measures/sets.py)
MRTYDI_MEASURES = list(measure_sets.MRTYDI)
POOL_K, POOL_SHOWN = 10, 5  # a row names the POOL_SHOWN queries with the most unjudged hits in its top POOL_K
GATE_POINTS = 0.01  # "more than one point below" a published figure or a comparator
CORPUS_MEMO = "corpus-digests.json"  # in OUT: datasets.identity's memo of corpus content digests


@dataclass
class ExperimentResult:
    out: Path
    rows: list[ResultRow]  # one per dataset × setting; results.json holds their to_dict()
    gate_failures: list[str] = field(default_factory=list)
    crosscheck_failures: list[str] = field(default_factory=list)
    seconds: float = 0.0
    datasets: dict[str, Dataset] = field(default_factory=dict, repr=False)  # by name: what the rows were scored on

    def to_dicts(self) -> list[dict]:
        """The rows as results.json holds them."""
        return [r.to_dict() for r in self.rows]

    def to_pandas(self):
        """One DataFrame row per result, one column per measure (needs pandas)."""
        return to_pandas(self.rows)

    def to_mteb(self, folder: str | Path, arms: Iterable[str] = ("dense",)) -> list[Path]:
        """Write the rows of `arms` (the dense ones by default) as MTEB result files under `folder`:
        `<model>/<revision>/<Task>.json` (experiment/mteb.py says what each holds). Returns the files written."""
        from .mteb import write_mteb

        return write_mteb(self, folder, tuple(arms))


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
    metadata: bool = False,
    device: str = "auto",
    command: str = "",
    log: Callable[[str], None] = print,
    steps: Steps | None = None,
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
    `device`: where the dense, sparse and rerank models run: auto (the best available), cpu, cuda or mps
    (dense/device.py; float16 on a GPU); rows name the device used.
    `metadata`: every run file starts with an ir_metadata header (sounding.provenance; experiment/run_metadata.py).

    `log` takes the run's messages; `steps` (experiment/progress.py) is told each step as it starts and
    ends (default: a log line per index build and per setting).
    """
    start = time.perf_counter()
    steps = steps or LogSteps(log)
    bm25_asked = any(x is not None for x in (engines, arms, layouts, params, norms)) or bool(variants) or lucene_norms
    out = Path(out)
    _check_out_dir(out)
    if phase not in ("all", "index", "search"):
        raise SoundingError(f"unknown phase {phase!r}; choose all, index or search")
    settings = _grid(engines, arms, layouts, params, norms or ("lucene" if lucene_norms else "both"), variants or [],
                     models, retrievers, runs, bm25_asked)
    on_ray = _ray_grid(ray, shards, settings, log)
    if hits is not None:
        validate.integer("hits", hits)
    threads = validate.threads(threads) if threads else (os.cpu_count() or 1)
    device = _checked_device(device, settings)
    # fail fast on any bad name or folder, and on data that is not what the registry says it is
    loaded = [load_dataset(d, data_dir=data_dir, unverified=unverified_data) for d in datasets]
    if runs:
        from .user_systems import check_run_files

        check_run_files(settings, [ds.name for ds in loaded])

    targets = _identified(loaded, out, log)
    caches = Caches(out, threads, log=log, ray=on_ray, device=device)  # what every setting's system shares
    rows: list[ResultRow] = []
    checks_failed: list[str] = []
    with on_ray or contextlib.nullcontext():
        for ds, identity in targets:
            if on_ray:
                index_dir, index_info = on_ray.ensure_index(ds, out, phase, identity.corpus)
            else:
                index_dir, index_info = _ensure_index(ds, identity, out, phase, log, steps,
                                                      positions=any(s.proximity for s in settings))
            if phase == "index":
                continue
            header_for = _header_for(ds, index_info, command) if metadata else None
            done = _run_dataset(ds, identity, index_dir, index_info, settings, out, hits, caches, gzip_runs,
                                header_for, steps)
            for s, row in done:
                rows.append(row)
                if row.crosscheck and not row.crosscheck["ok"]:
                    checks_failed.append(f"{ds.name} {s.name}: pytrec_eval differs by "
                                         f"{row.crosscheck['max_diff']:.2e}")
            _explorer_topics(ds, out, index_info, [row for _, row in done], steps)
    failures = gate_failures(rows) if gate else []
    if phase != "index":
        _write_json(out / "results.json", [r.to_dict() for r in rows])
    _write_json(out / "run.json", _run_meta(command, [ds.name for ds, _ in targets], settings,
                                            {"passed": not failures, "failures": failures} if gate else None, on_ray))
    return ExperimentResult(out, rows, failures, checks_failed, time.perf_counter() - start,
                            {ds.name: ds for ds, _ in targets})


def _run_meta(command: str, datasets: list[str], settings: list[Setting], gate: dict | None, on_ray) -> dict:
    """OUT/run.json: the format, Sounding's version, the command, the machine, what ran, the gate's verdict."""
    return {
        "format": "sounding-run", "version": RESULTS_FORMAT, "sounding_version": __version__,
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "command": command,
        "machine": {"cpu": cpu_name(), "cores": os.cpu_count(), "python": platform.python_version()},
        "datasets": datasets, "settings": [s.name for s in settings], "gate": gate,
        **({"ray": on_ray.info} if on_ray else {}),
    }


def _grid(engines, arms, layouts, params, norms: str, variants: list[str], models, retrievers, runs,
          bm25_asked: bool) -> list[Setting]:
    """The settings to run: the BM25 grid (both arithmetics by default: Lucene's, equal to Pyserini's
    published figures, beside exact), the model arms, and the user's systems beside the BM25 reference row."""
    from .settings import LAYOUTS, PRESETS, VARIANTS, parse_list

    engines = parse_list(engines or ["sounding"], tuple(engine_names()), "engine")
    arms = parse_list(arms or ["bm25"], tuple(arm_names()), "arm")
    variants = parse_list(variants, VARIANTS, "variant")
    settings = grid(engines, parse_list(layouts, LAYOUTS, "layout"), parse_list(params, tuple(PRESETS), "params"),
                    norms, variants) if "bm25" in arms else []
    if set(arms) - {"bm25"}:  # dense, hybrid, sparse, rerank (need the `dense` extra)
        settings += arm_settings([a for a in arms if a != "bm25"], models or [])
    if retrievers or runs:  # the user's own systems, beside the BM25 reference row
        from .user_systems import user_settings, with_reference

        settings = with_reference(settings, user_settings(retrievers, runs), bm25_asked)
    return settings


def _checked_device(device: str, settings: list[Setting]) -> str:
    """The device's name; when a model arm will run, a device this machine lacks is one line now, not after the
    indexing (the rows name the device each model used)."""
    from ..retrieval.dense.device import check_device, resolve_device

    device = check_device(device)
    if any(_runs_a_model(s) for s in settings):
        resolve_device(device)
    return device


def _header_for(ds: Dataset, index_info: dict, command: str) -> Callable:
    """(setting, depth) -> the ir_metadata header of that setting's run file on `ds` (experiment/run_metadata.py)."""
    from ..io import file_sha256
    from .run_metadata import setting_header

    return functools.partial(setting_header, ds, index_info.get("analyzer"), file_sha256(ds.corpus_path), command)


def _explorer_topics(ds: Dataset, out: Path, index_info: dict, rows: list[ResultRow], steps: Steps) -> None:
    """OUT/explorer/<dataset>.json for the report's run explorer: the query texts and terms, the judgements,
    and the titles and snippets of the documents the rows' top 10 hold (report/explorer/topics.py). Kept
    when it was made from the same rankings, queries and analyzer."""
    from ..report.explorer import rankings, read_topics, write_topics

    analyzer = index_info.get("analyzer") or default_analyzer(ds.language)
    lists = list(rankings(out, [r.to_dict() for r in rows]).values())
    key = _digest(analyzer, json.dumps(sorted(ds.queries.items())),
                  json.dumps(sorted({d for got in lists for docs in got.values() for d in docs})))
    if (read_topics(out, ds.name) or {}).get("key") == key or not lists or ds.corpus_path is None:
        return
    with steps.step(f"{ds.name}: titles and snippets for the run explorer"):
        write_topics(out, ds, analyzer, lists, key=key)


def _ray_grid(ray: str | None, shards: int | None, settings: list[Setting], log):
    """The Ray side of the run (`--ray`), or None; refuses what Ray cannot run exactly, before any work."""
    if not ray:
        if shards:
            raise SoundingError("--shards builds sharded indexes on Ray: give --ray local, auto or an address too")
        return None
    from .on_ray import RayGrid, check_settings

    check_settings(settings)
    return RayGrid(ray, shards, log)


# -- datasets and their indexes ----------------------------------------------------------------
def _identified(loaded: list[Dataset], out: Path, log) -> list[tuple[Dataset, DatasetIdentity]]:
    """Each dataset with its identity (datasets.identity). One name (and split) for two different datasets
    is refused, naming both folders, before anything is written: results.json, the terminal and the reports
    label a dataset by its name. The same data given twice (`scifact` and `beir/scifact/test`) runs once."""
    for ds in loaded:
        if ds.corpus_path is None:
            raise SoundingError(f"{ds.name}: no corpus in {ds.root}; `sounding run` needs the documents")
    memo = CorpusMemo(out / CORPUS_MEMO)
    seen: dict[tuple[str, str], tuple[Dataset, DatasetIdentity]] = {}
    for ds in loaded:
        identity = dataset_identity(ds, memo=memo)
        first = seen.setdefault((ds.name, ds.split), (ds, identity))
        if first[0] is ds:
            continue
        if first[1].key == identity.key:
            log(f"{ds.name}: given twice ({first[0].root} and {ds.root}, the same data); run once")
            continue
        differ = ", ".join(identity.changed(first[1].to_dict()))
        raise SoundingError(f"two datasets are named {ds.name!r} but hold different data (different {differ}): "
                            f"{first[0].root} and {ds.root}; rename one of the folders (the name labels its rows, "
                            f"run files and report columns)")
    memo.save()
    return list(seen.values())


def _ensure_index(ds: Dataset, identity: DatasetIdentity, out: Path, phase: str, log, steps: Steps,
                  positions: bool = False) -> tuple[Path, dict]:
    analyzer = default_analyzer(ds.language)
    key = _digest(identity.corpus, analyzer, f"index-format-{INDEX_FORMAT}", *(["positions"] if positions else []))
    index_dir = out / "indexes" / f"{safe_name(ds.name)}-{key[:12]}"
    info = _index_info(index_dir, key, log)
    if info is not None:
        return index_dir, info
    if phase == "search":
        raise SoundingError(f"{ds.name}: no index in {out / 'indexes'}; run `sounding run --phase index` first")
    with steps.indexing(ds.name, analyzer) as progress:
        report = build_index(iter_corpus(ds.corpus_path), index_dir, analyzer=analyzer, source=str(ds.corpus_path),
                             positions=positions, progress=progress)
    info = {"key": key, "analyzer": analyzer, "index_seconds": report.seconds, "index_bytes": report.bytes,
            "n_docs": report.n_docs, "empty_docs": report.empty_docs, "docs_without_title": report.docs_without_title}
    _write_json(index_dir / "build.json", info)
    return index_dir, info


def _index_info(index_dir: Path, key: str, log) -> dict | None:
    """The build facts of a finished index (build.json, written after the index), or None to build it: when
    there is none, or it is damaged or disagrees with the index's own (sealed) manifest."""
    info_file = index_dir / "build.json"
    if not info_file.is_file():
        return None
    try:
        info = json.loads(info_file.read_text())
        if (isinstance(info, dict) and info.get("key") == key
                and info.get("n_docs") == Index(index_dir, verify=False).n_docs):
            return info
        why = "it disagrees with the index"
    except (OSError, ValueError, SoundingError) as e:
        why = f"{type(e).__name__}: {e}"
    log(f"{info_file} cannot be trusted ({why}); building the index again")
    return None


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
@dataclass
class _Target:
    """One dataset of the run, as its settings need it."""

    ds: Dataset
    identity: DatasetIdentity
    label: str  # its folder under OUT/runs, OUT/rows, OUT/per_query (rows.folder_label)
    index_dir: Path
    index_info: dict
    judged: JudgedDocs | None  # where its judged documents are (None: scored the dict way)
    docids: Any  # the collection's document ids
    caches: Caches  # what every setting's system shares (its Searcher, stored vectors, ...)
    header_for: Callable | None = None  # (setting, depth) -> its run file's ir_metadata header (--metadata)


def _run_dataset(ds: Dataset, identity: DatasetIdentity, index_dir: Path, index_info: dict, settings: list[Setting],
                 out: Path, hits, caches: Caches, gzip_runs: bool, header_for: Callable | None,
                 steps: Steps) -> list[tuple[Setting, ResultRow]]:
    """Every setting's row on one indexed dataset, in the settings' order."""
    threads, log, on_ray, device = caches.threads, caches.log, caches.ray, caches.device
    docids = on_ray.docids(index_dir) if on_ray else Index(index_dir, verify=False).docids
    t = _Target(ds, identity, folder_label(ds.name, identity), index_dir, index_info,
                None if on_ray else _check_judged_docs_indexed(ds, docids), docids, caches, header_for)
    if on_ray:  # shards: their own numbers
        _check_judged_docs_indexed(ds, docids)
    if hits and hits > (index_info.get("n_docs") or hits):
        log(f"{ds.name}: {hits:,} hits asked for, but it has {index_info['n_docs']:,} documents: "
            f"at most {index_info['n_docs']:,} per query")
    with on_ray.searching(index_dir) if on_ray else contextlib.nullcontext(), \
            Finisher(enabled=not on_ray) as finisher:
        caches.warm_finishing = _warm_once(finisher, t)
        steps.settings(ds.name, len(settings))
        for s in settings:
            got = _run_setting(t, s, out, hits, threads, log, on_ray, gzip_runs, finisher.later(s), device, steps)
            if isinstance(got, Future):
                got.add_done_callback(lambda _, name=s.name, d=ds.name: steps.finished(d, name))
            else:
                steps.finished(ds.name, s.name)
            finisher.add(s, got)
        done = finisher.rows()
    _say_reused(ds.name, [row for _, row in done], log)
    caches.searchers.clear()  # its arrays go before the next dataset is indexed
    return done


def _say_reused(dataset: str, rows: list[ResultRow], log) -> None:
    reused = sorted(r.computed for r in rows if r.reused)
    if reused:
        when = reused[0][:10] if reused[0][:10] == reused[-1][:10] else f"{reused[0][:10]} to {reused[-1][:10]}"
        log(f"{dataset}: {len(reused)} of {len(rows)} rows reused from earlier runs (computed {when}); "
            f"everything that made them is unchanged")


def _warm_once(finisher: Finisher, t: _Target) -> Callable:
    """The set-up's finishing of a warm-up search (scoring.warm_finishing), once per kind of results (Lucene's
    arithmetic, Anserini's ties: what the finishing compiles differs), after the finishing in flight: one
    finishing at a time (the cross-check's trec_eval keeps static buffers)."""
    kinds: set = set()

    def warm(results, job) -> None:
        kind = (results.settings.get("lucene_norms"), results.settings.get("anserini_ties"))
        if kind not in kinds:
            kinds.add(kind)
            finisher.wait()
            warm_finishing(results, job, measures=_measures(t.ds), pool_k=POOL_K, judged=t.judged)
    return warm


def _measures(ds: Dataset) -> list[str]:
    return MRTYDI_MEASURES if ds.info and ds.info.kind == "mrtydi" else BEIR_MEASURES


def _run_setting(t: _Target, s: Setting, out: Path, hits, threads, log, on_ray=None, gzip_runs: bool = False,
                 later: Finisher | None = None, device: str = "auto", steps: Steps | None = None) -> ResultRow | Future:
    """The setting's row, or with `later` a Future of it: the search is done here, the rest in `later`."""
    ds, index_info = t.ds, t.index_info
    k = hits or ds.depth  # each search caps it at the collection's size
    measures = _measures(ds)
    system = s.fingerprint(ds.name) if s.arm == "user" else None  # None: a user system with no fingerprint
    made_of = recipe(ds, t.identity, s.describe(), system=system, hits=k, measures=measures,
                     index_key=index_info["key"], gzip_runs=gzip_runs, metadata=t.header_for is not None,
                     device=_resolved(device) if _runs_a_model(s) else None)
    row_file = out / "rows" / t.label / f"{s.name}.json"
    why = None
    if s.arm != "user" or system is not None:  # a user system without a fingerprint is never reused
        cached, why = reuse(row_file, out, made_of)
        if cached is not None:
            return cached
    if why:
        log(f"{ds.name}: {s.name} (computed again: {why})")
    steps = steps or LogSteps(log)
    steps.setting(ds.name, s.name)
    extra: dict = {}
    results = None  # a Sounding search's arrays: its run file is written from them (same bytes, compiled)
    if s.arm == "user":  # the user's own retriever or run file (experiment/user_systems.py)
        from .user_systems import run_user

        run, seconds, extra = run_user(s, ds, k, log, docids=t.docids)
    else:  # a system of the registry (retrieval/systems.py), with the experiment's caches
        t.caches.compiling = functools.partial(steps.compiling, ds.name, s.name)
        job = Job(ds, k, t.index_dir, first_stage=lambda: run_bm25(REFERENCE, job, t.caches, dicts=True).run)
        with steps.paused() if _runs_a_model(s) else contextlib.nullcontext():  # an arm draws its own bars
            got = system_for(s).run(s, job, t.caches)
        run, seconds, extra, results = got.run, got.seconds, dict(got.extra), got.results
    run_file = out / "runs" / t.label / f"{s.name}.trec{'.gz' if gzip_runs else ''}"
    run_file.parent.mkdir(parents=True, exist_ok=True)
    finish = functools.partial(_finish_setting, t, s, out, k, measures, made_of, row_file, run_file, run,
                               results, seconds, extra, threads, on_ray, t.header_for(s, k) if t.header_for else "")
    return later.submit(finish) if later is not None else finish()


def _finish_setting(t: _Target, s: Setting, out: Path, k: int, measures: list[str], made_of: dict, row_file: Path,
                    run_file: Path, run, results, seconds: float, extra: dict, threads: int, on_ray,
                    header: str = "") -> ResultRow:
    """Write the run file, score, cross-check, and write the per-query values and the row."""
    ds, index_info = t.ds, t.index_info
    # BEIR convention (own hits dropped) is what published BEIR figures use; raw nDCG is kept beside it;
    # a Sounding search's run is written and scored from its arrays (experiment/scoring.py: the same bytes
    # and values as from dicts), the writing in a second thread
    scored = write_and_score(run_file, s.name, ds.qrels, ds.queries, measures, results=results, run=run,
                             pool_k=POOL_K, judged=t.judged, header=header)
    per_query, unjudged, metrics, raw_metrics = scored.per_query, scored.unjudged, scored.metrics, scored.raw_metrics
    pq_file = out / "per_query" / t.label / f"{s.name}.json"
    _write_json(pq_file, per_query)
    if s.arm == "user":
        from .user_systems import row_extras

        extra.update(row_extras(s, ds.name, pq_file.parent, per_query))
    row = ResultRow.from_dict({
        "dataset": ds.name, **({"ir_datasets": ds.irds_id} if ds.irds_id else {}), **s.describe(), "metrics": metrics, "raw_metrics": raw_metrics, "n_queries": len(ds.qrels),
        "crosscheck": scored.crosscheck_row(),
        "index_seconds": index_info["index_seconds"] if s.engine == "sounding" else None,
        "index_bytes": index_info["index_bytes"] if s.engine == "sounding" else None,
        "search_seconds": seconds, "qps": len(ds.queries) / seconds if seconds else None,
        "setup_seconds": getattr(results, "setup_seconds", None),  # setting build and compiling: apart
        "hits": k, "threads": threads,
        "queries_without_hits": scored.queries_without_hits,
        **({"unverified_data": True} if not ds.verified else {}),
        "run_file": str(run_file.relative_to(out)), "per_query_file": str(pq_file.relative_to(out)),
        "dataset_id": t.identity.key,
        "published": _published(ds.name, s), "model": extra.pop("model", None),
        "pool": _pool_holes(ds.qrels, unjudged), **extra,
        **({"ray": on_ray.info} if on_ray and _searches_bm25(s) else {}),
    })
    return ResultRow.from_dict(write_row(row_file, out, made_of, row.to_dict(), run_file, pq_file))


def _pool_holes(qrels: dict, unjudged: dict[str, int]) -> dict:
    """A row's "pool": the queries with the most unjudged hits in the top POOL_K (count descending, then qid),
    how many queries have any, and how many grade-0 judgements the qrels hold (with none, a judged-only
    list holds only relevant documents)."""
    worst = sorted(((q, n) for q, n in unjudged.items() if n), key=lambda x: (-x[1], x[0]))[:POOL_SHOWN]
    return {"k": POOL_K, "queries_with_unjudged": sum(1 for n in unjudged.values() if n),
            "most_unjudged": [[q, n] for q, n in worst],
            "judged_nonrelevant": sum(1 for j in qrels.values() for g in j.values() if g == 0)}


def _resolved(device: str) -> str:
    from ..retrieval.dense.device import resolve_device

    return resolve_device(device)


def _runs_a_model(s: Setting) -> bool:
    """Whether the setting's system runs a model (on `device`): the registry's rows that take models."""
    return s.engine == "sounding" and bool(getattr(SYSTEMS.get(s.arm), "models", ()))


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
