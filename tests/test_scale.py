"""Sharded indexes: byte-identical run files to the single index, with and without Ray; a worker killed
mid-build has its shard redone; the on-disk layout (shards.json written last).

Ray tests share one local instance (2 CPUs) per module and skip, saying why, without Ray.
"""
from __future__ import annotations

import filecmp
import json
import os
import random
import signal
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from sounding.datasets import Document
from sounding.retrieval.dense.encoders import Encoder
from sounding.errors import SoundingError
from sounding.eval import write_run
from sounding.index import Index, build_index
from sounding.scale import CorpusFile, ShardedSearcher, ShardSet, build_shard, build_shards, shard_of
from sounding.scale.shards import SHARDS_FILE, merge_stats, order_keys, split_corpus
from sounding.retrieval.search import Searcher
from sounding.retrieval.search.stats import GlobalStats

LAYOUTS = [("flat", False), ("multifield", False), ("multifield-max", False), ("bm25f", False),
           ("flat", True), ("multifield", True)]


# -- a small synthetic corpus: skewed vocabulary (many ties), non-ASCII and prefix-sharing ids ---
def synthetic_corpus(n: int = 1200, seed: int = 7) -> list[Document]:
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(400)] + ["café", "naïve", "résumé", "東京", "straße"]
    weights = [1.0 / (i + 1) ** 1.05 for i in range(len(words))]
    prefixes = ["d", "D", "doc", "é", "日本", "z", "a-"]
    docs = []
    for i in range(n):
        title = " ".join(rng.choices(words, weights, k=rng.randint(0, 4)))
        text = " ".join(rng.choices(words, weights, k=rng.randint(1, 40)))
        docs.append(Document(f"{prefixes[i % len(prefixes)]}{i}", title, text, i + 1))
    return docs


def synthetic_queries(n: int = 60, seed: int = 8) -> dict[str, str]:
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(400)] + ["café", "東京"]
    q = {f"q{i}": " ".join(rng.choices(words, k=rng.randint(1, 6))) for i in range(n)}
    q["d7"] = "w3 w5 café"  # a query id equal to a document id: own-hit removal
    return q


def run_bytes(results, path: Path, **kw) -> bytes:
    write_run(results.to_run(**kw), path)
    return path.read_bytes()


def assert_same_runs(reference_searcher, other, queries, tmp_path, layouts=LAYOUTS, k=100):
    for layout, lucene in layouts:
        a = run_bytes(reference_searcher.search(queries, layout=layout, k=k, lucene_norms=lucene), tmp_path / "a.run")
        b = run_bytes(other.search(queries, layout=layout, k=k, lucene_norms=lucene), tmp_path / "b.run")
        assert a == b, f"run files differ for layout={layout} lucene_norms={lucene}"
        assert a.count(b"\n") > len(queries), "the runs should not be trivially small"


@pytest.fixture(scope="module")
def corpus():
    return synthetic_corpus()


@pytest.fixture(scope="module")
def single(corpus, tmp_path_factory):
    path = tmp_path_factory.mktemp("single")
    build_index(corpus, path)
    return Searcher(path)


@pytest.fixture(scope="module")
def one_shard(corpus, tmp_path_factory):
    """The reference of the Ray tests: 1 shard, built without Ray."""
    path = tmp_path_factory.mktemp("one-shard")
    build_shards(corpus, path, 1)
    return ShardedSearcher(path)


# -- without Ray ---------------------------------------------------------------------------------
def test_assignment_is_by_id_and_covers_the_corpus(corpus):
    parts = split_corpus(corpus, 4)
    assert sum(map(len, parts)) == len(corpus) and all(parts)
    shuffled = split_corpus(list(reversed(corpus)), 4)
    assert [sorted(d.id for d in p) for p in parts] == [sorted(d.id for d in p) for p in shuffled]
    assert all(shard_of(d.id, 4) == i for i, p in enumerate(parts) for d in p)
    assert shard_of("doc1", 4) == shard_of("doc1", 4)


def test_one_shard_equals_single_index(single, one_shard, corpus, tmp_path):
    assert_same_runs(single, one_shard, synthetic_queries(), tmp_path)


@pytest.mark.parametrize("n_shards", [3, 4])
def test_sharded_run_files_are_byte_identical(single, corpus, tmp_path, n_shards):
    build_shards(corpus, tmp_path / "ix", n_shards)
    sharded = ShardedSearcher(tmp_path / "ix")
    queries = synthetic_queries()
    assert_same_runs(single, sharded, queries, tmp_path, k=50)
    a = run_bytes(single.search(queries, k=30), tmp_path / "a.run", remove_self_hits=True)
    b = run_bytes(sharded.search(queries, k=30), tmp_path / "b.run", remove_self_hits=True)
    assert a == b and b"d7 Q0 d7 " not in b


def test_merged_statistics_equal_global_stats(corpus, tmp_path):
    shard_set = build_shards(corpus, tmp_path, 4)
    indexes = [Index(tmp_path / s.path) for s in shard_set.shards]
    field_stats, dfs = merge_stats(indexes)
    g = GlobalStats.merge(indexes)
    assert field_stats == g.field_stats == shard_set.field_stats
    for ix, df in zip(indexes, dfs):
        want, _ = g.for_index(ix)
        assert df.dtype == want.dtype and np.array_equal(df, want)


def test_on_disk_layout(corpus, tmp_path):
    out = tmp_path / "ix"
    shard_set = build_shards(CorpusFile(str(_write_corpus(corpus, tmp_path / "corpus.jsonl"))), out, 4)
    raw = json.loads((out / SHARDS_FILE).read_text())
    assert raw["n_shards"] == 4 and raw["n_docs"] == len(corpus) and raw["analyzer"] == "english-lucene"
    assert raw["assignment"]["method"] == "crc32"
    assert [s["path"] for s in raw["shards"]] == [f"shard-{i:03d}" for i in range(4)]
    for i, s in enumerate(shard_set.shards):
        ix = Index(out / s.path)  # a normal Sounding index
        assert ix.n_docs == s.n_docs and all(shard_of(d, 4) == i for d in ix.docids)
    assert not [p for p in out.rglob("*") if ".tmp-" in p.name or ".partial-" in p.name]
    # Rebuilt with fewer shards: the folders of the old shards go, the new set reads back.
    build_shards(corpus, out, 2)
    assert sorted(p.name for p in out.iterdir() if p.name.startswith("shard-")) == ["shard-000", "shard-001"]
    assert len([p for p in out.iterdir() if p.name.startswith("stats-")]) == 1
    assert ShardSet.read(out).n_shards == 2


def test_a_shard_rebuilt_alone_is_refused(corpus, tmp_path):
    build_shards(corpus, tmp_path, 2)
    mine = [d for d in corpus if shard_of(d.id, 2) == 0][:-1]
    build_shard(mine, tmp_path, 0, 2)
    with pytest.raises(SoundingError, match="rebuilt"):
        ShardedSearcher(tmp_path)


def test_errors_are_one_line(corpus, tmp_path):
    with pytest.raises(SoundingError, match="no shards.json"):
        ShardedSearcher(tmp_path)
    build_index(corpus[:10], tmp_path / "plain")
    with pytest.raises(SoundingError, match="unsharded"):
        build_shards(corpus, tmp_path / "plain", 2)
    with pytest.raises(SoundingError, match="got no documents"):
        build_shards(corpus[:2], tmp_path / "tiny", 8)
    with pytest.raises(SoundingError, match="positive"):
        build_shards(corpus, tmp_path / "zero", 0)


def test_merge_order_is_score_then_docid_bytes_descending():
    ids = [b"a", "\u00e9".encode(), b"z", b"ab", b"b"]
    ranks = np.argsort(np.argsort(np.array(ids, dtype=bytes), kind="stable")).astype(np.uint32)
    keys = order_keys(np.array([1, 1, 1, 1, 2], np.float32), ranks)
    got = [ids[i] for i in np.argsort(keys)[::-1]]
    assert got == [b"b", "\u00e9".encode(), b"z", b"ab", b"a"]


def test_cli_shard_index_and_search(corpus, single, tmp_path):
    import sounding.cli  # noqa: F401  (registers the commands)
    from sounding.cli import main

    corpus_file = _write_corpus(corpus, tmp_path / "corpus.jsonl")
    queries = synthetic_queries()
    (tmp_path / "q.tsv").write_text("".join(f"{q}\t{t}\n" for q, t in queries.items()))
    assert main(["shard-index", str(corpus_file), "--out", str(tmp_path / "ix"), "--shards", "3"]) == 0
    assert main(["search", str(tmp_path / "ix"), "--queries", str(tmp_path / "q.tsv"), "--run",
                 str(tmp_path / "b.run"), "--layout", "multifield", "--hits", "100"]) == 0
    write_run(single.search(queries, layout="multifield", k=100).to_run(), tmp_path / "a.run")
    assert filecmp.cmp(tmp_path / "a.run", tmp_path / "b.run", shallow=False)
    assert main(["search", str(tmp_path / "nope"), "--queries", str(tmp_path / "q.tsv"), "--run",
                 str(tmp_path / "c.run")]) == 2
    assert main(["search", str(tmp_path / "ix"), "--queries", str(tmp_path / "q.tsv"), "--run",
                 str(tmp_path / "d.run"), "--typos"]) == 2  # what a shard cannot do exactly is refused


def _write_corpus(docs, path: Path) -> Path:
    with open(path, "w", encoding="utf-8") as f:
        for d in docs:
            f.write(json.dumps({"_id": d.id, "title": d.title, "text": d.text}, ensure_ascii=False) + "\n")
    return path


def _hash_encode(texts):
    out = np.zeros((len(texts), 16), np.float32)
    for i, t in enumerate(texts):
        for w in t.split():
            out[i, sum(w.encode()) % 16] += 1.0
    return out


class HashEncoder(Encoder):
    """A stand-in for a dense model: bag of hashed words, 16 dimensions, deterministic. With `marker`,
    it raises once (across processes: an O_EXCL marker file) on the batch that holds `fail_on`."""

    backend, name, dim, batch_size = "fake", "fake-hash", 16, 8

    def __init__(self, marker: str | None = None, fail_on: str | None = None):
        self.marker, self.fail_on = marker, fail_on

    def _encode_batch(self, texts, kind):
        if self.marker and self.fail_on in texts:
            try:
                os.close(os.open(self.marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            except FileExistsError:
                pass
            else:
                raise RuntimeError("simulated encoder crash")
        return _hash_encode(texts)


class HashSparse:
    """A stand-in for SparseModel: the same hashed words as term weights over a 16-term vocabulary."""

    name, slug, model_id, model_key = "fake-hash-sparse", "fake-hash-sparse", "fake-hash-sparse/1", "e" * 64
    vocab_size, provenance, load_args = 16, "", None

    def encode(self, texts, kind="passage", batch_size=None, progress=False):
        import scipy.sparse as sp

        from sounding.retrieval.sparse import SparseVectors

        m = sp.csr_matrix(_hash_encode(texts))
        return SparseVectors(m.indptr.astype(np.int64), m.indices.astype(np.int32), m.data.astype(np.float32))


def folder_files(folder: Path) -> dict[str, bytes]:
    """Every file of a store but manifest.json (which holds times), by name."""
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file() and p.name != "manifest.json"}


def manifest_without_times(folder: Path) -> dict:
    m = json.loads((folder / "manifest.json").read_text())
    return {k: v for k, v in m.items() if k not in ("created", "encode_seconds")}


# -- on Ray --------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def ray_local():
    ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'sounding[scale]')")
    from ray import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # workers cannot import tests/
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield ray
    finally:
        ray.shutdown()


@pytest.fixture(scope="module")
def ray_searcher(ray_local, corpus, tmp_path_factory):
    """4 shard actors, started once and pointed at each sharded index in turn (`open`)."""
    from sounding.scale.ray_backend import RayShardedSearcher

    path = tmp_path_factory.mktemp("ray-4")
    build_shards(corpus, path, 4)
    # 4 × 0.25 CPU: one of the 2 CPUs stays free for the shard-building tasks of the tests.
    searcher = RayShardedSearcher(path, actor_cpus=0.25)
    yield searcher
    searcher.close()


@dataclass
class KillsItsWorkerOnce:
    """A corpus stream whose first reader (across all attempts) SIGKILLs its own worker mid-stream."""

    docs: list
    marker: str
    after: int

    def __call__(self):
        for i, d in enumerate(self.docs):
            if i == self.after:
                try:
                    fd = os.open(self.marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
                except FileExistsError:
                    pass
                else:
                    os.write(fd, str(os.getpid()).encode())
                    os.close(fd)
                    os.kill(os.getpid(), signal.SIGKILL)
            yield Document(*d)


def test_ray_killed_worker_shard_is_redone_and_runs_match(ray_searcher, corpus, one_shard, tmp_path):
    from sounding.scale.ray_backend import build_shards_ray

    marker = tmp_path / "killed"
    stream = KillsItsWorkerOnce([tuple(d) for d in corpus], str(marker), after=len(corpus) // 2)
    shard_set = build_shards_ray(stream, tmp_path / "ix", 4, max_retries=2)
    assert marker.exists(), "the fault was not injected"
    killed = int(marker.read_text())
    assert killed not in {t["pid"] for t in shard_set.build["tasks"]}  # every shard came from a live attempt
    expected = [len(p) for p in split_corpus(corpus, 4)]
    assert [s.n_docs for s in shard_set.shards] == expected and shard_set.n_docs == len(corpus)
    for s in shard_set.shards:
        assert Index(tmp_path / "ix" / s.path).n_docs == s.n_docs  # checksums verified on open
    assert not list((tmp_path / "ix").rglob("*.partial-*")), "a dead attempt's leftovers survived"
    ray_searcher.open(tmp_path / "ix")
    assert len(set(ray_searcher.pids)) == 4
    assert_same_runs(one_shard, ray_searcher, synthetic_queries(), tmp_path, layouts=[("flat", False), ("multifield", False)])
    with pytest.raises(SoundingError, match="lucene_norms"):  # an actor's user error arrives as one line
        ray_searcher.search({"q": "w1"}, layout="bm25f", lucene_norms=True)


@pytest.mark.realdata
def test_ray_scifact_4_shards_equal_1_shard_without_ray(ray_searcher, beir_dir, tmp_path):
    from sounding.datasets import load_dataset
    from sounding.scale.ray_backend import build_shards_ray

    ds = load_dataset(beir_dir("scifact"))
    build_shards(CorpusFile(str(ds.corpus_path)), tmp_path / "one", 1)
    build_shards_ray(CorpusFile(str(ds.corpus_path)), tmp_path / "four", 4)
    reference = ShardedSearcher(tmp_path / "one")
    ray_searcher.open(tmp_path / "four")
    assert_same_runs(reference, ray_searcher, ds.queries, tmp_path, layouts=[("flat", False), ("multifield", False)],
                     k=1000)


def test_ray_benchmark_synthetic_corpus_4_shards_equal_1_shard_without_ray(ray_searcher, tmp_path):
    """benchmarks/synthetic.py's NQ-shaped corpus at small scale (2,681 documents, 134 queries)."""
    import importlib.util

    from sounding.datasets import load_dataset
    from sounding.scale.ray_backend import build_shards_ray

    spec = importlib.util.spec_from_file_location("synthetic_corpus", Path(__file__).resolve().parents[1] / "benchmarks" / "synthetic.py")
    synthetic = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(synthetic)
    synthetic.generate(tmp_path / "syn", 0.001, seed=3)
    ds = load_dataset(tmp_path / "syn")
    build_shards(CorpusFile(str(ds.corpus_path)), tmp_path / "one", 1)
    build_shards_ray(CorpusFile(str(ds.corpus_path)), tmp_path / "four", 4)
    ray_searcher.open(tmp_path / "four")
    assert_same_runs(ShardedSearcher(tmp_path / "one"), ray_searcher, ds.queries, tmp_path,
                     layouts=[("flat", False), ("multifield", False)], k=1000)


@pytest.fixture(scope="module")
def local_vectors(corpus, tmp_path_factory):
    """The reference: 300 documents encoded in this process, chunks of 64 (5 chunks, the last of 44)."""
    from sounding.retrieval.dense.vectors import encode_corpus

    root = tmp_path_factory.mktemp("vectors-local")
    return {dtype: encode_corpus(corpus[:300], HashEncoder(), root, chunk_size=64, dtype=dtype).store.path
            for dtype in ("float32", "int8")}


@pytest.mark.parametrize("dtype,actors", [("float32", 2), ("int8", 1)])
def test_ray_encoding_writes_the_local_store_byte_for_byte(ray_local, corpus, local_vectors, tmp_path, dtype, actors):
    pytest.importorskip("pyarrow", reason="Ray Data needs pyarrow (pip install 'sounding[scale]')")
    from sounding.scale.ray_backend import encode_corpus_ray

    reference = local_vectors[dtype]
    rep = encode_corpus_ray(corpus[:300], HashEncoder(), tmp_path, chunk_size=64, dtype=dtype, num_actors=actors)
    assert rep.store.path.relative_to(tmp_path) == reference.relative_to(reference.parents[1])  # same keyed folder
    assert rep.encoded == 300 and rep.resumed_from == 0 and rep.store.complete
    assert rep.backend["actors"] == actors and rep.backend["chunks"] == 5 and rep.backend["written"] == 5
    files = folder_files(rep.store.path)
    assert len(files) == 1 + 5 * (2 if dtype == "int8" else 1)  # docids.txt, chunks (+ int8 scales)
    assert files == folder_files(reference)
    assert manifest_without_times(rep.store.path) == manifest_without_times(reference)
    again = encode_corpus_ray(corpus[:300], HashEncoder(), tmp_path, chunk_size=64, dtype=dtype)
    assert again.encoded == 0 and again.backend == {}  # complete: no Ray job at all


def test_ray_encoding_resumes_per_chunk(ray_local, corpus, local_vectors, tmp_path):
    pytest.importorskip("pyarrow", reason="Ray Data needs pyarrow (pip install 'sounding[scale]')")
    from sounding.retrieval.dense.vectors import VectorStore, corpus_texts
    from sounding.scale.ray_backend import encode_corpus_ray

    docs, reference = corpus[:300], local_vectors["float32"]
    rows = [64, 64, 64, 64, 44]
    # 1. the encoder raises once, inside chunk 3: the job stops, whole chunks only, manifest incomplete
    crashing = HashEncoder(marker=str(tmp_path / "crashed"), fail_on=corpus_texts(docs).texts[3 * 64 + 5])
    with pytest.raises(SoundingError, match="simulated encoder crash"):
        encode_corpus_ray(docs, crashing, tmp_path / "v", chunk_size=64, num_actors=1)
    (folder,) = (tmp_path / "v").glob("*/*")
    store = VectorStore(folder)
    assert not store.complete and not store.chunk_file(3).is_file()
    done = [i for i in range(5) if store.chunk_file(i).is_file()]
    assert not list(folder.glob(".*.tmp-*"))
    # 2. rerun: only the missing chunks are encoded, the bytes are the one-process bytes
    rep = encode_corpus_ray(docs, HashEncoder(), tmp_path / "v", chunk_size=64, num_actors=1)
    assert rep.resumed_from == sum(rows[i] for i in done) and rep.encoded == 300 - rep.resumed_from
    assert rep.backend["chunks"] == 5 - len(done) and rep.store.complete
    assert folder_files(folder) == folder_files(reference)
    # 3. holes and no manifest (chunks 1 and 4 lost, the job killed before its last step): 2 chunks redone
    for f in (store.chunk_file(1), store.chunk_file(4), folder / "manifest.json"):
        f.unlink()
    rep = encode_corpus_ray(docs, HashEncoder(), tmp_path / "v", chunk_size=64, num_actors=1)
    assert rep.encoded == 64 + 44 and rep.backend["chunks"] == 2
    assert folder_files(folder) == folder_files(reference)
    assert manifest_without_times(folder) == manifest_without_times(reference)


def test_ray_sparse_encoding_writes_the_local_impact_index(ray_local, corpus, tmp_path):
    pytest.importorskip("pyarrow", reason="Ray Data needs pyarrow (pip install 'sounding[scale]')")
    from sounding.scale.ray_backend import build_impact_index_ray
    from sounding.retrieval.sparse import build_impact_index

    local = build_impact_index(corpus[:300], HashSparse(), tmp_path / "local", chunk_size=64)
    on_ray = build_impact_index_ray(corpus[:300], HashSparse(), tmp_path / "ray", chunk_size=64, num_actors=1)
    assert on_ray.path.relative_to(tmp_path / "ray") == local.path.relative_to(tmp_path / "local")
    assert folder_files(on_ray.path) == folder_files(local.path) and len(folder_files(local.path)) == 5
    assert manifest_without_times(on_ray.path) == manifest_without_times(local.path)
    assert not list((tmp_path / "ray").rglob("*.chunks"))  # chunks removed once the postings are written
