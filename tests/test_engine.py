"""The play engines: the uniform tape, batched vs per-spin equivalence, hand-computed sessions.

The batched engine must give exactly the `PlayResult` of the per-spin reference and consume
exactly the same uniforms from both streams (base games and free-spin features), whatever the
request; the machine model relies on it to make the two engines interchangeable.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from conftest import GAME_IDS, besides_absent, load

from twin.machines.engine import (
    BatchedEngine,
    PerSpinEngine,
    PlayRequest,
    PlayResult,
    Stop,
    UniformTape,
)
from twin.machines.par import Game, load_game

# ---------------------------------------------------------------------------------------------
# UniformTape
# ---------------------------------------------------------------------------------------------


def _scalars(seed: int, n: int) -> list[float]:
    rng = np.random.default_rng(seed)
    return [rng.random() for _ in range(n)]


def test_tape_take_gives_the_scalar_random_sequence_across_block_refills() -> None:
    want = _scalars(7, 200)
    tape = UniformTape(np.random.default_rng(7), block=16)
    got: list[float] = []
    for size in [1, 3, 15, 16, 17, 0, 2, 40, 5, 1, 100]:
        got.extend(tape.take(size).tolist())
    assert got == want[: len(got)]
    assert len(got) == 200
    assert tape.drawn == 200


def test_tape_random_matches_scalar_calls_exactly() -> None:
    want = _scalars(11, 50)
    tape = UniformTape(np.random.default_rng(11), block=4)
    got = [tape.random() for _ in range(50)]
    assert got == want
    assert all(isinstance(x, float) for x in got)


def test_tape_peek_does_not_consume_and_advance_does() -> None:
    want = _scalars(3, 60)
    tape = UniformTape(np.random.default_rng(3), block=8)
    assert tape.peek(5).tolist() == want[:5]
    assert tape.peek(20).tolist() == want[:20]  # a refill while peeking keeps the position
    assert tape.drawn == 0
    tape.advance(4)
    assert tape.drawn == 4
    assert tape.peek(30).tolist() == want[4:34]
    tape.advance(30)
    assert tape.take(3).tolist() == want[34:37]
    assert tape.random() == want[37]
    assert tape.drawn == 38


def test_tape_mark_rewind_returns_to_the_mark_even_across_refills() -> None:
    want = _scalars(5, 100)
    tape = UniformTape(np.random.default_rng(5), block=8)
    tape.take(6)
    tape.mark()
    assert tape.take(25).tolist() == want[6:31]  # needs several refills past the mark
    assert tape.drawn == 31
    tape.rewind()
    assert tape.drawn == 6
    assert tape.take(40).tolist() == want[6:46]
    # after a rewind the mark is gone: a second stretch is marked and committed
    tape.mark()
    assert tape.take(10).tolist() == want[46:56]
    tape.commit()
    assert tape.take(4).tolist() == want[56:60]
    assert tape.drawn == 60


def test_tape_commit_keeps_what_was_consumed() -> None:
    want = _scalars(9, 30)
    tape = UniformTape(np.random.default_rng(9), block=4)
    tape.mark()
    tape.take(9)
    tape.commit()
    assert tape.random() == want[9]
    assert tape.drawn == 10


# ---------------------------------------------------------------------------------------------
# Batched vs per-spin on random requests
# ---------------------------------------------------------------------------------------------

REQUESTS_PER_GAME = 3000


def _random_request(rng: np.random.Generator, game: Game) -> PlayRequest:
    """A request that reaches every stop: short and long stretches, tight and loose limits."""
    wager_unit = game.cost
    bet = int(rng.integers(1, 11))
    wager = bet * wager_unit
    credits = int(rng.integers(0, 200)) * wager + int(rng.integers(0, wager + 1))
    kind = rng.random()
    if kind < 0.05:
        max_games = 0
    elif kind < 0.6:
        max_games = int(rng.integers(1, 40))
    elif kind < 0.95:
        max_games = int(rng.integers(40, 400))
    else:
        max_games = int(rng.integers(400, 2001))
    floor = int(rng.integers(0, credits + 1)) if rng.random() < 0.5 else 0
    goal = 2**62
    if rng.random() < 0.5:
        goal = credits + int(rng.integers(-wager, 20 * wager + 1))
    lock = 2**62
    if rng.random() < 0.4:
        lock = int(rng.integers(1, 60)) * bet
    return PlayRequest(credits, bet, max_games, floor, goal, lock)


def _check_result(req: PlayRequest, r: PlayResult, game: Game) -> None:
    """Bookkeeping that any correct result satisfies."""
    wager = req.bet_units * game.cost
    assert 0 <= r.games <= req.max_games
    assert r.wagered == r.games * wager
    assert 0 <= r.games_won <= r.games
    assert r.end_credits == req.credits + r.won - r.wagered
    assert r.end_credits >= 0
    if r.stop in (Stop.JACKPOT, Stop.PROGRESSIVE):
        assert r.games >= 1
    else:
        assert r.lock_win == 0
    if r.stop is Stop.JACKPOT:
        assert r.lock_win >= req.lock_credits
    if r.stop is Stop.TIME:
        assert r.games == req.max_games
    if r.stop is Stop.WIN_GOAL:
        assert r.end_credits >= req.goal_credits
    if r.stop is Stop.LOSS_LIMIT:
        assert r.end_credits < req.floor_credits + wager


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_batched_equals_per_spin_on_random_requests(game_id: str) -> None:
    game = load(game_id)
    seed = 20260301 + GAME_IDS.index(game_id)
    req_rng = np.random.default_rng([seed, 0])
    batched = BatchedEngine(game, chunk=64)
    per_spin = PerSpinEngine(game)
    # the same two streams, one read through tapes, the other one scalar draw at a time
    base_tape = UniformTape(np.random.default_rng([seed, 1]), block=1000)
    feature_tape = UniformTape(np.random.default_rng([seed, 2]), block=1000)
    base_rng = np.random.default_rng([seed, 1])
    feature_rng = np.random.default_rng([seed, 2])
    stops: Counter[Stop] = Counter()
    games = free_games = 0
    tallied = [0, 0]  # combination classes tallied in base and free games
    for i in range(REQUESTS_PER_GAME):
        req = _random_request(req_rng, game)
        if i % 7 == 3 and req.max_games > 1:
            # the machine's interrupted stretch: play, give the tape back, replay fewer games
            base_tape.mark()
            feature_tape.mark()
            first = batched.play(req, base_tape, feature_tape)
            base_tape.rewind()
            feature_tape.rewind()
            started = int(req_rng.integers(0, first.games + 1))
            req = PlayRequest(
                req.credits,
                req.bet_units,
                started,
                req.floor_credits,
                req.goal_credits,
                req.lock_credits,
            )
            got = batched.play(req, base_tape, feature_tape)
            base_tape.commit()
            feature_tape.commit()
        else:
            got = batched.play(req, base_tape, feature_tape)
        want = per_spin.play(req, base_rng, feature_rng)
        assert got == want, (i, req)
        assert _tally_of(got) == _tally_of(want), (i, req)
        tallied[0] += int(got.tally.classes.sum()) if got.tally is not None else 0
        tallied[1] += int(got.tally.feature_classes.sum()) if got.tally is not None else 0
        _check_result(req, got, game)
        stops[got.stop] += 1
        games += got.games
        free_games += got.free_games
        # both engines left both streams at the same place
        assert base_tape.random() == base_rng.random(), (i, req)
        if game.has_free_spins:
            assert feature_tape.random() == feature_rng.random(), (i, req)

    assert games > 100_000
    for stop in (Stop.TIME, Stop.LOSS_LIMIT, Stop.WIN_GOAL, Stop.JACKPOT):
        assert stops[stop] > 0, (stop, stops)
    if game.has_progressive:
        assert stops[Stop.PROGRESSIVE] > 0, stops
    else:
        assert stops[Stop.PROGRESSIVE] == 0
    if game.has_free_spins:
        assert free_games > 0
    else:
        assert free_games == 0
    # the tallies compared above are not vacuous: every game's classes, every free game's
    per_game = 0 if game.kind == "table" else 1 + (game.scatter is not None)
    assert tallied == [games * per_game, free_games * per_game]


def _tally_of(r: PlayResult) -> tuple[object, ...]:
    """Everything the randomness audit reads from a stretch's tally, as plain values."""
    t = r.tally
    assert t is not None
    return (
        [c.tolist() for c in t.stop_counts],
        [c.tolist() for c in t.feature_stop_counts],
        t.classes.tolist(),
        t.feature_classes.tolist(),
        t.transitions.tolist(),
        t.won,
        t.credits,
        t.first_won,
        t.last_won,
    )


def test_free_spins_evaluated_ahead_serve_the_next_stretches(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The free spins a stretch evaluated ahead and did not play are the next stretch's: on
    one machine's tapes, 400 stretches evaluate the feature reels far fewer times than they
    play a feature, and play exactly what the per-spin engine plays (tallies included); a
    stretch given back and played again plays the same spins."""
    from twin.machines.engine import batched as engine_module

    game = load("video-5reel")
    engine = BatchedEngine(game)
    kernel = engine._feature_kernel
    assert kernel is not None
    calls: list[int] = []
    evaluate = engine_module._Kernel.evaluate

    def counted(self: engine_module._Kernel, u: np.ndarray) -> object:
        if self is kernel:
            calls.append(u.shape[0])
        return evaluate(self, u)

    monkeypatch.setattr(engine_module._Kernel, "evaluate", counted)
    base, feature = UniformTape(np.random.default_rng(41)), UniformTape(np.random.default_rng(42))
    base_rng, feature_rng = np.random.default_rng(41), np.random.default_rng(42)
    per_spin = PerSpinEngine(game)
    with_features = 0
    for _ in range(400):
        req = PlayRequest(credits=2000, bet_units=1, max_games=60)
        got = engine.play(req, base, feature)
        want = per_spin.play(req, base_rng, feature_rng)
        assert got == want and _tally_of(got) == _tally_of(want)
        with_features += got.free_games > 0
    assert with_features > 60
    assert len(calls) < with_features / 3
    # a stretch with a feature given back (as an interrupted one is) and played again
    req = PlayRequest(credits=2000, bet_units=1, max_games=400)
    while True:
        base.mark()
        feature.mark()
        first = engine.play(req, base, feature)
        if first.free_games:
            break
        base.commit()
        feature.commit()
    base.rewind()
    feature.rewind()
    again = engine.play(req, base, feature)
    assert again == first and _tally_of(again) == _tally_of(first)


def test_every_stop_reason_is_reached_on_the_library() -> None:
    """Across the library, each of the five stops occurs (the equivalence test is not vacuous)."""
    seen: Counter[Stop] = Counter()
    for game_id in GAME_IDS:
        game = load(game_id)
        rng = np.random.default_rng([99, GAME_IDS.index(game_id)])
        engine = BatchedEngine(game)
        base = UniformTape(np.random.default_rng([99, 1]))
        feature = UniformTape(np.random.default_rng([99, 2]))
        for _ in range(300):
            seen[engine.play(_random_request(rng, game), base, feature).stop] += 1
    assert set(seen) == set(Stop)
    assert all(seen[s] > 0 for s in Stop), seen


def test_chunk_size_does_not_change_results() -> None:
    game = load("video-5reel")
    req_rng = np.random.default_rng(5)
    requests = [_random_request(req_rng, game) for _ in range(150)]
    results = []
    for chunk in (1, 7, 512):
        engine = BatchedEngine(game, chunk=chunk)
        base = UniformTape(np.random.default_rng(1), block=37)
        feature = UniformTape(np.random.default_rng(2), block=37)
        results.append([engine.play(r, base, feature) for r in requests])
    assert results[0] == results[1] == results[2]


# ---------------------------------------------------------------------------------------------
# A hand-made table game with explicit uniforms
# ---------------------------------------------------------------------------------------------

HAND_GAME = """\
[game]
id = "hand-table"
name = "Hand Table"
kind = "table"
cost = 2

[[outcomes]]
name = "lose"
weight = 4
pay = 0

[[outcomes]]
name = "small"
weight = 2
pay = 3

[[outcomes]]
name = "big"
weight = 1
pay = 40

[[outcomes]]
name = "link"
weight = 1
pay = 0
progressive = true
"""
# u * 8 selects: [0, 4) lose (u < 0.5), [4, 6) small (u < 0.75), [6, 7) big (u < 0.875),
# [7, 8) link. With bet_units = 2 the wager is 4 credits, small wins 6 and big wins 80.
LOSE, SMALL, BIG, LINK = 0.1, 0.6, 0.8, 0.9
NEXT = 0.3125  # the value after the scripted ones: it must be the next one drawn
FILL = 0.25  # what follows (a losing game)


class Script:
    """A stand-in generator returning scripted uniforms, then ``FILL`` for ever."""

    def __init__(self, values: list[float]) -> None:
        self.values = [*values, NEXT]
        self.i = 0

    def _next(self) -> float:
        v = self.values[self.i] if self.i < len(self.values) else FILL
        self.i += 1
        return v

    def random(self, size: int | None = None) -> float | np.ndarray:
        if size is None:
            return self._next()
        return np.array([self._next() for _ in range(size)], dtype=np.float64)


@pytest.fixture
def hand_game(tmp_path: Path) -> Game:
    path = tmp_path / "hand-table.toml"
    path.write_text(HAND_GAME)
    return load_game(path)


def test_hand_game_outcomes(hand_game: Game) -> None:
    assert hand_game.cost == 2
    assert hand_game.evaluate_one([LOSE]) == (0, 0, False)
    assert hand_game.evaluate_one([SMALL]) == (3, 0, False)
    assert hand_game.evaluate_one([BIG]) == (40, 0, False)
    assert hand_game.evaluate_one([LINK]) == (0, 0, True)
    # interval edges: u * 8 == 4 is the first "small", u * 8 == 7 the first "link"
    assert hand_game.evaluate_one([0.5]) == (3, 0, False)
    assert hand_game.evaluate_one([0.4999999]) == (0, 0, False)
    assert hand_game.evaluate_one([0.875]) == (0, 0, True)
    out = hand_game.evaluate(np.array([[LOSE], [SMALL], [BIG], [LINK]]))
    assert out.win_units.tolist() == [0, 3, 40, 0]
    assert out.progressive.tolist() == [False, False, False, True]
    assert out.free_spins.tolist() == [0, 0, 0, 0]


HAND_CASES = [
    pytest.param(
        # 20 -4 =16; +6-4 =18; -4 =14; big 80 >= lock 50: wager taken, the win locks: 10
        PlayRequest(credits=20, bet_units=2, max_games=10, lock_credits=50),
        [LOSE, SMALL, LOSE, BIG],
        PlayResult(4, 16, 6, 2, 0, 10, Stop.JACKPOT, 80),
        id="jackpot",
    ),
    pytest.param(
        # 20 +6-4 = 22; link: the wager is taken, the prize is the link's: 18, lock_win 0
        PlayRequest(credits=20, bet_units=2, max_games=10),
        [SMALL, LINK],
        PlayResult(2, 8, 6, 2, 0, 18, Stop.PROGRESSIVE, 0),
        id="progressive",
    ),
    pytest.param(
        # floor 4: a game needs 4 + 4 = 8 credits. 12 -> 8 -> 4, then 4 < 8 stops
        PlayRequest(credits=12, bet_units=2, max_games=10, floor_credits=4),
        [LOSE, LOSE],
        PlayResult(2, 8, 0, 0, 0, 4, Stop.LOSS_LIMIT),
        id="loss-limit",
    ),
    pytest.param(
        # 20 -4 = 16; big (no lock): 16 + 80 - 4 = 92 >= 30 stops at once
        PlayRequest(credits=20, bet_units=2, max_games=10, goal_credits=30),
        [LOSE, BIG],
        PlayResult(2, 8, 80, 1, 0, 92, Stop.WIN_GOAL),
        id="win-goal",
    ),
    pytest.param(
        # 20 -> 22 -> 18 -> 20 after the three games allowed
        PlayRequest(credits=20, bet_units=2, max_games=3),
        [SMALL, LOSE, SMALL],
        PlayResult(3, 12, 12, 2, 0, 20, Stop.TIME),
        id="time",
    ),
    pytest.param(
        # bet 1 (wager 2): 3 -> 1, and 1 credit cannot pay a 2-credit wager
        PlayRequest(credits=3, bet_units=1, max_games=100),
        [LOSE],
        PlayResult(1, 2, 0, 0, 0, 1, Stop.LOSS_LIMIT),
        id="bankroll-exhausted",
    ),
    pytest.param(
        PlayRequest(credits=20, bet_units=2, max_games=0),
        [],
        PlayResult(0, 0, 0, 0, 0, 20, Stop.TIME),
        id="no-games",
    ),
    pytest.param(
        # already at the goal: nothing is played
        PlayRequest(credits=20, bet_units=2, max_games=5, goal_credits=20),
        [],
        PlayResult(0, 0, 0, 0, 0, 20, Stop.WIN_GOAL),
        id="goal-before-start",
    ),
    pytest.param(
        # the time limit is checked first: reaching the goal on the last game is a TIME stop
        PlayRequest(credits=20, bet_units=2, max_games=2, goal_credits=25),
        [LOSE, BIG],
        PlayResult(2, 8, 80, 1, 0, 92, Stop.TIME),
        id="time-not-goal",
    ),
    pytest.param(
        # a win of exactly the lock amount locks (>=); a smaller one does not
        PlayRequest(credits=20, bet_units=2, max_games=10, lock_credits=6, goal_credits=1000),
        [LOSE, SMALL],
        PlayResult(2, 8, 0, 1, 0, 12, Stop.JACKPOT, 6),
        id="lock-at-threshold",
    ),
]


@pytest.mark.parametrize("engine", ["batched", "per_spin"])
@pytest.mark.parametrize(("req", "values", "want"), HAND_CASES)
def test_hand_computed_sessions(
    hand_game: Game, engine: str, req: PlayRequest, values: list[float], want: PlayResult
) -> None:
    base = Script(values)
    feature = Script([])
    if engine == "batched":
        tape = UniformTape(base, block=3)  # type: ignore[arg-type]
        got = BatchedEngine(hand_game, chunk=4).play(req, tape, UniformTape(feature))  # type: ignore[arg-type]
        nxt = tape.random()
    else:
        got = PerSpinEngine(hand_game).play(req, base, feature)
        nxt = base.random()
    assert got == want
    # exactly the scripted games' uniforms were consumed: the next one is NEXT
    assert nxt == NEXT


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_kernel_equals_game_evaluate_on_many_games(game_id: str) -> None:
    """The kernel (compressed line classes, extended pay table) gives exactly
    ``Game.evaluate``/``evaluate_free``: win, free spins awarded, progressive hit, stops."""
    from twin.machines.engine.batched import _kernels

    game = load(game_id)
    base, feature = _kernels(game)
    rng = np.random.default_rng(20261130)
    modes = [(base, game.evaluate)]
    if feature is not None:
        modes.append((feature, game.evaluate_free))
    for kernel, reference in modes:
        u = rng.random((20_000, game.draws_per_spin))
        wins, spins, prog, stops, _ = kernel.evaluate(u)
        want = reference(u)
        assert wins.tolist() == want.win_units.tolist()
        assert stops.tolist() == want.stops.tolist()
        got_spins = np.zeros(len(u), np.int64) if spins is None else spins
        assert got_spins.tolist() == want.free_spins.tolist()
        got_prog = np.zeros(len(u), np.bool_) if prog is None else prog
        assert got_prog.tolist() == want.progressive.tolist()
        assert want.win_units.any()  # the sample has wins to compare


def test_two_disruptions_in_the_same_instant_stop_a_stretch_once() -> None:
    """A door and a tilt at the same instant on a machine in play: the stretch stops once and
    the patron cashes out (a second interrupt used to land in the middle of the cash-out)."""
    from twin.casino import Casino
    from twin.departments import load_scenario

    casino = Casino(
        load_scenario(Path(__file__).resolve().parent.parent / "scenarios" / "tiny.toml")
    )
    casino.start()
    t = 0.0
    playing = None
    while playing is None and t < 7200.0:
        t += 60.0
        casino.advance(t)
        playing = next((m for m in casino.machines if m._player is not None), None)
    assert playing is not None
    player = playing._player
    assert player is not None
    playing.interrupt_play()
    assert playing._player is None  # a second call now reaches nobody ...
    playing.interrupt_play()
    casino.run()  # ... and no Interrupt escapes the patron's cash-out
    assert casino.compliance is not None and besides_absent(casino) == []
