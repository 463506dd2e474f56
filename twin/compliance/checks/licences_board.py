"""Employees' licences: the paperwork of the licensee and the Board (Malta regs 9-13, 14(3),
18(1)-(3), 18(5)); what the employees may do at work (regs 8, 14(2), 15-17, 19) is in
``checks.licences_work``.

Deadlines on the calendar of the run's clock: reg 11's thirty days end with the local
calendar day thirty days after the change's day; the show-cause period of 18(3) is calendar
days from the notice, at the same local time (a DST change does not shorten it); the
Secretary's "within a reasonable time" (13(5), 14(3)) and the Board's action on a term not
complied with (18(5)) are read as ``licence_notice_business_days`` working days after the
day (Malta's working days, ``working_days_country``); the licensee's "immediately" (18(2))
as ``ground_report_business_days`` working days after the Board's next office opening. A
deadline that has not passed when the run ends is never a finding.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, time

from dateutil.relativedelta import relativedelta

from twin.compliance.checks.register import _Deadlines
from twin.compliance.registry import Kind, control
from twin.licensing import DISPENSABLE
from twin.licensing.params import (
    GROUND_REPORT_DAYS,
    MIN_AGE,
    NOTIFY_WITHIN_DAYS,
    REASONABLE_NOTICE_DAYS,
    SHOW_CAUSE_MIN_DAYS,
)
from twin.licensing.records import (
    ApplicationDecided,
    ApplicationLodged,
    CaseOpened,
    ConditionsChanged,
    EmploymentStarted,
    GroundKnown,
    GroundReported,
    InfoRequested,
    InfoSupplied,
    LicenceAction,
    LicenceAltered,
    LicenceIssued,
    LicensingOnFile,
    NoticeServed,
    ParticularsChanged,
    ParticularsNotified,
    RefusalNotified,
    ShowCauseIssued,
    TermComplied,
)
from twin.records import Record
from twin.workdays import WORKDAY_COUNTRY, deadline, next_office_time

T = "tests/test_licensing_board.py::"
INJ = T + "test_injected_violation_is_found"
C = INJ + "["
APPROVING = frozenset({"approved", "approved_varied"})
OUTCOMES = APPROVING | {"refused"}


def change_deadline(changed: datetime, days: int) -> datetime:
    """The last instant to give the Board written particulars of a change (reg 11): the end
    of the local calendar day ``days`` days after the change's day."""
    last = changed.date() + relativedelta(days=days)
    return datetime.combine(last + relativedelta(days=1), time(0, 0), tzinfo=changed.tzinfo)


def show_cause_earliest(issued: datetime, days: int) -> datetime:
    """The earliest end of a show-cause period (reg 18(3)): ``days`` calendar days after the
    notice, at the same local time."""
    return issued + relativedelta(days=days)


class _Board(_Deadlines):
    """Deadline timers on the simulation's and the calendar's instants."""

    def at_t(self, t: float, fn: Callable[[], None]) -> None:
        self.ctx.after(max(0.0, t - self.ctx.now), fn)

    def iso(self, t: float) -> str:
        return self.ctx.clock.iso(t)

    def country(self) -> str:
        return str(self.ctx.rule(WORKDAY_COUNTRY))

    def working_deadline(self, t: float, days: int) -> datetime:
        """The end of the ``days``-th working day after ``t``'s local day."""
        return deadline(self.ctx.clock.at(t), days, self.country())


def _when(due: datetime) -> str:
    return due.isoformat(timespec="minutes")


# -- reg 9: the application ---------------------------------------------------------------------


@control(
    "MT98.R9.1",
    kind=Kind.GOVERNANCE,
    title="Apply for the employee licence before employment starts",
    reads=("licence_application_lodged", "employment_started"),
    observes=("employment_started",),
    needs="a new employee's employment starting, with a [licensing] section",
    test=INJ,
    checks={
        "an application for a new licence for the person is lodged at or before the start of "
        "the employment (the provisional route of 15(1) starts from the same application)": C
        + "R9.1]",
        "'prior to the commencement': an application of the same instant is in time": T
        + "test_an_application_at_the_start_of_employment_is_in_time",
    },
    unchecked=(
        "the employees on the staff when the run opens: their applications are before it",
        "'working in relation to gaming': every licensee's role on the staff is taken to be one",
    ),
)
class ApplyBeforeEmployment(_Board):
    def setup(self) -> None:
        self.lodged: dict[str, ApplicationLodged] = {}  # member -> first new application

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, ApplicationLodged) and rec.purpose == "new":
            self.lodged.setdefault(rec.member, rec)
        elif isinstance(rec, EmploymentStarted):
            start = rec
            self.at_t(rec.t, lambda: self._due(start))  # after the instant's other records

    def _due(self, start: EmploymentStarted) -> None:
        app = self.lodged.get(start.member)
        if app is not None and app.t <= start.t:
            return
        self.report(
            (start.member,),
            f"{start.member} started employment as {start.role} on {self.day(start.t)} with no "
            "application for their casino employee's licence lodged with the Board before it "
            "(reg 9(1))",
            (start.seq,),
        )


@control(
    "MT98.R9.2",
    kind=Kind.RECORD,
    title="Employee licence application contents",
    reads=("licensing_on_file", "licence_application_lodged"),
    observes=("licence_application_lodged",),
    test=INJ,
    checks={
        "(a) the application sets out the functions": T + "test_an_application_missing_parts",
        "(b) it is lodged with the Secretary of the Board": T + "test_an_application_missing_parts",
        "(c) it carries every document the Board's form asks for": T
        + "test_an_application_missing_parts",
        "(d) it is signed by the licensee and the proposed employee": C + "R9.2]",
    },
    unchecked=(
        "an application to vary the functions (17(1)) is in a form of its own, not 9(2)'s: "
        "only applications for a licence and its renewal are checked",
        "the documents' content: an application names the documents it carries",
    ),
)
class ApplicationContents(_Board):
    def setup(self) -> None:
        self.form: tuple[str, ...] = ()

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, LicensingOnFile):
            self.form = rec.form_documents
        elif isinstance(rec, ApplicationLodged) and rec.purpose in ("new", "renewal"):
            self._check(rec)

    def _check(self, a: ApplicationLodged) -> None:
        defects = []
        if not a.functions:
            defects.append("sets out no functions (9(2)(a))")
        if a.lodged_with != "board_secretary":
            defects.append(f"was lodged with {a.lodged_with}, not the Board's Secretary (9(2)(b))")
        missing = [d for d in self.form if d not in a.documents]
        if missing:
            defects.append(f"lacks {', '.join(missing)} of the form's documents (9(2)(c))")
        unsigned = [f"the {who}" for who in ("licensee", "employee") if who not in a.signed_by]
        if unsigned:
            defects.append(f"is not signed by {' and '.join(unsigned)} (9(2)(d))")
        if defects:
            self.report(
                (a.member, a.application),
                f"application {a.application} ({a.purpose}) for {a.member}'s licence "
                + "; ".join(defects),
                (a.seq,),
            )


# -- reg 10: eligibility --------------------------------------------------------------------------


@control(
    "MT98.R10",
    kind=Kind.GOVERNANCE,
    title="Eligibility for an employee licence",
    reads=("licence_application_lodged", "licence_application_decided", "employee_licence_issued"),
    observes=("employee_licence_issued",),
    params=(MIN_AGE.key,),
    needs="a licence issued on an application lodged during the run",
    test=INJ,
    checks={
        "no licence (full or provisional) goes to an applicant under the ruleset's age (10(b))": C
        + "R10]",
        "... nor to one not fit and proper (10(a)), nor to one convicted of a criminal offence "
        "unless the Board dispensed with it (10(c), proviso)": T
        + "test_ineligible_particulars_and_the_waiver",
    },
    unchecked=(
        "licences issued on applications lodged before the run: their particulars are not on "
        "record",
        "whether the particulars are true: the application's are taken as the applicant's",
    ),
)
class Eligibility(_Board):
    def setup(self) -> None:
        self.lodged: dict[str, ApplicationLodged] = {}
        self.waived: dict[str, ApplicationDecided] = {}

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, ApplicationLodged):
            self.lodged[rec.application] = rec
        elif isinstance(rec, ApplicationDecided) and rec.waived:
            self.waived[rec.application] = rec
        elif isinstance(rec, LicenceIssued):
            self._check(rec)

    def _check(self, lic: LicenceIssued) -> None:
        a = self.lodged.get(lic.application)
        if a is None:
            return
        min_age = self.ctx.rule(MIN_AGE)
        waiver = self.waived.get(lic.application)
        why = []
        if not a.fit:
            why.append("not a fit and proper person (10(a))")
        if a.age < min_age:
            why.append(f"aged {a.age}, under {min_age} (10(b))")
        if a.convictions and waiver is None:
            why.append(
                f"convicted of {', '.join(a.convictions)}, not dispensed with by the Board (10(c))"
            )
        if why:
            self.report(
                (lic.member, lic.licence),
                f"{lic.licence_kind} licence {lic.licence} was issued to {lic.member} on "
                f"{lic.issued} (application {a.application}), who is not eligible: "
                + "; ".join(why),
                (a.seq, lic.seq),
            )


# -- reg 11: changes in the particulars ------------------------------------------------------------


@control(
    "MT98.R11",
    kind=Kind.RUNTIME,
    title="Report changes in application particulars within 30 days",
    reads=("licence_particulars_changed", "licence_particulars_notified"),
    observes=("licence_particulars_changed",),
    params=(NOTIFY_WITHIN_DAYS.key,),
    test=INJ,
    checks={
        "a change in an application's particulars is given to the Board by the end of the "
        "local calendar day the ruleset's days after it": C + "R11]",
        "... in writing": T + "test_the_thirty_days_on_the_calendar",
        "calendar days, across a month's end and a leap day": T
        + "test_the_thirty_days_on_the_calendar",
    },
    unchecked=(
        "'within a reasonable time': only the outer limit of the ruleset's days is checked",
    ),
)
class ChangeNotified(_Board):
    def setup(self) -> None:
        self.notified: dict[str, ParticularsNotified] = {}

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, ParticularsNotified):
            self.notified.setdefault(rec.change, rec)
        elif isinstance(rec, ParticularsChanged):
            ch = rec
            due = change_deadline(self.ctx.clock.at(rec.t), self.ctx.rule(NOTIFY_WITHIN_DAYS))
            self.at_deadline(due, lambda: self._due(ch, due))

    def _due(self, ch: ParticularsChanged, due: datetime) -> None:
        n = self.notified.get(ch.change)
        head = f"the change of {ch.member}'s {ch.particular} on {self.day(ch.t)} ({ch.change})"
        if n is None:
            self.report(
                (ch.member, ch.change),
                f"{head} was not given to the Board by {_when(due)} (reg 11)",
                (ch.seq,),
            )
        elif not n.in_writing:
            self.report(
                (ch.member, ch.change),
                f"{head} was given to the Board, but not in writing (reg 11)",
                (ch.seq, n.seq),
            )


# -- reg 12: the Board's requests -------------------------------------------------------------


@control(
    "MT98.R12",
    kind=Kind.GOVERNANCE,
    title="Comply with Board requests for information and records",
    reads=("board_info_requested", "board_info_supplied"),
    observes=("board_info_requested",),
    test=INJ,
    checks={
        "what the Board's notice asks for is supplied by the date the notice sets": C + "R12]",
    },
    unchecked=(
        "the requests of 12(b)-(d) (records produced, examined, a person authorised): the "
        "Board's notices in the twin ask for information",
        "whether what is supplied is what was asked: the supply names the notice it answers",
    ),
)
class RequestAnswered(_Board):
    def setup(self) -> None:
        self.supplied: dict[str, InfoSupplied] = {}

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, InfoSupplied):
            self.supplied.setdefault(rec.request, rec)
        elif isinstance(rec, InfoRequested):
            req = rec
            self.at_t(rec.due_t, lambda: self._due(req))

    def _due(self, req: InfoRequested) -> None:
        if req.request in self.supplied:
            return
        self.report(
            (req.member, req.request),
            f"the Board's notice {req.request} of {self.day(req.t)} asked for {req.member}'s "
            f"{req.particular} by {self.iso(req.due_t)}; it was not supplied (reg 12)",
            (req.seq,),
        )


# -- reg 13: the Board's decision ------------------------------------------------------------------


@control(
    "MT98.R13.1",
    kind=Kind.GOVERNANCE,
    title="Board decides each employee licence application",
    reads=(
        "licence_application_decided",
        "employee_licence_issued",
        "licence_altered",
        "licence_action",
    ),
    observes=("licence_application_decided", "employee_licence_issued", "licence_altered"),
    test=INJ,
    checks={
        "a decision approves, approves as varied or refuses (13(1)(a)-(c))": T
        + "test_decisions_and_licences_without_approval",
        "an approval as varied has the written consent of the licensee and the employee "
        "(13(1)(b))": C + "R13.1]",
        "a licence is issued, or altered to other functions, only on an approving decision of "
        "its application (a full licence on the Board's decision, not a provisional one's)": T
        + "test_decisions_and_licences_without_approval",
    },
    unchecked=(
        "'each application': the regulations set the Board no time to decide, so an "
        "application still pending is no finding",
        "13(2)'s conditions are the Board's discretion",
        "an alteration the Board makes on a case under 18(4)(c)(i) needs no application",
    ),
)
class BoardDecides(_Board):
    def setup(self) -> None:
        self.approvals: dict[str, list[ApplicationDecided]] = {}
        self.cases: set[str] = set()

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, LicenceAction):
            self.cases.add(rec.case)
        elif isinstance(rec, ApplicationDecided):
            self._decided(rec)
        elif isinstance(rec, LicenceIssued):
            self._licensed(rec, rec.licence_kind == "provisional", "issued")
        elif isinstance(rec, LicenceAltered) and rec.application not in self.cases:
            self._licensed(rec, False, f"altered to {', '.join(rec.functions)}")

    def _decided(self, d: ApplicationDecided) -> None:
        if d.outcome in APPROVING:
            self.approvals.setdefault(d.application, []).append(d)
        subjects = (d.member, d.application)
        if d.outcome not in OUTCOMES:
            self.report(
                subjects,
                f"the Board's decision on application {d.application} ({d.member}) is "
                f"{d.outcome!r}: neither an approval, an approval as varied nor a refusal "
                "(reg 13(1))",
                (d.seq,),
            )
        elif d.outcome == "approved_varied":
            missing = [f"the {w}" for w in ("licensee", "employee") if w not in d.consents]
            if missing:
                self.report(
                    subjects,
                    f"the Board approved application {d.application} ({d.member}) with its "
                    f"functions varied to {', '.join(d.functions)} without the written consent "
                    f"of {' and '.join(missing)} (reg 13(1)(b))",
                    (d.seq,),
                )

    def _licensed(self, rec: LicenceIssued | LicenceAltered, provisional: bool, what: str) -> None:
        ok = [
            d for d in self.approvals.get(rec.application, ()) if provisional or not d.provisional
        ]
        if ok:
            return
        self.report(
            (rec.member, rec.licence),
            f"licence {rec.licence} of {rec.member} was {what} on {self.day(rec.t)} on "
            f"application {rec.application}, which the Board never approved (reg 13(1))",
            (rec.seq,),
        )


@control(
    "MT98.R13.4",
    kind=Kind.GOVERNANCE,
    title="Mandatory refusal of ineligible applicants, with reasons",
    reads=("licence_application_decided", "licence_refusal_notified"),
    observes=("licence_application_decided",),
    params=(REASONABLE_NOTICE_DAYS.key, WORKDAY_COUNTRY.key),
    test=INJ,
    checks={
        "an application whose eligibility the licensee did not establish is refused (13(4))": T
        + "test_an_ineligible_applicant_approved_and_a_refusal_never_notified",
        "a refusal is notified to the licensee in writing (13(5))": T
        + "test_an_ineligible_applicant_approved_and_a_refusal_never_notified",
        "... with its reasons": C + "R13.4]",
        "'within a reasonable time': by the end of the ruleset's working days after the "
        "decision's day": T + "test_an_ineligible_applicant_approved_and_a_refusal_never_notified",
    },
    unchecked=(
        "the decisions on requests for a provisional licence (15(1)): the Board's discretion, "
        "decided again with the application itself",
    ),
)
class IneligibleRefused(_Board):
    def setup(self) -> None:
        self.notices: dict[str, RefusalNotified] = {}

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, RefusalNotified):
            self.notices.setdefault(rec.application, rec)
            self._notice(rec)
        elif isinstance(rec, ApplicationDecided) and not rec.provisional:
            if not rec.eligible and rec.outcome != "refused":
                self.report(
                    (rec.member, rec.application),
                    f"the Board decided application {rec.application} ({rec.member}) "
                    f"'{rec.outcome}' although the licensee had not established the applicant's "
                    "eligibility (reg 13(4))",
                    (rec.seq,),
                )
            elif rec.outcome == "refused":
                d = rec
                due = self.working_deadline(rec.t, self.ctx.rule(REASONABLE_NOTICE_DAYS))
                self.at_deadline(due, lambda: self._due(d, due))

    def _notice(self, n: RefusalNotified) -> None:
        defects = []
        if not n.in_writing:
            defects.append("not in writing")
        if not n.reasons:
            defects.append("with no reasons")
        if defects:
            self.report_once(
                n.application,
                (n.member, n.application),
                f"the refusal of application {n.application} ({n.member}) was notified to the "
                f"licensee {' and '.join(defects)} (reg 13(5))",
                (n.seq,),
            )

    def _due(self, d: ApplicationDecided, due: datetime) -> None:
        if d.application in self.notices:
            return
        self.report_once(
            d.application,
            (d.member, d.application),
            f"the Board's refusal of application {d.application} ({d.member}) on "
            f"{self.day(d.t)} was not notified to the licensee by {_when(due)} (reg 13(5))",
            (d.seq,),
        )


# -- reg 14(3): conditions changed --------------------------------------------------------------


@control(
    "MT98.R14.3",
    kind=Kind.GOVERNANCE,
    title="Licence conditions changed only with written notice",
    reads=("licence_conditions_changed", "licence_notice_served"),
    observes=("licence_conditions_changed",),
    params=(REASONABLE_NOTICE_DAYS.key, WORKDAY_COUNTRY.key),
    test=INJ,
    checks={
        "a condition added, varied or revoked is notified in writing to the holder and to the "
        "licensee, by the end of the ruleset's working days after the change's day": C + "R14.3]",
        "a notice served before the member's previous change is not one of this change": T
        + "test_a_condition_notice_counts_once",
    },
    unchecked=(
        "which change a notice is of: a notice of conditions served since the member's previous "
        "change counts for the next",
    ),
)
class ConditionsNotified(_Board):
    def setup(self) -> None:
        self.last: dict[str, int] = {}  # member -> seq of their last change of conditions
        self.served: dict[str, list[NoticeServed]] = {}

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, NoticeServed) and rec.matter == "conditions":
            self.served.setdefault(rec.member, []).append(rec)
        elif isinstance(rec, ConditionsChanged):
            since = self.last.get(rec.member, -1)
            self.last[rec.member] = rec.seq
            ch = rec
            due = self.working_deadline(rec.t, self.ctx.rule(REASONABLE_NOTICE_DAYS))
            self.at_deadline(due, lambda: self._due(ch, since, due))

    def _due(self, ch: ConditionsChanged, since: int, due: datetime) -> None:
        served = {n.party for n in self.served.get(ch.member, ()) if n.seq > since}
        missing = [f"the {p}" for p in ("holder", "licensee") if p not in served]
        if not missing:
            return
        done = {"add": "added", "vary": "varied", "revoke": "revoked"}.get(ch.action, ch.action)
        self.report(
            (ch.member, ch.licence),
            f"the Board {done} the condition '{ch.condition}' of {ch.member}'s licence "
            f"{ch.licence} on {self.day(ch.t)} with no written notice to "
            f"{' and '.join(missing)} by {_when(due)} (reg 14(3))",
            (ch.seq,),
        )


# -- reg 18: grounds, show cause, terms ----------------------------------------------------------


@control(
    "MT98.R18.1",
    kind=Kind.GOVERNANCE,
    title="Grounds for suspending or cancelling an employee licence",
    reads=("licence_case_opened",),
    test=INJ,
    checks={
        "the Board dispenses only with the grounds the proviso lets it ((c) a criminal "
        "conviction, (g) bankruptcy, as the catalog reads the OCR's '(e)')": C + "R18.1]",
    },
    unchecked=(
        "a ground the Board never considers: the regulations set it no time, so a ground with "
        "no case opened is no finding (its report to the Board is reg 18(2))",
        "whether the ground is one of 18(1)(a)-(h): the twin's grounds are those",
    ),
)
class GroundDispensed(_Board):
    def on_record(self, rec: Record) -> None:
        if isinstance(rec, CaseOpened) and rec.dispensed and rec.ground not in DISPENSABLE:
            self.report(
                (rec.member, rec.case),
                f"the Board dispensed with the ground '{rec.ground}' of case {rec.case} "
                f"({rec.member}); it may dispense only with {' and '.join(sorted(DISPENSABLE))} "
                "(reg 18(1), proviso)",
                (rec.seq,),
            )


@control(
    "MT98.R18.2",
    kind=Kind.RUNTIME,
    title="Licensee reports licence grounds immediately",
    reads=("licence_ground_known", "licence_ground_reported"),
    observes=("licence_ground_known",),
    params=(GROUND_REPORT_DAYS.key, WORKDAY_COUNTRY.key),
    test=INJ,
    checks={
        "a ground the licensee learns of is reported to the Board by the end of the ruleset's "
        "working days from the Board's next office opening ('immediately')": C + "R18.2]",
        "... in writing": T + "test_a_ground_reported_orally_and_over_a_weekend",
    },
    unchecked=(
        "when the licensee became aware: the twin records it (aware_hours after the ground)",
    ),
)
class GroundReportedNow(_Board):
    def setup(self) -> None:
        self.reported: dict[str, GroundReported] = {}

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, GroundReported):
            self.reported.setdefault(rec.case, rec)
        elif isinstance(rec, GroundKnown):
            k = rec
            country = self.country()
            opens = next_office_time(self.ctx.clock.at(rec.t), country)
            due = deadline(opens, self.ctx.rule(GROUND_REPORT_DAYS), country)
            self.at_deadline(due, lambda: self._due(k, due))

    def _due(self, k: GroundKnown, due: datetime) -> None:
        r = self.reported.get(k.case)
        head = f"the licensee learned of the ground '{k.ground}' ({k.case}, {k.member}) at "
        if r is None:
            self.report(
                (k.member, k.case),
                f"{head}{self.iso(k.t)} and had not notified the Board by {_when(due)} "
                "(reg 18(2), immediately)",
                (k.seq,),
            )
        elif not r.in_writing:
            self.report(
                (k.member, k.case),
                f"{head}{self.iso(k.t)} and notified the Board, but not in writing (reg 18(2))",
                (k.seq, r.seq),
            )


@control(
    "MT98.R18.3",
    kind=Kind.GOVERNANCE,
    title="Show-cause notice before action on a licence",
    reads=("show_cause_issued", "licence_action"),
    observes=("licence_action",),
    params=(SHOW_CAUSE_MIN_DAYS.key,),
    needs="the Board's action on a ground under 18(4), with a [licensing] section",
    test=INJ,
    checks={
        "the Board varies, conditions, suspends or cancels under 18(4) only after a show-cause "
        "notice of at least the ruleset's days": C + "R18.3]",
        "the period is calendar days from the notice (across a month's end, and a DST change "
        "does not shorten it)": T + "test_the_show_cause_period_on_the_calendar",
        "the Board acts only once the period is over (it has regard to the response)": T
        + "test_the_show_cause_period_on_the_calendar",
    },
    unchecked=(
        "a caution or no action (18(4)(a), (b)) changes nothing on the licence and is not checked",
        "what regard the Board has to the response: its reasoning is not on record",
        "the notice of the action served on the licensee and the holder (18(4)(c)) is reg "
        "18(4)'s, planned with its outcome",
    ),
)
class ShowCauseFirst(_Board):
    def setup(self) -> None:
        self.notices: dict[str, ShowCauseIssued] = {}

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, ShowCauseIssued):
            self.notices[rec.case] = rec
        elif (
            isinstance(rec, LicenceAction)
            and rec.under == "18(4)"
            and rec.outcome in ("vary", "condition", "suspend", "cancel")
        ):
            self._check(rec)

    def _check(self, act: LicenceAction) -> None:
        sc = self.notices.get(act.case)
        head = f"the Board's action '{act.outcome}' on case {act.case} ({act.member}) on "
        head += f"{self.day(act.t)}"
        if sc is None:
            self.report(
                (act.member, act.case),
                f"{head} came without a notice to show cause (reg 18(3))",
                (act.seq,),
            )
            return
        days = self.ctx.rule(SHOW_CAUSE_MIN_DAYS)
        clock = self.ctx.clock
        earliest = clock.seconds(show_cause_earliest(clock.at(sc.t), days))
        defects = []
        if sc.period_days < days or sc.due_t < earliest:
            defects.append(
                f"the notice of {self.day(sc.t)} gave until {self.iso(sc.due_t)} "
                f"({sc.period_days} days), less than {days} days"
            )
        if act.t < sc.due_t:
            defects.append(f"it came before the period ended ({self.iso(sc.due_t)})")
        if defects:
            self.report(
                (act.member, act.case),
                f"{head}: " + "; ".join(defects) + " (reg 18(3))",
                (sc.seq, act.seq),
            )


@control(
    "MT98.R18.5",
    kind=Kind.GOVERNANCE,
    title="Non-compliance with imposed terms leads to suspension or cancellation",
    reads=("licence_action", "licence_term_complied"),
    observes=(),
    params=(REASONABLE_NOTICE_DAYS.key, WORKDAY_COUNTRY.key),
    needs="a term imposed under 18(4)(c) whose time has passed, with a [licensing] section",
    test=INJ,
    checks={
        "a variation or condition imposed under 18(4)(c) and not complied with by its time is "
        "followed by a suspension or cancellation under 18(5), by the end of the ruleset's "
        "working days after the time's day": C + "R18.5]",
        "a term complied with in time needs no action; one complied with late does": T
        + "test_a_term_complied_with_in_time_and_one_complied_with_late",
    },
    unchecked=("whether the term was complied with: the twin records the holder's compliance",),
)
class TermEnforced(_Board):
    def setup(self) -> None:
        self.complied: dict[str, TermComplied] = {}
        self.enforced: dict[str, LicenceAction] = {}

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, TermComplied):
            self.complied.setdefault(rec.case, rec)
        elif not isinstance(rec, LicenceAction):
            return
        elif rec.under == "18(5)" and rec.outcome in ("suspend", "cancel"):
            self.enforced.setdefault(rec.case, rec)
        elif rec.outcome in ("vary", "condition") and rec.term_due_t > 0:
            act = rec
            self.at_t(rec.term_due_t, lambda: self._term_due(act))

    def _term_due(self, act: LicenceAction) -> None:
        self.observed()
        done = self.complied.get(act.case)
        if done is not None and done.t <= act.term_due_t:
            return
        due = self.working_deadline(act.term_due_t, self.ctx.rule(REASONABLE_NOTICE_DAYS))
        self.at_deadline(due, lambda: self._due(act, due))

    def _due(self, act: LicenceAction, due: datetime) -> None:
        if act.case in self.enforced:
            return
        term = f"the condition '{act.condition}'" if act.outcome == "condition" else (
            f"the variation to {act.role}"
        )  # fmt: skip
        self.report(
            (act.member, act.case),
            f"{term} imposed on {act.member} ({act.case}) was not complied with by "
            f"{self.iso(act.term_due_t)}, and the Board had neither suspended nor cancelled the "
            f"licence by {_when(due)} (reg 18(5))",
            (act.seq,),
        )
