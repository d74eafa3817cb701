"""The sharded index on Ray: shard builds as Ray tasks, search fanned out to shard actors, and corpus
encoding (dense or sparse) as a Ray Data batch job on an actor pool.

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
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import numpy as np

from ..analysis import DEFAULT_ANALYZER
from ..errors import SoundingError
from ..index.format import crc32_file
from .shards import (
    MergedResults,
    ShardHits,
    ShardReport,
    ShardSearcher,
    ShardSet,
    _check_n_shards,
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
    _check_n_shards(n_shards)
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

    def search(self, shard_key: tuple, items, k: int, kwargs: dict) -> ShardHits:
        self.open(*shard_key)
        return self.searcher.search(items, k=k, **kwargs)

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

    def search(self, queries, *, k: int = 1000, **kwargs) -> MergedResults:
        """Same arguments and result as `ShardedSearcher.search` (see `search_shards`)."""
        merged = search_shards(self._search_parts, queries, k, kwargs)
        merged.settings["backend"] = "ray"
        return merged

    def _search_parts(self, items, k: int, kwargs: dict) -> list[ShardHits]:
        ref = self.ray.put(items)  # shipped once, read by every actor
        try:
            return self.ray.get([a.search.remote(key, ref, k, kwargs) for a, key in zip(self.actors, self.keys)])
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


# -- encoding (dense or sparse vectors) ----------------------------------------------------------
VECTORS_FILE = "vectors.json"


def doc_text(doc) -> str:
    """The text a document is encoded from: title and text, as BEIR's dense baselines do."""
    title = getattr(doc, "title", "") or ""
    return f"{title} {doc.text}".strip() if title else doc.text


def _save_part(out: Path, rows: list[int], ids: list[str], vectors) -> dict:
    """Write one part (vectors, ids, corpus row numbers) atomically. Named by its first row, so a
    batch redone after a failure overwrites its earlier attempt instead of adding a duplicate."""
    name = f"part-{rows[0]:010d}"
    tmp = f".tmp-{os.getpid()}"
    try:
        import scipy.sparse as sp
    except ImportError:  # scipy is a core dependency; this only keeps the module importable
        sp = None
    files = {}
    if sp is not None and sp.issparse(vectors):
        mat = sp.csr_matrix(vectors, dtype=np.float32)
        kind, vec_name = "sparse", f"{name}.npz"
        with open(out / (vec_name + tmp), "wb") as f:
            sp.save_npz(f, mat)
    else:
        mat = np.ascontiguousarray(vectors, dtype=np.float32)
        kind, vec_name = "dense", f"{name}.npy"
        if mat.ndim != 2:
            raise SoundingError(f"encoder returned an array of shape {mat.shape}; expected (n_texts, dim)")
        with open(out / (vec_name + tmp), "wb") as f:
            np.save(f, mat)
    if mat.shape[0] != len(ids):
        raise SoundingError(f"encoder returned {mat.shape[0]} vectors for {len(ids)} texts")
    rows_name, ids_name = f"{name}.rows.npy", f"{name}.ids.txt"
    with open(out / (rows_name + tmp), "wb") as f:
        np.save(f, np.asarray(rows, dtype=np.int64))
    (out / (ids_name + tmp)).write_text("\n".join(ids), encoding="utf-8")
    for fname in (vec_name, rows_name, ids_name):
        os.replace(out / (fname + tmp), out / fname)
        files[fname] = crc32_file(out / fname)
    return {"name": name, "first_row": int(rows[0]), "n": len(ids), "dim": int(mat.shape[1]), "kind": kind,
            "vectors": vec_name, "rows": rows_name, "ids": ids_name, "files": files}


def _commit_vectors(out: Path, parts: list[dict], n_rows: int, info: dict) -> dict:
    """Check that the parts hold every corpus row exactly once, then write vectors.json (last)."""
    parts = sorted(parts, key=lambda p: p["first_row"])
    seen = np.zeros(n_rows, dtype=np.int64)
    for p in parts:
        rows = np.load(out / p["rows"])
        if len(rows) != p["n"] or (len(rows) and (rows.min() < 0 or rows.max() >= n_rows)):
            raise SoundingError(f"{out / p['rows']}: rows do not match the corpus")
        np.add.at(seen, rows, 1)
    if n_rows and (seen.min() != 1 or seen.max() != 1):
        raise SoundingError(f"{out}: {int((seen == 0).sum()):,} documents without a vector, "
                            f"{int((seen > 1).sum()):,} with more than one")
    dims, kinds = {p["dim"] for p in parts}, {p["kind"] for p in parts}
    if len(dims) > 1 or len(kinds) > 1:
        raise SoundingError(f"{out}: parts disagree on dimension or kind ({dims}, {kinds})")
    manifest = {"format": "sounding-vectors", "version": 1, "n_vectors": n_rows, "dim": dims.pop() if dims else 0,
                "kind": kinds.pop() if kinds else "dense", "parts": parts, **info}
    tmp = out / f"{VECTORS_FILE}.tmp-{os.getpid()}"
    tmp.write_text(json.dumps(manifest, indent=1, sort_keys=True))
    os.replace(tmp, out / VECTORS_FILE)
    keep = {f for p in parts for f in p["files"]}
    for f in out.iterdir():
        if f.is_file() and f.name.startswith("part-") and f.name not in keep:
            f.unlink(missing_ok=True)
    return manifest


def encode_corpus(docs: Iterable, out: str | Path, make_encoder: Callable[[], Callable[[list[str]], object]], *,
                  batch_size: int = 256, text: Callable = doc_text) -> dict:
    """Encode a corpus in this process (no Ray): the reference for `encode_corpus_ray`, same files.

    `make_encoder()` returns `encode(texts) -> (n, dim) array` (dense) or a scipy.sparse matrix
    (learned sparse); it is called once, as each Ray actor calls it once.
    """
    root = Path(out)
    root.mkdir(parents=True, exist_ok=True)
    encode = make_encoder()
    parts, ids, texts, first = [], [], [], 0
    n = 0
    for n, doc in enumerate(docs, 1):
        ids.append(doc.id)
        texts.append(text(doc))
        if len(ids) == batch_size:
            parts.append(_save_part(root, list(range(first, n)), ids, encode(texts)))
            first, ids, texts = n, [], []
    if ids:
        parts.append(_save_part(root, list(range(first, n)), ids, encode(texts)))
    return _commit_vectors(root, parts, n, {"backend": "local", "batch_size": batch_size})


class _EncodeActor:
    """Ray Data actor: builds the encoder once, then encodes batches and writes each as a part."""

    def __init__(self, make_encoder, out: str):
        self.encode = make_encoder()
        self.out = Path(out)

    def __call__(self, batch: dict) -> dict:
        rows = [int(x) for x in batch["row"].tolist()]
        ids = [str(x) for x in batch["id"].tolist()]
        texts = [str(x) for x in batch["text"].tolist()]
        meta = _save_part(self.out, rows, ids, self.encode(texts))
        return {"meta": np.array([json.dumps(meta)], dtype=object), "pid": np.array([os.getpid()]),
                "peak_rss_kb": np.array([peak_rss_kb()])}


def encode_corpus_ray(docs: Iterable, out: str | Path, make_encoder: Callable[[], Callable[[list[str]], object]], *,
                      batch_size: int = 256, num_actors: int | None = None, text: Callable = doc_text) -> dict:
    """Encode a corpus as a Ray Data batch job on an actor pool; files as `encode_corpus` writes.

    One actor per GPU, each with one GPU, when the cluster has GPUs; otherwise one actor per CPU
    (`num_actors` overrides the count). `make_encoder` must be picklable (a module-level function or
    class): each actor calls it once to load its model, e.g.
    `lambda: SentenceTransformer(path, device="cuda").encode` wrapped in a module-level function.
    Each batch is written by its actor as one part (vectors, ids, corpus row numbers), named by its
    first row, so a batch redone after an actor failure overwrites its part; vectors.json is written
    last, after checking that the parts hold every document exactly once.
    """
    ray = require_ray()
    try:
        from ray import data as ray_data
    except ImportError as e:  # Ray Data needs pyarrow: the `data` extra
        raise SoundingError(f"Ray Data is not usable ({e}); {INSTALL_HINT}") from None

    root = Path(out).resolve()
    root.mkdir(parents=True, exist_ok=True)
    resources = _cluster(ray)
    gpus = int(resources.get("GPU", 0))
    items = [{"row": i, "id": d.id, "text": text(d)} for i, d in enumerate(docs)]
    if not items:
        raise SoundingError("no documents to encode")
    n_blocks = max(1, -(-len(items) // batch_size))  # about one block per batch: parallelism from the start
    if _accepts(ray_data.from_items, "override_num_blocks"):
        ds = ray_data.from_items(items, override_num_blocks=n_blocks)
    else:  # Ray < 2.10
        ds = ray_data.from_items(items, parallelism=n_blocks)
    size = num_actors or (gpus if gpus else max(1, int(resources.get("CPU", 1))))
    per_actor = {"num_gpus": 1} if gpus else {"num_cpus": 1}
    start = time.perf_counter()
    mapped = ds.map_batches(_EncodeActor, fn_constructor_args=(make_encoder, str(root)), batch_size=batch_size,
                            batch_format="numpy", compute=ray_data.ActorPoolStrategy(size=size), **per_actor)
    rows = mapped.take_all()
    parts = [json.loads(r["meta"]) for r in rows]
    workers: dict[int, int] = {}
    for r in rows:
        workers[int(r["pid"])] = max(workers.get(int(r["pid"]), 0), int(r["peak_rss_kb"]))
    info = {"backend": "ray", "batch_size": batch_size, "actors": size, "gpus_per_actor": 1 if gpus else 0,
            "seconds": round(time.perf_counter() - start, 3), "worker_peak_rss_kb": sorted(workers.values(), reverse=True)}
    return _commit_vectors(root, parts, len(items), info)


def _accepts(fn, name: str) -> bool:
    import inspect

    try:
        return name in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


def read_vectors(out: str | Path) -> tuple[list[str], object]:
    """(document ids, vectors) of an encoded corpus, in corpus order (checksums verified)."""
    root = Path(out)
    path = root / VECTORS_FILE
    if not path.is_file():
        raise SoundingError(f"{root}: no {VECTORS_FILE}: not an encoded corpus, or its job did not finish")
    manifest = json.loads(path.read_text())
    sparse = manifest["kind"] == "sparse"
    if sparse:
        import scipy.sparse as sp
    ids: list[str] = []
    rows, mats = [], []
    for p in manifest["parts"]:
        for fname, crc in p["files"].items():
            if crc32_file(root / fname) != crc:
                raise SoundingError(f"{root / fname}: checksum does not match {VECTORS_FILE}")
        ids.extend((root / p["ids"]).read_text(encoding="utf-8").split("\n"))
        rows.append(np.load(root / p["rows"]))
        mats.append(sp.load_npz(root / p["vectors"]) if sparse else np.load(root / p["vectors"]))
    if not mats:
        return [], np.zeros((0, manifest["dim"]), np.float32)
    order = np.argsort(np.concatenate(rows), kind="stable")
    matrix = sp.vstack(mats).tocsr()[order] if sparse else np.concatenate(mats)[order]
    return [ids[i] for i in order.tolist()], matrix
