"""The Board's register of machines (Malta regs 31-35): registrations within the licensed
number and the reserve store (31(1) and its provisos), the register kept current (31(2), 32),
the certificate shown to players (33), refusals and deletions notified and the certificate
produced for amendment (34, 35). The licensee's filings (reg 30) are in ``checks.register``,
with the reading of every deadline.
"""

from __future__ import annotations

import math
from datetime import datetime

from twin.compliance.checks.register import INJ, C, T, _Deadlines, notice_deadline
from twin.compliance.registry import Checker, Kind, control
from twin.lifecycle.params import (
    BOARD_DECISION_HOURS,
    NOTICE_DAYS,
    REPLACEMENT_NEEDS_APPROVAL,
    RESERVE_MAX_FRACTION,
)
from twin.lifecycle.records import (
    BoardDecided,
    CasinoLicenceEvent,
    CertificateIssued,
    CertificateProduced,
    CertificateRequested,
    DisposalNotified,
    LicenseeNotified,
    MachineReplaced,
    MachineStored,
    SpecsFurnished,
    StoreAudited,
)
from twin.records import Record
from twin.workdays import WORKDAY_COUNTRY

# -- reg 31(1): registrations within the licensed number, the reserve store, replacements ----


class _Licensed(Checker):
    """Knows the licensed number (the last grant or renewal) and the reserve cap."""

    def setup(self) -> None:
        self.licence: CasinoLicenceEvent | None = None

    def follow_licence(self, rec: Record) -> None:
        if isinstance(rec, CasinoLicenceEvent):
            self.licence = rec

    def reserve_cap(self) -> int:
        assert self.licence is not None
        frac = float(self.ctx.rule(RESERVE_MAX_FRACTION))
        return math.floor(frac * self.licence.licensed_machines + 1e-9)


@control(
    "MT98.R31.1",
    kind=Kind.GOVERNANCE,
    title="Registered machines capped at the licensed number",
    reads=("casino_licence_event", "board_decided"),
    observes=(),
    needs="a registration by the Board (a [lifecycle] section)",
    test=INJ,
    checks={
        "no registration takes the machines registered for the gaming area above the number the "
        "licence authorises": C + "R31.1]",
        "... at the licence event and at the registration of a machine acquired later": T
        + "test_an_acquired_machine_registered_beyond_the_licence",
    },
    unchecked=(
        "(a) whether the machine is an authorised machine (reg 28) complying with the licence "
        "and reg 29: the controls of regs 28 and 29 find the machine itself",
        "the reserve machines registered beyond the floor's number: the first proviso's cap, "
        "MT98.R31.1.p1",
        "'or otherwise by order of the Board': the twin's Board makes no such order",
    ),
)
class RegisteredWithinLicence(_Licensed):
    def setup(self) -> None:
        super().setup()
        self.registered = 0  # machines registered for the gaming area, as the Board last said

    def on_record(self, rec: Record) -> None:
        self.follow_licence(rec)
        if not isinstance(rec, BoardDecided):
            return
        before, self.registered = self.registered, rec.registered
        if rec.matter != "registration" or rec.decision != "registered" or self.licence is None:
            return
        self.observed()
        licensed = self.licence.licensed_machines
        if rec.registered > licensed and rec.registered > before:
            self.report(
                (rec.machine,),
                f"the Board registered machine {rec.machine} for the gaming area, taking the "
                f"register to {rec.registered} machines, above the {licensed} the casino "
                "licence authorises",
                (self.licence.seq, rec.seq),
            )


@control(
    "MT98.R31.1.p1",
    kind=Kind.PERIODIC,
    title="Reserve machines: 20% cap, locked and off the gaming floor",
    reads=("casino_licence_event", "machine_stored", "store_audited"),
    params=(RESERVE_MAX_FRACTION.key,),
    observes=("machine_stored", "store_audited"),
    test=INJ,
    checks={
        "the store is locked (each machine stored, each daily audit)": C + "R31.1.p1]",
        "the reserve machines are at most reserve_max_fraction of the licensed number": T
        + "test_too_many_reserve_machines",
        "the store is not part of the gaming area": T + "test_a_store_in_the_gaming_area",
    },
    unchecked=(
        "'intended to replace machines installed in the gaming area': an intention; the twin's "
        "reserve machines are only used so",
        "a store found unlocked between two daily audits is found at the next one",
    ),
)
class ReserveStore(_Licensed):
    def on_record(self, rec: Record) -> None:
        self.follow_licence(rec)
        if isinstance(rec, MachineStored):
            self._check(rec, rec.store, rec.reserve, rec.locked, rec.in_gaming_area, rec.machine)
        elif isinstance(rec, StoreAudited):
            self._check(rec, rec.store, len(rec.machines), rec.locked, rec.in_gaming_area, "")

    def _check(
        self, rec: Record, store: str, count: int, locked: bool, in_area: bool, machine: str
    ) -> None:
        subject = (machine,) if machine else (store,)
        evidence = (rec.seq,) if self.licence is None else (self.licence.seq, rec.seq)
        what = f"machine {machine} was stored" if machine else f"the daily audit found {store}"
        if self.licence is not None and count > self.reserve_cap():
            licensed = self.licence.licensed_machines
            self.report_once(
                ("count", store),
                subject,
                f"{count} reserve machines are kept in {store}, more than "
                f"{self.ctx.rule(RESERVE_MAX_FRACTION):.0%} of the {licensed} machines the "
                f"Board authorises ({self.reserve_cap()})",
                evidence,
            )
        if in_area:
            self.report_once(
                ("area", store),
                subject,
                f"reserve machines are kept in {store}, which is part of the gaming area",
                (rec.seq,),
            )
        if not locked:
            self.report(
                subject,
                f"{what} unlocked on {self.ctx.clock.at(rec.t).date().isoformat()}: reserve "
                "machines must be kept in closed and locked premises",
                (rec.seq,),
            )


@control(
    "MT98.R31.1.p2",
    kind=Kind.RUNTIME,
    title="Replacements need prior written approval; floor count capped",
    reads=("casino_licence_event", "board_decided", "machine_replaced", "store_audited"),
    params=(REPLACEMENT_NEEDS_APPROVAL.key,),
    observes=("machine_replaced",),
    test=INJ,
    checks={
        "a replacement from reserve has the Board's written approval, for a replacement, given "
        "before it": C + "R31.1.p2]",
        "a proposal may drop the prior approval (replacement_needs_prior_approval = false)": T
        + "test_an_unapproved_replacement_is_no_finding_when_the_ruleset_drops_the_approval",
        "the machines in the gaming area never exceed the licensed number (each replacement, "
        "each daily audit)": T + "test_a_floor_above_the_licensed_number",
    },
    unchecked=(
        "'or otherwise by order of the Board': the twin's Board makes no such order",
        "the floor count between two daily audits and replacements is not observed",
    ),
)
class ReplacementApproved(_Licensed):
    def setup(self) -> None:
        super().setup()
        self.approvals: list[BoardDecided] = []

    def on_record(self, rec: Record) -> None:
        self.follow_licence(rec)
        if isinstance(rec, BoardDecided):
            if rec.matter == "replacement" and rec.decision == "approved" and rec.in_writing:
                self.approvals.append(rec)
            return
        if isinstance(rec, MachineReplaced | StoreAudited):
            licensed = rec.licensed_machines
            if rec.floor_machines > licensed:
                self.report_once(
                    ("floor", rec.floor_machines),
                    (rec.machine,) if isinstance(rec, MachineReplaced) else (rec.store,),
                    f"{rec.floor_machines} machines are in the gaming area, more than the "
                    f"{licensed} the casino licence authorises",
                    (rec.seq,),
                )
        if not isinstance(rec, MachineReplaced) or rec.source != "reserve":
            return
        if not self.ctx.rule(REPLACEMENT_NEEDS_APPROVAL):
            return
        # the reference the licensee worked under, or the Board's approval of that work
        prior = [
            a
            for a in self.approvals
            if a.t <= rec.t and (a.approval == rec.approval or a.work == rec.work)
        ]
        if not prior:
            self.report(
                (rec.machine, rec.replaced),
                f"reserve machine {rec.machine} replaced {rec.replaced} (work {rec.work}) "
                "without the Board's prior written approval",
                (rec.seq,),
            )


# -- regs 31(2), 32: the register kept current -------------------------------------------------


@control(
    "MT98.R32.1",
    kind=Kind.GOVERNANCE,
    title="Board keeps the machine register current",
    reads=("disposal_notified", "specs_furnished", "board_decided"),
    params=(BOARD_DECISION_HOURS.key,),
    observes=("disposal_notified",),
    needs="a disposal or an alteration notified to the Board (a [lifecycle] section)",
    test=INJ,
    checks={
        "a machine notified as disposed of is deleted from the register (32(1)(a))": C + "R32.1]",
        "altered specifications are amended in the register, or the machine deleted (32(2))": T
        + "test_an_alteration_the_board_never_amends",
        "within board_decision_hours of the notice (real hours, weekends included); a decision "
        "not yet due when the run ends is no finding": T
        + "test_the_board_decides_within_its_hours_whatever_the_day",
    },
    unchecked=(
        "32(1)(b): deleting a machine that ceased to be authorised: the twin's Board learns of "
        "no such machine (the controls of reg 28 find it)",
        "32(2)(b): the count of machines 'of the same description': the twin's register has "
        "no descriptions",
        "the time the Board takes is the twin's reading (board_decision_hours): the text sets none",
    ),
)
class RegisterKeptCurrent(Checker):
    def setup(self) -> None:
        # (machine, what) -> the notice the Board must act on: "deleted", or "amended"
        self.pending: dict[tuple[str, str], Record] = {}

    def _hours(self) -> float:
        return float(self.ctx.rule(BOARD_DECISION_HOURS))

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, DisposalNotified):
            self.pending[(rec.machine, "deleted")] = rec
        elif isinstance(rec, SpecsFurnished) and rec.reason == "alteration":
            self.observed()
            self.pending[(rec.machine, "amended")] = rec
        elif isinstance(rec, BoardDecided) and rec.matter in ("deletion", "amendment"):
            for what in ("deleted", "amended") if rec.decision == "deleted" else (rec.decision,):
                notice = self.pending.pop((rec.machine, what), None)
                if notice is not None and rec.t > notice.t + self._hours() * 3600.0:
                    self._late(notice, what, rec)

    def _late(self, notice: Record, what: str, decision: BoardDecided | None) -> None:
        m = notice.entity("machine")
        hours = self._hours()
        told = "notified as disposed of" if what == "deleted" else "notified with altered specs"
        verb = "delete it" if what == "deleted" else "amend its entry"
        when = f"only on {self.ctx.clock.iso(decision.t)}" if decision else "never did"
        self.report(
            (m,),
            f"machine {m} was {told} on {self.ctx.clock.iso(notice.t)}; the Board was to "
            f"{verb} in the register within {hours:g} hours, and {when}",
            (notice.seq,) if decision is None else (notice.seq, decision.seq),
        )

    def finish(self) -> None:
        limit = self._hours() * 3600.0
        for (_, what), notice in sorted(self.pending.items()):
            if self.ctx.now > notice.t + limit:
                self._late(notice, what, None)


# -- reg 33: the certificate shown to players ----------------------------------------------------


@control(
    "MT98.R33",
    kind=Kind.RUNTIME,
    title="Registration certificate available to players",
    reads=("certificate_produced", "certificate_requested"),
    observes=("certificate_requested",),
    needs="a player asking to see the certificate (a certificate_request work)",
    test=INJ,
    checks={
        "a player who asks is shown the certificate": C + "R33]",
        "except while it is produced to the Board under reg 35 (and only then: the excuse is "
        "checked against the certificate's movements)": T
        + "test_a_request_while_the_certificate_is_with_the_board_is_no_finding",
    },
    unchecked=(
        "that the Board issues the certificate and that it lists the registered machines: the "
        "twin's Board issues it from its register",
    ),
)
class CertificateShown(Checker):
    def setup(self) -> None:
        self.produced: CertificateProduced | None = None  # the last movement

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, CertificateProduced):
            self.produced = rec
            return
        assert isinstance(rec, CertificateRequested)
        if rec.shown:
            return
        with_board = self.produced is not None and not self.produced.returned
        if with_board:
            return
        excuse = f" ({rec.reason})" if rec.reason else ""
        self.report(
            (rec.patron,),
            f"player {rec.patron} asked to see the certificate of registered machines and was "
            f"not shown it{excuse}, although it was not with the Board",
            (rec.seq,) if self.produced is None else (self.produced.seq, rec.seq),
        )


# -- regs 34, 35: refusals and deletions notified, the certificate produced ----------------------


@control(
    "MT98.R34",
    kind=Kind.GOVERNANCE,
    title="Register refusals, deletions and certificate amendments are notified",
    reads=(
        "disposal_notified",
        "specs_furnished",
        "board_decided",
        "licensee_notified",
        "certificate_produced",
        "certificate_issued",
    ),
    params=(WORKDAY_COUNTRY.key, NOTICE_DAYS.key),
    observes=(),
    needs="a filing or notice that needs the certificate (reg 35(1)), or a refusal or deletion",
    test=INJ,
    checks={
        "a refusal to register (reg 34(a)) is notified to the licensee in writing": C + "R34]",
        "a deletion under 32(1)(b) or 32(2) (not one of a machine notified as disposed of) is "
        "notified in writing (reg 34(b))": T + "test_a_deletion_after_a_disposal_needs_no_notice",
        "'immediately': by the end of the first working day after the decision (Malta's "
        "working days)": T + "test_the_secretarys_notice_is_due_the_next_working_day",
        "the certificate is produced with the specifications of 30(1)(b) and the notices of "
        "30(1)(c), (d) (reg 35(1))": T + "test_a_filing_without_the_certificate",
        "35(2): after a deletion it notifies, the Secretary requires the certificate and it is "
        "amended (no certificate issued since lists the machine), by the notice's deadline": T
        + "test_a_deletion_whose_certificate_is_never_demanded",
    },
    unchecked=(
        "how the Board amends the certificate: the twin's Board reissues it from its register",
        "'immediately' as one working day is the twin's reading of the text",
    ),
)
class RefusalsNotified(_Deadlines):
    def setup(self) -> None:
        self.disposed: set[str] = set()
        self.notices: dict[str, list[LicenseeNotified]] = {}
        self.certificate: CertificateIssued | None = None  # the latest issued
        self.with_board = False

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, DisposalNotified):
            self.disposed.add(rec.machine)
            self._produced(rec, rec.certificate_produced, "notice of its disposal")
        elif isinstance(rec, SpecsFurnished):
            if rec.reason in ("acquisition", "replacement"):
                self._produced(rec, rec.certificate_produced, f"specifications ({rec.reason})")
            elif rec.reason == "alteration":
                self._produced(rec, rec.certificate_produced, "altered specifications")
        elif isinstance(rec, LicenseeNotified):
            self.notices.setdefault(rec.machine, []).append(rec)
        elif isinstance(rec, CertificateIssued):
            self.certificate = rec
        elif isinstance(rec, CertificateProduced):
            self.with_board = not rec.returned
        elif isinstance(rec, BoardDecided):
            refused = rec.matter == "registration" and rec.decision == "refused"
            deleted = rec.decision == "deleted" and rec.machine not in self.disposed
            if refused or deleted:
                self.observed()
                d = rec
                country = str(self.ctx.rule(WORKDAY_COUNTRY))
                days = int(self.ctx.rule(NOTICE_DAYS))
                due = notice_deadline(self.ctx.clock.at(rec.t), days, country)
                self.at_deadline(due, lambda: self._due(d, due))

    def _produced(self, rec: Record, produced: bool, what: str) -> None:
        self.observed()
        if not produced:
            m = rec.entity("machine")
            self.report(
                (m,),
                f"the {what} of machine {m} reached the Board without the certificate of "
                "registered machines for amendment (reg 35(1))",
                (rec.seq,),
            )

    def _due(self, d: BoardDecided, due: datetime) -> None:
        cert = self.certificate
        if (
            d.decision == "deleted"
            and cert is not None
            and d.machine in cert.machines
            and not self.with_board
        ):  # reg 35(2): never produced for amendment, so players are shown the deleted machine
            self.report(
                (d.machine,),
                f"the certificate of registered machines (version {cert.version}) still lists "
                f"machine {d.machine}, deleted from the register on {self.day(d.t)}: the "
                f"Secretary never required it to be produced for amendment by "
                f"{due.isoformat(timespec='minutes')} (reg 35(2))",
                (d.seq, cert.seq),
            )
        sent = [n for n in self.notices.get(d.machine, []) if n.t >= d.t and n.in_writing]
        if sent:
            return
        what = "refusal to register" if d.decision == "refused" else "deletion from the register of"
        self.report(
            (d.machine,),
            f"the Board's {what} machine {d.machine} on {self.day(d.t)} was not notified to the "
            f"licensee in writing by {due.isoformat(timespec='minutes')} (immediately)",
            (d.seq,),
        )
