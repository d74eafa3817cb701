"""What each built-in system does as an arm of an experiment, with the experiment's caches.

An arm is run on one dataset (`Job`: its queries and corpus, the depth, its BM25 index and reference run) with
the caches the whole experiment shares (`Caches`): the Searcher of the dataset's index (every BM25 setting
searches it), each model's document vectors (`OUT/vectors/`), sparse impact indexes (`OUT/sparse/`),
reranker scores (`OUT/rerank-cache.sqlite`), the dense run the dense and hybrid arms share, the loaded model.
A rerun encodes nothing. Each returns a `SystemRun`: the run, the seconds it took, and what its row adds
(`extra`: model name and provenance, encode seconds, vector bytes, ...). systems.py names them.

    retriever  any Retriever (index the documents, search the queries): an arm that needs no shared cache
    bm25     Sounding's BM25 (any BM25Params), its arrays written to the run file by compiled code
    engine   a peer engine (bm25s, tantivy, PISA, Pyserini), flat layout, the setting's k1 and b
    dense    exact search over the model's document vectors
    hybrid   the BM25 reference run (flat, Anserini 0.9/0.4) fused with dense (any fusion.parse_method name)
    sparse   a learned-sparse impact index ("u8" or "u16" impacts)
    rerank   the BM25 reference run's top hits rescored (cross-encoder when the model is one, else bi-encoder)
"""
from __future__ import annotations

import contextlib
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from ..types import Run
from .retrievers.dense import DEFAULT_DENSE
from .retrievers.sparse import DEFAULT_SPARSE

RERANK_DEPTH = 100
REFERENCE = "bm25 flat k1=0.9 b=0.4"  # what the hybrid and rerank arms' first stage is (the reference row)


@dataclass
class Caches:
    """What every arm of one experiment shares."""

    out: Path  # the experiment's folder: OUT/vectors, OUT/sparse, OUT/rerank-cache.sqlite
    threads: int = 1
    batch_size: int | None = None
    progress: bool = field(default_factory=lambda: sys.stderr.isatty())  # rich bars for long encodes
    log: Callable[[str], None] | None = None
    ray: Any = None  # `sounding run --ray`: the RayGrid (BM25 on shard actors; corpus encoding as Ray Data jobs)
    device: str = "auto"  # where models run: auto, cpu, cuda, mps (dense/device.py)
    searchers: dict = field(default_factory=dict)  # index folder → Searcher: a dataset's BM25 settings share it
    dense_runs: dict = field(default_factory=dict)  # the dense run of (dataset, model, k): dense and hybrid share it
    encoders: dict = field(default_factory=dict)  # (model, device) → encoder: one model in memory at a time
    compiling: Callable = contextlib.nullcontext  # a context a BM25 search's set-up runs in (a progress step)
    # the experiment's finishing (run file, scores) done once on the warm-up search's results, in the set-up:
    # what the finishing compiles for a kind of results (Lucene's float scores, ties) is then compiled there,
    # not in the finishing thread beside the next setting's timed search
    warm_finishing: Callable[[Any, "Job"], None] | None = None


@dataclass
class Job:
    """One dataset's search: its queries and corpus, the depth, its BM25 index and the reference run."""

    dataset: Any  # a sounding.datasets.Dataset
    k: int
    index_dir: Path
    first_stage: Callable[[], Run]  # the BM25 reference run (flat, Anserini 0.9/0.4), for hybrid and rerank


@dataclass
class SystemRun:
    run: Run | None  # None when `results` writes the run file itself (a Sounding search's arrays)
    seconds: float
    extra: dict = field(default_factory=dict)
    results: Any = None  # a Sounding BM25 search's Results (or a sharded search's merge)


def run_retriever(retriever, job: Job, caches: Caches) -> SystemRun:
    """Any Retriever as an arm: it indexes the dataset's documents, then searches its queries (top k); its row
    gets the retriever's `details()` when it has them."""
    retriever.index(job.dataset.corpus())
    start = time.perf_counter()
    got = retriever.search(dict(job.dataset.queries), job.k)
    seconds = time.perf_counter() - start
    run = got.to_run() if callable(getattr(got, "to_run", None)) else got
    details = getattr(retriever, "details", None)
    return SystemRun(run, seconds, dict(details()) if callable(details) else {})


def run_bm25(spec, job: Job, caches: Caches, *, dicts: bool = False) -> SystemRun:
    """Sounding's BM25 for the setting `spec` (`spec.bm25(k)`: its BM25Params): on Ray's shard actors, or the
    dataset's one Searcher (the index opened, the queries analysed once for all its settings).

    A search on one index is set up by a warm-up search of one query first, timed apart: building the setting
    and compiling (or loading from numba's cache) every kernel it runs are never search time; the results'
    `setup_seconds` holds both."""
    params = spec.bm25(job.k)
    if caches.ray is not None:  # the shard actors, merged exactly (same run file)
        searcher = caches.ray
    else:
        searcher = caches.searchers.get(job.index_dir)
        if searcher is None:
            from .search import Searcher

            searcher = caches.searchers[job.index_dir] = Searcher(job.index_dir)
    warm = time.perf_counter()
    if caches.ray is None:
        with caches.compiling():
            warm_results = searcher.search(_warm_up_query(job.dataset.queries), params, threads=caches.threads)
            if caches.warm_finishing is not None:
                caches.warm_finishing(warm_results, job)
    warm = time.perf_counter() - warm
    results = searcher.search(job.dataset.queries, params, threads=caches.threads)
    if hasattr(results, "setup_seconds"):
        results.setup_seconds += warm
    if caches.ray is None:
        searcher.release_postings()  # the next setting may read other fields: their pages, not these, stay
    run = results.to_run() if dicts or not hasattr(results, "write_run") else None
    return SystemRun(run, results.seconds, results=results)


def _warm_up_query(queries) -> dict[str, str]:
    """One query to set a search up with: the longest of the first 100 (an empty one might run no kernel)."""
    qid = max(list(queries)[:100], key=lambda q: len(queries[q]), default=None)
    return {} if qid is None else {qid: queries[qid]}


def run_engine(spec, job: Job, caches: Caches) -> SystemRun:
    """The peer engine `spec.engine` over the dataset's corpus (its index beside Sounding's), top k."""
    from ..datasets import iter_corpus
    from .engines import get_engine

    engine = get_engine(spec.engine)
    workdir = job.index_dir.parent / f"{job.index_dir.name}.{spec.engine}"
    engine.index(list(iter_corpus(job.dataset.corpus_path)), workdir)
    run, seconds = engine.search(job.dataset.queries, k=job.k, k1=spec.k1, b=spec.b, threads=caches.threads, batch=True)
    return SystemRun(run, seconds)


def _encoder(model: str, caches: Caches):
    from .dense import load_encoder

    key = (model, caches.device)
    if key not in caches.encoders:
        caches.encoders.clear()  # one model in memory at a time
        caches.encoders[key] = load_encoder(model, batch_size=caches.batch_size, device=caches.device)
    return caches.encoders[key]


def _dense(spec, job: Job, caches: Caches) -> tuple[Run, float, dict]:
    from .dense import corpus_texts
    from .retrievers import DenseRetriever

    ds = job.dataset
    key = (ds.name, str(ds.corpus_path), spec.model, job.k, str(caches.out), caches.device)
    if key in caches.dense_runs:
        return caches.dense_runs[key]

    def on_ray(ct, enc, root):  # a Ray Data job writes the same store (files) as encode_corpus
        return caches.ray.encode_vectors(ct, enc, root, batch_size=caches.batch_size, log=caches.log,
                                         use_gpus=caches.device != "cpu")

    dense = DenseRetriever(_encoder(spec.model or DEFAULT_DENSE, caches), store=Path(caches.out) / "vectors",
                           batch_size=caches.batch_size, threads=caches.threads, progress=caches.progress,
                           log=caches.log, encode=on_ray if caches.ray is not None else None, device=caches.device)
    dense.index(corpus_texts(ds))
    res = dense.search(ds.queries, job.k)
    extra = dense.details()
    extra.update({"query_encode_seconds": res.settings.get("query_encode_seconds"),
                  "search_only_seconds": res.settings.get("search_seconds")})
    store = dense.report.store.path
    extra["vectors"] = str(store.relative_to(caches.out)) if store.is_relative_to(caches.out) else str(store)
    out = caches.dense_runs[key] = (res.to_run(), res.seconds, extra)
    return out


def run_dense(spec, job: Job, caches: Caches) -> SystemRun:
    """Exact search over the model's document vectors (encoded once, kept in OUT/vectors)."""
    run, seconds, extra = _dense(spec, job, caches)
    return SystemRun(run, seconds, dict(extra))


def run_hybrid(spec, job: Job, caches: Caches) -> SystemRun:
    """The reference BM25 run fused with the dense arm's run by `spec.params` (a fusion method name)."""
    from .retrievers import Fusion

    dense, dense_seconds, dextra = _dense(spec, job, caches)
    stage = Fusion(spec.params or "wrrf")
    t0 = time.perf_counter()
    lexical = job.first_stage()
    bm25_seconds = time.perf_counter() - t0
    t1 = time.perf_counter()
    fused = stage.apply(job.dataset.queries, [lexical, dense], job.k)
    fuse_seconds = time.perf_counter() - t1
    extra = {"model": dextra["model"], "fusion": stage.method, "lexical": REFERENCE,
             "dense_seconds": dense_seconds, "bm25_seconds": bm25_seconds, "fuse_seconds": fuse_seconds,
             "encode_seconds": dextra["encode_seconds"], "vectors_bytes": dextra["vectors_bytes"]}
    return SystemRun(fused, dense_seconds + bm25_seconds + fuse_seconds, extra)


def run_sparse(spec, job: Job, caches: Caches) -> SystemRun:
    """A learned-sparse impact index of the corpus (built once, kept in OUT/sparse), `spec.params` "u16" for
    16-bit impacts (else 8)."""
    from .dense import corpus_texts
    from .retrievers import SparseRetriever

    def on_ray(ct, model, root, bits):  # the chunks encoded by a Ray Data job; the postings built here
        return caches.ray.build_impacts(ct, model, root, bits=bits, log=caches.log)

    sparse = SparseRetriever(spec.model or DEFAULT_SPARSE, bits=16 if spec.params == "u16" else 8,
                             store=Path(caches.out) / "sparse", batch_size=caches.batch_size, threads=caches.threads,
                             progress=caches.progress, log=caches.log,
                             build=on_ray if caches.ray is not None else None, device=caches.device)
    sparse.index(corpus_texts(job.dataset))
    res = sparse.search(job.dataset.queries, job.k)
    extra = sparse.details()
    extra["query_encode_seconds"] = res.settings.get("query_encode_seconds")
    return SystemRun(res.to_run(), res.seconds, extra)


def run_rerank(spec, job: Job, caches: Caches) -> SystemRun:
    """The reference BM25 run's top `spec.params` ("top100") rescored by the model: a cross-encoder when it is
    one, else the bi-encoder's cosine (the dense arm's stored vectors, when present, spare an encoding)."""
    from .dense import corpus_texts, find_store
    from .dense.models import model_kind
    from .rerank import BiEncoderScorer, CrossEncoderScorer, passage_vectors_from_store
    from .retrievers import Rerank

    model = spec.model or DEFAULT_DENSE
    depth = int(spec.params[3:]) if spec.params.startswith("top") and spec.params[3:].isdigit() else RERANK_DEPTH
    ct = corpus_texts(job.dataset)
    if model_kind(model) == "cross-encoder":
        scorer = CrossEncoderScorer(model, device=caches.device)
    else:
        enc = _encoder(model, caches)
        store = find_store(Path(caches.out) / "vectors", enc, ct)
        scorer = BiEncoderScorer(enc, passage_vectors_from_store(store, ct.ids, ct.texts) if store else None)
    stage = Rerank(scorer, depth, cache=Path(caches.out) / "rerank-cache.sqlite", batch_size=caches.batch_size or 32,
                   progress=caches.progress)
    stage.index(ct)
    t0 = time.perf_counter()
    run = stage.apply(job.dataset.queries, [job.first_stage()], job.k)
    res = stage.last
    if caches.log:
        caches.log(f"{job.dataset.name}: {res.summary()}")
    note = "" if scorer.kind == "cross-encoder" else (" Used here as a bi-encoder reranker (no trained cross-encoder "
                                                     "ships offline).")
    device = getattr(scorer, "device", None) or getattr(getattr(scorer, "encoder", None), "device", "cpu")
    extra = {"model": {"name": scorer.name, "provenance": scorer.provenance + note, "device": device},
             "reranker": scorer.kind, "first_stage": REFERENCE, "rerank_depth": depth,
             "new_pairs": res.new_pairs, "cached_pairs": res.cached_pairs}
    return SystemRun(run, time.perf_counter() - t0, extra)
