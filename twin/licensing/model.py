"""Employees under licence (the ``licensing`` department, issue 28): who may do gaming work,
in which functions, for how long, and what happens when a licence is suspended.

Every licensee-employed member of the staff holds a licence for their role's function (the
roles of ``[staff]`` are the functions; ``[[licensing.grades]]`` puts them on ladders). The
department keeps every licence's life: the application (9), the Board's decision (13), the
licence issued (14), provisional (15) or full (16) and renewed before it expires, changes of
particulars (11), the Board's requests (12) and conditions (14(3)), variations of functions
(17(1)), temporary work in another grade (17(1), provisos), and the grounds, show-cause
notices, actions, suspensions and cancellations of reg 18. The dispatcher obeys: a member
works only while a licence for their role is in force (``Dispatcher.bar``/``admit``), in
the role the licence (or a proviso's cover) allows (``Dispatcher.set_role``); the floor
covers or waits.

The operation obeys the ruleset: a provisional licence lapses after its months, a full one
after its years unless renewed, a change is reported within the days, cover stays within
the provisos, the Board gives the full show-cause period. The injections
(:mod:`twin.licensing.injections`) arm deviations taken by the workflow they spoil.
"""

from __future__ import annotations

import math
from collections.abc import Generator
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from typing import Any

import simpy
from dateutil.relativedelta import relativedelta

from twin.department import Site
from twin.door import Door
from twin.injections import Deviations
from twin.licensing.params import (
    EMPLOYEE_LICENCE_RENEWAL,
    EMPLOYEE_LICENCE_TERM,
    GROUND_REPORT_DAYS,
    LOWER_GRADE_MAX,
    LOWER_GRADE_WINDOW,
    MAX_DAYS_PER_CALENDAR_MONTH,
    MAX_GRADES_ABOVE,
    MIN_AGE,
    NOTIFY_WITHIN_DAYS,
    PROVISIONAL_LICENCE,
    REASONABLE_NOTICE_DAYS,
    SHOW_CAUSE_MIN_DAYS,
)
from twin.licensing.records import (
    ApplicationDecided,
    ApplicationLodged,
    CaseOpened,
    ConditionsChanged,
    EmploymentEnded,
    EmploymentStarted,
    GradeNotice,
    GroundArose,
    GroundKnown,
    GroundReported,
    InfoRequested,
    InfoSupplied,
    LicenceAction,
    LicenceAltered,
    LicenceCeased,
    LicenceIssued,
    LicenceOnFile,
    LicenceSuspended,
    LicensingOnFile,
    NoticeReceived,
    NoticeServed,
    ParticularsChanged,
    ParticularsNotified,
    RefusalNotified,
    RoleAssigned,
    ShowCauseAnswered,
    ShowCauseIssued,
    SuspensionEnded,
    TermComplied,
)
from twin.licensing.section import Event, Holder, LicensingConfig
from twin.records import Record
from twin.staff import Dispatcher, Roster, Shift
from twin.workdays import WORKDAY_COUNTRY, deadline, next_office_time

Proc = Generator[simpy.events.Event, Any, None]
DAY = 86400.0
#: why a member may not work (``Dispatcher.bar``)
NOT_EMPLOYED = "employment not begun"
NO_LICENCE = "no licence in force"
SUSPENDED = "licence suspended"
LEFT = "employment ended"
#: the grounds the Board may dispense with (18(1), proviso: (c) and (g), as the catalog reads)
DISPENSABLE = frozenset({"conviction_criminal", "bankruptcy"})


@dataclass
class Licence:
    """A licence as the department keeps it."""

    id: str
    member: str
    kind: str  # "full" or "provisional"
    functions: tuple[str, ...]
    valid_from: date
    expires_t: float
    conditions: list[str] = field(default_factory=list)
    in_force: bool = True
    suspended: bool = False
    renewed: bool = False  # superseded by its renewal


@dataclass
class Holder_:
    """What the department knows of one employee."""

    member: str
    role: str  # the licensed role (cover changes the role worked, not this)
    employed: bool = True
    licence: Licence | None = None
    provisional: Licence | None = None
    application: str = ""
    cover_until: float | None = None


class Licensing(Deviations):
    """The licensing department (``name`` "licensing")."""

    name = "licensing"

    def __init__(
        self,
        site: Site,
        config: LicensingConfig,
        staff: Dispatcher,
        roster: Roster,
        door: Door | None = None,
    ) -> None:
        self.world = site.world
        self.env = site.world.env
        self.clock = site.world.clock
        self.config = config
        self.staff = staff
        self.door = door  # a hire joins the register of those who may not gamble
        rules = site.rules
        self.country = WORKDAY_COUNTRY.of(rules)
        self.min_age = MIN_AGE.of(rules)
        self.notify_days = NOTIFY_WITHIN_DAYS.of(rules)
        self.provisional_months = PROVISIONAL_LICENCE.of(rules)
        self.term_years = EMPLOYEE_LICENCE_TERM.of(rules)
        self.renewal_years = EMPLOYEE_LICENCE_RENEWAL.of(rules)
        self.lower_max_months = LOWER_GRADE_MAX.of(rules)
        self.lower_window_months = LOWER_GRADE_WINDOW.of(rules)
        self.higher_max_days = MAX_DAYS_PER_CALENDAR_MONTH.of(rules)
        self.max_grades_above = MAX_GRADES_ABOVE.of(rules)
        self.show_cause_days = SHOW_CAUSE_MIN_DAYS.of(rules)
        self.report_days = GROUND_REPORT_DAYS.of(rules)
        self.notice_days = REASONABLE_NOTICE_DAYS.of(rules)
        self.holders: dict[str, Holder_] = {}
        for mid, m in sorted(staff.members.items()):
            if staff.roles[m.role].employer == "licensee":
                self.holders[mid] = Holder_(mid, m.role)
        self.hires = [e for e in config.events if e.kind == "hire"]
        for e in self.hires:  # on the roster from t = 0, barred until employed and licensed
            staff.enlisted(e.member, e.role or "", e.shift or "", barred=NOT_EMPLOYED)
            self.holders[e.member] = Holder_(e.member, e.role or "", employed=False)
            for i, s in enumerate(roster):
                if s.name == e.shift:
                    roster[i] = Shift(s.name, s.start, s.end, (*s.members, e.member))
        self._n: dict[str, int] = {}
        self.armed: dict[str, str] = {}
        self.cover_days: dict[str, set[date]] = {}  # member -> days worked in another grade
        self.lower_days: dict[str, list[date]] = {}
        self.higher_days: dict[str, list[date]] = {}
        self.decision_waits: list[float] = []  # seconds from application to decision
        self.refusals = 0

    # -- helpers ----------------------------------------------------------------------------------

    def emit(self, cls: type[Record], **fields: Any) -> None:
        self.world.bus.emit(cls, **fields)

    def _id(self, prefix: str) -> str:
        n = self._n.get(prefix, 0) + 1
        self._n[prefix] = n
        return f"{prefix}-{n:04d}"

    def _now(self) -> datetime:
        return self.clock.at(self.env.now)

    def _t(self, day: date) -> float:
        """The start of local ``day`` (the instant a licence dated ``day`` ends)."""
        return self.clock.seconds(datetime.combine(day, time(0, 0), tzinfo=self._now().tzinfo))

    def _expiry(self, kind: str, valid_from: date, renewal: bool) -> float:
        if kind == "provisional":
            return self._t(valid_from + relativedelta(months=self.provisional_months))
        years = self.renewal_years if renewal else self.term_years
        return self._t(valid_from + relativedelta(years=years))

    def _sleep_until(self, t: float) -> simpy.events.Timeout:
        return self.env.timeout(max(0.0, t - self.env.now))

    def _office(self, t: float) -> float:
        """The Board's next office time at or after ``t``."""
        return self.clock.seconds(next_office_time(self.clock.at(t), self.country))

    def _notices(self, h: Holder_, matter: str, ref: str, parties: tuple[str, ...]) -> None:
        lic = h.licence.id if h.licence else ""
        for party in parties:
            self.emit(NoticeServed, member=h.member, licence=lic, matter=matter, party=party,
                      ref=ref)  # fmt: skip

    def licensed_role(self, member: str) -> str:
        return self.holders[member].role

    def may_work(self, h: Holder_) -> bool:
        lic = h.licence if h.licence and h.licence.in_force else h.provisional
        return (
            h.employed
            and lic is not None
            and lic.in_force
            and not lic.suspended
            and h.role in lic.functions
        )

    def _update(self, h: Holder_, reason: str = NO_LICENCE) -> None:
        """Bar or admit ``h`` as their licences now allow."""
        if self.may_work(h):
            self.staff.admit(h.member)
        else:
            self.staff.bar(h.member, reason if h.employed else NOT_EMPLOYED)

    # -- the department ---------------------------------------------------------------------

    def start(self) -> None:
        """The licences on file at t = 0, and each event's process."""
        today = self._now().date()
        roles = sorted(r for r, x in self.staff.roles.items() if x.employer == "licensee")
        self.emit(LicensingOnFile, casino=self.config.casino,
                  form_documents=self.config.form_documents, roles=tuple(roles),
                  ladders=tuple(self.config.grade_of(r)[0] for r in roles),
                  grades=tuple(self.config.grade_of(r)[1] for r in roles))  # fmt: skip
        given = {h.member: h for h in self.config.holders}
        lead = self.config.renewal_lead_days
        for mid, h in sorted(self.holders.items()):
            if not h.employed:
                continue
            held = given.get(mid)
            if held is None:
                rng = self.world.streams.fresh(mid, "licensing:issued")
                span = (today - (today - relativedelta(years=self.term_years))).days
                days_ago = int(rng.integers(0, max(1, span - lead - 10)))
            else:
                days_ago = int(held.issued_days_ago)
            kind = "full" if held is None else held.kind
            issued = today - timedelta(days=days_ago)
            lic = self._file(h, kind, issued)
            if kind == "provisional":
                self.env.process(self.pending_full_licence(h, held))
            else:
                self.env.process(self.keep_licence(h, lic))
        for e in self.config.events:
            self.env.process(getattr(self, f"event_{e.kind}")(e))

    def finish(self) -> None:
        pass

    def _file(self, h: Holder_, kind: str, issued: date) -> Licence:
        lic = Licence(self._id("EL"), h.member, kind, (h.role,), issued,
                      self._expiry(kind, issued, renewal=False))  # fmt: skip
        if kind == "provisional":
            h.provisional = lic
        else:
            h.licence = lic
        self.emit(LicenceOnFile, member=h.member, licence=lic.id, licence_kind=kind,
                  functions=lic.functions, casino=self.config.casino, conditions=(),
                  issued=issued.isoformat(), valid_from=issued.isoformat(),
                  renewal=False)  # fmt: skip
        self.env.process(self.watch_expiry(h, lic))
        return lic

    # -- licences: issue, expiry, renewal -------------------------------------------------------

    def _issue(self, h: Holder_, kind: str, application: str, *, valid_from: date | None = None,
               renewal: bool = False, conditions: tuple[str, ...] = ()) -> Licence:  # fmt: skip
        today = self._now().date()
        start = valid_from or today
        lic = Licence(self._id("EL"), h.member, kind, (h.role,), start,
                      self._expiry(kind, start, renewal), list(conditions))  # fmt: skip
        casino = self.config.casino
        if self.take("licence_wrong_casino", h.member):
            casino = "Another Casino"
        self.emit(LicenceIssued, member=h.member, licence=lic.id, application=application,
                  licence_kind=kind, functions=lic.functions, casino=casino, conditions=conditions,
                  issued=today.isoformat(), valid_from=start.isoformat(),
                  renewal=renewal)  # fmt: skip
        if kind == "provisional":
            h.provisional = lic
        else:
            old = h.licence
            h.licence = lic
            if old is not None and renewal:
                old.renewed = True
            p = h.provisional
            if p is not None and p.in_force:
                self._cease(h, p, "full_issued")
        self.env.process(self.watch_expiry(h, lic))
        self._update(h)
        return lic

    def _cease(self, h: Holder_, lic: Licence, reason: str) -> None:
        if not lic.in_force:
            return
        lic.in_force = False
        self.emit(LicenceCeased, member=h.member, licence=lic.id, licence_kind=lic.kind,
                  reason=reason)  # fmt: skip

    def watch_expiry(self, h: Holder_, lic: Licence) -> Proc:
        """A licence ceases when its months or years are over (15(2)(d), 16(1)(c))."""
        yield self._sleep_until(lic.expires_t)
        if not lic.in_force or lic.renewed:
            return
        keep = "provisional_overrun" if lic.kind == "provisional" else "full_overrun"
        self._cease(h, lic, "expired")
        if self.take(keep, h.member):
            return  # the licensee lets them go on working (an injected breach)
        self._update(h)

    def keep_licence(self, h: Holder_, lic: Licence) -> Proc:
        """The licensee applies to renew ``renewal_lead_days`` before the licence expires."""
        while True:
            apply_t = lic.expires_t - self.config.renewal_lead_days * DAY
            yield self._sleep_until(apply_t)
            if not lic.in_force or not h.employed or h.licence is not lic:
                return
            app = self._apply(h, "renewal", (h.role,), provisional=False)
            yield self.env.timeout(self.config.board_decision_days * DAY)
            if not h.employed or h.licence is not lic or lic.suspended:
                return
            self._decide(h, app, apply_t)
            start = self.clock.at(lic.expires_t).date()
            lic = self._issue(h, "full", app, valid_from=start, renewal=True)

    def pending_full_licence(self, h: Holder_, held: Holder | None) -> Proc:
        """A provisional holder's application for the full licence, with the Board at t = 0."""
        h.application = self._id("LA")
        if held is None or held.decision_days is None:
            return
        yield self.env.timeout(held.decision_days * DAY)
        if not h.employed:
            return
        self._decide(h, h.application, 0.0)
        self._issue(h, "full", h.application)

    # -- applications and decisions ------------------------------------------------------------

    def _apply(self, h: Holder_, purpose: str, functions: tuple[str, ...], *, provisional: bool,
               e: Event | None = None, employment_start_t: float = -1.0) -> str:  # fmt: skip
        app = self._id("LA")
        h.application = app
        signed: tuple[str, ...] = ("licensee", "employee")
        if self.take("application_unsigned", h.member):
            signed = ("licensee",)
        self.emit(ApplicationLodged, member=h.member, application=app, purpose=purpose,
                  functions=functions, casino=self.config.casino, lodged_with="board_secretary",
                  documents=self.config.form_documents, signed_by=signed,
                  age=e.age if e else 30, convictions=e.convictions if e else (),
                  fit=e.fit if e else True, provisional=provisional,
                  employment_start_t=employment_start_t)  # fmt: skip
        return app

    def _eligible(self, e: Event | None) -> bool:
        if e is None:
            return True
        return e.fit and e.age >= self.min_age and (not e.convictions or e.waived)

    def _reasons(self, e: Event) -> tuple[str, ...]:
        out = []
        if not e.fit:
            out.append("not a fit and proper person (10(a))")
        if e.age < self.min_age:
            out.append(f"under the age of {self.min_age} (10(b))")
        if e.convictions and not e.waived:
            out.append("convicted of a criminal offence (10(c)): " + ", ".join(e.convictions))
        return tuple(out)

    def _decide(self, h: Holder_, app: str, applied_t: float, e: Event | None = None, *,
                provisional: bool = False, functions: tuple[str, ...] = ()) -> bool:  # fmt: skip
        """The Board decides ``app``: approved if the applicant is eligible, else refused with
        reasons, notified in writing. Returns whether approved."""
        eligible = self._eligible(e)
        if not eligible and self.take("ineligible_licensed", h.member):
            eligible = True  # the Board takes the licensee's word against the particulars
        outcome = "approved" if eligible else "refused"
        consents: tuple[str, ...] = ()
        functions = functions or (h.role,)
        if eligible and self.take("varied_without_consent", h.member):
            outcome, consents = "approved_varied", ("licensee",)
        reasons = () if eligible or e is None else self._reasons(e)
        self.emit(ApplicationDecided, member=h.member, application=app, outcome=outcome,
                  functions=functions, consents=consents, conditions=(), eligible=eligible,
                  waived=bool(e and e.waived and e.convictions), reasons=reasons,
                  provisional=provisional)  # fmt: skip
        if not provisional:
            self.decision_waits.append(self.env.now - applied_t)
        if outcome == "refused" and not provisional:
            self.refusals += 1
            self.env.process(self.notify_refusal(h, app, reasons, self.env.now))
        return eligible

    def notify_refusal(self, h: Holder_, app: str, reasons: tuple[str, ...], t: float) -> Proc:
        """The Secretary notifies the refusal in writing with its reasons (13(5)): at the
        next office opening after the decision."""
        yield self._sleep_until(self._office(t + 1.0))
        if self.take("refusal_unexplained", h.member):
            reasons = ()
        self.emit(RefusalNotified, member=h.member, application=app, reasons=reasons,
                  in_writing=True, decided_t=t)  # fmt: skip

    # -- the events ---------------------------------------------------------------------------

    def event_hire(self, e: Event) -> Proc:
        """A new employee: the application before employment starts (9(1)), the provisional
        licence (15(1)), the Board's decision (13), and work once a licence is in force."""
        h = self.holders[e.member]
        start_t = e.at_days * DAY
        apply_t = max(0.0, start_t - e.applied_days_before * DAY)
        late = self.take("application_late", e.member)
        if late:
            apply_t = start_t + 3 * DAY
        self.env.process(self.employ(h, e, start_t))
        yield self._sleep_until(apply_t)
        app = self._apply(h, "new", (h.role,), provisional=e.provisional, e=e,
                          employment_start_t=start_t)  # fmt: skip
        t0 = self.env.now
        if e.provisional:
            yield self.env.timeout(self.config.provisional_decision_days * DAY)
            if self._decide(h, app, t0, e, provisional=True):
                self._issue(h, "provisional", app)
        days = self.config.board_decision_days if e.decision_days is None else e.decision_days
        yield self._sleep_until(t0 + days * DAY)
        if self._decide(h, app, t0, e):
            self._issue(h, "full", app)

    def employ(self, h: Holder_, e: Event, start_t: float) -> Proc:
        yield self._sleep_until(start_t)
        h.employed = True
        self.emit(EmploymentStarted, member=h.member, role=h.role, shift=e.shift or "")
        if self.door is not None:
            self.door.employ(h.member)
        if self.take("unlicensed_work", h.member):
            self.staff.admit(h.member)  # put to work with no licence in force
            return
        self._update(h)

    def event_change(self, e: Event) -> Proc:
        """A change in the application's particulars, reported in writing within the days
        the ruleset allows (11)."""
        yield self._sleep_until(e.at_days * DAY)
        change = self._id("PC")
        self.emit(ParticularsChanged, member=e.member, change=change, particular=e.particular)
        t = self.env.now
        lag = min(self.config.change_notice_days, float(self.notify_days))
        if self.take("change_unreported", e.member):
            lag = self.notify_days + 14.0
        yield self.env.timeout(lag * DAY)
        self.emit(ParticularsNotified, member=e.member, change=change, particular=e.particular,
                  in_writing=True, changed_t=t)  # fmt: skip

    def event_info_request(self, e: Event) -> Proc:
        """The Board's notice asking for information (12), answered by its date."""
        yield self._sleep_until(e.at_days * DAY)
        h = self.holders[e.member]
        req = self._id("BR")
        due = self.env.now + e.due_days * DAY
        self.emit(InfoRequested, member=e.member, request=req, application=h.application,
                  particular=e.particular, due_t=due)  # fmt: skip
        if self.take("info_unanswered", e.member):
            return
        yield self.env.timeout(min(self.config.answer_days, e.due_days) * DAY)
        self.emit(InfoSupplied, member=e.member, request=req, particular=e.particular)

    def event_condition(self, e: Event) -> Proc:
        """The Board adds, varies or revokes a condition, with written notice to the holder
        and the licensee (14(3))."""
        yield self._sleep_until(e.at_days * DAY)
        h = self.holders[e.member]
        self._condition(h, e.condition or "", e.action, self._id("CN"))

    def _condition(self, h: Holder_, condition: str, action: str, ref: str) -> None:
        lic = h.licence or h.provisional
        if lic is None:
            return
        parties: tuple[str, ...] = ("holder", "licensee")
        if self.take("condition_unnotified", h.member):
            parties = ("holder",)
        self._notices(h, "conditions", ref, parties)
        if action == "revoke":
            lic.conditions = [c for c in lic.conditions if c != condition]
        elif condition not in lic.conditions:
            lic.conditions.append(condition)
        self.emit(ConditionsChanged, member=h.member, licence=lic.id, action=action,
                  condition=condition, conditions=tuple(lic.conditions))  # fmt: skip

    def event_variation(self, e: Event) -> Proc:
        """An application to vary the functions (17(1)); the Secretary notifies both and
        alters the licence (17(2)); the employee then works in the new function."""
        yield self._sleep_until(e.at_days * DAY)
        h = self.holders[e.member]
        role = e.role or h.role
        app = self._apply(h, "variation", (role,), provisional=False)
        t0 = self.env.now
        if self.take("variation_unapproved", e.member):
            self._assign(h.member, role, "variation")
            h.role = role
            return  # the licensee moves them before the Board approves
        yield self.env.timeout(self.config.board_decision_days * DAY)
        self._decide(h, app, t0, functions=(role,))
        self._vary(h, role, app)

    def _vary(self, h: Holder_, role: str, ref: str) -> None:
        self._notices(h, "variation", ref, ("holder", "licensee"))
        lic = h.licence or h.provisional
        if lic is not None:
            lic.functions = (role,)
            self.emit(LicenceAltered, member=h.member, licence=lic.id, application=ref,
                      functions=lic.functions)  # fmt: skip
        h.role = role
        self._assign(h.member, role, "variation")
        self._update(h)

    def _assign(self, member: str, role: str, reason: str) -> None:
        previous = self.staff.members[member].role
        self.emit(RoleAssigned, member=member, role=role, previous=previous, reason=reason)
        self.staff.set_role(member, role)

    # -- temporary work in another grade (17(1), provisos) ---------------------------------------

    def _cover_end(self, h: Holder_, role: str, start: float, days: int) -> float:
        """When a cover from ``start`` for ``days`` days must end to keep to the provisos:
        every local date it touches counts as a day."""
        own = self.config.grade_of(h.role)[1]
        higher = self.config.grade_of(role)[1] > own
        end = start + days * DAY
        d = self.clock.at(start).date()
        last = self.clock.at(end - 1.0).date()
        used_higher = self.higher_days.setdefault(h.member, [])
        used_lower = self.lower_days.setdefault(h.member, [])
        while d <= last:
            if higher:
                month = [x for x in used_higher if (x.year, x.month) == (d.year, d.month)]
                ok = len(month) < self.higher_max_days
            else:
                since = d - relativedelta(months=self.lower_window_months) + timedelta(days=1)
                allowed = (since + relativedelta(months=self.lower_max_months) - since).days
                ok = len([x for x in used_lower if x >= since]) < allowed
            if not ok:
                return min(end, self._t(d))
            (used_higher if higher else used_lower).append(d)
            d += timedelta(days=1)
        return end

    def event_cover(self, e: Event) -> Proc:
        """``member`` works one grade off their licensed grade for ``days`` days, after notice
        to a Board inspector, within the provisos' limits."""
        yield self._sleep_until(e.at_days * DAY)
        h = self.holders[e.member]
        role = e.role or h.role
        if self.take("unlicensed_function", h.member):
            ladder = self.config.grade_of(h.role)[0]
            other = [r for r, x in sorted(self.staff.roles.items()) if x.employer == "licensee"
                     and self.config.grade_of(r)[0] != ladder]  # fmt: skip
            if other:  # put to work in a function of another ladder, no notice, no cover
                self._assign(h.member, other[0], "cover")
                yield self.env.timeout(e.days * DAY)
                self._assign(h.member, h.role, "cover_end")
                return
        own, their = self.config.grade_of(h.role)[1], self.config.grade_of(role)[1]
        if their - own > self.max_grades_above or not self.may_work(h):
            return  # the licensee may not (or need not) use them so
        overrun = self.take("cover_overrun", e.member)
        end = self.env.now + e.days * DAY
        if overrun:  # past the month's days, whatever the event asked
            end = max(end, self.env.now + (self.higher_max_days + 2) * DAY)
        else:
            end = self._cover_end(h, role, self.env.now, e.days)
        if end <= self.env.now:
            return
        if not self.take("cover_unnotified", e.member):
            inspectors = self.staff.on_duty("inspector") if "inspector" in self.staff.roles else []
            self.emit(GradeNotice, member=h.member, inspector=inspectors[0] if inspectors else "",
                      role=role, grade=their, licensed_role=h.role, licensed_grade=own,
                      days=math.ceil((end - self.env.now) / DAY))  # fmt: skip
        self._assign(h.member, role, "cover")
        h.cover_until = end
        yield self._sleep_until(end)
        h.cover_until = None
        if self.staff.members[h.member].role == role:
            self._assign(h.member, h.role, "cover_end")

    # -- grounds, show cause, suspension (18, 19) -----------------------------------------------

    def event_ground(self, e: Event) -> Proc:
        """A ground of 18(1): the licensee reports it (18(2)); the Board considers it, asks
        the holder to show cause (18(3)), has regard to the response and acts (18(4)); an
        imposed term not complied with ends in suspension (18(5)); the licensee stops a
        suspended or cancelled employee at once (19)."""
        yield self._sleep_until(e.at_days * DAY)
        h = self.holders[e.member]
        case = self._id("LC")
        ground = e.ground or "unsuitable"
        self.emit(GroundArose, member=h.member, case=case, ground=ground)
        yield self.env.timeout(e.aware_hours * 3600.0)
        self.emit(GroundKnown, member=h.member, case=case, ground=ground)
        known = self.env.now
        if self.take("ground_reported_late", h.member):
            due = self.clock.seconds(deadline(next_office_time(self._now(), self.country),
                                              self.report_days, self.country))  # fmt: skip
            yield self._sleep_until(due + 3 * DAY)
        self.emit(GroundReported, member=h.member, case=case, ground=ground, in_writing=True,
                  known_t=known)  # fmt: skip
        yield self.env.timeout(self.config.board_decision_days * DAY)
        dispensed = self.take("ground_dispensed", h.member)
        self.emit(CaseOpened, member=h.member, case=case, ground=ground, dispensed=dispensed)
        if dispensed:
            return
        period = self.show_cause_days
        if self.take("show_cause_short", h.member):
            period = max(1, self.show_cause_days // 2)
        due_t = self.clock.seconds(self._now() + relativedelta(days=period))  # calendar days
        self.emit(ShowCauseIssued, member=h.member, case=case, ground=ground,
                  period_days=period, due_t=due_t)  # fmt: skip
        self._notices(h, "show_cause", case, ("holder", "licensee"))
        if e.responds:
            yield self.env.timeout(min(self.config.response_days, float(period)) * DAY)
            self.emit(ShowCauseAnswered, member=h.member, case=case)
        yield self._sleep_until(due_t)
        yield from self._act(h, e, case, e.outcome, "18(4)")

    def _act(self, h: Holder_, e: Event, case: str, outcome: str, under: str) -> Proc:
        lic = h.licence or h.provisional
        lid = lic.id if lic else ""
        until = self.env.now + e.suspend_days * DAY if outcome == "suspend" else -1.0
        term_due = self.env.now + e.term_days * DAY if outcome in ("vary", "condition") else -1.0
        self.emit(LicenceAction, member=h.member, case=case, licence=lid, outcome=outcome,
                  role=e.role or "" if outcome == "vary" else "",
                  condition=e.condition or "" if outcome == "condition" else "",
                  until_t=until, term_due_t=term_due, under=under)  # fmt: skip
        if outcome in ("none",):
            return
        matter = {"caution": "caution", "vary": "variation", "condition": "conditions",
                  "suspend": "suspension", "cancel": "cancellation"}[outcome]  # fmt: skip
        self._notices(h, matter, case, ("holder", "licensee"))
        if outcome in ("suspend", "cancel") and lic is not None:
            yield from self._suspend_or_cancel(h, lic, case, outcome, until)
        elif outcome in ("vary", "condition"):
            yield self.env.timeout(e.term_days * DAY / 2)
            if e.complies:
                self.emit(TermComplied, member=h.member, case=case)
                if outcome == "vary":
                    self._vary(h, e.role or h.role, case)
                else:
                    self._condition(h, e.condition or "", "add", case)
                return
            yield self._sleep_until(term_due)
            if self.take("term_ignored", h.member):
                return
            yield from self._act(h, e, case, "suspend", "18(5)")

    def _suspend_or_cancel(self, h: Holder_, lic: Licence, case: str, outcome: str,
                           until: float) -> Proc:  # fmt: skip
        if outcome == "cancel":
            self._cease(h, lic, "cancelled")
        else:
            lic.suspended = True
            self.emit(LicenceSuspended, member=h.member, licence=lic.id, case=case, until_t=until)
        self.emit(NoticeReceived, member=h.member, licence=lic.id, case=case, action=outcome)
        if not self.take("suspended_works", h.member):
            self.staff.bar(h.member, SUSPENDED if outcome == "suspend" else NO_LICENCE)
        if outcome == "cancel":
            return
        yield self._sleep_until(until)
        lic.suspended = False
        self.emit(SuspensionEnded, member=h.member, licence=lic.id, case=case)
        self._update(h)

    def event_leave(self, e: Event) -> Proc:
        """Employment ends: the licences cease (15(2)(e), 16(1)(d); surrender, death)."""
        yield self._sleep_until(e.at_days * DAY)
        h = self.holders[e.member]
        h.employed = False
        self.emit(EmploymentEnded, member=h.member, reason=e.reason)
        why = {"surrender": "surrendered", "death": "death"}.get(e.reason, "employment_ended")
        for lic in (h.provisional, h.licence):
            if lic is not None:
                self._cease(h, lic, why)
        self.staff.bar(h.member, LEFT)


__all__ = ["DISPENSABLE", "Licence", "Licensing"]
