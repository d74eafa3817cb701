"""Sounding in PyTerrier pipelines (the `pyterrier` extra: `pip install 'sounding[pyterrier]'`; no JVM needed).

    import pyterrier as pt
    from sounding.pyterrier import BM25

    bm25 = BM25("indexes/scifact")                     # or a sounding.Searcher; settings as `sounding search`'s
    pt.Experiment([bm25, bm25 >> my_reranker], topics, qrels, eval_metrics=["ndcg_cut_10"])

`BM25` is a `pt.Transformer`: a queries frame (`qid`, `query`) in, a results frame out (`qid`, `docno`,
`score`, `rank` from 0, and the query's other columns), each query's hits in trec_eval's order (score
descending, docid descending) — the hits and scores `sounding search` writes to its run file. Its settings
are `Searcher.search`'s keyword arguments (`layout`, `k1`, `b`, `lucene_norms`, `title_weight`, ...), with the
same defaults; `num_results` (PyTerrier's name) or `k` is the depth (1,000).

The other way round, any `pt.Transformer` is a retriever for `sounding.run_experiment(retrievers=...)` and
`sounding run --retriever name=module:object` (`retrievers/pyterrier.py`).

PyTerrier's Java parts are never started: `pt.Transformer` is plain Python, and nothing here calls `pt.init`
or `pt.java`.
"""
from __future__ import annotations

from .errors import SoundingError

try:
    import pandas as pd
    import pyterrier as pt
except ImportError as e:  # pragma: no cover - depends on the extra being installed
    raise SoundingError(f"sounding.pyterrier needs PyTerrier ({e.name} is not installed): "
                        "pip install 'sounding[pyterrier]'") from None

__all__ = ["BM25"]


class BM25(pt.Transformer):
    """Sounding's BM25 as a PyTerrier transformer (see the module docstring)."""

    def __init__(self, index_or_searcher, *, num_results: int | None = None, **settings):
        from .search import Searcher

        self.searcher = index_or_searcher if isinstance(index_or_searcher, Searcher) else Searcher(index_or_searcher)
        if num_results is not None:
            if "k" in settings:
                raise SoundingError("BM25: give the depth once, as num_results or as k")
            settings["k"] = num_results
        self.settings = settings
        self.searcher.search({}, **settings)  # the settings checked now, not at the first query

    def __repr__(self) -> str:
        options = ", ".join(f"{k}={v!r}" for k, v in self.settings.items())
        return f"sounding.pyterrier.BM25({str(self.searcher.index.root)!r}{', ' if options else ''}{options})"

    def transform(self, queries: pd.DataFrame) -> pd.DataFrame:
        from .eval import trec_order

        missing = {"qid", "query"} - set(queries.columns)
        if missing:
            raise SoundingError(f"BM25: the queries frame needs the columns qid and query (missing: {', '.join(sorted(missing))})")
        asked = dict(zip(queries["qid"].astype(str), queries["query"].astype(str)))
        run = self.searcher.search(asked, **self.settings).to_run()
        rows = []
        for qid in dict.fromkeys(asked):
            hits = run.get(qid, {})
            rows += [(qid, docno, hits[docno], rank) for rank, docno in enumerate(trec_order(hits))]
        results = pd.DataFrame(rows, columns=["qid", "docno", "score", "rank"])
        carried = queries.drop(columns=[c for c in ("docno", "score", "rank") if c in queries.columns])
        carried = carried.assign(qid=carried["qid"].astype(str))
        return carried.merge(results, on="qid", how="inner")
