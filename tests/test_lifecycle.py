"""The lifecycle department (issue 27): its workflows' timeline on the test floor, the rules
that change what it does, its KPIs, its validation and its calendar (exact values: the model
is deterministic for a seed). The controls it is checked by are tested in
tests/test_lifecycle_register.py, tests/test_lifecycle_works.py and
tests/test_lifecycle_eproms.py."""

from __future__ import annotations

import subprocess
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from lifecycle_floor import SMALL, findings, run, scenario_data

from twin.casino import Casino
from twin.departments import parse_scenario
from twin.errors import InputError
from twin.lifecycle.records import (
    BoardDecided,
    ConversionLodged,
    ManualSubmitted,
    WorkDone,
)
from twin.machines.events import GamesPlayed
from twin.metrics import Metrics
from twin.records import MemorySink


@pytest.fixture(scope="module")
def floor() -> tuple[Casino, MemorySink]:
    return run()


def _local(casino: Casino, t: float) -> str:
    return casino.world.clock.at(t).isoformat(timespec="minutes")


def test_the_floor_lives_a_clean_four_days(floor: tuple[Casino, MemorySink]) -> None:
    """Every work of the floor is done, in order, and the controls find nothing; the works
    that need the Board's written approval wait its 48 hours (the ruleset's
    board_decision_hours) from the request."""
    casino, sink = floor
    assert findings(sink) == []
    done = {r.work: (r.work_kind, r.outcome) for r in sink.of(WorkDone)}
    assert len(done) == 13 and {o for _, o in done.values()} == {"done"}
    approvals = [
        (r.matter, r.machine, _local(casino, r.requested_t), _local(casino, r.t))
        for r in sink.of(BoardDecided)
        if r.decision == "approved"
    ]
    assert approvals == [
        ("conversion", "B-005", "2026-03-02T13:00+01:00", "2026-03-04T13:00+01:00"),
        ("replacement", "B-010", "2026-03-02T15:00+01:00", "2026-03-04T15:00+01:00"),
        ("repair", "A-007", "2026-03-02T17:00+01:00", "2026-03-04T17:00+01:00"),
        ("move", "T-004", "2026-03-02T21:00+01:00", "2026-03-04T21:00+01:00"),
    ]
    # the Secretary asks on Monday at 19:00, after office hours: the manual goes in on Tuesday
    # at 09:00; the conversion record is lodged at once, in office hours
    (sub,) = sink.of(ManualSubmitted)
    assert (_local(casino, sub.requested_t), _local(casino, sub.t)) == (
        "2026-03-02T19:00+01:00",
        "2026-03-03T09:00+01:00",
    )
    (lodged,) = sink.of(ConversionLodged)
    assert lodged.t == lodged.converted_t
    assert _local(casino, lodged.t) == "2026-03-04T14:21+01:00"


def test_the_kpis_say_what_the_machines_went_through() -> None:
    data = scenario_data()
    sc = parse_scenario(data, source=str(SMALL), base_dir=SMALL.parent)
    metrics = Metrics()
    casino = Casino(sc, sinks=[metrics])
    casino.run()
    k = metrics.kpis(casino.env.now).sections["lifecycle"]
    # 40 machines on the floor with B-R01 in for B-010; in reserve B-010 and B-N01 (acquired);
    # B-R02 sold; A-010 suspended and restored, so on the floor
    assert k["machines_by_state"] == {"floor": 40, "reserve": 2, "suspended": 0, "disposed": 1}
    assert k["board_decisions"] == {
        "registration": 43,  # 40 + 2 at the renewal, and the acquisition
        "amendment": 0,
        "deletion": 1,
        "conversion": 1,
        "replacement": 1,
        "move": 1,
        "repair": 1,
        "suspension": 1,
    }
    assert k["board_decisions_by_outcome"] == {
        "registered": 43, "refused": 0, "amended": 0, "deleted": 1, "approved": 4,
        "suspended": 1,
    }  # fmt: skip
    # the register's amendments for the conversion and the replacement (day 3, 14:21 and
    # 15:31) come 48 hours later, after the run's end
    assert k["board_wait_hours"]["conversion"] == {"n": 1, "mean": 48.0, "max": 48.0}
    assert (k["works_delayed_by_approval"], k["approval_wait_hours_total"]) == (4, 192.0)
    assert (k["conversions"], k["repairs"], k["outcome_affecting_repairs"]) == (1, 2, 1)
    assert (k["faults_found"], k["faults_cleared"]) == (1, 1)
    down = k["downtime_hours"]
    # out of order from the request to the work, the Board's 48 hours included
    assert down["replacement"] == pytest.approx(48.517, abs=1e-3)
    assert down["repair"] == pytest.approx(48.529, abs=1e-3)
    assert down["move"] == pytest.approx(20 / 60, abs=1e-3)
    assert down["suspension"] > 6.0  # suspended at 13 h, restored at 33 h, back once out


def test_a_quicker_board_shortens_every_wait() -> None:
    """board_decision_hours = 24: the same approvals a day sooner; the downtime of the
    machines out of order falls by a day each."""
    _casino, sink = run(overrides={"board_decision_hours": 24})
    assert findings(sink) == []
    waits = {r.matter: r.t - r.requested_t for r in sink.of(BoardDecided) if r.t > 0}
    assert waits["conversion"] == waits["move"] == 24 * 3600.0
    down = {r.work_kind: r.downtime_s for r in sink.of(WorkDone) if r.work_kind == "replacement"}
    assert 24 * 3600.0 < down["replacement"] < 25 * 3600.0


def test_replacements_without_prior_approval_are_done_at_once() -> None:
    """replacement_needs_prior_approval = false (a proposal): the licensee asks no approval
    for a replacement from reserve and does it at once: the machine out of order is replaced
    in 81 minutes (its removal job waits for staff), not 48 hours."""
    _casino, sink = run(overrides={"replacement_needs_prior_approval": False})
    (rep,) = [r for r in sink.of(WorkDone) if r.work_kind == "replacement"]
    assert rep.approved_t == rep.requested_t
    assert rep.downtime_s == 4860.0
    assert not [r for r in sink.of(BoardDecided) if r.matter == "replacement"]


def test_reserve_machines_change_no_floor_machine() -> None:
    """One stream per machine: reserve machines in the store (and how many) change nothing
    any floor machine plays."""

    def plays(count: int) -> list[Any]:
        _c, sink = run(hours=6.0, works=[], reserve=[{"bank": "B", "count": count}])
        return [r.payload() for r in sink.of(GamesPlayed)]

    assert plays(1) == plays(5)


@pytest.mark.parametrize(
    ("edit", "key", "expected"),
    [
        ({"reserve": [{"bank": "Z", "count": 1}]}, "lifecycle.reserve[0].bank", "one of 'A'"),
        (
            {"works": [{"kind": "conversion", "machine": "B-005", "at_hours": 1}]},
            "lifecycle.works[0].game",
            "a game for a conversion",
        ),
        (
            {"works": [{"kind": "repair", "machine": "Q-001", "at_hours": 1, "part": "x"}]},
            "lifecycle.works[0].machine",
            "the id of a floor machine",
        ),
        (
            {"works": [{"kind": "acquisition", "machine": "A-001", "bank": "A", "at_hours": 1}]},
            "lifecycle.works[0].machine",
            "not yet on the floor",
        ),
        (
            {"manual": {"topics": ["reports"], "approved": ["machine_removal"]}},
            "lifecycle.manual.approved[0]",
            "one of 'reports'",
        ),
        ({"works": [{"kind": "demolition", "at_hours": 1}]}, "lifecycle.works[0].kind", "one of"),
    ],
)
def test_a_bad_lifecycle_section_is_one_precise_error(
    edit: dict[str, Any], key: str, expected: str
) -> None:
    data = scenario_data(**edit)
    with pytest.raises(InputError) as err:
        parse_scenario(data, source=str(SMALL), base_dir=SMALL.parent)
    assert err.value.key == key, str(err.value)
    assert expected in str(err.value)


def test_a_lifecycle_injection_needs_a_lifecycle(tmp_path: Path) -> None:
    text = SMALL.read_text(encoding="utf-8") + ('\n[[inject]]\nkind = "lifecycle_store_unlocked"\n')
    path = tmp_path / "no-lifecycle.toml"
    path.write_text(text.replace('"games/', f'"{SMALL.parent}/games/'), encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "twin", "run", str(path), "--hours", "1", "--out",
         str(tmp_path / "out")],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert "inject[0].kind" in proc.stderr
    assert "a [lifecycle] section for lifecycle_store_unlocked" in proc.stderr
    assert "Traceback" not in proc.stderr


# -- the calendar of the workflows: working days of Malta (the holidays library) ---------------


def _from(start: str, works: list[dict[str, Any]], hours: float) -> tuple[Casino, MemorySink]:
    data = scenario_data(hours=hours, works=works)
    data["scenario"]["start"] = datetime.fromisoformat(start)
    sc = parse_scenario(data, source=str(SMALL), base_dir=SMALL.parent)
    sink = MemorySink()
    casino = Casino(sc, sinks=[sink])
    casino.run()
    return casino, sink


@pytest.mark.parametrize(
    ("start", "lodged"),
    [
        # converted on Friday 6 March 2026 at about 18:30: lodged on Monday at 09:00
        ("2026-03-06T10:00:00", "2026-03-09T09:00+01:00"),
        # on Wednesday 18 March: Thursday 19 March is St Joseph's day, so Friday at 09:00
        ("2026-03-18T10:00:00", "2026-03-20T09:00+01:00"),
        # on Monday 30 March (summer time): Tuesday 31 March is Freedom Day, so Wednesday
        ("2026-03-30T10:00:00", "2026-04-01T09:00+02:00"),
    ],
)
def test_a_conversion_record_goes_in_at_the_offices_next_opening(start: str, lodged: str) -> None:
    """Item 11(c)'s "immediately": a conversion made after office hours is lodged when the
    Secretary's office next opens, a working day of Malta."""
    work = {"kind": "conversion", "machine": "B-005", "at_hours": 8.0, "approval": "granted",
            "game": "games/classic-3reel-90.toml"}  # fmt: skip
    casino, sink = _from(start, [work], 80.0)
    (rec,) = sink.of(ConversionLodged)
    converted = casino.world.clock.at(rec.converted_t)
    assert (converted.date().isoformat(), converted.hour) == (start[:10], 18)
    assert _local(casino, rec.t) == lodged


@pytest.mark.parametrize(
    ("start", "at_hours", "submitted"),
    [
        # asked on Friday 6 March at 19:00, after hours: submitted on Monday at 09:00
        ("2026-03-06T10:00:00", 9.0, "2026-03-09T09:00+01:00"),
        # asked on Wednesday 18 March at 11:00: an hour later, in office hours
        ("2026-03-18T10:00:00", 1.0, "2026-03-18T12:00+01:00"),
        # asked on Wednesday 18 March at 17:00: Thursday is St Joseph's day, so Friday
        ("2026-03-18T10:00:00", 7.0, "2026-03-20T09:00+01:00"),
    ],
)
def test_the_manual_goes_to_the_secretary_in_office_hours(
    start: str, at_hours: float, submitted: str
) -> None:
    casino, sink = _from(start, [{"kind": "manual_request", "at_hours": at_hours}], 80.0)
    (rec,) = sink.of(ManualSubmitted)
    assert _local(casino, rec.t) == submitted


def test_the_boards_48_hours_are_real_hours_across_the_change_to_summer_time() -> None:
    """A request on Saturday 28 March 2026 at 11:00 (CET) is decided 48 real hours later:
    Monday 30 March at 12:00 CEST, the clocks having gone forward on the Sunday."""
    work = {"kind": "move", "machine": "T-004", "zone": "main", "at_hours": 1.0}
    casino, sink = _from("2026-03-28T10:00:00", [work], 50.0)
    (dec,) = [r for r in sink.of(BoardDecided) if r.matter == "move"]
    assert (_local(casino, dec.requested_t), _local(casino, dec.t)) == (
        "2026-03-28T11:00+01:00",
        "2026-03-30T12:00+02:00",
    )


@pytest.mark.slow
def test_the_default_week_runs_clean_with_its_lifecycle(tmp_path: Path) -> None:
    """Issue 27's must-show: `twin run --days 7` on the default scenario gives no finding, and
    KPIs for machines by lifecycle state, the Board's decisions and waits, conversions,
    repairs and downtime (summary.json), every work of the week done."""
    import json

    out = tmp_path / "week"
    proc = subprocess.run(
        [sys.executable, "-m", "twin", "run", "--days", "7", "--out", str(out), "--no-progress"],
        capture_output=True, text=True, check=False, cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "; 0 finding(s)" in proc.stdout
    k = json.loads((out / "summary.json").read_text())["kpis"]["sections"]["lifecycle"]
    # A-040 replaced by A-R01 (A-040 to the store), A-R02 sold, H-N01 acquired into reserve
    assert k["machines_by_state"] == {"floor": 600, "reserve": 3, "suspended": 0, "disposed": 1}
    assert k["work_outcomes"] == {"done": 12}
    assert (k["conversions"], k["repairs"], k["outcome_affecting_repairs"]) == (1, 2, 1)
    assert k["board_decisions"]["conversion"] == k["board_decisions"]["replacement"] == 1
    assert k["board_wait_hours"]["conversion"] == {"n": 1, "mean": 48.0, "max": 48.0}
    assert k["downtime_hours"]["replacement"] > 48.0  # out of order from the request
