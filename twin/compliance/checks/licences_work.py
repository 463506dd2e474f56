"""Work under an employee's licence (Malta regs 8, 14(2), 15(2), 16(1), 17(1), 19): who may
do gaming work, in which functions, for how long, and that a suspended or cancelled
employee stops at once. The Board's and the licensee's paperwork (regs 9-13, 14(3), 18) is
in ``checks.licences_board``.

Gaming work is being on duty (``shift_started`` to ``shift_ended``) in a role of the
licensee's: the roles are the functions a licence names. Every checker here keeps the same
book, rebuilt from the records: the licences on file and issued, when each is in force (from
the start of its ``valid_from`` day, or its issue if later, to the start of the day its
months (15(2)(d)) or years (16(1)(c)) run out, computed here from the ruleset and not taken
from the department's own "expired" record; not while suspended; not once ceased or the
employment ended), and who is on duty in which role. Work is judged when a member comes on
duty or starts a job (the department has recorded by then whatever licence allows it: a
licence is issued before the dispatcher admits its holder), and whenever a licence stops
being in force under someone on duty: they must be off duty at once, or once the job in hand
is done.

Why a member works without a licence in force decides the control: no licence at all (reg
8); a provisional licence past its months or ended by a 15(2) event (15(2)); a full licence
past its years unrenewed or ended by a 16(1) event (16(1)); a suspension or cancellation
(19). A member whose licence is in force for another function: a variation applied for and
not yet approved (17(1)); another grade on the same ladder (17(1)'s provisos: notice to an
inspector, one grade up for five days a calendar month, down for three months in twelve);
another ladder (14(2)). A casino whose licensee's employees work and which keeps no licence
at all is one finding of reg 8 ("no such function in this casino").
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from functools import partial

from dateutil.relativedelta import relativedelta

from twin.compliance.registry import Checker, Kind, control
from twin.licensing.params import (
    EMPLOYEE_LICENCE_RENEWAL,
    EMPLOYEE_LICENCE_TERM,
    LOWER_GRADE_CUMULATIVE,
    LOWER_GRADE_MAX,
    LOWER_GRADE_ROLLING,
    LOWER_GRADE_WINDOW,
    MAX_DAYS_PER_CALENDAR_MONTH,
    MAX_GRADES_ABOVE,
    PROVISIONAL_LICENCE,
)
from twin.licensing.records import (
    ApplicationDecided,
    ApplicationLodged,
    EmploymentEnded,
    GradeNotice,
    LicenceAltered,
    LicenceCeased,
    LicenceIssued,
    LicenceOnFile,
    LicenceSuspended,
    LicensingOnFile,
    NoticeReceived,
    NoticeServed,
    SuspensionEnded,
)
from twin.records import Record
from twin.staff.records import JobCompleted, JobStarted, ShiftEnded, ShiftStarted

T = "tests/test_licensing_work.py::"
INJ = T + "test_injected_violation_is_found"
C = INJ + "["
DAY = 86400.0
#: what every checker of the module reads (its book)
BOOK = (
    "licensing_on_file", "employee_licence_on_file", "employee_licence_issued",
    "employee_licence_ceased", "employee_licence_suspended", "employee_suspension_ended",
    "licence_notice_received", "licence_altered", "licence_application_lodged",
    "licence_application_decided", "inspector_notified_of_grade", "employment_ended",
    "shift_started", "shift_ended", "job_started", "job_completed",
)  # fmt: skip


@dataclass
class _Licence:
    rec: LicenceOnFile | LicenceIssued
    kind: str
    functions: tuple[str, ...]
    start_t: float
    expiry_t: float
    expiry: date
    ceased: LicenceCeased | None = None
    suspended: LicenceSuspended | None = None
    notice: NoticeReceived | None = None
    evidence: list[int] = field(default_factory=list)


@dataclass
class _Duty:
    rec: ShiftStarted
    job: int | None = None  # the seq of the job in hand's start
    stopped: bool = False  # a licence stopped during the job in hand: judged once it is done


class _Book(Checker):
    """The licences, the employment and the duty of every member, from the records; a
    subclass reports the causes it owns (``owns``)."""

    owns: frozenset[str] = frozenset()

    def setup(self) -> None:
        self.on_file: LicensingOnFile | None = None
        self.grades: dict[str, tuple[str, int]] = {}
        self.licences: dict[str, list[_Licence]] = defaultdict(list)
        self.by_id: dict[str, _Licence] = {}
        self.left: dict[str, EmploymentEnded] = {}
        self.duty: dict[str, _Duty] = {}
        self.variations: dict[tuple[str, str], ApplicationLodged] = {}  # (member, role)
        self.approved: set[str] = set()
        self.notices: dict[tuple[str, str], list[GradeNotice]] = defaultdict(list)
        self.cover: dict[str, dict[str, set[date]]] = defaultdict(lambda: defaultdict(set))
        self.unlicensed: list[ShiftStarted] = []  # before any licence is on file
        self.absent = False

    # -- the book ---------------------------------------------------------------------------

    def _t(self, day: date) -> float:
        tz = self.ctx.clock.at(0.0).tzinfo
        return self.ctx.clock.seconds(datetime.combine(day, time(0, 0), tzinfo=tz))

    def _file(self, rec: LicenceOnFile | LicenceIssued) -> None:
        start = date.fromisoformat(rec.valid_from)
        if rec.licence_kind == "provisional":
            end = start + relativedelta(months=self.ctx.rule(PROVISIONAL_LICENCE))
        else:
            term = EMPLOYEE_LICENCE_RENEWAL if rec.renewal else EMPLOYEE_LICENCE_TERM
            years = self.ctx.rule(term)
            end = start + relativedelta(years=years)
        lic = _Licence(rec, rec.licence_kind, rec.functions, max(rec.t, self._t(start)),
                       self._t(end), end, evidence=[rec.seq])  # fmt: skip
        self.licences[rec.member].append(lic)
        self.by_id[rec.licence] = lic
        if lic.expiry_t > self.ctx.now:
            member, lapse = rec.member, lic
            self.ctx.after(lic.expiry_t - self.ctx.now, lambda: self._stopped(member, lapse))

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, LicensingOnFile):
            self.on_file = rec
            ladders = zip(rec.roles, rec.ladders, rec.grades, strict=True)
            self.grades = {r: (ladder, g) for r, ladder, g in ladders}
        elif isinstance(rec, LicenceOnFile | LicenceIssued):
            self._file(rec)
        elif isinstance(rec, LicenceCeased):
            lic = self.by_id.get(rec.licence)
            if lic is not None and lic.ceased is None:
                lic.ceased = rec
                lic.evidence.append(rec.seq)
                self._stopped(rec.member, lic)
        elif isinstance(rec, LicenceSuspended):
            lic = self.by_id.get(rec.licence)
            if lic is not None:
                lic.suspended = rec
                lic.evidence.append(rec.seq)
        elif isinstance(rec, SuspensionEnded):
            lic = self.by_id.get(rec.licence)
            if lic is not None:
                lic.suspended, lic.notice = None, None
        elif isinstance(rec, NoticeReceived):
            lic = self.by_id.get(rec.licence)
            if lic is not None:
                lic.notice = rec
                lic.evidence.append(rec.seq)
                self._stopped(rec.member, lic)
        elif isinstance(rec, LicenceAltered):
            lic = self.by_id.get(rec.licence)
            if lic is not None:
                lic.functions = rec.functions
                lic.evidence.append(rec.seq)
        elif isinstance(rec, ApplicationLodged) and rec.purpose == "variation":
            for role in rec.functions:
                self.variations[(rec.member, role)] = rec
        elif isinstance(rec, ApplicationDecided) and rec.outcome != "refused":
            self.approved.add(rec.application)
        elif isinstance(rec, GradeNotice):
            self.notices[(rec.member, rec.role)].append(rec)
        elif isinstance(rec, EmploymentEnded):
            self.left[rec.member] = rec
            self.ctx.after(0.0, partial(self._leaving, rec.member, rec.seq))
        elif isinstance(rec, ShiftStarted):
            if rec.employer == "board":
                return
            self.duty[rec.member] = _Duty(rec)
            self._judge(rec.member, rec, None)
        elif isinstance(rec, ShiftEnded):
            d = self.duty.pop(rec.member, None)
            if d is not None:
                self._count_cover(d.rec, rec.t)
        elif isinstance(rec, JobStarted):
            for m in rec.members:
                d = self.duty.get(m)
                if d is not None:
                    d.job = rec.seq
                    self._judge(m, d.rec, rec)
        elif isinstance(rec, JobCompleted):
            for m in rec.members:
                d = self.duty.get(m)
                if d is not None:
                    d.job = None
                    if d.stopped:  # judged once the dispatcher has let them go, or not
                        d.stopped = False
                        self.ctx.after(0.0, partial(self._after_job, m))

    # -- in force ----------------------------------------------------------------------------

    def in_force(self, lic: _Licence, member: str, t: float) -> bool:
        left = self.left.get(member)
        return (
            lic.start_t <= t < lic.expiry_t
            and (lic.ceased is None or lic.ceased.t > t)
            and lic.suspended is None
            and (left is None or left.t > t)
        )

    def cause(self, member: str, role: str, t: float) -> tuple[str, list[int], str] | None:
        """Why ``member`` may not work as ``role`` at ``t`` (None: they may): the control's
        cause, the evidence, and the words of the finding."""
        held = [lic for lic in self.licences.get(member, ()) if lic.start_t <= t]
        live = [lic for lic in held if self.in_force(lic, member, t)]
        if any(role in lic.functions for lic in live):
            return None
        if live:
            return self._function_cause(member, role, live[-1], t)
        if not held:
            return "R8", [], f"{member} holds no casino employee's licence"
        last = max(held, key=lambda lic: lic.start_t)
        ev = list(last.evidence)
        left = self.left.get(member)
        if last.suspended is not None or (last.ceased and last.ceased.reason == "cancelled"):
            what = "suspended" if last.suspended is not None else "cancelled"
            return "R19", ev, f"{member}'s licence {last.rec.licence} is {what}"
        if left is not None and left.t <= t:
            ev.append(left.seq)
            return ("R15.2" if last.kind == "provisional" else "R16.1", ev,
                    f"{member}'s employment ended ({left.reason}), and with it licence "
                    f"{last.rec.licence}")  # fmt: skip
        lic = last.rec.licence
        if last.kind == "provisional":
            if t >= last.expiry_t:
                why = (f"{member}'s provisional licence {lic}, issued {last.rec.valid_from}, "
                       f"ceased on {last.expiry.isoformat()}")  # fmt: skip
            else:
                why = (f"{member}'s provisional licence {lic} ceased "
                       f"({last.ceased.reason if last.ceased else ''})")  # fmt: skip
            return "R15.2", ev, why
        if t >= last.expiry_t:
            return ("R16.1", ev, f"{member}'s licence {lic}, in force from {last.rec.valid_from}, "
                    f"expired on {last.expiry.isoformat()} unrenewed")  # fmt: skip
        reason = last.ceased.reason if last.ceased else "ceased"
        return "R16.1", ev, f"{member}'s licence {last.rec.licence} ceased ({reason})"

    def _function_cause(
        self, member: str, role: str, lic: _Licence, t: float
    ) -> tuple[str, list[int], str]:
        ev = list(lic.evidence)
        own = lic.functions[0] if lic.functions else ""
        applied = self.variations.get((member, role))
        if applied is not None and applied.application not in self.approved:
            ev.append(applied.seq)
            return ("R17.1", ev, f"{member} works as {role}, a function applied for on "
                    f"{self._day(applied.t)} (variation {applied.application}) that the Board "
                    f"has not approved; licence {lic.rec.licence} names {own}")  # fmt: skip
        mine, theirs = self.grades.get(own), self.grades.get(role)
        if mine is None or theirs is None or mine[0] != theirs[0]:
            names = ", ".join(lic.functions)
            return ("R14.2", ev, f"{member} works as {role}, a function licence "
                    f"{lic.rec.licence} does not name (it names {names})")  # fmt: skip
        notice = self._notice(member, role, t)
        if notice is not None:
            ev.append(notice.seq)
        up = theirs[1] - mine[1]
        if up > 0:
            most = self.ctx.rule(MAX_GRADES_ABOVE)
            if up > most:
                return ("R17.1.p2", ev, f"{member}, licensed as {own} (grade {mine[1]}), works "
                        f"as {role} (grade {theirs[1]}), {up} grades higher: the most is "
                        f"{most}")  # fmt: skip
            if notice is None:
                return ("R17.1.p2", ev, f"{member}, licensed as {own}, works one grade higher "
                        f"as {role} with no notice to a Board inspector")  # fmt: skip
            return "ok", ev, ""
        if notice is None:
            return ("R17.1.p1", ev, f"{member}, licensed as {own}, works in a lower grade as "
                    f"{role} with no notice to a Board inspector")  # fmt: skip
        return "ok", ev, ""

    def _notice(self, member: str, role: str, t: float) -> GradeNotice | None:
        for n in reversed(self.notices.get((member, role), ())):
            if n.t <= t < n.t + n.days * DAY:
                return n
        return None

    def _day(self, t: float) -> str:
        return self.ctx.clock.at(t).date().isoformat()

    # -- judging work ------------------------------------------------------------------------

    def _judge(self, member: str, shift: ShiftStarted, job: JobStarted | None) -> None:
        d = self.duty.get(member)
        if d is None or d.rec is not shift:
            return  # gone off duty in the same instant
        if self.on_file is None:
            self._absent(shift)
            return
        self.observed()
        got = self.cause(member, shift.role, self.ctx.now)
        if got is None or got[0] == "ok":
            return
        ctrl, ev, why = got
        if ctrl not in self.owns:
            return
        what = f"started job {job.job_kind} {job.job_id}" if job else "came on duty"
        seqs = (shift.seq, *ev, *((job.seq,) if job else ()))
        self.report_once((member, ctrl, why), (member,),
                         f"{why}, yet {member} {what} as {shift.role} on "
                         f"{self.ctx.clock.iso(self.ctx.now)}", seqs)  # fmt: skip

    def _stopped(self, member: str, lic: _Licence) -> None:
        """``lic`` stopped being in force (or notice of it came): whoever works on it must be
        off duty at once, or once the job in hand is done."""
        d = self.duty.get(member)
        if d is not None and d.job is None:
            self.ctx.after(0.0, partial(self._still_on, member, d.rec))
        elif d is not None:
            d.stopped = True

    def _leaving(self, member: str, seq: int) -> None:
        d = self.duty.get(member)
        if d is not None and d.job is None:
            self._still_on(member, d.rec)

    def _after_job(self, member: str) -> None:
        d = self.duty.get(member)
        if d is not None and d.job is None:
            self._still_on(member, d.rec)

    def _still_on(self, member: str, shift: ShiftStarted) -> None:
        d = self.duty.get(member)
        if d is None or d.rec is not shift or self.on_file is None:
            return
        got = self.cause(member, shift.role, self.ctx.now)
        if got is None or got[0] == "ok" or got[0] not in self.owns:
            return
        ctrl, ev, why = got
        self.observed()
        self.report_once((member, ctrl, why), (member,),
                         f"{why}, yet {member} was still on duty as {shift.role} on "
                         f"{self.ctx.clock.iso(self.ctx.now)}", (shift.seq, *ev))  # fmt: skip

    def _absent(self, shift: ShiftStarted) -> None:
        pass

    def _count_cover(self, shift: ShiftStarted, end: float) -> None:
        pass

    def finish(self) -> None:
        for d in list(self.duty.values()):
            self._count_cover(d.rec, self.ctx.now)


# -- reg 8 -----------------------------------------------------------------------------------


@control(
    "MT98.R8",
    kind=Kind.RUNTIME,
    title="Gaming work only by licensed employees",
    reads=BOOK,
    observes=(),
    test=INJ,
    checks={
        "nobody of the licensee's works in gaming (on duty in a role of the licensee's) "
        "without a casino employee's licence (full or provisional) in force at that moment": C
        + "R8]",
        "... from the first minute of each duty and each job": C + "R8]",
        "a casino that keeps no licence at all while its employees work: one finding, 'no "
        "such function in this casino'": T + "test_a_casino_without_licensing_is_one_finding",
        "licences issued by the Board to the person (the records of the licensing department)": T
        + "test_the_clean_floor_has_no_findings",
    },
    unchecked=(
        "what counts as 'in relation to gaming': every role of the licensee's on [staff] is "
        "taken to be gaming work (no role is exempt)",
        "a licence that ends for another cause (expiry, suspension, the end of employment) is "
        "reg 15(2)'s, 16(1)'s or 19's finding, not a second one here",
    ),
)
class LicensedWork(_Book):
    owns = frozenset({"R8"})

    def setup(self) -> None:
        super().setup()
        self.waiting: list[ShiftStarted] = []

    def _absent(self, shift: ShiftStarted) -> None:
        self.waiting.append(shift)
        if len(self.waiting) == 1:
            self.ctx.after(0.0, self._no_licensing)

    def _no_licensing(self) -> None:
        if self.absent or self.on_file is not None or not self.waiting:
            return
        self.absent = True
        names = sorted({r.member for r in self.waiting})
        self.observed(len(names))
        shown = ", ".join(names[:10]) + (f" and {len(names) - 10} more" if len(names) > 10 else "")
        self.report(
            tuple(names),
            "no such function in this casino: no casino employee's licence on record (no "
            f"[licensing]); the {len(names)} employees of the licensee on duty ({shown}) work "
            "in gaming unlicensed, as does any who comes on duty later (this finding stands for "
            "them all)",
            tuple(r.seq for r in self.waiting),
        )


# -- regs 15(2), 16(1), 19 ------------------------------------------------------------------------


@control(
    "MT98.R15.2",
    kind=Kind.RUNTIME,
    title="Provisional licence ends after three months or other events",
    reads=BOOK,
    observes=(),
    params=(PROVISIONAL_LICENCE.key,),
    needs="a provisional employee's licence, with a [licensing] section",
    test=INJ,
    checks={
        "nobody works on a provisional licence from the day its months "
        "(provisional_licence_months, calendar months from its issue) run out": C + "R15.2]",
        "... nor once the full licence is issued, it is surrendered, cancelled, the holder "
        "dies or the employment ends (a 'ceased' record or the end of employment)": T
        + "test_work_after_the_employment_ended_is_found",
        "three calendar months across a month end and a leap day": T
        + "test_a_provisional_licence_runs_three_calendar_months",
    },
    unchecked=(
        "cancellation by the Board's notice in writing is reg 19's finding (it stops work as a "
        "suspension does)",
    ),
)
class ProvisionalLapse(_Book):
    owns = frozenset({"R15.2"})


@control(
    "MT98.R16.1",
    kind=Kind.RUNTIME,
    title="Full employee licence lapses after five years or other events",
    reads=BOOK,
    observes=(),
    params=(EMPLOYEE_LICENCE_TERM.key, EMPLOYEE_LICENCE_RENEWAL.key),
    needs="a full employee's licence that expires or ceases, with a [licensing] section",
    test=INJ,
    checks={
        "nobody works on a full licence from the day its years run out "
        "(employee_licence_term_years from its start, employee_licence_renewal_years for a "
        "renewal) unless it was renewed": C + "R16.1]",
        "... nor once it is surrendered, the holder dies or the employment ends": T
        + "test_work_after_the_employment_ended_is_found",
        "five years across a leap day; a renewal runs from the old licence's expiry": T
        + "test_a_full_licence_runs_five_years_and_a_renewal_five_more",
    },
    unchecked=("cancellation is reg 19's finding",),
)
class FullLapse(_Book):
    owns = frozenset({"R16.1"})


@control(
    "MT98.R19",
    kind=Kind.RUNTIME,
    title="Suspended or cancelled employees stop working",
    reads=BOOK,
    observes=("licence_notice_received",),
    needs="a suspension or cancellation of an employee's licence, with a [licensing] section",
    test=INJ,
    checks={
        "once the licensee has notice of a suspension or cancellation, the person is off "
        "duty at once (once the job in hand is done) and does not come on duty or start a "
        "job until the suspension ends": C + "R19]",
    },
    unchecked=(
        "a job started before the notice is finished (minutes): the twin does not interrupt "
        "work in hand",
    ),
)
class StopOnSuspension(_Book):
    owns = frozenset({"R19"})


# -- regs 14(2), 17(1) ----------------------------------------------------------------------------


@control(
    "MT98.R14.2",
    kind=Kind.RUNTIME,
    title="Employees work only within licensed functions and casino",
    reads=BOOK,
    observes=("employee_licence_on_file", "employee_licence_issued"),
    needs="a [licensing] section",
    test=INJ,
    checks={
        "nobody works in a function their licence does not name, outside reg 17(1)'s "
        "provisos (another grade of the same ladder)": C + "R14.2]",
        "a licence sets out the functions (at least one) and names this casino": T
        + "test_a_licence_naming_another_casino_is_found",
    },
    unchecked=(
        "the conditions a licence sets out are compared with the Board's decision by reg "
        "13(1)'s checker; whether they are kept is not modelled",
        "the form of the licence the Board approved",
    ),
)
class LicensedFunctions(_Book):
    owns = frozenset({"R14.2"})

    def on_record(self, rec: Record) -> None:
        super().on_record(rec)
        if isinstance(rec, LicenceOnFile | LicenceIssued) and self.on_file is not None:
            casino = self.on_file.casino
            if rec.casino != casino or not rec.functions:
                what = (f"names the casino {rec.casino!r}, not {casino!r}" if rec.casino != casino
                        else "sets out no function")  # fmt: skip
                self.report((rec.member,), f"licence {rec.licence} of {rec.member} {what}",
                            (rec.seq, self.on_file.seq))  # fmt: skip


@control(
    "MT98.R17.1",
    kind=Kind.GOVERNANCE,
    title="Changing licensed functions needs Board approval",
    reads=(*BOOK, "licence_notice_served"),
    observes=("licence_application_lodged",),
    needs="a variation of an employee's functions, with a [licensing] section",
    test=INJ,
    checks={
        "nobody works in a function applied for by a variation before the Board approves it": C
        + "R17.1]",
        "the Secretary notifies the licensee and the holder in writing of the variation before "
        "the licence is altered (17(2))": T + "test_an_alteration_without_notice_is_found",
    },
    unchecked=(
        "that the licence is forwarded to the Secretary for alteration: the twin alters it on "
        "the Board's side",
    ),
)
class FunctionVariation(_Book):
    owns = frozenset({"R17.1"})

    def setup(self) -> None:
        super().setup()
        self.served: dict[tuple[str, str], set[str]] = defaultdict(set)

    def on_record(self, rec: Record) -> None:
        super().on_record(rec)
        if isinstance(rec, NoticeServed) and rec.matter == "variation":
            self.served[(rec.member, rec.ref)].add(rec.party)
        elif isinstance(rec, LicenceAltered):
            got = self.served.get((rec.member, rec.application), set())
            missing = sorted({"holder", "licensee"} - got)
            if missing:
                self.report((rec.member,), f"licence {rec.licence} of {rec.member} was altered "
                            f"to {', '.join(rec.functions)} with no written notice of the "
                            f"variation to the {' or the '.join(missing)}", (rec.seq,))  # fmt: skip


class _Cover(_Book):
    """Days worked in another grade of the same ladder, per member and direction."""

    def _count_cover(self, shift: ShiftStarted, end: float) -> None:
        if self.on_file is None:
            return
        lic = next((x for x in reversed(self.licences.get(shift.member, ()))
                    if self.in_force(x, shift.member, shift.t)), None)  # fmt: skip
        if lic is None or shift.role in lic.functions or not lic.functions:
            return
        applied = self.variations.get((shift.member, shift.role))
        if applied is not None and applied.application not in self.approved:
            return  # not cover: a variation worked before its approval (17(1))
        mine, theirs = self.grades.get(lic.functions[0]), self.grades.get(shift.role)
        if mine is None or theirs is None or mine[0] != theirs[0]:
            return
        way = "up" if theirs[1] > mine[1] else "down"
        days = self.cover[shift.member][way]
        d = self.ctx.clock.at(shift.t).date()
        last = self.ctx.clock.at(max(shift.t, end - 1.0)).date()
        while d <= last:
            days.add(d)
            d += timedelta(days=1)
        self._limit(shift, way, sorted(days), lic)

    def _limit(self, shift: ShiftStarted, way: str, days: list[date], lic: _Licence) -> None:
        pass


@control(
    "MT98.R17.1.p1",
    kind=Kind.RUNTIME,
    title="Temporary work in a lower grade",
    reads=BOOK,
    observes=("inspector_notified_of_grade",),
    params=(
        LOWER_GRADE_MAX.key,
        LOWER_GRADE_WINDOW.key,
        LOWER_GRADE_CUMULATIVE.key,
        LOWER_GRADE_ROLLING.key,
    ),
    needs="an employee working in a lower grade, with a [licensing] section",
    test=INJ,
    checks={
        "work in a lower grade of the same ladder only after notice to a Board inspector": C
        + "R17.1.p1]",
        "for at most lower_grade_max_months calendar months of days in any "
        "lower_grade_window_months (cumulative and rolling, or as the readings say)": T
        + "test_lower_grade_days_are_counted_in_a_rolling_window",
    },
    unchecked=("a day counts when any part of a duty in the lower grade falls on it",),
)
class LowerGrade(_Cover):
    owns = frozenset({"R17.1.p1"})

    def _limit(self, shift: ShiftStarted, way: str, days: list[date], lic: _Licence) -> None:
        if way != "down":
            return
        over = lower_grade_excess(
            days,
            self.ctx.rule(LOWER_GRADE_MAX),
            self.ctx.rule(LOWER_GRADE_WINDOW),
            cumulative=self.ctx.rule(LOWER_GRADE_CUMULATIVE),
            rolling=self.ctx.rule(LOWER_GRADE_ROLLING),
        )
        if over is not None:
            day, n, limit = over
            self.report_once((shift.member, "p1"), (shift.member,),
                             f"{shift.member} worked in a lower grade on {n} days in the window "
                             f"ending {day.isoformat()}, more than the {limit} days of "
                             f"{self.ctx.rule(LOWER_GRADE_MAX)} calendar months",
                             (shift.seq, *lic.evidence))  # fmt: skip


def lower_grade_excess(
    days: list[date], months: int, window: int, *, cumulative: bool, rolling: bool
) -> tuple[date, int, int] | None:
    """The first day on which the days worked in a lower grade exceed ``months`` calendar
    months within a window of ``window`` calendar months: ``(day, days counted, limit)``.
    Rolling: the window is the ``window`` months ending on each day; fixed: blocks of
    ``window`` months from the first day. Cumulative: every day in the window counts;
    continuous: the longest unbroken run of days. The limit is the days in ``months``
    calendar months from the window's first day."""
    if not days:
        return None
    first = days[0]
    for d in days:
        if rolling:
            since = d - relativedelta(months=window) + timedelta(days=1)
        else:
            k = 0
            while first + relativedelta(months=window * (k + 1)) <= d:
                k += 1
            since = first + relativedelta(months=window * k)
        inside = [x for x in days if since <= x <= d]
        if cumulative:
            n = len(inside)
        else:
            n = run = 0
            for i, x in enumerate(inside):
                run = run + 1 if i and x - inside[i - 1] == timedelta(days=1) else 1
                n = max(n, run)
        limit = (since + relativedelta(months=months) - since).days
        if n > limit:
            return d, n, limit
    return None


@control(
    "MT98.R17.1.p2",
    kind=Kind.RUNTIME,
    title="Temporary work one grade higher",
    reads=BOOK,
    observes=("inspector_notified_of_grade",),
    params=(MAX_GRADES_ABOVE.key, MAX_DAYS_PER_CALENDAR_MONTH.key),
    needs="an employee working a grade higher, with a [licensing] section",
    test=INJ,
    checks={
        "work a grade higher only after notice to a Board inspector": T
        + "test_higher_grade_without_notice_is_found",
        "at most max_grades_above grades higher": T + "test_two_grades_up_is_found",
        "on at most max_days_per_calendar_month days in each calendar month": C + "R17.1.p2]",
    },
    unchecked=("a day counts when any part of a duty in the higher grade falls on it",),
)
class HigherGrade(_Cover):
    owns = frozenset({"R17.1.p2"})

    def _limit(self, shift: ShiftStarted, way: str, days: list[date], lic: _Licence) -> None:
        if way != "up":
            return
        most = self.ctx.rule(MAX_DAYS_PER_CALENDAR_MONTH)
        by_month: dict[tuple[int, int], int] = defaultdict(int)
        for d in days:
            by_month[(d.year, d.month)] += 1
        for (y, m), n in sorted(by_month.items()):
            if n > most:
                self.report_once((shift.member, "p2", y, m), (shift.member,),
                                 f"{shift.member} worked one grade higher on {n} days of "
                                 f"{y}-{m:02d}, more than the {most} days a calendar month",
                                 (shift.seq, *lic.evidence))  # fmt: skip


__all__ = ["lower_grade_excess"]
