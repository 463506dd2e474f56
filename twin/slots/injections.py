"""Violation injection: make a named thing go wrong, on purpose, to prove a control sees it.

A scenario's ``[[inject]]`` entries name a kind from ``INJECTIONS``, a target machine, a time
and kind-specific values. Each becomes an :class:`InjectViolation` command that enters the
world through the inbox like every other input from outside the model: ``static`` injections
change the floor before it opens (they take effect at install); the others are scheduled at
``at_hours``. Injections change the world — that is their point — while checkers only ever
observe it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Generator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import simpy

from twin.commands import Command, CommandAccepted, CommandRejected, command
from twin.errors import InputError
from twin.machines.misconduct import AWAITS, Misconduct
from twin.machines.par import load_game
from twin.machines.sas import Door, ExceptionCode, MeterCode
from twin.records import Record, record

if TYPE_CHECKING:
    from twin.casino import Casino
    from twin.machines.machine import SlotMachine
    from twin.scenario import Inject


@command("inject")
class InjectViolation(Command):
    """Make the violation ``kind`` happen (on ``machine``, with the kind's values)."""

    kind: str
    machine: str | None = None
    game: Path | None = None
    meter: str | None = None
    amount: int = 0
    target: str | None = None  # an entity off the slot floor (a table, a card room area...)

    @classmethod
    def from_scenario(cls, inj: Inject) -> InjectViolation:
        return cls(kind=inj.kind, machine=inj.machine, game=inj.game, meter=inj.meter,
                   amount=inj.amount, target=inj.target)  # fmt: skip

    def check(self, casino: Casino) -> str | None:
        spec = INJECTIONS.get(self.kind)
        if spec is None:
            return f"unknown injection {self.kind!r}"
        for name in spec.needs:
            if getattr(self, name) in (None, 0) and name != "amount":
                return f"{self.kind} needs a value for {name}"
        if self.machine is not None and self.machine not in casino.machine_ids:
            return f"no machine {self.machine!r} on the floor"
        if spec.static and casino.env.now > 0:
            return f"{self.kind} changes the floor before it opens (t = 0 only)"
        if self.meter is not None and not _known_meter(self.meter):
            return f"no meter {self.meter!r} (a meter name such as total_coin_in, or bills_<cents>)"
        if self.game is not None and not Path(self.game).is_file():
            return f"no game file {self.game}"
        if self.kind in ("suppressed_combination", "biased_free_spin_reel"):
            bad = _check_rigging(casino, self)
            if bad is not None:
                return bad
        if (
            self.kind in _NEEDS_LINK
            and self.machine is not None
            and casino.machine(self.machine).link is None
        ):
            return f"{self.machine} is on no progressive link"
        return None

    def apply(self, casino: Casino) -> None:
        INJECTIONS[self.kind].apply(casino, self)


Apply = Callable[["Casino", InjectViolation], None]


@record("injection_idle", roles=("machine",))
class InjectionIdle(Record):
    """An injection that was applied but never took effect before the run ended: the
    misconduct it armed waited for an activity that never came (written at the run's end)."""

    machine: str
    injection: str  # the injection's kind (``kind`` is the record's own)
    reason: str


def report_idle(casino: Casino) -> None:
    """At the run's end, one record per armed misconduct that never happened."""
    for m in casino.machines:
        for misconduct in list(m.armed):
            waits = AWAITS.get(misconduct, "did what it spoils")
            casino.world.bus.emit(
                InjectionIdle,
                machine=m.id,
                injection=misconduct.value,
                reason=f"armed, but {m.id} never {waits} before the run ended",
            )


class InjectionLog:
    """A sink: every injection command of a run, and what became of it, for ``summary.json``.

    ``status`` is ``applied`` (it took effect when applied, or the misconduct it armed
    happened), ``rejected`` (refused, with the reason) or ``never took effect`` (armed, but
    the activity it spoils never came: the reason says which)."""

    def __init__(self) -> None:
        self.entries: list[dict[str, Any]] = []
        self._open: dict[tuple[str, str], dict[str, Any]] = {}

    def accept(self, rec: Record) -> None:
        if isinstance(rec, CommandAccepted | CommandRejected):
            if rec.command != "inject":
                return
            args = json.loads(rec.args)
            entry: dict[str, Any] = {
                "source": rec.source,
                "number": rec.number,
                "t": rec.t,
                "kind": args.get("kind"),
                "machine": args.get("machine"),
                "target": args.get("target"),
                "status": "applied",
                "reason": None,
            }
            if isinstance(rec, CommandRejected):
                entry |= {"status": "rejected", "reason": rec.reason}
            else:
                self._open[(str(entry["machine"]), str(entry["kind"]))] = entry
            self.entries.append(entry)
        elif isinstance(rec, InjectionIdle):
            idle = self._open.get((rec.machine, rec.injection))
            if idle is not None:
                idle |= {"status": "never took effect", "reason": rec.reason}

    def close(self) -> None:
        pass

    def report(self) -> tuple[dict[str, Any], ...]:
        return tuple(dict(e) for e in self.entries)


@dataclass(frozen=True, slots=True)
class Injection:
    kind: str
    doc: str
    needs: tuple[str, ...]  # InjectViolation fields that must be given ("machine", ...)
    static: bool  # applied before the floor opens
    apply: Apply


INJECTIONS: dict[str, Injection] = {}


def injection(
    kind: str, doc: str, *, needs: tuple[str, ...] = ("machine",), static: bool = False
) -> Callable[[Apply], Apply]:
    def wrap(fn: Apply) -> Apply:
        INJECTIONS[kind] = Injection(kind, doc, needs, static, fn)
        return fn

    return wrap


def validate(casino: Casino, source: str) -> None:
    """Check every ``[[inject]]`` of the scenario before t = 0 (one precise error)."""
    for i, inj in enumerate(casino.scenario.inject):
        spec = INJECTIONS.get(inj.kind)
        if spec is None:
            raise InputError(
                source, f"inject[{i}].kind", f"one of {', '.join(sorted(INJECTIONS))}", inj.kind
            )
        for name in spec.needs:
            if getattr(inj, name) in (None, 0) and name != "amount":
                raise InputError(source, f"inject[{i}].{name}", f"a value for {inj.kind}", None)
        if spec.static and inj.at_hours != 0:
            raise InputError(
                source,
                f"inject[{i}].at_hours",
                f"0 ({inj.kind} changes the floor before it opens)",
                inj.at_hours,
            )
        if not spec.static and inj.at_hours * 3600.0 >= casino.end:
            raise InputError(
                source,
                f"inject[{i}].at_hours",
                f"a time before the run ends (under {casino.end / 3600.0:g} h)",
                inj.at_hours,
            )
        if inj.meter is not None and not _known_meter(inj.meter):
            raise InputError(
                source, f"inject[{i}].meter", "a meter name such as total_coin_in", inj.meter
            )


_NEEDS_LINK = frozenset({"progressive_skim", "progressive_reset_change"})


def _known_meter(meter: str) -> bool:
    return re.fullmatch(r"bills_\d+", meter) is not None or meter.upper() in MeterCode.__members__


def _machine(casino: Casino, inj: InjectViolation) -> SlotMachine:
    assert inj.machine is not None
    return casino.machine(inj.machine)


def _arm(misconduct: Misconduct, doc: str) -> None:
    def apply(casino: Casino, inj: InjectViolation) -> None:
        _machine(casino, inj).arm(misconduct, inj.amount)

    injection(misconduct.value, doc)(apply)


M = Misconduct
_arm(M.HAND_PAY_WITHOUT_INSPECTOR, "the machine's next hand pay is made with no Board inspector")
_arm(M.HAND_PAY_BY_OUTSIDER, "the next hand pay is made by someone not employed by the licensee")
_arm(M.UNPAID_HAND_PAY, "the next hand pay is never made: the machine stays locked")
_arm(M.FILL_WITHOUT_INSPECTOR, "the next hopper fill is made with no Board inspector present")
_arm(M.FILL_MISCOUNTED, "the next fill's certified coins differ from the coins put in (amount)")
_arm(M.SECONDARY_DECISION, "after selecting a winning outcome the machine shows a loss")
_arm(
    M.UNDOCUMENTED_PAYOUT,
    "the next cash-out is paid by hand off the books: the meter cancels the credits, but no "
    "slip, hand pay or cash-out is recorded",
)
_arm(M.SHORT_PAY_WITHOUT_FILL, "the next hopper-empty short pay is settled by hand, no fill")
_arm(M.DROP_BY_OUTSIDER, "the next drop is emptied by someone not acting for the licensee")


@injection(
    "technician_takes_coins",
    "a technician sent to check the slot door pockets `amount` hopper coins, unrecorded",
    needs=("machine", "amount"),
)
def _technician_takes_coins(casino: Casino, inj: InjectViolation) -> None:
    m = _machine(casino, inj)
    m.arm(Misconduct.TECHNICIAN_TAKES_COINS, inj.amount)
    casino.env.process(m.check_door())


_arm(M.UNRECORDED_PROMOTIONAL_PAYOUT, "the next promotional payout is paid but never documented")
_arm(
    M.UNCONFIRMED_PROMOTIONAL_PAYOUT,
    "the next promotional payout is made with no Board inspector confirming it is due",
)


_arm(M.SHORTENED_WIN, "after selecting a win the machine shows a smaller one (still a win)")


_arm(
    M.HOPPER_EMPTIED_BY_OUTSIDER,
    "when the machine is next taken out of operation, someone not acting for the licensee "
    "empties its drop and hopper",
)
_arm(
    M.RETAG_ON_RETURN,
    "when the machine is next placed back into operation it carries a new asset number "
    "(recorded on its return)",
)


@injection(
    "unrecorded_removal",
    "once its patron has left, the machine is disconnected and taken off the floor with no "
    "record, and put back `amount` hours later (0 means 8), again with no record",
)
def _unrecorded_removal(casino: Casino, inj: InjectViolation) -> None:
    m = _machine(casino, inj)
    hours = inj.amount if inj.amount > 0 else 8

    def away() -> Generator[simpy.events.Event, Any, None]:
        m.withdrawn = "taken away"  # no new patron; the one playing finishes
        while m.patron is not None or m.down:
            yield casino.env.timeout(60.0)
        m.disconnect()
        yield casino.env.timeout(hours * 3600.0)
        m.reconnect()
        m.place_back()

    casino.env.process(away())


@injection(
    "meter_rollback", "a meter is wound back by `amount` credits", needs=("machine", "meter")
)
def _meter_rollback(casino: Casino, inj: InjectViolation) -> None:
    assert inj.meter is not None
    _tamper(_machine(casino, inj), MeterCode[inj.meter.upper()], -inj.amount)


def _tamper(m: SlotMachine, code: MeterCode, delta: int) -> None:
    """Change a meter; a changed credit meter also ends the stretch being played (the
    machine plans its next games from the credits it now shows)."""
    m.accounts.tamper_meter(code, delta)
    if code is MeterCode.CURRENT_CREDITS:
        m.interrupt_play()


@injection(
    "meter_skew", "a meter counts `amount` credits that never happened", needs=("machine", "meter")
)
def _meter_skew(casino: Casino, inj: InjectViolation) -> None:
    assert inj.meter is not None
    _tamper(_machine(casino, inj), MeterCode[inj.meter.upper()], inj.amount)


@injection(
    "phantom_credits",
    "the credit meter jumps by `amount` credits no game paid and no money put in",
    needs=("machine", "amount"),
)
def _phantom_credits(casino: Casino, inj: InjectViolation) -> None:
    _tamper(_machine(casino, inj), MeterCode.CURRENT_CREDITS, inj.amount)


@injection("play_through_tilt", "a general tilt that does not stop play until it is repaired")
def _play_through_tilt(casino: Casino, inj: InjectViolation) -> None:
    m = _machine(casino, inj)
    m.arm(Misconduct.PLAY_THROUGH_TILT)
    m.tilt(ExceptionCode.GENERAL_TILT)
    casino.env.process(m.repair(ExceptionCode.GENERAL_TILT))


@injection(
    "bill_meter_skew",
    "the bill meter of `meter` (bills_<cents>) is off by `amount`",
    needs=("machine", "meter"),
)
def _bill_meter_skew(casino: Casino, inj: InjectViolation) -> None:
    assert inj.meter is not None
    cents = int(inj.meter.removeprefix("bills_"))
    _machine(casino, inj).accounts.tamper_bill_meter(cents, inj.amount)


@injection("missing_meter", "the machine stops reporting meter `meter`", needs=("machine", "meter"))
def _missing_meter(casino: Casino, inj: InjectViolation) -> None:
    assert inj.meter is not None
    _machine(casino, inj).hidden_meters.add(inj.meter.lower())


@injection("silent_door", "the slot door is opened and closed with no record")
def _silent_door(casino: Casino, inj: InjectViolation) -> None:
    acc = _machine(casino, inj).accounts
    acc.open_door(Door.SLOT)
    acc.close_door(Door.SLOT)


@injection("unrepaired_tilt", "a general tilt that nobody ever repairs")
def _unrepaired_tilt(casino: Casino, inj: InjectViolation) -> None:
    _machine(casino, inj).tilt(ExceptionCode.GENERAL_TILT)


@injection(
    "swap_game",
    "the machine silently runs another program (`game`), and says so",
    needs=("machine", "game"),
)
def _swap_game(casino: Casino, inj: InjectViolation) -> None:
    assert inj.game is not None
    _machine(casino, inj).swap_program(casino.load_injected_game(inj.game))


@injection(
    "tampered_game",
    "the machine runs another program (`game`) but reports the approved signature",
    needs=("machine", "game"),
)
def _tampered_game(casino: Casino, inj: InjectViolation) -> None:
    assert inj.game is not None
    m = _machine(casino, inj)
    m.swap_program(casino.load_injected_game(inj.game), m.spec.game.signature)


@injection(
    "wager_dependent",
    "from `amount` bet units up the machine plays `game` (same reels, other pays)",
    needs=("machine", "game", "amount"),
)
def _wager_dependent(casino: Casino, inj: InjectViolation) -> None:
    assert inj.game is not None
    _machine(casino, inj).play_other_program_from(inj.amount, casino.load_injected_game(inj.game))


def _overstated(m: SlotMachine, bp: int) -> object:
    cert = m.spec.certificate
    assert cert is not None
    pct = (m.spec.certified_min_payout_bp + bp) / 100
    return replace(cert, minimum_payout_percent=f"{pct:.2f}")


def _foreign(m: SlotMachine) -> object:
    cert = m.spec.certificate
    assert cert is not None
    return replace(cert, serial=cert.serial + "-0")


def _static_spec(
    kind: str, doc: str, change: Callable[[SlotMachine, InjectViolation], dict[str, object]]
) -> None:
    def apply(casino: Casino, inj: InjectViolation) -> None:
        m = _machine(casino, inj)
        m.spec = replace(m.spec, **change(m, inj))  # type: ignore[arg-type]

    injection(kind, doc, static=True)(apply)


_static_spec(
    "no_registration",
    "the machine shows no Board registration number",
    lambda m, i: {"registration": ""},
)
_static_spec("no_serial", "the machine carries no serial number", lambda m, i: {"serial": ""})
_static_spec(
    "no_certificate",
    "the machine has no manufacturer's certificate",
    lambda m, i: {"certificate": None},
)
_static_spec(
    "no_prize_display",
    "the machine does not display its prizes and rules",
    lambda m, i: {"paytable_displayed": False},
)
_static_spec(
    "short_meters",
    "the machine's meters have `amount` digits",
    lambda m, i: {"meter_digits": i.amount},
)
_static_spec(
    "foreign_certificate",
    "the machine's certificate is another machine's (its serial differs)",
    lambda m, i: {"certificate": _foreign(m)},
)
_static_spec(
    "certificate_overstates_payout",
    "the certificate's minimum payout is `amount` basis points above the true return",
    lambda m, i: {"certificate": _overstated(m, i.amount)},
)


@injection("unregistered_machine", "the machine is not in the Board's register", static=True)
def _unregistered(casino: Casino, inj: InjectViolation) -> None:
    casino.facts.register.pop(_machine(casino, inj).spec.registration, None)


@injection("renumber", "the machine's registration number changes with no record")
def _renumber(casino: Casino, inj: InjectViolation) -> None:
    m = _machine(casino, inj)
    m.spec = replace(m.spec, registration=m.spec.registration + "-X")


@injection("retag_asset", "the machine's asset number is changed (re-tagged), with no record")
def _retag_asset(casino: Casino, inj: InjectViolation) -> None:
    m = _machine(casino, inj)
    m.spec = replace(m.spec, asset_number=m.spec.asset_number + "-R")


@injection("reserial", "the machine's serial number is changed (re-stamped), with no record")
def _reserial(casino: Casino, inj: InjectViolation) -> None:
    m = _machine(casino, inj)
    m.spec = replace(m.spec, serial=m.spec.serial + "-S")


@injection("unapproved_link", "the machine's progressive link was never approved", static=True)
def _unapproved_link(casino: Casino, inj: InjectViolation) -> None:
    link = _machine(casino, inj).spec.progressive
    casino.facts.approved_links.pop(link or "", None)


@injection("progressive_skim", "the link's increment is quietly cut by `amount` basis points")
def _progressive_skim(casino: Casino, inj: InjectViolation) -> None:
    link = _machine(casino, inj).link
    assert link is not None
    link.increment_bp -= inj.amount


@injection("progressive_reset_change", "the link's reset value is changed by `amount` cents")
def _progressive_reset(casino: Casino, inj: InjectViolation) -> None:
    link = _machine(casino, inj).link
    assert link is not None
    link.reset_cents += inj.amount


@injection(
    "stake_above_max",
    "the machine takes `amount` units more than its maximum bet on every game",
    static=True,
)
def _stake_above_max(casino: Casino, inj: InjectViolation) -> None:
    m = _machine(casino, inj)
    m.spec = replace(m.spec, max_bet_units=m.spec.max_bet_units + inj.amount)
    m.forced_bet_units = m.spec.max_bet_units


@injection(
    "adaptive_paytable",
    "the machine scales its pays with its recent hold (by 1 + `amount` x the hold's excess over "
    "the theoretical; `amount` 0 means 4), still reporting the approved program",
)
def _adaptive_paytable(casino: Casino, inj: InjectViolation) -> None:
    from twin.machines.adaptive import AdaptivePayTable

    m = _machine(casino, inj)
    m.adaptive = AdaptivePayTable(m.game, gain=float(inj.amount) if inj.amount > 0 else 4.0)


@injection(
    "suppressed_combination",
    "the machine never selects the line combination paying `amount` per unit line bet (0: "
    "the top-paying one): when its stops show it, the next lower paying combination is "
    "shown instead; it still reports the approved program",
)
def _suppressed_combination(casino: Casino, inj: InjectViolation) -> None:
    from twin.machines.rigging import suppressed_combination

    m = _machine(casino, inj)
    m.swap_program(suppressed_combination(m.game, inj.amount))


@injection(
    "biased_free_spin_reel",
    "the machine's free spins play a first reel on which `amount` stops (0 means 4) never "
    "land, their weight on their neighbours; it still reports the approved program",
)
def _biased_free_spin_reel(casino: Casino, inj: InjectViolation) -> None:
    from twin.machines.rigging import biased_free_spin_reel

    m = _machine(casino, inj)
    m.swap_program(biased_free_spin_reel(m.game, inj.amount if inj.amount > 0 else 4))


def _check_rigging(casino: Casino, inj: InjectViolation) -> str | None:
    """Why a rigged program cannot be built for the target machine's game (None: it can)."""
    from twin.machines.rigging import biased_free_spin_reel, suppressed_combination

    if inj.machine is None:
        return None
    game = casino.machine(inj.machine).game
    try:
        if inj.kind == "suppressed_combination":
            suppressed_combination(game, inj.amount)
        elif inj.kind == "biased_free_spin_reel":
            biased_free_spin_reel(game, inj.amount if inj.amount > 0 else 4)
    except ValueError as err:
        return str(err)
    return None


__all__ = [
    "INJECTIONS",
    "InjectViolation",
    "Injection",
    "InjectionIdle",
    "InjectionLog",
    "injection",
    "load_game",
    "report_idle",
    "validate",
]

# -- issue 10, 11: the injections of the departments around the slot floor register on import
# (imported last: each module uses ``injection`` above)
from twin.aml import injections as _aml  # noqa: E402, F401
from twin.cage import injections as _cage  # noqa: E402, F401
from twin.door import injections as _door  # noqa: E402, F401
from twin.junkets import injections as _junkets  # noqa: E402, F401
from twin.pit import injections as _pit  # noqa: E402, F401
from twin.premium import injections as _premium  # noqa: E402, F401
