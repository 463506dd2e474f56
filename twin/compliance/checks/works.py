"""The works on machines (Malta First Schedule items 9, 11-14 and 17): a removed machine's
contents secured before a Board inspector under the manual's approved procedure, conversions
(who, the Board's written approval, the records, lodged with the Secretary at once), copies
of programme media, moves and replacements, maintenance and repairs, faults, and machines
whose approval the Board suspended.

The Board's written approvals are ``board_decided`` records (decision "approved", in
writing) a work names by its reference; the persons licensed for maintenance are those of
``maintenance_licence``. Both are records of the lifecycle department (``[lifecycle]``): on a
floor without it the Board's approvals and licences are not recorded, and the controls that
need them are silent there (their ``needs``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from twin.compliance.checks.programs import _ApprovedProgram
from twin.compliance.registry import Checker, Kind, control
from twin.lifecycle.params import (
    FAULT_REPAIR_MAX_DAYS,
    REPLACEMENT_NEEDS_APPROVAL,
)
from twin.lifecycle.records import (
    ApprovalRestored,
    ApprovalSuspended,
    BoardDecided,
    CasinoLicenceEvent,
    EpromCopied,
    MachineFaultCleared,
    MachineFaultFound,
    MachineMoved,
    MachineRepaired,
    MachineReplaced,
    MaintenanceLicence,
    ManualFiled,
    ProcedureFollowed,
    RepairLogged,
    RepairLogInspected,
)
from twin.machines.events import (
    GamesPlayed,
    MachineRemoved,
    MachineReturned,
    MetersRead,
    MoneyRemoved,
    TiltRepaired,
)
from twin.machines.verification import ProgramVerified
from twin.patrons.records import PatronLeft, SessionStarted
from twin.records import Record
from twin.staff.records import ShiftStarted

W = "tests/test_lifecycle_works.py::"
INJ = W + "test_injected_violation_is_found"
C = INJ + "["  # one case of INJ

#: the reasons of ``money_removed`` at a machine's removal (its drop and stacker, its hopper)
REMOVAL_REASONS = frozenset({"machine_removed", "hopper_emptied"})
#: without a ``[lifecycle]`` section nobody's maintenance licence and no approval is on record
NEEDS_LIFECYCLE = "a [lifecycle] section (the Board's licences and written approvals)"


class _Works(Checker):
    """What the works' controls share: whether the run has a lifecycle, the Board's written
    approvals by reference, the persons licensed for maintenance."""

    def setup(self) -> None:
        self.lifecycle = False
        self.decisions: dict[str, BoardDecided] = {}
        self.licensed: set[str] = set()

    def follow_works(self, rec: Record) -> bool:
        """Take in a record of context; True when ``rec`` was one."""
        if isinstance(rec, CasinoLicenceEvent):
            self.lifecycle = True
        elif isinstance(rec, BoardDecided):
            if rec.approval and rec.decision == "approved":
                self.decisions[rec.approval] = rec
        elif isinstance(rec, MaintenanceLicence):
            self.lifecycle = True
            self.licensed.add(rec.member)
        else:
            return False
        return True

    def approval_fault(
        self, ref: str, matter: str, machines: tuple[str, ...], t: float
    ) -> tuple[str, tuple[int, ...]] | None:
        """Why ``ref`` is not the Board's prior written approval of ``matter`` for one of
        ``machines`` at ``t`` (None when it is), with the decision's record if any."""
        if not ref:
            return "with no written approval of the Board", ()
        d = self.decisions.get(ref)
        if d is None:
            return f"under approval {ref}, which is no approval of the Board", ()
        if d.matter != matter:
            return f"under approval {ref}, the Board's approval of a {d.matter}", (d.seq,)
        if d.machine not in machines:
            return f"under approval {ref}, given for machine {d.machine}", (d.seq,)
        if not d.in_writing:
            return f"under approval {ref}, not given in writing", (d.seq,)
        if d.t > t:
            return f"before the Board's approval {ref} of {self.ctx.clock.iso(d.t)}", (d.seq,)
        return None


def swapped_program(checker: _ApprovedProgram, rec: Record) -> str | None:
    """What ``rec`` (a signature challenge or a meter reading) shows a machine runs when it
    is not the program it is approved to run, in words (None when it is, or it tells
    nothing): :meth:`_ApprovedProgram.other_program`'s answer."""
    other = checker.other_program(rec)
    if other is None:
        return None
    sig, shown_by = other
    what = f"program {sig[:12]}" if sig is not None else "a program the Board does not hold"
    return f"{what} (its {shown_by})"


# -- item 9 ---------------------------------------------------------------------------------


@dataclass
class _Removal:
    """A machine's removal under way: the money taken out of it, the procedure followed."""

    money: list[MoneyRemoved] = field(default_factory=list)
    procedure: ProcedureFollowed | None = None


@control(
    "MT98.S1.9a",
    kind=Kind.RUNTIME,
    title="Protect drop and hopper contents when a machine is removed",
    reads=(
        "money_removed",
        "machine_removed",
        "machine_returned",
        "procedure_followed",
        "icpm_filed",
    ),
    observes=("machine_removed",),
    test=C + "S1.9a]",
    checks={
        "a machine taken off the floor leaves with its hopper empty (hopper_left 0)": C + "S1.9a]",
        "... its drop (drop bucket, bill stacker) emptied at the removal (money_removed)": W
        + "test_a_removal_with_no_container_emptied_is_found",
        "the removal follows the manual's procedure (machine_removal in the manual)": W
        + "test_a_manual_without_the_removal_procedure_approved_is_found",
        "... a procedure the Board approved (the manual's approved procedures)": W
        + "test_a_manual_without_the_removal_procedure_approved_is_found",
    },
    unchecked=(
        "which containers a machine has fitted is not recorded: one emptied at the removal is "
        "taken as its drop secured (the hopper by hopper_left)",
        "what the contents became after they were taken out (the count room's and the cage's "
        "controls follow the money)",
        "a run without [lifecycle] files no manual: the procedure is not judged there",
    ),
)
class RemovalContentsSecured(_Works):
    """At ``machine_removed``: the hopper left empty, the drop emptied at the removal, the
    removal's procedure in the manual and approved by the Board (the workflow's
    ``procedure_followed`` of "machine_removal", else the manual filed)."""

    def setup(self) -> None:
        super().setup()
        self.manual: ManualFiled | None = None
        self.removals: dict[str, _Removal] = {}

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, ManualFiled):
            self.manual = rec
        elif isinstance(rec, ProcedureFollowed):
            if rec.procedure == "machine_removal":
                self.removals.setdefault(rec.machine, _Removal()).procedure = rec
        elif isinstance(rec, MoneyRemoved):
            if rec.reason in REMOVAL_REASONS:
                self.removals.setdefault(rec.machine, _Removal()).money.append(rec)
        elif isinstance(rec, MachineReturned):
            self.removals.pop(rec.machine, None)
        elif isinstance(rec, MachineRemoved):
            self.removed(rec, self.removals.pop(rec.machine, _Removal()))

    def removed(self, rec: MachineRemoved, r: _Removal) -> None:
        m = rec.machine
        seqs = (rec.seq, *(x.seq for x in r.money))
        if rec.hopper_left > 0:
            self.report(
                (m,),
                f"machine {m} was taken off the floor ({rec.reason}) with {rec.hopper_left} "
                "coins still in its hopper: its contents were not secured",
                seqs,
            )
        if not any(x.container != "hopper" for x in r.money):
            self.report(
                (m,),
                f"machine {m} was taken off the floor ({rec.reason}) with its drop not emptied: "
                "no container was emptied at the removal",
                seqs,
            )
        if r.procedure is not None:
            in_manual, approved = r.procedure.in_manual, r.procedure.approved
            proof = r.procedure.seq
        elif self.manual is not None:
            in_manual = "machine_removal" in self.manual.topics
            approved = "machine_removal" in self.manual.approved
            proof = self.manual.seq
        else:
            return
        if not (in_manual and approved):
            why = "is not in the manual" if not in_manual else "the Board has not approved"
            self.report(
                (m,),
                f"machine {m}'s contents were secured at its removal ({rec.reason}) under a "
                f"procedure that {why} (machine_removal)",
                (rec.seq, proof),
            )


@control(
    "MT98.S1.9b",
    kind=Kind.RUNTIME,
    title="Inspector present when removed-machine contents are secured",
    reads=("money_removed", "machine_removed"),
    observes=("machine_removed",),
    test=C + "S1.9b]",
    checks={
        "a Board inspector witnesses each container emptied at a removal (money_removed)": C
        + "S1.9b]",
        "... and the removal itself (machine_removed.witness)": C + "S1.9b]",
    },
    unchecked=(
        "whether the inspector saw the contents 'adequately safeguarded' beyond being present "
        "(item 9(a)'s control finds a hopper left full)",
    ),
)
class RemovalInspectorPresent(Checker):
    """The witness of every ``money_removed`` of a removal and of the ``machine_removed`` is
    a Board inspector (``shift_started.employer`` "board"); one finding per removal."""

    def setup(self) -> None:
        self.unwitnessed: dict[str, list[int]] = {}

    def board(self, who: str) -> bool:
        return self.ctx.employers.get(who) == "board"

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, MoneyRemoved):
            if rec.reason in REMOVAL_REASONS and not self.board(rec.witness):
                self.unwitnessed.setdefault(rec.machine, []).append(rec.seq)
            return
        assert isinstance(rec, MachineRemoved)
        seqs = self.unwitnessed.pop(rec.machine, [])
        if not self.board(rec.witness):
            seqs.append(rec.seq)
        if seqs:
            who = f"witnessed by {rec.witness}" if rec.witness else "with no witness"
            self.report(
                (rec.machine,),
                f"machine {rec.machine}'s contents were secured at its removal ({rec.reason}) "
                f"{who}: no Board inspector was present",
                tuple(seqs),
            )


# -- item 12 --------------------------------------------------------------------------------


@control(
    "MT98.S1.12",
    kind=Kind.RUNTIME,
    title="Programme media copied only by a licensed manufacturer or the licensee",
    reads=("eprom_copied",),
    test=C + "S1.12]",
    checks={
        "every copy of programme media is made by a manufacturer or the casino licensee "
        "(eprom_copied.by), the licensee's copy by one of its own people": C + "S1.12]",
    },
    unchecked=(
        "that the manufacturer is licensed: the twin keeps no register of manufacturers' licences",
    ),
)
class MediaCopiedByWhom(Checker):
    def on_record(self, rec: Record) -> None:
        assert isinstance(rec, EpromCopied)
        if rec.by == "manufacturer":
            return
        if rec.by == "licensee" and self.ctx.is_employee(rec.member):
            return
        who = (
            f"{rec.member}, not one of the licensee's people"
            if rec.by == "licensee"
            else f"{rec.member}, neither a licensed manufacturer nor the casino licensee"
        )
        self.report(
            (rec.eprom, rec.member),
            f"EPROM {rec.eprom} was copied ({rec.copy}) by {who}",
            (rec.seq,),
        )


# -- item 13 --------------------------------------------------------------------------------


@control(
    "MT98.S1.13",
    kind=Kind.RUNTIME,
    title="Machine moves and replacements need written Board approval",
    reads=("board_decided", "machine_moved", "machine_replaced"),
    params=(REPLACEMENT_NEEDS_APPROVAL.key,),
    observes=("machine_moved", "machine_replaced"),
    test=C + "S1.13]",
    checks={
        "a machine is moved only under the Board's prior written approval of that move": C
        + "S1.13]",
        "... and replaced only under its prior written approval of that replacement": C
        + "S1.13-replacement]",
        "the replacement is a machine in use or a reserve machine the Board registered": W
        + "test_a_replacement_by_an_unregistered_machine_is_found",
        "a work done with approval 'none' is found": W
        + "test_a_work_without_approval_given_as_data_is_found[move-MT98.S1.13]",
        "replacement_needs_prior_approval false drops the approval of replacements": W
        + "test_a_ruleset_without_replacement_approval_finds_none",
    },
)
class MoveApproved(_Works):
    def setup(self) -> None:
        super().setup()
        self.registered: dict[str, int] = {}  # machine -> its registration's record

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, BoardDecided):
            if rec.matter == "registration" and rec.decision == "registered":
                self.registered[rec.machine] = rec.seq
            elif rec.matter == "deletion":
                self.registered.pop(rec.machine, None)
        if self.follow_works(rec):
            return
        if isinstance(rec, MachineMoved):
            fault = self.approval_fault(rec.approval, "move", (rec.machine,), rec.t)
            if fault is not None:
                why, seqs = fault
                self.report(
                    (rec.machine,),
                    f"machine {rec.machine} was moved from {rec.from_zone} to {rec.to_zone} {why}",
                    (rec.seq, *seqs),
                )
            return
        assert isinstance(rec, MachineReplaced)
        if self.ctx.rule(REPLACEMENT_NEEDS_APPROVAL):
            machines = (rec.replaced, rec.machine)
            fault = self.approval_fault(rec.approval, "replacement", machines, rec.t)
            if fault is not None:
                why, seqs = fault
                self.report(
                    (rec.replaced,),
                    f"machine {rec.replaced} was replaced by {rec.machine} {why}",
                    (rec.seq, *seqs),
                )
        if rec.source == "reserve" and rec.machine not in self.registered:
            self.report(
                (rec.replaced,),
                f"machine {rec.replaced} was replaced by {rec.machine}, a reserve machine the "
                "Board never registered",
                (rec.seq,),
            )
        elif rec.source not in ("reserve", "in_use"):
            self.report(
                (rec.replaced,),
                f"machine {rec.replaced} was replaced by {rec.machine} from {rec.source}: "
                "neither a machine in use nor a reserve machine",
                (rec.seq,),
            )


# -- item 14 --------------------------------------------------------------------------------


@control(
    "MT98.S1.14a",
    kind=Kind.RUNTIME,
    title="No altering machine operation; licensed maintenance only",
    reads=(
        "casino_licence_event",
        "maintenance_licence",
        "board_decided",
        "machine_installed",
        "program_converted",
        "program_verified",
        "meters_read",
        "machine_repaired",
        "tilt_repaired",
        "machine_fault_cleared",
    ),
    observes=(),  # counted by the checker: maintenance where licences are kept, every check
    needs="maintenance on a floor with " + NEEDS_LIFECYCLE + ", or a program check",
    test=C + "S1.14a]",
    checks={
        "maintenance (a repair, a tilt cleared, a fault repaired) only by a person the Board "
        "licensed for it": C + "S1.14a]",
        "the machine's operation is not altered (a program changed with no conversion)": W
        + "test_a_program_swap_is_a_conversion_without_approval_and_an_alteration",
    },
    unchecked=(
        "an alteration that leaves the program's signature as it was (a rigged pay table under "
        "the approved signature) is found by items 1 and 3's statistical controls",
        "a conversion by an unlicensed person is item 11(a)'s finding (the clause for "
        "conversions), not also this one",
        "door openings name who opened them but are not maintenance",
        "who maintains the machines of a floor without a [lifecycle] (it keeps no register of "
        "licences): there only the alteration part is checked",
    ),
)
class LicensedMaintenance(_Works, _ApprovedProgram):
    def setup(self) -> None:
        _Works.setup(self)
        _ApprovedProgram.setup(self)

    def on_record(self, rec: Record) -> None:
        if self.follow_works(rec):
            return
        self.follow(rec)
        if isinstance(rec, (MachineRepaired, TiltRepaired, MachineFaultCleared)):
            tech = rec.technician
            # who is licensed is the lifecycle's record (maintenance_licence); a floor without
            # one keeps no licences, and its maintenance is not judged here
            if self.lifecycle:
                self.observed()
            if self.lifecycle and tech and tech not in self.licensed:
                what = {
                    MachineRepaired: "repaired",
                    TiltRepaired: "cleared of a tilt",
                    MachineFaultCleared: "repaired of a fault",
                }[type(rec)]
                self.report(
                    (rec.machine, tech),
                    f"machine {rec.machine} was {what} by {tech}, whom the Board never licensed "
                    "to perform maintenance",
                    (rec.seq,),
                )
            return
        if isinstance(rec, ProgramVerified | MetersRead):
            self.observed()  # a check of what the machine runs
        swapped = swapped_program(self, rec)
        if swapped is not None:
            m = rec.entity("machine")
            self.report_once(
                m,
                (m,),
                f"machine {m}'s operation was altered: it runs {swapped}, not the program "
                f"{self.approved[m][:12]} it is approved to run",
                (rec.seq,),
            )


@control(
    "MT98.S1.14b",
    kind=Kind.PERIODIC,
    title="Machines kept in good condition",
    reads=("machine_fault_found", "machine_fault_cleared", "machine_removed"),
    params=(FAULT_REPAIR_MAX_DAYS.key,),
    observes=("machine_fault_found",),
    test=C + "S1.14b]",
    checks={
        "a fault found on a machine in play is repaired within fault_repair_max_days": C
        + "S1.14b]",
        "a machine taken off the floor before the deadline is not in play: no finding": W
        + "test_a_fault_deadline_after_the_run_is_not_a_finding",
        "a deadline still to come when the run ends is not a finding": W
        + "test_a_fault_deadline_after_the_run_is_not_a_finding",
    },
    unchecked=(
        "'good condition' beyond the faults inspections record (cosmetic wear, cleanliness)",
        "tilts are repaired by the floor's own workflow (item 14(a) sees who repairs them)",
    ),
)
class GoodCondition(Checker):
    """A timer of ``fault_repair_max_days`` from each fault found; the fault still open then,
    on a machine not removed since, is a finding."""

    def setup(self) -> None:
        self.open: dict[tuple[str, str], MachineFaultFound] = {}
        self.removed: dict[str, float] = {}

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, MachineRemoved):
            self.removed[rec.machine] = rec.t
        elif isinstance(rec, MachineFaultCleared):
            self.open.pop((rec.machine, rec.fault), None)
        elif isinstance(rec, MachineFaultFound):
            self.found(rec)

    def found(self, rec: MachineFaultFound) -> None:
        key = (rec.machine, rec.fault)
        self.open[key] = rec
        days = self.ctx.rule(FAULT_REPAIR_MAX_DAYS)

        def check() -> None:
            if self.open.get(key) is not rec:
                return
            del self.open[key]
            if self.removed.get(rec.machine, -1.0) >= rec.t:
                return  # out of play before the deadline
            self.report(
                (rec.machine,),
                f"the fault '{rec.fault}' found on machine {rec.machine} at "
                f"{self.ctx.clock.iso(rec.t)} was not repaired within {days} day(s), the machine "
                "still in play",
                (rec.seq,),
            )

        self.ctx.after(days * 86400.0, check)


@control(
    "MT98.S1.14c",
    kind=Kind.RUNTIME,
    title="Outcome-affecting repairs need Board authorisation",
    reads=("board_decided", "machine_repaired"),
    observes=(),
    needs="a repair of a part that may affect the game outcome",
    test=C + "S1.14c]",
    checks={
        "a repair of a part that may affect the outcome is made under the Board's specific "
        "written authorisation of that repair, for that machine, given before it": C + "S1.14c]",
        "a work done with approval 'none' is found": W
        + "test_a_work_without_approval_given_as_data_is_found[repair-MT98.S1.14c]",
    },
    unchecked=(
        "which parts 'may affect the game outcome' is the work's own flag (outcome_affecting)",
    ),
)
class RepairAuthorised(_Works):
    def on_record(self, rec: Record) -> None:
        if self.follow_works(rec):
            return
        assert isinstance(rec, MachineRepaired)
        if not rec.outcome_affecting:
            return
        self.observed()
        fault = self.approval_fault(rec.approval, "repair", (rec.machine,), rec.t)
        if fault is not None:
            why, seqs = fault
            self.report(
                (rec.machine,),
                f"the {rec.part} of machine {rec.machine}, a part that may affect the game "
                f"outcome, was repaired {why}",
                (rec.seq, *seqs),
            )


@control(
    "MT98.S1.14d",
    kind=Kind.RECORD,
    title="Written log of outcome-affecting repairs",
    reads=("shift_started", "machine_repaired", "repair_logged", "repair_log_inspected"),
    observes=("repair_log_inspected",),
    needs="an outcome-affecting repair, or an inspector asking for the list",
    test=C + "S1.14d]",
    checks={
        "every repair of a part that may affect the outcome is on the written list": C + "S1.14d]",
        "... with the name of the person who made it, and its part and date": W
        + "test_a_repair_log_entry_with_a_wrong_name_is_found",
        "the list is shown to a Board inspector on request, with every entry so far": W
        + "test_a_repair_log_refused_to_the_inspector_is_found",
    },
)
class RepairLog(Checker):
    def setup(self) -> None:
        self.names: dict[str, str] = {}
        self.repairs: dict[tuple[str, str], MachineRepaired] = {}
        self.logged = 0

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, ShiftStarted):
            self.names[rec.member] = rec.name
        elif isinstance(rec, MachineRepaired):
            if rec.outcome_affecting:
                self.observed()
                self.repairs[(rec.machine, rec.work)] = rec
        elif isinstance(rec, RepairLogged):
            self.entry(rec)
        elif isinstance(rec, RepairLogInspected) and (not rec.shown or rec.entries < self.logged):
            shown = f"{rec.entries} of its {self.logged} entries" if rec.shown else "nothing"
            self.report(
                (rec.inspector,),
                f"inspector {rec.inspector} asked for the list of outcome-affecting repairs "
                f"and was shown {shown}",
                (rec.seq,),
            )

    def entry(self, rec: RepairLogged) -> None:
        self.logged += 1
        repair = self.repairs.pop((rec.machine, rec.work), None)
        if repair is None:
            return
        name = self.names.get(repair.technician, repair.technician)
        day = self.ctx.clock.at(repair.t).date().isoformat()
        wrong = [
            what
            for what, got, want in (
                ("the name of who made it", rec.technician_name, name),
                ("the part", rec.part, repair.part),
                ("the date", rec.date, day),
            )
            if got != want
        ]
        if wrong:
            self.report(
                (rec.machine,),
                f"the list's entry for the repair of machine {rec.machine}'s {repair.part} "
                f"({rec.work}) has wrong or no {' and '.join(wrong)} (made by {name} on {day})",
                (repair.seq, rec.seq),
            )

    def finish(self) -> None:
        for (m, work), rec in sorted(self.repairs.items()):
            self.report(
                (m,),
                f"the repair of machine {m}'s {rec.part} ({work}) by {rec.technician}, a part "
                "that may affect the game outcome, is not on the written list of repairs",
                (rec.seq,),
            )


# -- item 17 --------------------------------------------------------------------------------


@control(
    "MT98.S1.17",
    kind=Kind.GOVERNANCE,
    title="Suspension of machines that do not operate as certified or approved",
    reads=(
        "approval_suspended",
        "approval_restored",
        "session_started",
        "patron_left",
        "games_played",
    ),
    observes=("approval_suspended",),
    test=C + "S1.17]",
    checks={
        "a machine whose approval the Board suspended is out of play until it is restored: no "
        "games on it by a session begun after the notice": C + "S1.17]",
        "the session under way at the notice ends its play (the patron is not cut off)": W
        + "test_the_session_under_way_at_a_suspension_may_finish",
    },
    unchecked=(
        "whether the Board's ground for suspending (the machine not as certified or approved) "
        "holds: the Board's decision, not the licensee's duty",
    ),
)
class SuspendedOutOfPlay(Checker):
    """From ``approval_suspended`` until ``approval_restored`` a machine's ``games_played``
    are a finding, save those of the patron whose session on it was under way at the notice
    (the withdrawal lets them finish, as a removal does: ``cabinet.leave_floor``), until they
    leave it."""

    def setup(self) -> None:
        self.playing: dict[str, str] = {}  # machine -> the patron in session on it
        self.suspended: dict[str, tuple[int, str]] = {}  # machine -> (notice, grace patron)

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, SessionStarted):
            self.playing[rec.machine] = rec.patron
        elif isinstance(rec, PatronLeft):
            if self.playing.get(rec.machine) == rec.patron:
                del self.playing[rec.machine]
            s = self.suspended.get(rec.machine)
            if s is not None and s[1] == rec.patron:
                self.suspended[rec.machine] = (s[0], "")
        elif isinstance(rec, ApprovalSuspended):
            self.suspended[rec.machine] = (rec.seq, self.playing.get(rec.machine, ""))
        elif isinstance(rec, ApprovalRestored):
            self.suspended.pop(rec.machine, None)
        elif isinstance(rec, GamesPlayed):
            s = self.suspended.get(rec.machine)
            if s is None or (s[1] and s[1] == rec.patron):
                return
            self.report_once(
                (rec.machine, s[0]),
                (rec.machine,),
                f"machine {rec.machine}, whose approval the Board suspended, was played "
                f"({rec.games} games by {rec.patron}) before its approval was restored",
                (s[0], rec.seq),
            )


__all__ = ["NEEDS_LIFECYCLE", "REMOVAL_REASONS", "swapped_program"]
