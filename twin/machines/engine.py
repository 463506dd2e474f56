"""Slot play engines: a batched numpy engine and a per-spin reference engine.

Both play one stretch of a session on one machine: from a starting credit balance, games of a
fixed wager until a stop (session time used up, loss limit or bankroll exhausted, win goal
reached, or a win that locks the machine for a hand pay). They draw from the same two
uniform streams of the machine (base games and free-spin features) in the same order, so they
give identical results; ``tests/test_engine.py`` holds them together.

The batched engine draws a chunk of games (512, doubling to 2,048) in one numpy call,
evaluates them vectorised, finds the first stop with cumulative sums, and consumes exactly the
uniforms of the games it played (the rest stay on the tape for the next stretch). Free-spin
features are evaluated ahead in blocks and handed out lazily, in order, only for games that
are really played.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol

import numpy as np
import numpy.typing as npt

from twin.machines.par import Game

F64 = npt.NDArray[np.float64]


class Draws(Protocol):
    """Where uniforms come from: a tape (batched) or a generator (per spin)."""

    def random(self) -> float: ...


class UniformTape:
    """A buffered view of a generator's ``random()`` sequence.

    ``peek(n)`` shows the next ``n`` uniforms without consuming them; ``advance(k)`` consumes.
    The values are exactly those that ``k`` scalar ``rng.random()`` calls would return, since
    numpy fills arrays with the same ``next_double`` sequence.
    """

    __slots__ = ("_block", "_buf", "_mark", "_pos", "_rng", "drawn")

    def __init__(self, rng: np.random.Generator, block: int = 1 << 12) -> None:
        self._rng = rng
        self._block = block
        self._buf: F64 = np.empty(0)
        self._pos = 0
        self._mark: int | None = None
        self.drawn = 0  # uniforms consumed so far

    def peek(self, n: int) -> F64:
        have = self._buf.size - self._pos
        if have < n:
            keep = self._pos if self._mark is None else self._mark
            more = self._rng.random(max(self._block, n - have))
            self._buf = np.concatenate((self._buf[keep:], more))
            self._pos -= keep
            if self._mark is not None:
                self._mark = 0
        return self._buf[self._pos : self._pos + n]

    def mark(self) -> None:
        """Remember this position so that ``rewind`` can return to it."""
        self._mark = self._pos

    def rewind(self) -> None:
        """Un-consume everything since ``mark`` (used when play is cut short)."""
        assert self._mark is not None
        self.drawn -= self._pos - self._mark
        self._pos = self._mark
        self._mark = None

    def commit(self) -> None:
        """Forget the mark: what was consumed since stays consumed."""
        self._mark = None

    def advance(self, n: int) -> None:
        self._pos += n
        self.drawn += n

    def take(self, n: int) -> F64:
        out = self.peek(n)
        self.advance(n)
        return out

    def random(self) -> float:
        return float(self.take(1)[0])


class Stop(StrEnum):
    """Why a stretch of play ended."""

    TIME = "time"  # the games allowed for this stretch were played
    LOSS_LIMIT = "loss_limit"  # the next wager would cross the loss limit (or credits ran out)
    WIN_GOAL = "win_goal"  # credits reached the patron's goal
    JACKPOT = "jackpot"  # a win at or above the jackpot limit locked the machine
    PROGRESSIVE = "progressive"  # the progressive combination locked the machine


@dataclass(frozen=True, slots=True)
class PlayRequest:
    """One stretch of play; all amounts in credits."""

    credits: int
    bet_units: int
    max_games: int
    floor_credits: int = 0  # never wager below this balance (the loss limit)
    goal_credits: int = 2**62  # stop once the balance reaches this
    lock_credits: int = 2**62  # a single game win at or above this locks the machine


class StretchTally:
    """The base games of a stretch as the randomness audit sees them.

    ``stop_counts[d][s]``: how often draw ``d`` (a reel, or a table's outcome) landed on
    ``s``; ``transitions[2 * previous_won + won]``: consecutive pairs of games in the
    stretch; ``first_won``/``last_won``: the first and last game's outcome (-1: no game).
    """

    __slots__ = ("first_won", "last_won", "stop_counts", "transitions", "won")

    def __init__(self, game: Game) -> None:
        self.stop_counts = [np.zeros(len(w), np.int64) for w in game.stop_weights]
        self.transitions = np.zeros(4, np.int64)
        self.first_won = -1
        self.last_won = -1
        self.won = 0  # games whose selected outcome won

    def add_games(self, stops: npt.NDArray[np.int64], won: npt.NDArray[np.bool_]) -> None:
        """Tally a run of consecutive games (vectorised)."""
        if won.size == 0:
            return
        for d, counts in enumerate(self.stop_counts):
            counts += np.bincount(stops[:, d], minlength=counts.size)
        cur = won.astype(np.int64)
        self.won += int(cur.sum())
        seq = cur if self.last_won < 0 else np.concatenate(([self.last_won], cur))
        if seq.size > 1:
            self.transitions += np.bincount(2 * seq[:-1] + seq[1:], minlength=4)
        if self.first_won < 0:
            self.first_won = int(cur[0])
        self.last_won = int(cur[-1])

    def add_game(self, stops: list[int], won: bool) -> None:
        """Tally one game (the per-spin reference)."""
        for d, s in enumerate(stops):
            self.stop_counts[d][s] += 1
        self.won += int(won)
        if self.last_won >= 0:
            self.transitions[2 * self.last_won + int(won)] += 1
        if self.first_won < 0:
            self.first_won = int(won)
        self.last_won = int(won)


@dataclass(frozen=True, slots=True)
class PlayResult:
    games: int
    wagered: int
    won: int  # credits won onto the credit meter (excludes a locking win)
    games_won: int
    free_games: int
    end_credits: int
    stop: Stop
    lock_win: int = 0  # the locking game's win in credits (hand paid), progressive prize apart
    tally: StretchTally | None = field(default=None, compare=False, repr=False)


def _first(mask: npt.NDArray[np.bool_], default: int) -> int:
    """Index of the first True in ``mask``, or ``default`` when there is none."""
    if mask.size == 0:
        return default
    idx = int(np.argmax(mask))
    return idx if mask[idx] else default


class BatchedEngine:
    """Plays a stretch with numpy: one draw per chunk of games, no Python loop per spin."""

    def __init__(self, game: Game, chunk: int = 2048, first_chunk: int = 512) -> None:
        self.game = game
        self.chunk = chunk  # the largest chunk of games drawn at once
        self.first_chunk = min(first_chunk, chunk)  # sessions often end early: start small

    def play(self, req: PlayRequest, base: UniformTape, feature: UniformTape) -> PlayResult:
        game = self.game
        r = game.draws_per_spin
        bet = req.bet_units
        wager = bet * game.cost
        credits = req.credits
        games = won = games_won = free_games = 0
        threshold = req.floor_credits + wager
        features = _FeatureCursor(game, feature)
        tally = StretchTally(game)
        size = self.first_chunk
        while games < req.max_games:
            n = min(size, req.max_games - games)
            size = min(2 * size, self.chunk)
            if not (threshold <= credits < req.goal_credits):
                stop = Stop.WIN_GOAL if credits >= req.goal_credits else Stop.LOSS_LIMIT
                features.close()
                return PlayResult(
                    games, games * wager, won, games_won, free_games, credits, stop, 0, tally
                )
            out = game.evaluate(base.peek(n * r).reshape(n, r))
            win = out.win_units * bet
            triggers = np.flatnonzero(out.free_spins)
            lock = (win >= req.lock_credits) | out.progressive
            after = credits + np.cumsum(np.where(lock, 0, win) - wager)
            before = np.empty_like(after)
            before[0] = credits
            before[1:] = after[:-1]
            k = _first((before < threshold) | (before >= req.goal_credits), n)
            lk = _first(lock, n)
            end = min(k, lk + 1)
            for j in triggers.tolist():
                if j >= end:
                    break
                # game j is played: its feature adds to its win, which changes the balance
                # from j on (or locks the machine at j); games before j are unaffected
                fw, fg = features.play(int(out.free_spins[j]))
                free_games += fg
                old = int(win[j])
                win[j] = old + fw * bet
                if lock[j]:
                    continue  # already a hand pay: the credit meter does not move
                if win[j] >= req.lock_credits:
                    lock[j] = True
                    lk = j
                    change = -old
                else:
                    change = fw * bet
                if change:
                    after[j:] += change
                    before[j + 1 :] += change
                    tail = before[j + 1 :]
                    k = j + 1 + _first((tail < threshold) | (tail >= req.goal_credits), n - j - 1)
                end = min(k, lk + 1)
            base.advance(end * r)
            games += end
            played = win[:end]
            won_games = (played > 0) | out.progressive[:end]
            games_won += int(np.count_nonzero(won_games))
            assert out.stops is not None
            tally.add_games(out.stops[:end], won_games)
            credits = int(after[end - 1])
            if lk < k and lk < n:
                features.close()
                won += int(played[:-1].sum())
                stop = Stop.PROGRESSIVE if out.progressive[lk] else Stop.JACKPOT
                return PlayResult(
                    games,
                    games * wager,
                    won,
                    games_won,
                    free_games,
                    credits,
                    stop,
                    int(win[lk]),
                    tally,
                )
            won += int(played.sum())
            if end < n:
                features.close()
                stop = Stop.WIN_GOAL if credits >= req.goal_credits else Stop.LOSS_LIMIT
                return PlayResult(
                    games, games * wager, won, games_won, free_games, credits, stop, 0, tally
                )
        features.close()
        return PlayResult(
            games, games * wager, won, games_won, free_games, credits, Stop.TIME, 0, tally
        )


class _FeatureCursor:
    """Free spins evaluated ahead in vectorised blocks, consumed one at a time in draw order.

    Every free spin takes the next ``draws_per_spin`` uniforms of the feature tape whatever
    feature it belongs to, so a block of upcoming free spins can be evaluated in one call and
    handed out as features are played; ``close`` consumes exactly the spins handed out.
    """

    __slots__ = ("_game", "_spins", "_tape", "_used", "_win")

    def __init__(self, game: Game, tape: UniformTape) -> None:
        self._game = game
        self._tape = tape
        self._win: list[int] = []
        self._spins: list[int] = []
        self._used = 0

    def _extend(self, need: int) -> None:
        r = self._game.draws_per_spin
        have = len(self._win)
        n = max(need - have, have, 64)
        u = self._tape.peek((have + n) * r)[have * r :]
        out = self._game.evaluate_free(u.reshape(n, r))
        self._win.extend(out.win_units.tolist())
        self._spins.extend(out.free_spins.tolist())

    def play(self, awarded: int) -> tuple[int, int]:
        """Play a feature of ``awarded`` free spins (and its retriggers): (win units, spins)."""
        i = self._used
        win, spins = self._win, self._spins
        total = 0
        pending = awarded
        while pending:
            if i >= len(win):
                self._extend(i + 1 + pending)
                win, spins = self._win, self._spins
            total += win[i]
            pending += spins[i] - 1
            i += 1
        played = i - self._used
        self._used = i
        return total, played

    def close(self) -> None:
        self._tape.advance(self._used * self._game.draws_per_spin)
        self._used = 0
        self._win.clear()
        self._spins.clear()


class PerSpinEngine:
    """The reference: one game at a time, scalar draws, pure-Python evaluation."""

    def __init__(self, game: Game) -> None:
        self.game = game

    def start(self, req: PlayRequest, base: Draws, feature: Draws) -> PerSpinRun:
        return PerSpinRun(self.game, req, base, feature)

    def play(self, req: PlayRequest, base: Draws, feature: Draws) -> PlayResult:
        run = self.start(req, base, feature)
        while run.check() is None:
            run.play_one()
        return run.result()


class PerSpinRun:
    """A stretch of play advanced one game at a time (so SimPy can wait between games)."""

    def __init__(self, game: Game, req: PlayRequest, base: Draws, feature: Draws) -> None:
        self.game = game
        self.req = req
        self.base = base
        self.feature = feature
        self.wager = req.bet_units * game.cost
        self.threshold = req.floor_credits + self.wager
        self.credits = req.credits
        self.games = self.won = self.games_won = self.free_games = 0
        self.lock_win = 0
        self.stop: Stop | None = None
        self.tally = StretchTally(game)

    def check(self) -> Stop | None:
        """The stop that applies before the next game, if any."""
        if self.stop is None:
            if self.games >= self.req.max_games:
                self.stop = Stop.TIME
            elif self.credits >= self.req.goal_credits:
                self.stop = Stop.WIN_GOAL
            elif self.credits < self.threshold:
                self.stop = Stop.LOSS_LIMIT
        return self.stop

    def play_one(self) -> None:
        """Play the next game: draw its reels, its feature if triggered, settle the credits."""
        game = self.game
        r = game.draws_per_spin
        bet = self.req.bet_units
        base = self.base
        u = [base.random() for _ in range(r)]
        units, spins, progressive = game.evaluate_one(u)
        win = units * bet
        pending = spins
        feature = self.feature
        while pending:
            funits, fspins, _ = game.evaluate_free_one([feature.random() for _ in range(r)])
            win += funits * bet
            self.free_games += 1
            pending += fspins - 1
        self.games += 1
        if win > 0 or progressive:
            self.games_won += 1
        self.tally.add_game(game.stops_one(u), win > 0 or progressive)
        if progressive or win >= self.req.lock_credits:
            self.credits -= self.wager
            self.lock_win = win
            self.stop = Stop.PROGRESSIVE if progressive else Stop.JACKPOT
            return
        self.credits += win - self.wager
        self.won += win

    def result(self) -> PlayResult:
        return PlayResult(
            self.games,
            self.games * self.wager,
            self.won,
            self.games_won,
            self.free_games,
            self.credits,
            self.stop or Stop.TIME,
            self.lock_win,
            self.tally,
        )
