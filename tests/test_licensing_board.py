"""Employees' licences, the paperwork of the licensee and the Board (Malta regs 9-13, 14(3),
18(1)-(3), 18(5)): every control's injected violation on the licensing test floor, the clean
floor silent and exercised, the parts no injection reaches on hand-made records, and the
deadlines on the calendar (thirty days over a month's end and a leap day, working days over
Malta's holidays, the show-cause period over a month's end and a DST change)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import pytest
import simpy
from floors import cited_kinds
from licensing_floor import findings, run

from twin.clock import Clock
from twin.compliance.checks.licences_board import change_deadline, show_cause_earliest
from twin.compliance.engine import ComplianceEngine
from twin.compliance.findings import Finding
from twin.compliance.ruleset import load_ruleset
from twin.licensing.records import (
    ApplicationDecided,
    ApplicationLodged,
    ConditionsChanged,
    EmploymentStarted,
    GroundKnown,
    GroundReported,
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
from twin.machines.facts import FloorFacts
from twin.records import MemorySink, Record, RecordBus

MINE = frozenset(
    {
        "MT98.R9.1",
        "MT98.R9.2",
        "MT98.R10",
        "MT98.R11",
        "MT98.R12",
        "MT98.R13.1",
        "MT98.R13.4",
        "MT98.R14.3",
        "MT98.R18.1",
        "MT98.R18.2",
        "MT98.R18.3",
        "MT98.R18.5",
    }
)


@dataclass(frozen=True)
class Case:
    inject: str  # the injection kind
    target: str | None
    subjects: tuple[str, ...]
    at: str
    message: str
    evidence: tuple[str, ...]  # the kinds of the records cited
    run: dict[str, Any] = field(default_factory=dict)  # days, overrides, edits of the run


CASES: dict[str, Case] = {
    "R9.1": Case(
        "licensing_application_late",
        "ATT-day-04",
        ("ATT-day-04",),
        "2026-03-05T10:00:00+01:00",
        "ATT-day-04 started employment as attendant on 2026-03-05 with no application for "
        "their casino employee's licence lodged with the Board before it (reg 9(1))",
        ("employment_started",),
    ),
    "R9.2": Case(
        "licensing_application_unsigned",
        None,
        ("TEC-night-01", "LA-0002"),
        "2026-03-02T10:00:00+01:00",
        "application LA-0002 (renewal) for TEC-night-01's licence is not signed by the "
        "employee (9(2)(d))",
        ("licence_application_lodged",),
    ),
    # the Board takes the licensee's word for the provisional licence; the full licence is
    # then refused (reg 13(4) holds: the Board did not find them eligible)
    "R10": Case(
        "licensing_ineligible_licensed",
        "ATT-day-05",
        ("ATT-day-05", "EL-0014"),
        "2026-03-06T10:00:00+01:00",
        "provisional licence EL-0014 was issued to ATT-day-05 on 2026-03-06 (application "
        "LA-0004), who is not eligible: aged 17, under 18 (10(b))",
        ("licence_application_lodged", "employee_licence_issued"),
    ),
    # the change of day 1 (3 March) is due by the end of 2 April: a 33-day run reaches it
    "R11": Case(
        "licensing_change_unreported",
        None,
        ("ATT-day-01", "PC-0001"),
        "2026-04-03T00:00:00+02:00",
        "the change of ATT-day-01's address on 2026-03-03 (PC-0001) was not given to the "
        "Board by 2026-04-03T00:00+02:00 (reg 11)",
        ("licence_particulars_changed",),
        run={"days": 33},
    ),
    "R12": Case(
        "licensing_info_unanswered",
        None,
        ("ATT-day-04", "BR-0001"),
        "2026-03-17T10:00:00+01:00",
        "the Board's notice BR-0001 of 2026-03-03 asked for ATT-day-04's references by "
        "2026-03-17T10:00:00+01:00; it was not supplied (reg 12)",
        ("board_info_requested",),
    ),
    "R13.1": Case(
        "licensing_varied_without_consent",
        "TEC-night-01",
        ("TEC-night-01", "LA-0002"),
        "2026-03-04T10:00:00+01:00",
        "the Board approved application LA-0002 (TEC-night-01) with its functions varied to "
        "technician without the written consent of the employee (reg 13(1)(b))",
        ("licence_application_decided",),
    ),
    "R13.4": Case(
        "licensing_refusal_unexplained",
        None,
        ("ATT-day-05", "LA-0004"),
        "2026-03-06T10:00:01+01:00",
        "the refusal of application LA-0004 (ATT-day-05) was notified to the licensee with no "
        "reasons (reg 13(5))",
        ("licence_refusal_notified",),
    ),
    # ten working days after Tuesday 10 March 2026, St Joseph's day (19 March) skipped
    "R14.3": Case(
        "licensing_condition_unnotified",
        None,
        ("ATT-day-02", "EL-0002"),
        "2026-03-26T00:00:00+01:00",
        "the Board added the condition 'no work at the cash desks' of ATT-day-02's licence "
        "EL-0002 on 2026-03-10 with no written notice to the licensee by 2026-03-26T00:00+01:00 "
        "(reg 14(3))",
        ("licence_conditions_changed",),
    ),
    "R18.1": Case(
        "licensing_ground_dispensed",
        "ATT-night-03",
        ("ATT-night-03", "LC-0001"),
        "2026-03-05T14:48:00+01:00",
        "the Board dispensed with the ground 'condition_breach' of case LC-0001 (ATT-night-03); "
        "it may dispense only with bankruptcy and conviction_criminal (reg 18(1), proviso)",
        ("licence_case_opened",),
    ),
    "R18.2": Case(
        "licensing_ground_reported_late",
        "ATT-night-03",
        ("ATT-night-03", "LC-0001"),
        "2026-03-04T00:00:00+01:00",
        "the licensee learned of the ground 'condition_breach' (LC-0001, ATT-night-03) at "
        "2026-03-03T14:48:00+01:00 and had not notified the Board by 2026-03-04T00:00+01:00 "
        "(reg 18(2), immediately)",
        ("licence_ground_known",),
    ),
    "R18.3": Case(
        "licensing_show_cause_short",
        "ATT-night-03",
        ("ATT-night-03", "LC-0001"),
        "2026-03-15T14:48:00+01:00",
        "the Board's action 'condition' on case LC-0001 (ATT-night-03) on 2026-03-15: the "
        "notice of 2026-03-05 gave until 2026-03-15T14:48:00+01:00 (10 days), less than 21 "
        "days (reg 18(3))",
        ("show_cause_issued", "licence_action"),
    ),
    # the term is due on 30 March at 15:48; with no working days for the Board (a stricter
    # ruleset), its action is due by the end of that day, which the 30-day run reaches
    "R18.5": Case(
        "licensing_term_ignored",
        "ATT-night-03",
        ("ATT-night-03", "LC-0001"),
        "2026-03-31T00:00:00+02:00",
        "the condition 'AML refresher training' imposed on ATT-night-03 (LC-0001) was not "
        "complied with by 2026-03-30T15:48:00+02:00, and the Board had neither suspended nor "
        "cancelled the licence by 2026-03-31T00:00+02:00 (reg 18(5))",
        ("licence_action",),
        run={"overrides": {"licence_notice_business_days": 0}},
    ),
}
#: (control, injection kind, target member or None): each control's injected violation
INJECTIONS: list[tuple[str, str, str | None]] = [
    ("MT98." + cid, c.inject, c.target) for cid, c in sorted(CASES.items())
]
#: the ids this module proves (tests/test_controls.py: every control proven in one place)
INJECTED_CONTROLS = frozenset(cid for cid, _, _ in INJECTIONS)


@pytest.mark.parametrize("cid", sorted(CASES))
def test_injected_violation_is_found(cid: str) -> None:
    case = CASES[cid]
    inject: dict[str, Any] = {"kind": case.inject}
    if case.target is not None:
        inject["target"] = case.target
    _, sink = run(inject=[inject], **case.run)
    (f,) = findings(sink)
    assert (f.control, f.subjects, f.at) == ("MT98." + cid, case.subjects, case.at)
    assert f.message == case.message
    assert cited_kinds(sink, f) == case.evidence


def test_every_control_has_a_case() -> None:
    assert INJECTED_CONTROLS == MINE


def test_the_clean_floor() -> None:
    """No finding of these controls, each exercised: ATT-night-03's term is missed and the
    Board suspends the licence under 18(5) on its due time; ATT-day-05 (17) is refused with
    reasons the same day."""
    casino, sink = run()
    assert {f.control for f in findings(sink)} & MINE == set()
    assert casino.compliance is not None
    verdicts = {v.control: v.status for v in casino.compliance.verdicts()}
    assert {c: verdicts[c] for c in sorted(MINE)} == {c: "checked" for c in sorted(MINE)}
    (act,) = [r for r in sink.of(LicenceAction) if r.under == "18(5)"]
    assert (act.member, act.outcome, act.t) == ("ATT-night-03", "suspend", 2436480.0)


# -- hand-made records ------------------------------------------------------------------------


def _local(when: tuple[int, ...]) -> datetime:
    y, mo, d, h, mi = when
    return datetime(y, mo, d, h, mi)


class _Engine:
    """An engine of the given controls over hand-made records, at local dates from ``start``
    (Malta)."""

    def __init__(self, *controls: str, start: tuple[int, ...] = (2026, 3, 2, 10, 0)) -> None:
        self.env = simpy.Environment()
        self.clock = Clock(_local(start), "Europe/Malta")
        self.bus = RecordBus(lambda: self.env.now)
        self.sink = MemorySink()
        self.engine = ComplianceEngine(
            load_ruleset("malta-1998"), self.clock, FloorFacts(),
            controls=controls,
        )  # fmt: skip
        self.bus.attach(self.engine)
        self.bus.attach_producer(self.engine)
        self.bus.attach(self.sink)

    def t(self, when: tuple[int, ...]) -> float:
        return self.clock.seconds(_local(when))

    def at(self, when: tuple[int, ...], cls: type[Record], **fields: Any) -> None:
        t = self.t(when)
        if t > self.env.now:
            self.env.run(until=t)
        self.bus.emit(cls, **fields)

    def findings(self, until: tuple[int, ...]) -> list[Finding]:
        self.env.run(until=self.t(until))
        self.bus.finish_producers(self.env.now)
        return list(self.engine.findings)


FORM = ("identity_document", "police_conduct_certificate", "photo")


def _application(app: str = "LA-0001", **changes: Any) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "member": "ATT-day-09", "application": app, "purpose": "new", "functions": ("attendant",),
        "casino": "Casino", "lodged_with": "board_secretary", "documents": FORM,
        "signed_by": ("licensee", "employee"), "age": 30, "convictions": (), "fit": True,
        "provisional": False, "employment_start_t": -1.0,
    }  # fmt: skip
    fields.update(changes)
    return fields


def _decision(app: str = "LA-0001", **changes: Any) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "member": "ATT-day-09", "application": app, "outcome": "approved",
        "functions": ("attendant",), "consents": (), "conditions": (), "eligible": True,
        "waived": False, "reasons": (), "provisional": False,
    }  # fmt: skip
    fields.update(changes)
    return fields


def _licence(app: str = "LA-0001", lic: str = "EL-0001", **changes: Any) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "member": "ATT-day-09", "licence": lic, "application": app, "licence_kind": "full",
        "functions": ("attendant",), "casino": "Casino", "conditions": (),
        "issued": "2026-03-04", "valid_from": "2026-03-04", "renewal": False,
    }  # fmt: skip
    fields.update(changes)
    return fields


def test_an_application_missing_parts() -> None:
    """Reg 9(2)(a)-(c): no functions, lodged elsewhere, a document of the form missing; a
    variation's application (17(1), a form of its own) is not 9(2)'s."""
    e = _Engine("MT98.R9.2")
    e.at((2026, 3, 2, 10, 0), LicensingOnFile, casino="Casino", form_documents=FORM,
         roles=("attendant",), ladders=("slots",), grades=(1,))  # fmt: skip
    e.at((2026, 3, 3, 10, 0), ApplicationLodged,
         **_application(functions=(), lodged_with="inspector",
                        documents=("identity_document",)))  # fmt: skip
    e.at(
        (2026, 3, 3, 11, 0),
        ApplicationLodged,
        **_application("LA-0002", purpose="variation", functions=(), signed_by=()),
    )
    (f,) = e.findings(until=(2026, 3, 4, 0, 0))
    assert f.subjects == ("ATT-day-09", "LA-0001")
    assert f.message == (
        "application LA-0001 (new) for ATT-day-09's licence sets out no functions (9(2)(a)); "
        "was lodged with inspector, not the Board's Secretary (9(2)(b)); lacks "
        "police_conduct_certificate, photo of the form's documents (9(2)(c))"
    )


def test_ineligible_particulars_and_the_waiver() -> None:
    """Reg 10: not fit and proper (a); convicted without the Board dispensing with it (c);
    a conviction the Board waived, and an applicant of exactly 18, are eligible."""
    e = _Engine("MT98.R10")
    apps: dict[str, dict[str, Any]] = {
        "LA-0001": {"fit": False},
        "LA-0002": {"convictions": ("theft",)},
        "LA-0003": {"convictions": ("theft",)},
        "LA-0004": {"age": 18},
    }
    for n, (app, particulars) in enumerate(sorted(apps.items()), start=1):
        e.at((2026, 3, 3, 10, n), ApplicationLodged, **_application(app, **particulars))
        e.at((2026, 3, 4, 10, n), ApplicationDecided,
             **_decision(app, waived=app == "LA-0003"))  # fmt: skip
        e.at((2026, 3, 4, 10, n), LicenceIssued, **_licence(app, f"EL-000{n}"))
    got = e.findings(until=(2026, 3, 5, 0, 0))
    assert [f.message for f in got] == [
        "full licence EL-0001 was issued to ATT-day-09 on 2026-03-04 (application LA-0001), "
        "who is not eligible: not a fit and proper person (10(a))",
        "full licence EL-0002 was issued to ATT-day-09 on 2026-03-04 (application LA-0002), "
        "who is not eligible: convicted of theft, not dispensed with by the Board (10(c))",
    ]


def test_the_thirty_days_on_the_calendar() -> None:
    """Reg 11: the end of the local day thirty days after the change's. A change on 31
    January 2028 is due by the end of 1 March (2028 is a leap year), of 31 January 2027 by
    the end of 2 March; one on 29 February 2028 by the end of 30 March (over the DST change
    of 26 March). On records: notified at 23:00 on 1 March, in time; at 09:00 on 2 March,
    late (found at midnight); in time but orally, not in writing; and a run that ends before
    the deadline finds nothing."""
    tz = Clock(datetime(2028, 1, 31, 10, 0), "Europe/Malta").zone

    def due(y: int, m: int, d: int) -> datetime:
        return change_deadline(datetime(y, m, d, 15, 0, tzinfo=tz), 30)

    assert due(2028, 1, 31) == datetime(2028, 3, 2, tzinfo=tz)
    assert due(2027, 1, 31) == datetime(2027, 3, 3, tzinfo=tz)
    assert due(2028, 2, 29) == datetime(2028, 3, 31, tzinfo=tz)
    assert due(2028, 2, 29).isoformat() == "2028-03-31T00:00:00+02:00"
    for sent, writing, found in (
        ((2028, 3, 1, 23, 0), True, None),
        ((2028, 3, 2, 9, 0), True, "was not given to the Board by 2028-03-02T00:00+01:00"),
        ((2028, 3, 1, 9, 0), False, "was given to the Board, but not in writing"),
    ):
        e = _Engine("MT98.R11", start=(2028, 1, 31, 9, 0))
        e.at((2028, 1, 31, 10, 0), ParticularsChanged, member="ATT-day-01", change="PC-0001",
             particular="address")  # fmt: skip
        e.at(sent, ParticularsNotified, member="ATT-day-01", change="PC-0001",
             particular="address", in_writing=writing, changed_t=3600.0)  # fmt: skip
        got = e.findings(until=(2028, 3, 3, 0, 0))
        want = [] if found is None else [
            f"the change of ATT-day-01's address on 2028-01-31 (PC-0001) {found} (reg 11)"
        ]  # fmt: skip
        assert [f.message for f in got] == want
        assert [f.at for f in got] == ([] if found is None else ["2028-03-02T00:00:00+01:00"])
    e = _Engine("MT98.R11", start=(2028, 1, 31, 9, 0))
    e.at((2028, 1, 31, 10, 0), ParticularsChanged, member="ATT-day-01", change="PC-0001",
         particular="address")  # fmt: skip
    assert e.findings(until=(2028, 3, 1, 23, 59)) == []


def test_decisions_and_licences_without_approval() -> None:
    """Reg 13(1): a decision that is none of the three; a full licence issued on a
    provisional approval only; a licence altered on an application never decided. An
    alteration the Board makes on a case (18(4)(c)(i)) is no application's."""
    e = _Engine("MT98.R13.1")
    e.at((2026, 3, 3, 10, 0), ApplicationDecided, **_decision("LA-0001", outcome="deferred"))
    e.at((2026, 3, 3, 11, 0), ApplicationDecided, **_decision("LA-0002", provisional=True))
    e.at((2026, 3, 3, 11, 0), LicenceIssued,
         **_licence("LA-0002", "EL-0001", licence_kind="provisional"))  # fmt: skip
    e.at((2026, 3, 3, 12, 0), LicenceIssued, **_licence("LA-0002", "EL-0002"))
    e.at((2026, 3, 3, 13, 0), LicenceAltered, member="ATT-day-09", licence="EL-0001",
         application="LA-0003", functions=("technician",))  # fmt: skip
    e.at((2026, 3, 3, 14, 0), LicenceAction, member="ATT-day-09", case="LC-0001",
         licence="EL-0001", outcome="vary", role="technician", condition="", until_t=-1.0,
         term_due_t=1e6, under="18(4)")  # fmt: skip
    e.at((2026, 3, 3, 15, 0), LicenceAltered, member="ATT-day-09", licence="EL-0001",
         application="LC-0001", functions=("technician",))  # fmt: skip
    got = e.findings(until=(2026, 3, 4, 0, 0))
    assert [f.message for f in got] == [
        "the Board's decision on application LA-0001 (ATT-day-09) is 'deferred': neither an "
        "approval, an approval as varied nor a refusal (reg 13(1))",
        "licence EL-0002 of ATT-day-09 was issued on 2026-03-03 on application LA-0002, which "
        "the Board never approved (reg 13(1))",
        "licence EL-0001 of ATT-day-09 was altered to technician on 2026-03-03 on application "
        "LA-0003, which the Board never approved (reg 13(1))",
    ]


def test_an_ineligible_applicant_approved_and_a_refusal_never_notified() -> None:
    """Reg 13(4): an applicant whose eligibility was not established, approved. Reg 13(5): a
    refusal of Wednesday 18 March 2026 is due notified by the end of the tenth working day
    after it: St Joseph's day (19 March), Freedom Day (31 March) and Good Friday (3 April)
    skipped, Monday 6 April. Never notified: found at midnight; notified orally in time: not
    in writing; in writing with reasons on 6 April: none."""
    e = _Engine("MT98.R13.4")
    e.at((2026, 3, 3, 10, 0), ApplicationDecided, **_decision("LA-0001", eligible=False))
    e.at((2026, 3, 18, 15, 0), ApplicationDecided,
         **_decision("LA-0002", outcome="refused", eligible=False,
                     reasons=("under the age of 18 (10(b))",)))  # fmt: skip
    got = e.findings(until=(2026, 4, 8, 0, 0))
    assert [(f.at, f.message) for f in got] == [
        ("2026-03-03T10:00:00+01:00",
         "the Board decided application LA-0001 (ATT-day-09) 'approved' although the licensee "
         "had not established the applicant's eligibility (reg 13(4))"),
        ("2026-04-07T00:00:00+02:00",
         "the Board's refusal of application LA-0002 (ATT-day-09) on 2026-03-18 was not "
         "notified to the licensee by 2026-04-07T00:00+02:00 (reg 13(5))"),
    ]  # fmt: skip
    for writing, found in ((False, ["not in writing"]), (True, [])):
        e = _Engine("MT98.R13.4")
        e.at((2026, 3, 18, 15, 0), ApplicationDecided,
             **_decision("LA-0002", outcome="refused", eligible=False))  # fmt: skip
        e.at((2026, 4, 6, 16, 0), RefusalNotified, member="ATT-day-09", application="LA-0002",
             reasons=("under age",), in_writing=writing, decided_t=0.0)  # fmt: skip
        got = e.findings(until=(2026, 4, 8, 0, 0))
        assert [f.message.split("licensee ")[1].split(" (")[0] for f in got] == found


def _changed(e: _Engine, when: tuple[int, ...], condition: str) -> None:
    e.at(when, ConditionsChanged, member="ATT-day-02", licence="EL-0002", action="add",
         condition=condition, conditions=(condition,))  # fmt: skip


def _served(e: _Engine, when: tuple[int, ...], party: str) -> None:
    e.at(when, NoticeServed, member="ATT-day-02", licence="EL-0002", matter="conditions",
         party=party, ref="CN-0001")  # fmt: skip


def test_a_condition_notice_counts_once() -> None:
    """Reg 14(3): both notices of the first change, none of the second: the first's do not
    count for it. A change of Thursday 5 March 2026 is due notified by the end of the tenth
    working day after it, St Joseph's day skipped: Friday 20 March; notices on the 20th are in
    time, on Monday 23rd late."""
    e = _Engine("MT98.R14.3")
    _served(e, (2026, 3, 3, 10, 0), "holder")
    _served(e, (2026, 3, 3, 10, 0), "licensee")
    _changed(e, (2026, 3, 3, 10, 0), "no cash desks")
    _changed(e, (2026, 3, 4, 10, 0), "no night shifts")
    got = e.findings(until=(2026, 3, 25, 0, 0))
    assert [(f.at, f.message) for f in got] == [
        ("2026-03-19T00:00:00+01:00",
         "the Board added the condition 'no night shifts' of ATT-day-02's licence EL-0002 on "
         "2026-03-04 with no written notice to the holder and the licensee by "
         "2026-03-19T00:00+01:00 (reg 14(3))"),
    ]  # fmt: skip
    for day, late in ((20, False), (23, True)):
        e = _Engine("MT98.R14.3")
        _changed(e, (2026, 3, 5, 10, 0), "no roulette")
        _served(e, (2026, 3, day, 10, 0), "holder")
        _served(e, (2026, 3, day, 10, 0), "licensee")
        got = e.findings(until=(2026, 3, 25, 0, 0))
        assert [f.at for f in got] == (["2026-03-21T00:00:00+01:00"] if late else [])


def test_a_ground_reported_orally_and_over_a_weekend() -> None:
    """Reg 18(2), 'immediately': the working day the Board's office next opens. Learned of on
    Friday 6 March 2026 at 18:00 (the office closed), due by the end of Monday 9 March:
    reported on Monday, in time; on Tuesday, late; on Monday but orally, not in writing."""
    for sent, writing, found in (
        ((2026, 3, 9, 16, 0), True, None),
        ((2026, 3, 10, 9, 0), True, "had not notified the Board by 2026-03-10T00:00+01:00 "
                                    "(reg 18(2), immediately)"),
        ((2026, 3, 9, 16, 0), False, "notified the Board, but not in writing (reg 18(2))"),
    ):  # fmt: skip
        e = _Engine("MT98.R18.2")
        e.at((2026, 3, 6, 18, 0), GroundKnown, member="ATT-day-03", case="LC-0001",
             ground="bankruptcy")  # fmt: skip
        e.at(sent, GroundReported, member="ATT-day-03", case="LC-0001", ground="bankruptcy",
             in_writing=writing, known_t=0.0)  # fmt: skip
        got = e.findings(until=(2026, 3, 11, 0, 0))
        want = [] if found is None else [
            "the licensee learned of the ground 'bankruptcy' (LC-0001, ATT-day-03) at "
            f"2026-03-06T18:00:00+01:00 and {found}"
        ]  # fmt: skip
        assert [f.message for f in got] == want


def _show_cause(e: _Engine, when: tuple[int, ...], due_t: float, days: int = 21) -> None:
    e.at(when, ShowCauseIssued, member="ATT-day-03", case="LC-0001", ground="bankruptcy",
         period_days=days, due_t=due_t)  # fmt: skip


def _act(e: _Engine, when: tuple[int, ...], case: str = "LC-0001") -> None:
    e.at(when, LicenceAction, member="ATT-day-03", case=case, licence="EL-0003",
         outcome="suspend", role="", condition="", until_t=-1.0, term_due_t=-1.0,
         under="18(4)")  # fmt: skip


def test_the_show_cause_period_on_the_calendar() -> None:
    """Reg 18(3): 21 calendar days from the notice. One of 20 February 2026 at 10:00 runs to
    13 March at 10:00 (February's 28 days); one of 10 October 2026 at 12:00 (summer time) to
    31 October at 12:00 (winter time, an hour more than 21 x 24 h). On records: a period
    of 21 x 24 h over that change is short by an hour; the calendar's is in time; an action
    before the period ends, or with no notice at all, is found."""
    tz = Clock(datetime(2026, 2, 1), "Europe/Malta").zone
    assert show_cause_earliest(datetime(2026, 2, 20, 10, 0, tzinfo=tz), 21) == datetime(
        2026, 3, 13, 10, 0, tzinfo=tz
    )
    autumn = show_cause_earliest(datetime(2026, 10, 10, 12, 0, tzinfo=tz), 21)
    assert autumn.isoformat() == "2026-10-31T12:00:00+01:00"
    e = _Engine("MT98.R18.3", start=(2026, 10, 1, 0, 0))
    issued = e.t((2026, 10, 10, 12, 0))
    _show_cause(e, (2026, 10, 10, 12, 0), issued + 21 * 86400.0)
    _act(e, (2026, 10, 31, 11, 0))
    (f,) = e.findings(until=(2026, 11, 1, 0, 0))
    assert f.message == (
        "the Board's action 'suspend' on case LC-0001 (ATT-day-03) on 2026-10-31: the notice "
        "of 2026-10-10 gave until 2026-10-31T11:00:00+01:00 (21 days), less than 21 days "
        "(reg 18(3))"
    )
    e = _Engine("MT98.R18.3", start=(2026, 10, 1, 0, 0))
    _show_cause(e, (2026, 10, 10, 12, 0), e.t((2026, 10, 31, 12, 0)))
    _act(e, (2026, 10, 31, 12, 0))
    assert e.findings(until=(2026, 11, 1, 0, 0)) == []
    e = _Engine("MT98.R18.3", start=(2026, 2, 1, 0, 0))
    _show_cause(e, (2026, 2, 20, 10, 0), e.t((2026, 3, 13, 10, 0)))
    _act(e, (2026, 3, 12, 10, 0))
    _act(e, (2026, 3, 12, 11, 0), case="LC-0002")
    got = e.findings(until=(2026, 3, 14, 0, 0))
    assert [f.message for f in got] == [
        "the Board's action 'suspend' on case LC-0001 (ATT-day-03) on 2026-03-12: it came "
        "before the period ended (2026-03-13T10:00:00+01:00) (reg 18(3))",
        "the Board's action 'suspend' on case LC-0002 (ATT-day-03) on 2026-03-12 came without "
        "a notice to show cause (reg 18(3))",
    ]


def test_an_application_at_the_start_of_employment_is_in_time() -> None:
    """Reg 9(1): lodged at the very instant the employment starts, before or after its record,
    the application is in time; one lodged a minute later is not."""
    for lodged, found in (((2026, 3, 3, 10, 0), False), ((2026, 3, 3, 10, 1), True)):
        for first in (False, True):
            e = _Engine("MT98.R9.1")
            if first:
                e.at(lodged, ApplicationLodged, **_application())
            e.at((2026, 3, 3, 10, 0), EmploymentStarted, member="ATT-day-09", role="attendant",
                 shift="day")  # fmt: skip
            if not first:
                e.at(lodged, ApplicationLodged, **_application())
            got = e.findings(until=(2026, 3, 4, 0, 0))
            assert len(got) == (1 if found and not first else 0), (lodged, first)


def _term(e: _Engine, when: tuple[int, ...], due: tuple[int, ...]) -> None:
    e.at(when, LicenceAction, member="ATT-night-03", case="LC-0001", licence="EL-0006",
         outcome="condition", role="", condition="AML refresher training", until_t=-1.0,
         term_due_t=e.t(due), under="18(4)")  # fmt: skip


def test_a_term_complied_with_in_time_and_one_complied_with_late() -> None:
    """Reg 18(5): a term (due Friday 6 March 2026 at 10:00) complied with on the 5th needs no
    action; complied with on the 9th, late, it needs the Board's suspension or cancellation
    by the end of the tenth working day after the 6th (Monday 23 March, St Joseph's day
    skipped); a cancellation on the 23rd is in time."""
    for complied, cancelled, found in (
        ((2026, 3, 5, 10, 0), None, False),
        ((2026, 3, 9, 10, 0), None, True),
        ((2026, 3, 9, 10, 0), (2026, 3, 23, 10, 0), False),
    ):
        e = _Engine("MT98.R18.5")
        _term(e, (2026, 3, 2, 10, 0), (2026, 3, 6, 10, 0))
        e.at(complied, TermComplied, member="ATT-night-03", case="LC-0001")
        if cancelled is not None:
            e.at(cancelled, LicenceAction, member="ATT-night-03", case="LC-0001",
                 licence="EL-0006", outcome="cancel", role="", condition="", until_t=-1.0,
                 term_due_t=-1.0, under="18(5)")  # fmt: skip
        got = e.findings(until=(2026, 3, 25, 0, 0))
        assert [f.at for f in got] == (["2026-03-24T00:00:00+01:00"] if found else [])
