"""The ``[licensing]`` section: employees under licence (Malta regs 8-19).

::

    [licensing]
    casino = "Casino Malta"            # the casino named on every licence (14(2)(b))
    board_decision_days = 14           # how long the Board takes on an application
    provisional_decision_days = 2      # ... on a request for a provisional licence (15(1))
    renewal_lead_days = 60             # the licensee applies to renew this long before expiry
    change_notice_days = 5             # ... reports a change of particulars after (11)
    answer_days = 3                    # ... answers the Board's request for information (12)

    [[licensing.grades]]               # the grade ladders (default: below)
    role = "chief_cashier"
    ladder = "cage"
    grade = 2

    [[licensing.events]]               # the staff's life, each at its day of the run
    kind = "hire"
    member = "DLR-day-04"
    role = "dealer"
    shift = "day"
    at_days = 3.25

Every licensee-employed member of ``[staff]`` (not the Board's inspectors) holds a full
licence for their role's function in this casino at t = 0, issued on a date drawn from the
``licensing/issued`` stream within the term (so some fall due for renewal in a long run).

Events (``kind``): ``hire`` (a new ``member`` of ``role`` on ``shift``: the licensee applies
``applied_days_before`` the employment starts at ``at_days``, asking for a provisional licence
unless ``provisional = false``; ``age``, ``convictions``, ``waived``, ``fit`` are the
applicant's; ``decision_days`` overrides the Board's time), ``change`` (a change in the
particulars of ``member``'s application: ``particular``), ``info_request`` (the Board asks for
``particular`` about ``member``'s application or licence, by ``due_days``), ``condition``
(the Board adds, varies or revokes ``condition`` on ``member``'s licence: ``action``),
``variation`` (the licensee applies to vary ``member``'s functions to ``role``), ``cover``
(``member`` works as ``role``, one grade off their own, for ``days`` days, after notice to a
Board inspector), ``ground`` (a ground of 18(1) arises: ``ground``; the licensee learns of it
``aware_hours`` later; the Board's show-cause notice, the holder's response (``responds``) and
its ``outcome`` follow; ``suspend_days`` for a suspension; an imposed term (a variation
``role`` or a ``condition``) is complied with by ``term_days`` unless ``complies = false``) and
``leave`` (employment ends: ``reason``).

Validated with the same one-line, key-path errors as every scenario section.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal, get_args

from pydantic import Field, model_validator

from twin.dists import expect, invalid
from twin.scenario import (
    Ident,
    NonEmptyStr,
    NonNegativeFloat,
    NonNegativeInt,
    PositiveFloat,
    PositiveInt,
    _check_unique,
    _Model,
    _one_of,
    _Plain,
    number_entries,
)

EventKind = Literal[
    "hire", "change", "info_request", "condition", "variation", "cover", "ground", "leave"
]  # fmt: skip
EVENT_KINDS: tuple[str, ...] = get_args(EventKind)
#: reg 18(1)'s grounds, (a) to (h)
Ground = Literal[
    "unknown_refusal_reason",
    "conviction_gaming",
    "conviction_criminal",
    "contravention",
    "condition_breach",
    "false_information",
    "bankruptcy",
    "unsuitable",
]
GROUNDS: tuple[str, ...] = get_args(Ground)
#: reg 18(3)-(4): what the Board does after the show-cause period
Outcome = Literal["none", "caution", "vary", "condition", "suspend", "cancel"]
OUTCOMES: tuple[str, ...] = get_args(Outcome)
#: how employment ends (15(2)(c), (e), (f); 16(1)(b), (d), (e))
LeaveReason = Literal["resignation", "dismissal", "surrender", "death"]


class Grade(_Model):
    """``[[licensing.grades]]``: a role's place on a grade ladder (reg 17(1)'s provisos)."""

    role: Ident
    ladder: Ident
    grade: PositiveInt


#: the ladders unless a scenario gives its own: a role not on any is its own ladder, grade 1
DEFAULT_GRADES: tuple[Grade, ...] = (
    Grade(role="attendant", ladder="slots", grade=1),
    Grade(role="technician", ladder="slots", grade=2),
    Grade(role="cashier", ladder="cage", grade=1),
    Grade(role="chief_cashier", ladder="cage", grade=2),
    Grade(role="dealer", ladder="pit", grade=1),
)


class Event(_Model):
    """``[[licensing.events]]``: one thing in an employee's licensed life (see the module)."""

    id: Ident | None = None
    kind: EventKind
    member: Ident
    at_days: NonNegativeFloat
    role: Ident | None = None
    shift: Ident | None = None
    applied_days_before: NonNegativeFloat = 30.0
    provisional: bool = True
    decision_days: NonNegativeFloat | None = None
    age: Annotated[int, expect("an age in years from 14 to 99", lambda v: 14 <= v <= 99)] = 30
    convictions: tuple[NonEmptyStr, ...] = Field(default=(), strict=False)
    waived: bool = False
    fit: bool = True
    particular: NonEmptyStr = "address"
    due_days: PositiveFloat = 14.0
    condition: NonEmptyStr | None = None
    action: Literal["add", "vary", "revoke"] = "add"
    days: PositiveInt = 1
    ground: Ground | None = None
    aware_hours: NonNegativeFloat = 0.0
    responds: bool = True
    outcome: Outcome = "suspend"
    suspend_days: PositiveInt = 14
    term_days: PositiveInt = 14
    complies: bool = True
    reason: LeaveReason = "resignation"

    @model_validator(mode="after")
    def _check(self) -> Event:
        needs: dict[str, tuple[str, ...]] = {
            "hire": ("role", "shift"),
            "condition": ("condition",),
            "variation": ("role",),
            "cover": ("role",),
            "ground": ("ground",),
        }
        for key in needs.get(self.kind, ()):
            if getattr(self, key) is None:
                raise invalid(f"a {key} for a {self.kind}", key=key, found=_Plain("nothing"))
        if self.kind == "ground" and self.outcome == "vary" and self.role is None:
            raise invalid("a role to vary the functions to", key="role", found=_Plain("nothing"))
        if self.kind == "ground" and self.outcome == "condition" and self.condition is None:
            raise invalid("the condition imposed", key="condition", found=_Plain("nothing"))
        return self


class Holder(_Model):
    """``[[licensing.holders]]``: the licence ``member`` holds at t = 0, when not the default
    (a full licence issued on a day drawn within its term): ``kind`` "full" or
    "provisional", issued ``issued_days_ago`` days before the run. A provisional holder's
    application for the full licence is with the Board, decided ``decision_days`` into the
    run (or never, when not given)."""

    member: Ident
    kind: Literal["full", "provisional"] = "full"
    issued_days_ago: NonNegativeFloat
    decision_days: NonNegativeFloat | None = None


#: what the Board's application form asks to go with an application (9(2)(c))
FORM_DOCUMENTS: tuple[str, ...] = ("identity_document", "police_conduct_certificate", "photo")


class LicensingConfig(_Model):
    """The ``[licensing]`` table."""

    department: ClassVar[str] = "licensing"

    casino: NonEmptyStr = "Casino"
    board_decision_days: NonNegativeFloat = 14.0
    provisional_decision_days: NonNegativeFloat = 2.0
    renewal_lead_days: NonNegativeInt = 60
    change_notice_days: NonNegativeFloat = 5.0
    answer_days: NonNegativeFloat = 3.0
    response_days: NonNegativeFloat = 10.0  # the holder's answer to a show-cause notice
    form_documents: tuple[NonEmptyStr, ...] = Field(default=FORM_DOCUMENTS, strict=False)
    grades: tuple[Grade, ...] = Field(default=DEFAULT_GRADES, strict=False)
    holders: tuple[Holder, ...] = Field(default=(), strict=False)
    events: tuple[Event, ...] = Field(default=(), strict=False)

    @model_validator(mode="before")
    @classmethod
    def _number_events(cls, data: Any) -> Any:
        return number_entries(data, "events", "E")

    @model_validator(mode="after")
    def _check(self) -> LicensingConfig:
        _check_unique([g.role for g in self.grades], "grades", "role", "role")
        _check_unique([e.id or "" for e in self.events], "events", "id", "event id")
        _check_unique([h.member for h in self.holders], "holders", "member", "member")
        return self

    def grade_of(self, role: str) -> tuple[str, int]:
        """``(ladder, grade)`` of ``role``: its own ladder at grade 1 when not listed."""
        for g in self.grades:
            if g.role == role:
                return g.ladder, g.grade
        return role, 1


def check(sc: Any) -> None:
    """What ``[licensing]`` asks of ``[staff]``: grades and events name its roles and
    shifts; an event names a member on the staff or hired by an earlier event; cover is one
    grade off on the member's ladder (further is a breach only an injection makes)."""
    lic: LicensingConfig | None = getattr(sc, "licensing", None)
    if lic is None:
        return
    roles = {r.id: r for r in sc.staff.roles}
    licensee_roles = [r for r, role in roles.items() if role.employer == "licensee"]
    shifts = [s.name for s in sc.staff.shifts]
    for i, g in enumerate(lic.grades):
        if g.role not in roles and "grades" in lic.model_fields_set:  # defaults may name more
            raise invalid(_one_of(list(roles), "a role id of [[staff.roles]]"),
                          key=f"licensing.grades[{i}].role", found=g.role)  # fmt: skip
    members: dict[str, str] = {}
    for s in sc.staff.shifts:
        for r in sc.staff.roles:
            if r.employer == "licensee":
                for n in range(1, s.count(r.id) + 1):
                    members[f"{r.prefix}-{s.name}-{n:02d}"] = r.id
    for i, h in enumerate(lic.holders):
        if h.member not in members:
            raise invalid("a licensee's employee on the staff",
                          key=f"licensing.holders[{i}].member", found=h.member)  # fmt: skip
    for i, e in enumerate(lic.events):
        if e.kind == "hire":
            at = f"licensing.events[{i}]"
            if e.member in members:
                raise invalid("the id of somebody not yet on the staff", key=f"{at}.member",
                              found=e.member)  # fmt: skip
            members[e.member] = e.role or ""
    for e in sorted(lic.events, key=lambda e: e.at_days):
        at = f"licensing.events[{lic.events.index(e)}]"
        if e.role is not None and e.role not in licensee_roles:
            raise invalid(_one_of(licensee_roles, "a role of the licensee's employees"),
                          key=f"{at}.role", found=e.role)  # fmt: skip
        if e.kind == "hire":
            if e.shift not in shifts:
                raise invalid(_one_of(shifts, "a shift of [[staff.shifts]]"),
                              key=f"{at}.shift", found=e.shift)  # fmt: skip
            continue
        if e.member not in members:
            raise invalid("a licensee's employee on the staff or hired by an event",
                          key=f"{at}.member", found=e.member)  # fmt: skip
        if e.kind == "cover":
            own, their = lic.grade_of(members[e.member]), lic.grade_of(e.role or "")
            if own[0] != their[0] or their[1] == own[1]:
                raise invalid(f"a role on the {own[0]!r} ladder in another grade than "
                              f"{members[e.member]!r}", key=f"{at}.role",
                              found=e.role)  # fmt: skip
        if e.kind == "variation" or (e.kind == "ground" and e.outcome == "vary"):
            members[e.member] = e.role or members[e.member]


__all__ = [
    "DEFAULT_GRADES",
    "EVENT_KINDS",
    "FORM_DOCUMENTS",
    "GROUNDS",
    "OUTCOMES",
    "Event",
    "Grade",
    "Holder",
    "LicensingConfig",
    "check",
]
