"""Paired significance: scipy's t-test, a sane randomization test, bootstrap CI, win/tie/loss, Holm."""
import itertools

import numpy as np
import pytest
from scipy import stats

from sounding.errors import SoundingError
from sounding.eval import bootstrap_ci, compare, holm, paired_t_test, randomization_test


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_t_test_equals_scipy_ttest_rel(seed):
    rng = np.random.default_rng(seed)
    a = rng.random(200)
    b = np.clip(a + rng.normal(0.02, 0.1, 200), 0, 1)
    t, p = paired_t_test(a, b)
    ref = stats.ttest_rel(a, b)
    assert abs(t - ref.statistic) < 1e-9 and abs(p - ref.pvalue) < 1e-9
    c = compare(a, b, permutations=1000, resamples=1000)
    assert abs(c.t - ref.statistic) < 1e-9 and abs(c.t_pvalue - ref.pvalue) < 1e-9


def test_identical_systems_give_p_one_and_all_ties():
    a = np.random.default_rng(0).random(50)
    c = compare(a, a.copy())
    assert c.t_pvalue == 1.0 and c.rand_pvalue == 1.0 and c.t == 0.0
    assert (c.wins, c.ties, c.losses) == (0, 50, 0) and c.diff == 0.0
    assert c.ci_low == 0.0 and c.ci_high == 0.0


def test_a_big_consistent_difference_is_significant():
    rng = np.random.default_rng(1)
    b = rng.random(100) * 0.5
    a = b + 0.2 + rng.normal(0, 0.02, 100)
    c = compare(a, b, permutations=10_000)
    assert c.rand_pvalue == pytest.approx(1 / 10_001)  # no flip pattern reaches the observed sum
    assert c.t_pvalue < 1e-30 and c.wins == 100
    assert 0.19 < c.ci_low < c.diff < c.ci_high < 0.21


def test_randomization_p_approaches_the_exact_sign_flip_p_value():
    d = np.array([0.3, -0.1, 0.25, 0.05, -0.2, 0.4, 0.15, -0.05])
    observed = abs(d.sum())
    flips = [abs((d * np.array(s)).sum()) for s in itertools.product([1, -1], repeat=len(d))]
    exact = np.mean(np.array(flips) >= observed - 1e-12)
    p = randomization_test(d, np.zeros_like(d), permutations=40_000, seed=3)
    assert abs(p - exact) < 0.01
    assert p == randomization_test(d, np.zeros_like(d), permutations=40_000, seed=3)  # seeded


def test_bootstrap_ci_of_a_constant_difference_is_that_constant():
    a = np.linspace(0, 1, 30)
    assert bootstrap_ci(a + 0.1, a) == pytest.approx((0.1, 0.1))


def test_bootstrap_ci_covers_the_mean_and_widens_with_confidence():
    rng = np.random.default_rng(4)
    a, b = rng.random(80), rng.random(80)
    lo95, hi95 = bootstrap_ci(a, b)
    lo99, hi99 = bootstrap_ci(a, b, confidence=0.99)
    assert lo99 < lo95 < (a - b).mean() < hi95 < hi99


def test_win_tie_loss_counts():
    c = compare([0.5, 0.2, 0.3, 0.0], [0.4, 0.2, 0.6, 0.0], permutations=100, resamples=100)
    assert (c.wins, c.ties, c.losses) == (1, 2, 1) and c.n == 4
    assert c.mean_a == pytest.approx(0.25) and c.diff == pytest.approx(-0.05)


def test_holm_by_hand():
    # sorted: 0.005*4 = 0.02, 0.01*3 = 0.03, 0.03*2 = 0.06, 0.04*1 = 0.04 -> raised to 0.06 (monotone)
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.5, 0.6]) == pytest.approx([1.0, 1.0])  # capped at 1
    assert holm([0.02]) == pytest.approx([0.02]) and holm([]) == []


def test_misaligned_or_tiny_inputs_are_user_errors():
    with pytest.raises(SoundingError):
        compare([0.1, 0.2], [0.1])
    with pytest.raises(SoundingError):
        compare([0.1], [0.2])
    with pytest.raises(SoundingError):
        compare([0.1, float("nan")], [0.2, 0.3])


def test_compare_takes_qid_mappings_and_evaluate_results():
    from sounding import compare, evaluate

    qrels = {f"q{i}": {"d1": 1, "d2": 0} for i in range(12)}
    run_a = {f"q{i}": {"d1": 2.0, "d2": 1.0} if i % 3 else {"d2": 2.0, "d1": 1.0} for i in range(12)}
    run_b = {f"q{i}": {"d2": 2.0, "d1": 1.0} if i % 4 else {"d1": 2.0, "d2": 1.0} for i in range(12)}
    ea = evaluate(qrels, run_a, ["nDCG@10"], per_query=True)
    eb = evaluate(qrels, run_b, ["nDCG@10"], per_query=True)
    qids = sorted(qrels)
    direct = compare([ea["per_query"]["nDCG@10"][q] for q in qids], [eb["per_query"]["nDCG@10"][q] for q in qids])
    assert compare(ea["per_query"]["nDCG@10"], eb["per_query"]["nDCG@10"]) == direct
    assert compare(ea, eb) == direct  # one measure: no need to name it
    # mappings are paired by query id, whatever their order
    assert compare(dict(reversed(ea["per_query"]["nDCG@10"].items())), eb["per_query"]["nDCG@10"]) == direct
    two = evaluate(qrels, run_a, ["nDCG@10", "RR@100"], per_query=True)
    assert compare(two, evaluate(qrels, run_b, ["nDCG@10", "RR@100"], per_query=True), measure="nDCG@10") == direct
    with pytest.raises(SoundingError, match="say which with measure="):
        compare(two, two)
    with pytest.raises(SoundingError, match="different queries .1 only in A: 'q11'; 0 only in B"):
        compare(ea["per_query"]["nDCG@10"], {q: v for q, v in eb["per_query"]["nDCG@10"].items() if q != "q11"})
    with pytest.raises(SoundingError, match="both as"):
        compare(ea["per_query"]["nDCG@10"], [0.5] * 12)
    with pytest.raises(SoundingError, match="query 'q1': dict is not a number"):
        compare({"q1": {"d": 1}, "q2": {"d": 1}}, {"q1": 0.1, "q2": 0.2})
