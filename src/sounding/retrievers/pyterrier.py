"""A PyTerrier transformer as a Sounding retriever: any `pt.Transformer` (a pipeline, a Terrier retriever, a
dense retriever of a PyTerrier plugin, `sounding.pyterrier.BM25`) goes through the harness and the report like
any other system: `run_experiment(retrievers={"name": transformer})`, `sounding run --retriever
name=module:object`.

The transformer is asked with a queries frame (`qid`, `query`) and its results frame (`qid`, `docno`,
`score`) becomes the run, each query cut to the top k in trec_eval's order. A transformer holds its own index,
so `index(documents)` takes nothing in: give one transformer per dataset (a retriever's `for_dataset`, or one
`run_experiment` per dataset). Nothing here starts PyTerrier's Java side.
"""
from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping

from ..errors import SoundingError
from ..types import Document, Run


def is_transformer(obj) -> bool:
    """Whether `obj` is a PyTerrier transformer (pyterrier is imported already if it is one)."""
    pt = sys.modules.get("pyterrier")
    return pt is not None and isinstance(obj, pt.Transformer)


class TransformerRetriever:
    """A `pt.Transformer` with the Retriever protocol (`index`, `search`)."""

    def __init__(self, transformer, name: str | None = None):
        self.transformer = transformer
        self.name = name or type(transformer).__name__

    def __repr__(self) -> str:
        return f"TransformerRetriever({self.transformer!r})"

    def index(self, documents: Iterable[Document]) -> None:
        """Nothing to take in: a transformer searches the index it was made with."""

    def search(self, queries: Mapping[str, str], k: int) -> Run:
        import pandas as pd

        from ..eval import trec_order

        frame = pd.DataFrame({"qid": list(queries), "query": list(queries.values())})
        try:
            got = self.transformer.transform(frame)
        except SoundingError:
            raise
        except Exception as e:  # the transformer's own failure, in one line
            raise SoundingError(f"PyTerrier transformer {self.name}: {type(e).__name__}: {e}") from e
        missing = {"qid", "docno", "score"} - set(getattr(got, "columns", ()))
        if missing:
            raise SoundingError(f"PyTerrier transformer {self.name}: its results lack the columns "
                                f"{', '.join(sorted(missing))} (a retriever gives qid, docno, score)")
        run: Run = {}
        for qid, docno, score in zip(got["qid"].astype(str), got["docno"].astype(str), got["score"].astype(float)):
            hits = run.setdefault(qid, {})
            if docno in hits:
                raise SoundingError(f"PyTerrier transformer {self.name}: query {qid!r} returned document {docno!r} twice")
            hits[docno] = score
        return {q: {d: hits[d] for d in trec_order(hits, k)} for q, hits in run.items()}
