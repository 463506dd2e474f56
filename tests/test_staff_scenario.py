"""Staff as data: roles and crews in the scenario, validated before t = 0, and a real run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from unittest.mock import ANY

from conftest import REPO, besides_absent_functions
from test_scenario import assert_error, broken, load_error

from twin import api
from twin.casino import Casino
from twin.departments import load_scenario
from twin.drivers import StepDriver
from twin.records import MemorySink

TINY_CREW = "crew = { attendant = 1, technician = 1, inspector = 1 }"
ROLES = """[staff]

[[staff.roles]]
id = "attendant"
prefix = "ATT"
title = "Slot attendant"

[[staff.roles]]
id = "technician"
prefix = "TEC"
title = "Slot technician"

[[staff.roles]]
id = "inspector"
prefix = "INS"
title = "Board inspector"
employer = "board"

[[staff.roles]]
id = "cashier"
prefix = "CSH"
title = "Cashier"
"""


def test_default_roles_and_crews(tmp_path: Path) -> None:
    sc = load_scenario(REPO / "scenarios" / "tiny.toml")
    assert [(r.id, r.prefix, r.employer) for r in sc.staff.roles] == [
        ("attendant", "ATT", "licensee"),
        ("technician", "TEC", "licensee"),
        ("inspector", "INS", "board"),
    ]
    assert sc.staff.shifts[0].crew == {"attendant": 1, "technician": 1, "inspector": 1}
    assert sc.staff.dispatch.priority == ("hand_pay", "hopper_fill", "repair", "door_check")


def test_other_roles_are_allowed(tmp_path: Path) -> None:
    path = broken(tmp_path, "tiny.toml", "[staff]\n", ROLES)
    path.write_text(path.read_text().replace(TINY_CREW, TINY_CREW[:-2] + ", cashier = 2 }"))
    sc = load_scenario(path)
    assert sc.staff.head_count("cashier") == 2


def test_unknown_role_in_a_crew(tmp_path: Path) -> None:
    path = broken(tmp_path, "tiny.toml", TINY_CREW, TINY_CREW[:-2] + ", dealer = 2 }")
    assert_error(
        load_error(path),
        path,
        "staff.shifts[0].crew.dealer",
        "one of 'attendant', 'technician', 'inspector'",
        "dealer",
    )


def test_duplicate_role_id(tmp_path: Path) -> None:
    dup = ROLES.replace('id = "cashier"', 'id = "attendant"')
    path = broken(tmp_path, "tiny.toml", "[staff]\n", dup)
    assert_error(
        load_error(path),
        path,
        "staff.roles[3].id",
        "a unique role id (already used by roles[0])",
        "attendant",
    )


def test_a_floor_with_machines_needs_every_role_its_jobs_need(tmp_path: Path) -> None:
    path = broken(tmp_path, "tiny.toml", TINY_CREW, "crew = { attendant = 1, inspector = 1 }")
    err = load_error(path)
    assert_error(
        err,
        path,
        "staff.shifts",
        "a role 'technician' with a head count > 0 in some shift's crew (repairs and door "
        "checks on the floor's 4 machines need one)",
        ANY,
    )
    assert str(err).endswith(
        "found crews over all shifts: attendant = 1, technician = 0, inspector = 1"
    )


def test_an_unknown_job_kind_in_dispatch(tmp_path: Path) -> None:
    path = broken(
        tmp_path, "tiny.toml", "[staff]\n", '[staff]\ndispatch = { operator = ["hand_pays"] }\n'
    )
    err = load_error(path)
    assert err.key == "staff.dispatch.operator[0]"
    assert err.found == "hand_pays"
    # the error lists every kind a scenario may name, the drop, removals and the lifecycle's
    # works included
    assert err.expected == (
        "one of 'hand_pay', 'hopper_fill', 'repair', 'door_check', 'drop_collection', "
        "'machine_removal', 'machine_return', 'machine_work', 'eprom_custody', 'seal_check'"
    )
    path = broken(
        tmp_path, "tiny.toml", "[staff]\n", '[staff]\ndispatch = { priority = ["drop"] }\n'
    )
    err = load_error(path)
    assert (err.key, err.found) == ("staff.dispatch.priority[0]", "drop")
    assert "'drop_collection', 'machine_removal', 'machine_return'" in err.expected


def test_every_job_the_floor_files_is_a_job_kind_of_the_scenario() -> None:
    """The scenario's job kinds are the kinds ``twin.jobs`` files, so any of them may be
    given a priority or left to the operator; the default priority is the dispatcher's, the
    four kinds filed during play (the others come after them, as they always did)."""
    from twin.jobs import JOB_ROLES
    from twin.staff.dispatch import DEFAULT_PRIORITY as DISPATCH_DEFAULT
    from twin.staff.section import DEFAULT_PRIORITY, JOB_KINDS, DispatchConfig

    assert set(JOB_KINDS) == set(JOB_ROLES)
    assert JOB_KINDS[:4] == DEFAULT_PRIORITY == DISPATCH_DEFAULT
    assert JOB_KINDS[4:] == (
        "drop_collection", "machine_removal", "machine_return",
        "machine_work", "eprom_custody", "seal_check",  # the lifecycle's works (issue 27)
    )  # fmt: skip
    assert DispatchConfig().priority == ("hand_pay", "hopper_fill", "repair", "door_check")
    every = DispatchConfig(priority=JOB_KINDS[::-1], operator=JOB_KINDS[4:])
    assert every.priority[0] == "seal_check" and "drop_collection" in every.operator


def _drop_day(dispatch: str) -> tuple[Casino, MemorySink]:
    """One machine of the tiny floor with its daily drop at 10:30, ``[staff.dispatch]`` as
    given (TOML), run to 11:00 (step-wise, so it may go on) with no compliance engine."""
    sc = api.prepare(
        REPO / "scenarios" / "tiny.toml",
        overrides=["floor.banks[0].count=1", 'floor.drop_collection="10:30"',
                   f"staff.dispatch={dispatch}"],
    )  # fmt: skip
    sink = MemorySink()
    casino = Casino(sc, sinks=[sink], compliance=False)
    casino.start()
    StepDriver.to(casino, 3600.0)
    return casino, sink


def test_the_drop_collection_can_wait_for_the_operator() -> None:
    """``operator = ["drop_collection"]``: the drop team is not sent until the operator
    assigns one; then the attendant empties the drop, the inspector witnessing."""
    from twin.machines.events import MoneyRemoved
    from twin.staff.records import JobRequested, JobStarted

    casino, sink = _drop_day('{ operator = ["drop_collection"] }')
    drops = [r for r in sink.of(JobRequested) if r.job_kind == "drop_collection"]
    assert [(r.machine, r.mode, r.t) for r in drops] == [("A-001", "operator", 1800.0)]
    assert not [r for r in sink.of(JobStarted) if r.job_kind == "drop_collection"]
    assert not sink.of(MoneyRemoved)
    team = {"attendant": "ATT-all-day-01", "inspector": "INS-all-day-01"}
    assert casino.staff.assign(drops[0].job_id, team) is None
    StepDriver.to(casino, 2 * 3600.0)
    removed = sink.of(MoneyRemoved)
    assert removed and {(r.staff, r.witness, r.reason) for r in removed} == {
        ("ATT-all-day-01", "INS-all-day-01", "drop_collection")
    }


def test_the_drop_collection_is_dispatched_by_default() -> None:
    from twin.staff.records import JobStarted

    _casino, sink = _drop_day("{}")
    started = [r for r in sink.of(JobStarted) if r.job_kind == "drop_collection"]
    assert [(r.by, r.t) for r in started] == [("dispatcher", 1800.0)]


def test_tiny_for_48_hours_has_staff_on_duty_throughout_and_no_findings(tmp_path: Path) -> None:
    """The round-the-clock shift of tiny.toml used to work every other day (issue 13): now
    each of its three members is on duty for all 48 h, and a clean floor has no findings."""
    p = subprocess.run(
        [
            *(sys.executable, "-m", "twin", "run", str(REPO / "scenarios" / "tiny.toml")),
            *("--hours", "48", "--seed", "1", "--out", str(tmp_path), "--force"),
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=False,
    )
    assert p.returncode == 0, p.stderr
    doc = json.loads((tmp_path / "summary.json").read_text())
    util = doc["kpis"]["utilisation"]
    for role in ("attendant", "technician", "inspector"):
        assert util[role]["members"] == 1
        assert util[role]["duty_s"] == 48 * 3600.0
    found = json.loads((tmp_path / "findings.json").read_text())
    # tiny: no door check, AML function, books or employees' licences
    assert besides_absent_functions(found) == []
    assert doc["compliance"]["findings"] == len(found) == 5
    for kind in ("hand_pay", "hopper_fill"):
        jobs = doc["kpis"]["staff_jobs"][kind]
        assert jobs["completed"] > 0
        assert jobs["queue_wait"]["p95"] < 30 * 60  # minutes, not the day it used to be


def test_operator_mode_from_the_scenario_leaves_hand_pays_to_the_operator() -> None:
    """``[staff.dispatch] operator = ["hand_pay"]``: the tiny floor's hand pays wait for an
    operator; an assignment through ``casino.staff.assign`` starts one at once."""
    from twin.casino import Casino
    from twin.records import MemorySink
    from twin.staff.records import JobRequested, JobStarted

    sc = load_scenario(REPO / "scenarios" / "tiny.toml")
    staff = sc.staff.model_copy(
        update={"dispatch": sc.staff.dispatch.model_copy(update={"operator": ("hand_pay",)})}
    )
    sink = MemorySink()
    casino = Casino(sc.model_copy(update={"staff": staff}), sinks=[sink], compliance=False)
    casino.run(until=24 * 3600.0)
    hand_pays = [r for r in sink.of(JobRequested) if r.job_kind == "hand_pay"]
    assert hand_pays and all(r.mode == "operator" for r in hand_pays)
    assert not [r for r in sink.of(JobStarted) if r.job_kind == "hand_pay"]
    first = hand_pays[0].job_id
    refused = casino.staff.assign(first, {"attendant": "ATT-all-day-01"})
    assert refused == f"{first}: needs roles ['attendant', 'inspector'], given ['attendant']"
    assert casino.staff.idle("attendant") == ["ATT-all-day-01"]  # fills still dispatched
    pick = {"attendant": "ATT-all-day-01", "inspector": "INS-all-day-01"}
    assert casino.staff.assign(first, pick) is None
    started = sink.of(JobStarted)[-1]
    assert (started.job_id, started.by, started.t) == (first, "operator", 24 * 3600.0)
