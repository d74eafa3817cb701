"""Second-stage reranking of a run's top-N: cross-encoder or bi-encoder, with an on-disk score cache.

    scorer = CrossEncoderScorer("path/to/cross-encoder")          # or BiEncoderScorer(load_encoder(...))
    res = rerank(run, dataset.queries, dataset, scorer, top_n=100, cache="out/rerank-cache.sqlite")
    res.run, res.new_pairs, res.cached_pairs                       # a second identical call scores 0 new pairs

Cache: SQLite, one row per (model id, query id, doc id, sha256 of query text + doc text) → score, so
a changed text or model never reuses a stale score. Reranked run: the top-N hits in scorer order
(score descending, ties by doc id descending); the hits below N are kept, in their first-stage
order, under the reranked ones (score = lowest reranked score − 1 − position), so R@1000 is unchanged.

No trained cross-encoder ships in a PyPI wheel (docs/models.md): quality numbers need a real one
(e.g. cross-encoder/ms-marco-MiniLM-L-6-v2 on a machine with the hub). The default reranker of the
harness is therefore the bi-encoder (all-MiniLM-L6-v2 cosine over BM25's top-100).
"""
from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping, Sequence

import numpy as np

from .errors import SoundingError
from .eval import trec_order
from .types import Run


def pair_sha(query: str, doc: str) -> str:
    return hashlib.sha256(query.encode("utf-8", "surrogatepass") + b"\x00" + doc.encode("utf-8", "surrogatepass")).hexdigest()


class ScoreCache:
    """SQLite table of (model, qid, docid, sha) → score; safe to share between runs (WAL mode)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(str(self.path), timeout=60)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("CREATE TABLE IF NOT EXISTS scores (model TEXT NOT NULL, qid TEXT NOT NULL, docid TEXT NOT NULL,"
                        " sha TEXT NOT NULL, score REAL NOT NULL, PRIMARY KEY (model, qid, docid, sha))")
        self.db.commit()

    def get(self, model: str, keys: Sequence[tuple[str, str, str]]) -> dict[tuple[str, str, str], float]:
        out: dict[tuple[str, str, str], float] = {}
        cur = self.db.cursor()
        for qid, docid, sha in keys:
            row = cur.execute("SELECT score FROM scores WHERE model=? AND qid=? AND docid=? AND sha=?",
                              (model, qid, docid, sha)).fetchone()
            if row is not None:
                out[(qid, docid, sha)] = row[0]
        return out

    def put(self, model: str, items: Sequence[tuple[tuple[str, str, str], float]]) -> None:
        self.db.executemany("INSERT OR REPLACE INTO scores VALUES (?, ?, ?, ?, ?)",
                            [(model, q, d, s, float(v)) for (q, d, s), v in items])
        self.db.commit()

    def __len__(self) -> int:
        return int(self.db.execute("SELECT COUNT(*) FROM scores").fetchone()[0])

    def close(self) -> None:
        self.db.close()


# -- scorers ---------------------------------------------------------------------------------------
class Scorer:
    name = ""
    kind = ""
    model_id = ""
    provenance = ""

    def score(self, pairs: Sequence[tuple[str, str]], *, batch_size: int = 32,
              progress: bool | Callable[[int], None] = False) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError


class CrossEncoderScorer(Scorer):
    """A sentence-transformers CrossEncoder (by path/name, or an already built model with `model_id`)."""

    kind = "cross-encoder"

    def __init__(self, name_or_path: str | None = None, *, model=None, model_id: str | None = None,
                 max_length: int | None = None, device: str = "auto", provenance: str = ""):
        from .dense.device import half_precision, resolve_device
        from .dense.encoders import _offline_env, _weights_signature, provenance_for

        _offline_env()
        self.device = device = resolve_device(device)
        if model is None:
            if not name_or_path:
                raise SoundingError("CrossEncoderScorer needs a model path/name or a model")
            try:
                from sentence_transformers import CrossEncoder
            except ImportError as e:  # pragma: no cover
                raise SoundingError("sentence-transformers is needed for reranking: pip install 'sounding[dense]'") from e
            try:
                model = CrossEncoder(str(name_or_path), device=device, max_length=max_length)
            except OSError as e:
                raise SoundingError(f"cannot load cross-encoder {name_or_path!r}: {e}") from e
            if half_precision(device):  # float16 scores differ in their last bits: cached apart (model_id)
                (model if hasattr(model, "half") else model.model).half()
                self.precision = "float16"
        elif model_id is None:
            raise SoundingError("a CrossEncoder passed as an object needs an explicit model_id for the score cache")
        self.model = model
        self.name = str(name_or_path or model_id)
        p = Path(str(name_or_path)) if name_or_path else None
        sig = _weights_signature(p) if p is not None and p.exists() else ""
        precision = getattr(self, "precision", "float32")
        self.model_id = model_id or json.dumps({"kind": "cross-encoder", "name": self.name, "weights": sig,
                                                "max_length": getattr(model, "max_length", None),
                                                **({"precision": precision} if precision != "float32" else {})},
                                               sort_keys=True)
        self.provenance = provenance or (provenance_for(self.name) if name_or_path else "")

    def score(self, pairs, *, batch_size=32, progress=False):
        from .dense.encoders import _progress

        pairs = list(pairs)
        out = np.empty(len(pairs), dtype=np.float64)
        order = np.argsort([-(len(q) + len(d)) for q, d in pairs], kind="stable")
        with _progress(progress, len(pairs), f"cross-encoding ({self.name})") as advance:
            for s in range(0, len(pairs), batch_size):
                idx = order[s:s + batch_size]
                v = self.model.predict([pairs[i] for i in idx], batch_size=len(idx), show_progress_bar=False)
                out[idx] = np.asarray(v, dtype=np.float64).reshape(len(idx), -1)[:, 0]
                advance(len(idx))
        return out


class BiEncoderScorer(Scorer):
    """Cosine (or dot) of a dense encoder's query and passage vectors.

    `passage_vectors`: optional text → vector of already encoded passages (e.g. the dense arm's
    stored corpus vectors, see `passage_vectors_from_store`); only texts not in it are encoded."""

    kind = "bi-encoder"

    def __init__(self, encoder, passage_vectors: Mapping[str, np.ndarray] | None = None):
        self.encoder = encoder
        self.name = encoder.name
        self.model_id = "bi-encoder:" + encoder.model_id
        self.provenance = encoder.provenance
        self.passage_vectors = passage_vectors or {}
        self.encoded_passages = 0

    def score(self, pairs, *, batch_size=32, progress=False):
        pairs = list(pairs)
        if not pairs:
            return np.zeros(0)
        qs = list(dict.fromkeys(q for q, _ in pairs))
        ds = list(dict.fromkeys(d for _, d in pairs))
        Q = self.encoder.encode(qs, "query", batch_size=batch_size)
        new = [d for d in ds if d not in self.passage_vectors]
        fresh = self.encoder.encode(new, "passage", batch_size=batch_size, progress=progress) if new else None
        self.encoded_passages += len(new)
        fresh_row = {d: i for i, d in enumerate(new)}
        D = np.stack([fresh[fresh_row[d]] if d in fresh_row else np.asarray(self.passage_vectors[d], np.float32)
                      for d in ds])
        qi = {q: i for i, q in enumerate(qs)}
        di = {d: i for i, d in enumerate(ds)}
        a = np.array([qi[q] for q, _ in pairs], dtype=np.int64)
        b = np.array([di[d] for _, d in pairs], dtype=np.int64)
        return np.einsum("ij,ij->i", Q[a], D[b]).astype(np.float64)


def passage_vectors_from_store(store, ids: Sequence[str], texts: Sequence[str]) -> dict[str, np.ndarray]:
    """text → stored vector for a corpus whose vectors `store` holds (ids in the store's order)."""
    if list(ids) != store.ids:
        raise SoundingError(f"{store.path}: stored vectors are for another document list")
    M = store.matrix()
    return {t: M[i] for i, t in enumerate(texts)}


def load_scorer(name_or_path: str, **kw) -> Scorer:
    """A cross-encoder when the model is one (config architectures …ForSequenceClassification), else a bi-encoder."""
    from .dense.encoders import load_encoder, model_kind

    if model_kind(name_or_path) == "cross-encoder":
        return CrossEncoderScorer(name_or_path, **kw)
    return BiEncoderScorer(load_encoder(name_or_path, device=kw.get("device", "auto")))


# -- rerank ----------------------------------------------------------------------------------------
@dataclass
class RerankResult:
    run: Run
    new_pairs: int  # pairs scored by the model in this call
    cached_pairs: int  # pairs answered from the cache
    seconds: float
    scorer: str = ""

    def summary(self) -> str:
        return (f"reranked with {self.scorer}: {self.new_pairs:,} new pairs scored, {self.cached_pairs:,} from the "
                f"cache ({self.seconds:.1f} s)")


def doc_lookup(source, needed: set[str]) -> dict[str, str]:
    """docid → passage text (title + ' ' + text) for the ids in `needed`, from a Dataset, corpus file,
    Documents, or a ready mapping."""
    if isinstance(source, Mapping):
        return {d: source[d] for d in needed if d in source}
    from .dense.encoders import doc_text
    from .dense.vectors import _iter_docs

    out = {}
    for doc_id, title, text in _iter_docs(source):
        if doc_id in needed:
            out[doc_id] = doc_text(title, text)
    return out


def rerank(run: Mapping[str, Mapping[str, float]], queries: Mapping[str, str], docs, scorer: Scorer, *,
           top_n: int = 100, cache: ScoreCache | str | Path | None = None, batch_size: int = 32,
           keep_tail: bool = True, progress: bool = False) -> RerankResult:
    """Rescore each query's top `top_n` hits with `scorer` (cached); see the module docstring for the order."""
    if top_n < 1:
        raise SoundingError("top_n must be at least 1")
    t0 = time.perf_counter()
    heads = {q: trec_order(hits, top_n) for q, hits in run.items()}
    needed = {d for ds in heads.values() for d in ds}
    texts = doc_lookup(docs, needed)
    missing = needed - texts.keys()
    if missing:
        raise SoundingError(f"{len(missing)} documents of the run are not in the corpus (e.g. {sorted(missing)[:3]})")
    keys, pairs = [], []
    for q, ds in heads.items():
        if q not in queries:
            raise SoundingError(f"query {q!r} of the run has no text")
        for d in ds:
            keys.append((q, d, pair_sha(queries[q], texts[d])))
            pairs.append((queries[q], texts[d]))
    own_cache = isinstance(cache, (str, Path))
    store = ScoreCache(cache) if own_cache else cache
    try:
        known = store.get(scorer.model_id, keys) if store is not None else {}
        todo = [i for i, key in enumerate(keys) if key not in known]
        if todo:
            new = scorer.score([pairs[i] for i in todo], batch_size=batch_size, progress=progress)
            fresh = [(keys[i], float(v)) for i, v in zip(todo, new)]
            known.update(fresh)
            if store is not None:
                store.put(scorer.model_id, fresh)
    finally:
        if own_cache and store is not None:
            store.close()
    out: Run = {}
    for q, hits in run.items():
        head = heads[q]
        scored = {d: known[(q, d, pair_sha(queries[q], texts[d]))] for d in head}
        ranked = sorted(scored.items(), key=lambda x: (x[1], x[0]), reverse=True)
        res = dict(ranked)
        if keep_tail and len(hits) > len(head):
            low = min(scored.values()) if scored else 0.0
            tail = [d for d in trec_order(hits) if d not in scored]
            for j, d in enumerate(tail):
                res[d] = low - 1.0 - j
        out[q] = res
    return RerankResult(out, len(todo), len(keys) - len(todo), time.perf_counter() - t0, scorer.name)


__all__ = ["rerank", "RerankResult", "ScoreCache", "Scorer", "CrossEncoderScorer", "BiEncoderScorer", "load_scorer",
           "passage_vectors_from_store",
           "pair_sha", "doc_lookup"]
