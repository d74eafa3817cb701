"""Stored document vectors, keyed by (model, corpus content), written in resumable chunks.

    ROOT/<model-slug>-<model key[:12]>/<corpus hash[:16]>/
        manifest.json            format, model id, dim, dtype, count, normalisation, chunk size, complete
        docids.txt               external ids in corpus order (row i of the matrix)
        chunk-000000.npy         rows 0..1023 (float32 | float16 | int8)
        chunk-000000.scale.npy   int8 only: per-row float32 scale (v ≈ int8 · scale), written before the rows
        ...

Encoding writes one chunk at a time (temp file, then os.replace), so a chunk file that exists is
complete. An interrupted encode resumes by encoding only the chunks whose file is missing (in one
process they are the last ones; a Ray Data job, `sounding.scale.ray_backend.encode_corpus_ray`,
writes them in any order, with the same bytes). The manifest is marked complete last, after every
chunk has been checked. It records the encoder's `model_id`; opening vectors with a different
model or dimension is a SoundingError, never silently wrong scores.
"""
from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Iterator

import numpy as np

from ...errors import SoundingError
from ...io import atomic_file, atomic_write

FORMAT_NAME = "sounding-vectors"
FORMAT_VERSION = 1
DTYPES = ("float32", "float16", "int8")
DEFAULT_CHUNK = 1024


# -- corpus handling --------------------------------------------------------------------------------
@dataclass
class CorpusText:
    """Document ids, the texts an encoder sees, and a content hash (ids, titles and texts)."""

    ids: list[str]
    texts: list[str]
    sha256: str


def corpus_texts(corpus) -> CorpusText:
    """From a Dataset, a corpus file path, or an iterable of Documents / (id, title, text) / (id, text)."""
    from .encoders import doc_text

    docs = iter_docs(corpus)
    h = hashlib.sha256()
    ids, texts = [], []
    for doc_id, title, text in docs:
        for part in (doc_id, title, text):
            h.update(part.encode("utf-8", "surrogatepass"))
            h.update(b"\x00")
        ids.append(doc_id)
        texts.append(doc_text(title, text))
    if len(set(ids)) != len(ids):
        seen, dup = set(), None
        for i in ids:
            if i in seen:
                dup = i
                break
            seen.add(i)
        raise SoundingError(f"corpus has a duplicate document id {dup!r}")
    return CorpusText(ids, texts, h.hexdigest())


def iter_docs(corpus) -> Iterator[tuple[str, str, str]]:
    from ...datasets import Dataset, iter_corpus

    if isinstance(corpus, Dataset):
        src: Iterable = corpus.corpus()
    elif isinstance(corpus, (str, os.PathLike)):
        src = iter_corpus(corpus)
    else:
        src = corpus
    for d in src:
        if hasattr(d, "id") and hasattr(d, "text"):
            yield str(d.id), str(getattr(d, "title", "") or ""), str(d.text or "")
        elif isinstance(d, (tuple, list)) and len(d) == 3:
            yield str(d[0]), str(d[1] or ""), str(d[2] or "")
        elif isinstance(d, (tuple, list)) and len(d) == 2:
            yield str(d[0]), "", str(d[1] or "")
        else:
            raise SoundingError(f"cannot read a document from {type(d).__name__}: expected a Document, "
                                f"(id, title, text) or (id, text)")


# -- the store --------------------------------------------------------------------------------------
def store_dir(root: str | Path, model_slug: str, model_key: str, corpus_sha: str, dtype: str = "float32") -> Path:
    suffix = "" if dtype == "float32" else f"-{dtype}"
    return Path(root) / f"{model_slug or 'model'}-{model_key[:12]}" / f"{corpus_sha[:16]}{suffix}"


class VectorStore:
    """A folder of chunked vectors (see the module docstring); `matrix()` returns float32 rows."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        mf = self.path / "manifest.json"
        if not mf.is_file():
            raise SoundingError(f"{self.path}: no vectors here (manifest.json missing); run `sounding encode` first")
        try:
            self.manifest = json.loads(mf.read_text())
        except json.JSONDecodeError as e:
            raise SoundingError(f"{mf}: unreadable manifest ({e})") from e
        if self.manifest.get("format") != FORMAT_NAME or self.manifest.get("version") != FORMAT_VERSION:
            raise SoundingError(f"{mf}: not {FORMAT_NAME} version {FORMAT_VERSION}; re-encode into a new folder")
        self._ids: list[str] | None = None

    # manifest fields
    @property
    def model_id(self) -> str:
        return self.manifest["model_id"]

    @property
    def model_name(self) -> str:
        return self.manifest.get("model", "")

    @property
    def dim(self) -> int:
        return int(self.manifest["dim"])

    @property
    def dtype(self) -> str:
        return self.manifest["dtype"]

    @property
    def count(self) -> int:
        return int(self.manifest["count"])

    @property
    def complete(self) -> bool:
        return bool(self.manifest.get("complete"))

    @property
    def normalized(self) -> bool:
        return bool(self.manifest.get("normalized"))

    @property
    def similarity(self) -> str:
        return self.manifest.get("similarity", "cosine")

    @property
    def chunk_size(self) -> int:
        return int(self.manifest["chunk_size"])

    @property
    def n_chunks(self) -> int:
        return -(-self.count // self.chunk_size) if self.count else 0

    @property
    def ids(self) -> list[str]:
        if self._ids is None:
            self._ids = (self.path / "docids.txt").read_text(encoding="utf-8").split("\n")[:-1] if self.count else []
            if len(self._ids) != self.count:
                raise SoundingError(f"{self.path}/docids.txt holds {len(self._ids)} ids, manifest says {self.count}")
        return self._ids

    def chunk_file(self, i: int) -> Path:
        return self.path / f"chunk-{i:06d}.npy"

    def complete_chunks(self) -> int:
        """How many chunks from the first are on disk (each file is complete: written then renamed)."""
        n = 0
        while n < self.n_chunks and self.chunk_file(n).is_file():
            n += 1
        return n

    @property
    def nbytes(self) -> int:
        return sum(p.stat().st_size for p in self.path.glob("chunk-*.npy"))

    def check_encoder(self, encoder) -> None:
        """SoundingError unless `encoder` is the model these vectors were made with (same id and dim)."""
        if encoder.dim != self.dim:
            raise SoundingError(
                f"{self.path}: vectors have dimension {self.dim} (model {self.model_name}); the encoder "
                f"{encoder.name} gives {encoder.dim}: encode the corpus with that model, or search with {self.model_name}")
        if encoder.model_id != self.model_id:
            raise SoundingError(
                f"{self.path}: vectors were made by {self.model_name} ({self.model_id}); the encoder is "
                f"{encoder.name} ({encoder.model_id}): query and document vectors must come from one model")

    def matrix(self) -> np.ndarray:
        """All rows as one C-contiguous float32 matrix (int8 rows scaled back, float16 widened)."""
        if not self.complete:
            raise SoundingError(f"{self.path}: encoding is incomplete ({self.complete_chunks()}/{self.n_chunks} "
                                f"chunks); rerun `sounding encode` to resume")
        out = np.empty((self.count, self.dim), dtype=np.float32)
        for i in range(self.n_chunks):
            lo = i * self.chunk_size
            block = np.load(self.chunk_file(i))
            if self.dtype == "int8":
                scale = np.load(self.path / f"chunk-{i:06d}.scale.npy")
                out[lo:lo + len(block)] = block.astype(np.float32) * scale[:, None]
            else:
                out[lo:lo + len(block)] = block
        if self.dtype != "float32" and self.normalized:
            from .encoders import l2_normalize

            l2_normalize(out)  # quantisation moves norms slightly off 1: cosine stays cosine
        return out

    def __repr__(self) -> str:
        return f"VectorStore({str(self.path)!r}, model={self.model_name!r}, n={self.count}, dim={self.dim}, {self.dtype})"


@dataclass
class EncodeReport:
    store: VectorStore
    encoded: int  # documents encoded by this call (0 when everything was cached)
    resumed_from: int  # documents already on disk when this call started
    seconds: float  # wall time of this call's encoding
    total_encode_seconds: float  # summed over every call that built these vectors
    backend: dict = field(default_factory=dict)  # how this call encoded (Ray: actors, GPUs, workers)

    @property
    def docs_per_second(self) -> float:
        return self.encoded / self.seconds if self.seconds else float("nan")


def quantize(block: np.ndarray, dtype: str) -> tuple[np.ndarray, np.ndarray | None]:
    """float32 rows → stored dtype (+ per-row scale for int8: symmetric, max |v| ↦ 127)."""
    if dtype == "float32":
        return np.ascontiguousarray(block, dtype=np.float32), None
    if dtype == "float16":
        return block.astype(np.float16), None
    if dtype == "int8":
        amax = np.abs(block).max(axis=1)
        scale = np.where(amax > 0, amax / 127.0, 1.0).astype(np.float32)
        q = np.clip(np.rint(block / scale[:, None]), -127, 127).astype(np.int8)
        return q, scale
    raise SoundingError(f"unknown vector dtype {dtype!r}; choose {', '.join(DTYPES)}")


def _save_atomic(path: Path, array: np.ndarray) -> None:
    with atomic_file(path) as f:
        np.save(f, array)


def encode_corpus(
    corpus,
    encoder,
    root: str | Path,
    *,
    dtype: str = "float32",
    chunk_size: int = DEFAULT_CHUNK,
    batch_size: int | None = None,
    progress: bool = False,
    path: str | Path | None = None,
    log: Callable[[str], None] | None = None,
) -> EncodeReport:
    """Encode every document once per (model, corpus content, dtype) under `root`, resuming a partial run.

    `corpus`: a Dataset, a corpus file, or documents (see `corpus_texts`); `path` overrides the
    keyed folder (then a manifest there from another model or dimension is an error).
    `sounding.scale.ray_backend.encode_corpus_ray` writes the same files with a Ray Data job."""
    ct = corpus if isinstance(corpus, CorpusText) else corpus_texts(corpus)
    store = open_store(ct, encoder, root, dtype=dtype, chunk_size=chunk_size, path=path)
    if store.complete:
        return EncodeReport(store, 0, store.count, 0.0, float(store.manifest.get("encode_seconds", 0.0)))
    todo = missing_chunks(store)
    remaining = sum(n for _, _, n in (chunk_rows(store, i) for i in todo))
    start_doc = store.count - remaining
    if log and start_doc:
        log(f"resuming {store.path}: {start_doc:,} of {store.count:,} documents already encoded")
    t0 = time.perf_counter()
    from .encoders import progress_bar

    with progress_bar(progress, remaining, f"encoding {encoder.name}") as advance:
        for i in todo:
            lo, hi, _ = chunk_rows(store, i)
            write_chunk(encoder, ct.texts[lo:hi], i, store.path, dtype, batch_size=batch_size, progress=advance)
    seconds = time.perf_counter() - t0
    finish_store(store, seconds)
    return EncodeReport(store, remaining, start_doc, seconds, store.manifest["encode_seconds"])


# -- the steps of an encode, shared with the Ray Data job (sounding.scale.ray_backend) ---------------
def open_store(ct: CorpusText, encoder, root: str | Path | None, *, dtype: str = "float32",
               chunk_size: int = DEFAULT_CHUNK, path: str | Path | None = None) -> VectorStore:
    """The store to encode `ct` into: an existing one (checked: same model, corpus, dtype, chunk size),
    or a new folder with docids.txt and an incomplete manifest. Leftover temp files are removed."""
    if dtype not in DTYPES:
        raise SoundingError(f"unknown vector dtype {dtype!r}; choose {', '.join(DTYPES)}")
    if chunk_size < 1:
        raise SoundingError("chunk_size must be at least 1")
    folder = Path(path) if path else store_dir(root, encoder.slug, encoder.model_key, ct.sha256, dtype)
    folder.mkdir(parents=True, exist_ok=True)
    for stale in folder.glob(".*.tmp-*"):  # an interrupted chunk write; its chunk is simply redone
        stale.unlink(missing_ok=True)
    mf = folder / "manifest.json"
    if mf.is_file():
        store = VectorStore(folder)
        _check_resume(store, encoder, ct, dtype, chunk_size)
        return store
    manifest = {
        "format": FORMAT_NAME, "version": FORMAT_VERSION, "model": encoder.name, "model_id": encoder.model_id,
        "backend": encoder.backend, "dim": encoder.dim, "dtype": dtype, "count": len(ct.ids),
        "normalized": bool(encoder.normalize), "similarity": encoder.similarity,
        "passage_prefix": encoder.passage_prefix, "query_prefix": encoder.query_prefix,
        "max_length": encoder.max_length, "chunk_size": chunk_size, "corpus_sha256": ct.sha256,
        "docids_sha256": hashlib.sha256("\n".join(ct.ids).encode("utf-8", "surrogatepass")).hexdigest(),
        "text": "title + ' ' + text, stripped", "complete": False, "encode_seconds": 0.0,
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    atomic_write(folder / "docids.txt", "".join(f"{i}\n" for i in ct.ids))
    atomic_write(mf, json.dumps(manifest, indent=1) + "\n")
    return VectorStore(folder)


def chunk_rows(store: VectorStore, i: int) -> tuple[int, int, int]:
    """(first row, end row, row count) of chunk i."""
    lo, hi = i * store.chunk_size, min((i + 1) * store.chunk_size, store.count)
    return lo, hi, hi - lo


def missing_chunks(store: VectorStore) -> list[int]:
    """Chunks with no file yet, wherever they are (a Ray job writes them in any order)."""
    return [i for i in range(store.n_chunks) if not store.chunk_file(i).is_file()]


def write_chunk(encoder, texts: list[str], i: int, folder: str | Path, dtype: str, *, batch_size: int | None = None,
                progress=False, skip_existing: bool = False) -> bool:
    """Encode one chunk's texts and write it (int8: the scales first, then the rows; each via temp
    file + os.replace, so a chunk file that exists is complete). False when skipped (already there)."""
    folder = Path(folder)
    target = folder / f"chunk-{i:06d}.npy"
    if skip_existing and target.is_file():
        return False
    vecs = encoder.encode(texts, "passage", batch_size=batch_size, progress=progress)
    q, scale = quantize(vecs, dtype)
    if scale is not None:
        _save_atomic(folder / f"chunk-{i:06d}.scale.npy", scale)
    _save_atomic(target, q)
    return True


def finish_store(store: VectorStore, seconds: float) -> VectorStore:
    """Check every chunk (present, rows × dim, dtype), then mark the manifest complete (written last)."""
    bad = []
    for i in range(store.n_chunks):
        _, _, n = chunk_rows(store, i)
        files = [(store.chunk_file(i), (n, store.dim), store.dtype)]
        if store.dtype == "int8":
            files.append((store.path / f"chunk-{i:06d}.scale.npy", (n,), "float32"))
        for f, shape, dt in files:
            try:
                a = np.load(f, mmap_mode="r")
            except (OSError, ValueError):
                bad.append(f"{f.name} missing or unreadable")
                continue
            if a.shape != shape or str(a.dtype) != dt:  # e.g. left by an encode with another chunk size
                bad.append(f"{f.name} is {a.dtype}{list(a.shape)}, expected {dt}{list(shape)} (removed)")
                del a
                f.unlink()
    if bad:
        raise SoundingError(f"{store.path}: not complete: {'; '.join(bad[:3])}{' …' if len(bad) > 3 else ''}"
                            f" ({len(bad)} problem(s)); the manifest stays incomplete: rerun to encode what is missing")
    store.manifest["complete"] = True
    store.manifest["encode_seconds"] = float(store.manifest.get("encode_seconds", 0.0)) + seconds
    store.manifest["bytes"] = store.nbytes
    atomic_write(store.path / "manifest.json", json.dumps(store.manifest, indent=1) + "\n")
    return store


def _check_resume(store: VectorStore, encoder, ct: CorpusText, dtype: str, chunk_size: int) -> None:
    m = store.manifest
    if store.dim != encoder.dim or store.model_id != encoder.model_id:
        raise SoundingError(
            f"{store.path}: holds vectors of {store.model_name} (dimension {store.dim}); cannot add vectors of "
            f"{encoder.name} (dimension {encoder.dim}): choose another folder or delete this one")
    if m.get("corpus_sha256") != ct.sha256:
        raise SoundingError(f"{store.path}: vectors of a different corpus (content hash {m.get('corpus_sha256', '?')[:16]}"
                            f" ≠ {ct.sha256[:16]}); choose another folder or delete this one")
    if store.dtype != dtype or store.chunk_size != chunk_size:
        raise SoundingError(f"{store.path}: stored as {store.dtype} in chunks of {store.chunk_size}, asked for "
                            f"{dtype} in chunks of {chunk_size}")


def find_store(root: str | Path, encoder, corpus, dtype: str = "float32") -> VectorStore | None:
    """The complete store for (encoder, corpus, dtype) under root, or None."""
    ct = corpus if isinstance(corpus, CorpusText) else corpus_texts(corpus)
    folder = store_dir(root, encoder.slug, encoder.model_key, ct.sha256, dtype)
    if (folder / "manifest.json").is_file():
        s = VectorStore(folder)
        return s if s.complete else None
    return None


__all__ = ["VectorStore", "EncodeReport", "CorpusText", "corpus_texts", "encode_corpus", "find_store",
           "store_dir", "quantize", "open_store", "chunk_rows", "missing_chunks", "write_chunk",
           "finish_store", "DTYPES", "DEFAULT_CHUNK"]
