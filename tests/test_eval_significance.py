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
