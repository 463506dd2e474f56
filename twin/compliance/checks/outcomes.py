"""Outcomes shown and pay tables kept: First Schedule items 1(c) and 1(e).

* 1(c) "display an accurate representation of the game outcome and ... not make a variable
  secondary decision which affects the result displayed": the games and the credits shown as
  won (play records, jackpot locks: what the player sees) must be exactly those the selected
  outcomes won (the outcome tally) between two tallies of the same program.
* 1(e) "not automatically alter pay-tables or any function of the machine based on internal
  computation of the hold percentage": a program that scales its pays with its recent hold
  pays less after it has paid much, and more after it has paid little. With the exact
  mean and variance of the game (PAR analysis) every stretch of play gives a standardised
  residual ``r_j = (won_j - E[won_j]) / sd(won_j)``; under a fixed pay table ``r_j`` is
  independent of the machine's recent residuals ``x_j`` (the standardised sum over the
  previous stretches making at least ``w`` games, for each ``w`` in ``WINDOWS``). The test
  is Spearman's rank correlation of ``x_j`` and ``r_j`` (the most negative over the
  windows: paying less after paying more), referred to its permutation distribution (the
  ``x_j`` are built from the same residuals, so the textbook null does not hold),
  Benjamini-Hochberg across machines at ``paytable_adaptation_fdr``. A changed signature
  is a software change (reg 28(3)(a), 20(a)); 3(a) reads this verdict (a pay table that
  follows the hold is a payback changed without a hardware or software change) and adds its
  own test of the payback over the wager and the time of play (:func:`payback_change_test`).
"""

from __future__ import annotations

import hashlib
from array import array
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from twin.compliance import stats
from twin.compliance.context import CheckContext
from twin.compliance.params import PAYTABLE_ADAPTATION_FDR
from twin.compliance.registry import Checker, Kind, control
from twin.machines.analysis import Analysis
from twin.machines.events import GamesPlayed, MachineLocked, OutcomeTally, ProgressiveHit
from twin.machines.verification import ProgramConverted
from twin.records import Record

T = "tests/test_controls.py::test_injected_violation_is_found"
OUT = "tests/test_controls_outcomes.py"

#: The machine's "recent hold" in the 1(e) test: over the fewest previous stretches that
#: make at least this many games (each window is one test; Bonferroni over them).
WINDOWS = (100, 300, 1000)
#: Fewest stretches (with a history) a machine needs for the 1(e) test.
MIN_STRETCHES = 12


@control(
    "MT98.S1.1c",
    kind=Kind.RUNTIME,
    title="Show the true outcome; no secondary decision afterwards",
    reads=("games_played", "machine_locked", "progressive_hit", "outcome_tally"),
    test=T,
    checks={
        "the displayed result is the selected one: as many games shown won as selected": T,
        "the displayed result is the selected one: as many credits shown won as selected": (
            f"{OUT}::test_a_shortened_win_is_found_by_its_amount"
        ),
    },
    unchecked=(
        "the symbols displayed (an accurate representation of the outcome): the records carry "
        "no picture of the reels, only counts and amounts",
        "a secondary decision that changes neither the number of games won nor the credits "
        "(e.g. a near-miss display of a losing outcome): not observable in the records",
    ),
)
class TrueOutcomeShown(Checker):
    """Between two tallies of the same program, the games and credits shown as won (play
    records and jackpot locks) equal exactly those the selected outcomes won."""

    def setup(self) -> None:
        self.shown: dict[str, int] = {}
        self.credits: dict[str, int] = {}
        self.last: dict[str, OutcomeTally] = {}

    def on_record(self, rec: Record) -> None:
        m = rec.entity("machine")
        if isinstance(rec, GamesPlayed):
            self.shown[m] = self.shown.get(m, 0) + rec.games_won
            self.credits[m] = self.credits.get(m, 0) + rec.won
            return
        if isinstance(rec, MachineLocked):
            self.credits[m] = self.credits.get(m, 0) + rec.win
            return
        if isinstance(rec, ProgressiveHit):  # the link's prize is not the game's selection
            self.credits[m] = self.credits.get(m, 0) - rec.prize_cents // self.ctx.denomination(m)
            return
        assert isinstance(rec, OutcomeTally)
        selected = sum(w for _, _, w in rec.by_bet)
        prev = self.last.get(m)
        shown = self.shown.pop(m, 0)
        credits = self.credits.pop(m, 0)
        self.last[m] = rec
        if prev is None or prev.program_signature != rec.program_signature:
            return
        before = sum(w for _, _, w in prev.by_bet)
        won = rec.selected_won - prev.selected_won
        if selected - before != shown or won != credits:
            self.report_once(
                m,
                (m,),
                f"machine {m} showed {shown} winning games and {credits} credits won where "
                f"its selected outcomes won {selected - before} games and {won} credits: the "
                "displayed result differs from the selection",
                (prev.seq, rec.seq),
            )


class StretchLog:
    """Each machine's stretches of play, per program since its last approved conversion:
    (bet units, games, credits won, record number), the credits of a jackpot lock counted
    with the stretch that locked, a link's prize not (it is not the game's pay). Shared by
    1(e) and 3(a); packed (four 8-byte integers a stretch): a long run stays small."""

    def __init__(self) -> None:
        self.stretches: dict[tuple[str, str], array[int]] = {}
        self.program: dict[str, str] = {}  # machine -> the program it runs since its last change

    def _rows(self, ctx: CheckContext, m: str) -> array[int]:
        sig = self.program.get(m) or ctx.installed[m].game_signature
        key = (m, sig)
        rows = self.stretches.get(key)
        if rows is None:
            rows = self.stretches[key] = array("q")
        return rows

    def add(self, ctx: CheckContext, rec: Record) -> None:
        """Follow a ``games_played``, ``machine_locked``, ``progressive_hit`` or
        ``program_converted`` record."""
        m = rec.entity("machine")
        if isinstance(rec, ProgramConverted):
            # an approved conversion starts a new series: the new program's own law applies
            self.program[m] = rec.to_signature
            return
        if isinstance(rec, GamesPlayed):
            self._rows(ctx, m).extend((rec.bet_units, rec.games, rec.won, rec.seq))
            return
        rows = self._rows(ctx, m)
        if isinstance(rec, MachineLocked) and rows:
            rows[-2] += rec.win
        elif isinstance(rec, ProgressiveHit) and rows:
            rows[-2] -= rec.prize_cents // ctx.denomination(m)

    def series(
        self, ctx: CheckContext
    ) -> Iterator[tuple[str, str, Analysis, list[tuple[int, int, int, int]]]]:
        """(machine, program, its analysis, stretches) of every series long enough to test."""
        for (m, sig), packed in sorted(self.stretches.items()):
            a = ctx.facts.analysis(sig)
            if a is None or len(packed) < 4 * (MIN_STRETCHES + 1):
                continue
            yield m, sig, a, [tuple(packed[i : i + 4]) for i in range(0, len(packed), 4)]  # type: ignore[misc]


@dataclass(frozen=True, slots=True)
class Adaptation:
    """One series' 1(e) test and whether Benjamini-Hochberg across the series rejects it."""

    machine: str
    program: str
    result: stats.TestResult
    rejected: bool
    evidence: tuple[int, ...]


def adaptation_verdict(ctx: CheckContext, log: StretchLog) -> list[Adaptation]:
    """The 1(e) test of every series, Benjamini-Hochberg at ``paytable_adaptation_fdr``
    (computed once per run: 1(e) reports it, 3(a) reads it)."""
    shared = ctx.shared
    if "adaptation_verdict" not in shared:
        found = list(log.series(ctx))
        results = adaptation_tests(
            [
                ([(b, g, w) for b, g, w, _ in stretches], float(a.rtp) * a.cost,
                 float(a.variance) * a.cost**2)
                for _, _, a, stretches in found
            ]
        )  # fmt: skip
        rows = [
            (m, sig, res, tuple(s[3] for s in stretches[-20:]))
            for (m, sig, _, stretches), res in zip(found, results, strict=True)
        ]
        q = float(ctx.rule(PAYTABLE_ADAPTATION_FDR))
        reject: list[bool] = (
            stats.benjamini_hochberg([r[2].p_value for r in rows], q).tolist() if rows else []
        )
        shared["adaptation_verdict"] = [
            Adaptation(m, sig, res, bool(bad), ev)
            for (m, sig, res, ev), bad in zip(rows, reject, strict=True)
        ]
    out: list[Adaptation] = shared["adaptation_verdict"]
    return out


@control(
    "MT98.S1.1e",
    kind=Kind.RUNTIME,
    title="No self-adjusting pay tables driven by hold",
    reads=("games_played", "machine_locked", "progressive_hit", "program_converted"),
    params=(PAYTABLE_ADAPTATION_FDR.key,),
    test=T,
    checks={
        "pay tables not altered with the hold: payouts independent of the recent hold": T,
        "no false alarm on a fair floor (error rate of the test)": (
            f"{OUT}::test_adaptation_test_holds_its_level_on_fair_stretches"
        ),
    },
    unchecked=(
        "functions other than the pays altered with the hold (e.g. hit frequency through the "
        "reel weights): 1(b)(ii) sees changed stop frequencies, but not their link to the hold",
        "a pay table adapted to the hold so slowly or weakly that it stays within the "
        "statistical noise of a run (power measured in tests/test_controls_slow.py)",
        "a program swapped for one with another signature: a software change, found under "
        "MT98.R30.2, MT98.S1.20a and MT98.S1.1a (a conversion starts a new series)",
    ),
)
class NoAdaptivePayTables(Checker):
    """Payout after the machine's recent hold: negative rank correlation is adaptation."""

    def setup(self) -> None:
        self.log = StretchLog()

    def on_record(self, rec: Record) -> None:
        self.log.add(self.ctx, rec)

    def finish(self) -> None:
        for t in adaptation_verdict(self.ctx, self.log):
            if t.rejected:
                self.report(
                    (t.machine,),
                    f"machine {t.machine} pays less after paying more: {t.result.detail} (p = "
                    f"{t.result.p_value:.2e}); its pay table appears to follow its hold",
                    t.evidence,
                    warning=True,
                )


def _rho(dev: np.ndarray, var: np.ndarray, games: np.ndarray) -> np.ndarray:
    """Per row of stretches (rows: orderings), the most negative over ``WINDOWS`` of the
    rank correlation between each stretch's standardised win and the standardised win of
    the previous stretches making at least the window's games."""
    rows, n = dev.shape
    r = dev / np.sqrt(var)
    csum, cvar, cgames = (np.zeros((rows, n + 1)) for _ in range(3))
    np.cumsum(dev, axis=1, out=csum[:, 1:])
    np.cumsum(var, axis=1, out=cvar[:, 1:])
    np.cumsum(games, axis=1, out=cgames[:, 1:])
    idx = np.arange(1, n)
    ry = _centred(np.minimum(np.maximum(r[:, 1:], -CLIP), CLIP))
    ryy = (ry * ry).sum(axis=1)
    now_sum, now_var = csum[:, 1:n], cvar[:, 1:n]
    flat_sum, flat_var = csum.ravel(), cvar.ravel()
    # the previous stretches making a window: how many cumulative games of the row are at
    # most the target, for every row and window at once (whole numbers: exact)
    targets = np.stack([cgames[:, 1:n] - window for window in WINDOWS])
    row_start = (np.arange(rows) * (n + 1))[:, None]
    if n <= COUNT_BELOW:  # a few stretches: counted outright
        count = np.zeros(targets.shape, np.int64)
        for i in range(n + 1):
            count += cgames[:, i : i + 1] <= targets
    else:  # one search, row k's cumulative games shifted by k * span
        span = cgames[:, -1].max() + max(WINDOWS) + 1.0
        shift = (np.arange(rows) * span)[:, None]
        flat = (cgames + shift).ravel()
        found = np.searchsorted(flat, (targets + shift).ravel(), side="right")
        count = found.reshape(targets.shape) - row_start
    # the first of them, at least 0 and before the stretch (flat indices)
    start = np.minimum(np.maximum(count - 1, 0, out=count), idx - 1, out=count)
    start += row_start
    best = np.full(rows, np.inf)
    x, scale, sq = (np.empty((rows, n - 1)) for _ in range(3))  # reused: in place
    for start_w in start:
        np.subtract(now_sum, flat_sum[start_w], out=x)
        np.sqrt(np.subtract(now_var, flat_var[start_w], out=scale), out=scale)
        rx = _centred(np.minimum(np.maximum(np.divide(x, scale, out=x), -CLIP, out=x), CLIP, out=x))
        den = np.sqrt(np.multiply(rx, rx, out=sq).sum(axis=1) * ryy)
        num = np.multiply(rx, ry, out=sq).sum(axis=1)
        rho = np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)
        best = np.minimum(best, rho)
    return best


#: Up to this many stretches :func:`_rho` counts the stretches of a window by comparing
#: (``n`` passes, faster than a binary search for a few), beyond it searches.
COUNT_BELOW = 24


def _centred(x: np.ndarray) -> np.ndarray:
    """``x`` less its row means (``np.mean``'s: the row's sum over its length), in place."""
    x -= x.sum(axis=1, keepdims=True) / x.shape[1]
    return x


#: Standardised residuals are clipped to +/- CLIP (a jackpot counts, but not a hundredfold).
CLIP = 3.0
#: Most orderings drawn for the permutation p-value of the 1(e) test.
PERMUTATIONS = 200_000
#: Most orderings x stretches evaluated at once by the permutation test (bounds its memory).
BLOCK_CELLS = 1 << 19
#: Exceedances after which the sequential permutation test stops (Besag and Clifford).
EXCEED = 20


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
    return adaptation_tests([(stretches, mean_unit, var_unit)])[0]


def adaptation_tests(
    items: Sequence[tuple[list[tuple[int, int, int]], float, float]],
) -> list[stats.TestResult]:
    """:func:`adaptation_test` of each ``(stretches, mean_unit, var_unit)``, the very results.

    The series' permutation tests advance together, a block of orderings each a round; the
    rank correlations of the blocks of all series with as many stretches are one call of
    :func:`_rho` (row by row the same floats): a call per series and block costs more than
    the arithmetic of a few stretches."""
    done: list[stats.TestResult | None] = [None] * len(items)
    series: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    running: dict[int, Generator[np.ndarray, np.ndarray, tuple[float, float]]] = {}
    asked: dict[int, np.ndarray] = {}

    def advance(i: int, values: np.ndarray | None) -> None:
        steps = running[i]
        try:
            asked[i] = next(steps) if values is None else steps.send(values)
        except StopIteration as stop:
            observed, p = stop.value
            n = series[i][0].size
            detail = (
                f"rank correlation {observed:.3f} of payout with the recent hold over {n - 1} "
                "stretches (permutation test)"
            )
            done[i] = stats.TestResult("adaptation", observed, 0.0, p, n - 1, detail)
            del running[i]

    for i, (stretches, mean_unit, var_unit) in enumerate(items):
        prepared = _series(stretches, mean_unit, var_unit)
        if isinstance(prepared, stats.TestResult):
            done[i] = prepared
            continue
        series[i] = dev, _, games = prepared
        # the observed ordering is evaluated with the first block of permuted ones
        running[i] = _sequential_steps(None, dev.size, dev.tobytes() + games.tobytes())
        advance(i, None)
    while running:
        by_size: dict[int, list[int]] = {}
        for i in running:
            by_size.setdefault(series[i][0].size, []).append(i)
        replies: list[tuple[int, np.ndarray]] = []
        for n, group in by_size.items():
            most = max(1, BLOCK_CELLS // n)  # rows a call: memory bounded
            at = 0
            while at < len(group):
                batch, rows = [group[at]], asked[group[at]].shape[0]
                at += 1
                while at < len(group) and rows + asked[group[at]].shape[0] <= most:
                    rows += asked[group[at]].shape[0]
                    batch.append(group[at])
                    at += 1
                dev, var, games = (
                    np.concatenate([series[i][k][asked[i]] for i in batch]) for k in range(3)
                )
                values = _rho(dev, var, games)
                ends = np.cumsum([asked[i].shape[0] for i in batch])
                replies += zip(batch, np.split(values, ends[:-1]), strict=True)
        for i, values in replies:
            advance(i, values)
    out = [r for r in done if r is not None]
    assert len(out) == len(items)
    return out


def _series(
    stretches: list[tuple[int, int, int]], mean_unit: float, var_unit: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | stats.TestResult:
    """A series' stretches with a variance as (deviation from the mean, variance, games),
    or the result of a series too short to test."""
    bet = np.array([s[0] for s in stretches], np.float64)
    games = np.array([s[1] for s in stretches], np.float64)
    won = np.array([s[2] for s in stretches], np.float64)
    var = games * bet * bet * var_unit
    keep = var > 0
    dev, var, games = (won - games * bet * mean_unit)[keep], var[keep], games[keep]
    n = dev.size
    if n < MIN_STRETCHES + 1 or var_unit <= 0:
        return stats.TestResult("adaptation", 0.0, 0.0, 1.0, n, "too few stretches")
    return dev, var, games


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
    return _sequential(stat, observed, n, data, permutations)[1]


def _sequential(
    stat: Callable[[np.ndarray], np.ndarray],
    observed: float | None,
    n: int,
    data: bytes,
    permutations: int,
) -> tuple[float, float]:
    """:func:`sequential_p`, with the observed statistic (see :func:`_sequential_steps`)."""
    steps = _sequential_steps(observed, n, data, permutations)
    try:
        order = next(steps)
        while True:
            order = steps.send(stat(order))
    except StopIteration as stop:
        done: tuple[float, float] = stop.value
        return done


def _sequential_steps(
    observed: float | None, n: int, data: bytes, permutations: int = PERMUTATIONS
) -> Generator[np.ndarray, np.ndarray, tuple[float, float]]:
    """:func:`sequential_p` as steps: yields each block of orderings, is sent their
    statistics, returns ``(observed, p)``; ``observed`` None: the statistic of the identity
    ordering, asked for as the first row of the first block."""
    digest = hashlib.sha256(data).digest()[:8]
    rng = np.random.default_rng(int(np.frombuffer(digest, np.uint64)[0]))
    exceed = drawn = 0
    block = 32
    while True:
        m = min(block, permutations - 1 - drawn)
        order = np.argsort(rng.random((m, n)), axis=1)
        if observed is None:
            values = yield np.vstack((np.arange(n)[None, :], order))
            observed, values = float(values[0]), values[1:]
        else:
            values = yield order
        tol = 1e-12 * max(1.0, abs(observed))
        hits = np.cumsum(values <= observed + tol)
        if exceed + int(hits[-1]) >= EXCEED:
            at = int(np.searchsorted(hits, EXCEED - exceed))
            return observed, EXCEED / (drawn + at + 1)
        exceed += int(hits[-1])
        drawn += m
        if drawn >= permutations - 1:
            return observed, (1 + exceed) / permutations
        # blocks of orderings grow, but never beyond BLOCK_CELLS (memory flat in the run's
        # length; the orderings drawn, and so the p-value, do not depend on the blocks)
        block = min(4 * block, 8192, max(32, BLOCK_CELLS // n))


#: Most orderings ever drawn for the permutation p-value of the 3(a) test (the checker draws
#: at most as many as Benjamini-Hochberg needs, see ``PaybackChangedOnlyByConversion``):
#: its smallest p-value is 1 / CHANGE_PERMUTATIONS, enough to find one machine among 2,000
#: at ``payback_change_fdr`` = 0.001. Only a machine far in the tail draws that many (a fair
#: one stops after about 20 / p).
CHANGE_PERMUTATIONS = 2_000_000
#: The change-point part of the 3(a) test splits the run only where both parts hold at least
#: this share of the series' variance (games): a single stretch at either end is no segment.
TRIM = 0.1


def _wilson_hilferty(chi2: np.ndarray, dof: float) -> np.ndarray:
    """A chi-square statistic on ``dof`` degrees of freedom as an approximate standard
    normal deviate (Wilson and Hilferty): puts two statistics on one scale."""
    k = 2.0 / (9.0 * dof)
    z: np.ndarray = (np.cbrt(np.maximum(chi2, 0.0) / dof) - (1.0 - k)) / np.sqrt(k)
    return z


def payback_change_test(
    stretches: list[tuple[int, int, int]],
    rtp: float,
    cost: int,
    variance: float,
    permutations: int = CHANGE_PERMUTATIONS,
) -> stats.TestResult:
    """Item 3(a): does the payback of a series of play (one machine, one program, in order of
    play) change across its segments? ``stretches``: (bet units, games, credits won);
    ``rtp``, ``cost``, ``variance``: the approved program's exact (PAR) return, credits a game
    per unit bet and variance of a game's win in units of the wager.

    Each stretch's deviation from its exact mean per unit bet, ``d_j = (won_j - games_j bet_j
    rtp cost) / bet_j``, has mean 0 under the approved program whatever stopped the stretch
    (Wald's identity), and variance ``v_j = games_j variance cost^2`` (the score of a payback
    shift weighs the stretches so). Two segmentations, each a homogeneity chi-square over its
    segments' summed deviations ``D`` and variances ``V`` (the common level drops out: that
    the payback is the approved one is items 1(a) and 20(f)):

    * the wager: the bet levels, ``sum_k D_k^2 / V_k - D^2 / V`` (a payback that depends on
      the amount wagered; only with two levels or more);
    * the time: before and after a split point, the largest ``(D_<=s - f D)^2 / (V f (1 -
      f))`` over the splits with a share ``f`` of the variance between ``TRIM`` and ``1 -
      TRIM`` (a payback switched during play, e.g. from an operator menu).

    The test statistic is the larger of the two on one scale (Wilson-Hilferty), referred to
    its permutation distribution: under an unchanged program the stretches are independent
    and their deviations alike in law per game played, so every assignment of them to the
    bet levels and to the moments of play is equally likely; a jackpot weighs as much in
    every ordering, which keeps the size on heavy-tailed games. Sequential as
    :func:`sequential_p`, at most ``permutations`` orderings (the smallest p-value it can
    give is ``1 / permutations``)."""
    bet = np.array([s[0] for s in stretches], np.float64)
    games = np.array([s[1] for s in stretches], np.float64)
    won = np.array([s[2] for s in stretches], np.float64)
    keep = (games > 0) & (bet > 0)
    bet, games, won = bet[keep], games[keep], won[keep]
    n = int(bet.size)
    if n < MIN_STRETCHES + 1 or variance <= 0:
        return stats.TestResult("payback change", 0.0, 0.0, 1.0, n, "too few stretches")
    d = (won - games * bet * rtp * cost) / bet
    v = games * variance * cost * cost
    total_d, total_v = float(d.sum()), float(v.sum())
    common = total_d * total_d / total_v
    levels = np.unique(bet)
    onehot = (bet[:, None] == levels[None, :]).astype(np.float64)  # the bet levels stay put

    def parts(order: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        dd, vv = d[order], v[order]
        if levels.size > 1:
            dk, vk = dd @ onehot, vv @ onehot
            wager = ((dk * dk) / np.where(vk > 0, vk, 1.0)).sum(axis=1) - common
        else:
            wager = np.zeros(order.shape[0])
        dc, vc = np.cumsum(dd, axis=1), np.cumsum(vv, axis=1)
        f = vc / total_v
        inside = (f >= TRIM) & (f <= 1.0 - TRIM)
        z = (dc - f * total_d) ** 2 / np.where(inside, total_v * f * (1.0 - f), 1.0)
        return wager, np.where(inside, z, 0.0).max(axis=1, initial=0.0)

    def statistic(order: np.ndarray) -> np.ndarray:
        wager, drift = parts(order)
        z = _wilson_hilferty(drift, 1.0)
        if levels.size > 1:
            z = np.maximum(z, _wilson_hilferty(wager, float(levels.size - 1)))
        return -z  # small is extreme

    identity = np.arange(n)[None, :]
    observed = float(statistic(identity)[0])
    p = sequential_p(statistic, observed, n, d.tobytes() + v.tobytes(), permutations)
    wager, drift = (float(x[0]) for x in parts(identity))
    rates = ", ".join(
        f"{rtp + float(d[bet == lv].sum() / games[bet == lv].sum()) / cost:.2%} at "
        f"{int(lv)} unit{'s' if lv > 1 else ''}"
        for lv in levels
    )
    detail = (
        f"payback by bet level {rates} (approved {rtp:.2%}; chi-square {wager:.1f} on "
        f"{levels.size - 1} d.f.), largest change during play chi-square {drift:.1f}, over "
        f"{n} stretches (permutation test)"
    )
    return stats.TestResult("payback change", -observed, 0.0, p, n, detail)
