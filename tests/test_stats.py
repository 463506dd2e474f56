"""Tests of twin.compliance.stats: hand-computed examples and seeded error-rate checks.

The hand examples pin each statistic and p-value to a closed form or to scipy. The error-rate
checks simulate fair and biased reels with seeded numpy generators, so every run draws the same
numbers and a failure means a change in behaviour, not bad luck. Each error-rate assertion is
a binomial 99.9 % interval (or one-sided 99.9 % Clopper-Pearson bound) around the rate the
test should have; for a correct implementation a fresh seed would fail it with probability
about 0.1 %. The heavier repetitions live in tests/test_stats_slow.py.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy import stats as sps

from twin.compliance.stats import (
    TestResult,
    benjamini_hochberg,
    effective_games,
    hold_band,
    hold_tail_test,
    hold_variance_test,
    holm,
    independence_test,
    pool_cells,
    runs_test,
    select_then_test,
    stop_frequency_test,
    win_cgf,
    win_tails,
)
from twin.machines.analysis import analyse, win_distribution
from twin.machines.par import load_game

# Reel 1 and reel 3 of scenarios/games/classic-3reel.toml: 22 stops on a 64-stop virtual reel.
REEL1 = np.array([2, 2, 5, 2, 4, 2, 3, 2, 5, 2, 3, 2, 4, 2, 5, 2, 3, 2, 5, 2, 3, 2], float)
REEL3 = np.array([1, 3, 5, 3, 3, 3, 3, 2, 5, 2, 3, 2, 3, 2, 5, 2, 3, 2, 5, 2, 3, 2], float)
ALPHA = 0.05


def rejection_rate(
    true_weights: np.ndarray, tested_weights: np.ndarray, spins: int, machines: int, seed: int
) -> tuple[int, np.ndarray]:
    """Simulate ``machines`` reels drawn from ``true_weights``; count rejections at ALPHA."""
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(spins, true_weights / true_weights.sum(), size=machines)
    p = np.array([stop_frequency_test(c, tested_weights).p_value for c in counts])
    return int(np.count_nonzero(p <= ALPHA)), p


def lower_bound(successes: int, trials: int, confidence: float = 0.999) -> float:
    """One-sided Clopper-Pearson lower confidence bound of a binomial proportion."""
    if successes == 0:
        return 0.0
    return float(sps.beta.ppf(1 - confidence, successes, trials - successes + 1))


# --- stop_frequency_test --------------------------------------------------------------------


def test_stop_frequency_hand_example() -> None:
    # n = 60, E = 20 each: X^2 = (100 + 0 + 100) / 20 = 10 on 2 dof, p = exp(-10 / 2).
    r = stop_frequency_test([10, 20, 30], [1, 1, 1])
    assert isinstance(r, TestResult) and r.name == "stop_frequency"
    assert r.statistic == pytest.approx(10.0)
    assert (r.dof, r.n) == (2.0, 60)
    assert r.p_value == pytest.approx(math.exp(-5), rel=1e-12)
    ref = sps.chisquare([10, 20, 30])
    assert r.p_value == pytest.approx(ref.pvalue, rel=1e-12)


def test_stop_frequency_weighted_matches_scipy() -> None:
    counts = np.array([9, 11, 26, 14, 40])
    weights = np.array([1, 1, 2, 1, 3])
    r = stop_frequency_test(counts, weights)
    ref = sps.chisquare(counts, counts.sum() * weights / weights.sum())
    assert r.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert r.p_value == pytest.approx(ref.pvalue, rel=1e-12)
    assert (r.dof, r.n) == (4.0, 100)


def test_pool_cells_merges_adjacent_and_tail() -> None:
    # Running sums 1, 2, 4, 8 close the first group at index 3; 8 closes [4]; the tail [5]
    # (E = 4 < 5) joins the last group.
    assert pool_cells([1, 1, 2, 4, 8, 4], 5.0) == [[0, 1, 2, 3], [4, 5]]
    assert pool_cells([5, 5, 5], 5.0) == [[0], [1], [2]]
    assert pool_cells([1, 1], 5.0) == [[0, 1]]
    assert pool_cells([], 5.0) == []


def _exact_pearson_p(counts: list[int], weights: list[int]) -> float:
    """P(X^2 >= observed) by enumerating every multinomial outcome (small n only)."""
    from itertools import combinations

    n, k = sum(counts), len(counts)
    p = np.array(weights, float) / sum(weights)
    e = n * p
    obs = float(np.sum((np.array(counts) - e) ** 2 / e))
    total = 0.0
    for bars in combinations(range(n + k - 1), k - 1):  # stars and bars
        c = np.diff((-1, *bars, n + k - 1)) - 1
        x = float(np.sum((c - e) ** 2 / e))
        if x >= obs - 1e-9:
            total += math.exp(
                math.lgamma(n + 1)
                - sum(math.lgamma(ci + 1) for ci in c)
                + float(np.dot(c, np.log(p)))
            )
    return total


def test_stop_frequency_sparse_reel_uses_an_exact_size_monte_carlo_p_value() -> None:
    # Weights sum to 20 and n = 20, so E = weights: two cells below 5 -> Monte Carlo on all 6
    # cells (no pooling). The p-value agrees with full enumeration within MC error (p ~ 0.05,
    # sequential MC with 20 exceedances: relative sd ~ 1/sqrt(20); bound 4 sd).
    counts, weights = [4, 0, 4, 4, 4, 4], [1, 1, 2, 4, 8, 4]
    r = stop_frequency_test(counts, weights)
    assert "Monte Carlo" in r.detail and r.dof == 0.0
    assert r.statistic == pytest.approx(9 + 1 + 2 + 0 + 2 + 0)
    exact = _exact_pearson_p(counts, weights)
    assert abs(r.p_value - exact) <= 4 * exact / math.sqrt(20), (r.p_value, exact)
    assert stop_frequency_test(counts, weights) == r  # reproducible: seeded from the data
    # With min_expected = 1 every expected count passes: the chi-square reference is used.
    assert stop_frequency_test(counts, weights, 1.0).dof == 5.0


def test_stop_frequency_too_few_observations() -> None:
    r = stop_frequency_test([3, 2, 4], [1, 1, 1])  # n = 9: E = 3 < 5, Monte Carlo
    assert "Monte Carlo" in r.detail and r.n == 9
    assert abs(r.p_value - _exact_pearson_p([3, 2, 4], [1, 1, 1])) < 0.05
    assert stop_frequency_test([0, 0], [1, 1]).detail == "too few observations"


def test_stop_frequency_zero_weight_stops() -> None:
    # A zero-weight stop that never appears is left out of the test...
    assert stop_frequency_test([10, 0, 30], [1, 0, 3]) == stop_frequency_test([10, 30], [1, 3])
    # ...and one that appears fails the reel outright.
    r = stop_frequency_test([10, 1, 30], [1, 0, 3])
    assert (r.statistic, r.p_value) == (math.inf, 0.0)
    assert "[1]" in r.detail


@pytest.mark.parametrize(
    ("counts", "weights"),
    [([1, 2], [1, 1, 1]), ([-1, 2], [1, 1]), ([1.5, 2], [1, 1]), ([1, 2], [0, 0]), ([1], [-1])],
)
def test_stop_frequency_rejects_invalid_input(counts: list[float], weights: list[float]) -> None:
    with pytest.raises(ValueError):
        stop_frequency_test(counts, weights)


# --- independence_test ----------------------------------------------------------------------


def test_independence_chi_square_2x2_hand_example() -> None:
    # All E = 20: X^2 = 4 * 10^2 / 20 = 20 on 1 dof; p = P(|N(0,1)| > sqrt(20)).
    r = independence_test([[30, 10], [10, 30]])
    assert r.statistic == pytest.approx(20.0)
    assert (r.dof, r.n) == (1.0, 80)
    assert r.p_value == pytest.approx(math.erfc(math.sqrt(10)), rel=1e-9)
    ref = sps.chi2_contingency([[30, 10], [10, 30]], correction=False)
    assert r.p_value == pytest.approx(ref.pvalue, rel=1e-12)


def test_independence_fisher_for_small_2x2() -> None:
    # Margins 4/4/4/4, N = 8: P(a = k) = C(4,k)^2 / 70 = 1, 16, 36, 16, 1 (/70). Observed a = 3
    # has P = 16/70; two-sided p sums every table no more likely: (1 + 16 + 16 + 1) / 70.
    r = independence_test([[3, 1], [1, 3]])
    assert r.p_value == pytest.approx(34 / 70, rel=1e-12)
    assert r.statistic == pytest.approx(9.0)  # odds ratio 3 * 3 / (1 * 1)
    assert (r.dof, r.n) == (0.0, 8)
    assert "Fisher" in r.detail


def test_independence_r_by_c_matches_scipy() -> None:
    table = [[20, 15, 25], [30, 35, 10], [12, 18, 20]]
    r = independence_test(table)
    ref = sps.chi2_contingency(table, correction=False)
    assert r.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert r.p_value == pytest.approx(ref.pvalue, rel=1e-12)
    assert r.dof == 4.0


def test_independence_drops_empty_rows_and_columns() -> None:
    padded = [[30, 0, 10], [0, 0, 0], [10, 0, 30]]
    assert independence_test(padded) == independence_test([[30, 10], [10, 30]])


def test_independence_not_run_on_degenerate_tables() -> None:
    r = independence_test([[5, 7], [0, 0]])
    assert r.p_value == 1.0 and "fewer than two" in r.detail
    assert independence_test(np.zeros((2, 2))).p_value == 1.0


def test_independence_warns_about_sparse_larger_tables() -> None:
    r = independence_test([[10, 2, 8], [12, 1, 9]])
    assert "cells with expected count < 5" in r.detail and r.dof == 2.0


# --- runs_test ------------------------------------------------------------------------------


def runs_p(z: float) -> float:
    return math.erfc(abs(z) / math.sqrt(2))


def test_runs_alternating_sequence() -> None:
    # n1 = n2 = 10, R = 20: E[R] = 11, Var[R] = 2*100*(200 - 20) / (400 * 19) = 90/19.
    r = runs_test(np.arange(20) % 2 == 0)
    z = 9 / math.sqrt(90 / 19)
    assert r.statistic == pytest.approx(z)
    assert r.p_value == pytest.approx(runs_p(z))
    assert (r.n, r.dof) == (20, 0.0)


def test_runs_clustered_sequence() -> None:
    seq = [1] * 5 + [0] * 5 + [1] * 5 + [0] * 5  # R = 4, too few runs
    r = runs_test(seq)
    z = (4 - 11) / math.sqrt(90 / 19)
    assert r.statistic == pytest.approx(z)
    assert r.p_value == pytest.approx(runs_p(z))


def test_runs_unbalanced_hand_example() -> None:
    # n1 = 6, n2 = 18, R = 13 (six single wins between seven loss runs); E[R] = 10.
    seq = [0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0]
    r = runs_test(np.array(seq, dtype=bool))
    n1, n2, n = 6, 18, 24
    runs = 13
    mean = 2 * n1 * n2 / n + 1  # 10
    var = 2 * n1 * n2 * (2 * n1 * n2 - n) / (n * n * (n - 1))
    assert r.statistic == pytest.approx((runs - mean) / math.sqrt(var))
    assert r.p_value == pytest.approx(runs_p(r.statistic))


def test_runs_not_run_when_too_short_or_constant() -> None:
    short = runs_test([True, False] * 9)
    assert short.p_value == 1.0 and "too few" in short.detail
    same = runs_test([True] * 50)
    assert same.p_value == 1.0 and same.detail == "all outcomes are equal"
    assert runs_test([]).p_value == 1.0
    with pytest.raises(ValueError):
        runs_test([0, 1, 2] * 10)


# --- holm / benjamini_hochberg --------------------------------------------------------------


def test_holm_hand_example() -> None:
    # Sorted 0.005 <= 0.05/4, 0.01 <= 0.05/3, 0.03 > 0.05/2: stop; reject the first two.
    flags = holm([0.01, 0.04, 0.03, 0.005], 0.05)
    assert flags.tolist() == [True, False, False, True]
    assert flags.dtype == np.bool_


def test_bh_hand_example_step_up() -> None:
    # m = 4, thresholds k * q / m = 0.0125, 0.025, 0.0375, 0.05. Sorted 0.001 passes, 0.03
    # fails its 0.025, but 0.035 <= 0.0375 passes, so step-up rejects all three smallest.
    p = [0.9, 0.035, 0.001, 0.03]
    assert benjamini_hochberg(p, 0.05).tolist() == [False, True, True, True]
    assert holm(p, 0.05).tolist() == [False, False, True, False]


def test_multiple_testing_edge_cases() -> None:
    assert holm([], 0.05).shape == (0,) and benjamini_hochberg([], 0.05).shape == (0,)
    assert holm([0.05], 0.05).tolist() == [True]  # the boundary rejects
    assert benjamini_hochberg([0.2, 0.2], 0.05).tolist() == [False, False]
    assert benjamini_hochberg([0.04, 0.04], 0.05).tolist() == [True, True]  # ties
    with pytest.raises(ValueError):
        holm([0.1, 1.2], 0.05)
    with pytest.raises(ValueError):
        benjamini_hochberg([0.1, float("nan")], 0.05)
    with pytest.raises(ValueError):
        holm([0.1], 0.0)


def holm_reference(p: np.ndarray, alpha: float) -> np.ndarray:
    """Holm from its adjusted p-values: max over earlier ranks of min(1, (m - i) p_(i))."""
    m = p.size
    order = np.argsort(p, kind="stable")
    adjusted = np.maximum.accumulate(np.minimum(1.0, (m - np.arange(m)) * p[order]))
    out = np.zeros(m, dtype=bool)
    out[order] = adjusted <= alpha
    return out


def test_holm_and_bh_agree_with_adjusted_p_values() -> None:
    rng = np.random.default_rng(3)
    for _ in range(200):
        m = int(rng.integers(1, 30))
        p = np.where(rng.random(m) < 0.3, rng.random(m) * 0.01, rng.random(m))
        assert np.array_equal(holm(p, 0.05), holm_reference(p, 0.05))
        bh = sps.false_discovery_control(p, method="bh")
        assert np.array_equal(benjamini_hochberg(p, 0.05), bh <= 0.05)


# --- hold band and hold variance test -------------------------------------------------------

Z999 = 3.2905267314918945  # norm.ppf(0.9995)


def test_hold_band_numbers() -> None:
    # 8 % hold, sd 6 per unit wager, 1,000,000 games: half-width 3.29053 * 6 / 1000.
    lo, hi = hold_band(0.08, 6.0, 1_000_000)
    assert lo == pytest.approx(0.08 - 0.0197431604, abs=1e-10)
    assert hi == pytest.approx(0.08 + 0.0197431604, abs=1e-10)
    # 95 %: z = 1.959964; 10,000 games of sd 2.5 give +/- 0.0489991.
    lo, hi = hold_band(0.1, 2.5, 10_000, confidence=0.95)
    assert [lo, hi] == pytest.approx([0.1 - 0.04899910, 0.1 + 0.04899910])
    # sd given in money per game at 2.00 a game: the same band as sd 6 in wager units.
    assert hold_band(0.08, 12.0, 1_000_000, wager_per_game=2.0) == pytest.approx(
        hold_band(0.08, 6.0, 1_000_000)
    )


def test_hold_band_rejects_invalid_input() -> None:
    for kwargs in ({"games": 0}, {"sd_per_game": -1.0}, {"confidence": 1.0}):
        args = {"theoretical_hold": 0.08, "sd_per_game": 6.0, "games": 100} | kwargs
        with pytest.raises(ValueError):
            hold_band(**args)
    with pytest.raises(ValueError):
        hold_band(0.08, 6.0, 100, wager_per_game=0.0)


def test_effective_games() -> None:
    assert effective_games([1, 1, 1, 1]) == pytest.approx(4.0)
    assert effective_games([1, 3]) == pytest.approx(16 / 10)
    assert effective_games([]) == 0.0
    assert effective_games([0, 0]) == 0.0
    with pytest.raises(ValueError):
        effective_games([1, -1])


def test_hold_variance_test_hand_example() -> None:
    # z = (0.10 - 0.08) / (6 / 1000) = 10/3; p = erfc(z / sqrt 2) = 8.58e-4.
    r = hold_variance_test(0.10, 0.08, 6.0, 1_000_000)
    assert r.statistic == pytest.approx(10 / 3)
    assert r.p_value == pytest.approx(math.erfc(10 / 3 / math.sqrt(2)))
    assert r.p_value == pytest.approx(8.5812e-4, rel=1e-4)
    assert r.n == 1_000_000


def test_hold_variance_test_consistent_with_band() -> None:
    lo, hi = hold_band(0.08, 6.0, 250_000)
    for edge in (lo, hi):
        assert hold_variance_test(edge, 0.08, 6.0, 250_000).p_value == pytest.approx(0.001)


def test_hold_variance_test_edge_cases() -> None:
    assert hold_variance_test(0.1, 0.08, 6.0, 0.5).p_value == 1.0
    assert hold_variance_test(0.1, 0.08, 0.0, 100).p_value == 0.0
    assert hold_variance_test(0.08, 0.08, 0.0, 100).p_value == 1.0


# --- error rates (seeded simulation) --------------------------------------------------------


@pytest.mark.parametrize(
    ("weights", "spins", "seed"),
    [(REEL1, 1000, 101), (REEL3, 300, 102)],  # REEL3 at 300 spins pools its weight-1 stop
)
def test_stop_frequency_size_under_null(weights: np.ndarray, spins: int, seed: int) -> None:
    """2,000 fair machines: the rejection count at alpha = 0.05 lies in the binomial 99.9 %
    interval of 0.05 (69..133). A correct test fails this by chance with probability about
    0.1 % per case; the seed is fixed, so a failure is a change in behaviour. Measured: 99
    (reel 1, 1,000 spins) and 94 (reel 3, 300 spins) of 2,000."""
    machines = 2000
    rejected, _ = rejection_rate(weights, weights, spins, machines, seed)
    lo, hi = sps.binom.interval(0.999, machines, ALPHA)
    assert lo <= rejected <= hi, rejected / machines


def test_bh_across_500_fair_machines_rarely_rejects() -> None:
    """100 floors of 500 fair machines, 1,000 spins each. With BH at q = 0.05, P(any
    rejection on a floor) should be about q (all nulls true); unadjusted, at least one of 500
    machines fails almost surely (1 - 0.95^500). Measured: 8 floors of 100 with any BH
    rejection, every floor with an unadjusted one. Asserted: at most the binomial 99.9 % upper
    bound for q (13). BH works at p ~ 1e-4 here, where the chi-square tail at 1,000 spins is
    about 10 % optimistic, so the true P(any) is nearer 0.06 (the slow test measured 0.07)
    and the false-failure probability of this check is about 0.5 % rather than 0.1 %."""
    floors, machines, spins = 100, 500, 1000
    rng = np.random.default_rng(2024)
    p_true = REEL1 / REEL1.sum()
    any_bh = any_raw = 0
    for _ in range(floors):
        counts = rng.multinomial(spins, p_true, size=machines)
        p = np.array([stop_frequency_test(c, REEL1).p_value for c in counts])
        any_bh += bool(benjamini_hochberg(p, ALPHA).any())
        any_raw += bool((p <= ALPHA).any())
    assert any_raw == floors
    assert any_bh <= sps.binom.ppf(0.9995, floors, ALPHA), any_bh / floors


def test_power_against_one_stop_plus_20_percent() -> None:
    """The heaviest stop of reel 1 (weight 5 of 64) raised to 6, 20,000 spins, 500 machines:
    the 99.9 % Clopper-Pearson lower bound of the measured power must be >= 0.9 (measured
    499 of 500, lower bound 0.982; noncentral chi-square theory gives 0.9995)."""
    biased = REEL1.copy()
    biased[2] *= 1.2
    machines = 500
    rejected, _ = rejection_rate(biased, REEL1, 20_000, machines, 77)
    assert lower_bound(rejected, machines) >= 0.9, rejected / machines


# --- exact law of the win and its saddle-point tails (item 20(f)) ---------------------------


GAMES_DIR = Path(__file__).resolve().parent.parent / "scenarios" / "games"


def _pmf_totals(law: Any, n: int, reps: int, rng: np.random.Generator) -> np.ndarray:
    """Monte Carlo of the total win of ``n`` games, drawn from the pmf (features simulated
    spin by spin with their retriggers): an implementation independent of the CGF."""
    idx = rng.choice(law.base_values.size, size=(reps, n), p=law.base_probs)
    tot = law.base_values[idx].sum(axis=1).astype(np.float64)
    rows = np.repeat(np.arange(reps), law.base_trigger[idx].sum(axis=1))
    pending = np.full(rows.size, law.spins, np.int64)
    while pending.size:
        j = rng.choice(law.free_values.size, size=pending.size, p=law.free_probs)
        np.add.at(tot, rows, law.free_values[j])
        pending = pending - 1 + np.where(law.free_retrigger[j], law.spins, 0)
        rows, pending = rows[pending > 0], pending[pending > 0]
    return tot


def test_win_law_has_the_exact_mean_and_variance_of_the_par_analysis() -> None:
    game = load_game(GAMES_DIR / "classic-3reel.toml")
    a, law = analyse(game), win_distribution(game)
    k = win_cgf(law, 0.0)
    assert k is not None
    assert k[0] == 0.0
    assert k[1] == pytest.approx(float(a.rtp) * game.cost, rel=1e-12)
    assert k[2] == pytest.approx(float(a.variance) * game.cost**2, rel=1e-12)


def test_saddle_point_tails_match_monte_carlo_where_the_normal_curve_fails() -> None:
    """300 games of classic-3reel, 40,000 simulated totals (fixed seed). At 2.5 to 5 sd
    from the mean the saddle-point tail is within a factor 1.6 of the Monte Carlo share
    (which has at least ~40 hits there: its own relative sd is at most 16 %, so a correct
    approximation fails the bound by chance with probability below 1e-3), while the normal
    curve is off by a factor 5 or more at 4 and 5 sd (the skew of the top prizes)."""
    game = load_game(GAMES_DIR / "classic-3reel.toml")
    law = win_distribution(game)
    n = 300
    tot = _pmf_totals(law, n, 40_000, np.random.default_rng(11))
    k = win_cgf(law, 0.0)
    assert k is not None
    mu, sd = k[1] * n, math.sqrt(k[2] * n)
    for z in (-2.5, 2.5, 3.0, 4.0, 5.0):
        x = round(mu + z * sd)
        low, high = win_tails(law, [(1, n)], x)
        lr = low if z < 0 else high
        mc = float(np.mean(tot <= x) if z < 0 else np.mean(tot >= x))
        assert 1 / 1.6 <= lr / mc <= 1.6, (z, lr, mc)
        if z >= 4:
            normal = float(sps.norm.sf(abs(x - mu) / sd))
            assert mc / normal >= 5, (z, mc, normal)


def test_hold_tail_test_mixes_bet_levels_and_flags_a_halved_pay_table() -> None:
    game = load_game(GAMES_DIR / "classic-3reel.toml")
    law = win_distribution(game)
    k = win_cgf(law, 0.0)
    assert k is not None
    levels = [(1, 4000), (3, 1000)]
    mean = k[1] * (4000 + 3 * 1000)
    fair = hold_tail_test(law, levels, round(mean), game.cost)
    assert fair.p_value > 0.9 and fair.n == 5000
    halved = hold_tail_test(law, levels, round(mean / 2), game.cost)
    assert halved.p_value < 1e-12
    assert hold_tail_test(law, [], 0, game.cost).p_value == 1.0


def test_stop_frequency_size_at_1000_spins_of_a_sparse_reel() -> None:
    """A reel with weight-1 stops of a 94 total (E = 10.6 at 1,000 spins, 3 stops) and the
    same reel at 250 spins (E = 2.7: Monte Carlo). 1,500 fair machines each: the rejection
    count at 0.05 and at 0.01 lies in the binomial 99.9 % interval (a correct test fails one
    of the four checks by chance with probability about 0.4 %)."""
    w = np.array([1] + [30] * 2 + [1, 1] + [30], float)
    p = w / w.sum()
    rng = np.random.default_rng(77)
    for spins in (1000, 250):
        pv = np.array(
            [stop_frequency_test(c, w).p_value for c in rng.multinomial(spins, p, size=1500)]
        )
        for level in (0.05, 0.01):
            lo, hi = sps.binom.interval(0.999, 1500, level)
            assert lo <= np.count_nonzero(pv <= level) <= hi, (spins, level)


def test_select_then_test_both_settings_change_the_outcome() -> None:
    # three machines of 4 tests each; machine 0 is clearly off, machine 1 marginal
    fams = [[1e-9, 0.015, 0.5, 0.9], [0.002, 0.3, 0.6, 0.8], [0.4, 0.5, 0.7, 0.9]]
    out = select_then_test(fams, q=0.05, alpha=0.05)
    assert [f.tolist() for f in out] == [
        [True, True, False, False],  # Holm at 0.05 within machine 0: 1e-9 and 0.015 fail
        [True, False, False, False],  # machine 1: Bonferroni 0.008 <= BH 2 * 0.05 / 3
        [False] * 4,
    ]
    # the floor's FDR: at q = 0.01 machine 1 (0.008 > 0.01 * 2 / 3) is no longer selected
    assert [bool(f.any()) for f in select_then_test(fams, q=0.01, alpha=0.05)] == [
        True,
        False,
        False,
    ]
    # the machine's confidence: at 99 % machine 0's second test no longer fails, and at
    # 99.9 % machine 1 (selected by the floor) has no failing test and is not reported
    assert select_then_test(fams, q=0.05, alpha=0.01)[0].tolist() == [True, False, False, False]
    assert not select_then_test(fams, q=0.05, alpha=0.001)[1].any()


def test_the_normal_helpers_give_scipys_numbers_to_the_last_bit() -> None:
    """The tail tests' normal cdf, survival function and density are the very floats of
    ``sps.norm`` (so p-values, and the findings that print them, do not move), on values
    from the centre to far in both tails."""
    from twin.compliance.stats.results import _norm_cdf, _norm_pdf, _norm_sf

    rng = np.random.default_rng(2026)
    xs = [0.0, -0.0, 1e-300, 8.3, -8.3, 37.5, -37.5, 40.0]
    xs += rng.normal(0.0, 3.0, 4500).tolist() + rng.uniform(-39.0, 39.0, 1500).tolist()
    for x in xs:
        assert _norm_cdf(x) == float(sps.norm.cdf(x)), x
        assert _norm_sf(x) == float(sps.norm.sf(x)), x
        assert _norm_pdf(x) == float(sps.norm.pdf(x)), x
