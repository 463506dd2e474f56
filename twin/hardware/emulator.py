"""A SMIB emulator: the twin's machine model behind a SMIB that speaks the link protocol.

The machine is :class:`twin.machines.accounting.SlotAccounts` (SAS meters, credit meter,
hopper, doors) played by :class:`twin.machines.engine.PerSpinEngine` on a PAR sheet (or, for a
game without free spins, by the batched engine on a tape of the same generator: the same
games, drawn from the same uniforms in the same order, at about half the cost). Each
activity (a bill, a stretch of games, a cash out, a door, a meter reset) is one event with
a persistent ``eid`` and the meter increments it caused; ``bd``, ``eid``, ``epoch`` and the
events it can still replay survive a restart when the emulator is given a state file.

It answers ``down/cmd`` (``rebirth``, ``replay_events``, ``read_meters``, ``ping``,
``enable``/``disable``; idempotent by ``cmd_id``; ``expired`` after ``expires``) and can
misbehave on purpose (:mod:`twin.hardware.misbehaviour`): drop, duplicate, hold back or delay
messages, reset its meters, die (the broker publishes its will), hold few events, handle
commands late, come back from a backup, forge an event. Its truth log
(:mod:`twin.hardware.truth`) says what it created. A bench of them: :mod:`twin.hardware.bench`.

Its MQTT side (memory, connection, messages, commands) is :class:`twin.hardware.board.SmibBoard`,
shared with the SAS bridge; this module adds the machine, its activities and bench commands.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import numpy as np

from twin.hardware import protocol as p
from twin.hardware.board import Identity as Identity  # re-exported
from twin.hardware.board import Memory as Memory  # re-exported
from twin.hardware.board import SmibBoard
from twin.hardware.link import Broker
from twin.hardware.misbehaviour import Misbehaviour as Misbehaviour  # re-exported
from twin.hardware.truth import TruthLog
from twin.machines.accounting import SlotAccounts
from twin.machines.engine import (
    BatchedEngine,
    PerSpinEngine,
    PlayRequest,
    PlayResult,
    Stop,
    UniformTape,
)
from twin.machines.par import Game
from twin.machines.sas import Door, ExceptionCode, MeterCode

log = logging.getLogger("twin.hardware.emulator")

#: Real-time event codes the emulator reports besides the SAS general exceptions.
BILL_ACCEPTED = 0x4F
CASH_OUT = 0x66
METERS_RESET = 0x7A
GAME_ENDED = 0x7F
QUEUE_OVERFLOW = 0x70
#: Codes of the emulator's own (twin-defined) real-time events for bench activities.
COINS_ACCEPTED = 0x4E
HOPPER_FILLED = 0x6B
BILLS_CENTS = (500, 1000, 2000, 5000)
#: the name of each meter in messages and state files
_METER_NAMES = {code: code.name.lower() for code in MeterCode}


class SmibEmulator(SmibBoard):
    """One emulated SMIB and its machine; thread-safe (activities from any thread)."""

    def __init__(
        self,
        smib: str,
        broker: Broker,
        password: str,
        game: Game,
        *,
        serial: str = "",
        program: str | None = None,
        denom_cents: int = 25,
        digits: int = 8,
        seed: int = 0,
        memory: Memory | None = None,
        keep_events: int = 10_000,
        misbehave: Misbehaviour | None = None,
        keepalive: int = 2,
        truth: TruthLog | Path | None = None,
    ) -> None:
        super().__init__(
            smib, broker, password, memory=memory, keep_events=keep_events,
            misbehave=misbehave, keepalive=keepalive, truth=truth, seed=seed,
        )  # fmt: skip
        self.game = game
        self._seed = seed
        self.identity = Identity(
            serial or f"SN-{smib}", program or game.signature, denom_cents, game.id
        )
        self.digits = digits
        self.rng = np.random.default_rng(seed)
        self.engine = PerSpinEngine(game)
        # without free spins the feature stream is never drawn, so the batched engine on a
        # tape of the generator plays exactly the per-spin engine's games (the engines'
        # contract, tests/test_engine.py); a feature would interleave the draws differently
        self._batched = BatchedEngine(game) if not game.has_free_spins else None
        self._tape = UniformTape(self.rng, block=1024)
        self.machine = self._new_machine()
        self._restore(self.memory.machine)
        self.enabled = True

    def _new_machine(self) -> SlotAccounts:
        return SlotAccounts(
            denomination_cents=self.identity.denom_cents,
            hopper_capacity=2_000,
            hopper_level=1_000,
            meter_digits=self.digits,
            bill_denominations_cents=BILLS_CENTS,
        )

    def _restore(self, saved: dict[str, int]) -> None:
        """Put back the machine's meters, bills and hopper as the state file kept them."""
        m = self.machine
        for name, value in saved.items():
            if name == "hopper_level":
                m.hopper_level = value
            elif name.startswith("bills_"):
                m.bills[int(name.removeprefix("bills_"))] = value
            else:
                m.meters[MeterCode[name.upper()]] = value

    def _keep(self, raw: dict[str, int] | None = None) -> None:
        """Keep the machine's meters (``raw``: :meth:`_raw` as it stands) in the memory."""
        raw = self._raw() if raw is None else raw
        self.memory.machine = {**raw, "hopper_level": self.machine.hopper_level}
        self.memory.save()

    # -- connection --------------------------------------------------------------------------

    def restored(self, memory: Memory) -> SmibEmulator:
        """The same board (id, credentials, machine, switches, truth log) on ``memory``, not
        started: a board whose state was restored from a backup."""
        i = self.identity
        emu = SmibEmulator(
            self.smib, self.broker, self._password, self.game, serial=i.serial,
            program=i.program, denom_cents=i.denom_cents, digits=self.digits, seed=self._seed,
            memory=memory, keep_events=self.keep_events, misbehave=self.misbehave,
            keepalive=self._keepalive, truth=self.truth,
        )  # fmt: skip
        emu._own_truth, self._own_truth = self._own_truth, False
        emu.sent.update(self.sent)
        emu.dropped.update(self.dropped)
        return emu

    def regress(self, backup: Memory) -> SmibEmulator:
        """The board loses power (no clean disconnect: the will fires), its non-volatile
        state is replaced by ``backup`` (and saved to its state file, if it has one): the
        board that comes back, to be started (its bd is ``backup.bd + 1``, its next event
        ``backup.eid + 1``)."""
        with self._lock:
            from_eid = self.memory.eid
            self.die()
            memory = backup.backup()
            memory.path = self.memory.path
            memory.save()
            if self.truth is not None:
                self.truth.restore(self.smib, from_eid, memory.eid, memory.bd + 1)
        return self.restored(memory)

    # -- what it sends ---------------------------------------------------------------------------

    def _meter_values(self) -> dict[str, int]:
        return self.machine.readings()

    def _raw(self) -> dict[str, int]:
        out = {_METER_NAMES[code]: v for code, v in self.machine.meters.items()}
        out.update({f"bills_{c}": n for c, n in self.machine.bills.items()})
        return out

    def _event(
        self, code: int, name: str, before: dict[str, int], data: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        after = self._raw()
        deltas = {k: v - before.get(k, 0) for k, v in after.items() if v != before.get(k, 0)}
        deltas = {k: v for k, v in deltas.items() if v > 0}
        kept = {**after, "hopper_level": self.machine.hopper_level}
        return self._emit(code, name, deltas, data or {}, kept)

    def phantom(self, nbytes: int) -> dict[str, Any]:
        """A forged, schema-valid ``slot_door_opened`` event under the next eid, its payload
        about ``nbytes`` bytes (padded in ``data.pad``; never less than the event needs). The
        SMIB's eid does not move (its next real event reuses this eid) and the forgery is
        not kept for replay."""
        with self._lock:
            code = ExceptionCode.SLOT_DOOR_OPENED
            evt: dict[str, Any] = {
                "eid": self.memory.eid + 1,
                "code": int(code),
                "name": code.name.lower(),
                "epoch": self.memory.epoch,
                "deltas": {},
                "data": {"pad": ""},
            }
            body = self._stamp(evt)
            pad = max(0, nbytes - len(p.encode(body)))
            evt["data"] = body["data"] = {"pad": "x" * pad}
            if self.truth is not None:
                self.truth.event(self.smib, self.memory.bd, evt, phantom=True)
            # QoS 0: once; a broker cuts a SMIB off for a packet this large, and paho resends QoS 1
            self.client.publish(p.up_topic(self.smib, "evt"), p.encode(body), qos=0)
            self.sent["evt"] += 1
            return evt

    # -- the machine's activities ----------------------------------------------------------------

    def insert_bill(self, cents: int, *, tag: dict[str, Any] | None = None) -> dict[str, Any]:
        with self._lock:
            before = self._raw()
            credits = self.machine.insert_bill(cents)
            short = min(self.misbehave.short_credit, credits)
            if short:  # the credit meter gets less than the bill is worth
                self.machine.tamper_meter(MeterCode.CURRENT_CREDITS, -short)
                credits -= short
            data = {"cents": cents, "credits": credits, **(tag or {})}
            return self._event(BILL_ACCEPTED, "bill_accepted", before, data)

    def insert_coins(self, coins: int, *, tag: dict[str, Any] | None = None) -> dict[str, Any]:
        with self._lock:
            before = self._raw()
            got = self.machine.insert_coins(coins)
            data = {"coins": coins, "to_hopper": got.to_hopper, "to_drop": got.to_drop}
            return self._event(COINS_ACCEPTED, "coins_accepted", before, {**data, **(tag or {})})

    def play(
        self, games: int, bet_units: int = 1, *, tag: dict[str, Any] | None = None
    ) -> dict[str, Any] | None:
        """Up to ``games`` games (fewer when the credits run out); one ``game_ended`` event."""
        with self._lock:
            if not self.enabled or not self.machine.play_enabled:
                return None
            req = PlayRequest(credits=self.machine.credits, bet_units=bet_units, max_games=games)
            r = self._stretch(req)
            if r.games == 0:
                return None
            return self.record_games(
                r.games, r.wagered, r.won, r.games_won, r.lock_win if r.stop in (
                    Stop.JACKPOT, Stop.PROGRESSIVE) else 0, tag=tag
            )  # fmt: skip

    def _stretch(self, req: PlayRequest) -> PlayResult:
        """A stretch of games on the machine's generator (every draw of it comes here)."""
        if self._batched is not None:
            return self._batched.play(req, self._tape, self._tape)
        return self.engine.play(req, self.rng, self.rng)

    def record_games(
        self,
        games: int,
        wagered: int,
        won: int,
        games_won: int,
        jackpot: int = 0,
        *,
        tag: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """A stretch of games whose outcome is given (a bench replaying recorded play)."""
        with self._lock:
            before = self._raw()
            self.machine.record_play(games, wagered, won, games_won)
            if jackpot > 0:
                self.machine.record_jackpot(jackpot)
            data = {
                "games": games,
                "wagered": wagered,
                "won": won,
                "games_won": games_won,
                "credits": self.machine.credits,
                **(tag or {}),
            }
            evt = self._event(GAME_ENDED, "game_ended", before, data)
            if self.misbehave.skew:  # the coin-in meter counts more than the games it says
                self.machine.tamper_meter(MeterCode.TOTAL_COIN_IN, self.misbehave.skew)
            return evt

    def cash_out(
        self, *, hopper_limit: int | None = None, tag: dict[str, Any] | None = None
    ) -> dict[str, Any] | None:
        """The credits paid by the hopper (up to ``hopper_limit``), the rest by hand."""
        with self._lock:
            credits = self.machine.credits
            if credits <= 0:
                return None
            before = self._raw()
            want = credits if hopper_limit is None else min(credits, hopper_limit)
            paid = self.machine.pay_from_hopper(want) if want > 0 else 0
            if paid < credits:
                self.machine.pay_by_hand(credits - paid)
            data = {"credits": credits, "hopper": paid, **(tag or {})}
            return self._event(CASH_OUT, "cash_out", before, data)

    def open_door(
        self, door: Door = Door.SLOT, *, tag: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        with self._lock:
            before = self._raw()
            self.machine.open_door(door)
            code = door.opened_code
            return self._event(int(code), code.name.lower(), before, dict(tag or {}))

    def close_door(
        self, door: Door = Door.SLOT, *, tag: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        with self._lock:
            before = self._raw()
            self.machine.close_door(door)
            code = door.closed_code
            return self._event(int(code), code.name.lower(), before, dict(tag or {}))

    def power_loss(self, *, tag: dict[str, Any] | None = None) -> dict[str, Any]:
        """AC power lost and applied again: games since power reset go to zero."""
        with self._lock:
            before = self._raw()
            self.machine.power_reset()
            code = ExceptionCode.AC_POWER_LOST
            self._event(int(code), code.name.lower(), before, dict(tag or {}))
            code = ExceptionCode.AC_POWER_APPLIED
            return self._event(int(code), code.name.lower(), self._raw(), dict(tag or {}))

    def fill_hopper(self, coins: int, *, tag: dict[str, Any] | None = None) -> dict[str, Any]:
        with self._lock:
            before = self._raw()
            coins = min(coins, self.machine.hopper_capacity - self.machine.hopper_level)
            if coins > 0:
                self.machine.fill_hopper(coins)
            data = {"coins": coins, "hopper_level": self.machine.hopper_level, **(tag or {})}
            return self._event(HOPPER_FILLED, "hopper_filled", before, data)

    def tilt(self, code: ExceptionCode = ExceptionCode.GENERAL_TILT) -> dict[str, Any]:
        with self._lock:
            return self._event(int(code), code.name.lower(), self._raw())

    def skew_meter(self, meter: str, delta: int) -> None:
        """A meter moved with no event behind it (reconciliation must catch it)."""
        with self._lock:
            self.machine.tamper_meter(MeterCode[meter.upper()], delta)

    def preset_meters(self, values: dict[str, int]) -> None:
        """Start the meters at these raw values (a machine near its rollover)."""
        with self._lock:
            for name, value in values.items():
                self.machine.meters[MeterCode[name.upper()]] = value

    def overflow_queue(self, games: int) -> dict[str, Any] | None:
        """Games whose events the machine's full exception queue dropped (the meters still
        count them), then the SAS 0x70 exception that says so."""
        with self._lock:
            req = PlayRequest(credits=self.machine.credits, bet_units=1, max_games=games)
            r = self._stretch(req)
            if r.games:
                self.machine.record_play(r.games, r.wagered, r.won, r.games_won)
            return self._event(QUEUE_OVERFLOW, "exception_queue_overflow", self._raw())

    def reset_meters(self) -> dict[str, Any]:
        """RAM clear: every meter to zero in a new epoch (``meters_reset`` event, then meters)."""
        with self._lock:
            self.memory.epoch += 1
            self.machine = self._new_machine()
            evt = self._event(METERS_RESET, "meters_reset", self._raw())
            self.send_meters()
            return evt

    # -- commands ---------------------------------------------------------------------------------

    def _set_play(self, enabled: bool) -> str | None:
        self.enabled = enabled
        return None

    # -- bench commands: the machine of a test bench acts (drive mode, procedure suites) -------

    def _bench(self, cmd_id: str, evt: dict[str, Any] | None, why: str) -> None:
        """Answer a bench command: ``completed`` with the event it caused, or ``rejected``."""
        if evt is None:
            self._result(cmd_id, "rejected", why)
            return
        body = {"eid": evt["eid"]}
        self.memory.done[cmd_id] = {"cmd_id": cmd_id, "result": "completed", "data": body}
        self._keep()
        self._result(cmd_id, "completed", data=body)

    @staticmethod
    def _tag(cmd_id: str, args: dict[str, Any]) -> dict[str, Any]:
        tag: dict[str, Any] = {"cmd_id": cmd_id}
        for key in ("staff", "witness"):
            if args.get(key):
                tag[key] = args[key]
        return tag

    def _cmd_credit_in(self, cmd_id: str, args: dict[str, Any]) -> None:
        tag = self._tag(cmd_id, args)
        if not self.enabled:
            self._bench(cmd_id, None, "disabled")
        elif "cents" in args:
            if args["cents"] not in self.machine.bill_denominations_cents:
                self._bench(cmd_id, None, f"bill {args['cents']} not accepted")
            else:
                self._bench(cmd_id, self.insert_bill(args["cents"], tag=tag), "")
        else:
            self._bench(cmd_id, self.insert_coins(args["coins"], tag=tag), "")

    def _cmd_play(self, cmd_id: str, args: dict[str, Any]) -> None:
        evt = self.play(args["games"], args.get("bet_units", 1), tag=self._tag(cmd_id, args))
        self._bench(cmd_id, evt, "cannot play (disabled, a door open, or no credits)")

    def _cmd_cash_out(self, cmd_id: str, args: dict[str, Any]) -> None:
        evt = self.cash_out(hopper_limit=args.get("limit"), tag=self._tag(cmd_id, args))
        self._bench(cmd_id, evt, "no credits")

    def _cmd_open_door(self, cmd_id: str, args: dict[str, Any]) -> None:
        door = Door[args["door"].upper()]
        self._bench(cmd_id, self.open_door(door, tag=self._tag(cmd_id, args)), "")

    def _cmd_close_door(self, cmd_id: str, args: dict[str, Any]) -> None:
        door = Door[args["door"].upper()]
        self._bench(cmd_id, self.close_door(door, tag=self._tag(cmd_id, args)), "")

    def _cmd_power_loss(self, cmd_id: str, args: dict[str, Any]) -> None:
        self._bench(cmd_id, self.power_loss(tag=self._tag(cmd_id, args)), "")

    def _cmd_fill_hopper(self, cmd_id: str, args: dict[str, Any]) -> None:
        self._bench(cmd_id, self.fill_hopper(args["coins"], tag=self._tag(cmd_id, args)), "")
