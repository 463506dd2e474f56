"""Statistical tests behind the RNG and hold controls of the Malta Gaming Act Regs 1998.

First Schedule, item 1(b), requires a random selection process that "shall fulfil 95%
confidence limits" for: (i) every combination available on each play, (ii) a constant
probability of a symbol appearing in a position, and (iii) no detectable pattern or dependency
upon any previous game outcome, the amount wagered or the style of play. Item 20(f) requires
large variances between actual and theoretical hold to be investigated. This module holds the
statistics those controls use; it is pure (numpy / scipy only) and knows nothing of records.

* (ii) constant stop probability: :func:`stop_frequency_test` (chi-square goodness of fit of
  one reel's observed stop counts against its weights). A stop with zero weight that was
  observed is reported as an outright failure, which also covers the converse of (i).
* (iii) no dependency: :func:`independence_test` (previous outcome x current outcome, bet
  level x outcome, play style x outcome) and :func:`runs_test` (serial pattern in a win/loss
  sequence).
* Many machines, reels and tests at once: :func:`holm` (family-wise error) and
  :func:`benjamini_hochberg` (false-discovery rate).
* Item 20(f): :func:`hold_band`, :func:`effective_games` and :func:`hold_variance_test`.

"95% confidence limits" is read as: each test is run at significance level ``alpha = 0.05``,
so a fair machine fails a single test with probability about 5 %. Over a floor of machines
that is many false alarms; combine the p-values with :func:`holm` or
:func:`benjamini_hochberg` before raising findings.

Every test returns a :class:`TestResult`; a test that cannot be run on the data (too few
observations, all outcomes equal) returns ``p_value = 1.0`` (never rejects) and says why in
``detail``. Invalid input (negative counts, mismatched shapes, NaN) raises ``ValueError``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import numpy.typing as npt
from scipy import stats as sps

__all__ = [
    "TestResult",
    "benjamini_hochberg",
    "effective_games",
    "hold_band",
    "hold_variance_test",
    "holm",
    "independence_test",
    "independence_tests",
    "pool_cells",
    "runs_test",
    "stop_frequency_test",
    "stop_frequency_tests",
]

#: The smallest sequence :func:`runs_test` evaluates with its normal approximation.
RUNS_MIN_N = 20


@dataclass(frozen=True, slots=True)
class TestResult:
    """The outcome of one statistical test.

    ``statistic`` is the test statistic (chi-square, z, or the sample odds ratio for Fisher's
    exact test); ``dof`` the degrees of freedom of its chi-square reference distribution, or
    ``0.0`` for tests without one (z tests, Fisher); ``p_value`` the two-sided / upper-tail
    p-value as appropriate to the test; ``n`` the number of observations used; ``detail`` a
    short human-readable account (method, pooling, why a test was not run).
    """

    __test__ = False  # not a pytest test class, despite the name

    name: str
    statistic: float
    dof: float
    p_value: float
    n: int
    detail: str


def _not_run(name: str, n: int, detail: str) -> TestResult:
    return TestResult(name=name, statistic=0.0, dof=0.0, p_value=1.0, n=n, detail=detail)


def _as_1d_float(values: npt.ArrayLike, what: str) -> npt.NDArray[np.float64]:
    arr = np.asarray(values, dtype=np.float64)
    if arr.ndim != 1:
        raise ValueError(f"{what} must be one-dimensional, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{what} must be finite")
    return arr


def _as_counts(values: npt.ArrayLike, what: str, ndim: int) -> npt.NDArray[np.float64]:
    arr = np.asarray(values, dtype=np.float64)
    if arr.ndim != ndim:
        raise ValueError(f"{what} must be {ndim}-dimensional, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)) or np.any(arr < 0):
        raise ValueError(f"{what} must be finite and non-negative")
    if np.any(arr != np.round(arr)):
        raise ValueError(f"{what} must be whole counts")
    return arr


# --- item 1(b)(ii): constant stop probability -------------------------------------------------


def pool_cells(expected: npt.ArrayLike, min_expected: float) -> list[list[int]]:
    """Group adjacent cells so that every group's expected count is at least ``min_expected``.

    Cells are walked in order (reel order: pooling neighbours keeps the grouping stable and
    reproducible, and neighbours on a strip are the natural merge); a group closes as soon as
    its expected count reaches ``min_expected``. A short tail that does not reach it is merged
    into the last closed group. If the total is below ``min_expected`` the single group of all
    cells is returned (the caller then has fewer than two cells and cannot test). Returns the
    cell indices of each group.
    """
    exp = _as_1d_float(expected, "expected")
    groups: list[list[int]] = []
    current: list[int] = []
    acc = 0.0
    for i, e in enumerate(exp):
        current.append(i)
        acc += float(e)
        if acc >= min_expected:
            groups.append(current)
            current, acc = [], 0.0
    if current:
        if groups:
            groups[-1].extend(current)
        else:
            groups.append(current)
    return groups


def stop_frequency_test(
    counts: npt.ArrayLike, weights: npt.ArrayLike, min_expected: float = 5.0
) -> TestResult:
    """Chi-square goodness of fit of one reel's observed stop counts against its weights.

    H0: every spin picks stop ``i`` independently with probability ``weights[i] / sum(weights)``
    (item 1(b)(ii): the probability of a symbol appearing in a position is constant).

    Method: Pearson's ``X^2 = sum((O - E)^2 / E)`` with ``E = n * p``, referred to chi-square
    with ``k - 1`` degrees of freedom, ``k`` the number of cells after pooling; upper-tail p.

    Pooling: the chi-square approximation needs every expected count to be at least about 5
    (Cochran's rule; ``min_expected``). Adjacent stops, in reel order, are merged until each
    group reaches ``min_expected`` (see :func:`pool_cells`); the result's ``detail`` states
    how many cells remain. Stops of weight zero are left out of the test; if any of them was
    observed, the reel fails outright (``statistic = inf``, ``p = 0``), since an impossible
    stop was produced. If fewer than two cells remain (``n * p_total < 2 * min_expected``,
    roughly), the test is not run: ``p = 1`` with detail ``"too few observations"``.

    Minimum sample: at least ``2 * min_expected`` spins to run at all; to test every stop on
    its own, ``n >= min_expected / min(p)`` (e.g. 320 spins for a 64-stop virtual reel with a
    weight-1 stop). Pooling loses power against deviations confined inside a group.

    Error rate: under H0 the rejection rate at level ``alpha`` is ``alpha`` up to the
    chi-square approximation (the tests in ``tests/test_stats.py`` measure 5 % within binomial
    noise on 2,000 simulated fair machines). The approximation is least accurate far in the
    tail, which is where multiple-testing thresholds live (``0.05 / 500 = 1e-4``): on a
    64-stop reel at 1,000 spins (every E >= 31) P(p <= 1e-4) was measured at about 1.1e-4 and
    P(p <= 1e-5) at about 1.45e-5; at 20,000 spins both are within noise of nominal.
    Power grows with ``n * delta^2 / p`` for a relative change ``delta`` in a stop of
    probability ``p`` (noncentral chi-square with ``lambda = n * sum((p1 - p0)^2 / p0)``):
    rare stops need many more spins.
    """
    done = _stop_frequency_stat(counts, weights, min_expected)
    return done if isinstance(done, TestResult) else _chi2_results([done])[0]


def stop_frequency_tests(
    pairs: Sequence[tuple[npt.ArrayLike, npt.ArrayLike]], min_expected: float = 5.0
) -> list[TestResult]:
    """:func:`stop_frequency_test` of each ``(counts, weights)``, with one p-value call for all.

    The results are exactly those of the single test (the same statistic, the same
    ``chi2.sf`` evaluated element-wise); only the call overhead is shared.
    """
    items: list[TestResult | _Chi2 | None] = [None] * len(pairs)
    same: dict[tuple[float, ...], list[int]] = {}
    for i, (_, w) in enumerate(pairs):
        if isinstance(w, tuple):  # reels that share their weights are computed together
            same.setdefault(w, []).append(i)
    for w_key, rows in same.items():
        if len(rows) > 1:
            _stop_frequency_rows(pairs, rows, w_key, min_expected, items)
    done = [
        x if x is not None else _stop_frequency_stat(*pairs[i], min_expected)
        for i, x in enumerate(items)
    ]
    return _chi2_batch(done)


def _stop_frequency_rows(
    pairs: Sequence[tuple[npt.ArrayLike, npt.ArrayLike]],
    rows: list[int],
    weights: tuple[float, ...],
    min_expected: float,
    items: list[TestResult | _Chi2 | None],
) -> None:
    """The usual case of :func:`_stop_frequency_stat` for many reels with the same weights
    at once (valid counts, no zero weight, no pooling); other rows are left as None."""
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim != 1 or w.size < 2 or not np.all(np.isfinite(w)) or np.any(w <= 0):
        return
    counts = [np.asarray(pairs[i][0], dtype=np.float64) for i in rows]
    if any(c.shape != w.shape for c in counts):
        return
    obs = np.stack(counts)
    if not np.all(np.isfinite(obs)) or np.any(obs < 0) or np.any(obs != np.round(obs)):
        return
    n = obs.sum(axis=1)
    expected = n[:, None] * w / w.sum()
    ok = expected.min(axis=1) >= min_expected
    stat = np.sum((obs - expected) ** 2 / expected, axis=1)
    cells = w.size
    detail = f"Pearson chi-square, {cells} cells"
    for i, good, x, total in zip(rows, ok.tolist(), stat.tolist(), n.tolist(), strict=True):
        if good:
            items[i] = _Chi2("stop_frequency", x, cells - 1, int(total), detail)


class _Chi2(NamedTuple):
    """A chi-square test whose p-value is still to be computed (in a batch)."""

    name: str
    statistic: float
    dof: int
    n: int
    detail: str


def _chi2_results(pending: Sequence[_Chi2]) -> list[TestResult]:
    if not pending:
        return []
    stat = np.array([c.statistic for c in pending], np.float64)
    dof = np.array([c.dof for c in pending], np.float64)
    p = np.atleast_1d(sps.chi2.sf(stat, dof))
    return [
        TestResult(
            name=c.name,
            statistic=c.statistic,
            dof=float(c.dof),
            p_value=float(pi),
            n=c.n,
            detail=c.detail,
        )
        for c, pi in zip(pending, p.tolist(), strict=True)
    ]


def _chi2_batch(items: Sequence[TestResult | _Chi2]) -> list[TestResult]:
    """Finish a list of tests: compute every pending chi-square p-value in one call."""
    pending = [x for x in items if isinstance(x, _Chi2)]
    done = iter(_chi2_results(pending))
    return [x if isinstance(x, TestResult) else next(done) for x in items]


def _stop_frequency_stat(
    counts: npt.ArrayLike, weights: npt.ArrayLike, min_expected: float
) -> TestResult | _Chi2:
    name = "stop_frequency"
    obs = _as_counts(counts, "counts", 1)
    w = _as_1d_float(weights, "weights")
    if obs.shape != w.shape:
        raise ValueError(f"counts {obs.shape} and weights {w.shape} differ in shape")
    if np.any(w < 0) or w.sum() <= 0:
        raise ValueError("weights must be non-negative with a positive sum")
    n = int(obs.sum())
    zero = w == 0
    if np.any(obs[zero] > 0):
        bad = np.flatnonzero(zero & (obs > 0)).tolist()
        return TestResult(
            name=name,
            statistic=math.inf,
            dof=0.0,
            p_value=0.0,
            n=n,
            detail=f"observed stops with zero weight: {bad}",
        )
    obs, w = obs[~zero], w[~zero]
    expected = n * w / w.sum()
    if expected.size >= 2 and expected.min() >= min_expected:
        o, e, cells = obs, expected, expected.size  # no pooling needed (the usual case)
    else:
        groups = pool_cells(expected, min_expected)
        if len(groups) < 2:
            return _not_run(name, n, "too few observations")
        o = np.array([obs[g].sum() for g in groups])
        e = np.array([expected[g].sum() for g in groups])
        cells = len(groups)
    stat = float(np.sum((o - e) ** 2 / e))
    dof = cells - 1
    pooled = len(obs) - cells
    detail = f"Pearson chi-square, {cells} cells"
    if pooled:
        detail += f" ({len(obs)} stops, {pooled} merged to reach E >= {min_expected:g})"
    return _Chi2(name, stat, dof, n, detail)


# --- item 1(b)(iii): no dependency ------------------------------------------------------------


def independence_test(table: npt.ArrayLike) -> TestResult:
    """Chi-square test of independence for an r x c contingency table of counts.

    H0: rows and columns are independent, e.g. the current outcome (win / loss) does not
    depend on the previous outcome, on the bet level, or on the style of play (item
    1(b)(iii)).

    Method: rows and columns with no observations are dropped (they carry no information and
    would give zero expected counts). If fewer than two rows or columns remain the test is not
    run (``p = 1``). A 2 x 2 table with any expected count below 5 is tested with Fisher's
    exact test (two-sided, ``scipy.stats.fisher_exact``; ``statistic`` is then the sample odds
    ratio and ``dof`` is 0). Otherwise Pearson's chi-square without Yates' continuity
    correction (the correction is markedly conservative), with ``(r - 1)(c - 1)`` degrees of
    freedom.

    Minimum sample: all expected counts >= 5 for the chi-square approximation. Larger tables
    with small expected counts are still tested by chi-square, but ``detail`` warns how many
    cells are below 5; merge sparse categories (e.g. bet levels) before testing.

    Error rate: ``alpha`` under H0 up to the approximation; Fisher's test is exact but
    conservative (its size is at most ``alpha``).
    """
    done = _independence_stat(table)
    return done if isinstance(done, TestResult) else _chi2_results([done])[0]


def independence_tests(tables: Sequence[npt.ArrayLike]) -> list[TestResult]:
    """:func:`independence_test` of each table, with one chi-square p-value call for all.

    The results are exactly those of the single test; only the call overhead is shared.
    """
    return _chi2_batch([_independence_stat(t) for t in tables])


def _independence_stat(table: npt.ArrayLike) -> TestResult | _Chi2:
    name = "independence"
    t = _as_counts(table, "table", 2)
    t = t[t.sum(axis=1) > 0][:, t.sum(axis=0) > 0]
    n = int(t.sum())
    r, c = t.shape
    if r < 2 or c < 2:
        return _not_run(name, n, f"fewer than two non-empty rows and columns ({r} x {c})")
    expected = np.outer(t.sum(axis=1), t.sum(axis=0)) / n
    small = int(np.count_nonzero(expected < 5))
    if (r, c) == (2, 2) and small:
        res = sps.fisher_exact(t.astype(np.int64), alternative="two-sided")
        return TestResult(
            name=name,
            statistic=float(res.statistic),
            dof=0.0,
            p_value=float(res.pvalue),
            n=n,
            detail="Fisher exact test (2 x 2, expected count < 5); statistic is the odds ratio",
        )
    stat = float(np.sum((t - expected) ** 2 / expected))
    dof = (r - 1) * (c - 1)
    detail = f"Pearson chi-square, {r} x {c} table"
    if small:
        detail += f"; warning: {small} cells with expected count < 5"
    return _Chi2(name, stat, dof, n, detail)


def runs_test(outcomes: npt.ArrayLike) -> TestResult:
    """Wald-Wolfowitz runs test for serial pattern in a two-valued sequence (e.g. win / loss).

    H0: the sequence is exchangeable (independent outcomes in random order), item 1(b)(iii).
    Too few runs means clustering (streaks); too many means alternation. Both are detected.

    Method: with ``n1`` True and ``n2`` False values (``n = n1 + n2``) and ``R`` runs,
    ``E[R] = 2 n1 n2 / n + 1`` and ``Var[R] = 2 n1 n2 (2 n1 n2 - n) / (n^2 (n - 1))``;
    ``z = (R - E[R]) / sqrt(Var[R])`` (``statistic``), two-sided normal p-value, no continuity
    correction.

    Minimum sample: ``n >= 20`` (``RUNS_MIN_N``) and both values present, else not run
    (``p = 1``). The normal approximation is good when both ``n1`` and ``n2`` are at least
    about 10; with a rare outcome (say a jackpot) it is poor and the test has little power.

    Error rate: ``alpha`` under H0 up to the normal approximation. The test sees only the
    order of a binary sequence; it does not detect dependence on wager or play style (use
    :func:`independence_test`).
    """
    name = "runs"
    x = np.asarray(outcomes)
    if x.ndim != 1:
        raise ValueError(f"outcomes must be one-dimensional, got shape {x.shape}")
    if x.size and x.dtype != np.bool_:
        if not np.all(np.isin(x, (0, 1))):
            raise ValueError("outcomes must be boolean (or 0 / 1)")
        x = x.astype(np.bool_)
    n = int(x.size)
    if n < RUNS_MIN_N:
        return _not_run(name, n, f"too few observations (n = {n} < {RUNS_MIN_N})")
    n1 = int(np.count_nonzero(x))
    n2 = n - n1
    if n1 == 0 or n2 == 0:
        return _not_run(name, n, "all outcomes are equal")
    runs = 1 + int(np.count_nonzero(x[1:] != x[:-1]))
    mean = 2.0 * n1 * n2 / n + 1.0
    var = 2.0 * n1 * n2 * (2.0 * n1 * n2 - n) / (n * n * (n - 1.0))
    z = (runs - mean) / math.sqrt(var)
    p = float(2.0 * sps.norm.sf(abs(z)))
    detail = f"{runs} runs (expected {mean:.2f}), n1 = {n1}, n2 = {n2}"
    return TestResult(name=name, statistic=z, dof=0.0, p_value=p, n=n, detail=detail)


# --- multiple testing -------------------------------------------------------------------------


def _as_p_values(p_values: npt.ArrayLike) -> npt.NDArray[np.float64]:
    p = _as_1d_float(p_values, "p_values")
    if np.any((p < 0) | (p > 1)):
        raise ValueError("p_values must lie in [0, 1]")
    return p


def holm(p_values: npt.ArrayLike, alpha: float = 0.05) -> npt.NDArray[np.bool_]:
    """Holm's step-down procedure: which hypotheses to reject at family-wise error ``alpha``.

    Sort the ``m`` p-values ascending; reject ``p_(1), ..., p_(k)`` where ``k`` is the first
    rank (1-based) with ``p_(k+1) > alpha / (m - k)``. Controls the probability of any false
    rejection at ``alpha`` under any dependence between the tests; uniformly more powerful
    than Bonferroni. Returns reject flags in the input order; empty input gives an empty array.
    """
    if not 0 < alpha < 1:
        raise ValueError("alpha must lie in (0, 1)")
    p = _as_p_values(p_values)
    m = p.size
    reject = np.zeros(m, dtype=np.bool_)
    order = np.argsort(p, kind="stable")
    thresholds = alpha / (m - np.arange(m))
    fails = np.flatnonzero(p[order] > thresholds)
    k = int(fails[0]) if fails.size else m
    reject[order[:k]] = True
    return reject


def benjamini_hochberg(p_values: npt.ArrayLike, q: float = 0.05) -> npt.NDArray[np.bool_]:
    """Benjamini-Hochberg step-up procedure: reject with false-discovery rate at most ``q``.

    Sort the ``m`` p-values ascending; find the largest rank ``k`` (1-based) with
    ``p_(k) <= k q / m`` and reject the ``k`` smallest. Controls the expected share of false
    rejections among rejections at ``q`` for independent (or positively dependent) tests.
    When every machine is fair it rejects anything with probability at most ``q`` (exactly
    ``q`` for independent continuous p-values), so it then acts as a family-wise control.
    Returns reject flags in the input order; empty input gives an empty array.
    """
    if not 0 < q < 1:
        raise ValueError("q must lie in (0, 1)")
    p = _as_p_values(p_values)
    m = p.size
    reject = np.zeros(m, dtype=np.bool_)
    order = np.argsort(p, kind="stable")
    passes = np.flatnonzero(p[order] <= q * np.arange(1, m + 1) / m)
    if passes.size:
        reject[order[: int(passes[-1]) + 1]] = True
    return reject


# --- item 20(f): actual versus theoretical hold ------------------------------------------------


def effective_games(wagers: npt.ArrayLike) -> float:
    """Wager-weighted effective number of games, ``(sum w)^2 / sum w^2``.

    The actual hold over games with wagers ``w_i`` is ``sum(w_i h_i) / sum(w_i)``, ``h_i`` the
    per-unit hold of game ``i``. If the ``h_i`` are i.i.d. with standard deviation ``sd``
    (true when pays scale in proportion to the wager), its variance is ``sd^2 / n_eff`` with
    this ``n_eff``. Equal wagers give ``n_eff = n``; unequal wagers give less. Zero total
    wager (or empty input) gives 0.
    """
    w = _as_1d_float(wagers, "wagers")
    if np.any(w < 0):
        raise ValueError("wagers must be non-negative")
    sq = float(np.sum(w * w))
    if sq == 0:
        return 0.0
    return float(np.sum(w)) ** 2 / sq


def hold_band(
    theoretical_hold: float,
    sd_per_game: float,
    games: float,
    wager_per_game: float | None = None,
    confidence: float = 0.999,
) -> tuple[float, float]:
    """The two-sided band in which the ACTUAL hold fraction should lie after ``games`` games.

    ``band = theoretical_hold +/- z * sd / sqrt(games)``, ``z`` the two-sided normal quantile
    for ``confidence`` (3.29 for 99.9 %). Hold is ``1 - return``, so its per-game standard
    deviation equals the game's return standard deviation (the PAR sheet's ``sd``).

    Units: ``sd_per_game`` is in units of the wager (sd of win / wager per game). If
    ``wager_per_game`` is given, ``sd_per_game`` is taken as money per game instead and
    divided by ``wager_per_game`` to get wager units; the band is a fraction either way.

    Assumptions: games are i.i.d. with equal wagers, and ``games`` is large enough for the
    central limit theorem. High-volatility games (jackpots) converge slowly: the mean is
    skewed and a 99.9 % band is too narrow on the low-hold side until the jackpot cycle is
    covered many times over. With mixed wagers pass ``games = effective_games(wagers)``
    (valid when pays are proportional to the wager). Error rate: a correct game falls
    outside the band with probability ``1 - confidence``.
    """
    if not 0 < confidence < 1:
        raise ValueError("confidence must lie in (0, 1)")
    if games <= 0:
        raise ValueError("games must be positive")
    if sd_per_game < 0:
        raise ValueError("sd_per_game must be non-negative")
    sd = sd_per_game
    if wager_per_game is not None:
        if wager_per_game <= 0:
            raise ValueError("wager_per_game must be positive")
        sd = sd_per_game / wager_per_game
    z = float(sps.norm.ppf(0.5 + confidence / 2.0))
    half = z * sd / math.sqrt(games)
    return theoretical_hold - half, theoretical_hold + half


def hold_variance_test(
    actual_hold: float, theoretical_hold: float, sd_per_game: float, n_eff: float
) -> TestResult:
    """Two-sided z test of the actual hold fraction against the theoretical hold (item 20(f)).

    ``z = (actual - theoretical) / (sd / sqrt(n_eff))`` with ``sd`` per game in wager units
    and ``n_eff`` the (effective) number of games (:func:`effective_games`). Same assumptions
    as :func:`hold_band`: rejecting at ``alpha`` is the same as the actual hold leaving the
    ``1 - alpha`` band. Not run (``p = 1``) when ``n_eff < 1``. With ``sd = 0`` (a game
    without variance) any difference is a certain failure.
    """
    name = "hold_variance"
    if sd_per_game < 0:
        raise ValueError("sd_per_game must be non-negative")
    n = int(n_eff)
    if n_eff < 1:
        return _not_run(name, n, "too few games (n_eff < 1)")
    diff = actual_hold - theoretical_hold
    if sd_per_game == 0:
        stat = 0.0 if diff == 0 else math.copysign(math.inf, diff)
        p = 1.0 if diff == 0 else 0.0
    else:
        stat = diff / (sd_per_game / math.sqrt(n_eff))
        p = float(2.0 * sps.norm.sf(abs(stat)))
    detail = f"z test, actual {actual_hold:.6f} vs theoretical {theoretical_hold:.6f}"
    detail += f", n_eff = {n_eff:.1f}"
    return TestResult(name=name, statistic=stat, dof=0.0, p_value=p, n=n, detail=detail)
