"""One query at a time (search/single.py) gives what the batch path gives: the same hits, score bits,
counts and reported settings, whatever the setting, analyzer, k or number of client threads."""
import random
import threading

import numpy as np
import pytest

from sounding.datasets import Document
from sounding.index import build_index
from sounding.retrieval.search import Searcher

WORDS = ["virus", "viruses", "cell", "cells", "protein", "gene", "genes", "the", "of", "tumor", "tumour", "café",
         "running", "run", "physiology", "B2B", "1,000", "it's", "JOHN'S", "naïve", "中国", "x" * 300]


def _docs(n=700, seed=4):
    rng = random.Random(seed)
    return [Document(f"d{i}", " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 4))),
                     " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 40))), i + 1) for i in range(n)]


def _queries(n=80, seed=9):
    rng = random.Random(seed)
    qs = [(f"q{i}", " ".join(rng.choice(WORDS + ["unknownword", "AND"]) for _ in range(rng.randint(1, 6))))
          for i in range(n)]
    return qs + [("empty", "the of"), ("none", "zzz qqq"), ("blank", "")]


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    path = tmp_path_factory.mktemp("single") / "ix"
    build_index(_docs(), path)
    return path


def _rows(res):
    return [(res.docs[i, : res.counts[i]].tolist(), res.scores[i, : res.counts[i]].view(np.uint32).tolist())
            for i in range(len(res.qids))]


def _same(one, batch, i):
    assert one.qids == [batch.qids[i]]
    assert _rows(one) == [_rows(batch)[i]]
    assert one.docs.shape == (1, batch.docs.shape[1]) and (one.docs[0] == batch.docs[i]).all()
    settings = dict(batch.settings, empty_queries=[q for q in batch.settings["empty_queries"] if q == batch.qids[i]])
    assert one.settings == settings


SETTINGS = [dict(k=10), dict(k=1), dict(k=64), dict(k=65), dict(k=1000), dict(k=5, lucene_norms=True),
            dict(k=7, lucene_ties=True), dict(layout="multifield", k=10), dict(k=20, k1=1.2, b=0.75)]


@pytest.mark.parametrize("options", SETTINGS)
def test_one_query_gives_the_batch_rows(index, options):
    s = Searcher(index)
    qs = _queries()
    batch = s.search(qs, **options)
    for i, q in enumerate(qs):
        _same(s.search([q], **options), batch, i)
    assert s.single._plan is not None and len(s.single._plan.texts) == len({t for _, t in qs})  # the path was taken
    for i, q in enumerate(qs[:10]):  # again: the texts' clauses are kept
        _same(s.search({q[0]: q[1]}, **options), batch, i)


def test_other_settings_and_layouts_take_the_batch_path(index):
    s = Searcher(index)
    qs = _queries()[:20]
    for options in (dict(layout="bm25f", k=10), dict(layout="multifield-max", k=10), dict(k=10, anserini_ties=True),
                    dict(k=10, typos=True)):
        batch = s.search(qs, **options)
        for i, q in enumerate(qs):
            _same(s.search([q], **options), batch, i)
    assert s.single._plan is None


@pytest.mark.parametrize("release", [False, True])
def test_client_threads_get_their_own_hits(index, release, monkeypatch):
    """Kernels holding the GIL, and kernels letting it go with the turn (kernels/handover.py)."""
    from sounding.retrieval.search import single
    from sounding.retrieval.search.kernels import handover

    if release:  # every query's kernel lets the GIL go, even a thread's searching alone
        monkeypatch.setattr(single, "RELEASE_POSTINGS", 0)
        monkeypatch.setattr(handover, "SIDE_BY_SIDE", 1 << 40)
    s = Searcher(index)
    qs = _queries()
    batch = s.search(qs, k=10)
    out = [None] * len(qs)

    def client(c):
        for i in range(c, len(qs), 4):
            out[i] = s.search([qs[i]], k=10)

    threads = [threading.Thread(target=client, args=(c,)) for c in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i in range(len(qs)):
        _same(out[i], batch, i)
    assert s.single._plan.release is release


def test_the_turn_is_taken_given_up_and_taken_over():
    """kernels/handover.py: a thread holds the turn from its kernel's end to its next kernel's start; a
    waiter takes a free turn at once, and one held by a thread gone after SPIN rounds."""
    import numba as nb

    from sounding.retrieval.search.kernels import handover

    @nb.njit
    def end_then_start(turn, me, start):
        handover.wait_for(turn, me)
        held = turn[0]
        if start:
            handover.give_up(turn, me)
        return held, turn[0]

    turn = np.zeros(1, np.int64)
    assert end_then_start(turn, 3, True) == (3, 0)  # free: taken; given up at the next start
    assert end_then_start(turn, 3, False) == (3, 3)
    assert end_then_start(turn, 3, False) == (3, 3)  # its own: kept
    assert end_then_start(turn, 5, True) == (5, 0)  # held by 3, gone: taken over after SPIN rounds
    turn[0] = 7

    @nb.njit
    def start(turn, me):
        handover.give_up(turn, me)
        return turn[0]

    assert start(turn, 5) == 7  # another thread's turn is not given up
    assert handover.mark() != handover.mark()


def test_a_python_analyzer_and_packed_postings(tmp_path):
    docs = _docs(300)
    build_index(docs, tmp_path / "sw", analyzer="swahili")
    build_index(docs, tmp_path / "packed", postings="packed")
    for path in (tmp_path / "sw", tmp_path / "packed"):
        s = Searcher(path)
        qs = _queries()[:30]
        batch = s.search(qs, k=10)
        for i, q in enumerate(qs):
            _same(s.search([q], k=10), batch, i)


def test_bad_values_are_refused_as_in_a_batch(index):
    from sounding.errors import SoundingError

    s = Searcher(index)
    for bad in (dict(k=0), dict(threads=0), dict(k1=-1.0)):
        with pytest.raises(SoundingError):
            s.search([("q", "virus")], **bad)


def test_compiled_query_terms_are_the_analysers(index):
    """Each text's (term id, count) pairs as QueryAnalysis.matches gives them, in the same order."""
    from test_compiled_analysis import _random_texts

    s = Searcher(index)
    s.search([("q", "virus")], k=3)
    texts = _random_texts(3000, 11) + [" ".join(WORDS), "VIRUS virus Viruses", "it's JOHN'S", ""]
    chain = s.single._chain
    for text in texts:
        ids, counts = chain.query(text)
        want = s.queries.analyse_batch((text,), False, 0.0)[0]
        assert list(zip(ids.tolist(), counts.tolist())) == want, text
