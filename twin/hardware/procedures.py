"""Procedure runs on a test bench: one machine bound to a SMIB, bench commands, findings.

A :class:`ProcedureBench` builds a casino from a bench scenario (one machine bound to the
SMIB in mirror mode), connects it to the broker, and is driven from the calling thread (the
simulation thread), paced by the wall clock: :meth:`do` sends a bench command and waits until
the event it caused is in the world; :meth:`finish` takes the closing meter reading, runs the
end-of-run checks and says which controls the procedure exercised and what they found. The
procedure suites (``scenarios/suites/``) run on it, against real SMIBs or emulated ones.

On a SAS line (``sas_port``, issue 30) the bench's machine stays simulated and is served as a
SAS gaming machine on the line, a SMIB at the other end reporting it (the reference one,
started by the twin on a ``"pty"``; or a real one wired to the device). A SMIB on a SAS line
has no bench commands: :meth:`do` makes the simulated machine do the activity (a SimPy process
on its :class:`~twin.machines.machine.SlotMachine`; the simulation runs ahead of the wall
clock while staff walk and work) and waits until the SMIB has reported it: every exception the
machine raised reached the host, and the host's meters are the machine's.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import simpy
from simpy.events import ProcessGenerator

from twin.casino import Casino
from twin.compliance.findings import Finding
from twin.departments import load_scenario
from twin.hardware.loop import SasLoop
from twin.hardware.records import SmibCommandResult, SmibEvent, SmibMeters
from twin.hardware.session import Endpoint, HardwareSession
from twin.machines.events import GamesPlayed
from twin.machines.machine import SlotMachine
from twin.machines.sas import Door, ExceptionCode
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
    # the SAS loop's (a machine on a SAS line): its line's closing record and the SMIB's reports
    "HW.sas_lost": ("sas_line_closed",),
    "HW.sas_misreported": ("smib_event",),
    "HW.sas_meters": ("smib_meters", "smib_event"),
    "HW.sas_late": ("smib_event",),
    "HW.sas_queue_overflow": ("sas_line_closed",),
    "HW.sas_link_lost": ("smib_event",),
    "HW.sas_line": ("sas_line_closed",),
}

#: What a SAS bench's machine does for a bench command: a SimPy process to run, nothing more
#: to run (done at once), or why it refused (a reason).
Activity = str | ProcessGenerator | None
#: Simulated seconds a game takes on a SAS bench's machine.
GAME_SECONDS = 4.0
#: The most simulated time one bench activity may take (a walk and a hand pay, a repair).
ACTIVITY_SECONDS = 3600.0


@dataclass(frozen=True)
class MachineActed:
    """What a SAS bench's simulated machine did for a bench command: ``result`` as a SMIB's
    answer (:class:`~twin.hardware.records.SmibCommandResult`): ``"completed"``, or
    ``"rejected"`` with ``reason`` (the machine could not: a door open refuses play)."""

    cmd: str
    result: str
    reason: str = ""


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
        sas_port: str | None = None,
    ) -> None:
        """``sas_port``: the bench's machine on a SAS line instead (``"pty"``: a pseudo-
        terminal pair with the twin's reference SMIB on it; a device: a SMIB wired to it);
        ``serial`` is then not used (the simulated machine reports its own)."""
        sets: list[tuple[str, Any]] = [("hardware[0].smib", smib), *overrides]
        if sas_port:
            sets = [*overrides, *self._on_sas_line(scenario, overrides, smib, sas_port)]
        elif serial:
            sets.append(("hardware[0].serial", serial))
        self.sink = MemorySink()
        sc = load_scenario(scenario, sets)
        self.casino = Casino(sc, sinks=[self.sink], controls=machine_controls())
        hw = self.casino.hardware
        bound = [b.machine for b in hw.bindings] + [b.machine for b in hw.sas] if hw else []
        if hw is None or len(bound) != 1:
            raise ValueError(f"{scenario}: a bench scenario binds exactly one machine")
        self.hw = hw
        self.smib = smib
        self.machine = bound[0]
        #: the SAS loop of the bench's machine (None: a [[hardware]] bench)
        self.loop: SasLoop | None = hw.loops.get(smib)
        self.answer_seconds = answer_seconds
        self.session = HardwareSession(hw, self.casino.inbox, Endpoint.parse(url))
        self._t0 = 0.0
        self._from = 0  # records before the procedure's first command

    @staticmethod
    def _on_sas_line(
        scenario: Path, overrides: Iterable[tuple[str, Any]], smib: str, port: str
    ) -> list[tuple[str, Any]]:
        """The overrides that put the bench's machine on a SAS line: its ``[[hardware]]``
        entry becomes one ``[[sas]]`` entry (the reference SMIB on a pty, else an external
        one on the device)."""
        base = load_scenario(scenario, overrides)
        if len(base.hardware) != 1:
            raise ValueError(f"{scenario}: a bench scenario binds exactly one machine")
        kind = "reference" if port == "pty" else "external"
        entry = {"machine": base.hardware[0].machine, "smib": smib, "port": port,
                 "smib_kind": kind}  # fmt: skip
        return [("hardware", []), ("sas", [entry])]

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
                raise TimeoutError(
                    f"SMIB {self.smib}: no {what} within {timeout or self.answer_seconds:g} s"
                )
            time.sleep(0.01)

    # -- staff on duty (bench commands carry who does the work, as a card-in would) ------------

    def on_duty(self, role: str) -> str:
        members = self.casino.staff.on_duty(role)
        return members[0] if members else ""

    # -- commands ------------------------------------------------------------------------------

    def do(self, cmd: str, **args: Any) -> SmibCommandResult | MachineActed:
        """Send a bench command; wait for its result and, when completed, its event. On a
        SAS line the simulated machine does it instead, and the SMIB's report is waited for."""
        if self.loop is not None:
            return self._act(self.loop, cmd, args)
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

    # -- a SAS bench: the simulated machine acts, the SMIB reports -------------------------------

    def _act(self, loop: SasLoop, cmd: str, args: Mapping[str, Any]) -> MachineActed:
        m = self.casino.machine(self.machine)
        activity = getattr(self, f"_sas_{cmd}", None)
        if activity is None:
            return MachineActed(cmd, "rejected", f"no bench command {cmd!r}")
        before = len(self.sink.records)
        why = activity(m, args)
        if isinstance(why, str):  # refused before anything happened
            return MachineActed(cmd, "rejected", why)
        if why is not None:
            self._complete(cmd, self.casino.env.process(why))
        if cmd == "play" and not any(
            isinstance(r, GamesPlayed) for r in self.sink.records[before:]
        ):
            return MachineActed(cmd, "rejected", "no credits for a game")
        self.until(
            f"report of {cmd} (every exception raised reported, the host's meters the machine's)",
            lambda: loop.unreported() == 0 and loop.meters_agree(),
        )
        return MachineActed(cmd, "completed")

    def _complete(self, what: str, proc: simpy.Process) -> None:
        """Run the simulation until ``proc`` ends, event by event, ahead of the wall clock
        (nothing else happens on a bench; the link's messages wait in the inbox)."""
        env = self.casino.env
        limit = env.now + ACTIVITY_SECONDS
        while proc.is_alive:
            nxt = env.peek()
            if nxt > limit:
                raise TimeoutError(
                    f"machine {self.machine}: {what} not done within {ACTIVITY_SECONDS:g} "
                    "simulated seconds"
                )
            env.step()

    def _sas_credit_in(self, m: SlotMachine, args: Mapping[str, Any]) -> Activity:
        spec = m.spec
        if "cents" in args:
            cents = int(args["cents"])
            if not spec.bill_acceptor or cents not in spec.bill_denominations_cents:
                return f"bill {cents} not accepted"
            m.insert_bill("", cents)
        else:
            if not spec.coin_acceptor:
                return "no coin acceptor"
            m.insert_coins("", int(args["coins"]))
        return None

    def _sas_play(self, m: SlotMachine, args: Mapping[str, Any]) -> Activity:
        if m.down or m.withdrawn is not None:
            why = sorted(m.down) + ([m.withdrawn] if m.withdrawn else [])
            return f"cannot play ({', '.join(why)})"
        games = int(args["games"])
        until = self.casino.env.now + (games + 0.5) * GAME_SECONDS
        return m.play("", bet_units=int(args.get("bet_units", 1)), pace=GAME_SECONDS,
                      until=until)  # fmt: skip

    def _sas_cash_out(self, m: SlotMachine, args: Mapping[str, Any]) -> Activity:
        if m.accounts.credits <= 0:
            return "no credits"
        limit = args.get("limit")
        return m.cash_out("", None if limit is None else int(limit))

    def _sas_fill_hopper(self, m: SlotMachine, args: Mapping[str, Any]) -> Activity:
        if m.accounts.hopper_level >= m.spec.hopper_capacity:
            return "hopper full"
        coins = args.get("coins")
        return m.fill_hopper("bench", coins=None if coins is None else int(coins))

    def _door(self, args: Mapping[str, Any]) -> Door | str:
        name = str(args.get("door", "slot")).upper()
        return Door[name] if name in Door.__members__ else f"no door {args.get('door')!r}"

    def _sas_open_door(self, m: SlotMachine, args: Mapping[str, Any]) -> Activity:
        door = self._door(args)
        if isinstance(door, str):
            return door
        if door in m.accounts.doors_open:
            return f"{door.name.lower()} door already open"
        m.open_door(door, str(args.get("staff") or self.on_duty("technician")))
        return None

    def _sas_close_door(self, m: SlotMachine, args: Mapping[str, Any]) -> Activity:
        door = self._door(args)
        if isinstance(door, str):
            return door
        if door not in m.accounts.doors_open:
            return f"{door.name.lower()} door not open"
        m.close_door(door, str(args.get("staff") or self.on_duty("technician")))
        return None

    def _sas_power_loss(self, m: SlotMachine, args: Mapping[str, Any]) -> Activity:
        """AC power lost, as the floor's disruptions have it: the machine tilts (its games
        since power-up restart), a technician repairs it and power is applied again."""
        m.tilt(ExceptionCode.AC_POWER_LOST)
        return m.repair(ExceptionCode.AC_POWER_LOST)

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
        checked = set(self.hw.finding_controls())  # the SAS loop's only on a SAS line
        out |= {c for c, reads in _HW_READS.items() if c in checked and session & set(reads)}
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


__all__ = [
    "MACHINE_CHECKS",
    "MachineActed",
    "ProcedureBench",
    "ProcedureResult",
    "machine_controls",
]
