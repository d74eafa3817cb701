"""Non-BM25 arms of `sounding run`: dense, hybrid (fusion with BM25), learned sparse, rerank.

Each arm is a built-in retriever or stage of `sounding.retrievers` (DenseRetriever, SparseRetriever,
Fusion, Rerank) run with the experiment's caches; fusion and rerank take the BM25 run the grid made.
The experiment calls `arm_settings(arms, models)` to extend its settings grid and `run_arm(setting,
dataset, ctx)` per dataset × setting; rows get the returned `extra` (model name and provenance,
encode seconds, vector bytes, …). Everything a model produces is cached under the experiment's out
folder, keyed by model and corpus content: `OUT/vectors/` (dense), `OUT/sparse/` (impact indexes),
`OUT/rerank-cache.sqlite` (reranker scores). A rerun encodes nothing.

    dense    exact search over the model's document vectors           params ""
    hybrid   BM25 (flat, Anserini 0.9/0.4) fused with dense           params wrrf | rrf | linear0.5 (any fusion.parse_method name)
    sparse   splade-tiny impact index                                 params "u8"
    rerank   BM25 top-100 rescored (cross-encoder when the model is one, else the bi-encoder)   params top100
"""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ..errors import SoundingError
from ..retrievers.dense import DEFAULT_DENSE
from ..retrievers.sparse import DEFAULT_SPARSE
from ..types import Run
from .settings import Setting

ARMS: dict[str, str] = {
    "dense": "exact dense retrieval (default all-MiniLM-L6-v2)",
    "hybrid": "BM25 + dense fusion: weighted RRF (k=10, semantic ratio 0.75), RRF (k=60), linear α=0.5",
    "sparse": "learned sparse impacts (default splade-tiny)",
    "rerank": "rerank BM25's top-100 (bi-encoder by default; a cross-encoder when --model is one)",
}

HYBRID_METHODS = ("wrrf", "rrf", "linear0.5")
RERANK_DEPTH = 100


@dataclass
class ArmContext:
    out: Path
    k: int
    threads: int
    bm25_run: Callable[[], Run]
    batch_size: int | None = None
    progress: bool = field(default_factory=lambda: sys.stderr.isatty())  # rich bars for long encodes
    log: Callable[[str], None] | None = None
    ray: object | None = None  # `sounding run --ray`: the RayGrid; corpus encoding runs as Ray Data jobs
    device: str = "auto"  # where models run: auto, cpu, cuda, mps (dense/device.py)


@dataclass
class ArmResult:
    run: Run
    seconds: float
    extra: dict = field(default_factory=dict)


def arm_settings(arms: list[str], models: list[str]) -> list[Setting]:
    """Settings for the requested arms. `models` (from --model) are routed by kind: dense models to
    dense/hybrid/rerank, sparse models to sparse, cross-encoders to rerank; an arm with no model of
    its kind gets its default."""
    from ..dense.encoders import model_kind

    unknown = [a for a in arms if a not in ARMS]
    if unknown:
        raise SoundingError(f"unknown arm {', '.join(unknown)}; choose from: bm25, {', '.join(ARMS)}")
    kinds = {m: model_kind(m) for m in models}
    dense = [m for m in models if kinds[m] == "dense"] or [DEFAULT_DENSE]
    sparse = [m for m in models if kinds[m] == "sparse"] or [DEFAULT_SPARSE]
    rerankers = [m for m in models if kinds[m] == "cross-encoder"] + [m for m in models if kinds[m] == "dense"]
    rerankers = rerankers or [DEFAULT_DENSE]
    out: list[Setting] = []
    for arm in arms:
        if arm == "dense":
            out += [Setting(engine="sounding", arm="dense", layout="", params="", model=m) for m in dense]
        elif arm == "hybrid":
            out += [Setting(engine="sounding", arm="hybrid", layout="", params=p, model=m)
                    for m in dense for p in HYBRID_METHODS]
        elif arm == "sparse":
            out += [Setting(engine="sounding", arm="sparse", layout="", params="u8", model=m) for m in sparse]
        elif arm == "rerank":
            out += [Setting(engine="sounding", arm="rerank", layout="", params=f"top{RERANK_DEPTH}", model=m)
                    for m in rerankers]
    return out


# -- per process memo: the dense run of (dataset, model, k) is shared by the dense and hybrid arms ----
_DENSE_MEMO: dict[tuple, tuple[Run, float, dict]] = {}
_ENCODERS: dict[str, object] = {}


def _encoder(model: str, ctx: ArmContext):
    from ..dense import load_encoder

    if (model, ctx.device) not in _ENCODERS:
        _ENCODERS.clear()  # one model in memory at a time
        _ENCODERS[(model, ctx.device)] = load_encoder(model, batch_size=ctx.batch_size, device=ctx.device)
    return _ENCODERS[(model, ctx.device)]


def _dense_run(setting: Setting, ds, ctx: ArmContext) -> tuple[Run, float, dict]:
    from ..dense import corpus_texts
    from ..retrievers import DenseRetriever

    key = (ds.name, str(ds.corpus_path), setting.model, ctx.k, str(ctx.out), ctx.device)
    if key in _DENSE_MEMO:
        return _DENSE_MEMO[key]
    def on_ray(ct, enc, root):  # a Ray Data job writes the same store (files) as encode_corpus
        return ctx.ray.encode_vectors(ct, enc, root, batch_size=ctx.batch_size, log=ctx.log, use_gpus=ctx.device != "cpu")

    dense = DenseRetriever(_encoder(setting.model or DEFAULT_DENSE, ctx), store=Path(ctx.out) / "vectors",
                           batch_size=ctx.batch_size, threads=ctx.threads, progress=ctx.progress, log=ctx.log,
                           encode=on_ray if ctx.ray is not None else None, device=ctx.device)
    dense.index(corpus_texts(ds))
    res = dense.search(ds.queries, ctx.k)
    extra = dense.details()
    extra.update({"query_encode_seconds": res.settings.get("query_encode_seconds"),
                  "search_only_seconds": res.settings.get("search_seconds")})
    store = dense.report.store.path
    extra["vectors"] = str(store.relative_to(ctx.out)) if store.is_relative_to(ctx.out) else str(store)
    out = (res.to_run(), res.seconds, extra)
    _DENSE_MEMO[key] = out
    return out


def _model_note(name: str, provenance: str) -> dict:
    return {"name": name, "provenance": provenance}


def _device_of(scorer) -> str:
    """Where a reranker's model ran: a cross-encoder's own device, a bi-encoder's encoder's."""
    return getattr(scorer, "device", None) or getattr(getattr(scorer, "encoder", None), "device", "cpu")


def run_arm(setting: Setting, dataset, ctx: ArmContext) -> ArmResult:
    """One arm's run on one dataset: the built-in retrievers and stages of `sounding.retrievers`, with the
    experiment's caches (OUT/vectors, OUT/sparse, OUT/rerank-cache.sqlite) and its BM25 run as first stage."""
    if setting.arm == "dense":
        run, seconds, extra = _dense_run(setting, dataset, ctx)
        return ArmResult(run, seconds, dict(extra))
    if setting.arm == "hybrid":
        from ..retrievers import Fusion

        dense, dense_seconds, dextra = _dense_run(setting, dataset, ctx)
        stage = Fusion(setting.params or "wrrf")
        t0 = time.perf_counter()
        lexical = ctx.bm25_run()
        bm25_seconds = time.perf_counter() - t0
        t1 = time.perf_counter()
        fused = stage.apply(dataset.queries, [lexical, dense], ctx.k)
        fuse_seconds = time.perf_counter() - t1
        extra = {"model": dextra["model"], "fusion": stage.method, "lexical": "bm25 flat k1=0.9 b=0.4",
                 "dense_seconds": dense_seconds, "bm25_seconds": bm25_seconds, "fuse_seconds": fuse_seconds,
                 "encode_seconds": dextra["encode_seconds"], "vectors_bytes": dextra["vectors_bytes"]}
        return ArmResult(fused, dense_seconds + bm25_seconds + fuse_seconds, extra)
    if setting.arm == "sparse":
        from ..dense import corpus_texts
        from ..retrievers import SparseRetriever

        def on_ray(ct, model, root, bits):  # the chunks encoded by a Ray Data job; the postings built here
            return ctx.ray.build_impacts(ct, model, root, bits=bits, log=ctx.log)

        sparse = SparseRetriever(setting.model or DEFAULT_SPARSE, bits=16 if setting.params == "u16" else 8,
                                 store=Path(ctx.out) / "sparse", batch_size=ctx.batch_size, threads=ctx.threads,
                                 progress=ctx.progress, log=ctx.log,
                                 build=on_ray if ctx.ray is not None else None, device=ctx.device)
        sparse.index(corpus_texts(dataset))
        res = sparse.search(dataset.queries, ctx.k)
        extra = sparse.details()
        extra["query_encode_seconds"] = res.settings.get("query_encode_seconds")
        return ArmResult(res.to_run(), res.seconds, extra)
    if setting.arm == "rerank":
        from ..dense import corpus_texts, find_store
        from ..dense.encoders import model_kind
        from ..rerank import BiEncoderScorer, CrossEncoderScorer, passage_vectors_from_store
        from ..retrievers import Rerank

        model = setting.model or DEFAULT_DENSE
        depth = int(setting.params[3:]) if setting.params.startswith("top") and setting.params[3:].isdigit() else RERANK_DEPTH
        ct = corpus_texts(dataset)
        if model_kind(model) == "cross-encoder":
            scorer = CrossEncoderScorer(model, device=ctx.device)
        else:  # the dense arm's stored vectors, when present, spare a second encoding of the corpus
            enc = _encoder(model, ctx)
            store = find_store(Path(ctx.out) / "vectors", enc, ct)
            scorer = BiEncoderScorer(enc, passage_vectors_from_store(store, ct.ids, ct.texts) if store else None)
        stage = Rerank(scorer, depth, cache=Path(ctx.out) / "rerank-cache.sqlite", batch_size=ctx.batch_size or 32,
                       progress=ctx.progress)
        stage.index(ct)
        t0 = time.perf_counter()
        run = stage.apply(dataset.queries, [ctx.bm25_run()], ctx.k)
        res = stage.last
        if ctx.log:
            ctx.log(f"{dataset.name}: {res.summary()}")
        extra = {"model": {**_model_note(scorer.name, scorer.provenance + (
            "" if scorer.kind == "cross-encoder" else " Used here as a bi-encoder reranker (no trained "
            "cross-encoder ships offline).")), "device": _device_of(scorer)}, "reranker": scorer.kind, "first_stage": "bm25 flat k1=0.9 b=0.4",
            "rerank_depth": depth, "new_pairs": res.new_pairs, "cached_pairs": res.cached_pairs}
        return ArmResult(run, time.perf_counter() - t0, extra)
    raise SoundingError(f"unknown arm {setting.arm!r}; choose from: {', '.join(ARMS)}")


__all__ = ["ARMS", "ArmContext", "ArmResult", "arm_settings", "run_arm", "DEFAULT_DENSE", "DEFAULT_SPARSE"]
