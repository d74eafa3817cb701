"""RBO and KTU (sounding.eval.agreement): hand-computed cases, and repro_eval's definitions written out
plainly (its `_rbo` loop; its `_KTU`: positions in the sorted union, then scipy's kendalltau) on random lists."""
import math
import random

import numpy as np
import pytest
from scipy.stats import kendalltau

from sounding.eval.agreement import agreement, keys, ktu, ranking, rbo


def rbo_by_loop(run, ideal, p, depth):
    """repro_eval's _rbo (after Clarke et al.), as a plain loop."""
    run_set, ideal_set, score, normalizer, weight = set(), set(), 0.0, 0.0, 1.0
    for i in range(depth):
        if i < len(run):
            run_set.add(run[i])
        if i < len(ideal):
            ideal_set.add(ideal[i])
        score += weight * len(ideal_set & run_set) / (i + 1)
        normalizer += weight
        weight *= p
    return score / normalizer


def ktu_by_union(a, b):
    """repro_eval's _KTU for lists of one length: positions in the sorted union, then kendalltau."""
    union = sorted(set(a + b))
    return kendalltau([union.index(d) for d in a], [union.index(d) for d in b]).statistic


def test_hand_computed_cases():
    # depth 3, p 0.9: overlaps 0, 2, 2 at depths 1, 2, 3 -> (0 + 0.9 * 2/2 + 0.81 * 2/3) / (1 + 0.9 + 0.81)
    assert rbo(["d1", "d2", "d3"], ["d2", "d1", "d4"], p=0.9, depth=3) == pytest.approx(1.44 / 2.71, abs=1e-15)
    assert rbo(list("abcdefghij"), list("abcdefghij")) == pytest.approx(1.0, abs=1e-15)
    assert rbo(list("abcde"), list("vwxyz"), depth=5) == 0.0
    # positions in the union a<b<c<d: [0, 1, 2] against [1, 0, 3]: pairs (1,2) discordant, (1,3) and (2,3)
    # concordant -> (2 - 1) / 3
    assert ktu(["d1", "d2", "d3"], ["d2", "d1", "d4"]) == pytest.approx(1 / 3, abs=1e-15)
    assert ktu(list("abcd"), list("dcba")) == pytest.approx(-1.0, abs=1e-15)
    assert ktu(list("abcd"), list("abcd")) == pytest.approx(1.0, abs=1e-15)
    assert math.isnan(ktu(["a"], ["a"]))  # fewer than 2 documents: undefined, as scipy
    # a shorter list: both cut to its length (repro_eval's scipy call needs equal lengths)
    assert ktu(["a", "b", "c"], ["b", "a"]) == ktu(["a", "b"], ["b", "a"]) == pytest.approx(-1.0)
    # a list shorter than the depth adds no document past its end; the depth still weighs every rank
    assert rbo(["a"], ["a", "b"], p=0.5, depth=2) == pytest.approx((1 * 1 + 0.5 * 1 / 2) / 1.5)


def test_equal_to_repro_evals_definitions_on_random_lists():
    rng = random.Random(7)
    pool = [f"d{i:02d}" for i in range(30)]
    a_keys, b_keys, expected_rbo, expected_ktu = [], [], [], []
    for _ in range(300):
        a, b = rng.sample(pool, 10), rng.sample(pool, 10)
        if rng.random() < 0.3:  # many shared documents
            b = a[:5] + rng.sample([d for d in pool if d not in a[:5]], 5)
            rng.shuffle(b)
        for p, depth in ((0.9, 10), (0.95, 10), (0.9, 5)):
            assert rbo(a, b, p=p, depth=depth) == pytest.approx(rbo_by_loop(b, a, p, depth), abs=1e-12)
        assert ktu(a, b) == pytest.approx(ktu_by_union(a, b), abs=1e-12)
        ka, kb = keys(a, b)
        a_keys.append(ka[0])
        b_keys.append(kb[0])
        expected_rbo.append(rbo_by_loop(b, a, 0.9, 10))
        expected_ktu.append(ktu_by_union(a, b))
    # many queries at once: the same numbers (keys need only keep each pair's docid order)
    r, t = agreement(np.array(a_keys), np.array(b_keys))
    assert r == pytest.approx(expected_rbo, abs=1e-12) and t == pytest.approx(expected_ktu, abs=1e-12)


def test_ranking_is_trec_eval_order_without_the_own_hit():
    hits = {"q1": 9.0, "b": 2.0, "a": 2.0, "c": 3.0, "z": 1.0}
    assert ranking(hits, depth=3, drop="q1") == ["c", "b", "a"]  # ties by docid descending
    assert ranking(hits, depth=2) == ["q1", "c"]
