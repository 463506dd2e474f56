"""The closed-circuit camera and audio system (Malta reg 27): the control's injected
violations on the small floor with a ``[surveillance]`` section, the clean floor silent and
exercised, the timeline of recordings, cases and requests to the second, and the seven days as
calendar days (a month's end, a leap day, a year's end, a DST change)."""

from __future__ import annotations

import tomllib
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from floors import Case, cited_kinds, findings_besides, run_data
from lifecycle_floor import ABSENT

from twin.casino import Casino
from twin.compliance.checks.surveillance import may_recycle_from
from twin.compliance.findings import Finding
from twin.departments import parse_scenario
from twin.errors import InputError
from twin.metrics import Metrics
from twin.records import MemorySink
from twin.surveillance.records import (
    CaseClosed,
    CaseOpened,
    RecordingHeld,
    RecordingMade,
    RecordingProduced,
    RecordingRecycled,
    RecordingRequested,
    RecordingRequestRefused,
)

ROOT = Path(__file__).resolve().parent.parent
SMALL = ROOT / "scenarios" / "small.toml"
TINY = ROOT / "scenarios" / "tiny.toml"
MALTA = ZoneInfo("Europe/Malta")

MINE = frozenset({"MT98.R27"})
#: the ids this module proves (tests/test_controls.py checks every control is proven once)
INJECTED_CONTROLS = MINE

#: the small floor's section: an incident on bank A's camera at 15:00 on Monday, its case
#: opened Tuesday 16:00; the police ask on Wednesday 12:00 for bank B's Monday recording
SECTION: dict[str, Any] = {
    "cases": [{"at_hours": 30, "incident_hours": 5, "cameras": ["bank-A"]}],
    "requests": [{"at_hours": 50, "camera": "bank-B", "date": date(2026, 3, 2)}],
}
KINDS = (
    CaseOpened, CaseClosed, RecordingHeld, RecordingMade, RecordingProduced, RecordingRecycled,
    RecordingRequested, RecordingRequestRefused,
)  # fmt: skip


def _data(path: Path, hours: float, section: dict[str, Any], **scenario: Any) -> dict[str, Any]:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    data["scenario"]["duration_hours"] = hours
    data["scenario"].update(scenario)
    data["surveillance"] = section
    return data


def run(
    inject: list[dict[str, Any]] | None = None,
    *,
    path: Path = SMALL,
    hours: float = 72.0,
    section: dict[str, Any] | None = None,
    **scenario: Any,
) -> tuple[Casino, MemorySink]:
    data = _data(path, hours, SECTION if section is None else section, **scenario)
    data["inject"] = list(inject or [])
    return run_data(data, path)


def findings(sink: MemorySink) -> list[Finding]:
    """The run's findings, less those of the functions the floor lacks (no door, cage, AML)."""
    return findings_besides(sink, ABSENT)


def timeline(sink: MemorySink) -> list[tuple[str, str, str]]:
    """The department's records: (hours from the start, kind, what) in the order made."""
    out = []
    for r in sink.records:
        if not isinstance(r, KINDS):
            continue
        what = getattr(r, "recording", "") or getattr(r, "case", "") or getattr(r, "request", "")
        if isinstance(r, CaseOpened):
            what = f"{r.case} {','.join(r.recordings)} until {r.until}"
        elif isinstance(r, RecordingProduced):
            what = f"{r.request} {','.join(r.recordings)}"
        elif isinstance(r, RecordingRequestRefused):
            what = f"{r.request} {r.reason}"
        elif isinstance(r, RecordingHeld):
            what = f"{r.recording} {r.case}"
        out.append((f"{r.t / 3600:g}h", r.kind, what))
    return out


CASES: dict[str, Case] = {
    # bank B's Monday recording, made Tuesday 00:00, recycled on Thursday's pass
    "R27.a": Case(
        {"kind": "surveillance_recycled_early", "target": "bank-B"},
        ("bank-B/20260302-1000",),
        "recording bank-B/20260302-1000 of camera bank-B, made on 2026-03-03T00:00:00+01:00, "
        "was recycled on 2026-03-05T06:00:00+01:00, before its 7 days (it could go from "
        "2026-03-10T00:00:00+01:00)",
        ("recording_made", "recording_recycled"),
    ),
    "R27.b": Case(
        {"kind": "surveillance_evidence_recycled"},
        ("bank-A/20260302-1000", "SC-0001"),
        "recording bank-A/20260302-1000 of camera bank-A, held as evidence in case SC-0001, "
        "was recycled on 2026-03-04T06:00:00+01:00 while the case was open",
        ("recording_made", "recording_held", "recording_recycled"),
    ),
    "R27.c": Case(
        {"kind": "surveillance_request_refused"},
        ("REQ01", "bank-B/20260302-1000"),
        "request REQ01 by the police for camera bank-B's recordings of 2026-03-02 was refused "
        "(recycled after its period), but bank-B/20260302-1000 was inside its 7 days or held "
        "as evidence",
        ("recording_made", "recording_requested", "recording_request_refused"),
    ),
}


@pytest.mark.parametrize("cid", sorted(CASES))
def test_injected_violation_is_found(cid: str) -> None:
    case = CASES[cid]
    _, sink = run([case.inject])
    got = findings(sink)
    assert [f.control for f in got] == ["MT98.R27"], [(f.control, f.message) for f in got]
    (f,) = got
    assert f.subjects == case.subjects
    assert f.message == case.message
    assert cited_kinds(sink, f) == case.evidence


def test_every_part_has_a_case() -> None:
    from twin.compliance.registry import registry

    spec = registry()["MT98.R27"]
    cases = {t.rpartition("[")[2].rstrip("]") for _, t in spec.checks if "[" in t}
    assert cases == set(CASES)


def test_the_clean_floor_is_silent_exercised_and_keeps_its_timeline() -> None:
    """Three days of the small floor: a recording per camera each midnight, the incident's
    case holding bank A's Monday recording, the police given bank B's; nothing is past its
    seven days yet, so nothing is recycled; the KPIs count it."""
    casino, sink = run()
    assert findings(sink) == []
    assert casino.compliance is not None
    verdicts = {v.control: v.status for v in casino.compliance.verdicts()}
    assert verdicts["MT98.R27"] == "checked"
    made = [f"{c}/{d}" for d in ("20260302-1000", "20260303-0000", "20260304-0000")
            for c in ("bank-A", "bank-B", "bank-P", "bank-T")]  # fmt: skip
    assert timeline(sink) == [
        *[("14h", "recording_made", m) for m in made[:4]],
        ("30h", "case_opened", "SC-0001 bank-A/20260302-1000 until 2026-03-17"),
        ("30h", "recording_held", "bank-A/20260302-1000 SC-0001"),
        *[("38h", "recording_made", m) for m in made[4:8]],
        ("50h", "recording_requested", "REQ01"),
        ("50h", "recording_produced", "REQ01 bank-B/20260302-1000"),
        *[("62h", "recording_made", m) for m in made[8:]],
    ]
    metrics = Metrics.from_records(sink.records)
    assert metrics.kpis(casino.end).sections["surveillance"] == {
        "cameras": 4,
        "recordings_made": 12,
        "recordings_recycled": 0,
        "recordings_held_as_evidence": 1,
        "cases_opened": 1,
        "cases_closed": 0,
        "cases_open": 1,
        "requests_answered": 1,
        "requests_refused": 0,
    }


def test_an_aml_report_holds_the_recordings_of_its_transactions() -> None:
    """On the AML floor (a day), each internal report holds the recordings of the banks whose
    machines took the reported money, at the moments they took it; each barred person's
    attempt at the door holds the entrance's; the run is clean."""
    aml = ROOT / "scenarios" / "aml.toml"
    _, sink = run(path=aml, hours=24.0, section={})
    assert [r for r in sink.records if isinstance(r, Finding)] == []
    opened = sink.of(CaseOpened)
    assert [(r.cause, r.evidence_kind, r.cameras, r.recordings) for r in opened] == [
        ("aml", "internal_report", ("bank-P",), ("bank-P/20260302-1000",)),
        ("aml", "internal_report", ("bank-P",), ("bank-P/20260302-1000",)),
        ("door", "entry_refused", ("entrance",), ("entrance/20260302-1000",)),
        ("aml", "internal_report", ("bank-P",), ("bank-P/20260302-1000",)),
        ("door", "entry_refused", ("entrance",), ("entrance/20260302-1000",)),
        ("door", "entry_refused", ("entrance",), ("entrance/20260302-1000",)),
        ("aml", "internal_report", ("bank-D",), ("bank-D/20260303-0000",)),
    ]
    by_seq = {r.seq: r for r in sink.records}
    for case in opened:
        (evidence,) = (by_seq[s] for s in case.evidence)
        txns = [by_seq[s] for s in getattr(evidence, "transactions", ())]
        if txns:
            assert case.cameras == tuple(dict.fromkeys(
                f"bank-{t.entity('machine').rpartition('-')[0]}" for t in txns))  # fmt: skip
            assert case.incident_t == min(t.t for t in txns)


# -- the seven days on the calendar ----------------------------------------------------------


@pytest.mark.parametrize(
    ("made", "first"),
    [
        (datetime(2028, 2, 28, 0, 0), datetime(2028, 3, 6, 0, 0)),  # a leap year's February
        (datetime(2027, 2, 28, 0, 0), datetime(2027, 3, 7, 0, 0)),  # a common year's
        (datetime(2026, 12, 27, 12, 0), datetime(2027, 1, 3, 12, 0)),  # the year's end
        (datetime(2026, 3, 25, 0, 0), datetime(2026, 4, 1, 0, 0)),  # summer time on 29 March
    ],
)
def test_seven_days_are_calendar_days(made: datetime, first: datetime) -> None:
    got = may_recycle_from(made.replace(tzinfo=MALTA), 7)
    assert got == first.replace(tzinfo=MALTA)
    if made.month == 3 and made.year == 2026:  # across the DST change: 167 hours, not 168
        elapsed = got.astimezone(UTC) - made.replace(tzinfo=MALTA).astimezone(UTC)
        assert elapsed.total_seconds() == 167 * 3600


#: the tiny floor from Saturday 26 February 2028 10:00, for ten days: a leap day, the month's
#: end, two cases (one closing in the run, one after it) and three requests after the first
#: recycling
LEAP: dict[str, Any] = {
    "cases": [
        {"at_hours": 6, "incident_hours": 5, "days": 3},  # 26 Feb 15:00, until 29 Feb 16:00
        {"at_hours": 30, "days": 9},  # 27 Feb 16:00, until 7 Mar 16:00: after the run
    ],
    "requests": [
        {"at_hours": 222, "camera": "bank-A", "date": date(2028, 2, 26)},
        {"at_hours": 222, "camera": "bank-A", "date": date(2028, 2, 27), "by": "board"},
        {"at_hours": 222, "camera": "bank-A", "date": date(2028, 3, 5)},
    ],
}


def test_recycling_across_a_leap_day_and_a_month_end() -> None:
    """Made at midnight on 27 and 29 February 2028, recordings are recycled at the 06:00
    passes of 5 and 7 March (seven calendar days, the leap day counted); the first case's
    hold ends on 29 February, before its recording's days are over; the second still holds the
    recording made on 28 February when 6 March comes, and the Board is given it; the police's
    request for 26 February is refused, lawfully: it was recycled after its period."""
    casino, sink = run(path=TINY, hours=240.0, section=LEAP, start=datetime(2028, 2, 26, 10))
    assert findings(sink) == []
    assert [x for x in timeline(sink) if x[1] != "recording_made"] == [
        ("6h", "case_opened", "SC-0001 bank-A/20280226-1000 until 2028-02-29"),
        ("14h", "recording_held", "bank-A/20280226-1000 SC-0001"),
        ("30h", "case_opened", "SC-0002 bank-A/20280227-0000 until 2028-03-07"),
        ("38h", "recording_held", "bank-A/20280227-0000 SC-0002"),
        ("78h", "case_closed", "SC-0001"),
        ("188h", "recording_recycled", "bank-A/20280226-1000"),  # 5 March 06:00
        ("222h", "recording_requested", "REQ01"),
        ("222h", "recording_request_refused", "REQ01 recycled after its period"),
        ("222h", "recording_requested", "REQ02"),
        ("222h", "recording_produced", "REQ02 bank-A/20280227-0000"),
        ("222h", "recording_requested", "REQ03"),
        ("222h", "recording_produced", "REQ03 bank-A/20280305-0000"),
        ("236h", "recording_recycled", "bank-A/20280228-0000"),  # 7 March 06:00
    ]
    made = [casino.world.clock.iso(r.t) for r in sink.of(RecordingMade)]
    assert made == [f"2028-{d}T00:00:00+01:00" for d in ("02-27", "02-28", "02-29", "03-01",
                    "03-02", "03-03", "03-04", "03-05", "03-06", "03-07")]  # fmt: skip
    assert casino.compliance is not None
    verdicts = {v.control: v.status for v in casino.compliance.verdicts()}
    assert verdicts["MT98.R27"] == "checked"


def test_a_request_names_a_camera_of_the_run_and_a_past_date() -> None:
    data = _data(SMALL, 24.0, {"requests": [{"at_hours": 5, "camera": "table-RL-1",
                                              "date": date(2026, 3, 1)}]})  # fmt: skip
    with pytest.raises(InputError) as err:
        parse_scenario(data, source="small.toml", base_dir=SMALL.parent)
    assert err.value.key == "surveillance.requests[0].camera"
    assert err.value.expected == "one of 'bank-A', 'bank-B', 'bank-P', 'bank-T'"
    data["surveillance"]["requests"][0] |= {"camera": "bank-A", "date": date(2026, 3, 2)}
    with pytest.raises(InputError) as err:
        parse_scenario(data, source="small.toml", base_dir=SMALL.parent)
    assert err.value.key == "surveillance.requests[0].date"
    assert err.value.expected == "a date before the request's own (2026-03-02)"
    data["surveillance"] = {"segment_hours": 5}
    with pytest.raises(InputError) as err:
        parse_scenario(data, source="small.toml", base_dir=SMALL.parent)
    assert err.value.key == "surveillance.segment_hours"


def test_an_injection_needs_the_section() -> None:
    data = tomllib.loads(SMALL.read_text(encoding="utf-8"))
    data["inject"] = [{"kind": "surveillance_recycled_early"}]
    sc = parse_scenario(data, source="small.toml", base_dir=SMALL.parent)
    with pytest.raises(InputError) as err:
        Casino(sc)
    assert err.value.key == "inject[0].kind"
