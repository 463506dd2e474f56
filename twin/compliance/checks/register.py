"""The specifications the licensee furnishes and the notices it gives to the Board (Malta reg
30(1)), and a machine that no longer matches what was filed (30(2)); the Board's side of the
register (regs 31-35) is in ``checks.register_board``.

Deadlines: "on" an event (30(1)) is read as by the end of that event's calendar day (local);
the Board's decisions (32) as within ``board_decision_hours`` real hours of the notice (the
twin's reading: the text sets no time); the Secretary's "immediately" (34) as by the end of
the first working day after the decision (Malta's working days, ``working_days_country``).
A deadline that has not passed when the run ends is never a finding.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from twin.compliance.checks.programs import _ApprovedProgram
from twin.compliance.registry import Checker, Kind, control
from twin.lifecycle.records import (
    CasinoLicenceEvent,
    DisposalNotified,
    MachineAcquired,
    MachineDisposed,
    MachineReplaced,
    MachineStored,
    SpecsFurnished,
)
from twin.machines.events import MachineInstalled
from twin.machines.verification import ProgramConverted
from twin.records import Record
from twin.workdays import deadline

T = "tests/test_lifecycle_register.py::"
INJ = T + "test_injected_violation_is_found"
C = INJ + "["


def end_of_day(when: datetime) -> datetime:
    """The last instant of ``when``'s own calendar day (local): "on" an event."""
    return deadline(when, 0, "MT")  # n = 0: the day itself, whatever its kind


def notice_deadline(decided: datetime, days: int, country: str) -> datetime:
    """The last instant the Secretary's written notice of a refusal or deletion may go
    (reg 34, "immediately", read as ``board_notice_business_days``): the end of the
    ``days``-th working day after the decision's day."""
    return deadline(decided, days, country)


class _Deadlines(Checker):
    """Timers at calendar deadlines: a deadline the run does not reach is never checked."""

    def at_deadline(self, due: datetime, fn: Callable[[], None]) -> None:
        t = self.ctx.clock.seconds(due)
        self.ctx.after(max(0.0, t - self.ctx.now), fn)

    def on_day_end(self, rec: Record, fn: Callable[[], None]) -> None:
        self.at_deadline(end_of_day(self.ctx.clock.at(rec.t)), fn)

    def day(self, t: float) -> str:
        return self.ctx.clock.at(t).date().isoformat()


# -- reg 30(1): what the licensee furnishes and notifies ---------------------------------------


@control(
    "MT98.R30.1a",
    kind=Kind.GOVERNANCE,
    title="Machine specifications on grant or renewal of the casino licence",
    reads=("casino_licence_event", "machine_installed", "machine_stored", "specs_furnished"),
    observes=("casino_licence_event",),
    test=INJ,
    checks={
        "every machine kept for use at the grant or renewal, on the floor and in the reserve "
        "store, has its specifications furnished with the reason of the licence event": C
        + "R30.1a]",
        "a grant as a renewal": T + "test_a_licence_grant_files_every_machine_as_granted",
        "'on' the grant or renewal: by the end of its calendar day": T
        + "test_specs_on_the_licence_event_are_due_by_the_end_of_its_day",
    },
    unchecked=(
        "the specifications' completeness: a filing carries the twin's particulars (registration,"
        " serial, program, denomination, maximum bet); whether they are the machine's is 30(2)",
    ),
)
class SpecsOnLicence(_Deadlines):
    def setup(self) -> None:
        self.kept: dict[str, MachineInstalled | MachineStored] = {}  # machine -> first seen kept
        self.filed: dict[tuple[str, str], float] = {}  # (machine, reason) -> when

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, MachineInstalled | MachineStored):
            self.kept.setdefault(rec.machine, rec)
        elif isinstance(rec, SpecsFurnished):
            self.filed.setdefault((rec.machine, rec.reason), rec.t)
        elif isinstance(rec, CasinoLicenceEvent):
            ev = rec
            self.on_day_end(ev, lambda: self._due(ev))

    def _due(self, ev: CasinoLicenceEvent) -> None:
        # the machines kept at the event: installed or stored by then
        for m, kept in sorted(self.kept.items()):
            if kept.t > ev.t or (m, ev.event) in self.filed:
                continue
            self.report(
                (m,),
                f"machine {m} was kept for use at the casino licence's {ev.event} on "
                f"{self.day(ev.t)}, but its specifications were not furnished to the Board "
                f"on the {ev.event}",
                (ev.seq, kept.seq),
            )


@control(
    "MT98.R30.1b",
    kind=Kind.GOVERNANCE,
    title="Machine specifications on acquisition or replacement",
    reads=("machine_acquired", "machine_replaced", "specs_furnished"),
    observes=("machine_acquired", "machine_replaced"),
    needs="a machine acquired or a replacement from reserve, with a [lifecycle] section",
    test=INJ,
    checks={
        "a machine acquired has its specifications furnished (reason acquisition)": C + "R30.1b]",
        "a machine brought in as a replacement has its specifications furnished (reason "
        "replacement)": T + "test_a_replacement_files_the_incoming_machine",
        "'on' the acquisition or replacement: by the end of its calendar day": T
        + "test_specs_on_the_licence_event_are_due_by_the_end_of_its_day",
    },
    unchecked=("what the specifications carry: 30(2) compares them with the machine",),
)
class SpecsOnAcquisition(_Deadlines):
    def setup(self) -> None:
        self.filed: set[tuple[str, str]] = set()

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, SpecsFurnished):
            self.filed.add((rec.machine, rec.reason))
        elif isinstance(rec, MachineAcquired | MachineReplaced):
            if isinstance(rec, MachineAcquired):
                why, what = "acquisition", "acquired"
            else:
                why, what = "replacement", f"brought in to replace {rec.replaced}"
            r = rec
            self.on_day_end(rec, lambda: self._due(r, why, what))

    def _due(self, rec: MachineAcquired | MachineReplaced, why: str, what: str) -> None:
        if (rec.machine, why) in self.filed:
            return
        self.report(
            (rec.machine,),
            f"machine {rec.machine} was {what} on {self.day(rec.t)}, but its specifications "
            "were never furnished to the Board",
            (rec.seq,),
        )


@control(
    "MT98.R30.1c",
    kind=Kind.GOVERNANCE,
    title="Notify the Board in writing of specification changes",
    reads=("casino_licence_event", "program_converted", "specs_furnished"),
    observes=(),
    needs="a conversion of a registered machine, with a [lifecycle] section",
    test=INJ,
    checks={
        "a conversion (it alters the program filed) is notified as altered specifications": T
        + "test_an_unnotified_alteration_is_found_at_the_end_of_its_day",
        "... in writing": C + "R30.1c]",
        "'on' the alteration: by the end of its calendar day": T
        + "test_an_unnotified_alteration_is_found_at_the_end_of_its_day",
    },
    unchecked=(
        "an alteration not made by a recorded conversion (a program swapped in secret) is reg "
        "30(2)'s: the machine no longer corresponds to its filed specifications",
        "the other specifications (denomination, maximum bet): the twin alters only programs",
        "floors with no [lifecycle] section (no Board to notify: no licence event) are not checked",
    ),
)
class AlterationNotified(_Deadlines):
    def setup(self) -> None:
        self.lifecycle = False
        self.notified: dict[str, SpecsFurnished] = {}  # machine -> its last alteration notice

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, CasinoLicenceEvent):
            self.lifecycle = True
        elif isinstance(rec, ProgramConverted) and self.lifecycle:
            self.observed()
            conv = rec
            self.notified.pop(rec.machine, None)
            self.on_day_end(rec, lambda: self._due(conv))
        elif isinstance(rec, SpecsFurnished) and rec.reason == "alteration":
            self.notified[rec.machine] = rec

    def _due(self, conv: ProgramConverted) -> None:
        m = conv.machine
        notice = self.notified.get(m)
        if notice is None:
            self.report(
                (m,),
                f"machine {m}'s program was converted on {self.day(conv.t)} (to "
                f"{conv.game_id}), but the Board was never notified of the altered "
                "specifications",
                (conv.seq,),
            )
        elif not notice.in_writing:
            self.report(
                (m,),
                f"machine {m}'s altered specifications (its conversion to {conv.game_id}) were "
                "notified to the Board, but not in writing",
                (conv.seq, notice.seq),
            )


@control(
    "MT98.R30.1d",
    kind=Kind.GOVERNANCE,
    title="Notify the Board of machine destruction or disposal",
    reads=("machine_disposed", "disposal_notified"),
    observes=("machine_disposed",),
    needs="a machine disposed of or destroyed, with a [lifecycle] section",
    test=INJ,
    checks={
        "a machine destroyed or disposed of is notified to the Board": C + "R30.1d]",
        "... in writing": T + "test_an_oral_disposal_notice_is_not_in_writing",
        "'on' the disposal: by the end of its calendar day": T
        + "test_specs_on_the_licence_event_are_due_by_the_end_of_its_day",
    },
)
class DisposalNotice(_Deadlines):
    def setup(self) -> None:
        self.notified: dict[str, DisposalNotified] = {}

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, DisposalNotified):
            self.notified[rec.machine] = rec
        elif isinstance(rec, MachineDisposed):
            d = rec
            self.on_day_end(rec, lambda: self._due(d))

    def _due(self, d: MachineDisposed) -> None:
        notice = self.notified.get(d.machine)
        if notice is None:
            self.report(
                (d.machine,),
                f"machine {d.machine} was {d.method} on {self.day(d.t)}, but the Board was "
                "never notified of its disposal",
                (d.seq,),
            )
        elif not notice.in_writing:
            self.report(
                (d.machine,),
                f"machine {d.machine}'s disposal ({d.method}) was notified to the Board, but "
                "not in writing",
                (d.seq, notice.seq),
            )


# -- reg 30(2): a machine that no longer matches what was filed -------------------------------


@control(
    "MT98.R30.2",
    kind=Kind.RUNTIME,
    title="A machine that does not match its filed specs counts as unregistered",
    reads=(
        "machine_installed",
        "program_converted",
        "program_verified",
        "meters_read",
        "specs_furnished",
    ),
    observes=("machine_installed", "program_verified"),
    test=INJ,
    checks={
        "the program a machine runs (signature challenge) or reports (meter reading) is the one "
        "its registration authorises or an approved conversion put in": C + "R30.2]",
        "a program that only the signature challenge shows (the machine reports the approved "
        "one)": "tests/test_controls_programs.py::"
        "test_tampered_low_return_program_is_found_under_1a_and_r30_2_from_the_verification",
        "the specifications furnished (program, serial, denomination, maximum bet) are those "
        "of the machine as installed": T + "test_filed_specs_that_differ_from_the_machine",
    },
    unchecked=(
        "'may not be operated': the finding names the machine from the first record that shows "
        "the difference; the games it plays after it are not each a finding",
        "a program changed between two verifications runs unseen until the next one "
        "(program_verification_hours), unless the machine reports it",
        "specifications other than the program, serial, denomination and maximum bet: the "
        "twin files no others",
    ),
)
class MatchesFiledSpecs(_ApprovedProgram):
    """The machine must correspond to what was furnished for it: the program its registration
    authorises (or an approved conversion put in), and, where the lifecycle filed them, the
    serial, denomination and maximum bet of the machine as installed. A machine that does
    not is treated as not registered (reg 30(2))."""

    def setup(self) -> None:
        super().setup()
        self.filed: dict[str, SpecsFurnished] = {}

    def _unregistered(self, m: str, what: str, evidence: tuple[int, ...]) -> None:
        self.report_once(
            m,
            (m,),
            f"machine {m} {what}: it no longer corresponds to the specifications furnished to "
            "the Board and is treated as not registered (reg 30(2))",
            evidence,
        )

    def on_record(self, rec: Record) -> None:
        self.follow(rec)
        if isinstance(rec, SpecsFurnished):
            self.filed[rec.machine] = rec
            inst = self.ctx.installed.get(rec.machine)
            if inst is not None and rec.place == "floor":
                self._compare(rec, inst, rec.seq)
            return
        if isinstance(rec, MachineInstalled):
            filed = self.filed.get(rec.machine)
            if filed is not None:
                self._compare(filed, rec, rec.seq)
            return
        other = self.other_program(rec)
        if other is None:
            return
        m = rec.entity("machine")
        sig, shown_by = other
        what = f"program {sig[:12]}" if sig is not None else "a program the Board does not hold"
        shows = (
            f"answers its signature challenge for {what}"
            if shown_by == "signature challenge"
            else f"reports {what}"
        )
        self._unregistered(
            m,
            f"{shows}, not the program {self.approved[m][:12]} its registration authorises, "
            "without an approved conversion",
            (rec.seq,),
        )

    def _compare(self, filed: SpecsFurnished, inst: MachineInstalled, seq: int) -> None:
        m = inst.machine
        running = self.approved.get(m, inst.game_signature)
        diffs = [
            f"{name} {got} (filed: {want})"
            for name, got, want in (
                ("program", running[:12], filed.game_signature[:12]),
                ("serial", inst.serial, filed.serial),
                ("denomination", f"{inst.denomination_cents} cents",
                 f"{filed.denomination_cents} cents"),
                ("maximum bet", f"{inst.max_bet_units} units", f"{filed.max_bet_units} units"),
            )
            if got != want
        ]  # fmt: skip
        if diffs:
            self._unregistered(
                m,
                "as installed differs from its filed specifications: " + "; ".join(diffs),
                (filed.seq, inst.seq, seq),
            )
