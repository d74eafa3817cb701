"""Dense speed: Sounding's encoders against calling the same model directly, and exact search QPS.

    python benchmarks/dense_speed.py [--texts 256] [--docs 100000] [--queries 1000] [--hnsw] [--out bench-out/dense_speed.json]

1. Encoding throughput (texts/s) on the first N SciFact passages (title + text), batch 32, in the same
   process, alternating direct / Sounding runs (best of R rounds each, after a warm-up batch):
   - sentence-transformers all-MiniLM-L6-v2: `SentenceTransformer.encode(texts, batch_size=32)` vs
     `sounding.dense.load_encoder(...).encode(texts)`;
   - onnxruntime int8 MiniLM: the docs/models.md snippet (tokenize, run, mean-pool, normalise per batch of
     32, input order) vs Sounding's OnnxEncoder (same steps, batches sorted by length).
   The ratio Sounding / direct should be ≥ 0.9.
2. Exact search over D random unit vectors (384-d) for Q queries, top 1,000: Sounding's ExactIndex
   (1 and 2 threads) vs plain numpy (full matmul, argsort each row) — queries/s and agreement.
3. Optional (--hnsw): usearch HNSW over the same vectors, recall@1000 against exact.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def scifact_texts(n: int) -> list[str]:
    from sounding.datasets import load_dataset
    from sounding.retrieval.dense import doc_text

    data_dir = os.environ.get("SOUNDING_DATA") or str(Path(__file__).resolve().parents[2] / "shared" / "datasets")
    try:
        ds = load_dataset("scifact", data_dir=data_dir)
        out = []
        for d in ds.corpus():
            out.append(doc_text(d.title, d.text))
            if len(out) == n:
                break
        return out
    except Exception as e:  # no data: synthetic passages of ~150 words
        print(f"(scifact not available: {e}; using synthetic passages)", file=sys.stderr)
        rng = np.random.default_rng(0)
        words = "protein cell gene study patients results effect clinical trial risk model data analysis".split()
        return [" ".join(rng.choice(words, size=int(rng.integers(60, 220)))) for _ in range(n)]


def best_of(fn, rounds: int) -> float:
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def bench_encoders(n: int, rounds: int) -> list[dict]:
    from sounding.retrieval.dense import load_encoder

    texts = scifact_texts(n)
    rows = []
    # sentence-transformers
    st = load_encoder("sentence-transformers/all-MiniLM-L6-v2")
    model = st.model
    model.encode(texts[:32], batch_size=32)
    st.encode(texts[:32])
    direct_t, ours_t = [], []
    for _ in range(rounds):  # alternate: machine load drifts
        direct_t.append(best_of(lambda: model.encode(texts, batch_size=32, normalize_embeddings=True), 1))
        ours_t.append(best_of(lambda: st.encode(texts, batch_size=32), 1))
    a = model.encode(texts[:64], batch_size=32, normalize_embeddings=True)
    b = st.encode(texts[:64])
    rows.append({"encoder": "st all-MiniLM-L6-v2 fp32", "texts": n, "direct_texts_per_s": n / min(direct_t),
                 "sounding_texts_per_s": n / min(ours_t), "ratio": min(direct_t) / min(ours_t),
                 "max_abs_diff": float(np.abs(a - b).max())})
    # onnxruntime int8
    onnx = load_encoder("all-MiniLM-L6-v2-int8")
    sess, tok = onnx.session, onnx.tokenizer

    def direct_onnx(batch):
        enc = tok.encode_batch(batch)
        ids = np.array([x.ids for x in enc], np.int64)
        am = np.array([x.attention_mask for x in enc], np.int64)
        h = sess.run(None, {"input_ids": ids, "attention_mask": am, "token_type_ids": np.zeros_like(ids)})[0]
        e = (h * am[..., None]).sum(1) / am.sum(1, keepdims=True)
        return e / np.linalg.norm(e, axis=1, keepdims=True)

    def direct_all():
        return np.vstack([direct_onnx(texts[i:i + 32]) for i in range(0, n, 32)])

    direct_onnx(texts[:32])
    onnx.encode(texts[:32])
    direct_t, ours_t = [], []
    for _ in range(rounds):
        direct_t.append(best_of(direct_all, 1))
        ours_t.append(best_of(lambda: onnx.encode(texts, batch_size=32), 1))
    rows.append({"encoder": "onnxruntime all-MiniLM-L6-v2 int8", "texts": n, "direct_texts_per_s": n / min(direct_t),
                 "sounding_texts_per_s": n / min(ours_t), "ratio": min(direct_t) / min(ours_t),
                 "max_abs_diff": float(np.abs(direct_all()[:64] - onnx.encode(texts[:64])).max())})
    return rows


def bench_search(n_docs: int, n_queries: int, dim: int, k: int, hnsw: bool) -> dict:
    from sounding.retrieval.dense.encoders import l2_normalize
    from sounding.retrieval.dense.search import ExactIndex, HNSWIndex, numpy_baseline, recall_against

    rng = np.random.default_rng(0)
    M = l2_normalize(rng.standard_normal((n_docs, dim), dtype=np.float32))
    Q = l2_normalize(rng.standard_normal((n_queries, dim), dtype=np.float32))
    ids = [f"d{i}" for i in range(n_docs)]
    qids = [f"q{i}" for i in range(n_queries)]
    ix = ExactIndex(M, ids)
    ix.search_vectors(Q[:40], qids[:40], k=k)  # compile / warm
    out: dict = {"docs": n_docs, "queries": n_queries, "dim": dim, "k": k}
    for t in (1, 2):
        res = ix.search_vectors(Q, qids, k=k, threads=t)
        out[f"sounding_qps_{t}_threads"] = n_queries / res.seconds
    t0 = time.perf_counter()
    order, _ = numpy_baseline(M, Q, k)
    base = time.perf_counter() - t0
    out["numpy_qps"] = n_queries / base
    top = res.docs[:, :10]
    out["top10_agreement_with_numpy"] = float(np.mean([len(set(top[i]) & set(order[i, :10])) / 10 for i in range(n_queries)]))
    out["speedup_2_threads"] = out["sounding_qps_2_threads"] / out["numpy_qps"]
    if hnsw:
        h = HNSWIndex(M, ids, threads=2)
        approx = h.search_vectors(Q, qids, k=k, threads=2)
        out["hnsw"] = {"backend": h.backend, "build_seconds": h.build_seconds, "qps": n_queries / approx.seconds,
                       f"recall@{k}": recall_against(res, approx)}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--texts", type=int, default=256)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--docs", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--dim", type=int, default=384)
    ap.add_argument("--k", type=int, default=1000)
    ap.add_argument("--hnsw", action="store_true")
    ap.add_argument("--skip-encoders", action="store_true")
    ap.add_argument("--skip-search", action="store_true")
    ap.add_argument("--out", type=Path, default=Path("bench-out/dense_speed.json"))
    a = ap.parse_args()
    import torch

    result: dict = {"machine": {"cpu": platform.processor() or platform.machine(), "cores": os.cpu_count(),
                                "torch_threads": torch.get_num_threads(), "load_avg": os.getloadavg()},
                    "created": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
    if not a.skip_encoders:
        result["encoding"] = bench_encoders(a.texts, a.rounds)
        for r in result["encoding"]:
            print(f"{r['encoder']:38s} direct {r['direct_texts_per_s']:7.1f}/s  sounding {r['sounding_texts_per_s']:7.1f}/s"
                  f"  ratio {r['ratio']:.3f}  max|Δ| {r['max_abs_diff']:.1e}")
    if not a.skip_search:
        s = bench_search(a.docs, a.queries, a.dim, a.k, a.hnsw)
        result["search"] = s
        print(f"exact search {s['docs']:,}×{s['dim']}, {s['queries']:,} queries, top {s['k']}: "
              f"sounding {s['sounding_qps_1_threads']:.0f} q/s (1 thread), {s['sounding_qps_2_threads']:.0f} q/s (2); "
              f"numpy matmul+argsort {s['numpy_qps']:.0f} q/s; top-10 agreement {s['top10_agreement_with_numpy']:.3f}")
        if "hnsw" in s:
            print(f"hnsw: {s['hnsw']}")
    result["machine"]["load_avg_end"] = os.getloadavg()
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
