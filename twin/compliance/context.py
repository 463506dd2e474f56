"""What a checker may use: the ruleset, the clock, the Board's facts, the floor as the records
show it, deadline timers, and reporting a finding.

Time is the record stream's (issue 31): ``now`` is the time of the record being checked, and a
deadline timer set for time *d* fires once every record at or before *d* has been checked
(before the first record after *d*, at a batch boundary past *d*, or at the end of the run
when *d* is before it). The checks therefore depend on the records alone, never on the
simulation's event queue, and run the same in the simulation's process or in a sink process.
A finding is a draft until the record bus numbers it (:mod:`twin.records`, boundaries)."""

from __future__ import annotations

import heapq
from collections.abc import Callable
from fractions import Fraction
from typing import Any, TypeVar

from twin.clock import Clock
from twin.compliance.findings import Finding, Severity
from twin.compliance.ruleset import Ruleset
from twin.machines.events import MachineInstalled
from twin.machines.facts import FloorFacts
from twin.records import Draft
from twin.rules import Rule

T = TypeVar("T")


class CheckContext:
    """What a checker may use: the ruleset, the clock, the Board's facts, timers, reporting."""

    def __init__(self, ruleset: Ruleset, clock: Clock, facts: FloorFacts) -> None:
        self.ruleset = ruleset
        self.clock = clock
        self.facts = facts
        self._now = 0.0
        # deadline timers: (time, order set, what to call), earliest first
        self._timers: list[tuple[float, int, Callable[[], None]]] = []
        self._set = 0
        #: findings reported and not yet handed to the record bus (see ``take_drafts``)
        self.drafts: list[Draft] = []
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
        """The time of the record being checked (of the timer firing, of the end)."""
        return self._now

    def after(self, delay: float, fn: Callable[[], None]) -> None:
        """Call ``fn`` at ``now + delay``, once every record up to that time was checked."""
        if delay < 0:
            raise ValueError(f"a timer cannot go back in time (delay {delay})")
        self._set += 1
        heapq.heappush(self._timers, (self._now + delay, self._set, fn))

    def due_before(self, t: float) -> bool:
        """Whether a timer is set for a time before ``t``."""
        return bool(self._timers) and self._timers[0][0] < t

    def run_timers(self, before: float) -> None:
        """Fire every timer set for a time before ``before``, in time order (then in the
        order they were set), ``now`` at each one's time; the clock is then at ``before``."""
        timers = self._timers
        while timers and timers[0][0] < before:
            at, _, fn = heapq.heappop(timers)
            self._now = at
            fn()
        self.move_to(before)

    def move_to(self, t: float) -> None:
        """The record stream reached ``t`` (never back)."""
        if t > self._now:
            self._now = t

    def take_drafts(self) -> list[Draft]:
        """The findings reported since the last call (each with its time), in order."""
        out, self.drafts = self.drafts, []
        return out

    def report(
        self,
        control: str,
        entities: tuple[str, ...],
        message: str,
        evidence: tuple[int, ...],
        *,
        warning: bool = False,
    ) -> None:
        now = self._now
        fields = {
            "t": now,
            "subjects": entities,
            "control": control,
            "severity": (Severity.WARNING if warning else Severity.BREACH).value,
            "at": self.clock.iso(now),
            "message": message,
            "evidence": tuple(sorted(set(evidence))),
            "found_t": now,
        }
        self.drafts.append((Finding, fields))


__all__ = ["CheckContext"]
