"""Item 20(f): actual versus theoretical hold, by the normal band of the hold."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt
from scipy import stats as sps

from twin.compliance.stats.results import TestResult, _as_1d_float, _norm_sf, _not_run

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
