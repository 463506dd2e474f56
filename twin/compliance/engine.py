"""The compliance engine: a sink that hands each record to the checkers that read it.

Checkers observe; they never change the world. Their findings are records too (emitted
through the bus after the record being dispatched, so they land in the ledger with their
own sequence numbers) and are collected here for ``findings.json`` and the summary.
"""

from __future__ import annotations

import time as wall
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from fractions import Fraction
from typing import Any, TypeVar

import simpy

from twin.clock import Clock
from twin.compliance.findings import Finding, Severity
from twin.compliance.registry import Checker, registry
from twin.compliance.ruleset import Ruleset
from twin.compliance.verdicts import Verdict, verdict
from twin.machines.events import MachineInstalled
from twin.machines.facts import FloorFacts
from twin.records import Record, RecordBus
from twin.rules import Rule
from twin.staff.records import ShiftEnded, ShiftStarted

#: The regulation each catalogue id prefix belongs to: a run checks its ruleset's controls.
RULESET_OF = {"MT98": "malta-1998", "SG10": "singapore-2010"}


def regulation_of(ruleset: Ruleset) -> str:
    """The catalogue prefix (``MT98``, ``SG10``) of the regulation a ruleset states: the one
    its parameters cite, so a proposal file of another name still checks its regulation's
    controls; by name when no parameter cites a control."""
    cited = {c.split(".")[0] for p in ruleset.params.values() for c in p.controls}
    if len(cited) == 1:
        return cited.pop()
    by_name = [prefix for prefix, name in RULESET_OF.items() if name == ruleset.name]
    if len(by_name) == 1:
        return by_name[0]
    raise ValueError(
        f"ruleset {ruleset.name!r}: cannot tell which regulation it states "
        f"(its parameters cite {sorted(cited) or 'no control'})"
    )


#: Kinds the engine itself reads before dispatching (findings, the floor's view).
_FLOOR_KINDS = frozenset(c.kind for c in (Finding, MachineInstalled, ShiftStarted, ShiftEnded))


T = TypeVar("T")


class CheckContext:
    """What a checker may use: the ruleset, the clock, the Board's facts, timers, reporting."""

    def __init__(
        self,
        engine: ComplianceEngine,
        ruleset: Ruleset,
        clock: Clock,
        env: simpy.Environment,
        facts: FloorFacts,
    ) -> None:
        self._engine = engine
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

    def param(self, key: str) -> Any:
        return self.ruleset.get(key)

    def money(self, key: str) -> Fraction:
        """The money parameter ``key`` in the floor's cents, exactly (see ``Ruleset.money``):
        compare it with a record's cents directly, ``cents > ctx.money(key)``."""
        return self.ruleset.money(key)

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
        self._engine.bus.emit(
            Finding,
            subjects=entities,
            control=control,
            severity=(Severity.WARNING if warning else Severity.BREACH).value,
            at=self.clock.iso(self.env.now),
            message=message,
            evidence=tuple(sorted(set(evidence))),
        )


class ComplianceEngine:
    """Runs every registered checker (or the named subset) against the record stream."""

    def __init__(
        self,
        bus: RecordBus,
        ruleset: Ruleset,
        clock: Clock,
        env: simpy.Environment,
        facts: FloorFacts,
        controls: Iterable[str] | None = None,
    ) -> None:
        self.bus = bus
        self.ctx = CheckContext(self, ruleset, clock, env, facts)
        specs = registry()
        self.regulation = regulation_of(ruleset)
        mine = {cid for cid in specs if cid.split(".")[0] == self.regulation}
        wanted = mine if controls is None else set(controls)
        unknown = wanted - set(specs)
        if unknown:
            raise ValueError(f"unknown controls: {sorted(unknown)}")
        self.checkers: list[Checker] = [specs[cid].checker(self.ctx) for cid in sorted(wanted)]
        self._by_kind: dict[str, list[Checker]] = {}
        for c in self.checkers:
            for kind in c.spec.reads:
                self._by_kind.setdefault(kind, []).append(c)
        self.findings: list[Finding] = []
        self.wall_seconds = 0.0
        self._finished = False
        #: records dispatched to a checker, by kind (a control's observations are the sum
        #: over the kinds it observes, plus what its checker counted itself)
        self._seen: dict[str, int] = dict.fromkeys(self._by_kind, 0)

    def accept(self, rec: Record) -> None:
        kind = rec.kind
        if kind in _FLOOR_KINDS:
            if isinstance(rec, Finding):
                self.findings.append(rec)
                return
            ctx = self.ctx
            if isinstance(rec, MachineInstalled):
                ctx.installed[rec.machine] = rec
            elif isinstance(rec, ShiftStarted):
                ctx.roles[rec.member] = rec.role
                ctx.employers[rec.member] = rec.employer
                ctx.on_duty.add(rec.member)
            elif isinstance(rec, ShiftEnded):
                ctx.on_duty.discard(rec.member)
        checkers = self._by_kind.get(kind)
        if checkers:
            self._seen[kind] += 1
            t0 = wall.perf_counter()
            for c in checkers:
                c.on_record(rec)
            self.wall_seconds += wall.perf_counter() - t0

    def finish(self) -> None:
        """End-of-run checks (periodic, statistical, record). Call once, before closing."""
        if self._finished:
            return
        self._finished = True
        t0 = wall.perf_counter()
        for c in self.checkers:
            c.finish()
        self.wall_seconds += wall.perf_counter() - t0

    def close(self) -> None:
        pass

    def coverage(self) -> tuple[int, int]:
        """(controls of this ruleset in the catalog, how many of them a checker implements)."""
        from twin.compliance.catalog import load_catalog

        mine = [c for c in load_catalog().controls if c.split(".")[0] == self.regulation]
        return len(mine), sum(1 for c in mine if c in registry())

    def counts(self) -> dict[str, int]:
        """Findings per control, with every checked control listed (zero included)."""
        got = Counter(f.control for f in self.findings)
        return {c.spec.id: got.get(c.spec.id, 0) for c in self.checkers}

    def observations(self, checker: Checker) -> int:
        """How often ``checker`` observed its clause: the records of the kinds it observes,
        plus what it counted itself (audits, tests, deadlines)."""
        return checker.observations + sum(self._seen.get(k, 0) for k in checker.spec.observes)

    def verdicts(self) -> list[Verdict]:
        """One verdict for every catalogued control of this run's regulation, in catalogue
        order (see :mod:`twin.compliance.verdicts`); the five kinds add up to the catalogue."""
        from twin.compliance.catalog import load_catalog, load_status

        found = Counter(f.control for f in self.findings)
        mine = {c.spec.id: c for c in self.checkers}
        specs = registry()
        status = load_status()
        out: list[Verdict] = []
        for cid in load_catalog().controls:
            if cid.split(".")[0] != self.regulation:
                continue
            c = mine.get(cid)
            if c is not None:
                out.append(
                    verdict(
                        cid,
                        findings=found.get(cid, 0),
                        observations=self.observations(c),
                        not_applicable=c.not_applicable(),
                        needed=c.spec.needed,
                    )
                )
            elif cid in specs:  # implemented, but this run asked for a subset of controls
                out.append(Verdict(cid, "not_exercised", 0, 0, "left out of this run's checks"))
            elif cid in status.out_of_scope:
                out.append(Verdict(cid, "not_implemented", why=status.out_of_scope[cid]))
            else:
                p = status.planned.get(cid)
                why = f"planned: {p.issue}" if p is not None else "not implemented"
                out.append(Verdict(cid, "not_implemented", why=why))
        return out

    def findings_json(self) -> list[Mapping[str, Any]]:
        return [
            {"seq": f.seq, "t": f.t, **f.payload()}
            | {"subjects": list(f.subjects), "evidence": list(f.evidence)}
            for f in self.findings
        ]
