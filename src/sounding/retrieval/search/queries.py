"""Queries: analysed into matched index terms, then into the clauses of a BM25 setting.

`QueryAnalysis` turns each query text into (term id, weight factor) pairs: the analyzer's tokens looked up in
the index's vocabulary, a repeated term counted once per occurrence (Lucene's BooleanQuery), and with typo
tolerance the index terms near a query term joined to it, down-weighted per typo. The last two batches of
texts are kept analysed. `make_clauses` lays a batch's matches out as the compiled kernels read them
(kernels/clauses.py), in the order and with the weights the setting's layout and arithmetic give.
"""
from __future__ import annotations

import threading
from collections import Counter
from functools import cached_property

import numpy as np

from .collection import Collection
from .kernels import clauses
from .layouts import Layout
from .setting_build import SettingArrays


class QueryAnalysis:
    """The analyzer and the typo matcher of one index, used by one thread at a time (a stemmer may keep
    state), and the last two batches of query texts analysed."""

    def __init__(self, analyze, index):
        self.analyze = analyze
        self.index = index
        self.lock = threading.Lock()
        self._batches: dict[tuple, list] = {}

    def warm(self) -> None:
        with self.lock:
            self.analyze("warm up")

    def warm_typos(self) -> None:
        with self.lock:
            self.typo_matcher.variants("warmup")  # builds the symmetric-delete index

    def analysed(self, items: list[tuple[str, str]], typos: bool, typo_factor: float) -> list:
        """`matches` of every query text, kept for the last two batches of texts: `sounding run` searches the
        same queries once per BM25 setting, and analysing them again cost ~0.3 s a setting at 3,452 queries;
        a batch analysed ahead (`Searcher.analyse`, another thread) is found here. One thread at a time
        analyses, under `lock`."""
        key = (tuple(text for _, text in items), typos, typo_factor if typos else None)
        found = self._batches.get(key)  # one dict read (atomic): no lock while another batch is analysed
        if found is not None:
            return found
        with self.lock:
            found = self._batches.get(key)
            if found is None:
                found = self._batches[key] = self.analyse_batch(key[0], typos, typo_factor)
                while len(self._batches) > 2:
                    del self._batches[next(iter(self._batches))]
            return found

    def analyse_batch(self, texts: tuple[str, ...], typos: bool, typo_factor: float) -> list:
        """`matches` of each text: through the analyzer's batch call where it has one (new tokens stemmed
        together), each distinct term looked up once."""
        many = getattr(self.analyze, "analyze_many", None)
        tokens = many(list(texts)) if many is not None and len(texts) > 1 else map(self.analyze, texts)
        term_ids, seen = self.index.term_ids, {}

        def lookup(term: str) -> int | None:
            return seen[term] if term in seen else seen.setdefault(term, term_ids.get(term))

        return Matches(self.matches(toks, typos, typo_factor, lookup) for toks in tokens)

    def matches(self, tokens: list[str], typos: bool, typo_factor: float, lookup) -> list[tuple[int, float]]:
        """(term id, weight factor) per query term occurrence group of a query's analysed `tokens`, in
        first-occurrence order; `lookup(term)` gives a term's id or None.

        A term repeated in the query counts once per occurrence (Lucene's BooleanQuery); with typo
        tolerance, index terms near a query term join it, down-weighted per typo."""
        counts = Counter(tokens)  # insertion order: deterministic clause order
        if not typos:
            return [(t, float(c)) for t, c in zip(map(lookup, counts), counts.values()) if t is not None]
        out: dict[int, float] = {}
        for term, count in counts.items():
            t = lookup(term)
            if t is not None:
                out[t] = out.get(t, 0.0) + count
            for variant, n in self.typo_matcher.variants(term):
                t = lookup(variant)
                out[t] = out.get(t, 0.0) + count * typo_factor**n
        return list(out.items())

    @cached_property
    def typo_matcher(self):
        from .typos import TypoMatcher

        return TypoMatcher(self.index.terms)


class Matches(list):
    """A batch's `matches` (a list: each query's (term id, weight factor) pairs), with the flat arrays the
    clauses are made from laid out once (`arrays`): a batch kept analysed is searched again per BM25 setting,
    and laying it out cost ~1 ms a search at 1,109 queries (~9 % of a top-10 batch on scifact)."""

    @cached_property
    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return _flat(self)


def _flat(matches: list) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each query's number of terms, then every query's terms (int64) and counts (float64), one after another."""
    lens = np.fromiter((len(m) for m in matches), dtype=np.int64, count=len(matches))
    terms = np.fromiter((t for m in matches for t, _ in m), dtype=np.int64, count=sum(map(len, matches)))
    counts = np.fromiter((c for m in matches for _, c in m), dtype=np.float64, count=len(terms))
    return lens, terms, counts


def make_clauses(coll: Collection, matches: list, lay: Layout, setting: SettingArrays, k1: float, lucene: bool,
                 idf: np.ndarray) -> tuple:
    """Per-query clause arrays (CSR): pointers, field, term, weight, group, and the merged-tf layout's idf
    (kernels/clauses.py)."""
    lens, terms, counts = matches.arrays if isinstance(matches, Matches) else _flat(matches)
    return clause_arrays(coll, lens, terms, counts, lay, setting, k1, lucene, idf)


def clause_arrays(coll: Collection, lens: np.ndarray, terms: np.ndarray, counts: np.ndarray, lay: Layout,
                  setting: SettingArrays, k1: float, lucene: bool, idf: np.ndarray) -> tuple:
    """make_clauses of matches given as arrays: per query its number of terms (`lens`), then the terms
    (int64 ids) and their counts (float64), one query after another."""
    kind = lay.kind
    mode = clauses.BM25F if kind.merged_tf else clauses.LUCENE if lucene else clauses.DEFAULT
    return clauses.build_clauses(lens, terms, counts, setting.lay_fields, setting.lay_weights, coll.df, idf,
                                 coll.fields.index("flat"), float(k1), mode, kind.by_field, not kind.grouped)
