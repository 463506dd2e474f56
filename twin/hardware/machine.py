"""Hardware-backed machines: a machine on the floor whose play happens on a real (or
emulated) machine behind a SMIB.

A scenario binds a machine id to a SMIB id (``[[hardware]]``); the casino then builds a
:class:`HardwareMachine` for it instead of a simulated one (:class:`HardwareFloor`). The
link's messages reach it only through the inbox and the :class:`~twin.hardware.book.SmibBook`,
in the simulation thread. Two modes:

* **mirror**: real people play the machine; it is not offered to simulated patrons. Every
  SMIB event becomes the record a simulated machine writes for the same activity
  (``bill_accepted``, ``games_played``, ``cashed_out``, ``hand_paid``, ``machine_exception``,
  ``hopper_filled``, ``meters_read`` ...), so every control runs on the real machine's data.
* **drive**: on a test bench, simulated patrons play the real machine through the SMIB's
  bench commands (``credit_in``, ``play``, ``cash_out``); the machine writes the same records
  from what the SMIB reports and checks it against the commands and the PAR sheet (finding
  ``HW.drive`` for a report the commands do not imply, ``HW.par`` for a return the PAR sheet
  makes implausible).

Meters of a hardware machine count from its first snapshot in the run (the baseline), as a
simulated machine's count from its installation; the reading it reports is the SMIB's
reading less the baseline, modulo the meter width.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Protocol

import simpy

from twin.hardware.book import (
    Birth,
    Event,
    LinkCommand,
    Meters,
    Registered,
    Result,
    SmibBook,
)
from twin.hardware.findings import CATALOG, emit
from twin.hardware.loop import SasFeed, SasLoop, SasView
from twin.hardware.records import SmibEvent, SmibMeters, SmibOnline
from twin.inbox import Envelope
from twin.machines.accounting import SlotAccounts
from twin.machines.analysis import Analysis, analyse
from twin.machines.events import (
    BillAccepted,
    CashedOut,
    CoinsAccepted,
    GamesPlayed,
    HandPaid,
    HopperFilled,
    HopperPaid,
    MachineException,
    MachineInstalled,
    MachineLocked,
    MetersRead,
    TiltRepaired,
)
from twin.machines.sas import ExceptionCode
from twin.machines.spec import MachineSpec
from twin.records import Record
from twin.world import World, quantize

Mode = Literal["mirror", "drive"]

#: Event codes of the link protocol (docs/smib-protocol.md) that carry money.
BILL_ACCEPTED = 0x4F
COINS_ACCEPTED = 0x4E
CASH_OUT = 0x66
GAME_ENDED = 0x7F
HOPPER_FILLED = 0x6B
_EXCEPTIONS = frozenset(int(c) for c in ExceptionCode)
#: Meters that restart at an event (not cumulative): after it, the SMIB's reading is the
#: run's own, with no baseline to take off.
_RESTARTS = {
    int(ExceptionCode.SLOT_DOOR_CLOSED): "games_since_door_closed",
    int(ExceptionCode.AC_POWER_LOST): "games_since_power_reset",
}

#: Games a simulated patron asks the real machine to play per ``play`` command (drive).
STRETCH_GAMES = 10
#: Seconds (simulated = wall, the run is paced) a drive command waits for its answer before
#: it is interrogated (sent again under its own cmd_id), and how many times.
ANSWER_SECONDS = 5.0
INTERROGATIONS = 3
#: The hardware findings only a machine in drive mode can give.
DRIVE_ONLY = frozenset({"HW.drive", "HW.par"})
#: Findings of the SAS loop (``[[sas]]``), checked only when a machine is on a SAS line.
SAS_ONLY = frozenset(
    {"HW.sas_lost", "HW.sas_misreported", "HW.sas_meters", "HW.sas_late",
     "HW.sas_queue_overflow", "HW.sas_link_lost", "HW.sas_line"}
)  # fmt: skip


class Served(Protocol):
    """A simulated machine on a SAS line (``twin.machines.machine.SlotMachine``)."""

    @property
    def spec(self) -> MachineSpec: ...

    @property
    def accounts(self) -> SlotAccounts: ...


#: |z| of the return over a drive run against the PAR sheet beyond which HW.par is reported.
PAR_Z = 4.0


@dataclass(frozen=True, slots=True)
class Binding:
    """``[[hardware]]``: machine ``machine`` is the one behind SMIB ``smib``."""

    machine: str
    smib: str
    mode: Mode = "mirror"
    serial: str | None = None  # the registered serial, when not the floor's own


class Sender(Protocol):
    """Sends commands down to SMIBs (the link); any thread."""

    def command(
        self, smib: str, cmd: str, args: Mapping[str, Any], why: str, *, cmd_id: str | None = None
    ) -> str: ...


@dataclass
class _Credits:
    """The credit meter as the twin knows it (drive: what the commands imply)."""

    credits: int = 0


@dataclass
class _Pending:
    """A drive command on its way: answered by its event (or refused by its result)."""

    cmd: str
    args: dict[str, Any]
    cmd_id: str
    done: simpy.Event
    eid: int | None = None  # the event it caused, once the SMIB says so
    sent: int = 1


@dataclass
class _Totals:
    games: int = 0
    wagered: int = 0
    won: int = 0
    var_units: float = 0.0  # sum of the squared wagers (in units of the bet) of each game
    evidence: list[int] = field(default_factory=list)


class HardwareMachine:
    """A machine on the floor played on real hardware (see the module docstring)."""

    def __init__(self, world: World, spec: MachineSpec, binding: Binding, hw: HardwareFloor):
        self.world = world
        self.env = world.env
        self.spec = spec
        self.id = spec.id
        self.binding = binding
        self.smib = binding.smib
        self.mode: Mode = binding.mode
        self.hw = hw
        self.patron: str | None = None
        self.accounts = _Credits()
        self.serial = spec.serial
        self.program = spec.game.signature
        self.online = False
        self.hopper_level = 0
        self.digits = spec.meter_digits
        self._baseline: dict[str, int] | None = None
        self._epoch: int | None = None
        self._pending: dict[str, _Pending] = {}
        self._by_eid: dict[int, _Pending] = {}
        self._inflight: list[_Pending] = []
        self._totals = _Totals()
        self._analysis: Analysis | None = None
        self._reported_credits: int | None = None
        self._power_lost_at: float | None = None

    # -- the Machine protocol --------------------------------------------------------------------

    @property
    def available(self) -> bool:
        """Drive: working while its SMIB is online; mirror machines are never offered."""
        return self.mode == "drive" and self.hw.book.stats[self.smib].online

    def insert_coins(self, patron: str, coins: int) -> None:
        self._send_money(patron, "credit_in", {"coins": coins})
        self.accounts.credits += coins

    def insert_bill(self, patron: str, cents: int) -> None:
        self._send_money(patron, "credit_in", {"cents": cents})
        self.accounts.credits += cents // self.spec.denomination_cents

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
        """Play the real machine in stretches of ``play`` commands, then cash out."""
        env = self.env
        bet_units = max(1, min(bet_units, self.spec.max_bet_units))
        cost = self.spec.game.cost * bet_units
        for p in list(self._inflight):
            yield from self._wait(p)
        self._inflight.clear()
        while True:
            credits = self.accounts.credits
            if credits < cost or not floor_credits < credits < goal_credits:
                break
            games = min(STRETCH_GAMES, math.floor((until - env.now) / pace), credits // cost)
            if games <= 0:
                break
            t0 = env.now
            p = self._send_money(patron, "play", {"games": games, "bet_units": bet_units})
            ok = yield from self._wait(p)
            if not ok:
                break
            rest = quantize(t0 + games * pace - env.now)
            if rest > 0:
                yield env.timeout(rest)
        if self.accounts.credits <= 0:
            return 0
        paid = self.accounts.credits
        p = self._send_money(patron, "cash_out", {})
        ok = yield from self._wait(p)
        return paid if ok else 0

    # -- drive: commands ---------------------------------------------------------------------------

    def _send_money(self, patron: str, cmd: str, args: dict[str, Any]) -> _Pending:
        sender = self.hw.sender
        if sender is None:
            raise RuntimeError(f"machine {self.id} drives SMIB {self.smib} but has no link")
        cmd_id = sender.command(self.smib, cmd, args, f"drive: patron {patron} on {self.id}")
        p = _Pending(cmd, args, cmd_id, self.env.event())
        self._pending[cmd_id] = p
        if cmd == "credit_in":
            self._inflight.append(p)
        return p

    def _wait(self, p: _Pending) -> Generator[simpy.events.Event, Any, bool]:
        """Until ``p`` is answered; silence is interrogated (same cmd_id), then reported."""
        env = self.env
        while not p.done.triggered:
            yield p.done | env.timeout(ANSWER_SECONDS)
            if p.done.triggered:
                break
            if p.sent > INTERROGATIONS:
                self._pending.pop(p.cmd_id, None)
                self._finding(
                    "HW.drive",
                    f"SMIB {self.smib} never answered {p.cmd} {json.dumps(p.args)} "
                    f"({p.cmd_id}, asked {p.sent} times): whether it was applied is unknown",
                    (),
                )
                return False
            sender = self.hw.sender
            assert sender is not None
            p.sent += 1
            sender.command(self.smib, p.cmd, p.args, "interrogate: no answer", cmd_id=p.cmd_id)
        return bool(p.done.value)

    def on_result(self, r: Result) -> None:
        p = self._pending.get(r.cmd_id)
        if p is None:
            return
        data = json.loads(r.data)
        if r.result in ("completed", "duplicate") and isinstance(data.get("eid"), int):
            p.eid = data["eid"]
            self._by_eid[p.eid] = p
            if r.result == "duplicate" and p.eid <= self._last_eid:
                self._resolve(p, True)  # its event was applied already: once
            return
        if r.result in ("rejected", "failed", "expired"):
            self._pending.pop(r.cmd_id, None)
            if p.cmd == "credit_in":  # no money went in
                self.accounts.credits -= self._credit_of(p.args)
            self._resolve(p, False)

    _last_eid = 0

    def _resolve(self, p: _Pending, ok: bool) -> None:
        self._pending.pop(p.cmd_id, None)
        if p.eid is not None:
            self._by_eid.pop(p.eid, None)
        if not p.done.triggered:
            p.done.succeed(ok)

    def _credit_of(self, args: Mapping[str, Any]) -> int:
        if "cents" in args:
            return int(args["cents"]) // self.spec.denomination_cents
        return int(args.get("coins", 0))

    # -- what the SMIB reports (simulation thread, from the book) ----------------------------------

    def install(self) -> None:
        s = self.spec
        self.emit(
            MachineInstalled,
            bank=s.bank,
            zone=s.zone,
            game_id=s.game.id,
            game_signature=s.game.signature,
            denomination_cents=s.denomination_cents,
            max_bet_units=s.max_bet_units,
            registration=s.registration,
            serial=s.serial,
            hopper_coins=0,
            progressive=s.progressive or "",
            meter_digits=s.meter_digits,
            manufacturer=s.manufacturer,
            model=s.model,
            manufactured=s.manufactured,
            certified_min_payout_bp=s.certified_min_payout_bp,
            certificate=s.certificate.particulars() if s.certificate is not None else (),
            paytable_displayed=s.paytable_displayed,
            promotional=s.promotional,
            asset_number=s.asset_number,
            bill_denominations_cents=s.bill_denominations_cents if s.bill_acceptor else (),
        )

    def emit(self, cls: type[Record], **fields: Any) -> Record:
        return self.world.bus.emit(cls, machine=self.id, **fields)

    def on_birth(self, b: Birth, rec: SmibOnline) -> None:
        self.online = True
        self.serial, self.program = b.serial, b.program

    def on_event(self, e: Event, rec: SmibEvent) -> None:
        self._last_eid = max(self._last_eid, e.eid)
        data: dict[str, Any] = json.loads(e.data)
        d = dict(e.deltas)
        who = (self.patron or "") if self.mode == "drive" else ""
        staff, witness = str(data.get("staff", "")), str(data.get("witness", ""))
        denom = self.spec.denomination_cents
        if e.code == BILL_ACCEPTED:
            credits = int(data.get("credits", d.get("bill_credits", 0)))
            self.emit(BillAccepted, patron=who, bill_cents=int(data.get("cents", 0)),
                      credits=credits)  # fmt: skip
        elif e.code == COINS_ACCEPTED:
            to_drop = int(data.get("to_drop", 0))
            to_hopper = int(data.get("to_hopper", 0))
            self.hopper_level += to_hopper
            self.emit(CoinsAccepted, patron=who, coins=to_hopper + to_drop, to_hopper=to_hopper,
                      to_drop=to_drop)  # fmt: skip
        elif e.code == GAME_ENDED:
            self._games(e, rec, d, data, who)
        elif e.code == CASH_OUT:
            credits = int(data.get("credits", 0))
            hopper = int(data.get("hopper", d.get("hopper_paid_credits", 0)))
            by_hand = credits - hopper
            self.hopper_level = max(0, self.hopper_level - hopper)
            self.emit(HopperPaid, patron=who, coins=hopper, requested=hopper,
                      hopper_level=self.hopper_level)  # fmt: skip
            if by_hand > 0:
                self.emit(HandPaid, patron=who, reason="credit_payout", credits=by_hand,
                          cents=by_hand * denom, attendant=staff, inspector=witness,
                          requested_t=self.env.now)  # fmt: skip
            self.emit(CashedOut, patron=who, credits=credits, hopper_coins=hopper,
                      hand_paid=by_hand, short_paid=0)  # fmt: skip
        elif e.code == HOPPER_FILLED:
            coins = int(data.get("coins", 0))
            self.hopper_level = int(data.get("hopper_level", self.hopper_level + coins))
            self.emit(HopperFilled, patron="", reason="bench", coins=coins,
                      certified_coins=coins, hopper_level=self.hopper_level, attendant=staff,
                      inspector=witness, requested_t=self.env.now)  # fmt: skip
        elif e.code in _EXCEPTIONS:
            self.emit(MachineException, patron=who, staff=staff, code=e.code,
                      name=ExceptionCode(e.code).name.lower())  # fmt: skip
            if e.code == ExceptionCode.AC_POWER_LOST:
                self._power_lost_at = self.env.now
            elif e.code == ExceptionCode.AC_POWER_APPLIED and self._power_lost_at is not None:
                # power back: the tilt of the power loss is cleared (as a repair clears it)
                lost = ExceptionCode.AC_POWER_LOST
                self.emit(TiltRepaired, code=int(lost), name=lost.name.lower(), technician=staff,
                          requested_t=self._power_lost_at)  # fmt: skip
                self._power_lost_at = None
            restarts = _RESTARTS.get(e.code)
            if restarts is not None and self._baseline is not None:
                self._baseline[restarts] = 0  # the meter restarted here: no baseline left
        if self.mode == "drive":
            self._check_drive(e, rec, d, data)

    def _games(
        self, e: Event, rec: SmibEvent, d: dict[str, int], data: dict[str, Any], who: str
    ) -> None:
        games = d.get("games_played", int(data.get("games", 0)))
        wagered = d.get("total_coin_in", 0)
        won = d.get("total_coin_out", 0)
        games_won = d.get("games_won", 0)
        cost = self.spec.game.cost
        bet_units = max(1, wagered // max(1, games * cost))
        self.emit(GamesPlayed, patron=who, games=games, bet_units=bet_units, wagered=wagered,
                  won=won, games_won=games_won, free_games=0,
                  credits=int(data.get("credits", 0)), stop="smib")  # fmt: skip
        jackpot = d.get("total_jackpot", 0)
        if jackpot:
            staff, witness = str(data.get("staff", "")), str(data.get("witness", ""))
            cents = jackpot * self.spec.denomination_cents
            self.emit(MachineLocked, patron=who, reason="jackpot", win=jackpot, prize_cents=cents)
            self.emit(HandPaid, patron=who, reason="jackpot", credits=jackpot, cents=cents,
                      attendant=staff, inspector=witness,
                      requested_t=self.env.now)  # fmt: skip
        t = self._totals
        t.games += games
        t.wagered += wagered
        t.won += won
        t.var_units += games * bet_units * bet_units
        t.evidence = [*t.evidence[-9:], rec.seq]

    def _check_drive(
        self, e: Event, rec: SmibEvent, d: dict[str, int], data: dict[str, Any]
    ) -> None:
        """What the SMIB reports against the command that caused it."""
        cmd_id = data.get("cmd_id")
        p = self._pending.get(cmd_id) if isinstance(cmd_id, str) else None
        if p is None:
            p = self._by_eid.get(e.eid)
        wrong: list[str] = []
        if p is not None and p.cmd == "credit_in":
            want = self._credit_of(p.args)
            got = int(data.get("credits", d.get("bill_credits", 0)))
            if "coins" in p.args:
                got = int(data.get("to_hopper", 0)) + int(data.get("to_drop", 0))
            if got != want:
                wrong.append(f"credit_in {json.dumps(p.args)} gave {got} credits, not {want}")
                self.accounts.credits += got - want
        elif p is not None and p.cmd == "play":
            games, bet = d.get("games_played", 0), int(p.args.get("bet_units", 1))
            wagered, won = d.get("total_coin_in", 0), d.get("total_coin_out", 0)
            if games > p.args["games"]:
                wrong.append(f"play asked {p.args['games']} games, the machine played {games}")
            if wagered != games * bet * self.spec.game.cost:
                wrong.append(
                    f"{games} games at {bet} units wager {games * bet * self.spec.game.cost} "
                    f"credits, the machine counted {wagered}"
                )
            top = games * bet * self.analysis.max_win
            if won > top:
                wrong.append(f"won {won} credits in {games} games; the PAR sheet's most is {top}")
            self.accounts.credits += won - wagered
        elif p is not None and p.cmd == "cash_out":
            credits = int(data.get("credits", 0))
            if credits != self.accounts.credits:
                wrong.append(
                    f"cashed out {credits} credits; the commands put {self.accounts.credits} there"
                )
            self.accounts.credits = 0
        reported = data.get("credits")
        playing = p is not None and p.cmd == "play"
        if playing and isinstance(reported, int) and reported != self.accounts.credits:
            wrong.append(
                f"the credit meter shows {reported}; the commands imply {self.accounts.credits}"
            )
            self.accounts.credits = reported
        if wrong:
            self._finding(
                "HW.drive",
                f"machine {self.id} (SMIB {self.smib}), event {e.eid}: " + "; ".join(wrong),
                (rec.seq,),
            )
        if p is not None:
            self._resolve(p, True)

    @property
    def analysis(self) -> Analysis:
        if self._analysis is None:
            self._analysis = analyse(self.spec.game)
        return self._analysis

    def on_meters(self, m: Meters, rec: SmibMeters) -> None:
        """A SMIB snapshot is the machine's meter reading (less the run's baseline)."""
        values = dict(m.values)
        width = 10**m.digits
        if self._baseline is None:
            self._baseline, self._epoch = values, m.epoch
        base = self._baseline
        meters = tuple(sorted((k, (v - base.get(k, 0)) % width) for k, v in values.items()))
        self.emit(
            MetersRead,
            meters=meters,
            hopper_level=self.hopper_level,
            registration=self.spec.registration,
            serial=self.serial,
            asset_number=self.spec.asset_number,
            program_signature=self.program,
        )

    def finish(self) -> None:
        """Drive: the return over the run against the PAR sheet (HW.par)."""
        t = self._totals
        if self.mode != "drive" or t.games == 0:
            return
        a = self.analysis
        rtp = float(a.line_return + a.scatter_return + a.feature_return + a.table_return)
        cost = self.spec.game.cost
        sd = math.sqrt(float(a.variance) * t.var_units) * cost
        z = (t.won - rtp * t.wagered) / sd if sd > 0 else 0.0
        if abs(z) > PAR_Z:
            self._finding(
                "HW.par",
                f"machine {self.id} (SMIB {self.smib}) returned {t.won} of {t.wagered} credits "
                f"over {t.games} games: {z:+.1f} standard deviations from its PAR sheet's "
                f"{rtp:.4f}",
                tuple(t.evidence),
                warning=True,
            )

    def _finding(
        self, control: str, message: str, evidence: tuple[int, ...], *, warning: bool = False
    ) -> None:
        emit(self.world, (self.id, self.smib), control, message, evidence, warning=warning)


class HardwareFloor:
    """The casino's hardware: the SMIB book, one machine per binding, the link to send on;
    and the simulated machines on SAS lines (``[[sas]]``, issue 30), each with the view its
    line answers from and the loop that checks what its SMIB reports (:mod:`twin.hardware.loop`)."""

    def __init__(
        self,
        world: World,
        specs: Mapping[str, MachineSpec],
        bindings: list[Binding],
        served: Mapping[str, Served] | None = None,
        sas: Sequence[Any] = (),
    ):
        self.world = world
        self.bindings = list(bindings)
        specs = {b.machine: _registered(specs[b.machine], b.serial) for b in bindings}
        registry = {
            b.smib: Registered(b.smib, b.machine, specs[b.machine].serial,
                               specs[b.machine].game.signature)
            for b in bindings
        }  # fmt: skip
        self.book = SmibBook(
            world.bus, registry, at=world.clock.iso, now=lambda: float(world.env.now)
        )
        self.machines = {
            b.smib: HardwareMachine(world, specs[b.machine], b, self) for b in bindings
        }
        for smib, m in self.machines.items():
            self.book.watchers[smib] = m
        #: the [[sas]] bindings (twin.slots.section.SasBinding) and their loops, by SMIB
        self.sas = list(sas)
        self.loops: dict[str, SasLoop] = {}
        served = served or {}
        for b in self.sas:
            sm = served[b.machine]
            spec = sm.spec
            self.book.registry[b.smib] = Registered(
                b.smib, b.machine, spec.serial, spec.game.signature, rom=True
            )
            view = SasView(
                b.machine, b.smib, sm.accounts, spec.game, serial=spec.serial,
                address=b.address, program=b.faults.tampered_program,
                now=lambda: float(world.env.now),
            )  # fmt: skip
            self.loops[b.smib] = loop = SasLoop(world, view, b.max_delay_s)
            self.book.watchers[b.smib] = loop
        self.registry = self.book.registry
        if self.loops:
            world.bus.attach(SasFeed({x.machine: x.view for x in self.loops.values()}))
        #: the link (set by whoever connects it: ``twin.api.run(hardware=...)``)
        self.sender: Sender | None = None
        #: called as the run ends, before the last messages are delivered (the link's
        #: owner asks for closing meters there and waits for them)
        self.on_closing: Callable[[], None] | None = None

    @property
    def smibs(self) -> list[str]:
        return [b.smib for b in self.bindings] + [b.smib for b in self.sas]

    def finding_controls(self) -> tuple[str, ...]:
        """The hardware findings (``HW.*``, :mod:`twin.hardware.findings`) this floor checks:
        the book's for every SMIB, the drive checks when a machine is in drive mode, the
        loop's when a machine is on a SAS line."""
        drive = any(b.mode == "drive" for b in self.bindings)
        return tuple(
            f.id
            for f in CATALOG
            if (drive or f.id not in DRIVE_ONLY) and (self.loops or f.id not in SAS_ONLY)
        )

    def on_floor(self) -> list[HardwareMachine]:
        """The machines simulated patrons may play (drive mode)."""
        return [m for m in self.machines.values() if m.mode == "drive"]

    def handle(self, envelope: Envelope) -> bool:
        """Apply a message of the link (True), or leave the envelope to the casino (False)."""
        if isinstance(envelope.command, LinkCommand):
            self.book.handle(envelope)
            return True
        return False

    def install(self) -> None:
        for m in self.machines.values():
            m.install()
        for b in self.sas:  # the faults' tilt storms, at their simulated time
            if b.faults.storm:
                view = self.loops[b.smib].view
                self.world.env.process(self._storm(view, b.faults.storm_at_s, b.faults.storm))

    def _storm(self, view: SasView, at: float, count: int) -> Generator[simpy.Event, Any, None]:
        yield self.world.env.timeout(at)
        view.storm(count)

    def closing(self) -> None:
        if self.on_closing is not None:
            self.on_closing()

    def finish(self) -> None:
        for m in self.machines.values():
            m.finish()
        for loop in self.loops.values():
            loop.finish()

    def ask_meters(self) -> None:
        """Ask every SMIB for its meters (a reading; the answer arrives through the inbox)."""
        if self.sender is None:
            return
        for smib in self.smibs:
            self.sender.command(smib, "read_meters", {}, "meter reading")


def _registered(spec: MachineSpec, serial: str | None) -> MachineSpec:
    """The spec of the machine a bench registered under its own serial (its manufacturer's
    certificate describes that serial)."""
    if not serial:
        return spec
    cert = spec.certificate
    return replace(spec, serial=serial, certificate=replace(cert, serial=serial) if cert else None)


def bindings_from(entries: Any) -> list[Binding]:
    """The scenario's ``[[hardware]]`` entries as bindings."""
    return [Binding(e.machine, e.smib, e.mode, e.serial) for e in entries]


__all__ = [
    "Binding",
    "HardwareFloor",
    "HardwareMachine",
    "Mode",
    "Sender",
    "bindings_from",
]
