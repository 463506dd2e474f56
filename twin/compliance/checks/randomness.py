"""Statistical controls: randomness (First Schedule item 1(b)) and actual vs theoretical
hold (item 20(f)).

Every randomness test runs at the end of the run on each machine's cumulative outcome tally,
for machines with at least ``randomness_min_games`` base games: per reel, stop frequencies
(ii) and availability (i); for a game with a feature, the same two on the free games' stops
against the feature reels (one test each, Bonferroni over the reels); for a reel game, the
availability of every combination class, base and free games (i: the best line's pay class
and the scatter count against the PAR enumeration's exact law,
:func:`twin.compliance.stats.combination_tests`); independence (iii). The tests of one
machine form its family. Two settings of the ruleset govern the verdict, each with its own job
(:func:`twin.compliance.stats.select_then_test`):

* ``randomness_fdr`` (q): across the floor, Benjamini-Hochberg over the machines' Bonferroni
  p-values selects the machines that may be reported (a fair floor reports any with
  probability at most q; among many reports at most a share q is false on average);
* ``randomness_confidence`` (the clause's 95 %): within a selected machine, Holm at
  ``1 - confidence`` over its own tests says which tests fail the machine's confidence
  limits; the machine is reported under each sub-clause (i, ii, iii) with a failing test.

The hold (20(f)) is tested against the exact law of the game's win (saddle point on the
PAR analysis' enumeration), Benjamini-Hochberg across machines at
``1 - hold_variance_confidence``. Findings are warnings: a statistical alarm calls for
investigation.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain

import numpy as np
import scipy.stats as sps

from twin.compliance import stats
from twin.compliance.context import CheckContext
from twin.compliance.params import (
    HOLD_VARIANCE_CONFIDENCE,
    RANDOMNESS_CONFIDENCE,
    RANDOMNESS_FDR,
    RANDOMNESS_MIN_GAMES,
)
from twin.compliance.registry import Checker, Kind, control
from twin.machines.analysis import CombinationLaw, win_distribution
from twin.machines.events import GamesPlayed, MachineLocked, OutcomeTally, ProgressiveHit
from twin.machines.par import Game
from twin.memo import PerObject
from twin.records import Record

T = "tests/test_controls.py::test_injected_violation_is_found"
S = "tests/test_stats.py"
C = "tests/test_controls_outcomes.py"
X = "tests/test_combinations.py"
PARAMS = (RANDOMNESS_CONFIDENCE.key, RANDOMNESS_FDR.key, RANDOMNESS_MIN_GAMES.key)


@dataclass(frozen=True, slots=True)
class MachineTest:
    machine: str
    sub: str  # "i", "ii" or "iii"
    result: stats.TestResult
    evidence: int  # the tally record's seq


def _reference(ctx: CheckContext, m: str, tally: OutcomeTally) -> Game | None:
    """The program whose probabilities the outcomes must follow: the one the machine reports."""
    return ctx.facts.programs.get(tally.program_signature)


def _availability(counts: np.ndarray, weights: tuple[int, ...]) -> stats.TestResult:
    """Item 1(b)(i): every stop must be available on every play. A stop that lands far less
    often than its weight says (one-sided Poisson lower tail of its count, Bonferroni over
    the reel's stops) is not really available: never, or all but never, selected."""
    return _availabilities([(counts, weights)])[0]


def _availabilities(reels: list[tuple[np.ndarray, tuple[int, ...]]]) -> list[stats.TestResult]:
    """:func:`_availability` of every reel, with one Poisson call over all of their stops
    (each reel's sum, smallest tail and worst stop taken segment by segment: the same
    floats as one reel at a time)."""
    if not reels:
        return []
    sizes = np.array([len(w) for _, w in reels], np.int64)
    if not sizes.all():
        raise ValueError("a reel without stops")
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    counts = np.concatenate([c for c, _ in reels])
    weights = np.fromiter(chain.from_iterable(w for _, w in reels), np.float64, int(sizes.sum()))
    ns = [int(n) for n in np.add.reduceat(counts, starts).tolist()]
    factor = np.array([n / sum(w) for n, (_, w) in zip(ns, reels, strict=True)], np.float64)
    expected = weights * np.repeat(factor, sizes)
    all_tails = _lower_tails(counts, expected, starts, sizes)
    mins = np.minimum.reduceat(all_tails, starts)
    # each reel's first stop with the smallest tail (np.argmin's), stop 0 for a reel unplayed
    first = np.where(all_tails == np.repeat(mins, sizes), np.arange(all_tails.size), counts.size)
    worst = np.minimum.reduceat(first, starts) - starts
    worst[np.array(ns) == 0] = 0
    p_l = np.minimum(1.0, mins * sizes).tolist()
    seen_l = counts[starts + worst].tolist()
    exp_l = expected[starts + worst].tolist()
    out = []
    for n, p, w, seen, exp in zip(ns, p_l, worst.tolist(), seen_l, exp_l, strict=True):
        detail = f"stop {w}: {int(seen)} seen, {exp:.1f} expected"
        out.append(stats.TestResult("availability", float(n), 0.0, p if n else 1.0, n, detail))
    return out


def _lower_tails(
    counts: np.ndarray, expected: np.ndarray, starts: np.ndarray, sizes: np.ndarray
) -> np.ndarray:
    """Each stop's Poisson lower tail ``P(X <= count)``, as ``sps.poisson.cdf`` gives it,
    where it can be a reel's smallest; ``inf`` where it cannot. A stop seen at least as
    often as expected has a tail of at least 1/2 (the Poisson median is below the mean
    plus 1/3), so it is left out (half of the Poisson calls, the cost of the test) unless
    its reel's smallest tail of the others is near 1/2: then all of that reel's are
    computed."""
    tails = np.full(counts.size, np.inf)
    near = counts < expected
    tails[near] = sps.poisson.cdf(counts[near], expected[near])
    close = np.minimum.reduceat(tails, starts) >= 0.4999  # and reels with no stop below
    if close.any():
        redo = np.repeat(close, sizes)
        tails[redo] = sps.poisson.cdf(counts[redo], expected[redo])
    return tails


def _combination_counts(
    law: CombinationLaw, lines: tuple[tuple[int, int], ...], scatters: tuple[int, ...]
) -> list[tuple[np.ndarray, np.ndarray, Sequence[str]]]:
    """A tally's combination classes against the approved law: the partition of the games
    by their best line's pay class, and the one by scatter count, each as (counts,
    probabilities, labels). A program that paid a game an amount the approved one never
    pays plays another pay table (the hold, 20(f), and 1(e) see that): its pay classes
    cannot be matched to the approved ones, so only the scatter counts (which the stops
    alone decide) are tested."""
    seen = dict(lines)
    pays, known, line_labels, scatter_labels = _LABELS.get(law)
    out: list[tuple[np.ndarray, np.ndarray, Sequence[str]]] = []
    if all(n == 0 or v in known for v, n in lines):
        counts = [seen.get(v, 0) for v in pays]
        out.append((np.asarray(counts, np.int64), law.line_probs, line_labels))
    if law.scatter_probs.size and scatters:
        k = law.scatter_probs.size
        sc = list(scatters[:k]) + [0] * (k - len(scatters[:k]))
        out.append((np.asarray(sc, np.int64), law.scatter_probs, scatter_labels))
    return out


Labels = tuple[list[int], frozenset[int], tuple[str, ...], tuple[str, ...]]


def _labels(law: CombinationLaw) -> Labels:
    """A law's pay classes (as a list and a set) and the names of its classes (once a law)."""
    pays = law.pays.tolist()
    lines = tuple(f"best line pays {v}" for v in pays)
    scatters = tuple(f"{c} scatter symbols" for c in range(law.scatter_probs.size))
    return pays, frozenset(pays), lines, scatters


_LABELS: PerObject[CombinationLaw, Labels] = PerObject(_labels, size=64)


def run_audit(ctx: CheckContext, tallies: dict[str, OutcomeTally]) -> list[MachineTest]:
    """All randomness tests of every machine with enough games (computed once per run).

    The tests are those of :mod:`twin.compliance.stats`, each machine's on its own; their
    p-values are computed in a few vectorised calls across the machines.
    """
    need = int(ctx.rule(RANDOMNESS_MIN_GAMES))
    reels: list[tuple[np.ndarray, tuple[int, ...]]] = []
    tables: list[list[list[int]]] = []
    combos: list[tuple[str, list[tuple[np.ndarray, np.ndarray, Sequence[str]]]]] = []
    features: list[list[tuple[np.ndarray, tuple[int, ...]]]] = []
    plan: list[tuple[str, str, int, str, int]] = []  # machine, sub, evidence, test, index
    direct: list[MachineTest] = []  # results known without a test (no layout to compare)
    for m, tally in sorted(tallies.items()):
        game = _reference(ctx, m, tally)
        if game is None:
            continue
        games = sum(g for _, g, _ in tally.by_bet)
        if games < need:
            continue
        layout = [len(c) for c in tally.stop_counts]
        if layout != [len(w) for w in game.stop_weights]:
            # stops the reported program's reels do not have: the outcomes cannot come from
            # it (a program swapped under the approved signature); no frequency to compare
            shown = [len(w) for w in game.stop_weights]
            detail = (f"the outcomes land on reels of {layout} stops; the program reported has "
                      f"reels of {shown}")  # fmt: skip
            direct.append(MachineTest(
                m, "ii", stats.TestResult("layout", float(games), 0.0, 0.0, games, detail),
                tally.seq,
            ))  # fmt: skip
            continue
        for counts, weights in zip(tally.stop_counts, game.stop_weights, strict=True):
            plan.append((m, "ii", tally.seq, "frequency", len(reels)))
            plan.append((m, "i", tally.seq, "availability", len(reels)))
            reels.append((np.asarray(counts, np.int64), weights))
        if game.kind == "reels" and tally.best_line_pays:
            for free, lines, scatters in (
                (False, tally.best_line_pays, tally.scatter_counts),
                (True, tally.feature_best_line_pays, tally.feature_scatter_counts),
            ):
                if free and game.free_spins is None:
                    continue
                law = ctx.facts.combinations(game.signature, free=free)
                if law is None:
                    continue
                parts = _combination_counts(law, lines, scatters)
                if not parts:
                    continue
                name = "free_spin_combinations" if free else "combinations"
                plan.append((m, "i", tally.seq, "combinations", len(combos)))
                combos.append((name, parts))
        if game.free_spins is not None and tally.feature_stop_counts:
            feature_weights = game.feature_reels.weights
            lengths = [len(w) for w in feature_weights]
            if [len(c) for c in tally.feature_stop_counts] == lengths:
                plan.append((m, "ii", tally.seq, "free frequency", len(features)))
                plan.append((m, "i", tally.seq, "free availability", len(features)))
                features.append(
                    [
                        (np.asarray(c, np.int64), w)
                        for c, w in zip(tally.feature_stop_counts, feature_weights, strict=True)
                    ]
                )
        tr = tally.transitions
        plan.append((m, "iii", tally.seq, "independence", len(tables)))
        tables.append([[tr[0], tr[1]], [tr[2], tr[3]]])
        if len(tally.by_bet) > 1:
            plan.append((m, "iii", tally.seq, "independence", len(tables)))
            tables.append([[w, g - w] for _, g, w in tally.by_bet])
    # the free-spin reels of a machine are one test each of frequency and availability
    # (Bonferroni over its reels), so that a feature adds two tests to the family, not ten
    flat = [reel for f in features for reel in f]
    free_freq = iter(stats.stop_frequency_tests(flat))
    free_avail = iter(_availabilities(flat))
    results = {
        "frequency": stats.stop_frequency_tests(reels),
        "availability": _availabilities(reels),
        "independence": stats.independence_tests(tables),
        "combinations": stats.combination_tests(combos),
        "free frequency": [
            stats.bonferroni([next(free_freq) for _ in f], "free_spin_frequency") for f in features
        ],
        "free availability": [
            stats.bonferroni([next(free_avail) for _ in f], "free_spin_availability")
            for f in features
        ],
    }
    tested = [MachineTest(m, sub, results[test][i], seq) for m, sub, seq, test, i in plan]
    return tested + direct


def verdict(ctx: CheckContext) -> list[tuple[MachineTest, bool]]:
    """Every randomness test of the run with whether it fails (computed once per run)."""
    shared = ctx.shared
    if VERDICT not in shared:
        shared[VERDICT] = audit_verdict(ctx)
    out: list[tuple[MachineTest, bool]] = shared[VERDICT]
    return out


VERDICT = "randomness_verdict"


def audit_verdict(ctx: CheckContext) -> list[tuple[MachineTest, bool]]:
    """The randomness audit of every machine and which of its tests fail: a pure function of
    the tallies, so a sink process may compute it apart (``Checker.finish_shared``)."""
    tests: list[MachineTest] = run_audit(ctx, ctx.shared.get("tallies", {}))
    by_machine: dict[str, list[MachineTest]] = defaultdict(list)
    for t in tests:
        by_machine[t.machine].append(t)
    machines = sorted(by_machine)
    flags = stats.select_then_test(
        [[t.result.p_value for t in by_machine[m]] for m in machines],
        q=float(ctx.rule(RANDOMNESS_FDR)),
        alpha=1.0 - float(ctx.rule(RANDOMNESS_CONFIDENCE)),
    )
    return [
        (t, bool(bad))
        for m, f in zip(machines, flags, strict=True)
        for t, bad in zip(by_machine[m], f.tolist(), strict=True)
    ]


class _Randomness(Checker):
    subs: tuple[str, ...] = ()
    what = ""
    finish_shared = (VERDICT, audit_verdict)

    def on_record(self, rec: Record) -> None:
        assert isinstance(rec, OutcomeTally)
        self.ctx.shared.setdefault("tallies", {})[rec.machine] = rec

    def finish(self) -> None:
        failed: dict[str, list[MachineTest]] = defaultdict(list)
        for t, bad in verdict(self.ctx):
            if bad and t.sub in self.subs:
                failed[t.machine].append(t)
        level = float(self.ctx.rule(RANDOMNESS_CONFIDENCE))
        for m, bad_tests in sorted(failed.items()):
            worst = min(bad_tests, key=lambda t: t.result.p_value)
            self.report(
                (m,),
                f"machine {m}: {self.what} fails its {level:.10g} confidence limits in "
                f"{len(bad_tests)} test(s) (worst {worst.result.name}, "
                f"p = {worst.result.p_value:.2e}, {worst.result.detail})",
                tuple(sorted({t.evidence for t in bad_tests})),
                warning=True,
            )


@control(
    "MT98.S1.1b",
    kind=Kind.STATISTICAL,
    title="Random outcome selection meeting 95% confidence limits",
    reads=("outcome_tally",),
    params=PARAMS,
    test=T,
    checks={
        "a machine whose selection fails any of (i), (ii), (iii) is reported": T,
        "95% confidence limits: per machine (Holm over its tests at 1 - confidence), "
        "and the floor's false discoveries bounded on top (Benjamini-Hochberg)": (
            f"{S}::test_select_then_test_both_settings_change_the_outcome"
        ),
        "confidence and false-discovery rate both change the findings of a run": (
            f"{C}::test_randomness_confidence_and_fdr_both_change_the_findings"
        ),
        "free-spin (feature) outcomes: the free games' stops on the feature reels and "
        "their combinations are tallied (both engines alike) and tested": (
            f"{X}::test_a_biased_free_spin_reel_is_found_on_the_free_games"
        ),
        "the tallies of the batched engine equal the per-spin reference's exactly": (
            "tests/test_engine.py::test_batched_equals_per_spin_on_random_requests"
        ),
    },
    unchecked=(
        "'random selection' as unpredictability of the generator itself (seeding, period, "
        "state recovery): the twin sees outcomes, not the RNG",
    ),
)
class RandomSelection(_Randomness):
    subs = ("i", "ii", "iii")
    what = "random selection"


@control(
    "MT98.S1.1b.i",
    kind=Kind.STATISTICAL,
    title="Every outcome available on every play",
    reads=("outcome_tally",),
    params=PARAMS,
    test=T,
    checks={
        "every reel stop (game element) is selected at its rate, none (all but) never": T,
        "every combination available: each pay class of a game's best line and each "
        "scatter count occurs at its exact PAR probability, none (all but) never, although "
        "its stops land (exact binomial lower tails, Bonferroni over the classes)": (
            f"{X}::test_a_suppressed_combination_is_found_while_its_stops_land"
        ),
        "the combination classes' probabilities are the PAR enumeration's, exactly": (
            f"{X}::test_combination_law_is_the_per_spin_classes_over_every_stop_combination"
        ),
        "the combination test holds its level on fair machines (exact, conservative)": (
            f"{X}::test_combination_test_size_on_fair_counts"
        ),
        "free-spin reels: every stop of the feature reels lands on free games": (
            f"{X}::test_a_biased_free_spin_reel_is_found_on_the_free_games"
        ),
        "the free-spin and combination tests hold their level on fair engine play": (
            f"{X}::test_free_spin_and_combination_tests_size_on_fair_play"
        ),
    },
    unchecked=(
        "combinations finer than their pay class: two combinations that pay the same "
        "(e.g. five wolves and five bears) are one class, and a line's class is the game's "
        "best line only, so a removed combination that always shares a game with a better "
        "paying line is not seen",
        "combinations too rare to be found missing in the run (a class enters the test only "
        "if a count of 0 would have probability at most 1 %, about 4.6 expected: e.g. the "
        "top award of the classic game, about 0.15 a day, is not testable in a day)",
        "table games: their outcomes are the elements (the stop tests), no combinations",
        "a program that pays amounts the approved one never pays (other pays: 20(f) and "
        "1(e) see it): its pay classes cannot be matched, only its scatter counts are tested",
        "available 'at the initiation of each game' (e.g. removed for the next 500 games "
        "after a big win): the tally is cumulative over the run",
    ),
)
class EveryOutcomeAvailable(_Randomness):
    subs = ("i",)
    what = "availability of every stop and combination"


@control(
    "MT98.S1.1b.ii",
    kind=Kind.STATISTICAL,
    title="Symbol probabilities fixed, or equal to the live game",
    reads=("outcome_tally",),
    params=PARAMS,
    test=T,
    checks={
        "the probability of a symbol in a position is the approved one (stop frequencies)": T,
        "exact size where the chi-square approximation is poor (expected counts < 5)": (
            f"{S}::test_stop_frequency_size_at_1000_spins_of_a_sparse_reel"
        ),
        "free-spin reels: the stop frequencies of the free games against the feature "
        "reels' weights (one test per machine, Bonferroni over its feature reels)": (
            f"{X}::test_a_biased_free_spin_reel_is_found_on_the_free_games"
        ),
    },
    unchecked=(
        "constant over time: the test is on the run's cumulative counts, so a probability "
        "that drifts and returns is seen only through the total",
        "machines representative of live games (cards, dice): no such game is modelled",
        "free-spin tests condition on the number of free games, which retriggers make "
        "depend on the free games' own outcomes: their exact size is not derived, only "
        "measured (tests/test_combinations.py)",
    ),
)
class ConstantProbabilities(_Randomness):
    subs = ("ii",)
    what = "stop frequencies against the approved weights"


@control(
    "MT98.S1.1b.iii",
    kind=Kind.STATISTICAL,
    title="No patterns or dependence on history, stake or play style",
    reads=("outcome_tally",),
    params=PARAMS,
    test=T,
    checks={
        "no dependence on the previous game outcome (win/loss transitions)": (
            f"{S}::test_independence_chi_square_2x2_hand_example"
        ),
        "no dependence on the amount wagered (win rate by bet level)": T,
    },
    unchecked=(
        "patterns longer than one game (runs of more than two, periodicity): only "
        "consecutive pairs are tallied",
        "dependence on the style or method of play: no play style is recorded",
    ),
)
class NoDependence(_Randomness):
    subs = ("iii",)
    what = "independence from the previous outcome and the wager"


@control(
    "MT98.S1.20f",
    kind=Kind.STATISTICAL,
    title="Investigate large variances between theoretical and actual hold",
    reads=("games_played", "machine_locked", "progressive_hit"),
    params=(HOLD_VARIANCE_CONFIDENCE.key, RANDOMNESS_MIN_GAMES.key),
    test=T,
    checks={
        "a large variance between theoretical and actual hold is found (halved pays)": T,
        "'large' measured on the exact law of the game's win, not a normal curve": (
            f"{S}::test_saddle_point_tails_match_monte_carlo_where_the_normal_curve_fails"
        ),
        "the hold over the bets actually played (mixed bet levels)": (
            f"{S}::test_hold_tail_test_mixes_bet_levels_and_flags_a_halved_pay_table"
        ),
    },
    unchecked=(
        "investigated, resolved and documented in a timely way: no investigation workflow "
        "is modelled; the finding is the call to investigate",
        "machines with fewer than randomness_min_games games: not tested",
    ),
)
class HoldVariance(Checker):
    """Actual hold against the exact law of the game's win over the games and bets played."""

    def setup(self) -> None:
        self.won: dict[str, int] = defaultdict(int)
        self.levels: dict[str, dict[int, int]] = defaultdict(lambda: defaultdict(int))
        # the last plays of each machine, cited by a finding (bounded: memory stays flat)
        self.evidence: dict[str, deque[int]] = defaultdict(lambda: deque(maxlen=20))

    def on_record(self, rec: Record) -> None:
        m = rec.entity("machine")
        if isinstance(rec, GamesPlayed):
            self.won[m] += rec.won
            self.levels[m][rec.bet_units] += rec.games
            self.evidence[m].append(rec.seq)
        elif isinstance(rec, MachineLocked):
            self.won[m] += rec.win
        elif isinstance(rec, ProgressiveHit):
            self.won[m] -= rec.prize_cents // self.ctx.denomination(m)  # not in the base hold

    def finish(self) -> None:
        need = int(self.ctx.rule(RANDOMNESS_MIN_GAMES))
        rows = []
        tests = []  # the tail tests of all machines at once (stats.hold_tail_tests)
        laws: dict[int, tuple[Game, stats.WinLaw, float]] = {}
        for m, by_bet in sorted(self.levels.items()):
            games = sum(by_bet.values())
            if games < need:
                continue
            game = self.ctx.facts.programs.get(self.ctx.installed[m].game_signature)
            if game is None:
                continue
            levels = sorted(by_bet.items())
            wagered = sum(b * n for b, n in levels) * game.cost
            if wagered == 0:
                continue
            if id(game) not in laws:  # a program's law and hold once (many machines run it)
                a = self.ctx.facts.analysis(game.signature)
                theo = float(1 - a.rtp) if a is not None else float("nan")
                laws[id(game)] = (game, win_distribution(game), theo)
            _, law, theo = laws[id(game)]
            tests.append((law, levels, self.won[m], game.cost))
            actual = (wagered - self.won[m]) / wagered
            rows.append((m, games, actual, theo))
        if not rows:
            return
        results = stats.hold_tail_tests(tests)
        q = 1.0 - float(self.ctx.rule(HOLD_VARIANCE_CONFIDENCE))
        reject = stats.benjamini_hochberg([r.p_value for r in results], q)
        for (m, games, actual, theo), res, bad in zip(rows, results, reject, strict=True):
            if bad:
                self.report(
                    (m,),
                    f"machine {m}: actual hold {actual:.2%} against theoretical {theo:.2%} over "
                    f"{games} games (p = {res.p_value:.2e}, {res.detail}): a large variance "
                    "to investigate",
                    tuple(self.evidence[m]),
                    warning=True,
                )
