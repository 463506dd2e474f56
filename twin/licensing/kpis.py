"""The licensing KPIs, from records alone: licences by state at the end, applications and
the Board's decisions and their waits, duty missed for want of a licence in force (staff
hours short: not a hire before their first day, nor one who has left), jobs filed when
nobody licensed for a role they need was on duty, and cover in another grade (and the jobs
done by someone covering)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from twin.licensing.records import (
    ApplicationDecided,
    ApplicationLodged,
    LicenceCeased,
    LicenceIssued,
    LicenceOnFile,
    LicenceSuspended,
    RoleAssigned,
    SuspensionEnded,
)
from twin.records import Record
from twin.staff.records import DutyMissed, JobRequested, JobStarted, ShiftEnded, ShiftStarted

#: every key is reported (0 when none), so two arms of a study compare the same keys
STATES = ("full", "provisional", "suspended", "ceased")
PURPOSES = ("new", "renewal", "variation")
OUTCOMES = ("approved", "approved_varied", "refused")
#: the reasons of a missed duty that leave the floor short: an employee on the roster whose
#: licence is not in force (not a hire before their first day, nor one who has left)
SHORT = frozenset({"no licence in force", "licence suspended"})


class LicensingKpis:
    """The KPI section "licensing"."""

    name = "licensing"
    reads: tuple[type[Record], ...] = (
        LicenceOnFile,
        LicenceIssued,
        LicenceCeased,
        LicenceSuspended,
        SuspensionEnded,
        ApplicationLodged,
        ApplicationDecided,
        RoleAssigned,
        DutyMissed,
        JobRequested,
        JobStarted,
        ShiftStarted,
        ShiftEnded,
    )

    def __init__(self) -> None:
        self.active = False
        self.state: dict[str, str] = {}  # licence -> state
        self.kind: dict[str, str] = {}
        self.applied: dict[str, float] = {}
        self.purposes: Counter[str] = Counter()
        self.outcomes: Counter[str] = Counter()
        self.waits: list[float] = []
        self.missed = 0
        self.hours_short = 0.0
        self.missed_by_role: Counter[str] = Counter()
        self.missed_by_reason: Counter[str] = Counter()
        self.on: Counter[str] = Counter()  # members on duty by role
        self.role_of: dict[str, str] = {}
        self.unstaffed = 0
        self.cover: Counter[str] = Counter()
        self.renewals = 0
        self.covering: set[str] = set()  # members working in another grade now
        self.by_cover = 0

    def accept(self, rec: Record) -> None:
        if isinstance(rec, LicenceOnFile | LicenceIssued):
            self.active = True
            self.state[rec.licence] = rec.licence_kind
            self.kind[rec.licence] = rec.licence_kind
            self.renewals += isinstance(rec, LicenceIssued) and rec.renewal
        elif isinstance(rec, LicenceCeased):
            self.state[rec.licence] = "ceased"
        elif isinstance(rec, LicenceSuspended):
            self.state[rec.licence] = "suspended"
        elif isinstance(rec, SuspensionEnded):
            self.state[rec.licence] = self.kind.get(rec.licence, "full")
        elif isinstance(rec, ApplicationLodged):
            self.purposes[rec.purpose] += 1
            self.applied[rec.application] = rec.t
        elif isinstance(rec, ApplicationDecided):
            if not rec.provisional:
                self.outcomes[rec.outcome] += 1
                if rec.application in self.applied:
                    self.waits.append((rec.t - self.applied[rec.application]) / 86400.0)
        elif isinstance(rec, RoleAssigned):
            self.cover[rec.reason] += 1
            if rec.reason == "cover":
                self.covering.add(rec.member)
            elif rec.reason == "cover_end":
                self.covering.discard(rec.member)
        elif isinstance(rec, JobStarted):
            self.by_cover += any(m in self.covering for m in rec.members)
        elif isinstance(rec, DutyMissed):
            self.missed_by_reason[rec.reason] += 1
            if rec.reason in SHORT:  # rostered and employed, but unlicensed
                self.missed += 1
                self.missed_by_role[rec.role] += 1
                self.hours_short += rec.hours
        elif isinstance(rec, ShiftStarted):
            self.on[rec.role] += 1
        elif isinstance(rec, ShiftEnded):
            self.on[rec.role] -= 1
        elif isinstance(rec, JobRequested) and any(self.on[r] <= 0 for r in rec.roles):
            self.unstaffed += 1

    def report(self, end: float) -> dict[str, Any]:
        if not self.active:
            return {}  # no [licensing] in the scenario
        by_state = Counter(self.state.values())
        w = self.waits
        return {
            "licences_by_state": {s: by_state.get(s, 0) for s in STATES},
            "applications": {p: self.purposes.get(p, 0) for p in PURPOSES},
            "board_decisions": {o: self.outcomes.get(o, 0) for o in OUTCOMES},
            "board_wait_days": {
                "n": len(w),
                "mean": round(sum(w) / len(w), 3) if w else 0.0,
                "max": round(max(w), 3) if w else 0.0,
            },
            "renewals": self.renewals,
            "duty_missed": self.missed,
            "duty_missed_by_role": dict(sorted(self.missed_by_role.items())),
            "duty_missed_by_reason": dict(sorted(self.missed_by_reason.items())),
            "staff_hours_short": round(self.hours_short, 3),
            "jobs_without_licensed_staff": self.unstaffed,
            "covers": self.cover.get("cover", 0),
            "jobs_done_by_cover": self.by_cover,
            "variations": self.cover.get("variation", 0),
        }
