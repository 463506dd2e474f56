"""Procedure runs on a test bench: one machine bound to a SMIB, bench commands, findings.

A :class:`ProcedureBench` builds a casino from a bench scenario (one machine bound to the
SMIB in mirror mode), connects it to the broker, and is driven from the calling thread (the
simulation thread), paced by the wall clock: :meth:`do` sends a bench command and waits until
the event it caused is in the world; :meth:`finish` takes the closing meter reading, runs the
end-of-run checks and says which controls the procedure exercised and what they found. The
procedure suites (``scenarios/suites/``) run on it, against real SMIBs or emulated ones.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from twin.casino import Casino
from twin.compliance.findings import Finding
from twin.departments import load_scenario
from twin.hardware.records import SmibCommandResult, SmibEvent, SmibMeters
from twin.hardware.session import Endpoint, HardwareSession
from twin.records import MemorySink, Record

#: The checker modules of the machine's own controls (First Schedule, regs 28, 29 and 36): a
#: bench is one machine on a SMIB, not a casino, so it checks these (and the link's) and
#: leaves out those of the casino's departments (door, AML desk, pit, cage, junkets), which a
#: bench has not and would find missing (issue 25); their verdict is "left out".
MACHINE_CHECKS = frozenset(
    f"twin.compliance.checks.{m}"
    for m in (
        "identity",
        "machine_records",
        "meters",
        "outcomes",
        "payouts",
        "programs",
        "randomness",
    )
)


def machine_controls(regulation: str = "MT98") -> tuple[str, ...]:
    """The registered controls of ``regulation`` that a bench checks (MACHINE_CHECKS)."""
    from twin.compliance.registry import registry

    return tuple(
        sorted(
            cid
            for cid, spec in registry().items()
            if cid.startswith(regulation + ".") and spec.checker.__module__ in MACHINE_CHECKS
        )
    )


#: Kinds whose records exercise the link's own controls.
_HW_READS = {
    "HW.identity": ("smib_online",),
    "HW.reconcile": ("smib_reconciled",),
    "HW.meter_reset": ("smib_meters",),
    "HW.events_lost": ("smib_event",),
    "HW.event_conflict": ("smib_event",),
    "HW.counters_reset": ("smib_online",),
    "HW.queue_overflow": ("smib_reconciled",),
}


@dataclass(frozen=True)
class ProcedureResult:
    """What a procedure exercised and found."""

    controls: tuple[str, ...]  # the controls that read at least one of its records
    findings: tuple[Mapping[str, Any], ...]  # control, severity, subjects, message

    @property
    def breaches(self) -> list[Mapping[str, Any]]:
        return [f for f in self.findings if f["severity"] == "breach"]


class ProcedureBench:
    """See the module docstring. Not thread-safe: one procedure, one thread."""

    def __init__(
        self,
        scenario: Path,
        url: str,
        smib: str,
        *,
        serial: str | None = None,
        answer_seconds: float = 20.0,
        overrides: Iterable[tuple[str, Any]] = (),
    ) -> None:
        sets: list[tuple[str, Any]] = [("hardware[0].smib", smib), *overrides]
        if serial:
            sets.append(("hardware[0].serial", serial))
        self.sink = MemorySink()
        sc = load_scenario(scenario, sets)
        self.casino = Casino(sc, sinks=[self.sink], controls=machine_controls())
        hw = self.casino.hardware
        if hw is None or len(hw.bindings) != 1:
            raise ValueError(f"{scenario}: a bench scenario binds exactly one machine")
        self.hw = hw
        self.smib = smib
        self.machine = hw.bindings[0].machine
        self.answer_seconds = answer_seconds
        self.session = HardwareSession(hw, self.casino.inbox, Endpoint.parse(url))
        self._t0 = 0.0
        self._from = 0  # records before the procedure's first command

    # -- the run -------------------------------------------------------------------------------

    def start(self) -> ProcedureBench:
        self.session.start()
        self.casino.start()
        self._t0 = time.monotonic()
        self.until("the SMIB's birth", lambda: self.hw.book.stats[self.smib].online)
        self.pump(0.2)
        self._from = len(self.sink.records)
        return self

    def step(self) -> None:
        """Advance the world to the wall clock, delivering what the link queued."""
        inbox = self.casino.inbox
        target = max(time.monotonic() - self._t0, self.casino.env.now) + 1e-6
        inbox.poll()
        self.casino.advance(target)

    def pump(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.step()
            time.sleep(0.01)

    def until(self, what: str, ok: Any, timeout: float | None = None) -> None:
        deadline = time.monotonic() + (timeout or self.answer_seconds)
        while True:
            self.step()
            if ok():
                return
            if time.monotonic() > deadline:
                raise TimeoutError(f"SMIB {self.smib}: no {what} within {timeout or 0:g} s")
            time.sleep(0.01)

    # -- staff on duty (bench commands carry who does the work, as a card-in would) ------------

    def on_duty(self, role: str) -> str:
        members = self.casino.staff.on_duty(role)
        return members[0] if members else ""

    # -- commands ------------------------------------------------------------------------------

    def do(self, cmd: str, **args: Any) -> SmibCommandResult:
        """Send a bench command; wait for its result and, when completed, its event."""
        cmd_id = self.session.link.command(self.smib, cmd, args, f"procedure step {cmd}")

        def result() -> SmibCommandResult | None:
            for r in self.sink.of(SmibCommandResult):
                if r.cmd_id == cmd_id:
                    return r
            return None

        self.until(f"answer to {cmd}", lambda: result() is not None)
        got = result()
        assert got is not None
        if got.result == "completed":
            self.until(
                f"event of {cmd}",
                lambda: any(cmd_id in e.data for e in self.sink.of(SmibEvent)),
            )
        return got

    def read_meters(self) -> None:
        before = len(self.sink.of(SmibMeters))
        self.session.link.command(self.smib, "read_meters", {}, "procedure meter reading")
        self.until("meter snapshot", lambda: len(self.sink.of(SmibMeters)) > before)

    def finish(self) -> ProcedureResult:
        """The closing reading and the end-of-run checks; what the procedure exercised."""
        try:
            self.casino.finish()
        finally:
            self.session.stop()
        records = self.sink.records[self._from :]
        # every finding of the session (its own casino): the birth's identity check included
        return ProcedureResult(self.exercised(records), tuple(self.findings(self.sink.records)))

    def exercised(self, records: list[Record]) -> tuple[str, ...]:
        """The controls that read the procedure's records (the link's: the whole session's,
        whose birth checked the board's identity)."""
        kinds = {r.kind for r in records}
        out = set()
        engine = self.casino.compliance
        if engine is not None:
            out |= {c.spec.id for c in engine.checkers if kinds & set(c.spec.reads)}
        session = kinds | {r.kind for r in self.sink.records[: self._from]}
        out |= {c for c, reads in _HW_READS.items() if session & set(reads)}
        return tuple(sorted(out))

    def findings(self, records: list[Record]) -> list[Mapping[str, Any]]:
        return [
            {
                "control": f.control,
                "severity": f.severity,
                "subjects": list(f.subjects),
                "message": f.message,
            }
            for f in records
            if isinstance(f, Finding)
        ]


__all__ = ["MACHINE_CHECKS", "ProcedureBench", "ProcedureResult", "machine_controls"]
