"""The compliance engine: a sink that hands each record to the checkers that read it.

Checkers observe; they never change the world. Their findings are records too: drafts the
engine hands to the record bus at its batch boundaries (a :class:`twin.records.Producer`), so
they land in the ledger with their own sequence numbers at places that depend on the records
alone; the engine collects them as they come back through the bus, for ``findings.json`` and
the summary. Its time is the record stream's (:mod:`twin.compliance.context`).
"""

from __future__ import annotations

import time as wall
from collections import Counter, deque
from collections.abc import Iterable, Mapping
from typing import Any

from twin.clock import Clock
from twin.compliance.apart import Job, compute_apart
from twin.compliance.context import CheckContext
from twin.compliance.findings import Finding
from twin.compliance.registry import Checker, registry
from twin.compliance.ruleset import Ruleset
from twin.compliance.verdicts import Verdict, verdict
from twin.machines.events import MachineInstalled
from twin.machines.facts import FloorFacts
from twin.records import Draft, Record
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


#: Kinds the engine itself reads before dispatching (the floor's view).
_FLOOR_KINDS = frozenset(c.kind for c in (MachineInstalled, ShiftStarted, ShiftEnded))


class ComplianceEngine:
    """Runs every registered checker (or the named subset) against the record stream."""

    def __init__(
        self,
        ruleset: Ruleset,
        clock: Clock,
        facts: FloorFacts,
        controls: Iterable[str] | None = None,
    ) -> None:
        self.ctx = CheckContext(ruleset, clock, facts)
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
        self._held: deque[list[Draft]] = deque()  # the drafts of the last ``lag`` batches
        #: what the checkers of a sink process saw (``absorb``): observations and "not
        #: applicable" by control; None while this engine's own checkers are the ones run
        self._remote: dict[str, tuple[int, str | None]] | None = None
        #: records dispatched to a checker, by kind (a control's observations are the sum
        #: over the kinds it observes, plus what its checker counted itself)
        self._seen: dict[str, int] = dict.fromkeys(self._by_kind, 0)

    def accept(self, rec: Record) -> None:
        kind = rec.kind
        if kind == "finding":  # back from the bus: numbered
            assert isinstance(rec, Finding)
            self.findings.append(rec)
            return
        ctx = self.ctx
        t = rec.t
        if ctx.due_before(t):  # what fell due before this record, on the floor as it was
            t0 = wall.perf_counter()
            ctx.run_timers(t)
            self.wall_seconds += wall.perf_counter() - t0
        else:
            ctx.move_to(t)
        if kind in _FLOOR_KINDS:
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

    def boundary(self, t: float, lag: int) -> list[Draft]:
        """A batch ends before a record at ``t`` (:class:`twin.records.Producer`): its drafts
        are held, those of the batch ``lag`` boundaries before handed over."""
        self._held.append(self.cut(t))
        return self._held.popleft() if len(self._held) > lag else []

    def cut(self, t: float) -> list[Draft]:
        """A batch ends before a record at ``t``: what fell due before ``t`` fires, and the
        batch's drafts are returned (not held: a sink process's engine, whose run holds
        them)."""
        ctx = self.ctx
        if ctx.due_before(t):
            t0 = wall.perf_counter()
            ctx.run_timers(t)
            self.wall_seconds += wall.perf_counter() - t0
        return ctx.take_drafts()

    def finish(self, end: float, apart: bool = False) -> list[Draft]:
        """End-of-run checks (periodic, statistical, record) at ``end``: every draft not yet
        handed over, in order (:class:`twin.records.Producer`). Once; later calls give none.

        ``apart``: the checkers' shared computations (``Checker.finish_shared``) are made in a
        fork meanwhile (:mod:`twin.compliance.apart`; a sink process, whose run only waits);
        the checkers that read them finish last, their drafts put back in order."""
        if self._finished:
            return []
        self._finished = True
        t0 = wall.perf_counter()
        ctx = self.ctx
        ctx.run_timers(end)
        shared = {c.finish_shared for c in self.checkers if c.finish_shared} if apart else set()
        jobs = sorted(j for j in shared if j[0] not in ctx.shared)
        if jobs:
            self._finish_apart(jobs)
        else:
            for c in self.checkers:
                c.finish()
        self.wall_seconds += wall.perf_counter() - t0
        out = [d for batch in self._held for d in batch]
        self._held.clear()
        return out + ctx.take_drafts()

    def _finish_apart(self, jobs: list[Job]) -> None:
        ctx = self.ctx
        drafts = {-1: ctx.take_drafts()}  # the timers' at the end, then each checker's
        result = compute_apart(ctx, jobs)
        later = [i for i, c in enumerate(self.checkers) if c.finish_shared in jobs]
        for i, c in enumerate(self.checkers):
            if i not in later:
                c.finish()
                drafts[i] = ctx.take_drafts()
        ctx.shared.update(result())
        for i in later:
            self.checkers[i].finish()
            drafts[i] = ctx.take_drafts()
        ctx.drafts = [d for i in sorted(drafts) for d in drafts[i]]

    def findings_so_far(self) -> list[Finding]:
        """Every finding made so far: the numbered ones, then those the bus has not numbered
        yet (with ``seq`` -1), in the order they were made."""
        later = [d for batch in self._held for d in batch] + self.ctx.drafts
        return self.findings + [Finding(seq=-1, **fields) for _, fields in later]

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
        if self._remote is not None:
            return self._remote[checker.spec.id][0]
        return checker.observations + sum(self._seen.get(k, 0) for k in checker.spec.observes)

    def _not_applicable(self, checker: Checker) -> str | None:
        if self._remote is not None:
            return self._remote[checker.spec.id][1]
        return checker.not_applicable()

    def outcome(self) -> tuple[dict[str, tuple[int, str | None]], float]:
        """What verdicts need of a finished run's checkers, and their wall time: sent back by
        a sink process (:mod:`twin.sinkproc`) to the engine the run reports with."""
        seen = {c.spec.id: (self.observations(c), self._not_applicable(c)) for c in self.checkers}
        return seen, self.wall_seconds

    def absorb(self, outcome: tuple[dict[str, tuple[int, str | None]], float]) -> None:
        """Report with what this engine's copy in a sink process saw (``outcome``)."""
        self._remote, self.wall_seconds = outcome
        self._finished = True

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
                        not_applicable=self._not_applicable(c),
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
