"""Item 20(f): the exact law of the win, and saddle-point tails of the hold."""

from __future__ import annotations

import math
from collections.abc import Generator, Sequence
from dataclasses import dataclass, field
from typing import Protocol, TypeAlias, TypeVar

import numpy as np
import numpy.typing as npt
from scipy.optimize import brentq

from twin.compliance.stats.results import TestResult, _norm_cdf, _norm_pdf, _norm_sf, _not_run
from twin.memo import PerObject

R = TypeVar("R")
#: ``K(t)`` with its first two derivatives (of one game, or of a total).
Cgf: TypeAlias = tuple[float, float, float]

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
    gcd: int  # of every base and free win (1 if none): the lattice of one game's win
    # win_cgf at t = 0 once computed (a list, so the frozen parts can hold it)
    at_zero: list[Cgf | None] = field(default_factory=list)


def _parts(law: WinLaw) -> _LawParts:
    """``law`` split (once per law object)."""
    return _PARTS.get(law)


def _split(law: WinLaw) -> _LawParts:
    bv = law.base_values.astype(np.float64)
    trig = law.base_trigger
    fv = law.free_values.astype(np.float64)
    re = law.free_retrigger
    wins = np.concatenate((law.base_values, law.free_values)).astype(np.int64)
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
        gcd=int(np.gcd.reduce(wins)) if wins.size else 1,
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


def _moments_rows(
    values: npt.NDArray[np.float64],
    probs: npt.NDArray[np.float64],
    ts: npt.NDArray[np.float64],
    shifts: npt.NDArray[np.float64] | None,
) -> tuple[list[float], list[float], list[float]]:
    """:func:`_moments` at each ``(ts[i], shifts[i])``, the very floats: every element is the
    same operation, a row's sums are numpy's pairwise sums of that row, and its dot product
    is ``np.dot``'s of one row (``np.vecdot``: a matrix product would round otherwise).
    Overflow is left to give non-finite values (the caller tests them)."""
    rows = ts.size
    if values.size == 0:
        zeros = [0.0] * rows
        return zeros, zeros, zeros
    e = np.multiply.outer(ts, values)  # in place from here: the same operations
    if shifts is not None:  # (x - 0.0 is x: no shift, nothing to subtract)
        e -= shifts[:, None]
    np.exp(e, out=e)
    e *= probs
    ev = e * values
    return e.sum(axis=1).tolist(), ev.sum(axis=1).tolist(), _row_dots(ev, values)


def _row_dots(rows: npt.NDArray[np.float64], values: npt.NDArray[np.float64]) -> list[float]:
    """``np.dot(row, values)`` of each row: ``np.vecdot`` (numpy 2) takes each with the same
    dot loop as ``np.dot`` (the same BLAS call a row), without a Python call a row."""
    if hasattr(np, "vecdot"):
        dots: list[float] = np.vecdot(rows, values).tolist()
        return dots
    return [float(np.dot(row, values)) for row in rows]  # pragma: no cover - numpy 1


def _feature_mgf(law: WinLaw, t: float) -> Cgf | None:
    """``E[e^{tF}]`` and its first two derivatives for the feature total ``F`` (the sum of
    ``spins`` Galton-Watson totals ``T``, ``M = E[e^{tT}]`` the smallest root of
    ``M = A + C M^S``); None where the moment generating function is infinite."""
    parts = _parts(law)
    with np.errstate(over="raise"):
        try:
            a = _moments(parts.free_values, parts.free_probs, t, 0.0)
            c = _moments(parts.retrigger_values, parts.retrigger_probs, t, 0.0)
        except FloatingPointError:
            return None
    return _feature_from(law.spins, *a, *c)


def _feature_from(
    s: int, a0: float, a1: float, a2: float, c0: float, c1: float, c2: float
) -> Cgf | None:
    """:func:`_feature_mgf` from the moments ``a`` of the free spins that do not retrigger
    and ``c`` of those that do (non-finite: the generating function is infinite)."""
    isfinite = math.isfinite
    if not (isfinite(a0) and isfinite(a1) and isfinite(a2)):
        return None
    if not (isfinite(c0) and isfinite(c1) and isfinite(c2)):
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
        s1, sc0 = s - 1, s * c0
        top = (1.0 / sc0) ** (1.0 / s1)  # where A + C M^S - M is smallest
        if a0 + c0 * top**s - top > 0.0:
            return None  # no fixed point: beyond the radius of convergence
        # the smallest root of A + C M^S - M: Newton from 0 rises monotonically to it
        # (convex, positive at 0)
        m = 0.0
        for _ in range(200):
            step = (a0 + c0 * m**s - m) / (1.0 - sc0 * m**s1)
            m += step
            if abs(step) <= 1e-15 * max(m, 1e-300):
                break
        else:  # pragma: no cover - Newton from below converges; bisection as a fallback
            m = float(brentq(lambda x: a0 + c0 * x**s - x, 0.0, top, xtol=1e-300, rtol=4 * EPS))
        ms1 = m**s1
        d = 1.0 - sc0 * ms1
        if d <= 0.0:
            return None
        m1 = (a1 + c1 * m**s) / d
        m2 = (a2 + c2 * m**s + 2.0 * s * c1 * ms1 * m1 + s * s1 * c0 * m ** (s - 2) * m1**2) / d
    ms1 = m ** (s - 1)
    f2 = s * (s - 1) * m ** (s - 2) * m1**2 + s * ms1 * m2 if s > 1 else m2
    return m**s, s * ms1 * m1, f2


EPS = float(np.finfo(float).eps)


def win_cgf(law: WinLaw, t: float) -> Cgf | None:
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


def _win_cgf(law: WinLaw, parts: _LawParts, t: float) -> Cgf | None:
    shift = _shift(parts, t)
    p = _moments(parts.base_values, parts.base_probs, t, shift)
    q = _moments(parts.trigger_values, parts.trigger_probs, t, shift)
    feat: Cgf | None = (0.0, 0.0, 0.0)
    if law.spins and parts.any_trigger:
        feat = _feature_mgf(law, t)
    return _combine(shift, p, q, feat)


def _shift(parts: _LawParts, t: float) -> float:
    """What :func:`_win_cgf` takes out of the exponent (``e^{tB}`` at its largest: no
    overflow)."""
    return float(t * (parts.top if t > 0 else parts.bottom)) if parts.any_base else 0.0


def _combine(shift: float, p: Cgf, q: Cgf, feat: Cgf | None) -> Cgf | None:
    """``K(t)`` with its derivatives from the moments ``p`` of the base outcomes that do not
    trigger the feature, ``q`` of those that do (both shifted by ``shift``) and the
    feature's ``feat`` (None: infinite)."""
    if feat is None:
        return None
    p0, p1, p2 = p
    q0, q1, q2 = q
    f0, f1, f2 = feat
    g0 = p0 + q0 * f0
    g1 = p1 + q1 * f0 + q0 * f1
    g2 = p2 + q2 * f0 + 2.0 * q1 * f1 + q0 * f2
    if not (math.isfinite(g0) and math.isfinite(g1) and math.isfinite(g2)) or g0 <= 0.0:
        return None
    k1 = g1 / g0
    return shift + math.log(g0), k1, max(g2 / g0 - k1 * k1, 0.0)


def win_cgfs(law: WinLaw, ts: Sequence[float]) -> list[Cgf | None]:
    """:func:`win_cgf` at each of ``ts``, the very floats, with one numpy evaluation of each
    part of the law for all of them (a test makes thousands of evaluations of a few laws:
    one at a time, numpy's call overhead on small supports is most of their cost)."""
    parts = _parts(law)
    out: list[Cgf | None] = [None] * len(ts)
    rows = [i for i, t in enumerate(ts) if t != 0.0]
    for i, t in enumerate(ts):
        if t == 0.0:
            out[i] = win_cgf(law, t)  # the cached mean and variance
    if not rows:
        return out
    size = max(parts.base_values.size + parts.trigger_values.size, parts.free_values.size, 1)
    block = max(1, CGF_CELLS // size)
    for at in range(0, len(rows), block):  # blocks of rows: memory bounded, same floats
        chunk = rows[at : at + block]
        for i, one in zip(chunk, _win_cgf_rows(law, parts, [ts[i] for i in chunk]), strict=True):
            out[i] = one
    return out


#: Most ``t`` x support cells :func:`win_cgfs` evaluates at once (bounds its memory).
CGF_CELLS = 1 << 18


def _win_cgf_rows(law: WinLaw, parts: _LawParts, t_list: list[float]) -> list[Cgf | None]:
    shift_list = [_shift(parts, t) for t in t_list]
    t_arr = np.array(t_list, np.float64)
    shifts = np.array(shift_list, np.float64)
    rows = range(len(t_list))
    p = _moments_rows(parts.base_values, parts.base_probs, t_arr, shifts)
    q = _moments_rows(parts.trigger_values, parts.trigger_probs, t_arr, shifts)
    feats: list[Cgf | None] = [(0.0, 0.0, 0.0)] * len(rows)
    if law.spins and parts.any_trigger:
        # :func:`_feature_mgf` raises on an overflow; here it leaves a non-finite moment,
        # which :func:`_feature_from` reads as an infinite generating function, as there
        with np.errstate(over="ignore", invalid="ignore"):
            a = _moments_rows(parts.free_values, parts.free_probs, t_arr, None)
            c = _moments_rows(parts.retrigger_values, parts.retrigger_probs, t_arr, None)
        feats = [_feature_from(law.spins, *x) for x in zip(*a, *c, strict=True)]
    return [
        _combine(shift, (b0, b1, b2), (t0, t1, t2), feat)
        for shift, b0, b1, b2, t0, t1, t2, feat in zip(shift_list, *p, *q, feats, strict=True)
    ]


def _sum_cgf(law: WinLaw, levels: Sequence[tuple[int, int]], t: float) -> Cgf | None:
    """CGF of the total win ``S = sum_b b (G_1 + ... + G_{n_b})`` over ``levels`` of
    ``(bet units b, games n_b)``: ``K_S(t) = sum_b n_b K(b t)``, with derivatives."""
    return _sum_from(levels, [win_cgf(law, bet * t) for bet, _ in levels])


def _sum_from(levels: Sequence[tuple[int, int]], ones: Sequence[Cgf | None]) -> Cgf | None:
    """:func:`_sum_cgf` from :func:`win_cgf` at each level's ``bet * t`` (``ones``)."""
    k0 = k1 = k2 = 0.0
    for (bet, games), one in zip(levels, ones, strict=True):
        if one is None:
            return None
        k0 += games * one[0]
        k1 += games * bet * one[1]
        k2 += games * bet * bet * one[2]
    return k0, k1, k2


def _lattice_span(law: WinLaw, levels: Sequence[tuple[int, int]]) -> int:
    g = _parts(law).gcd
    span = 0
    for bet, _ in levels:
        span = math.gcd(span, bet * g)
    return max(span, 1)


#: What a test's steps ask of the law: ``K_S`` at a ``t`` (yielded), with its derivatives,
#: None where infinite (sent back); the generator's return value is the answer.
Steps: TypeAlias = Generator[float, Cgf | None, R]


def _drive(law: WinLaw, levels: Sequence[tuple[int, int]], steps: Steps[R]) -> R:
    """Run ``steps`` on one machine's games, each ``K_S`` evaluated as it is asked for."""
    try:
        t = next(steps)
        while True:
            t = steps.send(_sum_cgf(law, levels, t))
    except StopIteration as stop:
        done: R = stop.value
        return done


def _solve_saddle(
    law: WinLaw, levels: Sequence[tuple[int, int]], x: float, mean: float, sd: float
) -> tuple[float, Cgf] | None:
    """``t`` with ``K_S'(t) = x`` (None when ``x`` is beyond the support's reach), with
    ``K_S`` and its derivatives there (see :func:`_saddle_steps`)."""
    return _drive(law, levels, _saddle_steps(law, levels, x, mean, sd))


def _saddle_steps(
    law: WinLaw, levels: Sequence[tuple[int, int]], x: float, mean: float, sd: float
) -> Steps[tuple[float, Cgf] | None]:
    """:func:`_solve_saddle`: Newton's method (``K_S'`` increases, ``K_S''`` is its slope),
    kept inside a bracket that is bisected whenever a step leaves it or the domain of the
    generating function."""
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
        nc = yield nt
        while nc is None:  # beyond the radius of convergence: come back towards t
            hi = nt
            nt = 0.5 * (t + nt)
            if nt - t <= 1e-15 * max(abs(t), 1e-300):
                return None
            nc = yield nt
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
    return _drive(law, levels, _win_tails_steps(law, levels, won))


def _win_tails_steps(
    law: WinLaw, levels: Sequence[tuple[int, int]], won: float
) -> Steps[tuple[float, float]]:
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
        low = yield from _lr_tail_steps(law, levels, won + h / 2, mean, sd, lower=True)
        return low, max(0.5, 1.0 - low)
    high = yield from _lr_tail_steps(law, levels, won - h / 2, mean, sd, lower=False)
    return max(0.5, 1.0 - high), high


def _lr_tail_steps(
    law: WinLaw, levels: Sequence[tuple[int, int]], x: float, mean: float, sd: float, lower: bool
) -> Steps[float]:
    z = (x - mean) / sd
    if abs(z) < 1e-3:  # at the mean Lugannani-Rice is 0/0: the normal tail is exact enough
        return _norm_cdf(z) if lower else _norm_sf(z)
    solved = yield from _saddle_steps(law, levels, x, mean, sd)
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
    return _drive(law, levels, _hold_tail_steps(law, levels, won, cost))


def hold_tail_tests(
    items: Sequence[tuple[WinLaw, Sequence[tuple[int, int]], int, int]],
) -> list[TestResult]:
    """:func:`hold_tail_test` of each ``(law, levels, won, cost)``, the very results.

    The machines' saddle-point searches advance together, one Newton step each a round;
    a round evaluates the generating function of each law at every ``t`` its machines ask
    for at once (:func:`win_cgfs`): the cost of a step is then mostly arithmetic, not
    numpy's overhead on small arrays."""
    done: list[TestResult | None] = [None] * len(items)
    running: dict[int, Steps[TestResult]] = {}
    asked: dict[int, float] = {}

    def advance(i: int, steps: Steps[TestResult], reply: Cgf | None, first: bool) -> None:
        try:
            asked[i] = next(steps) if first else steps.send(reply)
            running[i] = steps
        except StopIteration as stop:
            done[i] = stop.value
            running.pop(i, None)

    for i, (law, levels, won, cost) in enumerate(items):
        advance(i, _hold_tail_steps(law, levels, won, cost), None, first=True)
    while running:
        by_law: dict[int, list[int]] = {}
        for i in running:
            by_law.setdefault(id(items[i][0]), []).append(i)
        replies: list[tuple[int, Cgf | None]] = []
        for group in by_law.values():
            ts = [bet * asked[i] for i in group for bet, _ in items[i][1]]
            ones = win_cgfs(items[group[0]][0], ts)
            at = 0
            for i in group:
                levels = items[i][1]
                replies.append((i, _sum_from(levels, ones[at : at + len(levels)])))
                at += len(levels)
        for i, reply in replies:
            advance(i, running[i], reply, first=False)
    out = [r for r in done if r is not None]
    assert len(out) == len(items)
    return out


def _hold_tail_steps(
    law: WinLaw, levels: Sequence[tuple[int, int]], won: int, cost: int
) -> Steps[TestResult]:
    name = "hold_tail"
    games = sum(n for _, n in levels)
    wagered = sum(b * n for b, n in levels) * cost
    if games == 0 or wagered == 0:
        return _not_run(name, games, "no games")
    low, high = yield from _win_tails_steps(law, levels, float(won))
    p = min(1.0, 2.0 * min(low, high))
    base = _sum_cgf(law, levels, 0.0)
    assert base is not None
    z = (won - base[1]) / math.sqrt(base[2]) if base[2] > 0 else 0.0
    detail = (
        f"saddle-point tail of the exact win law: won {won} credits, expected "
        f"{base[1]:.0f} (sd {math.sqrt(base[2]):.0f}), P(<=) = {low:.2e}, P(>=) = {high:.2e}"
    )
    return TestResult(name=name, statistic=z, dof=0.0, p_value=p, n=games, detail=detail)
