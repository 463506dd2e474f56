"""``twin sas serve``: a twin machine, played like a patron, answering SAS on a serial line.

The machine is :class:`twin.machines.accounting.SlotAccounts` played by
:class:`twin.machines.engine.PerSpinEngine` on a PAR sheet (the activity of
:func:`twin.hardware.bench.play_like_a_patron`, without a SMIB: a bill when the credits are
under 20, a cash out one time in ten, else a stretch of 1 to 20 games), behind the
protocol core's :class:`~twin.hardware.sas.gaming.SasGamingMachine` (:func:`make_machine`).
The play and the line each run in a thread; the accounts are only touched under one lock,
which the gaming machine is given too, so a poll reads the meters between activities.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import numpy as np

from twin.hardware.sas.gaming import SasGamingMachine
from twin.hardware.sas.line import LineStats, Responder, SasLine, Wire
from twin.machines.accounting import SlotAccounts
from twin.machines.engine import PerSpinEngine, PlayRequest, Stop
from twin.machines.par import Game

#: bills the patron feeds (cents), as the SMIB emulator's
BILLS_CENTS = (500, 1000, 2000, 5000)

#: ``on_event(kind, data)``: after each activity ("bill_accepted", "game_ended", "cash_out")
EventHook = Callable[[str, dict[str, int]], None]


def new_accounts(denom_cents: int = 25, digits: int = 8) -> SlotAccounts:
    """A machine's accounts as the SMIB emulator makes them (hopper 1,000 of 2,000 coins)."""
    return SlotAccounts(
        denomination_cents=denom_cents,
        hopper_capacity=2_000,
        hopper_level=1_000,
        meter_digits=digits,
        bill_denominations_cents=BILLS_CENTS,
    )


class Patron:
    """Plays ``accounts`` like a patron, one activity per :meth:`act`, under ``lock``."""

    def __init__(
        self,
        accounts: SlotAccounts,
        game: Game,
        *,
        seed: int = 1,
        lock: threading.Lock | threading.RLock | None = None,
        on_event: EventHook | None = None,
    ) -> None:
        self.accounts = accounts
        self.engine = PerSpinEngine(game)
        self.rng = np.random.default_rng(seed)
        self.lock = lock if lock is not None else threading.RLock()
        self.on_event = on_event
        self.activities = 0

    def act(self) -> str | None:
        """One activity; its kind, or None when nothing could be done (play disabled)."""
        with self.lock:
            kind, data = self._act()
        if kind is not None:
            self.activities += 1
            if self.on_event is not None:
                self.on_event(kind, data)
        return kind

    def _act(self) -> tuple[str | None, dict[str, int]]:
        m = self.accounts
        if m.credits < 20:
            cents = int(self.rng.choice(BILLS_CENTS))
            return "bill_accepted", {"cents": cents, "credits": m.insert_bill(cents)}
        if self.rng.random() < 0.1:
            credits = m.credits
            paid = m.pay_from_hopper(min(credits, m.hopper_level))
            if paid < credits:
                m.pay_by_hand(credits - paid)
            return "cash_out", {"credits": credits, "hopper": paid}
        if not m.play_enabled:
            return None, {}
        req = PlayRequest(credits=m.credits, bet_units=1, max_games=int(self.rng.integers(1, 21)))
        r = self.engine.play(req, self.rng, self.rng)
        if r.games == 0:
            return None, {}
        m.record_play(r.games, r.wagered, r.won, r.games_won)
        jackpot = r.lock_win if r.stop in (Stop.JACKPOT, Stop.PROGRESSIVE) else 0
        if jackpot > 0:
            m.record_jackpot(jackpot)
        return "game_ended", {
            "games": r.games,
            "wagered": r.wagered,
            "won": r.won,
            "jackpot": jackpot,
        }


def make_machine(
    accounts: SlotAccounts, *, address: int, game: Game, lock: threading.RLock
) -> tuple[Responder, EventHook | None]:
    """The protocol core's gaming machine over ``accounts`` running ``game``
    (``SasGamingMachine.for_game``: its program is the game's signature), sharing ``lock``
    with the patron, and what the patron tells it after each activity (its
    ``on_activity``: a bill raises its bill accepted exception)."""
    machine = SasGamingMachine.for_game(accounts, game, address=address, lock=lock)
    return machine, machine.on_activity


def serve(
    wire: Wire,
    responder: Responder,
    stop: threading.Event,
    *,
    patron: Patron | None = None,
    rate: float = 5.0,
) -> tuple[SasLine, list[threading.Thread]]:
    """Start serving: the line in one thread, the patron (``rate`` activities a second;
    none when ``patron`` is None or ``rate`` is 0) in another, both until ``stop``. Returns
    the line (its ``stats``) and the threads to join."""
    line = SasLine(wire, responder)
    threads = [threading.Thread(target=line.run, args=(stop,), name="sas-line", daemon=True)]
    if patron is not None and rate > 0:
        threads.append(
            threading.Thread(
                target=_play, args=(patron, rate, stop), name="sas-patron", daemon=True
            )
        )
    for t in threads:
        t.start()
    return line, threads


def _play(patron: Patron, rate: float, stop: threading.Event) -> None:
    period = 1.0 / rate
    while not stop.wait(period):
        patron.act()


def finish(stop: threading.Event, threads: list[threading.Thread], line: SasLine) -> LineStats:
    """Stop serving and wait for the threads; the line's statistics."""
    stop.set()
    for t in threads:
        t.join(timeout=5)
    return line.stats
