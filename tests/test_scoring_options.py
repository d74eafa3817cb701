"""Positions, the term-proximity bonus and typo tolerance."""
import math
import random

import numpy as np
import pytest

from sounding.datasets import Document
from sounding.errors import SoundingError
from sounding.eval import evaluate
from sounding.index import Index, build_index
from sounding.retrieval.search import Searcher
from sounding.retrieval.search.typos import TypoMatcher, typo_budget


def idf(n, df):
    return math.log(1 + (n - df + 0.5) / (df + 0.5))


@pytest.fixture
def prox_index(tmp_path):
    docs = [
        Document("near", "", "virus protein cell", 1),  # virus–protein at distance 1
        Document("far", "", "virus cell cell protein", 2),  # distance 3
        Document("apart", "", "virus cell cell cell cell cell cell protein", 3),  # distance 7 > window 5
        Document("other", "", "tumor gene", 4),
    ]
    build_index(docs, tmp_path / "ix", positions=True)
    return tmp_path / "ix"


def test_positions_cost_nothing_to_postings(tmp_path, prox_index):
    docs = [Document("a", "virus gene", "the gene of a virus gene cell", 1), Document("b", "", "cell virus", 2)]
    build_index(docs, tmp_path / "p", positions=True)
    build_index(docs, tmp_path / "n")
    p, n = Index(tmp_path / "p"), Index(tmp_path / "n")
    for name in ("offsets", "docs", "tfs", "lengths"):
        assert np.array_equal(getattr(p, name), getattr(n, name))
    assert n.positions is None and not n.manifest.positions and p.manifest.positions
    # flat field of "a": title virus@0 gene@1, then text (stop words removed) gene@2 virus@3 gene@4 cell@5
    f, t = p.field_id("flat"), p.term_ids["gene"]
    post = p.offsets[f, t]  # first posting of "gene" in flat is document "a"
    assert list(p.positions[p.pos_offsets[post]:p.pos_offsets[post + 1]]) == [1, 2, 4]


def test_proximity_bonus_matches_definition(prox_index):
    s = Searcher(prox_index)
    plain = dict(s.search({"q": "virus protein"}).hits(0))
    boosted = dict(s.search({"q": "virus protein"}, proximity=0.5).hits(0))
    w = idf(4, 3)  # min(idf(virus), idf(protein)); both occur in 3 of 4 docs
    assert boosted["near"] == pytest.approx(plain["near"] + 0.5 * w / 1**2, rel=1e-6)
    assert boosted["far"] == pytest.approx(plain["far"] + 0.5 * w / 3**2, rel=1e-6)
    assert boosted["apart"] == pytest.approx(plain["apart"], rel=1e-7)  # outside the window
    assert s.search({"q": "virus protein"}, proximity=0.0).to_run() == s.search({"q": "virus protein"}).to_run()
    assert [d for d, _ in s.search({"q": "virus protein"}, proximity=0.5).hits(0)][0] == "near"


def test_proximity_needs_positions(tmp_path):
    build_index([Document("a", "", "virus protein", 1)], tmp_path / "ix")
    with pytest.raises(SoundingError, match="positions"):
        Searcher(tmp_path / "ix").search({"q": "virus protein"}, proximity=0.1)


def test_typo_budget_and_lookup():
    assert [typo_budget(w) for w in ("cell", "virus", "proteins", "infection")] == [0, 1, 1, 2]
    m = TypoMatcher(["protein", "portion", "cell", "cells", "infect"])
    assert m.variants("protien") == [("protein", 1)]  # a swap is one typo
    assert m.variants("cel") == []  # under 5 characters: exact only
    assert ("protein", 0) not in m.variants("protein")


def test_typo_variants_are_down_weighted(tmp_path):
    docs = [Document("a", "", "protein folding", 1), Document("b", "", "membrane", 2)]
    build_index(docs, tmp_path / "ix")
    s = Searcher(tmp_path / "ix")
    exact = dict(s.search({"q": "protein"}).hits(0))
    assert s.search({"q": "protien"}).to_run() == {"q": {}}  # without tolerance the typo finds nothing
    fuzzy = dict(s.search({"q": "protien"}, typos=True).hits(0))
    assert fuzzy["a"] == pytest.approx(0.5 * exact["a"], rel=1e-6)
    both = dict(s.search({"q": "protein"}, typos=True).hits(0))
    assert both["a"] == pytest.approx(exact["a"], rel=1e-6)  # exact match keeps its full weight


def one_edit_typo(word: str, rng: random.Random) -> str:
    i = rng.randrange(1, len(word) - 1)
    kind = rng.choice(["swap", "drop", "double", "replace"])
    if kind == "swap":
        return word[:i] + word[i + 1] + word[i] + word[i + 2:]
    if kind == "drop":
        return word[:i] + word[i + 1:]
    if kind == "double":
        return word[:i] + word[i] + word[i:]
    return word[:i] + rng.choice("aeiourstnl") + word[i + 1:]


@pytest.mark.realdata
def test_typo_tolerance_recovers_real_queries(beir_dir, tmp_path):
    from sounding.datasets import load_dataset

    ds = load_dataset(beir_dir("scifact"))
    build_index(ds.corpus(), tmp_path / "ix")
    s = Searcher(tmp_path / "ix")
    rng = random.Random(13)
    typoed = {}
    for qid, text in ds.queries.items():
        words = text.split()
        j = max(range(len(words)), key=lambda i: len(words[i]))  # the longest word gets one typo
        if len(words[j]) >= 5:
            words[j] = one_edit_typo(words[j], rng)
        typoed[qid] = " ".join(words)

    def ndcg(queries, **kw):
        return evaluate(ds.qrels, s.search(queries, **kw).to_run(), ["nDCG@10"], remove_self_hits=True)["nDCG@10"]

    clean, broken, repaired = ndcg(ds.queries), ndcg(typoed), ndcg(typoed, typos=True)
    assert broken < clean - 0.02  # the typos really hurt
    assert repaired > broken + 0.5 * (clean - broken)  # tolerance recovers more than half of the loss
