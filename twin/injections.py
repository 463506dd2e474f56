"""Violation injection: make a named thing go wrong, on purpose, to prove a control sees it.

A scenario's ``[[inject]]`` entries name a kind from ``INJECTIONS``, a target (a machine, or
``target``: a table, a person, a junket...), a time and kind-specific values. Each becomes an
:class:`InjectViolation` command that enters the world through the inbox like every other
input from outside the model: ``static`` injections change the floor before it opens (they
take effect at install); the others are scheduled at ``at_hours``. Injections change the
world (that is their point) while checkers only ever observe it.

Injections are data plus each department's appliers: a department registers its kinds with
:func:`injection` in its own ``injections`` module and reaches the running casino through the
:class:`twin.department.Venue` it is given (its own department, found by type), so this
module knows no department and no department knows the casino.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from twin.commands import Command, CommandAccepted, CommandRejected, command
from twin.department import Venue
from twin.errors import InputError
from twin.records import Record, record

if TYPE_CHECKING:
    from twin.scenario import Inject

Apply = Callable[[Venue, "InjectViolation"], None]
Refusal = Callable[[Venue, "InjectViolation"], "str | None"]
_REFUSALS: list[Refusal] = []


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

    def check(self, venue: Venue) -> str | None:
        spec = INJECTIONS.get(self.kind)
        if spec is None:
            return f"unknown injection {self.kind!r}"
        for name in spec.needs:
            if getattr(self, name) in (None, 0) and name != "amount":
                return f"{self.kind} needs a value for {name}"
        if self.machine is not None or self.meter is not None or self.game is not None:
            for refusal in _REFUSALS:  # the slot floor's: its machines, meters and programs
                reason = refusal(venue, self)
                if reason is not None:
                    return reason
        if spec.static and venue.env.now > 0:
            return f"{self.kind} changes the floor before it opens (t = 0 only)"
        return None

    def apply(self, venue: Venue) -> None:
        INJECTIONS[self.kind].apply(venue, self)


@record("injection_idle", roles=("machine",))
class InjectionIdle(Record):
    """An injection that was applied but never took effect before the run ended: the
    misconduct it armed waited for an activity that never came (written at the run's end)."""

    machine: str
    injection: str  # the injection's kind (``kind`` is the record's own)
    reason: str


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
    """Register the applier of injection ``kind`` (a decorator). ``needs``: the values the
    ``[[inject]]`` entry must give; ``static``: it changes the floor before it opens."""

    def wrap(fn: Apply) -> Apply:
        if kind in INJECTIONS:
            raise ValueError(f"injection {kind!r} is registered twice")
        INJECTIONS[kind] = Injection(kind, doc, needs, static, fn)
        return fn

    return wrap


def refusal(fn: Refusal) -> Refusal:
    """Register a reason to refuse an injection command that names a machine, a meter or a
    game (the slot floor checks they exist); checked after the kind's values."""
    _REFUSALS.append(fn)
    return fn


def validate(injects: Sequence[Inject], end: float, source: str) -> None:
    """Check every ``[[inject]]`` of a scenario running until ``end`` (simulation seconds)
    before t = 0: its kind, the values it needs and its time (one precise error). Each
    department checks its own kinds' targets when it is built."""
    for i, inj in enumerate(injects):
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
        if not spec.static and inj.at_hours * 3600.0 >= end:
            raise InputError(
                source,
                f"inject[{i}].at_hours",
                f"a time before the run ends (under {end / 3600.0:g} h)",
                inj.at_hours,
            )


class Deviations:
    """A department's injected deviations (a mixin): ``arm`` before the floor opens, ``take``
    when the workflow a deviation spoils comes (the first to come, or its target's)."""

    armed: dict[str, str]  # deviation -> its target ("" the first to come): set in __init__

    def arm(self, deviation: str, target: str = "") -> None:
        """Arm ``deviation`` for ``target`` ("" the first to come)."""
        self.armed[deviation] = target

    def take(self, deviation: str, *subjects: str) -> bool:
        """Whether ``deviation`` is armed for one of ``subjects`` (or for any); consumed."""
        target = self.armed.get(deviation)
        if target is None or (target and target not in subjects):
            return False
        del self.armed[deviation]
        return True


def deviations(prefix: str, docs: dict[str, str], department: type[Deviations]) -> frozenset[str]:
    """Register one static injection ``<prefix>_<deviation>`` per entry of ``docs`` (its
    doc), arming the deviation on the run's ``department`` (with the ``[[inject]]``'s
    target); the kinds registered."""

    def register(deviation: str, doc: str) -> None:
        def apply(venue: Venue, inj: InjectViolation) -> None:
            found = venue.find(department)
            if found is not None:
                found.arm(deviation, inj.target or "")

        injection(f"{prefix}_{deviation}", doc, needs=(), static=True)(apply)

    for deviation, doc in docs.items():
        register(deviation, doc)
    return frozenset(f"{prefix}_{d}" for d in docs)


__all__ = [
    "INJECTIONS",
    "Deviations",
    "InjectViolation",
    "Injection",
    "InjectionIdle",
    "InjectionLog",
    "deviations",
    "injection",
    "refusal",
    "validate",
]
