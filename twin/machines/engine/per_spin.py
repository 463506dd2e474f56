"""The per-spin reference engine: one game at a time, scalar draws, pure-Python evaluation."""

from __future__ import annotations

from twin.machines.engine.common import Draws, PlayRequest, PlayResult, Stop, StretchTally
from twin.machines.par import Game


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
        units, spins, progressive, stops, classes = game.outcome_one(u)
        win = units * bet
        pending = spins
        feature = self.feature
        while pending:
            fu = [feature.random() for _ in range(r)]
            funits, fspins, _, fstops, fclasses = game.outcome_one(fu, free=True)
            self.tally.add_free_game(fstops, fclasses)
            win += funits * bet
            self.free_games += 1
            pending += fspins - 1
        self.games += 1
        if win > 0 or progressive:
            self.games_won += 1
        self.tally.add_game(stops, win > 0 or progressive, win, classes)
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
