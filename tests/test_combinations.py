"""First Schedule item 1(b): free-spin reels and the availability of every combination.

The engines tally each game's combination classes (the pay class of its best line, its
scatter count) and the free games' stops on the feature reels; the PAR enumeration gives
each class its exact probability; the randomness audit tests them (Bonferroni within each
test, inside the machine's family). Hand checks first, then the law against brute force,
then error rates on fair play, then the injections that only these tests can see.
"""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import pytest
from conftest import besides_absent
from scipy import stats as sps
from test_controls import CASES, run_floor

from twin.compliance import stats
from twin.compliance.checks.randomness import _availabilities, _combination_counts
from twin.machines.analysis import combination_law
from twin.machines.engine import BatchedEngine, PerSpinEngine, PlayRequest, UniformTape
from twin.machines.par import Game, column_count_distribution, load_game
from twin.machines.rigging import biased_free_spin_reel, suppressed_combination

GAMES = Path(__file__).resolve().parent.parent / "scenarios" / "games"


def _game(name: str) -> Game:
    return load_game(GAMES / f"{name}.toml")


# --- the test itself, by hand -------------------------------------------------------------


def test_combination_tests_hand_example() -> None:
    """Two classes of 1,000 games: p = 0.99 and 0.01. The rare class (10 expected, P(0) =
    4.3e-5 <= 0.01) is eligible and seen twice: its binomial lower tail P(X <= 2) times
    K = 2 eligible classes is the p-value. A class of p = 0.001 (1 expected) is not
    eligible: it could never be found missing; nor is any class of 3 games at p = 0.5."""
    counts = [998, 2]
    (res,) = stats.combination_tests([("c", [(counts, [0.99, 0.01], ["common", "rare"])])])
    assert res.p_value == pytest.approx(2 * sps.binom.cdf(2, 1000, 0.01), rel=1e-12)
    assert "rare: 2 seen, 10.0 expected" in res.detail and "over 2 classes" in res.detail
    (res,) = stats.combination_tests([("c", [([999, 1], [0.999, 0.001], ["a", "b"])])])
    assert res.p_value == pytest.approx(min(1.0, sps.binom.cdf(999, 1000, 0.999)))
    (none,) = stats.combination_tests([("c", [([3, 0], [0.5, 0.5], ["a", "b"])])])
    assert none.p_value == 1.0 and "no class" in none.detail


def test_combination_tests_bonferroni_over_every_partition_of_a_test() -> None:
    """A test's partitions (best line pay, scatter count) share one Bonferroni: K counts the
    eligible classes of both."""
    lines = ([900, 100], [0.9, 0.1], ["0", "x"])
    scatter = ([500, 500, 0], [0.45, 0.45, 0.1], ["0", "1", "2"])
    (res,) = stats.combination_tests([("c", [lines, scatter])])
    assert res.p_value == pytest.approx(min(1.0, 5 * 0.9**1000), rel=1e-9)
    assert res.detail.startswith("2: 0 seen, 100.0 expected")


def test_bonferroni_of_a_machine_s_reels() -> None:
    results = stats.stop_frequency_tests([([10, 30], [1, 1]), ([20, 20], [1, 1]), ([], [])][:2])
    one = stats.bonferroni(results, "free")
    assert one.p_value == pytest.approx(min(1.0, 2 * results[0].p_value))
    assert one.detail.startswith("draw 0 of 2")


# --- the exact law of the classes ---------------------------------------------------------


@pytest.mark.parametrize("name", ["classic-3reel", "progressive-link"])
def test_combination_law_is_the_per_spin_classes_over_every_stop_combination(name: str) -> None:
    """Every stop combination evaluated by the pure-Python reference (``outcome_one``),
    weighted by its stops' weights: exactly the enumeration's class probabilities."""
    game = _game(name)
    assert game.base is not None
    law = combination_law(game)
    n_pays = len(game.line_pay_classes)
    weight = np.zeros(n_pays + game.scatter_classes)
    for stops in itertools.product(*(range(n) for n in game.base.lengths)):
        w = math.prod(game.base.weights[r][s] for r, s in enumerate(stops))
        if w == 0:
            continue
        _, _, _, got, classes = game.outcome_one(game.u_for_stops(list(stops)))
        assert got == list(stops)
        for c in classes:
            weight[c] += w
    cycle = math.prod(game.base.totals)
    assert np.allclose(law.line_probs, weight[:n_pays] / cycle, rtol=0, atol=1e-15)
    assert law.pays.tolist() == game.line_pay_classes.tolist()
    assert law.scatter_probs.size == game.scatter_classes


def test_scatter_law_is_the_column_count_distribution() -> None:
    """video-5reel (33.5 million combinations): the scatter-count probabilities are the
    convolution of the reels' scatter histograms (``par.column_count_distribution``), and the
    best-line pay classes sum to one; free spins run on the base reels, so the feature law
    is the base law."""
    game = _game("video-5reel")
    assert game.base is not None
    law = combination_law(game)
    dist = column_count_distribution(game.base, game.base.scatter_counts)
    want = np.zeros(game.scatter_classes)
    want[: len(dist)] = np.array(dist, float) / sum(dist)
    assert np.allclose(law.scatter_probs, want, rtol=1e-12, atol=0)
    assert law.line_probs.sum() == pytest.approx(1.0, abs=1e-12)
    assert combination_law(game, free=True) is law


# --- error rates on fair play ---------------------------------------------------------------


def test_combination_test_size_on_fair_counts() -> None:
    """4,000 fair classic machines of 10,000 games (class counts multinomial from the exact
    law). The test is exact per class and Bonferroni across classes, so conservative:
    asserted, the rejections at 0.05 and 0.01 stay below the binomial 99.9 % upper bound of
    the level (a correct test fails by chance with probability below 0.1 % each). Measured:
    159 of 4,000 at 0.05 (4.0 %) and 28 at 0.01 (0.7 %)."""
    game = _game("classic-3reel")
    law = combination_law(game)
    labels = [str(v) for v in law.pays.tolist()]
    rng = np.random.default_rng(4242)
    counts = rng.multinomial(10_000, law.line_probs, size=4000)
    res = stats.combination_tests([("c", [(c, law.line_probs, labels)]) for c in counts])
    p = np.array([r.p_value for r in res])
    for level, measured in ((0.05, 159), (0.01, 28)):
        rejected = int(np.count_nonzero(p <= level))
        assert rejected <= sps.binom.ppf(0.999, 4000, level), rejected
        assert rejected == measured  # the seed is fixed: a change is a change in behaviour


def _fair_video_tallies(replicates: int, games: int, seed: int) -> list[object]:
    game = _game("video-5reel")
    engine = BatchedEngine(game)
    out = []
    for i in range(replicates):
        base = UniformTape(np.random.default_rng([seed, i, 0]))
        feature = UniformTape(np.random.default_rng([seed, i, 1]))
        r = engine.play(PlayRequest(10**9, 1, games), base, feature)
        out.append(r.tally)
    return out


def test_free_spin_and_combination_tests_size_on_fair_play() -> None:
    """400 fair video-5reel machines of 8,000 games each (about a default day: ~550 free
    games), played by the real batched engine with its retriggers. Each of the four new
    tests (base and free-spin combinations, free-spin frequency and availability, each a
    Bonferroni over its classes or reels) rejects at 0.05 at most at the binomial 99.9 %
    upper bound of 0.05 (31 of 400): a correct test fails this by chance with probability
    below 0.1 % per test. Measured (seed fixed): combinations 15 (3.8 %), free-spin
    combinations 9, free-spin frequency 10, free-spin availability 8 of 400."""
    game = _game("video-5reel")
    law = combination_law(game)
    weights = game.feature_reels.weights
    n = len(game.line_pay_classes)
    rejected = {"combinations": 0, "free combinations": 0, "free frequency": 0, "free avail": 0}
    for t in _fair_video_tallies(400, 8000, 99):
        assert t is not None
        pays = game.line_pay_classes.tolist()
        base = _combination_counts(
            law,
            tuple(zip(pays, t.classes[:n].tolist(), strict=True)),
            tuple(t.classes[n:].tolist()),
        )
        free = _combination_counts(
            law,
            tuple(zip(pays, t.feature_classes[:n].tolist(), strict=True)),
            tuple(t.feature_classes[n:].tolist()),
        )
        combo, fcombo = stats.combination_tests([("c", base), ("f", free)])
        reels = [(c.copy(), w) for c, w in zip(t.feature_stop_counts, weights, strict=True)]
        freq = stats.bonferroni(stats.stop_frequency_tests(reels), "ff")
        avail = stats.bonferroni(_availabilities(reels), "fa")
        for key, res in zip(rejected, (combo, fcombo, freq, avail), strict=True):
            rejected[key] += res.p_value <= 0.05
    bound = sps.binom.ppf(0.999, 400, 0.05)
    assert all(v <= bound for v in rejected.values()), rejected
    assert rejected == {
        "combinations": 15,
        "free combinations": 9,
        "free frequency": 10,
        "free avail": 8,
    }


# --- the injections: a combination removed, a biased free-spin reel --------------------------


def test_a_suppressed_combination_keeps_the_stops_and_the_signature() -> None:
    """The rigged program lands exactly the approved stops on the same uniforms, reports the
    same signature, and never selects the suppressed class (three cherries, pay 20): those
    games show the next lower pay (17) instead; both engines play it alike."""
    game = _game("classic-3reel")
    rigged = suppressed_combination(game, 20)
    assert rigged.signature == game.signature and rigged.base is game.base
    assert 20 not in rigged.line_pay_classes.tolist()
    cherries = game.u_for_stops([4, 4, 4])
    assert game.outcome_one(cherries)[0] == 20 and rigged.outcome_one(cherries)[0] == 17
    req = PlayRequest(10**9, 1, 50_000)
    got = []
    for g in (game, rigged):
        r = BatchedEngine(g).play(req, UniformTape(np.random.default_rng(5)), UniformTape(
            np.random.default_rng(6)))  # fmt: skip
        assert r.tally is not None
        got.append(r.tally)
    fair, bad = got
    assert all(np.array_equal(a, b) for a, b in zip(fair.stop_counts, bad.stop_counts, strict=True))
    assert fair.classes[game.line_pay_classes.tolist().index(20)] > 50
    small = PlayRequest(10**9, 1, 3000)
    one = PerSpinEngine(rigged).play(small, np.random.default_rng(7), np.random.default_rng(8))
    two = BatchedEngine(rigged).play(small, UniformTape(np.random.default_rng(7)), UniformTape(
        np.random.default_rng(8)))  # fmt: skip
    assert one == two and one.tally is not None and two.tally is not None
    assert one.tally.classes.tolist() == two.tally.classes.tolist()
    with pytest.raises(ValueError, match="pays 21"):
        suppressed_combination(game, 21)
    assert suppressed_combination(game).line_pay_classes.tolist()[-1] == 50  # top 250 gone


def test_a_biased_free_spin_reel_keeps_the_base_game() -> None:
    game = _game("video-5reel")
    rigged = biased_free_spin_reel(game, 4)
    assert rigged.signature == game.signature and rigged.base is game.base
    assert rigged.feature_reels.weights[0][:8] == (0, 0, 0, 0, 2, 2, 2, 2)
    assert rigged.feature_reels.totals == game.feature_reels.totals
    with pytest.raises(ValueError, match="no free spins"):
        biased_free_spin_reel(_game("classic-3reel"))


def test_a_suppressed_combination_is_found_while_its_stops_land(tmp_path: Path) -> None:
    """B-002 never selects three cherries for a day: only the combination test sees it (its
    stops land as approved: no stop frequency or availability test fails), under 1(b)(i)."""
    casino, _ = run_floor(tmp_path, CASES["S1.1b.i.combination"])
    assert casino.compliance is not None
    found = {f.control: f.message for f in besides_absent(casino)}
    assert set(found) == {"MT98.S1.1b", "MT98.S1.1b.i"}
    assert "in 1 test(s) (worst combinations" in found["MT98.S1.1b.i"]
    assert "best line pays 20: 0 seen" in found["MT98.S1.1b.i"]


def test_a_biased_free_spin_reel_is_found_on_the_free_games(tmp_path: Path) -> None:
    """A-001's free spins play a first reel whose first four stops never land: the free-spin
    frequency (1(b)(ii)) and availability (1(b)(i)) tests see it; nothing on the base game."""
    casino, _ = run_floor(tmp_path, CASES["S1.1b.free"])
    assert casino.compliance is not None
    found = {f.control: f.message for f in besides_absent(casino)}
    assert set(found) == {"MT98.S1.1b", "MT98.S1.1b.i", "MT98.S1.1b.ii"}
    assert "worst free_spin_availability" in found["MT98.S1.1b.i"]
    assert "worst free_spin_frequency" in found["MT98.S1.1b.ii"]


def test_tallies_of_two_pay_tables_add_up_by_pay() -> None:
    """A machine that plays other pays at some bets merges stretches of two programs: their
    pay classes are aligned by pay (a pay of either is a class of the sum), the scatter
    classes and stops unchanged."""
    from twin.machines.adaptive import scaled_pays
    from twin.machines.engine import StretchTally

    game = _game("classic-3reel")
    half = scaled_pays(game, 0.5)
    mine, theirs = StretchTally(game), StretchTally(half)
    mine.add_game([4, 4, 4], True, 20, [mine.pays.index(20)])
    theirs.add_game([4, 4, 4], True, 10, [theirs.pays.index(10)])
    theirs.add_game([2, 2, 2], True, 8, [theirs.pays.index(8)])
    mine.add_classes(theirs)
    assert mine.pays == tuple(
        sorted(set(game.line_pay_classes.tolist()) | {1, 3, 8, 10, 15, 25, 125})
    )
    got = dict(zip(mine.pays, mine.classes.tolist(), strict=True))
    assert {v: n for v, n in got.items() if n} == {20: 1, 10: 1, 8: 1}


def test_stop_counts_of_a_stretch_add_to_the_machine_per_draw() -> None:
    """A stretch's stop counts (base and feature reels) add to its machine's draw by draw,
    the views seeing the sums; a stretch of a game on other reels is refused."""
    from twin.machines.engine import StretchTally

    game = _game("video-5reel")
    mine, theirs = StretchTally(game), StretchTally(game)
    mine.add_game([0, 1, 2, 3, 4], False)
    theirs.add_game([0, 5, 2, 3, 9], True)
    theirs.add_free_game([1, 1, 1, 1, 1], [])
    mine.add_stop_counts(theirs)
    assert [c[:10].tolist() for c in mine.stop_counts] == [
        [2, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        [0, 1, 0, 0, 0, 1, 0, 0, 0, 0],
        [0, 0, 2, 0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 2, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 1, 0, 0, 0, 0, 1],
    ]
    assert [int(c.sum()) for c in mine.feature_stop_counts] == [1] * 5
    assert [int(c[1]) for c in mine.feature_stop_counts] == [1] * 5
    with pytest.raises(ValueError, match="other reels"):
        mine.add_stop_counts(StretchTally(_game("classic-3reel")))
