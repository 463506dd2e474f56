"""What a checker may use: the ruleset, the clock, the Board's facts, the floor as the records
show it, deadline timers, and reporting a finding (on the record bus)."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any, TypeVar

import simpy

from twin.clock import Clock
from twin.compliance.findings import Finding, Severity
from twin.compliance.ruleset import Ruleset
from twin.machines.events import MachineInstalled
from twin.machines.facts import FloorFacts
from twin.records import RecordBus
from twin.rules import Rule

T = TypeVar("T")


class CheckContext:
    """What a checker may use: the ruleset, the clock, the Board's facts, timers, reporting."""

    def __init__(
        self,
        bus: RecordBus,
        ruleset: Ruleset,
        clock: Clock,
        env: simpy.Environment,
        facts: FloorFacts,
    ) -> None:
        self._bus = bus
        self.ruleset = ruleset
        self.clock = clock
        self.env = env
        self.facts = facts
        # a read-only view of the floor, built by the engine from the records themselves
        self.installed: dict[str, MachineInstalled] = {}
        self.roles: dict[str, str] = {}  # everyone who ever came on shift -> their role
        self.employers: dict[str, str] = {}  # ... -> "licensee" or "board"
        self.on_duty: set[str] = set()
        self.shared: dict[str, Any] = {}  # computations several checkers share

    def rule(self, rule: Rule[T]) -> T:
        """The ruleset's value of the declared ``rule`` (``Rule.of``: InputError if absent
        without a default, or of another type)."""
        return rule.of(self.ruleset)

    def rule_money(self, rule: Rule[int]) -> Fraction:
        """The declared money ``rule`` in the floor's cents, exactly (``Rule.money``):
        compare it with a record's cents directly, ``cents > ctx.rule_money(RULE)``."""
        return rule.money(self.ruleset)

    def is_inspector(self, who: str) -> bool:
        """A Board inspector known to the floor (came on shift at some point)."""
        return self.roles.get(who) == "inspector"

    def is_employee(self, who: str) -> bool:
        """One of the licensee's people (any role not employed by the Board)."""
        return who in self.roles and self.employers.get(who) == "licensee"

    def denomination(self, machine: str) -> int:
        return self.installed[machine].denomination_cents

    @property
    def now(self) -> float:
        return self.env.now

    def after(self, delay: float, fn: Callable[[], None]) -> None:
        """Call ``fn`` after ``delay`` seconds (a deadline timer; it only lets time pass)."""

        def wait() -> simpy.events.ProcessGenerator:
            yield self.env.timeout(delay)
            fn()

        self.env.process(wait())

    def report(
        self,
        control: str,
        entities: tuple[str, ...],
        message: str,
        evidence: tuple[int, ...],
        *,
        warning: bool = False,
    ) -> None:
        self._bus.emit(
            Finding,
            subjects=entities,
            control=control,
            severity=(Severity.WARNING if warning else Severity.BREACH).value,
            at=self.clock.iso(self.env.now),
            message=message,
            evidence=tuple(sorted(set(evidence))),
        )


__all__ = ["CheckContext"]
