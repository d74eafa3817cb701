"""Sharded indexes in plain Python: split, build, merge statistics, fan-out search, exact top-k merge.

On disk (one folder):

    DIR/shards.json                 written last (temp file + rename): the sharded index is what it says
    DIR/shard-000/ … shard-NNN/     each a normal Sounding index (its own CURRENT and generations)
    DIR/stats-<hash>/shard-000.df.npy
                                    merged document frequencies in that shard's term numbering
                                    (int64, n_fields × n_terms): a shard scores with the statistics
                                    of the whole collection without reading the other shards

Assignment: a document goes to shard `zlib.crc32(UTF-8 id) % n_shards`. It depends on the id only,
so it does not depend on corpus order, every worker can pick its own documents out of one stream,
and a repeated id lands twice in the same shard, where the index writer reports it.

Exactness: BM25 needs N, the total field lengths and each term's document frequency; across shards
of disjoint documents these are plain sums. With them a shard scores every document exactly as the
single index does, and merging the shards' top k by (score desc, docid desc in UTF-8 byte order,
trec_eval's tie rule) and cutting to k gives the single index's top k, byte for byte in a run file.

Nothing here needs Ray: `build_shards` builds the shards one after another in this process and
`ShardedSearcher` searches them in turn. `sounding.scale.ray_backend` does the same on Ray.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from ..analysis import DEFAULT_ANALYZER
from ..errors import SoundingError
from ..index import Index, build_index
from ..index.format import FieldStats, crc32_file
from ..search.params import BM25Params

SHARDS_FILE = "shards.json"
FORMAT_NAME = "sounding-shards"
FORMAT_VERSION = 1
ASSIGNMENT = {"method": "crc32", "rule": "zlib.crc32(docid encoded as UTF-8) % n_shards"}


# -- assignment --------------------------------------------------------------------------------
def shard_of(docid: str, n_shards: int) -> int:
    """The shard a document id belongs to."""
    return zlib.crc32(docid.encode("utf-8", "surrogatepass")) % n_shards


def shard_name(shard: int) -> str:
    return f"shard-{shard:03d}"


def select_shard(docs: Iterable, shard: int, n_shards: int, counter: dict | None = None) -> Iterator:
    """The documents of `docs` that belong to `shard`; `counter['seen']` counts every document read."""
    seen = 0
    try:
        for doc in docs:
            seen += 1
            if shard_of(doc.id, n_shards) == shard:
                yield doc
    finally:
        if counter is not None:
            counter["seen"] = seen


def split_corpus(docs: Iterable, n_shards: int) -> list[list]:
    """One pass: the documents of each shard, in corpus order (holds the corpus in memory)."""
    parts: list[list] = [[] for _ in range(n_shards)]
    for doc in docs:
        parts[shard_of(doc.id, n_shards)].append(doc)
    return parts


@dataclass(frozen=True)
class CorpusFile:
    """A picklable corpus: calling it streams the documents of a corpus file (BEIR jsonl[.gz])."""

    path: str

    def __call__(self) -> Iterator:
        from ..datasets import iter_corpus

        return iter_corpus(self.path)


def check_n_shards(n_shards: int) -> None:
    if not isinstance(n_shards, int) or n_shards < 1:
        raise SoundingError(f"number of shards must be a positive integer, not {n_shards!r}")


# -- building one shard (the unit of work a Ray task also runs) --------------------------------
@dataclass
class ShardReport:
    shard: int
    path: str  # relative to the sharded folder
    n_docs: int
    n_terms: int
    seen: int  # documents read from the stream (all shards), -1 when the shard got a list
    seconds: float
    bytes: int
    content_hash: str
    generation: str
    peak_rss_kb: int = 0  # VmHWM of the process that built it (the worker, on Ray)
    pid: int = 0
    node: str = ""
    cpu_seconds: float = 0.0  # CPU time of the build (user + system), unlike `seconds` blind to contention


def build_shard(corpus, out: str | Path, shard: int, n_shards: int, *, analyzer: str = DEFAULT_ANALYZER,
                source: str = "", progress=None, workers: int = 1) -> ShardReport:
    """Build shard `shard` of `n_shards` into `out/shard-NNN` (atomic, as any index build).

    One process per shard by default (`workers=1`): shards are the unit of parallelism, and the
    report's CPU time and peak memory then describe the whole build of the shard.

    `corpus`: the shard's own documents (a list), or a zero-argument callable streaming the whole
    corpus, from which this shard's documents are picked by id.
    """
    check_n_shards(n_shards)
    root = Path(out)
    counter: dict = {"seen": -1}
    if callable(corpus):
        docs = select_shard(corpus(), shard, n_shards, counter)
    else:
        docs = corpus
    cpu = time.process_time()
    try:
        report = build_index(docs, root / shard_name(shard), analyzer=analyzer, source=source, progress=progress,
                             workers=workers)
    except SoundingError as e:
        if "no documents to index" in str(e):
            raise SoundingError(f"{root / shard_name(shard)}: shard {shard} of {n_shards} got no documents; "
                                "use fewer shards for this corpus") from None
        raise
    ix = Index(report.path, verify=False)
    return ShardReport(shard, shard_name(shard), report.n_docs, report.n_terms, counter["seen"], report.seconds,
                       report.bytes, ix.manifest.content_hash, ix.folder.name, peak_rss_kb(), os.getpid(),
                       os.uname().nodename, time.process_time() - cpu)


def peak_rss_kb(pid: int | str = "self") -> int:
    """VmHWM (peak resident set) of a process in kB, 0 where /proc is not available."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


# -- merged statistics --------------------------------------------------------------------------
@dataclass
class ShardStats:
    """The collection statistics one shard scores with: Searcher's `stats=` protocol (`for_index`).

    Equal to `GlobalStats.merge(all shards).for_index(shard)`, computed once at build time and
    stored, so that a shard opens and searches without reading the other shards.
    """

    fields: list[str]
    field_stats: dict[str, FieldStats]
    df: np.ndarray  # (n_fields, n_terms of this shard), int64
    content_hash: str

    def for_index(self, ix: Index) -> tuple[np.ndarray, dict[str, FieldStats]]:
        m = ix.manifest
        if m.fields != self.fields or m.content_hash != self.content_hash or self.df.shape != (len(m.fields), m.n_terms):
            raise SoundingError(f"{ix.root}: this shard is not the one its merged statistics were computed for "
                                "(was it rebuilt on its own?); rebuild the sharded index")
        return self.df, self.field_stats


from ..search.stats import merge_stats  # noqa: E402  (one merge for sharded and GlobalStats)


def global_ranks(indexes: list[Index]) -> list[np.ndarray]:
    """Each shard's documents ranked in UTF-8 byte order among the documents of all shards (uint32).

    With it, merging shard results orders ties by one integer instead of comparing id strings.
    """
    ids = [np.array([d.encode("utf-8", "surrogatepass") for d in ix.docids], dtype=bytes) for ix in indexes]
    sizes = [len(a) for a in ids]
    if sum(sizes) >= 2**32:
        raise SoundingError("more than 2^32 - 1 documents: ranks do not fit uint32")
    order = np.argsort(np.concatenate(ids), kind="stable")
    rank = np.empty(sum(sizes), dtype=np.uint32)
    rank[order] = np.arange(sum(sizes), dtype=np.uint32)
    return np.split(rank, np.cumsum(sizes)[:-1])


# -- the sharded folder -------------------------------------------------------------------------
@dataclass
class ShardInfo:
    path: str
    n_docs: int
    n_terms: int
    content_hash: str
    generation: str
    df_file: str  # merged document frequencies, this shard's term numbering (int64, n_fields × n_terms)
    rank_file: str  # each document's rank in UTF-8 byte order among all documents of all shards (uint32)
    checksums: dict[str, str] = field(default_factory=dict)  # df_file / rank_file → crc32
    bytes: int = 0


@dataclass
class ShardSet:
    """What shards.json says."""

    n_shards: int
    analyzer: str
    n_docs: int
    fields: list[str]
    field_stats: dict[str, FieldStats]
    shards: list[ShardInfo]
    assignment: dict = field(default_factory=lambda: dict(ASSIGNMENT))
    source: str = ""
    build: dict = field(default_factory=dict)
    format: str = FORMAT_NAME
    version: int = FORMAT_VERSION

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=1, sort_keys=True)

    @classmethod
    def read(cls, root: str | Path) -> "ShardSet":
        root = Path(root)
        path = root / SHARDS_FILE
        if not path.is_file():
            if (root / "CURRENT").is_file():
                raise SoundingError(f"{root}: a single (unsharded) index, not a sharded one; use `sounding search`")
            raise SoundingError(f"{root}: no {SHARDS_FILE}: not a sharded index, or its build did not finish")
        try:
            raw = json.loads(path.read_text())
        except json.JSONDecodeError as e:
            raise SoundingError(f"{path}: damaged ({e.msg})") from None
        if raw.get("format") != FORMAT_NAME:
            raise SoundingError(f"{path}: not a Sounding shard set")
        if raw.get("version") != FORMAT_VERSION:
            raise SoundingError(f"{path}: shard set format version {raw.get('version')}, this Sounding reads "
                                f"{FORMAT_VERSION}; rebuild it with `sounding shard-index`")
        if raw.get("assignment", {}).get("method") != ASSIGNMENT["method"]:
            raise SoundingError(f"{path}: unknown document assignment {raw.get('assignment')}")
        raw["field_stats"] = {k: FieldStats(**v) for k, v in raw["field_stats"].items()}
        raw["shards"] = [ShardInfo(**s) for s in raw["shards"]]
        return cls(**raw)


def write_shard_set(out: str | Path, reports: list[ShardReport], *, n_shards: int, source: str = "",
                    expected_docs: int | None = None, build: dict | None = None) -> ShardSet:
    """Check the built shards, store their merged statistics, then commit shards.json (last).

    Checks: every shard present once, its index opens with valid checksums, each streaming
    worker read the same number of documents, and the shards together hold all of them.
    """
    root = Path(out)
    started = time.perf_counter()
    reports = sorted(reports, key=lambda r: r.shard)
    if [r.shard for r in reports] != list(range(n_shards)):
        raise SoundingError(f"{root}: expected shards 0..{n_shards - 1}, got {[r.shard for r in reports]}")
    indexes = [Index(root / r.path) for r in reports]  # verifies every checksum
    for r, ix in zip(reports, indexes):
        if ix.manifest.content_hash != r.content_hash or ix.n_docs != r.n_docs:
            raise SoundingError(f"{ix.root}: shard changed while the set was being built; build it again")
    seen = {r.seen for r in reports if r.seen >= 0}
    if len(seen) > 1:
        raise SoundingError(f"{root}: the shard builders read different numbers of documents ({sorted(seen)}): "
                            "did the corpus change during the build?")
    total = sum(ix.n_docs for ix in indexes)
    want = expected_docs if expected_docs is not None else (seen.pop() if seen else None)
    if want is not None and total != want:
        raise SoundingError(f"{root}: the shards hold {total:,} documents, the corpus has {want:,}")
    analyzers = {ix.analyzer for ix in indexes}
    if len(analyzers) != 1:
        raise SoundingError(f"{root}: shards built with different analyzers {sorted(analyzers)}")

    field_stats, dfs = merge_stats(indexes)
    ranks = global_ranks(indexes)
    key = hashlib.sha256("".join(ix.manifest.content_hash for ix in indexes).encode()).hexdigest()[:16]
    stats_dir = root / f"stats-{key}"
    stats_dir.mkdir(exist_ok=True)
    infos = []
    for r, ix, df, rank in zip(reports, indexes, dfs, ranks):
        files = {}
        for kind, arr in (("df", df), ("rank", rank)):
            rel = f"{stats_dir.name}/{r.path}.{kind}.npy"
            tmp = root / f"{rel}.tmp-{os.getpid()}"
            with open(tmp, "wb") as f:
                np.save(f, arr)
            os.replace(tmp, root / rel)
            files[rel] = crc32_file(root / rel)
        df_file, rank_file = files
        infos.append(ShardInfo(r.path, ix.n_docs, ix.manifest.n_terms, ix.manifest.content_hash, ix.folder.name,
                               df_file, rank_file, files, ix.size_bytes()))
    build = dict(build or {}, commit_seconds=round(time.perf_counter() - started, 3))
    shard_set = ShardSet(n_shards, indexes[0].analyzer, total, list(indexes[0].manifest.fields), field_stats, infos,
                         source=str(source), build=build)
    tmp = root / f"{SHARDS_FILE}.tmp-{os.getpid()}"
    tmp.write_text(shard_set.to_json())
    os.replace(tmp, root / SHARDS_FILE)  # the commit
    _remove_stale(root, shard_set)
    return shard_set


def _remove_stale(root: Path, shard_set: ShardSet) -> None:
    """Drop statistics folders and shard folders that the committed shards.json no longer names."""
    keep = {s.path for s in shard_set.shards} | {s.df_file.split("/")[0] for s in shard_set.shards}
    for p in root.iterdir():
        if p.is_dir() and (p.name.startswith("stats-") or p.name.startswith("shard-")) and p.name not in keep:
            shutil.rmtree(p, ignore_errors=True)


def prepare_out(out: str | Path) -> Path:
    root = Path(out)
    if (root / "CURRENT").is_file():
        raise SoundingError(f"{root}: holds a single (unsharded) index; give the sharded index its own folder")
    root.mkdir(parents=True, exist_ok=True)
    return root


def build_shards(corpus, out: str | Path, n_shards: int, *, analyzer: str = DEFAULT_ANALYZER, source: str = "",
                 progress: Callable[[int, int], None] | None = None) -> ShardSet:
    """Build a sharded index in this process, one shard after another.

    `corpus`: a zero-argument callable that streams the corpus (read once per shard, memory of one
    shard at a time), or an iterable of documents (read once, held in memory, split by id).
    `progress(shard, n_docs_indexed)` if given.
    """
    check_n_shards(n_shards)
    root = prepare_out(out)
    start = time.perf_counter()
    if callable(corpus):
        parts = [corpus] * n_shards
        expected = None
    else:
        parts = split_corpus(corpus, n_shards)
        expected = sum(len(p) for p in parts)
    reports = []
    for shard, part in enumerate(parts):
        cb = (lambda n, s=shard: progress(s, n)) if progress else None
        reports.append(build_shard(part, root, shard, n_shards, analyzer=analyzer, source=source, progress=cb))
    build = {"backend": "local", "seconds": round(time.perf_counter() - start, 3), "peak_rss_kb": peak_rss_kb()}
    return write_shard_set(root, reports, n_shards=n_shards, source=source, expected_docs=expected, build=build)


# -- opening and searching ----------------------------------------------------------------------
def open_shard(root: str | Path, shard_set: ShardSet, shard: int, *, verify: bool = True
               ) -> tuple[Index, ShardStats, np.ndarray]:
    """One shard's index, the merged statistics it scores with, and its documents' global ranks,
    all checked against shards.json."""
    root = Path(root)
    info = shard_set.shards[shard]
    ix = Index(root / info.path, verify=verify)
    if ix.manifest.content_hash != info.content_hash:
        raise SoundingError(f"{ix.root}: this shard was rebuilt after {root / SHARDS_FILE} was written; "
                            "rebuild the sharded index")
    arrays = []
    for rel in (info.df_file, info.rank_file):
        path = root / rel
        if not path.is_file():
            raise SoundingError(f"{path}: merged statistics missing; rebuild the sharded index")
        if verify and crc32_file(path) != info.checksums.get(rel):
            raise SoundingError(f"{path}: checksum does not match {root / SHARDS_FILE}")
        arrays.append(np.load(path))
    df, rank = arrays
    if rank.shape != (ix.n_docs,):
        raise SoundingError(f"{root / info.rank_file}: does not match the shard; rebuild the sharded index")
    return ix, ShardStats(shard_set.fields, shard_set.field_stats, df, info.content_hash), rank


def order_keys(scores: np.ndarray, rank: np.ndarray, *, lucene_ties: bool = False) -> np.ndarray:
    """uint64 keys whose ascending order is (score, docid byte order) ascending: the float32 score's
    bits made order-preserving in the high half, the document's global rank in the low half. With
    `lucene_ties`, (score ascending, docid byte order descending): the best first is then Lucene's order."""
    bits = np.ascontiguousarray(scores, dtype=np.float32).view(np.uint32)
    ordered = np.where(bits & np.uint32(0x80000000), ~bits, bits | np.uint32(0x80000000))
    low = rank.astype(np.uint64)
    if lucene_ties:
        low = np.uint64(0xFFFFFFFF) - low  # ranks are < 2**32
    return (ordered.astype(np.uint64) << np.uint64(32)) | low


@dataclass
class ShardHits:
    """One shard's top k per query, in a compact form to ship between processes."""

    qids: list[str]
    counts: np.ndarray  # (n_queries,) hits per query
    scores: np.ndarray  # (total hits,) float32, query after query, best first
    keys: np.ndarray  # (total hits,) uint64 merge keys (order_keys)
    docids: np.ndarray  # (total hits,) UTF-8 ids ('S' dtype) aligned with scores
    seconds: float = 0.0
    peak_rss_kb: int = 0
    pid: int = 0
    cpu_seconds: float = 0.0


class ShardSearcher:
    """One shard of a sharded index: searches with the merged statistics, returns ShardHits."""

    def __init__(self, root: str | Path, shard: int, *, shard_set: ShardSet | None = None, verify: bool = True):
        from ..search import Searcher

        self.root = Path(root)
        self.shard_set = shard_set or ShardSet.read(self.root)
        self.shard = shard
        ix, stats, self.rank = open_shard(self.root, self.shard_set, shard, verify=verify)
        self.searcher = Searcher(ix, stats=stats)
        self.docid_bytes = np.array([d.encode("utf-8", "surrogatepass") for d in ix.docids], dtype=bytes)

    def search(self, queries, params: BM25Params | None = None, /, *, threads: int = 1, **options) -> ShardHits:
        cpu = time.process_time()
        params = BM25Params.of(params, **options)
        res = self.searcher.search(queries, params, threads=threads)
        counts = res.counts.astype(np.int64)
        mask = np.arange(res.docs.shape[1])[None, :] < counts[:, None]
        docs = res.docs[mask]
        scores = res.scores[mask]
        keys = order_keys(scores, self.rank[docs], lucene_ties=params.lucene_ties)
        ids = self.docid_bytes[docs]
        return ShardHits(list(res.qids), counts, scores, keys, ids, res.seconds, peak_rss_kb(), os.getpid(),
                         time.process_time() - cpu)


@dataclass
class MergedResults:
    """The exact top k of a sharded search; `.to_run()` as `Results.to_run()`."""

    qids: list[str]
    docids: list[np.ndarray]  # per query, UTF-8 ids ('S'), best first
    scores: list[np.ndarray]  # per query, float32
    seconds: float = 0.0
    shard_seconds: list[float] = field(default_factory=list)  # each shard's own search time (kernels)
    shard_cpu_seconds: list[float] = field(default_factory=list)  # each shard's CPU time, hits packing included
    merge_seconds: float = 0.0
    settings: dict = field(default_factory=dict)

    def hits(self, i: int, *, remove_self_hits: bool = False) -> list[tuple[str, float]]:
        out = [(d.decode("utf-8", "surrogatepass"), s) for d, s in zip(self.docids[i].tolist(), self.scores[i].tolist())]
        return [h for h in out if h[0] != self.qids[i]] if remove_self_hits else out

    def to_run(self, *, remove_self_hits: bool = False) -> dict[str, dict[str, float]]:
        """qid → {docid: score} (the Run type of sounding.eval); own hits dropped if asked."""
        return {q: dict(self.hits(i, remove_self_hits=remove_self_hits)) for i, q in enumerate(self.qids)}

    @property
    def queries_per_second(self) -> float:
        return len(self.qids) / self.seconds if self.seconds else float("inf")


def merge_topk(parts: list[ShardHits], k: int) -> MergedResults:
    """Merge the shards' top k per query: score descending, then docid descending in UTF-8 byte
    order (trec_eval's rule, the single index's tie order), or ascending where the shards searched
    with `lucene_ties` (their keys say which), cut to k."""
    if not parts:
        raise SoundingError("no shard results to merge")
    qids = parts[0].qids
    for p in parts[1:]:
        if p.qids != qids:
            raise SoundingError("shard results are for different queries")
    bounds = [np.concatenate([[0], np.cumsum(p.counts)]) for p in parts]
    out_ids, out_scores = [], []
    for i in range(len(qids)):
        sl = [slice(b[i], b[i + 1]) for b in bounds]
        keys = np.concatenate([p.keys[s] for p, s in zip(parts, sl)])
        order = np.argsort(keys)[::-1][:k]  # keys are distinct (ranks are)
        out_ids.append(np.concatenate([p.docids[s] for p, s in zip(parts, sl)])[order])
        out_scores.append(np.concatenate([p.scores[s] for p, s in zip(parts, sl)])[order])
    return MergedResults(qids, out_ids, out_scores)


def query_items(queries) -> list[tuple[str, str]]:
    return list(queries.items()) if isinstance(queries, Mapping) else list(queries)


class ShardedSearcher:
    """BM25 over a sharded index in this process: every shard searched with the merged statistics,
    the top k merged exactly. Same search arguments as `Searcher.search` (see `search_shards`)."""

    def __init__(self, root: str | Path, *, verify: bool = True):
        self.root = Path(root)
        self.shard_set = ShardSet.read(self.root)
        self.shards = [ShardSearcher(self.root, i, shard_set=self.shard_set, verify=verify)
                       for i in range(self.shard_set.n_shards)]

    def search(self, queries, params: BM25Params | None = None, /, *, threads: int = 1, **options) -> MergedResults:
        """The exact top k of the whole collection for `params` (and `options`, as `Searcher.search`), each
        shard searched in turn with `threads` threads."""
        return search_shards(lambda items, shard_params: [s.search(items, shard_params, threads=threads)
                                                          for s in self.shards],
                             queries, BM25Params.of(params, **options))


def search_shards(search_parts: Callable[[list, BM25Params], list[ShardHits]], queries,
                  params: BM25Params) -> MergedResults:
    """What every sharded searcher does around `search_parts(items, shard_params)` (each shard's top k):
    merge the top k exactly, apply Anserini's tie handling when asked, and time it.

    Refused, because a shard cannot reproduce one index's results for them: `proximity` (it
    reorders each shard's own top k, not the collection's; shards have no positions) and `typos`
    (typo variants come from each shard's own vocabulary).
    """
    for name in ("proximity", "typos"):
        if getattr(params, name):
            raise SoundingError(f"{name} is not available on a sharded index: its results would differ from "
                                "one index's; search an unsharded index")
    k, ties = params.k, params.anserini_ties
    # as Searcher: with Anserini's ties every shard, then the merge, cut at k in Lucene's order
    shard_params = params.replace(anserini_ties=False, lucene_ties=True) if ties else params
    items = query_items(queries)
    start = time.perf_counter()
    parts = search_parts(items, shard_params)
    t = time.perf_counter()
    merged = merge_topk(parts, k)
    if ties:
        merged = anserini_ties(merged, k)
    merged.merge_seconds = time.perf_counter() - t
    merged.seconds = time.perf_counter() - start
    merged.shard_seconds = [p.seconds for p in parts]
    merged.shard_cpu_seconds = [p.cpu_seconds for p in parts]
    merged.settings = dict(params.describe(), n_shards=len(parts))
    return merged


def anserini_ties(merged: MergedResults, k: int) -> MergedResults:
    """Pyserini's tie handling (`Searcher.search(anserini_ties=True)`) on the merged top k.

    It must run on the whole collection's top k (cut in Lucene's order), after the merge: it numbers
    ties across all of them. The rule itself stays in one place,
    `search.kernels.ties.apply_anserini_ties`; ranking each query's candidates among themselves in docid
    byte order orders them as the whole collection's ranks would.
    """
    from ..search.kernels.ties import apply_anserini_ties

    counts = np.array([len(d) for d in merged.docids], dtype=np.int64)
    width = max(1, int(counts.max(initial=0)))
    docs = np.full((len(counts), width), -1, dtype=np.int64)  # candidate numbers, all queries in a row
    scores = np.zeros((len(counts), width), dtype=np.float32)
    starts = np.concatenate([[0], np.cumsum(counts)])
    for q, s in enumerate(merged.scores):
        docs[q, : counts[q]] = np.arange(starts[q], starts[q + 1])
        scores[q, : counts[q]] = s
    ranks = [np.argsort(d, kind="stable").argsort(kind="stable") for d in merged.docids]
    rank = np.concatenate(ranks) if ranks else np.zeros(0, np.int64)
    ids = np.concatenate(merged.docids) if merged.docids else np.zeros(0, dtype="S1")
    out_docs, out_scores, out_n = apply_anserini_ties(docs, scores, counts, k, rank)
    return MergedResults(merged.qids, [ids[out_docs[q, :n]] for q, n in enumerate(out_n.tolist())],
                         [out_scores[q, :n] for q, n in enumerate(out_n.tolist())])
