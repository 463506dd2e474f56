"""Work under an employee's licence (Malta regs 8, 14(2), 15(2), 16(1), 17(1), 19): every
control's injected violation on the licensing test floor, the clean floor silent and
exercised, a casino without licensing one finding, the dispatcher obeying licences, and the
licences' months and years on the calendar (month ends, leap days)."""

from __future__ import annotations

import subprocess
import sys
from datetime import date, datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from fed import Fed
from floors import Case, cited_kinds
from licensing_floor import ROOT, TINY, findings, run, scenario_data

from twin.casino import Casino
from twin.compliance.checks.licences_work import (
    FullLapse,
    FunctionVariation,
    HigherGrade,
    ProvisionalLapse,
    lower_grade_excess,
)
from twin.departments import parse_scenario
from twin.door import Door
from twin.door.records import EntryRefused
from twin.licensing.records import (
    EmploymentEnded,
    GradeNotice,
    LicenceAltered,
    LicenceCeased,
    LicenceIssued,
    LicenceSuspended,
    LicensingOnFile,
)
from twin.metrics import Metrics
from twin.records import MemorySink
from twin.staff.records import DutyMissed, ShiftEnded, ShiftStarted

MALTA = ZoneInfo("Europe/Malta")
INJECTED_CONTROLS = frozenset(
    {"MT98.R8", "MT98.R14.2", "MT98.R15.2", "MT98.R16.1", "MT98.R17.1", "MT98.R17.1.p1",
     "MT98.R17.1.p2", "MT98.R19"}
)  # fmt: skip
MINE = INJECTED_CONTROLS


CASES: dict[str, Case] = {
    "R8": Case(
        {"kind": "licensing_unlicensed_work", "target": "TEC-day-03"},
        ("TEC-day-03",),
        "TEC-day-03 holds no casino employee's licence, yet TEC-day-03 came on duty as "
        "technician on 2026-03-07T10:00:00+01:00",
        ("shift_started",),
    ),
    "R14.2": Case(
        {"kind": "licensing_unlicensed_function", "target": "ATT-day-01"},
        ("ATT-day-01",),
        "ATT-day-01 works as cashier, a function licence EL-0001 does not name (it names "
        "attendant), yet ATT-day-01 came on duty as cashier on 2026-03-12T10:00:00+01:00",
        ("employee_licence_on_file", "shift_started"),
    ),
    "R15.2": Case(
        {"kind": "licensing_provisional_overrun"},
        ("ATT-night-01",),
        "ATT-night-01's provisional licence EL-0004, issued 2025-12-04, ceased on 2026-03-04, "
        "yet ATT-night-01 was still on duty as attendant on 2026-03-04T00:00:00+01:00",
        ("employee_licence_on_file", "shift_started", "employee_licence_ceased"),
    ),
    "R16.1": Case(
        {"kind": "licensing_full_overrun"},
        ("TEC-night-01",),
        "TEC-night-01's licence EL-0010, in force from 2021-03-03, expired on 2026-03-03 "
        "unrenewed, yet TEC-night-01 was still on duty as technician on "
        "2026-03-03T00:00:00+01:00",
        ("employee_licence_on_file", "shift_started", "employee_licence_ceased"),
    ),
    "R17.1": Case(
        {"kind": "licensing_variation_unapproved"},
        ("ATT-night-02",),
        "ATT-night-02 works as technician, a function applied for on 2026-03-04 (variation "
        "LA-0005) that the Board has not approved; licence EL-0005 names attendant, yet "
        "ATT-night-02 came on duty as technician on 2026-03-04T18:00:00+01:00",
        ("employee_licence_on_file", "licence_application_lodged", "shift_started"),
    ),
    "R17.1.p1": Case(
        {"kind": "licensing_cover_unnotified", "target": "TEC-day-01"},
        ("TEC-day-01",),
        "TEC-day-01, licensed as technician, works in a lower grade as attendant with no "
        "notice to a Board inspector, yet TEC-day-01 came on duty as attendant on "
        "2026-03-14T10:00:00+01:00",
        ("employee_licence_on_file", "shift_started"),
    ),
    "R17.1.p2": Case(
        {"kind": "licensing_cover_overrun"},
        ("ATT-day-01",),
        "ATT-day-01 worked one grade higher on 6 days of 2026-03, more than the 5 days a "
        "calendar month",
        ("employee_licence_on_file", "shift_started"),
    ),
    "R19": Case(
        {"kind": "licensing_suspended_works"},
        ("ATT-day-03",),
        "ATT-day-03's licence EL-0003 is suspended, yet ATT-day-03 came on duty as attendant "
        "on 2026-03-27T06:00:00+01:00",
        ("employee_licence_on_file", "employee_licence_suspended", "licence_notice_received",
         "shift_started"),
    ),
}  # fmt: skip


def _mine(sink: Any) -> list[Any]:
    return [f for f in findings(sink) if f.control in MINE]


@pytest.mark.parametrize("cid", sorted(CASES))
def test_injected_violation_is_found(cid: str) -> None:
    case = CASES[cid]
    _, sink = run(inject=[case.inject])
    got = _mine(sink)
    assert [f.control for f in got] == ["MT98." + cid]
    (f,) = got
    assert f.subjects == case.subjects
    assert f.message == case.message
    assert cited_kinds(sink, f) == case.evidence


def test_every_control_has_a_case() -> None:
    assert {"MT98." + c for c in CASES} == MINE


def test_the_clean_floor_has_no_findings() -> None:
    """The floor's month (hires, lapses, a variation, cover both ways, two suspensions, a
    leave) is clean, every control of the module is exercised, and the dispatcher obeyed:
    the members barred missed their duties, with the reasons."""
    casino, sink = run()
    assert findings(sink) == []
    assert casino.compliance is not None
    verdicts = {v.control: v for v in casino.compliance.verdicts()}
    for cid in MINE:
        assert verdicts[cid].status == "checked", verdicts[cid]
        assert verdicts[cid].observations > 0, cid
    missed: dict[str, set[str]] = {}
    for r in sink.records:
        if isinstance(r, DutyMissed):
            missed.setdefault(r.member, set()).add(r.reason)
    assert missed == {
        "ATT-day-03": {"licence suspended"},
        "ATT-day-04": {"employment not begun"},
        "ATT-day-05": {"employment not begun", "no licence in force"},
        "ATT-night-01": {"no licence in force"},
        "ATT-night-03": {"licence suspended"},
        "TEC-day-03": {"employment not begun", "no licence in force"},
        "TEC-night-01": {"no licence in force"},
        "TEC-night-02": {"employment ended"},
    }


def test_a_licence_naming_another_casino_is_found() -> None:
    _, sink = run(inject=[{"kind": "licensing_licence_wrong_casino"}])
    assert [(f.control, f.message) for f in _mine(sink)] == [
        ("MT98.R14.2", "licence EL-0012 of TEC-night-01 names the casino 'Another Casino', not "
                       "'Casino Tiny'"),
    ]  # fmt: skip


def test_higher_grade_without_notice_is_found() -> None:
    _, sink = run(inject=[{"kind": "licensing_cover_unnotified", "target": "ATT-day-01"}])
    assert [(f.control, f.message) for f in _mine(sink)] == [
        ("MT98.R17.1.p2", "ATT-day-01, licensed as attendant, works one grade higher as "
                          "technician with no notice to a Board inspector, yet ATT-day-01 came "
                          "on duty as technician on 2026-03-12T10:00:00+01:00"),
    ]  # fmt: skip


def test_a_casino_without_licensing_is_one_finding() -> None:
    """The tiny floor (no [licensing]): its three employees on duty are one finding of reg 8,
    "no such function in this casino"."""
    code = (
        "from pathlib import Path\n"
        "from twin.casino import Casino\n"
        "from twin.departments import load_scenario\n"
        "sc = load_scenario(Path('scenarios/tiny.toml'))\n"
        "c = Casino(sc); c.run()\n"
        "for f in c.compliance.findings:\n"
        "    if f.control == 'MT98.R8': print(f.subjects, f.message)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout  # fmt: skip
    assert out == (
        "('ATT-all-day-01', 'TEC-all-day-01') no such function in this casino: no casino "
        "employee's licence on record (no [licensing]); the 2 employees of the licensee on duty "
        "(ATT-all-day-01, TEC-all-day-01) work in gaming unlicensed, as does any who comes on "
        "duty later (this finding stands for them all)\n"
    )


# -- the calendar ----------------------------------------------------------------------------


def _on_file(fed: Fed) -> None:
    fed.feed(LicensingOnFile, 0.0, casino="C", form_documents=(), roles=("a", "b", "c"),
             ladders=("x", "x", "x"), grades=(1, 2, 3))  # fmt: skip


def _licence(fed: Fed, kind: str, valid_from: str, *, renewal: bool = False, lid: str = "EL-1",
             at: float = 0.0) -> None:  # fmt: skip
    fed.feed(LicenceIssued, at, member="M", licence=lid, application="LA-1", licence_kind=kind,
             functions=("a",), casino="C", conditions=(), issued=valid_from,
             valid_from=valid_from, renewal=renewal)  # fmt: skip


def _shift(fed: Fed, when: datetime, role: str = "a") -> None:
    fed.feed(ShiftStarted, fed.t(when), role=role, shift="s", member="M", name="M",
             employer="licensee")  # fmt: skip
    fed.ctx.run_timers(fed.ctx.now + 1.0)  # what fell due in the second after


def _off(fed: Fed, when: datetime) -> None:
    fed.feed(ShiftEnded, fed.t(when), role="a", shift="s", member="M", overtime_s=0.0)


def test_a_provisional_licence_runs_three_calendar_months() -> None:
    """Issued on 30 November 2027, it ceases at the start of 29 February 2028 (three calendar
    months, the leap day the last of February)."""
    fed = Fed(ProvisionalLapse)
    _on_file(fed)
    _licence(fed, "provisional", "2027-11-30")
    _shift(fed, datetime(2028, 2, 28, 23, 0, tzinfo=MALTA))
    _off(fed, datetime(2028, 2, 28, 23, 30, tzinfo=MALTA))
    assert fed.found == []
    _shift(fed, datetime(2028, 2, 29, 0, 0, tzinfo=MALTA))
    assert [m for _, m, _ in fed.found] == [
        "M's provisional licence EL-1, issued 2027-11-30, ceased on 2028-02-29, yet M came on "
        "duty as a on 2028-02-29T00:00:00+01:00"
    ]


def test_a_full_licence_runs_five_years_and_a_renewal_five_more() -> None:
    """From 29 February 2024, five years end at the start of 28 February 2029; the renewal
    runs from then for five more (to 28 February 2034)."""
    fed = Fed(FullLapse)
    _on_file(fed)
    _licence(fed, "full", "2024-02-29")
    _shift(fed, datetime(2029, 2, 27, 23, 0, tzinfo=MALTA))
    _off(fed, datetime(2029, 2, 27, 23, 30, tzinfo=MALTA))
    assert fed.found == []
    _shift(fed, datetime(2029, 2, 28, 0, 0, tzinfo=MALTA))
    assert [m for _, m, _ in fed.found] == [
        "M's licence EL-1, in force from 2024-02-29, expired on 2029-02-28 unrenewed, yet M came "
        "on duty as a on 2029-02-28T00:00:00+01:00"
    ]
    fed.found.clear()
    _licence(fed, "full", "2029-02-28", renewal=True, lid="EL-2", at=fed.ctx.now)
    _shift(fed, datetime(2034, 2, 27, 23, 0, tzinfo=MALTA))
    _off(fed, datetime(2034, 2, 27, 23, 30, tzinfo=MALTA))
    assert fed.found == []
    _shift(fed, datetime(2034, 2, 28, 0, 0, tzinfo=MALTA))
    assert [m for _, m, _ in fed.found] == [
        "M's licence EL-2, in force from 2029-02-28, expired on 2034-02-28 unrenewed, yet M came "
        "on duty as a on 2034-02-28T00:00:00+01:00"
    ]


def test_work_after_the_employment_ended_is_found() -> None:
    fed = Fed(ProvisionalLapse)
    _on_file(fed)
    _licence(fed, "provisional", "2026-03-02")
    fed.feed(EmploymentEnded, 3600.0, member="M", reason="resignation")
    _shift(fed, datetime(2026, 3, 3, 6, 0, tzinfo=MALTA))
    assert [m for _, m, _ in fed.found] == [
        "M's employment ended (resignation), and with it licence EL-1, yet M came on duty as a "
        "on 2026-03-03T06:00:00+01:00"
    ]


def test_two_grades_up_is_found() -> None:
    fed = Fed(HigherGrade)
    _on_file(fed)
    _licence(fed, "full", "2026-01-01")
    fed.feed(GradeNotice, 100.0, member="M", inspector="INS", role="c", grade=3,
             licensed_role="a", licensed_grade=1, days=3)  # fmt: skip
    _shift(fed, datetime(2026, 3, 2, 18, 0, tzinfo=MALTA), role="c")
    assert [m for _, m, _ in fed.found] == [
        "M, licensed as a (grade 1), works as c (grade 3), 2 grades higher: the most is 1, yet M "
        "came on duty as c on 2026-03-02T18:00:00+01:00"
    ]


def test_an_alteration_without_notice_is_found() -> None:
    fed = Fed(FunctionVariation)
    _on_file(fed)
    _licence(fed, "full", "2026-01-01")
    fed.feed(LicenceAltered, 100.0, member="M", licence="EL-1", application="LA-2",
             functions=("b",))  # fmt: skip
    assert [m for _, m, _ in fed.found] == [
        "licence EL-1 of M was altered to b with no written notice of the variation to the "
        "holder or the licensee"
    ]


def _days(first: date, n: int) -> list[date]:
    return [date.fromordinal(first.toordinal() + i) for i in range(n)]


def test_lower_grade_days_are_counted_in_a_rolling_window() -> None:
    """Three calendar months from the window's first day: 1 January to 1 April 2027 is 91
    days when the window ending 2 April 2027 begins on 3 April 2026 (to 3 July 2026)."""
    days = _days(date(2027, 1, 1), 91)  # 1 Jan .. 1 Apr 2027
    assert lower_grade_excess(days, 3, 12, cumulative=True, rolling=True) is None
    assert lower_grade_excess([*days, date(2027, 4, 2)], 3, 12, cumulative=True,
                              rolling=True) == (date(2027, 4, 2), 92, 91)  # fmt: skip
    # a spell broken for a day: over when cumulative, never as one continuous spell
    broken = _days(date(2027, 1, 1), 50) + _days(date(2027, 2, 21), 50)
    assert lower_grade_excess(broken, 3, 12, cumulative=False, rolling=True) is None
    assert lower_grade_excess(broken, 3, 12, cumulative=True, rolling=True) is not None
    # fixed blocks of twelve months from 1 January 2026: six months across a block boundary
    # (90 days of the 2027 block's limit of 90, 91 of 2028's 91) pass; rolling, they do not
    late = _days(date(2027, 10, 3), 90) + _days(date(2028, 1, 1), 91)  # 90 + 91 days
    assert lower_grade_excess(_days(date(2026, 1, 1), 1) + late, 3, 12, cumulative=True,
                              rolling=False) is None  # fmt: skip
    assert lower_grade_excess(late, 3, 12, cumulative=True, rolling=True) is not None


def test_a_suspended_employee_at_the_door_is_refused_as_an_employee() -> None:
    """Employees as the door knows them: ATT-day-03, suspended from 27 March, is still the
    licensee's employee and is refused as one when trying to play; the hire TEC-day-03 joins
    the register the day employment starts."""
    data = scenario_data()
    data["entrance"] = {"casino": "home", "staff_play_attempts_per_day": 40.0}
    sc = parse_scenario(data, source=str(TINY), base_dir=TINY.parent)
    sink = MemorySink()
    casino = Casino(sc, sinks=[sink])
    casino.run()
    (suspended,) = [r for r in sink.records if isinstance(r, LicenceSuspended)
                    and r.member == "ATT-day-03"]  # fmt: skip
    refused = [r for r in sink.records if isinstance(r, EntryRefused)]
    at_door = [r for r in refused if r.person == "ATT-day-03" and r.t >= suspended.t]
    assert at_door and {r.reason for r in at_door} == {"employee"}
    door = casino.find(Door)
    assert door is not None and door.register["TEC-day-03"] == "employee"
    assert {r.reason for r in refused} <= {"employee", "inspector"}
    assert _mine(sink) == []


def test_the_kpis_say_what_the_staff_went_through() -> None:
    """The floor's month in numbers: licences by state at the end, applications and the
    Board's decisions with their waits, the duty missed for want of a licence (and the hours
    short: twelve-hour shifts), the cover and the variation."""
    sc = parse_scenario(scenario_data(), source=str(TINY), base_dir=TINY.parent)
    metrics = Metrics()
    casino = Casino(sc, sinks=[metrics])
    casino.run()
    k = metrics.kpis(casino.env.now).sections["licensing"]
    # at the end: ATT-night-03 suspended (the 18(5) suspension outlasts the month); ceased: the
    # two provisional licences (expired, replaced by the full one), TEC-night-01's first
    # licence (expired before its renewal) and TEC-night-02's (employment ended)
    assert k == {
        "licences_by_state": {"full": 11, "provisional": 0, "suspended": 1, "ceased": 4},
        "applications": {"new": 3, "renewal": 1, "variation": 1},
        "board_decisions": {"approved": 5, "approved_varied": 0, "refused": 1},
        "board_wait_days": {"n": 5, "mean": 4.4, "max": 10.0},
        "renewals": 1,
        "duty_missed": 41,
        "duty_missed_by_role": {"attendant": 35, "technician": 6},
        "duty_missed_by_reason": {
            "employment ended": 10,
            "employment not begun": 15,
            "licence suspended": 5,
            "no licence in force": 36,
        },
        "staff_hours_short": 492.0,
        "jobs_without_licensed_staff": 0,
        "covers": 2,
        "jobs_done_by_cover": 5,  # the two covers' technician and attendant jobs
        "variations": 1,
    }


def test_a_longer_provisional_licence_is_obeyed_and_read_by_the_controls() -> None:
    """The proposal's rule (provisional_licence_months = 6): ATT-night-01's provisional
    licence, issued on 4 December 2025, no longer ceases on 4 March; it works on until the
    full licence replaces it on 8 March, and the floor stays clean."""
    _, sink = run(overrides={"provisional_licence_months": 6})
    assert findings(sink) == []
    missed = {r.member for r in sink.records
              if isinstance(r, DutyMissed) and r.reason == "no licence in force"}  # fmt: skip
    assert "ATT-night-01" not in missed
    ceased = [(r.licence, r.reason, r.t) for r in sink.records
              if isinstance(r, LicenceCeased) and r.member == "ATT-night-01"]  # fmt: skip
    assert ceased == [("EL-0004", "full_issued", 518400.0)]
