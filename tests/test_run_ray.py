"""`sounding run --ray`: the harness grid on Ray writes the run files of the one-process run, byte for
byte; what a sharded search cannot reproduce is refused; without Ray, one line says how to install it.

The Ray tests share one local instance (2 CPUs) and skip, saying why, without Ray.
"""
from __future__ import annotations

import json
import random
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest

from sounding.cli import main
from sounding.datasets import Document
from sounding.retrieval.dense.encoders import Encoder
from sounding.errors import SoundingError
from sounding.eval import write_run
from sounding.experiment import run_experiment
from sounding.index import build_index
from sounding.scale import ShardedSearcher, build_shards
from sounding.retrieval.search import Searcher

GRID = {"layouts": ["flat", "multifield"], "params": ["anserini", "lucene"], "hits": 100}


# -- a tiny BEIR dataset: skewed vocabulary (many ties), non-ASCII ids, a query id that is a doc id --
def tiny_corpus(n: int = 600, seed: int = 11) -> list[Document]:
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(200)] + ["café", "東京", "straße"]
    weights = [1.0 / (i + 1) ** 1.1 for i in range(len(words))]
    prefixes = ["d", "D", "é", "日本", "a-"]
    return [Document(f"{prefixes[i % len(prefixes)]}{i}", " ".join(rng.choices(words, weights, k=rng.randint(0, 4))),
                     " ".join(rng.choices(words, weights, k=rng.randint(1, 30))), i + 1) for i in range(n)]


def tiny_queries(n: int = 40, seed: int = 12) -> dict[str, str]:
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(200)] + ["café"]
    queries = {f"q{i}": " ".join(rng.choices(words, k=rng.randint(1, 5))) for i in range(n)}
    queries["d5"] = "w3 w5 café"  # its own document is in the corpus: the BEIR own-hit convention applies
    return queries


def write_beir(root: Path) -> Path:
    docs, queries = tiny_corpus(), tiny_queries()
    rng = random.Random(13)
    root.mkdir(parents=True)
    with open(root / "corpus.jsonl", "w", encoding="utf-8") as f:
        f.writelines(json.dumps({"_id": d.id, "title": d.title, "text": d.text}, ensure_ascii=False) + "\n" for d in docs)
    with open(root / "queries.jsonl", "w", encoding="utf-8") as f:
        f.writelines(json.dumps({"_id": q, "text": text}) + "\n" for q, text in queries.items())
    (root / "qrels").mkdir()
    lines = ["query-id\tcorpus-id\tscore"] + [f"{q}\t{d.id}\t{rng.randint(0, 2)}"
                                              for q in queries for d in rng.sample(docs, 5)]
    (root / "qrels" / "test.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def beir(tmp_path_factory) -> Path:
    return write_beir(tmp_path_factory.mktemp("data") / "tiny")


def run_files(out: Path, rows: list[dict]) -> dict[str, bytes]:
    return {r["setting"]: (out / r["run_file"]).read_bytes() for r in rows}


def trigrams(texts: list[str], dim: int = 32) -> np.ndarray:
    out = np.zeros((len(texts), dim), np.float32)
    for i, t in enumerate(texts):
        t = f"  {t.lower()} "
        for j in range(len(t) - 2):
            out[i, zlib.crc32(t[j:j + 3].encode()) % dim] += 1.0
    return out


class TrigramEncoder(Encoder):
    """A deterministic stand-in for a dense model (hashed character trigrams, 32 dimensions)."""

    backend, name, dim, batch_size = "fake", "fake-trigram", 32, 16

    def _encode_batch(self, texts, kind):
        return trigrams(texts, self.dim)


class TrigramSparse:
    """A stand-in for SparseModel: the trigram counts as term weights (vocabulary of 32)."""

    name, slug, model_id, model_key = "fake-sparse", "fake-sparse", "fake-sparse/1", "s" * 64
    vocab_size, provenance, load_args = 32, "", None

    def __init__(self, name: str = "", **kwargs):
        pass

    def encode(self, texts, kind="passage", batch_size=None, progress=False):
        import scipy.sparse as sp

        from sounding.retrieval.sparse import SparseVectors

        m = sp.csr_matrix(trigrams(list(texts)))
        return SparseVectors(m.indptr.astype(np.int64), m.indices.astype(np.int32), m.data.astype(np.float32))


# -- without Ray -----------------------------------------------------------------------------------
def test_sharded_search_does_anserini_ties_exactly(tmp_path):
    """The harness's --lucene-norms settings use Anserini's tie handling; on shards it runs after the merge."""
    docs, queries = tiny_corpus(), tiny_queries()
    build_index(docs, tmp_path / "one")
    build_shards(docs, tmp_path / "three", 3)
    single, sharded = Searcher(tmp_path / "one"), ShardedSearcher(tmp_path / "three")
    for layout in ("flat", "multifield", "multifield-max"):
        for k in (7, 100):  # a small k cuts through ties
            kw = {"layout": layout, "k": k, "k1": 1.2, "b": 0.75, "lucene_norms": True, "anserini_ties": True}
            write_run(single.search(queries, **kw).to_run(), tmp_path / "a.run")
            write_run(sharded.search(queries, **kw).to_run(), tmp_path / "b.run")
            a, b = (tmp_path / "a.run").read_bytes(), (tmp_path / "b.run").read_bytes()
            assert a == b, f"{layout} k={k}: run files differ"
    with pytest.raises(SoundingError, match="proximity is not available on a sharded index"):
        sharded.search(queries, proximity=0.05)
    with pytest.raises(SoundingError, match="typos is not available on a sharded index"):
        sharded.search(queries, typos=True)


def test_ray_flag_without_ray_installed_is_one_line(beir, tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` now fails as if it were not installed
    with pytest.raises(SoundingError, match=r"pip install -e '\.\[scale\]'"):
        run_experiment([str(beir)], tmp_path / "out", ray="local", log=lambda m: None)
    code = main(["run", str(beir), "--out", str(tmp_path / "out"), "--ray", "auto"])
    err = capsys.readouterr().err
    assert code == 2 and "Ray is not installed" in err and ".[scale]" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) <= 3  # one message (rich may wrap it)
    assert not (tmp_path / "out" / "indexes").exists()  # refused before any work


@pytest.mark.parametrize("kwargs,message", [
    ({"shards": 3}, "give --ray"),
    ({"ray": "local", "variants": ["proximity"]}, "proximity variant(s) cannot run on a sharded index"),
    ({"ray": "local", "variants": ["typos"]}, "typos variant(s) cannot run on a sharded index"),
])
def test_what_ray_cannot_run_exactly_is_refused(beir, tmp_path, kwargs, message):
    with pytest.raises(SoundingError, match=message.replace("(", r"\(").replace(")", r"\)")):
        run_experiment([str(beir)], tmp_path / "out", log=lambda m: None, **kwargs)


# -- on Ray ----------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def ray_local():
    """One local Ray (2 CPUs) for the module; `run_experiment(ray="local")` joins it instead of starting one."""
    ray = pytest.importorskip("ray", reason="Ray is not installed (pip install -e '.[scale]')")
    from ray import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the fake encoder goes to Ray workers by value
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield ray
    finally:
        ray.shutdown()


@pytest.mark.parametrize("lucene_norms", [False, True], ids=["plain", "lucene-norms"])
def test_run_on_ray_writes_the_same_run_files(ray_local, beir, tmp_path_factory, lucene_norms):
    base = tmp_path_factory.getbasetemp()
    local_out, ray_out = base / "out-local", base / "out-ray"  # shared by both cases: the indexes are reused
    logs: list[str] = []
    norms = "lucene" if lucene_norms else "exact"
    local = run_experiment([str(beir)], local_out, norms=norms, log=lambda m: None, **GRID)
    on_ray = run_experiment([str(beir)], ray_out, norms=norms, ray="local", shards=3, log=logs.append, **GRID)

    assert [r["setting"] for r in on_ray.to_dicts()] == [r["setting"] for r in local.to_dicts()] and len(local.to_dicts()) == 4
    assert all(r["lucene_norms"] == lucene_norms for r in local.to_dicts())
    assert run_files(ray_out, on_ray.to_dicts()) == run_files(local_out, local.to_dicts())  # byte for byte
    for a, b in zip(local.to_dicts(), on_ray.to_dicts()):
        assert a["metrics"] == b["metrics"] and a["crosscheck"]["ok"] and b["crosscheck"]["ok"]
        assert "ray" not in a and b["ray"] == {"address": "local", "shards": 3, "cluster_cpus": 2,
                                               "ray_version": ray_local.__version__}
    assert json.loads((ray_out / "run.json").read_text())["ray"]["shards"] == 3
    assert "ray" not in json.loads((local_out / "run.json").read_text())
    (index,) = (ray_out / "indexes").iterdir()  # the sharded index, beside where a one-process one would be
    assert index.name.endswith("-3shards") and (index / "shards.json").is_file()
    assert ray_local.is_initialized()  # the run joined the test's Ray and left it running
    if not lucene_norms:
        assert any("3 shards on Ray" in m for m in logs)
        logs.clear()
        again = run_experiment([str(beir)], ray_out, norms="exact", ray="local", shards=3, log=logs.append, **GRID)
        assert [{**r, "reused": False} for r in again.to_dicts()] == on_ray.to_dicts()
        assert not [m for m in logs if m.startswith(("indexing", "tiny: sounding"))]  # nothing computed again


def test_dense_arm_encodes_on_ray_into_the_same_store(ray_local, beir, tmp_path, monkeypatch):
    """--ray: the dense arm's vectors and the sparse arm's chunks come from Ray Data jobs (after the
    BM25 setting's shard actors, which hold both CPUs, are stopped); the vector store's files and the
    BM25, dense, hybrid and sparse run files are the one-process run's, byte for byte; a run without
    Ray then finds those vectors."""
    pytest.importorskip("pyarrow", reason="Ray Data needs pyarrow (pip install 'sounding[scale]')")
    import sounding.retrieval.sparse
    from sounding.retrieval import arms

    monkeypatch.setattr(arms, "_encoder", lambda model, caches: TrigramEncoder())
    monkeypatch.setattr(sounding.retrieval.sparse, "SparseModel", TrigramSparse)
    grid = {"arms": ["bm25", "dense", "hybrid", "sparse"], "models": ["fake-trigram", "fake-sparse"],
            "layouts": ["flat"], "params": ["anserini"], "norms": "exact", "hits": 100}
    logs: list[str] = []
    local = run_experiment([str(beir)], tmp_path / "local", log=lambda m: None, **grid)
    on_ray = run_experiment([str(beir)], tmp_path / "ray", ray="local", shards=2, log=logs.append, **grid)

    names = [r["setting"] for r in local.to_dicts()]
    assert names == [r["setting"] for r in on_ray.to_dicts()] and len(names) == 6  # bm25, dense, 3 fusions, sparse
    assert run_files(tmp_path / "ray", on_ray.to_dicts()) == run_files(tmp_path / "local", local.to_dicts())
    dense_local, dense_ray = local.to_dicts()[1], on_ray.to_dicts()[1]
    assert dense_ray["encoded_now"] == dense_local["encoded_now"] == 600 and dense_ray["metrics"] == dense_local["metrics"]
    assert dense_ray["encode_ray"] == {"actors": 1, "gpus_per_actor": 0, "chunks": 1} and "encode_ray" not in dense_local
    assert any("on Ray" in m and "encoding 600 documents" in m for m in logs)
    assert any("on Ray" in m and ".chunks" in m for m in logs)  # the sparse arm's chunks
    assert on_ray.to_dicts()[5]["metrics"] == local.to_dicts()[5]["metrics"] and on_ray.to_dicts()[5]["index_bytes_sparse"] > 0
    (store_local,) = (tmp_path / "local" / "vectors").glob("*/*")
    (store_ray,) = (tmp_path / "ray" / "vectors").glob("*/*")
    assert store_ray.relative_to(tmp_path / "ray") == store_local.relative_to(tmp_path / "local")
    files = {p.name: p.read_bytes() for p in store_ray.iterdir() if p.name != "manifest.json"}
    assert files == {p.name: p.read_bytes() for p in store_local.iterdir() if p.name != "manifest.json"}
    assert set(files) == {"docids.txt", "chunk-000000.npy"}
    # a run without Ray into the Ray run's folder: other rows (its own index), the same vectors, nothing encoded
    again = run_experiment([str(beir)], tmp_path / "ray", log=lambda m: None, **{**grid, "arms": ["dense"]})
    assert again.to_dicts()[0]["encoded_now"] == 0
    assert (tmp_path / "ray" / again.to_dicts()[0]["run_file"]).read_bytes() == run_files(tmp_path / "local", local.to_dicts())[names[1]]
