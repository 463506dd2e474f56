"""Slow error-rate checks of twin.compliance.stats (run with ``-m slow``; each under 2 min).

Every check simulates with a seeded numpy generator, so results are reproducible. Each
asserts a measured rate against a binomial 99.9 % interval around its nominal value (or a
one-sided 99.9 % Clopper-Pearson bound for power): a correct implementation fails a single
check by chance with probability about 0.1 %, and with fixed seeds a failure means a change
in behaviour.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps

from twin.compliance.stats import (
    benjamini_hochberg,
    effective_games,
    hold_band,
    hold_variance_test,
    independence_test,
    runs_test,
    stop_frequency_test,
)

pytestmark = pytest.mark.slow

MACHINES = 10_000
ALPHA = 0.05
# Reel 1 and reel 3 of scenarios/games/classic-3reel.toml: 22 stops on a 64-stop virtual reel
# (the same reels as tests/test_stats.py).
REEL1 = np.array([2, 2, 5, 2, 4, 2, 3, 2, 5, 2, 3, 2, 4, 2, 5, 2, 3, 2, 5, 2, 3, 2], float)
REEL3 = np.array([1, 3, 5, 3, 3, 3, 3, 2, 5, 2, 3, 2, 3, 2, 5, 2, 3, 2, 5, 2, 3, 2], float)


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


def within_null_interval(rejected: int, trials: int, rate: float) -> bool:
    lo, hi = sps.binom.interval(0.999, trials, rate)
    return bool(lo <= rejected <= hi)


@pytest.mark.parametrize(
    ("weights", "spins", "seed"),
    [(REEL1, 1000, 201), (REEL3, 300, 202), (REEL3, 100, 203)],  # no / light / heavy pooling
)
def test_stop_frequency_size_10000_machines(weights: np.ndarray, spins: int, seed: int) -> None:
    """10,000 fair machines: rejections at 0.05 within the binomial 99.9 % interval (430..573).
    At 100 spins the 22 stops pool into 11 cells, testing that pooling keeps the size.
    Measured: 0.0514, 0.0497 and 0.0478."""
    rejected, p = rejection_rate(weights, weights, spins, MACHINES, seed)
    assert within_null_interval(rejected, MACHINES, ALPHA), rejected / MACHINES
    # The p-values are close to uniform, not just right at 0.05 (they are discrete, so
    # only a coarse check: the share below 0.01 and 0.5).
    assert within_null_interval(int(np.count_nonzero(p <= 0.01)), MACHINES, 0.01)
    assert abs(float(np.mean(p <= 0.5)) - 0.5) < 0.02


def test_bh_floors_of_500_fair_machines() -> None:
    """600 floors of 500 fair machines (20,000 spins each): with BH at q = 0.05 the share of
    floors with any rejection is within the binomial 99.9 % interval of q (all nulls true,
    independent p-values: P(any) = q). 20,000 spins keep the chi-square tail accurate at the
    p ~ 1e-4 BH works at; at 1,000 spins the same check measured 0.07 (42 of 600).
    Measured: 31 of 600 (0.052); interval 14..49."""
    floors, machines = 600, 500
    rng = np.random.default_rng(2025)
    p_true = REEL1 / REEL1.sum()
    any_bh = 0
    for _ in range(floors):
        counts = rng.multinomial(20_000, p_true, size=machines)
        p = np.array([stop_frequency_test(c, REEL1).p_value for c in counts])
        any_bh += bool(benjamini_hochberg(p, ALPHA).any())
    assert within_null_interval(any_bh, floors, ALPHA), any_bh / floors


def test_power_one_stop_plus_20_percent_5000_machines() -> None:
    """Heaviest stop (5 of 64) raised 20 %, 20,000 spins: power >= 0.9 with 99.9 % confidence
    (measured 0.9996). The rarest stop (SEVEN, 2 of 64) raised 20 % has power only about
    0.85 at 20,000 spins (measured 0.835, noncentral chi-square 0.856), and reaches 0.9 by
    30,000 spins (measured 0.967, theory 0.976): asserted as 99.9 % lower bounds of 0.8 and
    0.9."""
    machines = 5000
    heavy = REEL1.copy()
    heavy[2] *= 1.2
    rejected, _ = rejection_rate(heavy, REEL1, 20_000, machines, 301)
    assert lower_bound(rejected, machines) >= 0.9, rejected / machines

    light = REEL1.copy()
    light[0] *= 1.2
    rejected, _ = rejection_rate(light, REEL1, 20_000, machines, 302)
    assert lower_bound(rejected, machines) >= 0.8, rejected / machines
    rejected, _ = rejection_rate(light, REEL1, 30_000, machines, 303)
    assert lower_bound(rejected, machines) >= 0.9, rejected / machines


def test_runs_test_size() -> None:
    """10,000 fair sequences of 1,000 outcomes with P(win) = 0.3: rejections at 0.05 within
    the binomial 99.9 % interval (measured 0.0508)."""
    rng = np.random.default_rng(401)
    wins = rng.random((MACHINES, 1000)) < 0.3
    rejected = sum(runs_test(w).p_value <= ALPHA for w in wins)
    assert within_null_interval(rejected, MACHINES, ALPHA), rejected / MACHINES


def test_runs_test_detects_streaks() -> None:
    """A sticky sequence (repeat the last outcome with probability 0.6 instead of 0.5) of
    1,000 outcomes is rejected with power >= 0.9 (measured 1.0)."""
    rng = np.random.default_rng(402)
    n_seq, n = 1000, 1000
    flips = rng.random((n_seq, n)) >= 0.6  # change outcome with probability 0.4
    seqs = (np.cumsum(flips, axis=1) % 2).astype(bool)
    rejected = sum(runs_test(s).p_value <= ALPHA for s in seqs)
    assert lower_bound(rejected, n_seq) >= 0.9, rejected / n_seq


def test_independence_size_previous_outcome_and_bet_level() -> None:
    """10,000 fair machines of 500 games (P(win) = 0.3, bet level uniform on 3 levels and
    independent of the outcome): previous x current outcome (2 x 2 transition counts) and
    bet level x outcome (3 x 2) are each rejected at rate 0.05 within binomial 99.9 %
    (measured 0.0457 and 0.0499)."""
    rng = np.random.default_rng(501)
    wins = rng.random((MACHINES, 500)) < 0.3
    bets = rng.integers(0, 3, size=(MACHINES, 500))
    rej_prev = rej_bet = 0
    for w, b in zip(wins, bets, strict=True):
        prev = np.zeros((2, 2))
        np.add.at(prev, (w[:-1].astype(int), w[1:].astype(int)), 1)
        bet = np.zeros((3, 2))
        np.add.at(bet, (b, w.astype(int)), 1)
        rej_prev += independence_test(prev).p_value <= ALPHA
        rej_bet += independence_test(bet).p_value <= ALPHA
    assert within_null_interval(rej_prev, MACHINES, ALPHA), rej_prev / MACHINES
    assert within_null_interval(rej_bet, MACHINES, ALPHA), rej_bet / MACHINES


def test_fisher_is_not_anticonservative() -> None:
    """Small 2 x 2 tables (20 games, P(win) = 0.3, two bet levels) go to Fisher's exact test,
    whose size is at most alpha: the rejection rate is at most the binomial 99.9 % upper
    bound of 0.05 (measured 0.0226: conservative, as expected for Fisher)."""
    rng = np.random.default_rng(502)
    rejected = 0
    for _ in range(MACHINES):
        w = (rng.random(20) < 0.3).astype(int)
        b = rng.integers(0, 2, size=20)
        t = np.zeros((2, 2))
        np.add.at(t, (b, w), 1)
        rejected += independence_test(t).p_value <= ALPHA
    assert rejected <= sps.binom.interval(0.999, MACHINES, ALPHA)[1], rejected / MACHINES


# A pay table in units of the wager: RTP 0.9, hold 0.1.
PAYS = np.array([0.0, 1.0, 2.0, 5.0, 25.0])
PROBS = np.array([0.64, 0.2, 0.1, 0.05, 0.01])
HOLD = 1.0 - float(PAYS @ PROBS)
SD = float(np.sqrt(PROBS @ PAYS**2 - (PAYS @ PROBS) ** 2))


def test_hold_band_coverage_equal_wagers() -> None:
    """10,000 correct machines of 10,000 equal-wager games: the actual hold leaves the 99.9 %
    band at rate 0.001 within binomial 99.9 % (and agrees with hold_variance_test).
    Measured 0.0014."""
    rng = np.random.default_rng(601)
    games = 10_000
    counts = rng.multinomial(games, PROBS, size=MACHINES)
    actual = 1.0 - counts @ PAYS / games
    lo, hi = hold_band(HOLD, SD, games)
    outside = int(np.count_nonzero((actual < lo) | (actual > hi)))
    assert within_null_interval(outside, MACHINES, 0.001), outside / MACHINES
    flagged = sum(hold_variance_test(a, HOLD, SD, games).p_value <= 0.001 for a in actual)
    assert abs(flagged - outside) <= 2  # the same decision, up to rounding at the edge


def test_hold_band_coverage_mixed_wagers_needs_effective_games() -> None:
    """Wagers of 1, 2 or 10 units (pays proportional): with n_eff = effective_games(wagers)
    the 99.9 % band keeps its rate; using the raw game count instead is too narrow and
    over-rejects. Measured 0.0018 with n_eff (about 890 of 2,000 games) and 0.0266 with
    the raw count."""
    rng = np.random.default_rng(602)
    machines, games = 5000, 2000
    wagers = rng.choice(np.array([1.0, 2.0, 10.0]), size=(machines, games), p=[0.5, 0.3, 0.2])
    pays = PAYS[rng.choice(PAYS.size, size=(machines, games), p=PROBS)]
    actual = 1.0 - (wagers * pays).sum(axis=1) / wagers.sum(axis=1)
    good = naive = 0
    for a, w in zip(actual, wagers, strict=True):
        lo, hi = hold_band(HOLD, SD, effective_games(w))
        good += not lo <= a <= hi
        lo, hi = hold_band(HOLD, SD, games)
        naive += not lo <= a <= hi
    assert within_null_interval(good, machines, 0.001), good / machines
    assert naive > sps.binom.interval(0.999, machines, 0.001)[1] * 5, naive / machines
