"""The scalar implementations the end-of-run statistics had before they were batched
(the hold's saddle-point tails of item 20(f), the randomness tests of item 1(b), the
rank correlation of item 1(e)), kept as they were so that
``tests/test_stats_equal.py`` holds the fast paths to the very same floats."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import scipy.stats as sps
from scipy.optimize import brentq

from twin.compliance import stats
from twin.compliance.checks.outcomes import (
    BLOCK_CELLS,
    CLIP,
    EXCEED,
    MIN_STRETCHES,
    PERMUTATIONS,
    WINDOWS,
)
from twin.compliance.stats.results import (
    TestResult,
    _as_1d_float,
    _as_counts,
    _norm_cdf,
    _norm_pdf,
    _norm_sf,
    _not_run,
)
from twin.compliance.stats.rng import (
    COMBINATION_ELIGIBLE,
    _Chi2,
    _chi2_batch,
    _pearson,
    _stop_frequency_stat,
)
from twin.compliance.stats.tails import WinLaw

# --- item 20(f): the exact law of the win, and saddle-point tails (one t at a time) -------


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


def _parts(law: WinLaw) -> _LawParts:
    return _split(law)


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
    return _win_cgf(law, _parts(law), t)


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


# --- item 1(b): randomness (each reel, table and partition on its own) ---------------------


def _availabilities(reels: list[tuple[np.ndarray, tuple[int, ...]]]) -> list[stats.TestResult]:
    """:func:`_availability` of every reel, with one Poisson call over all of their stops."""
    if not reels:
        return []
    ns = [int(counts.sum()) for counts, _ in reels]
    expected = [
        np.asarray(weights, np.float64) * (n / sum(weights))
        for n, (_, weights) in zip(ns, reels, strict=True)
    ]
    all_tails = sps.poisson.cdf(np.concatenate([c for c, _ in reels]), np.concatenate(expected))
    out = []
    at = 0
    for n, exp, (counts, weights) in zip(ns, expected, reels, strict=True):
        tails = all_tails[at : at + len(weights)]
        at += len(weights)
        p = float(min(1.0, tails.min() * len(weights))) if n else 1.0
        worst = int(np.argmin(tails)) if n else 0
        detail = f"stop {worst}: {int(counts[worst])} seen, {exp[worst]:.1f} expected"
        out.append(stats.TestResult("availability", float(n), 0.0, p, n, detail))
    return out


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


# --- item 1(e): the rank correlation of the adaptation test -------------------------------


def _rho(dev: np.ndarray, var: np.ndarray, games: np.ndarray) -> np.ndarray:
    """Per row of stretches (rows: orderings), the most negative over ``WINDOWS`` of the
    rank correlation between each stretch's standardised win and the standardised win of
    the previous stretches making at least the window's games."""
    rows, n = dev.shape
    r = dev / np.sqrt(var)
    zero = np.zeros((rows, 1))
    csum = np.hstack((zero, np.cumsum(dev, axis=1)))
    cvar = np.hstack((zero, np.cumsum(var, axis=1)))
    cgames = np.hstack((zero, np.cumsum(games, axis=1)))
    idx = np.arange(1, n)
    ry = np.clip(r[:, 1:], -CLIP, CLIP)
    ry -= ry.mean(axis=1, keepdims=True)
    best = np.full(rows, np.inf)
    for window in WINDOWS:
        target = cgames[:, idx] - window
        # one search over all rows at once: row k's cumulative games shifted by k * span
        span = cgames[:, -1].max() + window + 1.0
        shift = (np.arange(rows) * span)[:, None]
        flat = np.searchsorted((cgames + shift).ravel(), (target + shift).ravel(), side="right")
        start = flat.reshape(rows, n - 1) - 1 - (np.arange(rows) * (n + 1))[:, None]
        start = np.clip(start, 0, idx - 1)
        take = np.take_along_axis
        x = (take(csum, idx[None, :].repeat(rows, 0), 1) - take(csum, start, 1)) / np.sqrt(
            take(cvar, idx[None, :].repeat(rows, 0), 1) - take(cvar, start, 1)
        )
        rx = np.clip(x, -CLIP, CLIP)
        rx -= rx.mean(axis=1, keepdims=True)
        den = np.sqrt((rx * rx).sum(axis=1) * (ry * ry).sum(axis=1))
        rho = np.where(den > 0, (rx * ry).sum(axis=1) / np.where(den > 0, den, 1.0), 0.0)
        best = np.minimum(best, rho)
    return best


def adaptation_test(
    stretches: list[tuple[int, int, int]], mean_unit: float, var_unit: float
) -> stats.TestResult:
    """Rank correlation of each stretch's standardised win with the standardised win of the
    stretches before it (``WINDOWS`` games; the most negative of the windows), referred to
    its permutation distribution: under a fixed pay table the stretches are independent and
    (their lengths being drawn alike) exchangeable, so every ordering is equally likely.
    Sequential Monte Carlo over orderings (Besag and Clifford): stops after ``EXCEED``
    orderings at least as negative, at most ``PERMUTATIONS``; exact size, and a fair machine
    costs few orderings. The orderings are seeded from the data (reproducible).
    ``stretches``: (bet units, games, credits won); ``mean_unit``/``var_unit``: mean and
    variance of a game's win per unit bet (credits)."""
    bet = np.array([s[0] for s in stretches], np.float64)
    games = np.array([s[1] for s in stretches], np.float64)
    won = np.array([s[2] for s in stretches], np.float64)
    var = games * bet * bet * var_unit
    keep = var > 0
    dev, var, games = (won - games * bet * mean_unit)[keep], var[keep], games[keep]
    n = dev.size
    if n < MIN_STRETCHES + 1 or var_unit <= 0:
        return stats.TestResult("adaptation", 0.0, 0.0, 1.0, n, "too few stretches")
    observed = float(_rho(dev[None, :], var[None, :], games[None, :])[0])
    p = sequential_p(
        lambda order: _rho(dev[order], var[order], games[order]),
        observed,
        n,
        dev.tobytes() + games.tobytes(),
    )
    detail = (
        f"rank correlation {observed:.3f} of payout with the recent hold over {n - 1} "
        "stretches (permutation test)"
    )
    return stats.TestResult("adaptation", observed, 0.0, p, n - 1, detail)


def sequential_p(
    stat: Callable[[np.ndarray], np.ndarray],
    observed: float,
    n: int,
    data: bytes,
    permutations: int = PERMUTATIONS,
) -> float:
    """Permutation p-value of ``observed`` (small is extreme) by sequential Monte Carlo over
    orderings of ``n`` items (Besag and Clifford): ``stat`` maps a block of orderings (rows
    of indices) to their statistics; stops after ``EXCEED`` orderings at least as extreme,
    at most ``permutations``. Exact size, and a machine far from extreme costs few
    orderings. The orderings are seeded from ``data`` (reproducible)."""
    digest = hashlib.sha256(data).digest()[:8]
    rng = np.random.default_rng(int(np.frombuffer(digest, np.uint64)[0]))
    tol = 1e-12 * max(1.0, abs(observed))
    exceed = drawn = 0
    block = 32
    while True:
        m = min(block, permutations - 1 - drawn)
        order = np.argsort(rng.random((m, n)), axis=1)
        hits = np.cumsum(stat(order) <= observed + tol)
        if exceed + int(hits[-1]) >= EXCEED:
            at = int(np.searchsorted(hits, EXCEED - exceed))
            return EXCEED / (drawn + at + 1)
        exceed += int(hits[-1])
        drawn += m
        if drawn >= permutations - 1:
            return (1 + exceed) / permutations
        # blocks of orderings grow, but never beyond BLOCK_CELLS (memory flat in the run's
        # length; the orderings drawn, and so the p-value, do not depend on the blocks)
        block = min(4 * block, 8192, max(32, BLOCK_CELLS // n))
