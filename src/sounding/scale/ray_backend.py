"""The sharded index on Ray: shard builds as Ray tasks, search fanned out to shard actors, and corpus
encoding (dense vectors, learned sparse chunks) as a Ray Data batch job on an actor pool, writing
the stores of `sounding.dense.vectors` and `sounding.sparse` byte for byte as one process does.

Ray is optional (`pip install 'sounding[scale]'`); importing this module does not import Ray, and
every call says how to install it when it is missing. The results are the same as the pure-Python
path (`sounding.scale.shards`): the tasks run `build_shard`, the actors run `ShardSearcher`, and
the driver commits shards.json and merges the top k exactly as `build_shards` and
`ShardedSearcher` do, so run files are byte-identical whichever path made them.

Fault tolerance: a shard build is a task with `max_retries`. If its worker dies (killed, OOM,
node lost) Ray runs it again; the index writer builds into a temporary generation folder and
flips CURRENT only when complete, and the next attempt removes the dead attempt's leftovers, so
a retried shard is whole or absent, never partial. The driver then checks every shard (checksums,
document counts against the stream) before writing shards.json.

Paths: the output folder (and a corpus file, when a callable `CorpusFile` is passed) must be
reachable under the same path from every node (shared file system); on one machine it always is.
"""
from __future__ import annotations

import contextlib
import json
import math
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

from ..analysis import DEFAULT_ANALYZER
from ..errors import SoundingError
from ..search.params import BM25Params
from .shards import (
    MergedResults,
    ShardHits,
    ShardReport,
    ShardSearcher,
    ShardSet,
    check_n_shards,
    build_shard,
    peak_rss_kb,
    prepare_out,
    search_shards,
    split_corpus,
    write_shard_set,
)

INSTALL_HINT = ("Ray is not installed: pip install -e '.[scale]' in a Sounding checkout, or pip install 'sounding[scale]' "
                "(or pip install 'ray[default,data]>=2.9')")


def require_ray():
    try:
        import ray
    except ImportError:
        raise SoundingError(INSTALL_HINT) from None
    return ray


@contextlib.contextmanager
def ray_session(address: str | None = "local", *, num_cpus: int | None = None, **init_kwargs) -> Iterator:
    """Use the Ray already initialised in this process, or connect / start one for the block.

    `address`: "local" (start a private local instance; `num_cpus` limits it), "auto" (the cluster
    `ray start` made on this machine), or a cluster address ("host:6379", "ray://host:10001").
    Only a Ray started or connected here is shut down at the end.
    """
    ray = require_ray()
    if ray.is_initialized():
        yield ray
        return
    kwargs = dict(include_dashboard=False, log_to_driver=False)
    kwargs.update(init_kwargs)
    if address in (None, "", "local"):
        ray.init(num_cpus=num_cpus, **kwargs)
    else:
        try:
            ray.init(address=address, **kwargs)
        except (ConnectionError, RuntimeError, ValueError) as e:
            raise SoundingError(f"cannot reach the Ray cluster at {address!r}: {e}") from None
    try:
        yield ray
    finally:
        ray.shutdown()


def _cluster(ray) -> dict:
    if not ray.is_initialized():
        ray.init(include_dashboard=False, log_to_driver=False)
    return ray.cluster_resources()


# -- indexing -----------------------------------------------------------------------------------
def _build_shard_task(corpus, out: str, shard: int, n_shards: int, analyzer: str, source: str) -> ShardReport:
    if not callable(corpus):  # (id, title, text, line) tuples shipped by the driver
        from ..datasets import Document

        corpus = [Document(*d) for d in corpus]
    return build_shard(corpus, out, shard, n_shards, analyzer=analyzer, source=source)


def build_shards_ray(corpus, out: str | Path, n_shards: int, *, analyzer: str = DEFAULT_ANALYZER, source: str = "",
                     max_retries: int = 3, cpus_per_task: float = 1, memory: int | None = None,
                     progress: Callable[[int, int], None] | None = None) -> ShardSet:
    """Build a sharded index with one Ray task per shard; same arguments and result as `build_shards`.

    `corpus`: a picklable zero-argument callable streaming the corpus (e.g. `CorpusFile(path)`):
    each task reads the stream and keeps its own documents; or an iterable, split here by id and
    shipped to the tasks through the object store. A task whose worker dies is run again up to
    `max_retries` times. `progress(shards_done, n_shards)` after each shard. Starts a local Ray
    (all CPUs) when none is initialised; use `ray_session` to choose.
    """
    ray = require_ray()
    check_n_shards(n_shards)
    root = prepare_out(out).resolve()
    _cluster(ray)
    start = time.perf_counter()
    if callable(corpus):
        inputs, expected = [corpus] * n_shards, None
    else:
        parts = split_corpus(corpus, n_shards)
        expected = sum(len(p) for p in parts)
        inputs = [ray.put([(d.id, d.title or "", d.text or "", getattr(d, "line", 0) or 0) for d in p]) for p in parts]
    options = dict(num_cpus=cpus_per_task, max_retries=max_retries, retry_exceptions=False)
    if memory:
        options["memory"] = memory
    task = ray.remote(_build_shard_task).options(**options)
    pending = {task.remote(inp, str(root), i, n_shards, analyzer, source): i for i, inp in enumerate(inputs)}
    reports: list[ShardReport] = []
    try:
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            shard = pending.pop(done[0])
            reports.append(_get_shard(ray, done[0], shard, root, max_retries))
            if progress:
                progress(len(reports), n_shards)
    except BaseException:
        for ref in pending:
            ray.cancel(ref, force=True)
        raise
    build = {"backend": "ray", "seconds": round(time.perf_counter() - start, 3), "max_retries": max_retries,
             "tasks": [{"shard": r.shard, "pid": r.pid, "node": r.node, "seconds": round(r.seconds, 3),
                        "cpu_seconds": round(r.cpu_seconds, 3), "worker_peak_rss_kb": r.peak_rss_kb}
                       for r in sorted(reports, key=lambda r: r.shard)]}
    return write_shard_set(root, reports, n_shards=n_shards, source=source, expected_docs=expected, build=build)


_LOST_WORKER = ("WorkerCrashedError", "NodeDiedError", "OutOfMemoryError", "TaskUnschedulableError")


def _get_shard(ray, ref, shard: int, root: Path, max_retries: int) -> ShardReport:
    from ray import exceptions as rex

    try:
        return ray.get(ref)
    except rex.RayTaskError as e:
        cause = e.cause if hasattr(e, "cause") else None
        if isinstance(cause, SoundingError):
            raise SoundingError(str(cause)) from None
        raise SoundingError(f"{root}: shard {shard} failed: {cause or e}") from None
    except tuple(getattr(rex, n) for n in _LOST_WORKER if hasattr(rex, n)) as e:
        raise SoundingError(f"{root}: shard {shard}: its worker died on every attempt ({max_retries + 1}) "
                            f"({type(e).__name__}); the shards built so far are kept, shards.json is not written"
                            ) from None


# -- search -------------------------------------------------------------------------------------
class _ShardActor:
    """Holds one shard open (memory-mapped) and answers batches of queries.

    Every call names the shard it is for, so an actor restarted by Ray (state lost) or pointed at
    another index reopens the right shard by itself before answering."""

    def __init__(self):
        self.key = None
        self.searcher = None

    def open(self, root: str, shard: int, content_hash: str, verify: bool) -> int:
        if self.key != (root, shard, content_hash):
            self.searcher = None  # drop the previous shard's arrays first
            self.searcher = ShardSearcher(root, shard, verify=verify)
            if self.searcher.shard_set.shards[shard].content_hash != content_hash:
                raise SoundingError(f"{root}: shard {shard} changed since the searcher read shards.json; reopen it")
            self.key = (root, shard, content_hash)
        return os.getpid()

    def search(self, shard_key: tuple, items, params: BM25Params, threads: int) -> ShardHits:
        self.open(*shard_key)
        return self.searcher.search(items, params, threads=threads)

    def peak_rss_kb(self) -> int:
        return peak_rss_kb()


class RayShardedSearcher:
    """`ShardedSearcher` on Ray: one actor per shard, queries fanned out, top k merged here.

    `actor_cpus`: CPUs reserved per actor; by default 1, or less when the cluster has fewer CPUs
    than shards (all actors must be placed for a search to run). `open(other)` points the same
    actors at another sharded index (of no more shards), which saves starting processes when many
    indexes are searched in a row.
    """

    def __init__(self, root: str | Path, *, actor_cpus: float | None = None, verify: bool = True):
        ray = require_ray()
        self.ray = ray
        self.actors: list = []
        n = ShardSet.read(root).n_shards
        cpus = _cluster(ray).get("CPU", 1.0)
        if actor_cpus is None:  # cut to Ray's 0.0001 resource unit, so that n actors never need more than cpus
            actor_cpus = min(1.0, math.floor(cpus / n * 10_000) / 10_000)
        actor = ray.remote(_ShardActor).options(num_cpus=actor_cpus, max_restarts=1, max_task_retries=1)
        self.actors = [actor.remote() for _ in range(n)]
        try:
            self.open(root, verify=verify)
        except BaseException:
            self.close()
            raise

    def open(self, root: str | Path, *, verify: bool = True) -> "RayShardedSearcher":
        root = Path(root).resolve()
        shard_set = ShardSet.read(root)
        n = shard_set.n_shards
        if n > len(self.actors):
            raise SoundingError(f"{root}: {n} shards, but this searcher has {len(self.actors)} actors")
        keys = [(str(root), i, shard_set.shards[i].content_hash, verify) for i in range(n)]
        try:
            pids = self.ray.get([a.open.remote(*key) for a, key in zip(self.actors, keys)])
        except Exception as e:
            cause = getattr(e, "cause", None) or e
            raise SoundingError(f"{root}: a shard actor could not open its shard: {cause}") from None
        self.root, self.shard_set, self.keys, self.pids = root, shard_set, keys, pids
        return self

    def search(self, queries, params: BM25Params | None = None, /, *, threads: int = 1, **options) -> MergedResults:
        """Same arguments and result as `ShardedSearcher.search` (see `search_shards`)."""
        merged = search_shards(lambda items, shard_params: self._search_parts(items, shard_params, threads), queries,
                               BM25Params.of(params, **options))
        merged.settings["backend"] = "ray"
        return merged

    def _search_parts(self, items, params: BM25Params, threads: int) -> list[ShardHits]:
        ref = self.ray.put(items)  # shipped once, read by every actor
        try:
            return self.ray.get([a.search.remote(key, ref, params, threads) for a, key in zip(self.actors, self.keys)])
        except self.ray.exceptions.RayTaskError as e:
            cause = getattr(e, "cause", None)
            if isinstance(cause, SoundingError):
                raise SoundingError(str(cause)) from None
            raise

    def peak_rss_kb(self) -> list[int]:
        """VmHWM of each shard actor's process (kB)."""
        return self.ray.get([a.peak_rss_kb.remote() for a in self.actors])

    def close(self) -> None:
        for a in self.actors:
            with contextlib.suppress(Exception):
                self.ray.kill(a)
        self.actors = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


# -- encoding (dense vectors, learned sparse chunks) ---------------------------------------------
def encoder_factory(encoder) -> Callable[[str], object]:
    """A picklable `make(device) -> encoder` that gives a worker the same model as `encoder`.

    An encoder from `load_encoder` (or a `SparseModel` loaded by name) is loaded again on the worker,
    by the same arguments, on `device` ("cuda" in a GPU actor, else "cpu"); any other encoder (a
    `CallableEncoder`, a test's fake) is shipped to the workers as it is (pickled)."""
    import functools

    args = getattr(encoder, "load_args", None)
    if args is not None:
        return functools.partial(_load_on_worker, type(encoder).__module__, *args)
    return functools.partial(_same_encoder, encoder)


def _load_on_worker(module: str, name: str, kwargs: dict, device: str):
    if module == "sounding.sparse":
        from ..sparse import SparseModel

        return SparseModel(name, **{**kwargs, "device": device})
    from ..dense.encoders import load_encoder

    return load_encoder(name, **{**kwargs, "device": device})


def _same_encoder(encoder, device: str):
    return encoder


class _ChunkActor:
    """Ray Data actor: loads the model once (checked against the driver's `model_id`), then writes
    each batch it is given, one store chunk, with `write(model, texts, chunk)` (atomic, skipped when
    the chunk file already exists)."""

    def __init__(self, make_model, device: str, model_id: str, write):
        self.model = make_model(device)
        if getattr(self.model, "model_id", model_id) != model_id:
            raise SoundingError(f"the model loaded on a Ray worker ({getattr(self.model, 'name', '?')}) is not the "
                                f"driver's: model_id {self.model.model_id} ≠ {model_id} (same files and package "
                                f"versions on every node?)")
        self.write = write

    def __call__(self, batch: dict) -> dict:
        out: dict[str, list] = {"chunk": [], "written": [], "seconds": [], "pid": [], "peak_rss_kb": []}
        for chunk, texts in zip(batch["chunk"].tolist(), batch["texts"].tolist()):
            t0 = time.perf_counter()
            written = self.write(self.model, json.loads(texts), int(chunk))
            out["chunk"].append(int(chunk))
            out["written"].append(bool(written))
            out["seconds"].append(time.perf_counter() - t0)
            out["pid"].append(os.getpid())
            out["peak_rss_kb"].append(peak_rss_kb())
        return {k: np.array(v) for k, v in out.items()}


def run_chunk_job(texts: list[str], chunk_size: int, chunks: list[int], make_model: Callable[[str], object],
                  model_id: str, write: Callable, *, num_actors: int | None = None,
                  before_job: Callable[[], None] | None = None) -> dict:
    """Encode `chunks` (chunk i = texts[i*chunk_size:(i+1)*chunk_size]) as a Ray Data job on an actor pool.

    One actor per GPU (`num_gpus=1`) when the cluster has GPUs, else one per CPU (`num_cpus=1`);
    `num_actors` overrides the count, never more actors than chunks. Each Ray Data batch is exactly
    one chunk (a row holding the chunk number and its texts), so whichever actor gets it, and however
    often it is retried, it writes the same file. `before_job()` runs first when there is work (the
    harness stops its shard actors there: actors holding every CPU would leave the pool unplaced).
    Returns what ran where (for reports)."""
    ray = require_ray()
    try:
        from ray import data as ray_data
    except ImportError as e:  # Ray Data needs pyarrow: the `data` extra
        raise SoundingError(f"Ray Data is not usable ({e}); {INSTALL_HINT}") from None
    resources = _cluster(ray)
    gpus = int(resources.get("GPU", 0))
    size = max(1, min(len(chunks), num_actors or (gpus if gpus else int(resources.get("CPU", 1)))))
    info = {"backend": "ray", "actors": size, "gpus_per_actor": 1 if gpus else 0, "chunks": len(chunks)}
    if not chunks:
        return {**info, "actors": 0, "seconds": 0.0, "written": 0, "worker_peak_rss_kb": []}
    if before_job is not None:
        before_job()
    # ensure_ascii: pure-ASCII JSON, so lone surrogates in a corpus survive Arrow's UTF-8 strings
    items = [{"chunk": i, "texts": json.dumps(texts[i * chunk_size:(i + 1) * chunk_size])} for i in chunks]
    if _accepts(ray_data.from_items, "override_num_blocks"):
        ds = ray_data.from_items(items, override_num_blocks=len(items))  # one block per chunk
    else:  # Ray < 2.10
        ds = ray_data.from_items(items, parallelism=len(items))
    per_actor = {"num_gpus": 1} if gpus else {"num_cpus": 1}
    start = time.perf_counter()
    mapped = ds.map_batches(_ChunkActor, fn_constructor_args=(make_model, "cuda" if gpus else "cpu", model_id, write),
                            batch_size=1, batch_format="numpy", compute=ray_data.ActorPoolStrategy(size=size),
                            **per_actor)
    try:
        rows = mapped.take_all()
    except Exception as e:  # noqa: BLE001 - a user error inside an actor: one line, with its cause
        raise SoundingError(f"the Ray encoding job stopped: {_root_cause(e)} (the chunks it wrote are kept: run "
                            f"again to encode the rest)") from None
    workers: dict[int, int] = {}
    for r in rows:
        workers[int(r["pid"])] = max(workers.get(int(r["pid"]), 0), int(r["peak_rss_kb"]))
    done = sorted(int(r["chunk"]) for r in rows)
    if done != sorted(chunks):
        raise SoundingError(f"the Ray encoding job returned chunks {done[:5]}…, expected {sorted(chunks)[:5]}…")
    return {**info, "seconds": round(time.perf_counter() - start, 3), "written": int(sum(bool(r["written"]) for r in rows)),
            "worker_peak_rss_kb": sorted(workers.values(), reverse=True)}


def _root_cause(e: BaseException) -> str:
    """The user's exception inside a Ray Data error. Ray Data (2.4x+) keeps it only as text, in the
    remote traceback that the RayTaskError's message holds: its first `Name: message` line that is
    not Ray's own."""
    import re

    for line in str(e).splitlines():
        m = re.match(r"^([A-Za-z_][\w.]*(?:Error|Exception)): (.*)$", line.strip())
        if m and not m.group(1).startswith("ray."):
            name = m.group(1).rsplit(".", 1)[-1]
            return m.group(2) if name == "SoundingError" else f"{name}: {m.group(2)}"
    cause = getattr(e, "cause", None) or e.__cause__
    return _root_cause(cause) if isinstance(cause, BaseException) and cause is not e else f"{type(e).__name__}: {e}"


def encode_corpus_ray(corpus, encoder, root: str | Path | None = None, *, make_encoder: Callable[[str], object] | None = None,
                      dtype: str = "float32", chunk_size: int | None = None, batch_size: int | None = None,
                      path: str | Path | None = None, num_actors: int | None = None,
                      log: Callable[[str], None] | None = None, before_job: Callable[[], None] | None = None):
    """`sounding.dense.encode_corpus` as a Ray Data job: the same store, the same files, byte for byte.

    Same arguments as `encode_corpus` (corpus, encoder, root, dtype, chunk_size, batch_size, path),
    plus `make_encoder(device)`: how each actor gets its encoder (default `encoder_factory(encoder)`:
    an encoder from `load_encoder` is loaded again on the actor, on "cuda" in a GPU actor).
    `encoder` itself (on the driver) gives the manifest (model id, dimension, …) and the folder;
    each actor checks that its model has the same `model_id`.

    The driver opens the store (docids.txt and an incomplete manifest, as `encode_corpus` writes
    them), sends every chunk whose file is missing to the actor pool (one Ray Data batch = one
    chunk; the actor encodes it and writes it via temp file + os.replace, so a chunk file that
    exists is complete), then checks every chunk and writes the complete manifest last. An
    interrupted job (an error, a lost driver) leaves whole chunks only; the next call, with or
    without Ray, encodes only the missing ones. Returns an `EncodeReport` (`backend`: actors, GPUs).
    """
    import functools

    from ..dense.vectors import (
        DEFAULT_CHUNK,
        CorpusText,
        EncodeReport,
        corpus_texts,
        finish_store,
        missing_chunks,
        open_store,
    )

    ct = corpus if isinstance(corpus, CorpusText) else corpus_texts(corpus)
    store = open_store(ct, encoder, root, dtype=dtype, chunk_size=chunk_size or DEFAULT_CHUNK, path=path)
    if store.complete:
        return EncodeReport(store, 0, store.count, 0.0, float(store.manifest.get("encode_seconds", 0.0)))
    todo = missing_chunks(store)
    remaining = sum(min(store.chunk_size, store.count - i * store.chunk_size) for i in todo)
    if log:
        done = store.count - remaining
        log(f"encoding {remaining:,} documents ({len(todo)} chunks) into {store.path} on Ray"
            + (f"; {done:,} already encoded" if done else ""))
    write = functools.partial(_write_vectors_chunk, folder=str(store.path.resolve()), dtype=store.dtype,
                              batch_size=batch_size)
    t0 = time.perf_counter()
    info = run_chunk_job(ct.texts, store.chunk_size, todo, make_encoder or encoder_factory(encoder),
                         encoder.model_id, write, num_actors=num_actors, before_job=before_job)
    seconds = time.perf_counter() - t0
    finish_store(store, seconds)
    return EncodeReport(store, remaining, store.count - remaining, seconds, store.manifest["encode_seconds"], info)


def _write_vectors_chunk(encoder, texts: list[str], i: int, *, folder: str, dtype: str, batch_size: int | None) -> bool:
    from ..dense.vectors import write_chunk

    return write_chunk(encoder, texts, i, folder, dtype, batch_size=batch_size, skip_existing=True)


def build_impact_index_ray(corpus, model, root: str | Path | None = None, *,
                           make_model: Callable[[str], object] | None = None, num_actors: int | None = None,
                           before_job: Callable[[], None] | None = None, **kwargs):
    """`sounding.sparse.build_impact_index` with the corpus encoded by a Ray Data job (same chunk files,
    same impact index, byte for byte); the postings are built on the driver, once every chunk exists.

    `make_model(device)`: how each actor gets its model (default `encoder_factory(model)`: a
    `SparseModel` loaded by name is loaded again on the actor, on "cuda" in a GPU actor)."""
    import functools

    from ..sparse import build_impact_index

    def run_chunks(texts: list[str], chunk_size: int, todo: list[int], chunks_dir: Path, batch_size: int | None) -> dict:
        if todo and kwargs.get("log"):
            n = sum(len(texts[i * chunk_size:(i + 1) * chunk_size]) for i in todo)
            kwargs["log"](f"encoding {n:,} documents ({len(todo)} chunks) into {chunks_dir} on Ray")
        write = functools.partial(_write_sparse_chunk, folder=str(Path(chunks_dir).resolve()), batch_size=batch_size)
        return run_chunk_job(texts, chunk_size, todo, make_model or encoder_factory(model), model.model_id, write,
                             num_actors=num_actors, before_job=before_job)

    return build_impact_index(corpus, model, root, run_chunks=run_chunks, **kwargs)


def _write_sparse_chunk(model, texts: list[str], i: int, *, folder: str, batch_size: int | None) -> bool:
    from ..sparse import write_sparse_chunk

    return write_sparse_chunk(model, texts, i, folder, batch_size=batch_size, skip_existing=True)


def _accepts(fn, name: str) -> bool:
    import inspect

    try:
        return name in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
