"""Stages over first-stage runs (fusion, reranking), and `Pipeline`, which joins retrievers to a stage.

    Pipeline([BM25Retriever(), DenseRetriever()], Fusion("wrrf"))    the hybrid arm
    Pipeline([BM25Retriever()], Rerank(depth=100))                    the rerank arm

A stage is given the first stages' runs ({qid: {docid: score}}); the harness hands it the runs it has
already made (one BM25 search serves every arm built on it), a Pipeline makes them itself.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

from ...errors import SoundingError
from ...types import Document, Retriever, Run, Stage
from .dense import DEFAULT_DENSE


def as_run(got) -> Run:
    """A retriever's answer as {qid: {docid: score}} (`Results` → `to_run()`)."""
    return got.to_run() if callable(getattr(got, "to_run", None)) else got


class Fusion:
    """Fusion of first-stage runs by `sounding.retrieval.fusion`'s definitions: "wrrf" (weighted RRF, k=10,
    semantic ratio 0.75: runs = [lexical, dense]), "rrf" (k=60, any number of runs), "linear0.5"
    (min-max, α = 0.5: runs = [lexical, dense]), or their compact forms ("rrf-k40", "linear0.3")."""

    def __init__(self, method: str = "wrrf"):
        from ..fusion import parse_method

        self.kind, self.params = parse_method(method)  # a bad name fails here, before any search
        self.method = method
        self.name = f"fusion.{method}"

    def apply(self, queries: Mapping[str, str], runs: Sequence[Run], k: int) -> Run:
        from ..fusion import fuse, rrf

        if self.kind == "rrf" and len(runs) != 2:
            return rrf(list(runs), self.params.get("k", 60), k_out=k)
        if len(runs) != 2:
            raise SoundingError(f"fusion {self.method!r} takes two runs (lexical, dense), not {len(runs)}")
        return fuse(self.method, runs[0], runs[1], k_out=k)


class Rerank:
    """Rescore the top `depth` hits of one run with a cross-encoder or bi-encoder (`sounding.rerank`);
    the hits below stay under them in their first-stage order, so recall at the run's depth is unchanged.

    `scorer`: a `sounding.rerank.Scorer`; by default one is made from `model` (a cross-encoder when the
    model is one, else the bi-encoder's cosine). `cache`: an SQLite file of scores, keyed by model and
    texts, so a rerun scores nothing twice. `index(documents)` gives the stage the texts it scores."""

    def __init__(self, scorer=None, depth: int = 100, *, model: str = DEFAULT_DENSE, cache: str | Path | None = None,
                 batch_size: int = 32, progress: bool = False, log: Callable[[str], None] | None = None):
        if not isinstance(depth, int) or isinstance(depth, bool) or depth < 1:
            raise SoundingError(f"rerank depth must be a whole number of at least 1, not {depth!r}")
        self.depth, self.model, self.cache, self.batch_size, self.progress, self.log = \
            depth, model, cache, batch_size, progress, log
        self._scorer = scorer
        self.texts: dict[str, str] | None = None
        self.last = None  # the last apply's RerankResult (new and cached pairs)
        self.name = f"rerank.top{depth}"

    @property
    def scorer(self):
        if self._scorer is None:
            from ..dense import load_encoder, model_kind
            from ..rerank import BiEncoderScorer, CrossEncoderScorer

            self._scorer = CrossEncoderScorer(self.model) if model_kind(self.model) == "cross-encoder" \
                else BiEncoderScorer(load_encoder(self.model, batch_size=self.batch_size))
        return self._scorer

    def index(self, documents: Iterable[Document]) -> None:
        from ..dense.vectors import CorpusText, corpus_texts

        ct = documents if isinstance(documents, CorpusText) else corpus_texts(documents)
        self.texts = dict(zip(ct.ids, ct.texts))

    def apply(self, queries: Mapping[str, str], runs: Sequence[Run], k: int) -> Run:
        from ...trec import trec_order
        from ..rerank import rerank

        if len(runs) != 1:
            raise SoundingError(f"rerank takes one first-stage run, not {len(runs)}")
        if self.texts is None:
            raise SoundingError("rerank: call index(documents) before apply")
        res = rerank(runs[0], queries, self.texts, self.scorer, top_n=self.depth, cache=self.cache,
                     batch_size=self.batch_size, progress=self.progress)
        self.last = res
        if self.log:
            self.log(res.summary())
        return {q: hits if len(hits) <= k else {d: hits[d] for d in trec_order(hits, k)} for q, hits in res.run.items()}


class Pipeline:
    """First-stage retrievers → one stage, itself a Retriever (`index` feeds every part the corpus)."""

    def __init__(self, first: Sequence[Retriever], stage: Stage, *, name: str | None = None,
                 depth: int | None = None):
        if not first:
            raise SoundingError("a pipeline needs at least one first-stage retriever")
        self.first, self.stage, self.depth = list(first), stage, depth
        self.name = name or "+".join([*(r.name for r in self.first), stage.name])

    @property
    def fingerprint(self) -> str | None:
        parts = [getattr(r, "fingerprint", None) for r in self.first]
        if not all(isinstance(p, str) and p for p in parts):
            return None  # a part that cannot say when its results change: never reuse the row
        return "|".join([*parts, self.stage.name])

    def index(self, documents: Iterable[Document]) -> None:
        docs = list(documents)  # every part reads the corpus
        for r in self.first:
            r.index(docs)
        if callable(getattr(self.stage, "index", None)):
            self.stage.index(docs)

    def search(self, queries: Mapping[str, str], k: int) -> Run:
        depth = self.depth or k
        return self.stage.apply(queries, [as_run(r.search(queries, depth)) for r in self.first], k)
