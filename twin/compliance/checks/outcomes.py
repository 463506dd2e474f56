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
  is item 3(a)'s business.
"""

from __future__ import annotations

import hashlib
from array import array

import numpy as np

from twin.compliance import stats
from twin.compliance.registry import Checker, Kind, control
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


@control(
    "MT98.S1.1e",
    kind=Kind.RUNTIME,
    title="No self-adjusting pay tables driven by hold",
    reads=("games_played", "machine_locked", "progressive_hit", "program_converted"),
    params=("paytable_adaptation_fdr",),
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
        "a program change with a new signature: item 3(a)'s business",
    ),
)
class NoAdaptivePayTables(Checker):
    """Payout after the machine's recent hold: negative rank correlation is adaptation."""

    def setup(self) -> None:
        # per (machine, program): each stretch's bet, games, won and record number, packed
        # (four 8-byte integers a stretch, not a list of Python ints: a long run stays small)
        self.stretches: dict[tuple[str, str], array[int]] = {}
        self.program: dict[str, str] = {}  # machine -> the program it runs since its last change

    def _rows(self, m: str) -> array[int]:
        sig = self.program.get(m) or self.ctx.installed[m].game_signature
        key = (m, sig)
        rows = self.stretches.get(key)
        if rows is None:
            rows = self.stretches[key] = array("q")
        return rows

    def on_record(self, rec: Record) -> None:
        m = rec.entity("machine")
        if isinstance(rec, ProgramConverted):
            # an approved conversion starts a new series: the new program's own law applies
            self.program[m] = rec.to_signature
            return
        rows = self._rows(m)
        if isinstance(rec, GamesPlayed):
            rows.extend((rec.bet_units, rec.games, rec.won, rec.seq))
        elif isinstance(rec, MachineLocked) and rows:
            rows[-2] += rec.win
        elif isinstance(rec, ProgressiveHit) and rows:
            rows[-2] -= rec.prize_cents // self.ctx.denomination(m)

    def finish(self) -> None:
        rows = []
        for (m, sig), packed in sorted(self.stretches.items()):
            a = self.ctx.facts.analysis(sig)
            stretches = [tuple(packed[i : i + 4]) for i in range(0, len(packed), 4)]
            if a is None or len(stretches) < MIN_STRETCHES + 1:
                continue
            res = adaptation_test(
                [(b, g, w) for b, g, w, _ in stretches],
                float(a.rtp) * a.cost,
                float(a.variance) * a.cost**2,
            )
            rows.append((m, res, stretches))
        if not rows:
            return
        q = float(self.ctx.param("paytable_adaptation_fdr"))
        reject = stats.benjamini_hochberg([r[1].p_value for r in rows], q)
        for (m, res, stretches), bad in zip(rows, reject, strict=True):
            if bad:
                self.report(
                    (m,),
                    f"machine {m} pays less after paying more: {res.detail} (p = "
                    f"{res.p_value:.2e}); its pay table appears to follow its hold",
                    tuple(s[3] for s in stretches[-20:]),
                    warning=True,
                )


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
    digest = hashlib.sha256(dev.tobytes() + games.tobytes()).digest()[:8]
    rng = np.random.default_rng(int(np.frombuffer(digest, np.uint64)[0]))
    exceed = drawn = 0
    block = 32
    p = 0.0
    while True:
        m = min(block, PERMUTATIONS - 1 - drawn)
        order = np.argsort(rng.random((m, n)), axis=1)
        rho = _rho(dev[order], var[order], games[order])
        hits = np.cumsum(rho <= observed + 1e-12)
        if exceed + int(hits[-1]) >= EXCEED:
            at = int(np.searchsorted(hits, EXCEED - exceed))
            p = EXCEED / (drawn + at + 1)
            break
        exceed += int(hits[-1])
        drawn += m
        if drawn >= PERMUTATIONS - 1:
            p = (1 + exceed) / PERMUTATIONS
            break
        # blocks of orderings grow, but never beyond BLOCK_CELLS (memory flat in the run's
        # length; the orderings drawn, and so the p-value, do not depend on the blocks)
        block = min(4 * block, 8192, max(32, BLOCK_CELLS // n))
    detail = (
        f"rank correlation {observed:.3f} of payout with the recent hold over {n - 1} "
        "stretches (permutation test)"
    )
    return stats.TestResult("adaptation", observed, 0.0, p, n - 1, detail)
