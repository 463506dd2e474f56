"""Conversions (Malta First Schedule item 11): made by persons the Board licensed for
maintenance after its written approval, complete and accurate records of them, a copy lodged
with the Secretary at once ("immediately": working days of the ruleset's country).

A program that changes with no conversion at all is a conversion without approval (11(a));
item 14(a) finds the same change as an alteration of the machine's operation
(``checks.works``).
"""

from __future__ import annotations

from datetime import datetime

from twin.compliance.checks.programs import _ApprovedProgram
from twin.compliance.checks.works import NEEDS_LIFECYCLE, C, W, _Works, swapped_program
from twin.compliance.registry import Checker, Kind, control
from twin.lifecycle.params import CONVERSION_LODGE_DAYS
from twin.lifecycle.records import ConversionLodged, ConversionRecorded
from twin.machines.verification import ProgramConverted
from twin.records import Record
from twin.workdays import WORKDAY_COUNTRY, deadline


def lodge_deadline(converted: datetime, days: int, country: str) -> datetime:
    """Item 11(c): the last instant (local) a conversion record may reach the Secretary,
    "immediately" read as the end of the ``days``-th working day of ``country`` after the
    conversion's date (its own day excluded)."""
    return deadline(converted, days, country)


# -- item 11 --------------------------------------------------------------------------------


@control(
    "MT98.S1.11a",
    kind=Kind.RUNTIME,
    title="Conversions only by licensed people, after written Board approval",
    reads=(
        "casino_licence_event",
        "maintenance_licence",
        "board_decided",
        "machine_installed",
        "program_converted",
        "program_verified",
        "meters_read",
    ),
    observes=("program_converted",),
    needs="a conversion (its licence part: on a floor with " + NEEDS_LIFECYCLE + ")",
    test=C + "S1.11a]",
    checks={
        "the conversion is made by a person the Board licensed for maintenance": C
        + "S1.11a-unlicensed]",
        "after the Board's written approval of that conversion (for that machine, before it)": C
        + "S1.11a]",
        "a work done with approval 'none' is found": W
        + "test_a_work_without_approval_given_as_data_is_found[conversion-MT98.S1.11a]",
        "a program changed with no conversion at all (a signature challenge or a meter reading "
        "shows another program) is a conversion without approval": W
        + "test_a_program_swap_is_a_conversion_without_approval_and_an_alteration",
    },
    unchecked=(
        "that both configurations are 'pre-approved': items 11(a) and 1(a) and reg 28(3)(a) "
        "find a program the Board does not hold",
        "a conversion by an unlicensed person is found here only, not also under item 14(a): "
        "11(a) is the clause for conversions",
        "who converts on a floor without a [lifecycle] (it keeps no register of licences); the "
        "approval is checked everywhere: a floor without one has no approval on record",
    ),
)
class ConversionAuthorised(_Works, _ApprovedProgram):
    """Each ``program_converted``: its technician holds a maintenance licence, its approval
    names the Board's written approval of a conversion of that machine, decided before it.
    A program that changes without a conversion is a conversion without approval."""

    def setup(self) -> None:
        _Works.setup(self)
        _ApprovedProgram.setup(self)

    def on_record(self, rec: Record) -> None:
        if self.follow_works(rec):
            return
        self.follow(rec)
        if isinstance(rec, ProgramConverted):  # with or without a lifecycle: no approval
            self.converted(rec)  # on record is no approval
            return
        swapped = swapped_program(self, rec)
        if swapped is not None:
            m = rec.entity("machine")
            self.report_once(
                ("swap", m),
                (m,),
                f"machine {m} runs {swapped}, not the program {self.approved[m][:12]} it is "
                "approved to run, with no conversion recorded: a conversion without the "
                "Board's written approval",
                (rec.seq,),
            )

    def converted(self, rec: ProgramConverted) -> None:
        m = rec.machine
        if self.lifecycle and rec.technician not in self.licensed:  # licences: the lifecycle's
            self.report(
                (m, rec.technician),
                f"machine {m} was converted to {rec.game_id} by {rec.technician}, whom the "
                "Board never licensed to perform maintenance",
                (rec.seq,),
            )
        fault = self.approval_fault(rec.approval, "conversion", (m,), rec.t)
        if fault is not None:
            why, seqs = fault
            self.report((m,), f"machine {m} was converted to {rec.game_id} {why}", (rec.seq, *seqs))


@control(
    "MT98.S1.11b",
    kind=Kind.RECORD,
    title="Complete conversion records",
    reads=("program_converted", "conversion_recorded"),
    observes=("program_converted",),
    test=C + "S1.11b]",
    checks={
        "every conversion has its record (conversion_recorded), by the end of the run": W
        + "test_a_conversion_with_no_record_is_found",
        "the record is complete: machine, programs from and to, technician, date, approval": C
        + "S1.11b]",
        "... and accurate: each field as the conversion was made (its date, local)": W
        + "test_an_inaccurate_conversion_record_is_found",
    },
)
class ConversionRecords(Checker):
    """Each ``program_converted`` is matched with the ``conversion_recorded`` of its machine
    that follows it; every field present and equal to the conversion's."""

    def setup(self) -> None:
        self.pending: dict[str, ProgramConverted] = {}

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, ProgramConverted):
            self.pending[rec.machine] = rec
            return
        assert isinstance(rec, ConversionRecorded)
        conv = self.pending.pop(rec.machine, None)
        if conv is None:
            return  # a record of no conversion: nothing of 11(b)'s
        day = self.ctx.clock.at(conv.t).date().isoformat()
        fields = (
            ("the programs converted from", rec.from_signature, conv.from_signature),
            ("the program converted to", rec.to_signature, conv.to_signature),
            ("who made it", rec.technician, conv.technician),
            ("its date", rec.date, day),
            ("the Board's approval", rec.approval, conv.approval),
        )
        missing = [what for what, got, _ in fields if not got and what != "the Board's approval"]
        wrong = [what for what, got, want in fields if got and got != want]
        if not missing and not wrong:
            return
        parts = []
        if missing:
            parts.append("leaves out " + " and ".join(missing))
        if wrong:
            parts.append("misstates " + " and ".join(wrong))
        self.report(
            (rec.machine,),
            f"the record of machine {rec.machine}'s conversion to {conv.to_signature[:12]} "
            f"({rec.work}) {'; '.join(parts)}",
            (conv.seq, rec.seq),
        )

    def finish(self) -> None:
        for m, conv in sorted(self.pending.items()):
            self.report(
                (m,),
                f"machine {m}'s conversion to {conv.game_id} has no conversion record",
                (conv.seq,),
            )


@control(
    "MT98.S1.11c",
    kind=Kind.RUNTIME,
    title="Conversion records lodged with the Secretary at once",
    reads=("program_converted", "conversion_lodged"),
    params=(CONVERSION_LODGE_DAYS.key, WORKDAY_COUNTRY.key),
    observes=("program_converted",),
    test=C + "S1.11c]",
    checks={
        "a copy of each conversion's record reaches the Secretary (conversion_lodged) by the "
        "end of the conversion_lodge_business_days-th working day after its date": C + "S1.11c]",
        "working days of working_days_country (weekends and public holidays)": W
        + "test_the_lodging_deadline_on_the_calendar",
        "a deadline still to come when the run ends is not a finding": W
        + "test_a_lodging_deadline_after_the_run_is_not_a_finding",
    },
    unchecked=("'immediately' is read as working days (the office's): a reading, the ruleset's",),
)
class ConversionLodgedAtOnce(Checker):
    """At each conversion a timer runs to its lodging deadline; a conversion of that machine
    not lodged by then is a finding (lodged late or never)."""

    def setup(self) -> None:
        self.open: dict[int, ProgramConverted] = {}  # conversion seq -> conversion

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, ProgramConverted):
            self.converted(rec)
            return
        assert isinstance(rec, ConversionLodged)
        for seq, conv in sorted(self.open.items()):
            if conv.machine == rec.machine and conv.t <= rec.converted_t + 1e-6:
                del self.open[seq]
                return

    def converted(self, rec: ProgramConverted) -> None:
        clock = self.ctx.clock
        days = self.ctx.rule(CONVERSION_LODGE_DAYS)
        due = lodge_deadline(clock.at(rec.t), days, self.ctx.rule(WORKDAY_COUNTRY))
        self.open[rec.seq] = rec

        def check() -> None:
            if rec.seq in self.open:
                del self.open[rec.seq]
                self.report(
                    (rec.machine,),
                    f"machine {rec.machine}'s conversion of {clock.iso(rec.t)} was not lodged "
                    f"with the Secretary by {due.isoformat()} ({days} working day(s))",
                    (rec.seq,),
                )

        self.ctx.after(max(0.0, clock.seconds(due) - rec.t), check)


__all__ = ["lodge_deadline"]
