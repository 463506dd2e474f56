"""The slot machine on the floor: its SimPy processes around its accounting.

``SlotMachine`` owns a ``SlotAccounts`` (meters, hopper, credits, doors) and drives it with
play from a ``BatchedEngine`` or the ``PerSpinEngine`` reference. Processes are generator
methods named after activities: ``play_session`` (``play``, then ``cash_out``), ``cash_out``,
``pay_by_hand``, ``fill_hopper``, ``run_disruptions``, ``repair``.

Interruptions (a tilt, a door opened) stop play at the next game boundary: games started
before the interruption count, the rest of the stretch is given back to the tape. Disruptions
fire after every ordinary event at the same instant (a low scheduling priority), so batched
and per-spin play resolve ties the same way.

``SlotMachine`` is a :class:`~twin.machines.cabinet.Cabinet` (accounts, records, service,
doors) with a program and its play; what is fixed about it is in :mod:`twin.machines.spec`.
"""

from __future__ import annotations

import math
from collections.abc import Generator
from dataclasses import replace
from typing import Any

import simpy

from twin.machines.cabinet import Cabinet
from twin.machines.engine import (
    BatchedEngine,
    PerSpinEngine,
    PlayRequest,
    PlayResult,
    Stop,
    StretchTally,
)
from twin.machines.events import GamesPlayed
from twin.machines.misconduct import Misconduct
from twin.machines.par import Game
from twin.machines.sas import MeterCode
from twin.machines.spec import Crew, Disruption, EngineKind, MachineSpec, Timing

# the casino imports the machine's spec types from here, as before the split (issue 26)
__all__ = ["Crew", "Disruption", "EngineKind", "MachineSpec", "SlotMachine", "Timing"]


class SlotMachine(Cabinet):
    """A machine on the floor: a :class:`~twin.machines.cabinet.Cabinet` that runs a program
    (swapped, converted, injected) and is played."""

    # -- the program -----------------------------------------------------------------------
    def swap_program(self, game: Game, reported_signature: str | None = None) -> None:
        """Replace the program (a conversion, or tampering when no record says so).

        ``reported_signature``: what the machine will claim in signature checks (default:
        the new program's own signature; a tampered program may lie). During a stretch of
        play the games under way end on the old program and the change is made at that
        game boundary (a stretch is played, tallied and committed by one program).
        """
        if self._player is not None and self._player.is_alive:
            self._swap_pending = (game, reported_signature)
            self.interrupt_play()
            return
        self.game = game
        self.reported_signature = reported_signature or game.signature
        self._batched = BatchedEngine(game)
        self._per_spin = PerSpinEngine(game)
        # the outcome tally is the program's: a new program starts a new one, wins by bet
        # level included (mixing two programs' games would look like dependence on the bet)
        self.tally = StretchTally(game)
        self.by_bet = {}

    def play_other_program_from(self, bet_units: int, game: Game) -> None:
        """Injected: from ``bet_units`` up, play ``game`` (same reels, other pays) instead."""
        self._at_max_bet = (bet_units, game, BatchedEngine(game))

    def _batched_for(self, bet_units: int) -> BatchedEngine:
        if self.adaptive is not None:  # injected: a self-adjusting program (item 1(e))
            return self.adaptive.batched()
        alt = self._at_max_bet
        return self._batched if alt is None or bet_units < alt[0] else alt[2]

    # -- play ------------------------------------------------------------------------------
    def play_session(
        self,
        patron: str,
        *,
        bet_units: int,
        pace: float,
        until: float,
        floor_credits: int,
        goal_credits: int,
    ) -> Generator[simpy.events.Event, Any, int]:
        """Play until the session's time is up or the patron stops; then cash out.

        Returns the credits paid to the patron (cash-out and any hand-paid win).
        """
        jackpots = yield from self.play(
            patron, bet_units=bet_units, pace=pace, until=until,
            floor_credits=floor_credits, goal_credits=goal_credits,
        )  # fmt: skip
        cashed = yield from self.cash_out(patron)
        return jackpots + cashed

    def play(
        self,
        patron: str,
        *,
        bet_units: int,
        pace: float,
        until: float,
        floor_credits: int = 0,
        goal_credits: int = 2**62,
    ) -> Generator[simpy.events.Event, Any, int]:
        """Play until the time is up or the patron stops (a jackpot is paid by hand first);
        no cash out (a session's is :meth:`play_session`'s; a test bench asks for its own).

        Returns the credits of the jackpots paid by hand.
        """
        env = self.env
        bet_units = max(1, min(bet_units, self.spec.max_bet_units))
        if self.forced_bet_units is not None:  # injected: a machine that overrides the bet
            bet_units = self.forced_bet_units
        jackpots = 0
        while True:
            if self.down:  # (wait_ready returns at once on a machine that is up)
                yield from self.wait_ready()
            max_games = _games_before(env.now, until, pace)
            if max_games <= 0:
                break
            req = PlayRequest(
                credits=self.accounts.credits,
                bet_units=bet_units,
                max_games=max_games,
                floor_credits=floor_credits,
                goal_credits=goal_credits,
                lock_credits=self.spec.lock_credits,
            )
            if self.engine_kind == "batched":
                result, interrupted = yield from self._play_batched(req, pace)
            else:
                result, interrupted = yield from self._play_per_spin(req, pace)
            self._commit(patron, result)
            if self._swap_pending is not None:  # a program change made during the stretch
                self.swap_program(*self._swap_pending)
                self._swap_pending = None
            if result.stop in (Stop.JACKPOT, Stop.PROGRESSIVE):
                jackpots += yield from self.pay_jackpot(patron, result)
                break
            if not interrupted:
                break
        return jackpots

    def _play_batched(
        self, req: PlayRequest, pace: float
    ) -> Generator[Any, Any, tuple[PlayResult, bool]]:
        env = self.env
        t0 = env.now
        base, feature = self._base_tape, self._feature_tape
        base.mark()
        feature.mark()
        batched = self._batched_for(req.bet_units)
        result = batched.play(req, base, feature)
        interrupted = False
        self._player = env.active_process
        try:
            if result.games:
                yield env.timeout(result.games * pace)
        except simpy.Interrupt:
            interrupted = True
            started = _games_started(t0, env.now, pace, result.games)
            base.rewind()
            feature.rewind()
            result = batched.play(replace(req, max_games=started), base, feature)
        finally:
            self._player = None
        base.commit()
        feature.commit()
        return result, interrupted

    def _play_per_spin(
        self, req: PlayRequest, pace: float
    ) -> Generator[Any, Any, tuple[PlayResult, bool]]:
        env = self.env
        alt = self._at_max_bet
        per_spin = (
            self._per_spin if alt is None or req.bet_units < alt[0] else PerSpinEngine(alt[1])
        )
        if self.adaptive is not None:
            per_spin = self.adaptive.per_spin()
        run = per_spin.start(req, self._base_rng, self._feature_rng)
        interrupted = False
        self._player = env.active_process
        try:
            while run.stop is None:
                if run.check() is not None:
                    break
                start = env.now
                try:
                    yield env.timeout(pace)
                except simpy.Interrupt:
                    interrupted = True
                    if env.now > start:
                        run.play_one()
                    break
                run.play_one()
        finally:
            self._player = None
        return run.result(), interrupted

    def _commit(self, patron: str, r: PlayResult) -> None:
        if r.games == 0:
            return
        locked = int(r.stop in (Stop.JACKPOT, Stop.PROGRESSIVE))
        hidden = min(r.won, self.accounts.credits + r.won - r.wagered)  # books stay >= 0
        if hidden > 0 and r.games_won - locked > 0 and self.take(Misconduct.SECONDARY_DECISION):
            # injected: after the outcome was selected, a winning game is shown as a loss
            r = replace(r, won=r.won - hidden, games_won=r.games_won - 1)
        elif hidden > 1 and self.take(Misconduct.SHORTENED_WIN):
            # injected: a selected win is shown, but smaller (as many games won)
            r = replace(r, won=r.won - hidden // 2)
        if self.adaptive is not None:
            self.adaptive.observe(r.games, r.wagered, r.won + r.lock_win)
        lacking = r.wagered - r.won - self.accounts.credits
        if lacking > 0:
            # the credit meter was wound back under this stretch (an injection): the games
            # were played, and the meter cannot show fewer than zero credits after them
            self.accounts.tamper_meter(MeterCode.CURRENT_CREDITS, lacking)
        self.accounts.record_play(r.games, r.wagered, r.won, r.games_won)
        bet_units = r.wagered // (r.games * self.game.cost)
        level = self.by_bet.setdefault(bet_units, [0, 0])
        level[0] += r.games
        if r.tally is not None:
            self._merge_tally(r.tally)
            level[1] += r.tally.won  # the selected outcomes, whatever the display showed
        if self.link is not None:
            self.link.contribute(r.wagered * self.spec.denomination_cents)
        self.world.bus.emit(
            GamesPlayed,
            machine=self.id,
            patron=patron,
            games=r.games,
            bet_units=bet_units,
            wagered=r.wagered,
            won=r.won,
            games_won=r.games_won,
            free_games=r.free_games,
            credits=self.accounts.credits,
            stop=r.stop.value,
        )

    def _merge_tally(self, st: StretchTally) -> None:
        t = self.tally
        t.add_stop_counts(st)
        t.add_classes(st)
        t.transitions += st.transitions
        t.won += st.won
        t.credits += st.credits
        if st.first_won >= 0:
            if t.last_won >= 0:
                t.transitions[2 * t.last_won + st.first_won] += 1
            if t.first_won < 0:
                t.first_won = st.first_won
            t.last_won = st.last_won


def _games_before(now: float, until: float, pace: float) -> int:
    """How many games of ``pace`` seconds end by ``until``."""
    if until <= now:
        return 0
    return math.floor((until - now) / pace)


def _games_started(t0: float, now: float, pace: float, limit: int) -> int:
    """Games (starting at t0, t0+pace, ...) that started strictly before ``now``."""
    g = max(0, min(limit, math.ceil((now - t0) / pace)))
    while g > 0 and t0 + (g - 1) * pace >= now:
        g -= 1
    while g < limit and t0 + g * pace < now:
        g += 1
    return g
