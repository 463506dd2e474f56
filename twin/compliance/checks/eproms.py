"""The internal controls procedures manual and EPROM control (Malta First Schedule items 18
and 19): the manual covers the day-to-day machine controls and every procedure the works
follow, and reaches the Secretary on request in time; master EPROMs are verified on receipt,
kept under dual control and registered (removals and destructions with reasons and
signatures); copying and sealing follow the procedures the Board approved.
"""

from __future__ import annotations

from datetime import timedelta

from twin.compliance.registry import Checker, Kind, control
from twin.lifecycle.params import MANUAL_SUBMIT_DAYS, SEAL_CHECK_DAYS
from twin.lifecycle.records import (
    EpromCopied,
    EpromDestroyed,
    EpromReceived,
    EpromRegistered,
    EpromSealed,
    EpromVaultAccess,
    EpromVerified,
    ManualFiled,
    ManualRequested,
    ManualSubmitted,
    ProcedureFollowed,
    SealChecked,
)
from twin.lifecycle.section import MANUAL_TOPICS
from twin.records import Record
from twin.workdays import WORKDAY_COUNTRY, deadline

T = "tests/test_lifecycle_eproms.py::"
INJ = T + "test_injection_is_found_exactly"
#: the manual's subject in findings (its records carry no entity of their own)
MANUAL = "icpm"
#: how late a round of seal checks may start after its interval (the round's staffing)
SEAL_CHECK_GRACE_S = 12 * 3600.0


#: the procedures of items 19(d) and (e), in words
PROCEDURE_WORDS = {
    "eprom_copy_seal": "EPROM copying and sealing",
    "eprom_promo": "competition and promotional EPROM",
}


def _words(topic: str) -> str:
    return topic.replace("_", " ")


@control(
    "MT98.S1.18",
    kind=Kind.GOVERNANCE,
    title="Internal controls manual for day-to-day machine operations",
    reads=("icpm_filed", "procedure_followed", "icpm_requested", "icpm_submitted"),
    params=(MANUAL_SUBMIT_DAYS.key, WORKDAY_COUNTRY.key),
    test=INJ + "[S1.18]",
    checks={
        "the manual filed specifies every day-to-day control item 18 lists": T
        + "test_a_manual_without_security_seals_is_found",
        "the manual specifies every procedure a workflow follows": T
        + "test_a_work_whose_procedure_the_manual_lacks_is_found",
        "the manual is submitted to the Secretary within icpm_submit_business_days working "
        "days of a request": INJ + "[S1.18]",
        "... counted in the working days of working_days_country (weekends, public holidays)": T
        + "test_a_request_before_st_josephs_day_is_due_after_it",
        "a submission after the deadline is found (when the deadline passes), one before it "
        "is not": T + "test_a_submission_after_the_deadline_is_late",
        "a deadline not passed when the run ends is no finding": T
        + "test_a_request_not_yet_due_at_the_end_is_no_finding",
    },
    unchecked=(
        "what each topic of the manual says (its content): the twin's manual is a list of topics",
        "'his authorised representative': the Secretary is the only one who asks in the twin",
        "that the manual submitted is the one in force: the twin submits the one filed",
    ),
)
class ManualInForce(Checker):
    """The manual in force covers item 18's list and every procedure followed; a request of
    the Secretary is answered by a submission within the working days allowed."""

    def setup(self) -> None:
        self.manual: ManualFiled | None = None
        self.answered: set[float] = set()  # the times of the requests answered

    def _due(self, req: ManualRequested) -> float:
        clock = self.ctx.clock
        days = self.ctx.rule(MANUAL_SUBMIT_DAYS)
        return clock.seconds(deadline(clock.at(req.t), days, self.ctx.rule(WORKDAY_COUNTRY)))

    def _expire(self, req: ManualRequested) -> None:
        """The deadline of ``req`` has come: the manual must have been submitted by now."""
        self.observed()
        if req.t in self.answered:
            return
        clock = self.ctx.clock
        days = self.ctx.rule(MANUAL_SUBMIT_DAYS)
        last = (clock.at(self._due(req)) - timedelta(days=1)).date().isoformat()
        self.report(
            (MANUAL,),
            f"the Secretary asked for the internal controls manual at {clock.iso(req.t)}; it "
            f"was not submitted within {days} working days (by the end of {last})",
            (req.seq,),
        )

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, ManualFiled):
            self.manual = rec
            missing = [t for t in MANUAL_TOPICS if t not in rec.topics]
            if missing:
                self.report(
                    (MANUAL,),
                    f"the internal controls manual (version {rec.version}) does not specify "
                    + ", ".join(_words(t) for t in missing),
                    (rec.seq,),
                )
        elif isinstance(rec, ProcedureFollowed):
            manual = self.manual
            if manual is None or rec.procedure not in manual.topics or not rec.in_manual:
                evidence = (rec.seq,) if manual is None else (manual.seq, rec.seq)
                version = "no manual" if manual is None else f"version {manual.version}"
                self.report_once(
                    ("procedure", rec.procedure),
                    (MANUAL, rec.work),
                    f"work {rec.work} on {rec.machine} follows the {_words(rec.procedure)} "
                    f"procedure, which the internal controls manual ({version}) does not "
                    "specify",
                    evidence,
                )
        elif isinstance(rec, ManualRequested):
            self.ctx.after(max(0.0, self._due(rec) - self.ctx.now), lambda: self._expire(rec))
        elif isinstance(rec, ManualSubmitted):
            # answered in time unless the deadline's timer came first (and found it missing)
            self.answered.add(rec.requested_t)


@control(
    "MT98.S1.19a",
    kind=Kind.RUNTIME,
    title="Verify EPROMs on receipt",
    reads=("eprom_received", "eprom_verified", "eprom_vault_access", "eprom_sealed"),
    observes=("eprom_received", "eprom_verified"),
    test=INJ + "[S1.19a]",
    checks={
        "every master EPROM received is verified (programme number, par, pay table, Board "
        "licence number) before it is taken out, copied or sealed into a machine": INJ + "[S1.19a]",
        "... and by the end of the run": T + "test_a_master_never_verified_nor_used_is_found",
        "a verification that shows a mismatch is no verification: the master may not be used": T
        + "test_a_master_used_after_a_failed_verification_is_found",
    },
    unchecked=(
        "whether the licensee's comparison was true (a chip labelled 92 % carrying an 87 % "
        "image): the record is the licensee's word; program signatures are challenged by "
        "MT98.S1.11a's checks",
        "how soon 'upon receipt' is: the text sets no time; checked as before any use",
    ),
)
class EpromVerifiedOnReceipt(Checker):
    """A master EPROM is used (taken from the vault, sealed into a machine) only once it was
    verified with every comparison matching; one received is verified by the run's end."""

    def setup(self) -> None:
        self.received: dict[str, EpromReceived] = {}
        self.verified: dict[str, EpromVerified] = {}

    @staticmethod
    def _mismatches(v: EpromVerified) -> list[str]:
        checks = (
            ("programme number", v.programme_no_ok),
            ("par percentage", v.par_ok),
            ("pay table", v.paytable_ok),
            ("Board licence number", v.licence_no_ok),
        )
        return [name for name, ok in checks if not ok]

    def _used(self, eprom: str, what: str, rec: Record) -> None:
        got = self.received.get(eprom)
        if got is None:
            return  # not a master received in the run
        v = self.verified.get(eprom)
        evidence: tuple[int, ...]
        if v is None:
            why = "never verified against the manufacturer's specification sheet"
            evidence = (got.seq, rec.seq)
        elif self._mismatches(v):
            why = "its verification showed a mismatch of the " + ", ".join(self._mismatches(v))
            evidence = (got.seq, v.seq, rec.seq)
        else:
            return
        self.report_once(
            eprom, (eprom,), f"master EPROM {eprom} ({got.paytable}) {what}: {why}", evidence
        )

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, EpromReceived):
            self.received[rec.eprom] = rec
            self.verified.pop(rec.eprom, None)
        elif isinstance(rec, EpromVerified):
            self.verified[rec.eprom] = rec
        elif isinstance(rec, EpromVaultAccess) and rec.action == "out":
            self._used(rec.eprom, "was taken from the secure area", rec)
        elif isinstance(rec, EpromSealed):
            self._used(rec.eprom, f"was sealed into {rec.machine}", rec)

    def finish(self) -> None:
        for eprom, got in sorted(self.received.items()):
            if eprom not in self.verified:
                self.report_once(
                    eprom,
                    (eprom,),
                    f"master EPROM {eprom} ({got.paytable}) was received at "
                    f"{self.ctx.clock.iso(got.t)} and never verified against the "
                    "manufacturer's specification sheet",
                    (got.seq,),
                )


@control(
    "MT98.S1.19b",
    kind=Kind.RUNTIME,
    title="Registered EPROM copies under dual control",
    reads=("eprom_vault_access",),
    test=INJ + "[S1.19b]",
    checks={
        "every access to the secure area holding the masters and registered copies is by two "
        "distinct custodians": INJ + "[S1.19b]",
    },
    unchecked=(
        "copies kept outside machines: the twin's copies go into machines (sealed) at once, "
        "so no copy is kept apart from its master",
        "'as per the manual': dual control is the manual's procedure eprom_dual_control, "
        "whose presence MT98.S1.18 checks",
    ),
)
class EpromDualControl(Checker):
    """Masters (and the copies kept with them) leave and re-enter the secure area only
    with two distinct custodians present."""

    def setup(self) -> None:
        self.single_out: set[str] = set()  # EPROMs out of the vault under single custody

    def on_record(self, rec: Record) -> None:
        if not isinstance(rec, EpromVaultAccess):
            return
        custodians = sorted(set(c for c in rec.custodians if c))
        if len(custodians) >= 2:
            if rec.action == "in":
                self.single_out.discard(rec.eprom)
            return
        if rec.action == "in" and rec.eprom in self.single_out:
            self.single_out.discard(rec.eprom)
            return  # the same removal's return: one finding
        if rec.action == "out":
            self.single_out.add(rec.eprom)
        who = custodians[0] if custodians else "nobody"
        self.report(
            (rec.eprom, *custodians),
            f"EPROM {rec.eprom} was {'taken from' if rec.action == 'out' else 'put back in'} "
            f"the secure area by {who} alone (dual control needs two custodians)",
            (rec.seq,),
        )


@control(
    "MT98.S1.19c",
    kind=Kind.RECORD,
    title="Master EPROM register",
    reads=("eprom_received", "eprom_registered", "eprom_vault_access", "eprom_destroyed"),
    observes=("eprom_registered", "eprom_vault_access", "eprom_destroyed"),
    test=INJ + "[S1.19c]",
    checks={
        "every master EPROM received has a register entry with its EPROM number, Board licence "
        "number and manufacturer": T + "test_register_entries_are_complete_on_the_clean_floor",
        "every removal from the secured area is entered with its reason and the signatures "
        "of those who took it": INJ + "[S1.19c]",
        "a destruction is entered with its date, reasons and signatures": T
        + "test_a_destruction_without_signatures_is_found",
    },
    unchecked=(
        "destruction in the run: the twin has no workflow that destroys a master EPROM; the "
        "check runs when an eprom_destroyed record appears (a test feeds one)",
    ),
)
class EpromRegister(Checker):
    """The register of master EPROMs: an entry for each, and removals and destructions
    entered with reasons and signatures."""

    def setup(self) -> None:
        self.received: dict[str, EpromReceived] = {}
        self.registered: dict[str, EpromRegistered] = {}

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, EpromReceived):
            self.received[rec.eprom] = rec
        elif isinstance(rec, EpromRegistered):
            self.registered[rec.eprom] = rec
            gaps = [
                name
                for name, value in (
                    ("EPROM number", rec.eprom),
                    ("Board licence number", rec.board_licence_no),
                    ("manufacturer", rec.manufacturer),
                )
                if not value
            ]
            if gaps:
                self.report_once(
                    ("entry", rec.eprom),
                    (rec.eprom,),
                    f"the register entry of master EPROM {rec.eprom} leaves out the "
                    + ", ".join(gaps),
                    (rec.seq,),
                )
        elif isinstance(rec, EpromVaultAccess) and rec.action == "out":
            gaps = []
            if not rec.reason:
                gaps.append("the reason")
            unsigned = [c for c in rec.custodians if c not in rec.signatures]
            if not rec.signatures or unsigned:
                gaps.append("the signatures" + (f" of {', '.join(unsigned)}" if unsigned else ""))
            if gaps:
                self.report(
                    (rec.eprom,),
                    f"the removal of master EPROM {rec.eprom} from the secured area is "
                    "entered in the register without " + " and ".join(gaps),
                    (rec.seq,),
                )
        elif isinstance(rec, EpromDestroyed):
            gaps = [
                name
                for name, value in (
                    ("date", rec.date),
                    ("reasons", rec.reason),
                    ("signatures", rec.signatures),
                )
                if not value
            ]
            if gaps:
                self.report(
                    (rec.eprom,),
                    f"the destruction of master EPROM {rec.eprom} is entered in the register "
                    "without its " + ", ".join(gaps),
                    (rec.seq,),
                )

    def finish(self) -> None:
        for eprom, got in sorted(self.received.items()):
            if eprom not in self.registered:
                self.report_once(
                    ("entry", eprom),
                    (eprom,),
                    f"master EPROM {eprom} ({got.paytable}) is not in the register",
                    (got.seq,),
                )


@control(
    "MT98.S1.19d",
    kind=Kind.GOVERNANCE,
    title="Board-approved procedures for copying, sealing and special EPROMs",
    reads=(
        "icpm_filed",
        "procedure_followed",
        "eprom_copied",
        "eprom_sealed",
        "seal_checked",
    ),
    observes=("icpm_filed", "eprom_copied", "eprom_sealed", "seal_checked"),
    params=(SEAL_CHECK_DAYS.key,),
    test=INJ + "[S1.19d]",
    checks={
        "the manual as approved by the Board documents copying and sealing (eprom_copy_seal)": T
        + "test_a_manual_without_an_approved_copy_and_seal_procedure_is_found",
        "copies are made and EPROMs sealed to that procedure, each seal numbered": INJ + "[S1.19d]",
        "a seal checked is the one registered for the machine (eprom_seal_check_days > 0)": T
        + "test_a_seal_found_other_than_registered_is_found",
        "seals are checked every eprom_seal_check_days when it is above 0": T
        + "test_seal_checks_that_never_come_are_found",
    },
    unchecked=(
        "19(e)'s procedure for competition EPROMs outside machines (a tournament's spare "
        "media): the twin's promotional EPROMs are the ones sealed into promotional machines",
    ),
)
class CopySealProcedure(Checker):
    """The Board-approved manual documents copying and sealing (and promotional EPROMs when
    one is sealed); copying and sealing follow it, every seal numbered and, checked, found
    as registered."""

    def setup(self) -> None:
        self.manual: ManualFiled | None = None
        self.seals: dict[str, EpromSealed] = {}  # machine -> its last sealing
        #: the rounds of seal checks: (when the first check of each was, its record's seq)
        self.rounds: list[tuple[float, int]] = []
        self.last_check = -1e18

    def _approved(self, procedure: str, rec: Record) -> None:
        manual = self.manual
        if manual is not None and procedure in manual.approved:
            return
        version = "none filed" if manual is None else f"version {manual.version}"
        evidence = (rec.seq,) if manual is None or manual.seq == rec.seq else (manual.seq, rec.seq)
        self.report_once(
            ("manual", procedure),
            (MANUAL,),
            f"the internal controls manual as approved by the Board ({version}) does not "
            f"document the {PROCEDURE_WORDS[procedure]} procedure",
            evidence,
        )

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, ManualFiled):
            self.manual = rec
            self._approved("eprom_copy_seal", rec)
        elif isinstance(rec, ProcedureFollowed):
            if rec.procedure in ("eprom_copy_seal", "eprom_promo"):
                self._approved(rec.procedure, rec)
        elif isinstance(rec, EpromCopied):
            if not rec.procedure:
                self.report(
                    (rec.eprom, rec.member),
                    f"copy {rec.copy} of EPROM {rec.eprom} was made outside the manual's "
                    "copying procedure",
                    (rec.seq,),
                )
        elif isinstance(rec, EpromSealed):
            self.seals[rec.machine] = rec
            if rec.promotional:
                self._approved("eprom_promo", rec)
            if not rec.procedure or not rec.seal:
                how = "outside the manual's sealing procedure" if not rec.procedure else ""
                logged = "with no seal number logged" if not rec.seal else ""
                self.report_once(
                    ("seal", rec.machine),
                    (rec.machine, rec.eprom),
                    f"EPROM {rec.eprom} was sealed into {rec.machine} "
                    + ", ".join(w for w in (how, logged) if w),
                    (rec.seq,),
                )
        elif isinstance(rec, SealChecked):
            if rec.t - self.last_check > 30 * 60.0:  # the machines of a round: 2 min apart
                self.rounds.append((rec.t, rec.seq))
            self.last_check = rec.t
            sealed = self.seals.get(rec.machine)
            expected = sealed.seal if sealed is not None else ""
            if not rec.intact or rec.seal != expected or not rec.seal:
                evidence = (rec.seq,) if sealed is None else (sealed.seq, rec.seq)
                self.report_once(
                    ("seal", rec.machine),
                    (rec.machine,),
                    f"the EPROM seal of {rec.machine} was found "
                    f"{rec.seal or 'missing'} at a check, not the registered "
                    f"{expected or 'seal (none logged)'}",
                    evidence,
                )

    def finish(self) -> None:
        days = self.ctx.rule(SEAL_CHECK_DAYS)
        if days <= 0:
            return
        every = days * 86400.0
        limit = every + SEAL_CHECK_GRACE_S
        begun = 0.0
        last: tuple[int, ...] = ()  # the first check of the round before (the evidence)
        for t, seq in (*self.rounds, (self.ctx.now, 0)):
            if t - begun > limit:
                clock = self.ctx.clock
                self.report_once(
                    ("rounds", begun),
                    (MANUAL,),
                    f"no EPROM seal was checked from {clock.iso(begun)} to {clock.iso(t)} "
                    f"(every {days} days)",
                    last,
                )
            begun, last = t, (seq,)
        self.observed(len(self.rounds))


__all__ = [
    "CopySealProcedure",
    "EpromDualControl",
    "EpromRegister",
    "EpromVerifiedOnReceipt",
    "ManualInForce",
]
