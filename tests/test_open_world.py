"""The open world: one model under three clock drivers, the inbox, replay, the run API.

Determinism is the contract: the same scenario and seed give the same ledger head whether the
clock runs flat out, in 1,000 steps or paced against the wall clock; commands pushed from
another thread while a paced run goes on are all applied once, in order per source, only on
the simulation thread, and a replay of the ledger reproduces the run byte for byte.
"""

from __future__ import annotations

import pickle
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from conftest import SCENARIOS

from twin import api
from twin.casino import Casino
from twin.commands import (
    Command,
    CommandAccepted,
    CommandError,
    CommandRejected,
    Note,
    command,
    parse_command,
)
from twin.departments import load_scenario
from twin.drivers import FastDriver, PacedDriver, PacedStatus, StepDriver
from twin.inbox import WrongThread
from twin.ledger import HashChain
from twin.records import MemorySink
from twin.slots.actions import CloseDoor, OpenDoor

TINY = SCENARIOS / "tiny.toml"
SMALL = SCENARIOS / "small.toml"


def head(driver: Any, hours: float = 6.0, path: Path = SMALL) -> str:
    result = api.run(path, hours=hours, driver=driver)
    assert result.ledger_sha256 is not None
    return result.ledger_sha256


def test_same_ledger_head_under_fast_step_and_paced_drivers() -> None:
    fast = head(FastDriver())
    assert head(StepDriver(pieces=1000)) == fast
    assert head(StepDriver(pieces=7)) == fast
    assert head(FastDriver(poll_seconds=1.0)) == fast
    assert head(PacedDriver(100_000)) == fast
    assert head(FastDriver(), hours=6.5) != fast  # the head does depend on the run


def test_step_driver_goes_event_by_event() -> None:
    casino = Casino(load_scenario(TINY))
    casino.start()
    times = [StepDriver.step(casino) for _ in range(20)]
    assert times == sorted(t for t in times if t is not None)
    assert times[0] == 0.0 and casino.env.now < 3600.0
    StepDriver.to(casino, 3600.0)
    assert casino.env.now == 3600.0


@command("test_where")
class Where(Command):
    """Records the thread a command is applied on (for the thread test)."""

    tag: int

    def apply(self, casino: Casino) -> None:
        APPLIED_ON.append(threading.get_ident())


APPLIED_ON: list[int] = []


def test_ten_thousand_commands_from_another_thread_none_lost_none_doubled() -> None:
    """Two sources push 5,000 commands each from another thread during a paced run."""
    APPLIED_ON.clear()
    sink = MemorySink()
    chain = HashChain()
    casino = Casino(load_scenario(TINY), sinks=[sink, chain])
    casino.start()
    pushed: dict[str, list[Command]] = {"rig": [], "viewer": []}

    def push() -> None:
        for i in range(5000):
            rig: Command
            if i % 4 == 0:
                rig = OpenDoor(machine=f"A-00{1 + i % 4}", door="drop", by="rig")
            elif i % 4 == 1:
                rig = CloseDoor(machine=f"A-00{1 + (i - 1) % 4}", door="drop", by="rig")
            elif i % 4 == 2:
                rig = OpenDoor(machine="Z-999", by="rig")  # no such machine: refused
            else:
                rig = Where(tag=i)
            casino.inbox.put(rig, source="rig")
            pushed["rig"].append(rig)
            note = Note(text=f"note {i}") if i % 10 else Note(text=" ")  # blank: refused
            casino.inbox.put(note, source="viewer")
            pushed["viewer"].append(note)

    pusher = threading.Thread(target=push)
    pusher.start()
    PacedDriver(20_000).drive(casino, casino.end)  # 7,200 s at x20,000: about 0.4 s of wall
    pusher.join()
    casino.finish()
    got = [r for r in sink.records if isinstance(r, CommandAccepted | CommandRejected)]
    assert len(got) == 10_000
    for source, sent in pushed.items():
        mine = [r for r in got if r.source == source]
        assert [r.number for r in mine] == list(range(1, 5001))  # none lost, doubled or moved
        assert [r.command for r in mine] == [c.name for c in sent]
        assert [r.args for r in mine] == [c.args_json() for c in sent]
    rejected = [r for r in got if isinstance(r, CommandRejected)]
    assert {r.reason for r in rejected if r.source == "viewer"} == {"an empty note"}
    assert sum(r.source == "viewer" for r in rejected) == 500
    assert {r.reason for r in rejected if r.command == "open_door" and "Z-999" in r.args} == {
        "no machine 'Z-999' on the floor"
    }
    assert all(r.reason for r in rejected)
    # only the simulation thread touched the world
    assert set(APPLIED_ON) == {threading.get_ident()}
    assert pusher.ident not in APPLIED_ON
    assert len(APPLIED_ON) == 1250

    # a replay of the ledger reproduces the run byte for byte
    replayed = api.run(TINY, replay=sink.records)
    assert replayed.ledger_sha256 == chain.head
    assert replayed.kpis.commands_accepted + replayed.kpis.commands_rejected == 10_000


def test_commands_are_applied_at_the_instant_they_arrive_and_recorded() -> None:
    sink = MemorySink()
    casino = Casino(load_scenario(TINY), sinks=[sink])
    casino.start()
    StepDriver.to(casino, 5000.0)
    casino.inbox.put(OpenDoor(machine="A-002", door="cashbox", by="ops"), source="drill")
    casino.inbox.put(CloseDoor(machine="A-002", door="cashbox", by="someone"), source="drill")
    casino.inbox.put(CloseDoor(machine="A-002", door="cashbox", by="ops"), source="drill")
    StepDriver.to(casino, 6000.0)
    cmds = [r for r in sink.records if r.kind.startswith("command_")]
    assert [(r.t, r.kind, r.number) for r in cmds] == [
        (5000.0, "command_accepted", 1),
        (5000.0, "command_rejected", 2),
        (5000.0, "command_accepted", 3),
    ]
    assert isinstance(cmds[1], CommandRejected)
    assert cmds[1].reason == "the cashbox door of A-002 was opened by ops, not someone"
    doors = [
        (r.t, getattr(r, "name", ""), r.entity("staff"))
        for r in sink.records
        if r.kind == "machine_exception" and r.entity("machine") == "A-002" and r.t >= 5000
    ][:2]
    assert doors == [(5000.0, "cashbox_door_opened", "ops"), (5000.0, "cashbox_door_closed", "ops")]


def test_simpy_is_only_touched_from_the_simulation_thread() -> None:
    casino = Casino(load_scenario(TINY))
    casino.start()
    errors: list[BaseException] = []

    def other() -> None:
        try:
            casino.advance(100.0)
        except BaseException as exc:
            errors.append(exc)

    t = threading.Thread(target=other)
    t.start()
    t.join()
    assert len(errors) == 1 and isinstance(errors[0], WrongThread)
    casino.inbox.put(Note(text="from any thread is fine"))  # putting is thread-safe
    casino.advance(100.0)


def test_parse_command_validates_names_and_arguments() -> None:
    assert parse_command("open_door", {"machine": "A-001"}) == OpenDoor(machine="A-001")
    with pytest.raises(CommandError, match="unknown command 'fly'"):
        parse_command("fly", {})
    with pytest.raises(CommandError, match=r"open_door: machine: .*found 7"):
        parse_command("open_door", {"machine": 7})
    with pytest.raises(CommandError, match="open_door: colour"):
        parse_command("open_door", {"machine": "A-001", "colour": "red"})


def test_scenario_injections_enter_through_the_inbox() -> None:
    sink = MemorySink()
    sc = load_scenario(TINY)
    from twin.scenario import with_settings

    sc = with_settings(
        sc,
        [
            (
                "inject",
                [
                    {"kind": "no_serial", "machine": "A-001"},
                    {"kind": "unrepaired_tilt", "machine": "A-002", "at_hours": 1.0},
                ],
            )
        ],
    )
    casino = Casino(sc, sinks=[sink])
    casino.run()
    cmds = [r for r in sink.records if isinstance(r, CommandAccepted)]
    assert [(r.t, r.source, r.number, r.command) for r in cmds] == [
        (0.0, "scenario", 1, "inject"),
        (3600.0, "scenario", 2, "inject"),
    ]
    assert '"kind":"unrepaired_tilt"' in cmds[1].args


class _Interrupt:
    """A sink that stops the run (as Ctrl-C would) after ``n`` records."""

    def __init__(self, n: int) -> None:
        self.n = n

    def accept(self, rec: Any) -> None:
        if rec.seq == self.n:
            raise KeyboardInterrupt

    def close(self) -> None:
        pass


def test_an_interrupted_run_leaves_a_folder_that_says_so(tmp_path: Path) -> None:
    out = tmp_path / "run"
    first = api.run(TINY, hours=1, out=out)
    assert (out / "summary.json").is_file() and not (tmp_path / "run.incomplete").exists()
    with pytest.raises(KeyboardInterrupt):
        api.run(TINY, hours=2, seed=2, out=out, replace=True, sinks=[_Interrupt(40)])
    partial = tmp_path / "run.incomplete"
    marker = (partial / "INCOMPLETE").read_text()
    assert "has not finished" in marker and "Stopped: KeyboardInterrupt" in marker
    assert not (partial / "summary.json").exists()
    # the older complete run is untouched: its summary still matches its own ledger
    import json

    summary = json.loads((out / "summary.json").read_text())
    assert summary["ledger_sha256"] == first.ledger_sha256 and summary["seed"] == 1
    from twin.ledger import verify

    assert verify(partial / "ledger.sqlite").status == "incomplete"


def test_nothing_is_written_before_the_run_validates(tmp_path: Path) -> None:
    from twin.errors import InputError

    out = tmp_path / "never"
    with pytest.raises(InputError, match=r"staff.shifts\[0\].inspectors"):
        api.run(TINY, out=out, overrides=["staff.shifts[0].inspectors=-2"])
    assert not out.exists() and not (tmp_path / "never.incomplete").exists()


def _run_in_worker(scenario: Any) -> api.RunResult:
    return api.run(scenario, hours=3)


def test_a_run_pickles_into_a_worker_process_and_returns_the_same_head() -> None:
    sc = load_scenario(SMALL)
    here = api.run(sc, hours=3)
    assert pickle.loads(pickle.dumps(sc)) == sc
    with ProcessPoolExecutor(max_workers=1) as pool:
        there = pool.submit(_run_in_worker, sc).result(timeout=300)
    assert there.ledger_sha256 == here.ledger_sha256
    assert there.kpis == here.kpis
    assert there.machines == here.machines


def test_paced_driver_pauses_resumes_changes_speed_and_reports_lag() -> None:
    casino = Casino(load_scenario(TINY))
    driver = PacedDriver(600.0, tick_seconds=0.005)
    lags: list[PacedStatus] = []
    done = threading.Event()

    def sim() -> None:
        casino.start()
        driver.drive(casino, casino.end)
        done.set()

    t = threading.Thread(target=sim)
    t.start()
    time.sleep(0.3)
    driver.pause()
    time.sleep(0.1)
    paused_at = driver.status().sim_time
    time.sleep(0.3)
    assert driver.status().paused and driver.status().sim_time == paused_at
    assert 0 < paused_at < casino.end
    driver.resume()
    driver.set_factor(100_000)
    assert done.wait(60)
    t.join()
    assert driver.status().done and casino.env.now == casino.end
    with pytest.raises(ValueError, match="pace factor"):
        driver.set_factor(0.01)
    # a factor the model cannot keep up with is reported, not hidden
    slow = Casino(load_scenario(SCENARIOS / "default.toml").with_overrides(duration_hours=6))
    slow.start()
    fast = PacedDriver(100_000, on_lag=lags.append, lag_report_seconds=0.05)
    fast.drive(slow, slow.end)
    assert lags and lags[0].lag_seconds > 0.05
    assert fast.status().max_lag_seconds >= lags[0].lag_seconds


def test_kpis_rebuilt_from_the_ledger_equal_the_live_ones(tmp_path: Path) -> None:
    """The summary comes from records; a ledger alone rebuilds it, and it agrees with what
    the live objects (meters, time-weighted monitors) measured."""
    from twin.kinds import ALL  # noqa: F401  (every record kind registered)
    from twin.ledger import read
    from twin.machines.sas import MeterCode
    from twin.metrics import Metrics

    sc = load_scenario(SMALL).with_overrides(duration_hours=30)
    result = api.run(sc, out=tmp_path / "run")
    rebuilt = Metrics.from_records(read(tmp_path / "run" / "ledger.sqlite"))
    end = result.sim_seconds
    assert rebuilt.kpis(end) == result.kpis
    assert rebuilt.machines(end) == result.machines
    k = result.kpis
    assert k.hand_pays > 0 and k.hopper_fills > 0 and k.machine_downtime_seconds > 0

    # the same scenario run live: record-built KPIs equal the live objects' own figures
    live_metrics = Metrics()
    again = Casino(sc, sinks=[live_metrics])
    again.run()
    kp = live_metrics.kpis(end)
    assert kp == k
    raw = [m.accounts.meters for m in again.machines]
    assert kp.spins == sum(r[MeterCode.GAMES_PLAYED] for r in raw)
    assert kp.coin_in_cents == sum(
        r[MeterCode.TOTAL_COIN_IN] * m.spec.denomination_cents
        for r, m in zip(raw, again.machines, strict=True)
    )
    assert kp.jackpot_cents == sum(
        r[MeterCode.TOTAL_JACKPOT] * m.spec.denomination_cents
        for r, m in zip(raw, again.machines, strict=True)
    )
    assert kp.visitors == again.arrivals.count
    assert kp.walkaways == again.floor.walkaways
    assert kp.mean_occupied_machines == round(again.floor.occupied.mean(), 3)
    assert kp.machine_downtime_seconds == round(sum(m.downtime.area() for m in again.machines), 3)
    for m in again.machines:
        assert live_metrics.machines(end)[m.id].downtime_seconds == pytest.approx(
            m.downtime.area(), abs=1e-9
        )


def test_an_operator_staffs_a_job_through_the_inbox() -> None:
    """Hand pays in operator mode wait for a person; an AssignJob command staffs one, and a
    wrong one is refused with the dispatcher's reason."""
    from twin.staff.actions import AssignJob
    from twin.staff.records import JobRequested, JobStarted

    sc = api.prepare(TINY, overrides={"staff.dispatch.operator": ["hand_pay"]})
    sink = MemorySink()
    casino = Casino(sc, sinks=[sink])
    casino.start()
    StepDriver.to(casino, 3 * 3600.0)
    waiting = [r for r in sink.of(JobRequested) if r.job_kind == "hand_pay"]
    assert waiting and not [r for r in sink.of(JobStarted) if r.job_kind == "hand_pay"]
    job = waiting[0].job_id
    casino.inbox.put(AssignJob(job_id=job, members={"attendant": "ATT-all-day-01"}), source="op")
    pick = {"attendant": "ATT-all-day-01", "inspector": "INS-all-day-01"}
    casino.inbox.put(AssignJob(job_id=job, members=pick), source="op")
    StepDriver.to(casino, 3 * 3600.0 + 1)
    rejected, accepted = sink.of(CommandRejected), sink.of(CommandAccepted)
    assert [r.reason for r in rejected] == [
        f"{job}: needs roles ['attendant', 'inspector'], given ['attendant']"
    ]
    assert [(r.command, r.number, r.t) for r in accepted] == [("assign_job", 2, 3 * 3600.0)]
    started = [r for r in sink.of(JobStarted) if r.job_id == job]
    assert [(r.by, r.t, r.members) for r in started] == [
        ("operator", 3 * 3600.0, ("ATT-all-day-01", "INS-all-day-01"))
    ]
    assert parse_command("assign_job", {"job_id": job, "members": pick}) == AssignJob(
        job_id=job, members=pick
    )


@pytest.mark.parametrize("path", sorted(SCENARIOS.glob("*.toml")), ids=lambda p: p.stem)
def test_every_shipped_scenario_runs(
    path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Scenario files are executable documentation: each one validates and runs (one whose
    machines are on SAS lines on a Mosquitto of its own, paced x600, its SMIBs the twin's
    reference ones)."""
    sc = load_scenario(path)
    if not sc.sas:
        result = api.run(path, hours=0.25, chain=False)
    else:
        from twin.hardware.mosquitto import TWIN_PASSWORD, TWIN_USER, Mosquitto

        monkeypatch.setenv("TWIN_SMIB_PASSWORD", "pw-{id}")  # the broker's SMIB passwords
        broker = Mosquitto(tmp_path, tuple(b.smib for b in sc.sas))
        broker.start()
        try:
            url = f"mqtt://{TWIN_USER}:{TWIN_PASSWORD}@{broker.host}:{broker.port}"
            result = api.run(path, hours=0.25, chain=False, hardware=url, driver=PacedDriver(600))
        finally:
            broker.kill()
        assert [f for f in result.findings if f["control"].startswith("HW.")] == []
    assert result.sim_seconds == 900.0 and result.kpis.visitors >= 0
    assert len(result.machines) == sc.machine_count


def test_a_bad_injection_from_outside_is_refused_not_raised() -> None:
    from twin.injections import InjectViolation

    sink = MemorySink()
    casino = Casino(load_scenario(TINY), sinks=[sink])
    casino.start()
    StepDriver.to(casino, 600.0)
    for cmd in (
        InjectViolation(kind="meter_skew", machine="A-001", meter="total_coins", amount=5),
        InjectViolation(kind="progressive_skim", machine="A-001", amount=5),
        InjectViolation(kind="warp_drive", machine="A-001"),
        InjectViolation(kind="no_serial", machine="A-001"),
        InjectViolation(kind="meter_skew", machine="A-001", meter="total_coin_in", amount=5),
    ):
        casino.inbox.put(cmd, source="rig")
    StepDriver.to(casino, 700.0)
    assert [r.reason for r in sink.of(CommandRejected)] == [
        "no meter 'total_coins' (a meter name such as total_coin_in, or bills_<cents>)",
        "A-001 is on no progressive link",
        "unknown injection 'warp_drive'",
        "no_serial changes the floor before it opens (t = 0 only)",
    ]
    assert [r.number for r in sink.of(CommandAccepted)] == [5]
