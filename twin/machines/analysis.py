"""Exact analysis of a PAR sheet by full enumeration of the reel cycle.

Every stop combination ``(s_0, ..., s_{R-1})`` of the reels is evaluated once and weighted by
``w_0[s_0] * ... * w_{R-1}[s_{R-1}]``; the sum of those products is the *cycle*. All sums of
weight × pay (and weight × pay²) are exact integers, so the return to player is an exact
`Fraction`; floats appear only in the rendered ratios and the standard deviation.

The enumeration is vectorised: the last reels (the *suffix*, at most `CHUNK` combinations) are
laid out once as numpy arrays, and a Python loop runs over the stops of the first reels (the
*prefix*). For each line, the line pay of every combination is one gather from the game's line
pay table (see `twin.machines.par`): the prefix symbols select a contiguous slice of the
table and the suffix symbols index into it. Memory is bounded by a few arrays of `CHUNK`
entries per line.

Random variables, all in credits per unit bet (divide by ``cost`` for units of the wager):

* ``B`` — base game win (line + scatter), ``I`` — feature trigger indicator on the base spin;
* ``W`` — one free spin's win (× multiplier), ``R`` — spins it retriggers (0 or ``spins``);
* ``T`` — the total win caused by one pending free spin, its retriggers and theirs: a
  Galton–Watson sum ``T = W + Y_1 + ... + Y_R`` with ``Y_j`` independent copies of ``T``.
  Taking expectations (``m = E[T]``, ``s = E[T²]``)::

      m = E[W] / (1 - E[R])
      s = (E[W²] + 2 m E[WR] + (E[R²] - E[R]) m²) / (1 - E[R])

  which is finite because the process is subcritical (``E[R] < 1``, checked on load);
* ``F`` — the feature's total, the sum of ``S = spins`` independent ``T``:
  ``E[F] = S m``, ``E[F²] = S s + S (S - 1) m²``;
* ``G = B + I F`` — the game's win: ``E[G] = E[B] + P(I) E[F]``,
  ``E[G²] = E[B²] + 2 E[B I] E[F] + P(I) E[F²]`` (the feature is independent of the base
  spin given the trigger).

Maximum win: the feature length is unbounded with retriggers, so the report states the base
maximum and the largest single free-spin win separately, and a bound
``max_win = max_base_win + max_free_spin_win × feature_spin_cap`` where ``feature_spin_cap``
is the smallest number of feature spins exceeded with probability below `FEATURE_TAIL`
(exactly ``spins`` without retrigger). With ``p`` the retrigger probability, the number of
retriggers ``k`` of a feature started with ``S`` spins has, by the hitting-time theorem,
``P(k) = C(S(k+1), k) p^k (1-p)^(S(k+1)-k) / (k+1)`` and the feature lasts ``S (k+1)`` spins.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from twin.errors import InputError
from twin.machines.diskcache import cached
from twin.machines.par import Game, ReelSet
from twin.machines.par.game import IntArray

__all__ = [
    "CHUNK",
    "FEATURE_TAIL",
    "MAX_COMBINATIONS",
    "Analysis",
    "CombinationLaw",
    "ReelSums",
    "WinDistribution",
    "analyse",
    "combination_law",
    "enumerate_reels",
    "feature_spin_cap",
    "win_distribution",
]

MAX_COMBINATIONS = 200_000_000
"""Largest number of stop combinations enumerated exactly."""

CHUNK = 1 << 18
"""Largest number of combinations evaluated in one numpy block."""

FEATURE_TAIL = 1e-6
"""Tail probability that defines the stated free-spin feature length cap."""

_I64 = 1 << 63


@dataclass(frozen=True, slots=True)
class ReelSums:
    """Exact weighted sums over one reel set's cycle (win ``B`` per unit bet, no multiplier).

    ``line``, ``scatter``: Σ w·line pays, Σ w·scatter pays (credits per unit bet);
    ``win2``: Σ w·B²; ``trig``: Σ w·I; ``win_trig``: Σ w·B·I; ``hit``: Σ w·[B>0 or I or
    progressive]; ``prog``: Σ w·[progressive]; ``max_win``: max B.
    """

    combinations: int
    cycle: int
    line: int
    scatter: int
    win2: int
    trig: int
    win_trig: int
    hit: int
    prog: int
    max_win: int

    @property
    def win(self) -> int:
        return self.line + self.scatter


@dataclass(frozen=True, slots=True)
class Analysis:
    """Exact figures of one game. Returns are fractions of the wager, excluding the progressive
    link prize; wins are credits per unit bet; variance is in units of the wager squared."""

    game_id: str
    name: str
    path: str
    signature: str
    kind: str
    cost: int
    reels: int
    rows: int
    lines: int
    combinations: int
    cycle: int
    line_return: Fraction
    scatter_return: Fraction
    feature_return: Fraction
    table_return: Fraction
    hit_rate: Fraction
    progressive_rate: Fraction
    progressive_per_game: Fraction
    trigger_rate: Fraction
    retrigger_rate: Fraction
    feature_spins_mean: Fraction
    feature_win_mean: Fraction
    variance: Fraction
    max_base_win: int
    max_free_spin_win: int
    feature_spin_cap: int
    max_win: int

    @property
    def rtp(self) -> Fraction:
        """Total return to player (excluding the progressive prize), exact."""
        return self.line_return + self.scatter_return + self.feature_return + self.table_return

    @property
    def sd(self) -> float:
        """Standard deviation of one game's win, in units of the wager."""
        return math.sqrt(self.variance)

    @property
    def has_feature(self) -> bool:
        return self.trigger_rate > 0


def _wsum(w: IntArray | None, x: IntArray, wmax: int, xmax: int) -> int:
    """Exact Σ w·x (w None = all ones); falls back to Python ints if int64 could overflow."""
    if wmax * xmax * max(len(x), 1) < _I64:
        return int(x.sum()) if w is None else int(np.dot(w, x))
    ww = np.ones(len(x), dtype=object) if w is None else w.astype(object)
    return int(np.dot(ww, x.astype(object)))


def _split(
    game: Game, reels: ReelSet, chunk: int
) -> tuple[int, int, int, tuple[npt.NDArray[np.intp], ...], list[int]]:
    """How both enumerations walk every stop combination: reels ``k`` on form a suffix block
    of ``ns`` combinations (at most ``chunk``, with their stop indices ``idx``) evaluated at
    once for each prefix; ``place`` is each reel's weight in a line code. Returns ``(n_reels,
    k, ns, idx, place)``; too many combinations is the PAR sheet's error."""
    lengths = reels.lengths
    n_reels = len(lengths)
    combos = math.prod(lengths)
    if combos > MAX_COMBINATIONS:
        raise InputError(
            game.path,
            "reels",
            f"at most {MAX_COMBINATIONS} stop combinations for exact enumeration",
            combos,
        )
    k = n_reels - 1
    while k > 0 and math.prod(lengths[k - 1 :]) <= chunk:
        k -= 1
    suffix = lengths[k:]
    ns = math.prod(suffix)
    idx = np.unravel_index(np.arange(ns, dtype=np.int64), suffix)
    n_sym = len(game.symbols)
    place = [n_sym ** (n_reels - 1 - r) for r in range(n_reels)]
    return n_reels, k, ns, idx, place


def enumerate_reels(game: Game, reels: ReelSet, chunk: int = CHUNK) -> ReelSums:
    """Evaluate every stop combination of ``reels`` and return the exact weighted sums."""
    assert game.line_pay is not None and game.scatter_by_count is not None
    lengths = reels.lengths
    n_reels, k, ns, idx, place = _split(game, reels, chunk)
    K = len(game.symbols)
    combos = math.prod(lengths)
    ws: IntArray | None = None
    wmax = 1
    if any(w != 1 for r in range(k, n_reels) for w in reels.weights[r]):
        ws = np.ones(ns, np.int64)
        for j, r in enumerate(range(k, n_reels)):
            ws *= np.asarray(reels.weights[r], np.int64)[idx[j]]
        wmax = int(ws.max())
    suf_codes = []
    for line in game.lines:
        code = np.zeros(ns, np.int64)
        for j, r in enumerate(range(k, n_reels)):
            code += reels.window[r][line[r]][idx[j]] * place[r]
        suf_codes.append(code)
    sc_suf = np.zeros(ns, np.int64)
    tc_suf = np.zeros(ns, np.int64)
    for j, r in enumerate(range(k, n_reels)):
        sc_suf += reels.scatter_counts[r][idx[j]]
        tc_suf += reels.trigger_counts[r][idx[j]]
    block = K ** (n_reels - k)
    cost = game.cost
    sbc = game.scatter_by_count * cost
    trig_count = game.free_spins.count if game.free_spins else None
    max_b = int(game.line_pay.max()) * len(game.lines) + int(sbc.max())

    cycle = line_s = scat_s = win2_s = trig_s = wt_s = hit_s = prog_s = 0
    max_win = 0
    wsum_total = int(ws.sum()) if ws is not None else ns
    for pre in itertools.product(*(range(n) for n in lengths[:k])):
        wp = math.prod(reels.weights[r][s] for r, s in enumerate(pre))
        lines_win = np.zeros(ns, np.int64)
        prog = np.zeros(ns, np.bool_) if game.line_prog is not None else None
        for line, code in zip(game.lines, suf_codes, strict=True):
            off = sum(int(reels.window[r][line[r], s]) * place[r] for r, s in enumerate(pre))
            lines_win += np.take(game.line_pay[off : off + block], code)
            if prog is not None and game.line_prog is not None:
                prog |= np.take(game.line_prog[off : off + block], code)
        sc_pre = sum(int(reels.scatter_counts[r][s]) for r, s in enumerate(pre))
        scat = sbc[sc_suf + sc_pre]
        win = lines_win + scat
        hit = win > 0
        if trig_count is not None:
            tc_pre = sum(int(reels.trigger_counts[r][s]) for r, s in enumerate(pre))
            trig = (tc_suf + tc_pre) >= trig_count
            trig_s += wp * _wsum(ws, trig.astype(np.int64), wmax, 1)
            wt_s += wp * _wsum(ws, np.where(trig, win, 0), wmax, max_b)
            hit |= trig
        if prog is not None:
            prog_s += wp * _wsum(ws, prog.astype(np.int64), wmax, 1)
            hit |= prog
        cycle += wp * wsum_total
        line_s += wp * _wsum(ws, lines_win, wmax, max_b)
        scat_s += wp * _wsum(ws, scat, wmax, max_b)
        if max_b * max_b < _I64:
            win2_s += wp * _wsum(ws, win * win, wmax, max_b * max_b)
        else:  # pragma: no cover - squares beyond int64: exact Python ints
            sq = win.astype(object) * win.astype(object)
            win2_s += wp * int(np.dot(np.ones(ns, object) if ws is None else ws.astype(object), sq))
        hit_s += wp * _wsum(ws, hit.astype(np.int64), wmax, 1)
        max_win = max(max_win, int(win.max()))
    return ReelSums(combos, cycle, line_s, scat_s, win2_s, trig_s, wt_s, hit_s, prog_s, max_win)


def feature_spin_cap(spins: int, p: float, retrigger: bool, tail: float = FEATURE_TAIL) -> int:
    """Smallest feature length ``S (k+1)`` with P(more spins) < ``tail`` (``spins`` if no
    retrigger); see the module docstring for the distribution of the retrigger count ``k``."""
    if not retrigger or p <= 0:
        return spins
    q = 1.0 - p
    cum = 0.0
    for k in range(1_000_000):
        n = spins * (k + 1)
        log_pk = (
            math.lgamma(n + 1)
            - math.lgamma(k + 1)
            - math.lgamma(n - k + 1)
            + k * math.log(p)
            + (n - k) * math.log(q)
            - math.log(k + 1)
        )
        cum += math.exp(log_pk)
        if 1.0 - cum < tail:
            return n
    raise ValueError("feature spin cap did not converge")  # pragma: no cover


def analyse(game: Game, chunk: int = CHUNK) -> Analysis:
    """Exact analysis of ``game`` (see the module docstring for the mathematics); kept on
    disk by the program's content (:mod:`twin.machines.diskcache`)."""
    return cached("analysis", game, (chunk,), lambda: _analyse(game, chunk))


def _analyse(game: Game, chunk: int) -> Analysis:
    if game.kind == "table":
        return _analyse_table(game)
    assert game.base is not None
    base = enumerate_reels(game, game.base, chunk)
    cost = game.cost
    cyc = base.cycle
    eb = Fraction(base.win, cyc)
    eb2 = Fraction(base.win2, cyc)
    p_trig = Fraction(base.trig, cyc)
    e_bi = Fraction(base.win_trig, cyc)
    p_prog = Fraction(base.prog, cyc)
    fs = game.free_spins
    ef = ef2 = spins_mean = retrig = Fraction(0)
    prog_free = Fraction(0)
    max_free = 0
    cap = 0
    if fs is not None:
        free = base if game.feature is None else enumerate_reels(game, game.feature, chunk)
        fc = free.cycle
        mult, s = fs.multiplier, fs.spins
        ew = Fraction(mult * free.win, fc)
        ew2 = Fraction(mult * mult * free.win2, fc)
        retrig = Fraction(free.trig, fc) if fs.retrigger else Fraction(0)
        er = s * retrig
        er2 = s * s * retrig
        ewr = Fraction(mult * s * free.win_trig, fc) if fs.retrigger else Fraction(0)
        m1 = ew / (1 - er)
        s2 = (ew2 + 2 * m1 * ewr + (er2 - er) * m1 * m1) / (1 - er)
        ef = s * m1
        ef2 = s * s2 + s * (s - 1) * m1 * m1
        spins_mean = s / (1 - er)
        prog_free = Fraction(free.prog, fc)
        max_free = mult * free.max_win
        cap = feature_spin_cap(s, float(retrig), fs.retrigger)
    mean = eb + p_trig * ef
    second = eb2 + 2 * e_bi * ef + p_trig * ef2
    variance = (second - mean * mean) / (cost * cost)
    return Analysis(
        game_id=game.id,
        name=game.name,
        path=str(game.path),
        signature=game.signature,
        kind=game.kind,
        cost=cost,
        reels=game.draws_per_spin,
        rows=game.rows,
        lines=len(game.lines),
        combinations=base.combinations,
        cycle=cyc,
        line_return=Fraction(base.line, cyc * cost),
        scatter_return=Fraction(base.scatter, cyc * cost),
        feature_return=p_trig * ef / cost,
        table_return=Fraction(0),
        hit_rate=Fraction(base.hit, cyc),
        progressive_rate=p_prog,
        progressive_per_game=p_prog + p_trig * spins_mean * prog_free,
        trigger_rate=p_trig,
        retrigger_rate=retrig,
        feature_spins_mean=spins_mean,
        feature_win_mean=ef,
        variance=variance,
        max_base_win=base.max_win,
        max_free_spin_win=max_free,
        feature_spin_cap=cap,
        max_win=base.max_win + max_free * cap,
    )


def _analyse_table(game: Game) -> Analysis:
    rows = game.outcomes
    cyc = sum(o.weight for o in rows)
    paid = [(o.weight, 0 if o.progressive else o.pay) for o in rows]
    total = sum(w * x for w, x in paid)
    mean = Fraction(total, cyc)
    second = Fraction(sum(w * x * x for w, x in paid), cyc)
    cost = game.cost
    return Analysis(
        game_id=game.id,
        name=game.name,
        path=str(game.path),
        signature=game.signature,
        kind=game.kind,
        cost=cost,
        reels=0,
        rows=0,
        lines=0,
        combinations=len(rows),
        cycle=cyc,
        line_return=Fraction(0),
        scatter_return=Fraction(0),
        feature_return=Fraction(0),
        table_return=mean / cost,
        hit_rate=Fraction(sum(o.weight for o in rows if o.pay > 0 or o.progressive), cyc),
        progressive_rate=Fraction(sum(o.weight for o in rows if o.progressive), cyc),
        progressive_per_game=Fraction(sum(o.weight for o in rows if o.progressive), cyc),
        trigger_rate=Fraction(0),
        retrigger_rate=Fraction(0),
        feature_spins_mean=Fraction(0),
        feature_win_mean=Fraction(0),
        variance=(second - mean * mean) / (cost * cost),
        max_base_win=max(x for _, x in paid),
        max_free_spin_win=0,
        feature_spin_cap=0,
        max_win=max(x for _, x in paid),
    )


# --- the exact distribution of one game's win (for tail probabilities) ------------------------


@dataclass(frozen=True, slots=True)
class WinDistribution:
    """The exact law of one game's win ``G = B + I F`` in credits per unit bet.

    ``base_values``/``base_probs``/``base_trigger``: the joint support of the base win ``B``
    and the feature trigger ``I`` (one row per distinct ``(B, I)``), with probabilities.
    ``free_values``/``free_probs``/``free_retrigger``: the same for one free spin's win
    ``W`` (multiplier applied) and its retrigger; ``spins`` free spins per (re)trigger, so
    ``F`` is the sum of ``spins`` Galton-Watson totals ``T`` (see the module docstring).
    A game without free spins has empty free arrays and ``spins = 0``. Probabilities are the
    cycle weights divided by the cycle in float64 (exact while the cycle is below 2**53).
    The progressive prize is excluded, as in :class:`Analysis`.
    """

    signature: str
    cost: int
    base_values: IntArray
    base_probs: npt.NDArray[np.float64]
    base_trigger: npt.NDArray[np.bool_]
    free_values: IntArray
    free_probs: npt.NDArray[np.float64]
    free_retrigger: npt.NDArray[np.bool_]
    spins: int


def _weighted_wins(
    game: Game, reels: ReelSet, chunk: int = CHUNK
) -> tuple[IntArray, npt.NDArray[np.float64], npt.NDArray[np.bool_]]:
    """Every stop combination of ``reels``: the distinct (win, trigger) and their probability.

    The same prefix/suffix enumeration as :func:`enumerate_reels`, accumulating weights per
    ``2 * win + trigger`` instead of moment sums."""
    assert game.line_pay is not None and game.scatter_by_count is not None
    lengths = reels.lengths
    n_reels, k, ns, idx, place = _split(game, reels, chunk)
    n_sym = len(game.symbols)
    ws = np.ones(ns, np.float64)
    for j, r in enumerate(range(k, n_reels)):
        ws *= np.asarray(reels.weights[r], np.float64)[idx[j]]
    suf_codes = []
    for line in game.lines:
        code = np.zeros(ns, np.int64)
        for j, r in enumerate(range(k, n_reels)):
            code += reels.window[r][line[r]][idx[j]] * place[r]
        suf_codes.append(code)
    sc_suf = np.zeros(ns, np.int64)
    tc_suf = np.zeros(ns, np.int64)
    for j, r in enumerate(range(k, n_reels)):
        sc_suf += reels.scatter_counts[r][idx[j]]
        tc_suf += reels.trigger_counts[r][idx[j]]
    block = n_sym ** (n_reels - k)
    sbc = game.scatter_by_count * game.cost
    trig_count = game.free_spins.count if game.free_spins else None
    acc: dict[int, float] = {}
    max_b = int(game.line_pay.max()) * len(game.lines) + int(sbc.max())
    # a dense accumulator while the wins are small enough (else a sparse one)
    dense = np.zeros(2 * max_b + 2, np.float64) if max_b < 1 << 20 else None
    for pre in itertools.product(*(range(n) for n in lengths[:k])):
        wp = float(math.prod(reels.weights[r][s] for r, s in enumerate(pre)))
        win = np.zeros(ns, np.int64)
        for line, code in zip(game.lines, suf_codes, strict=True):
            off = sum(int(reels.window[r][line[r], s]) * place[r] for r, s in enumerate(pre))
            win += np.take(game.line_pay[off : off + block], code)
        sc_pre = sum(int(reels.scatter_counts[r][s]) for r, s in enumerate(pre))
        win += sbc[sc_suf + sc_pre]
        key = 2 * win
        if trig_count is not None:
            tc_pre = sum(int(reels.trigger_counts[r][s]) for r, s in enumerate(pre))
            key += (tc_suf + tc_pre) >= trig_count
        if dense is not None:
            # only up to this prefix's largest key (adding zeros beyond it changes nothing)
            cells = np.bincount(key, weights=ws)
            dense[: cells.size] += cells * wp
            continue
        cells, inverse = np.unique(key, return_inverse=True)
        sums = np.bincount(inverse.ravel(), weights=ws, minlength=cells.size) * wp
        for c, w in zip(cells.tolist(), sums.tolist(), strict=True):
            acc[c] = acc.get(c, 0.0) + w
    if dense is not None:
        keys = np.flatnonzero(dense).astype(np.int64)
        probs = dense[keys]
    else:
        keys = np.array(sorted(acc), np.int64)
        probs = np.array([acc[c] for c in keys.tolist()], np.float64)
    probs /= probs.sum()
    return keys // 2, probs, (keys % 2).astype(np.bool_)


_WIN_LAWS: dict[str, tuple[Game, WinDistribution]] = {}


def _same_pays(a: Game, b: Game) -> bool:
    """Whether two games of one signature also pay alike (a program may lie about itself)."""
    if a is b:
        return True
    if a.kind != b.kind or a.outcomes != b.outcomes:
        return False
    return all(
        (x is None and y is None) or (x is not None and y is not None and np.array_equal(x, y))
        for x, y in ((a.line_pay, b.line_pay), (a.scatter_by_count, b.scatter_by_count))
    )


def win_distribution(game: Game, chunk: int = CHUNK) -> WinDistribution:
    """The exact law of ``game``'s win per unit bet (cached by signature; see
    :class:`WinDistribution`)."""
    hit = _WIN_LAWS.get(game.signature)
    if hit is not None and _same_pays(hit[0], game):
        return hit[1]
    law = cached("winlaw", game, (chunk,), lambda: _win_distribution(game, chunk))
    if len(_WIN_LAWS) >= 64:
        _WIN_LAWS.clear()
    _WIN_LAWS[game.signature] = (game, law)
    return law


def _win_distribution(game: Game, chunk: int) -> WinDistribution:
    empty_i = np.zeros(0, np.int64)
    empty_f = np.zeros(0, np.float64)
    empty_b = np.zeros(0, np.bool_)
    if game.kind == "table":
        paid: dict[int, float] = {}
        for o in game.outcomes:
            pay = 0 if o.progressive else o.pay
            paid[pay] = paid.get(pay, 0.0) + o.weight
        values = np.array(sorted(paid), np.int64)
        probs = np.array([paid[v] for v in values.tolist()], np.float64)
        law = WinDistribution(
            game.signature, game.cost, values, probs / probs.sum(),
            np.zeros(values.size, np.bool_), empty_i, empty_f, empty_b, 0,
        )  # fmt: skip
    else:
        assert game.base is not None
        bv, bp, bt = _weighted_wins(game, game.base, chunk)
        fs = game.free_spins
        if fs is None:
            law = WinDistribution(
                game.signature, game.cost, bv, bp, bt, empty_i, empty_f, empty_b, 0
            )
        else:
            fv, fp, ft = _weighted_wins(game, game.feature_reels, chunk)
            if not fs.retrigger:
                ft = np.zeros(ft.size, np.bool_)
            law = WinDistribution(
                game.signature, game.cost, bv, bp, bt, fv * fs.multiplier, fp, ft, fs.spins
            )
    return law


# --- the exact probability of each combination class (for the availability of combinations) --


@dataclass(frozen=True, slots=True)
class CombinationLaw:
    """The exact probability of each combination class of one game on one set of reels.

    ``pays``: the game's line pay classes (``Game.line_pay_classes``: distinct line pays per
    unit line bet, 0 first); ``line_probs[c]``: P(the best line of a game pays ``pays[c]``);
    ``scatter_probs[c]``: P(``c`` scatter symbols in the window), ``c`` from 0 to every cell
    (empty without a scatter). Cycle weights divided by the cycle in float64 (exact while
    the cycle is below 2**53).
    """

    signature: str
    free: bool
    pays: IntArray
    line_probs: npt.NDArray[np.float64]
    scatter_probs: npt.NDArray[np.float64]


_COMBINATION_LAWS: dict[tuple[str, bool], tuple[Game, CombinationLaw]] = {}


def combination_law(game: Game, *, free: bool = False, chunk: int = CHUNK) -> CombinationLaw:
    """The exact law of ``game``'s combination classes on its base reels (``free``: on its
    feature reels), by the same walk as :func:`enumerate_reels` (the plan of :func:`_split`)
    with a weighted histogram of each combination's best line pay and scatter count instead
    of moment sums (cached by signature and reels)."""
    assert game.line_pay is not None and game.base is not None
    free = free and game.feature is not None  # free spins on the base reels: the same law
    reels = game.feature_reels if free else game.base
    key = (game.signature, free)
    hit = _COMBINATION_LAWS.get(key)
    if hit is not None and _same_pays(hit[0], game):
        old = hit[0].feature_reels if free else hit[0].base
        if old is reels or (
            old is not None and (old.names, old.weights) == (reels.names, reels.weights)
        ):
            return hit[1]
    law = cached("combinations", game, (free, chunk), lambda: _combination_law(game, free, chunk))
    if len(_COMBINATION_LAWS) >= 64:
        _COMBINATION_LAWS.clear()
    _COMBINATION_LAWS[key] = (game, law)
    return law


def _combination_law(game: Game, free: bool, chunk: int) -> CombinationLaw:
    assert game.line_pay is not None and game.base is not None
    reels = game.feature_reels if free else game.base
    lengths = reels.lengths
    n_reels, k, ns, idx, place = _split(game, reels, chunk)
    n_sym = len(game.symbols)
    ws = np.ones(ns, np.float64)
    for j, r in enumerate(range(k, n_reels)):
        ws *= np.asarray(reels.weights[r], np.float64)[idx[j]]
    suf_codes = []
    for line in game.lines:
        code = np.zeros(ns, np.int64)
        for j, r in enumerate(range(k, n_reels)):
            code += reels.window[r][line[r]][idx[j]] * place[r]
        suf_codes.append(code)
    sc_suf = np.zeros(ns, np.int64)
    for j, r in enumerate(range(k, n_reels)):
        sc_suf += reels.scatter_counts[r][idx[j]]
    block = n_sym ** (n_reels - k)
    pays = game.line_pay_classes
    line_w = np.zeros(pays.size, np.float64)
    n_scatter = game.scatter_classes
    scatter_w = np.zeros(n_scatter, np.float64)
    for pre in itertools.product(*(range(n) for n in lengths[:k])):
        wp = float(math.prod(reels.weights[r][s] for r, s in enumerate(pre)))
        best = np.zeros(ns, np.int64)
        for line, code in zip(game.lines, suf_codes, strict=True):
            off = sum(int(reels.window[r][line[r], s]) * place[r] for r, s in enumerate(pre))
            np.maximum(best, np.take(game.line_pay[off : off + block], code), out=best)
        line_w += np.bincount(np.searchsorted(pays, best), ws, pays.size) * wp
        if n_scatter:
            sc_pre = sum(int(reels.scatter_counts[r][s]) for r, s in enumerate(pre))
            scatter_w += np.bincount(sc_suf + sc_pre, ws, n_scatter) * wp
    total = line_w.sum()
    law = CombinationLaw(game.signature, free, pays, line_w / total, scatter_w / total)
    return law
