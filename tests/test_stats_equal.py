"""The batched end-of-run statistics give the very floats of the scalar implementations they
replaced (kept in ``tests/stats_reference.py``): same p-values, statistics and details, bit
for bit, on the shipped PAR sheets' laws and random data."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import numpy as np
import pytest
import stats_reference as ref

from twin.compliance.stats import hold_tail_test, hold_tail_tests, win_cgf, win_cgfs, win_tails
from twin.compliance.stats.rng import MC_DRAWS
from twin.compliance.stats.tails import WinLaw
from twin.machines.analysis import WinDistribution, win_distribution
from twin.machines.par import load_game

GAMES_DIR = Path(__file__).resolve().parent.parent / "scenarios" / "games"
SHEETS = sorted(GAMES_DIR.glob("*.toml"))
T = TypeVar("T")


def _shipped_laws() -> list[WinLaw]:
    return [win_distribution(load_game(p)) for p in SHEETS]


def _law_with_one_spin(law: WinDistribution) -> WinDistribution:
    """``law`` with one free spin per (re)trigger: the fixed point's linear branch."""
    return dataclasses.replace(law, signature=law.signature + "-1", spins=1)


def _law_without_retrigger(law: WinDistribution) -> WinDistribution:
    none = np.zeros(law.free_retrigger.size, np.bool_)
    return dataclasses.replace(law, signature=law.signature + "-n", free_retrigger=none)


def _all_laws() -> list[WinLaw]:
    laws = _shipped_laws()
    featured = [law for law in laws if isinstance(law, WinDistribution) and law.spins]
    assert featured, "a shipped sheet with free spins and retriggers"
    assert any(law.free_retrigger.any() for law in featured)
    return laws + [f(law) for law in featured for f in (_law_with_one_spin, _law_without_retrigger)]


def _split_raising(cases: list[T], call: Callable[[T], object]) -> tuple[list[T], list[T]]:
    """``cases`` where ``call`` returns, and those where it raises ``OverflowError`` (the
    scalar fixed point of a feature far out on the negative side computes ``x ** spins``
    of a huge ``x``: Python's float power raises; the batched code keeps that, as is)."""
    ok, raising = [], []
    for case in cases:
        try:
            call(case)
        except OverflowError:
            raising.append(case)
        else:
            ok.append(case)
    return ok, raising


def _radius(law: WinLaw) -> float:
    """Roughly the smallest ``t > 0`` where ``win_cgf`` is infinite (math.inf if none)."""

    def finite(t: float) -> bool:
        try:
            return ref.win_cgf(law, t) is not None
        except OverflowError:
            return False

    lo, hi = 0.0, 1e-6
    while hi < 10.0 and finite(hi):
        lo, hi = hi, 2.0 * hi
    if hi >= 10.0:
        return math.inf
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if finite(mid) else (lo, mid)
    return hi


def test_win_cgfs_is_the_scalar_win_cgf_at_every_t() -> None:
    """Around zero, far out on both sides, just inside and beyond the radius of convergence
    of a feature with retriggers (None there, as the scalar's overflow says)."""
    rng = np.random.default_rng(20)
    beyond = 0
    for law in _all_laws():
        ts = [0.0, -0.0, 1e-300, -1e-300, 1e-9, -1e-9, 0.5, -0.5, 3.0, -3.0, 700.0, -700.0]
        ts += (rng.normal(0.0, 1e-3, 40) * rng.choice([1.0, 30.0, 1e3], 40)).tolist()
        r = _radius(law)
        if math.isfinite(r):
            ts += [r * f for f in (0.5, 0.999, 0.999999, 1.000001, 1.001, 1.5, 20.0)]
        ts, raising = _split_raising(ts, lambda t, law=law: ref.win_cgf(law, t))
        for t in raising:  # the scalar's own overflow (float ** int): the same error
            with pytest.raises(OverflowError):
                win_cgfs(law, [t])
        got = win_cgfs(law, ts)
        want = [ref.win_cgf(law, t) for t in ts]
        assert got == want, law
        assert [win_cgf(law, t) for t in ts] == want
        beyond += sum(w is None for w in want)
    assert beyond >= 10  # the cases beyond the radius were reached


def test_row_dots_are_np_dot_of_each_row() -> None:
    """The batched moments' dot products (``np.vecdot``) are ``np.dot``'s of each row, bit
    for bit, at every length (BLAS kernels' blocks and tails) and magnitude."""
    from twin.compliance.stats.tails import _row_dots

    rng = np.random.default_rng(13)
    for _ in range(300):
        n, rows = int(rng.integers(1, 700)), int(rng.integers(1, 30))
        ev = rng.normal(0.0, 1.0, (rows, n)) * rng.choice([1e-300, 1.0, 1e200])
        values = rng.integers(0, 5000, n).astype(np.float64)
        assert _row_dots(ev, values) == [float(np.dot(row, values)) for row in ev]


def _cases(rng: np.random.Generator, law: WinLaw) -> list[tuple[list[tuple[int, int]], int]]:
    """Random bet levels and credits won: near the mean, at it, in both tails, beyond what
    the games can produce, and no games at all."""
    out: list[tuple[list[tuple[int, int]], int]] = [([], 0), ([(1, 0)], 0)]
    k = ref.win_cgf(law, 0.0)
    assert k is not None
    for _ in range(14):
        bets = sorted(rng.choice([1, 2, 3, 5, 10], size=int(rng.integers(1, 4)), replace=False))
        levels = [(int(b), int(rng.integers(50, 30_000))) for b in bets]
        mean = sum(b * n for b, n in levels) * k[1]
        sd = math.sqrt(sum(b * b * n for b, n in levels) * k[2])
        for z in (0.0, float(rng.normal(0.0, 1.0)), float(rng.normal(0.0, 4.0)), -8.0, 12.0):
            out.append((levels, round(mean + z * sd)))
        out.append((levels, round(mean)))
        out.append((levels, -1))  # below anything the games can pay
        top = int(max(law.base_values.max(), law.free_values.max(initial=0)))
        out.append((levels, 50 * top * sum(b * n for b, n in levels)))  # beyond their reach
    return out


def _groups() -> list[list[WinLaw]]:
    """Each law alone, then every law at once (the machines of several laws mixed)."""
    laws = _all_laws()
    return [[law] for law in laws] + [laws]


@pytest.mark.parametrize("group", range(len(SHEETS) + 3))
def test_hold_tail_tests_are_the_scalar_tests(group: int) -> None:
    """Every machine of a floor at once (:func:`hold_tail_tests`) gives each machine's
    scalar :func:`hold_tail_test`, bit for bit; so do the scalar entry points."""
    laws = _groups()[group]
    rng = np.random.default_rng(100 + group)
    items = []
    for law in laws:
        cases = _cases(rng, law)
        if len(laws) > 1:
            cases = [cases[i] for i in rng.choice(len(cases), 12, replace=False)]
        items += [(law, levels, won, int(rng.integers(1, 4))) for levels, won in cases]
    items = [items[i] for i in rng.permutation(len(items))]
    items, raising = _split_raising(items, lambda item: ref.hold_tail_test(*item))
    for item in raising:
        with pytest.raises(OverflowError):
            hold_tail_tests([item])
    want = [ref.hold_tail_test(*item) for item in items]
    assert hold_tail_tests(items) == want
    assert [hold_tail_test(*item) for item in items[:20]] == want[:20]
    for law, levels, won, _ in items[:20]:
        assert win_tails(law, levels, float(won)) == ref.win_tails(law, levels, float(won))
    assert hold_tail_tests([]) == []


# --- item 1(b): the randomness audit's batches -------------------------------------------


def _reels(rng: np.random.Generator, count: int) -> list[tuple[np.ndarray, tuple[int, ...]]]:
    """Reels of the shipped sheets' lengths and random weights (some zero), played 0 to
    thousands of times, fair or biased, and some stops never landing."""
    out = []
    for _ in range(count):
        k = int(rng.choice([3, 20, 22, 32, 64]))
        weights = tuple(int(w) for w in rng.integers(0, 9, k))
        if sum(weights) == 0:
            weights = (1, *weights[1:])
        n = int(rng.choice([0, 7, 150, 3000]))
        p = np.array(weights, np.float64) if rng.random() < 0.7 else rng.random(k) + 0.01
        counts = rng.multinomial(n, p / p.sum())
        if rng.random() < 0.2:
            counts[int(rng.integers(0, k))] = 0
        out.append((counts.astype(np.int64), weights))
    return out


def test_availabilities_are_each_reels_own() -> None:
    from twin.compliance.checks.randomness import _availabilities

    rng = np.random.default_rng(7)
    for _ in range(60):
        reels = _reels(rng, int(rng.integers(1, 40)))
        assert _availabilities(reels) == ref._availabilities(reels)
        assert [_availabilities([r])[0] for r in reels[:3]] == ref._availabilities(reels[:3])
    assert _availabilities([]) == []


def test_stop_frequency_tests_are_each_reels_own() -> None:
    """Reels sharing their weights (tested together), sparse ones (Monte Carlo: the same
    draws), zero weights seen and unseen, ragged counts."""
    from twin.compliance import stats

    rng = np.random.default_rng(12)
    monte_carlo: list[float] = []
    for _ in range(25):
        # (unplayed reels left out: reels with the same weights are tested together, and an
        # unplayed one among them divides 0 by 0, with numpy's warning, as before)
        reels = [r for r in _reels(rng, int(rng.integers(1, 30))) if r[0].sum()]
        if not reels:
            continue
        shared = reels[0][1]
        even = np.full(len(shared), 1.0 / len(shared))
        for _ in range(int(rng.integers(0, 6))):
            reels.append((rng.multinomial(int(rng.choice([40, 900])), even), shared))
        if rng.random() < 0.3:
            reels.append((np.zeros(len(shared) + 1, np.int64), shared))  # ragged: on its own
            with pytest.raises(ValueError, match="differ in shape"):
                stats.stop_frequency_tests(reels)
            continue
        got = stats.stop_frequency_tests(reels)
        assert got == ref.stop_frequency_tests(reels)
        monte_carlo += [r.p_value for r in got if "Monte Carlo" in r.detail]
    # the sequential Monte Carlo stopped early, after several blocks, and at its last draw
    assert min(monte_carlo) == 1 / MC_DRAWS
    assert any(0.001 < p < 0.02 for p in monte_carlo)
    assert max(monte_carlo) > 0.5


def _tables(rng: np.random.Generator, count: int) -> list[list[list[int]]]:
    """Win/loss tables: 2 x 2 transitions and bet levels x (won, lost), from empty to
    large, with empty rows and columns, small expected counts (Fisher) and 3 columns."""
    out = []
    for _ in range(count):
        r = int(rng.choice([1, 2, 2, 3, 4, 5, 8, 9]))
        c = 3 if rng.random() < 0.1 else 2
        scale = int(rng.choice([0, 3, 12, 1000, 100_000]))
        table = rng.integers(0, scale + 1, (r, c))
        if rng.random() < 0.2:
            table[int(rng.integers(0, r))] = 0
        out.append(table.tolist())
    return out


def test_independence_tests_are_each_tables_own() -> None:
    from twin.compliance import stats

    rng = np.random.default_rng(8)
    for _ in range(80):
        tables = _tables(rng, int(rng.integers(1, 60)))
        assert stats.independence_tests(tables) == ref.independence_tests(tables)
    assert stats.independence_tests([]) == []


def test_combination_tests_are_each_partitions_own() -> None:
    from twin.compliance import stats

    rng = np.random.default_rng(9)
    for trial in range(80):
        items = []
        for j in range(int(rng.integers(0, 30))):
            parts = []
            for _ in range(int(rng.integers(0, 3))):
                k = int(rng.integers(1, 12))
                probs = rng.dirichlet(np.ones(k) * rng.choice([0.1, 1.0])) + 1e-12
                if k > 1 and rng.random() < 0.2:
                    probs[0] = 0.0
                probs /= probs.sum()
                n = int(rng.choice([0, 10, 500, 20_000]))
                counts = rng.multinomial(n, probs)
                if rng.random() < 0.3:
                    counts[int(rng.integers(0, k))] = 0
                parts.append((counts, probs, [f"class {c}" for c in range(k)]))
            items.append((f"item {j}", parts))
        assert stats.combination_tests(items) == ref.combination_tests(items), trial
    assert stats.combination_tests([]) == []
    bad = [("x", [(np.array([1.5, 2.0]), np.array([0.5, 0.5]), ["a", "b"])])]
    with pytest.raises(ValueError, match="whole counts"):
        stats.combination_tests(bad)


# --- item 1(e): the rank correlation and its permutation test -----------------------------


def test_rho_is_the_per_window_reference() -> None:
    from twin.compliance.checks.outcomes import _rho

    rng = np.random.default_rng(10)
    for _ in range(200):
        n, rows = int(rng.integers(2, 60)), int(rng.choice([1, 3, 32, 200]))
        games = rng.integers(1, 800, (rows, n)).astype(np.float64)
        var = games * rng.choice([1.0, 4.0, 37.5])
        dev = rng.normal(0.0, 1.0, (rows, n)) * np.sqrt(var) * rng.choice([1.0, 5.0])
        if rng.random() < 0.2:
            dev[:, 0] = 0.0
        assert np.array_equal(_rho(dev, var, games), ref._rho(dev, var, games), equal_nan=True)


def test_adaptation_test_is_the_reference() -> None:
    """The same p-value (the same orderings drawn) and statistic, on fair series and on
    series that pay less after paying more (down to p-values of thousands of orderings)."""
    from twin.compliance.checks.outcomes import adaptation_test, adaptation_tests

    rng = np.random.default_rng(11)
    small = 0
    series: list[tuple[list[tuple[int, int, int]], float, float]] = []
    wanted = []
    for trial in range(40):
        n = int(rng.integers(5, 40))
        follow = -0.5 if trial % 3 == 0 else 0.0  # the residual follows the last one's
        r, st = 0.0, []
        for _ in range(n):
            bet, games = int(rng.integers(1, 4)), int(rng.integers(0, 300))
            r = follow * r + float(rng.normal())
            won = games * bet * 0.9 + r * bet * math.sqrt(games * 2.0)
            st.append((bet, games, max(0, round(won))))
        args = (st, 0.9, 0.0 if trial == 1 else 2.0)
        got = adaptation_test(*args)
        want = ref.adaptation_test(*args)
        assert got == want, trial
        small += got.p_value < 0.05
        series.append(args)
        wanted.append(want)
    assert small >= 3
    # all series at once (those of as many stretches evaluated together): the same results
    assert adaptation_tests(series) == wanted
    assert adaptation_tests([]) == []
