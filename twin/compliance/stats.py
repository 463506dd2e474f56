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

import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple, Protocol

import numpy as np
import numpy.typing as npt
from scipy import stats as sps
from scipy.optimize import brentq
from scipy.special import ndtr

from twin.memo import PerObject

__all__ = [
    "TestResult",
    "WinLaw",
    "benjamini_hochberg",
    "bonferroni",
    "combination_tests",
    "effective_games",
    "hold_band",
    "hold_tail_test",
    "hold_variance_test",
    "holm",
    "independence_test",
    "independence_tests",
    "pool_cells",
    "runs_test",
    "select_then_test",
    "stop_frequency_test",
    "stop_frequency_tests",
    "win_cgf",
    "win_tails",
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


# The standard normal's cdf, survival function and density, each the very number
# ``sps.norm.cdf/sf/pdf(x)`` gives (the same ``ndtr``; the density by scipy's formula on a
# one-element array, as ``pdf`` evaluates it: a numpy scalar can round differently) without
# the distribution machinery around them (~70 us a call; the tail tests make thousands).
_SQRT_2PI = np.sqrt(2.0 * np.pi)


def _norm_cdf(x: float) -> float:
    return float(ndtr(x))


def _norm_sf(x: float) -> float:
    return float(ndtr(-x))


def _norm_pdf(x: float) -> float:
    a = np.array([x], np.float64)
    return float((np.exp(-(a**2) / 2.0) / _SQRT_2PI)[0])


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

    Small expected counts: the chi-square reference needs every expected count to be at
    least about 5 (Cochran's rule; ``min_expected``). Below that the p-value is an exact-size
    sequential Monte Carlo p-value of the same statistic on all cells (no pooling; see
    :func:`_monte_carlo`), whose smallest value is ``1 / MC_DRAWS``. Stops of weight zero are
    left out of the test; if any of them was observed, the reel fails outright
    (``statistic = inf``, ``p = 0``), since an impossible stop was produced. With no spins
    the test is not run (``p = 1``, ``"too few observations"``).

    Error rate: under H0 the rejection rate at level ``alpha`` is ``alpha`` up to the
    chi-square approximation where it is used, and exactly ``alpha`` (for multiples of
    ``1 / MC_DRAWS``) where Monte Carlo is (``tests/test_stats.py`` measures both at 1,000
    and 250 spins). The approximation is least accurate far in the tail, where multiple
    testing thresholds live: on a 64-stop reel at 1,000 spins (every E >= 31) P(p <= 1e-4)
    was measured at about 1.1e-4 and P(p <= 1e-5) at about 1.45e-5.
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
    p = w / w.sum()
    for i, good, x, total in zip(rows, ok.tolist(), stat.tolist(), n.tolist(), strict=True):
        if good:
            items[i] = _pearson(x, p, int(total))


class _Chi2(NamedTuple):
    """A chi-square test whose p-value is still to be computed (in a batch)."""

    name: str
    statistic: float
    dof: float
    n: int
    detail: str
    scale: float = 1.0  # the statistic is referred to scale * chi2(dof)


def _chi2_results(pending: Sequence[_Chi2]) -> list[TestResult]:
    if not pending:
        return []
    stat = np.array([c.statistic / c.scale for c in pending], np.float64)
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
    p = w / w.sum()
    expected = n * p
    if expected.size < 2:
        return _not_run(name, n, "fewer than two stops of positive weight")
    if n == 0:
        return _not_run(name, n, "too few observations")
    stat = float(np.sum((obs - expected) ** 2 / expected))
    if expected.min() >= min_expected:
        return _pearson(stat, p, n)
    return _monte_carlo(stat, obs, p, n, min_expected)


#: Most draws of the Monte Carlo p-value of a sparse reel (its smallest p is 1 / MC_DRAWS).
MC_DRAWS = 20_000
#: Exceedances after which the sequential Monte Carlo stops (Besag and Clifford, 1991).
MC_EXCEED = 20


def _pearson(stat: float, p: npt.NDArray[np.float64], n: int) -> _Chi2:
    """Pearson's X^2 on ``k`` cells referred to chi-square with ``k - 1`` degrees of freedom
    (used when every expected count is at least ``min_expected``)."""
    k = p.size
    return _Chi2("stop_frequency", stat, k - 1, n, f"Pearson chi-square, {k} cells")


def _monte_carlo(
    stat: float,
    obs: npt.NDArray[np.float64],
    p: npt.NDArray[np.float64],
    n: int,
    min_expected: float,
) -> TestResult:
    """Monte Carlo p-value of Pearson's X^2 when some expected count is below
    ``min_expected`` (where no chi-square reference is trustworthy).

    Sequential (Besag and Clifford, 1991): multinomial samples of ``n`` spins are drawn
    until ``MC_EXCEED`` of them reach the observed X^2 (at draw ``L``: ``p = MC_EXCEED / L``)
    or ``MC_DRAWS - 1`` were drawn (``p = (1 + exceedances) / MC_DRAWS``). The test has exact
    size at every level that is a multiple of ``1 / MC_DRAWS``, and a fair reel (large p)
    costs few draws. The draws are seeded from the counts, so a result is reproducible."""
    seed = np.frombuffer(hashlib.sha256(obs.tobytes() + p.tobytes()).digest()[:8], np.uint64)
    rng = np.random.default_rng(int(seed[0]))
    expected = n * p
    exceed = drawn = 0
    block = 64
    pv = 0.0
    while True:
        m = min(block, MC_DRAWS - 1 - drawn)
        sim = rng.multinomial(n, p, size=m)
        hits = np.cumsum(np.sum((sim - expected) ** 2 / expected, axis=1) >= stat)
        if exceed + (int(hits[-1]) if m else 0) >= MC_EXCEED:
            at = int(np.searchsorted(hits, MC_EXCEED - exceed))  # index of the h-th exceedance
            pv = MC_EXCEED / (drawn + at + 1)
            break
        exceed += int(hits[-1]) if m else 0
        drawn += m
        if drawn >= MC_DRAWS - 1:
            pv = (1 + exceed) / MC_DRAWS
            break
        block = min(4 * block, 4096)
    detail = (
        f"Pearson chi-square, {p.size} cells, sequential Monte Carlo p-value "
        f"(expected count {expected.min():.2f} < {min_expected:g})"
    )
    return TestResult("stop_frequency", stat, 0.0, pv, n, detail)


# --- item 1(b)(i): every combination available --------------------------------------------------

#: A combination class enters :func:`combination_tests` only if a count of 0 would have at
#: most this probability (its expected count is at least about 4.6): a rarer class could
#: never be found missing, and would only dilute the Bonferroni correction.
COMBINATION_ELIGIBLE = 0.01


def combination_tests(
    items: Sequence[tuple[str, Sequence[tuple[npt.ArrayLike, npt.ArrayLike, Sequence[str]]]]],
) -> list[TestResult]:
    """Item 1(b)(i): every combination available. Each item is ``(name, partitions)``; in a
    partition ``(counts, probs)``, ``counts[c]`` games fell in combination class ``c`` (the
    classes of a partition are exclusive and exhaustive, so ``n = sum(counts)``) where the
    approved game gives probability ``probs[c]``, and ``labels[c]`` names it (in the
    detail). A game is in one class of each partition (e.g. its best line's pay, and its
    scatter count).

    H0: each game falls in class ``c`` independently with probability ``probs[c]``, so a
    class's count is Binomial(``n``, ``probs[c]``). A combination that is not really
    available (removed, or all but never selected, while its elements still land) shows as
    a count far below that: the p-value of a class is its exact binomial lower tail
    ``P(X <= count)``, and the test's p-value is Bonferroni's ``min(1, K min tail)`` over the
    ``K`` eligible classes of all its partitions (those with ``(1 - p)**n <=
    COMBINATION_ELIGIBLE``, chosen from ``n`` and ``p`` alone, never from the counts).
    One-sided: a class seen too often is the stop frequencies' business (1(b)(ii)). No
    eligible class: not run (``p = 1``).

    Error rate: each tail is an exact (discrete, so conservative) p-value and Bonferroni
    holds under any dependence between the classes, so under H0 ``P(p <= alpha) <= alpha``
    (``tests/test_stats.py`` measures it). All binomial tails are computed in one call.
    """
    xs_l: list[npt.NDArray[np.float64]] = []
    ps_l: list[npt.NDArray[np.float64]] = []
    ns_l: list[npt.NDArray[np.float64]] = []
    sizes: list[int] = []
    names: list[str] = []
    for _, partitions in items:
        size = 0
        for counts, probs, labels in partitions:
            c = _as_counts(counts, "counts", 1)
            p = _as_1d_float(probs, "probs")
            if c.shape != p.shape or len(labels) != c.size:
                raise ValueError(f"counts {c.shape}, probs {p.shape}, labels {len(labels)}")
            xs_l.append(c)
            ps_l.append(p)
            ns_l.append(np.full(c.size, c.sum()))
            names.extend(labels)
            size += c.size
        sizes.append(size)
    empty = np.zeros(0)
    xs = np.concatenate(xs_l) if xs_l else empty
    ps = np.concatenate(ps_l) if ps_l else empty
    ns = np.concatenate(ns_l) if ns_l else empty
    zero_chance = ns * np.log1p(-np.clip(ps, 0.0, 1.0 - 1e-16))
    eligible = (ps > 0) & (zero_chance <= math.log(COMBINATION_ELIGIBLE))
    tails = np.ones(xs.size)
    if eligible.any():
        tails[eligible] = sps.binom.cdf(xs[eligible], ns[eligible], ps[eligible])
    out = []
    at = 0
    for (name, _), size in zip(items, sizes, strict=True):
        part = slice(at, at + size)
        at += size
        ok, tail = eligible[part], tails[part]
        n = int(ns[part].max()) if size else 0
        k = int(ok.sum())
        if k == 0:
            out.append(_not_run(name, n, "no class frequent enough to be found missing"))
            continue
        worst = int(np.argmin(np.where(ok, tail, np.inf)))
        pv = float(min(1.0, k * tail[worst]))
        seen = int(xs[part][worst])
        expected = float(ns[part][worst] * ps[part][worst])
        detail = (
            f"{names[part][worst]}: {seen} seen, {expected:.1f} expected "
            f"(binomial lower tail, Bonferroni over {k} classes)"
        )
        out.append(TestResult(name, float(seen), 0.0, pv, n, detail))
    return out


def bonferroni(results: Sequence[TestResult], name: str) -> TestResult:
    """One test from several (e.g. a test per reel): Bonferroni's ``min(1, k min p)`` over
    the ``k`` that were run, valid under any dependence; the detail names the worst."""
    run = [i for i, r in enumerate(results) if r.n > 0]
    if not run:
        return _not_run(name, 0, "too few observations")
    worst = results[min(run, key=lambda i: results[i].p_value)]
    pv = float(min(1.0, len(run) * worst.p_value))
    n = max(results[i].n for i in run)
    at = results.index(worst)
    detail = f"draw {at} of {len(results)}: {worst.detail}"
    return TestResult(name, worst.statistic, worst.dof, pv, n, detail)


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
    p = 2.0 * _norm_sf(abs(z))
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
        p = 2.0 * _norm_sf(abs(stat))
    detail = f"z test, actual {actual_hold:.6f} vs theoretical {theoretical_hold:.6f}"
    detail += f", n_eff = {n_eff:.1f}"
    return TestResult(name=name, statistic=stat, dof=0.0, p_value=p, n=n, detail=detail)


# --- item 20(f): the exact law of the win, and saddle-point tails -----------------------------


class WinLaw(Protocol):
    """The exact law of one game's win per unit bet (``twin.machines.analysis.
    WinDistribution`` has this shape): the joint support of the base win and the feature
    trigger, and of one free spin's win (multiplier applied) and its retrigger; ``spins``
    free spins per (re)trigger (0: no feature)."""

    @property
    def base_values(self) -> npt.NDArray[np.int64]: ...
    @property
    def base_probs(self) -> npt.NDArray[np.float64]: ...
    @property
    def base_trigger(self) -> npt.NDArray[np.bool_]: ...
    @property
    def free_values(self) -> npt.NDArray[np.int64]: ...
    @property
    def free_probs(self) -> npt.NDArray[np.float64]: ...
    @property
    def free_retrigger(self) -> npt.NDArray[np.bool_]: ...
    @property
    def spins(self) -> int: ...


@dataclass(frozen=True, slots=True)
class _LawParts:
    """A law's supports split once by trigger/retrigger, as float64 (the generating
    functions below evaluate them hundreds of times per machine tested)."""

    base_values: npt.NDArray[np.float64]  # base outcomes that do not trigger the feature
    base_probs: npt.NDArray[np.float64]
    trigger_values: npt.NDArray[np.float64]  # base outcomes that trigger it
    trigger_probs: npt.NDArray[np.float64]
    any_base: bool
    any_trigger: bool
    top: float  # the largest and smallest base win
    bottom: float
    free_values: npt.NDArray[np.float64]  # free spins that do not retrigger
    free_probs: npt.NDArray[np.float64]
    retrigger_values: npt.NDArray[np.float64]
    retrigger_probs: npt.NDArray[np.float64]
    # win_cgf at t = 0 once computed (a list, so the frozen parts can hold it)
    at_zero: list[tuple[float, float, float] | None] = field(default_factory=list)


def _parts(law: WinLaw) -> _LawParts:
    """``law`` split (once per law object)."""
    return _PARTS.get(law)


def _split(law: WinLaw) -> _LawParts:
    bv = law.base_values.astype(np.float64)
    trig = law.base_trigger
    fv = law.free_values.astype(np.float64)
    re = law.free_retrigger
    return _LawParts(
        base_values=bv[~trig],
        base_probs=law.base_probs[~trig],
        trigger_values=bv[trig],
        trigger_probs=law.base_probs[trig],
        any_base=bool(bv.size),
        any_trigger=bool(trig.any()),
        top=float(bv.max()) if bv.size else 0.0,
        bottom=float(bv.min()) if bv.size else 0.0,
        free_values=fv[~re],
        free_probs=law.free_probs[~re],
        retrigger_values=fv[re],
        retrigger_probs=law.free_probs[re],
    )


_PARTS: PerObject[WinLaw, _LawParts] = PerObject(_split, size=256)


def _moments(
    values: npt.NDArray[np.float64], probs: npt.NDArray[np.float64], t: float, shift: float
) -> tuple[float, float, float]:
    """``E[e^{tX - shift}]``, ``E[X e^{tX - shift}]``, ``E[X^2 e^{tX - shift}]``."""
    if values.size == 0:
        return 0.0, 0.0, 0.0
    e = probs * np.exp(t * values - shift)
    ev = e * values
    return float(e.sum()), float(ev.sum()), float(np.dot(ev, values))


def _feature_mgf(law: WinLaw, t: float) -> tuple[float, float, float] | None:
    """``E[e^{tF}]`` and its first two derivatives for the feature total ``F`` (the sum of
    ``spins`` Galton-Watson totals ``T``, ``M = E[e^{tT}]`` the smallest root of
    ``M = A + C M^S``); None where the moment generating function is infinite."""
    s = law.spins
    parts = _parts(law)
    with np.errstate(over="raise"):
        try:
            a0, a1, a2 = _moments(parts.free_values, parts.free_probs, t, 0.0)
            c0, c1, c2 = _moments(parts.retrigger_values, parts.retrigger_probs, t, 0.0)
        except FloatingPointError:
            return None
    if not all(math.isfinite(x) for x in (a0, a1, a2, c0, c1, c2)):
        return None
    if c0 == 0.0:
        m, m1, m2 = a0, a1, a2
    elif s == 1:
        if c0 >= 1.0:
            return None
        m = a0 / (1.0 - c0)
        m1 = (a1 + c1 * m) / (1.0 - c0)
        m2 = (a2 + c2 * m + 2.0 * c1 * m1) / (1.0 - c0)
    else:
        top = (1.0 / (s * c0)) ** (1.0 / (s - 1))  # where A + C M^S - M is smallest

        def g(x: float) -> float:
            return a0 + c0 * x**s - x

        if g(top) > 0.0:
            return None  # no fixed point: beyond the radius of convergence
        # the smallest root: Newton from 0 rises monotonically to it (g convex, g(0) > 0)
        m = 0.0
        for _ in range(200):
            step = g(m) / (1.0 - s * c0 * m ** (s - 1))
            m += step
            if abs(step) <= 1e-15 * max(m, 1e-300):
                break
        else:  # pragma: no cover - Newton from below converges; bisection as a fallback
            m = float(brentq(g, 0.0, top, xtol=1e-300, rtol=4 * np.finfo(float).eps))
        d = 1.0 - s * c0 * m ** (s - 1)
        if d <= 0.0:
            return None
        m1 = (a1 + c1 * m**s) / d
        m2 = (
            a2
            + c2 * m**s
            + 2.0 * s * c1 * m ** (s - 1) * m1
            + s * (s - 1) * c0 * m ** (s - 2) * m1**2
        ) / d
    f0 = m**s
    f1 = s * m ** (s - 1) * m1
    f2 = s * (s - 1) * m ** (s - 2) * m1**2 + s * m ** (s - 1) * m2 if s > 1 else m2
    return f0, f1, f2


def win_cgf(law: WinLaw, t: float) -> tuple[float, float, float] | None:
    """The cumulant generating function ``K(t) = log E[e^{tG}]`` of one game's win ``G``
    (credits per unit bet) and its first two derivatives; None where ``E[e^{tG}]`` is
    infinite (a feature with retriggers has a finite radius of convergence for ``t > 0``).

    ``E[e^{tG}] = E[e^{tB} (1 - I)] + E[e^{tB} I] E[e^{tF}]`` (the feature is independent of
    the base spin given the trigger); ``E[e^{tF}]`` from the fixed point of the free spins'
    branching process (see :func:`_feature_mgf`). Exact up to floating point."""
    parts = _parts(law)
    if t == 0.0:  # the mean and variance: asked for by every test of the law, the same
        if parts.at_zero:
            return parts.at_zero[0]
        parts.at_zero.append(_win_cgf(law, parts, 0.0))
        return parts.at_zero[0]
    return _win_cgf(law, parts, t)


def _win_cgf(law: WinLaw, parts: _LawParts, t: float) -> tuple[float, float, float] | None:
    shift = float(t * (parts.top if t > 0 else parts.bottom)) if parts.any_base else 0.0
    p0, p1, p2 = _moments(parts.base_values, parts.base_probs, t, shift)
    q0, q1, q2 = _moments(parts.trigger_values, parts.trigger_probs, t, shift)
    f0 = f1 = f2 = 0.0
    if law.spins and parts.any_trigger:
        feat = _feature_mgf(law, t)
        if feat is None:
            return None
        f0, f1, f2 = feat
    g0 = p0 + q0 * f0
    g1 = p1 + q1 * f0 + q0 * f1
    g2 = p2 + q2 * f0 + 2.0 * q1 * f1 + q0 * f2
    if not (math.isfinite(g0) and math.isfinite(g1) and math.isfinite(g2)) or g0 <= 0.0:
        return None
    k1 = g1 / g0
    return shift + math.log(g0), k1, max(g2 / g0 - k1 * k1, 0.0)


def _sum_cgf(
    law: WinLaw, levels: Sequence[tuple[int, int]], t: float
) -> tuple[float, float, float] | None:
    """CGF of the total win ``S = sum_b b (G_1 + ... + G_{n_b})`` over ``levels`` of
    ``(bet units b, games n_b)``: ``K_S(t) = sum_b n_b K(b t)``, with derivatives."""
    k0 = k1 = k2 = 0.0
    for bet, games in levels:
        one = win_cgf(law, bet * t)
        if one is None:
            return None
        k0 += games * one[0]
        k1 += games * bet * one[1]
        k2 += games * bet * bet * one[2]
    return k0, k1, k2


def _lattice_span(law: WinLaw, levels: Sequence[tuple[int, int]]) -> int:
    values = np.concatenate((law.base_values, law.free_values)).astype(np.int64)
    g = int(np.gcd.reduce(values)) if values.size else 1
    span = 0
    for bet, _ in levels:
        span = math.gcd(span, bet * g)
    return max(span, 1)


def _solve_saddle(
    law: WinLaw, levels: Sequence[tuple[int, int]], x: float, mean: float, sd: float
) -> tuple[float, tuple[float, float, float]] | None:
    """``t`` with ``K_S'(t) = x`` (None when ``x`` is beyond the support's reach): Newton's
    method (``K_S'`` increases, ``K_S''`` is its slope), kept inside a bracket that is
    bisected whenever a step leaves it or the domain of the generating function. Returns ``t``
    with ``K_S`` and its derivatives there."""
    sign = 1.0 if x > mean else -1.0
    lo, hi = (0.0, math.inf) if sign > 0 else (-math.inf, 0.0)
    t = 0.0
    c = _sum_cgf(law, levels, t)
    assert c is not None
    for _ in range(400):
        assert c is not None
        f = c[1] - x
        if abs(f) <= 1e-10 * max(sd, 1.0):
            return t, c
        if f < 0:
            lo = t
        else:
            hi = t
        nt = t - f / c[2] if c[2] > 0 else math.nan
        if not (lo < nt < hi) or not math.isfinite(nt):
            if math.isinf(hi):
                nt = t + max(abs(t), 1.0 / sd)  # expand upwards
            elif math.isinf(lo):
                nt = t - max(abs(t), 1.0 / sd)  # expand downwards
            else:
                nt = 0.5 * (lo + hi)
        nc = _sum_cgf(law, levels, nt)
        while nc is None:  # beyond the radius of convergence: come back towards t
            hi = nt
            nt = 0.5 * (t + nt)
            if nt - t <= 1e-15 * max(abs(t), 1e-300):
                return None
            nc = _sum_cgf(law, levels, nt)
        if abs(nt - t) <= 1e-14 * max(abs(nt), 1e-300):
            return nt, nc
        t, c = nt, nc
        if abs(t) > 1e6:
            return None  # x lies beyond what the games can produce
    assert c is not None
    return t, c


def win_tails(law: WinLaw, levels: Sequence[tuple[int, int]], won: float) -> tuple[float, float]:
    """``(P(S <= won), P(S >= won))`` for the total win ``S`` of the games in ``levels``.

    Lugannani-Rice saddle-point approximation on the exact cumulant generating function of
    :func:`_sum_cgf`: with ``t`` solving ``K_S'(t) = x``,
    ``w = sign(t) sqrt(2 (t x - K_S(t)))`` and ``u = t sqrt(K_S''(t))``,
    ``P(S >= x) ~ 1 - Phi(w) + phi(w) (1/u - 1/w)``. The total lives on a lattice of span
    ``h``; the tail at ``won`` is evaluated at ``won -/+ h/2`` (continuity correction).
    Unlike a normal curve it follows the skew of a game with rare large prizes: the upper
    tail (machine paying more than it should) is long, the lower short. Its relative error
    is ``O(1/n)`` uniformly in the tail (``tests/test_stats.py`` checks it against Monte
    Carlo). Beyond the support's reach the tail is 0; at the mean both are 1/2-ish.
    """
    if not levels or sum(n for _, n in levels) == 0:
        return 1.0, 1.0
    base = _sum_cgf(law, levels, 0.0)
    assert base is not None
    mean, var = base[1], base[2]
    if var <= 0.0:
        return (1.0 if won >= mean else 0.0), (1.0 if won <= mean else 0.0)
    sd = math.sqrt(var)
    h = _lattice_span(law, levels)
    if won <= mean:  # only the near side needs the saddle point; the far one is > 1/2
        low = _lr_tail(law, levels, won + h / 2, mean, sd, lower=True)
        return low, max(0.5, 1.0 - low)
    high = _lr_tail(law, levels, won - h / 2, mean, sd, lower=False)
    return max(0.5, 1.0 - high), high


def _lr_tail(
    law: WinLaw, levels: Sequence[tuple[int, int]], x: float, mean: float, sd: float, lower: bool
) -> float:
    z = (x - mean) / sd
    if abs(z) < 1e-3:  # at the mean Lugannani-Rice is 0/0: the normal tail is exact enough
        return _norm_cdf(z) if lower else _norm_sf(z)
    solved = _solve_saddle(law, levels, x, mean, sd)
    if solved is None:  # x lies beyond what the games can produce on that side
        return 0.0
    t, (k0, _, k2) = solved
    w = math.copysign(math.sqrt(max(2.0 * (t * x - k0), 0.0)), t)
    u = t * math.sqrt(k2)
    if w == 0.0 or u == 0.0:
        return _norm_cdf(z) if lower else _norm_sf(z)
    corr = _norm_pdf(w) * (1.0 / w - 1.0 / u)
    p = _norm_cdf(w) + corr if lower else _norm_sf(w) - corr
    return min(max(p, 0.0), 1.0)


def hold_tail_test(
    law: WinLaw, levels: Sequence[tuple[int, int]], won: int, cost: int
) -> TestResult:
    """Two-sided test of a machine's credits won against the exact law of its games
    (item 20(f)): ``p = min(1, 2 min(P(S <= won), P(S >= won)))`` from :func:`win_tails`.

    ``levels``: ``(bet units, games)`` actually played; ``won``: credits won by the player
    (progressive prizes excluded); ``cost``: credits per unit bet, for the hold shown in
    ``detail``. The games are taken as independent with the stated bets; a session that
    stops on a rule (win goal, loss limit, jackpot lock) is a stopping time, so by Wald's
    identities the mean and variance of the total are those of the fixed-size sum.
    """
    name = "hold_tail"
    games = sum(n for _, n in levels)
    wagered = sum(b * n for b, n in levels) * cost
    if games == 0 or wagered == 0:
        return _not_run(name, games, "no games")
    low, high = win_tails(law, levels, float(won))
    p = min(1.0, 2.0 * min(low, high))
    base = _sum_cgf(law, levels, 0.0)
    assert base is not None
    z = (won - base[1]) / math.sqrt(base[2]) if base[2] > 0 else 0.0
    detail = (
        f"saddle-point tail of the exact win law: won {won} credits, expected "
        f"{base[1]:.0f} (sd {math.sqrt(base[2]):.0f}), P(<=) = {low:.2e}, P(>=) = {high:.2e}"
    )
    return TestResult(name=name, statistic=z, dof=0.0, p_value=p, n=games, detail=detail)


# --- many machines: the floor's false discoveries, each machine's own confidence --------------


def select_then_test(
    families: Sequence[Sequence[float]], q: float, alpha: float
) -> list[npt.NDArray[np.bool_]]:
    """Two levels of error control: which machines (families of tests) to report, then which
    of a reported machine's tests fail.

    1. Across the floor: each family's p-value is the Bonferroni ``min(1, k min p)`` of its
       ``k`` tests (valid under any dependence between them); Benjamini-Hochberg at ``q``
       over the families selects the machines to report. The expected share of wrongly
       reported machines is at most ``q``, and a floor of fair machines reports any at all
       with probability at most ``q``.
    2. Within a selected machine: Holm at family-wise level ``alpha`` over its own tests
       marks the tests that fail (the regulation's per-machine confidence limits, ``alpha =
       1 - confidence``). A selected machine none of whose tests fails at ``alpha`` is not
       reported.

    Both settings change the outcome: ``q`` which machines can be reported, ``alpha`` whether
    a selected machine is reported and which of its tests (and so which sub-clauses) are
    named. Returns, per family, the reject flags of its tests (all False when not
    selected).
    """
    if not 0 < q < 1 or not 0 < alpha < 1:
        raise ValueError("q and alpha must lie in (0, 1)")
    fam_p = [min(1.0, len(f) * min(f)) if len(f) else 1.0 for f in families]
    chosen = benjamini_hochberg(fam_p, q) if fam_p else np.zeros(0, np.bool_)
    out = []
    for f, sel in zip(families, chosen.tolist(), strict=True):
        if sel and len(f):
            out.append(holm(f, alpha))
        else:
            out.append(np.zeros(len(f), np.bool_))
    return out
