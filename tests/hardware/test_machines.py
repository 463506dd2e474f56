"""Hardware-backed machines in a run: mirror and drive, against a real Mosquitto.

Runs are paced against the wall clock (a few seconds of simulated time each).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import besides_absent_functions

from twin import api
from twin.casino import Casino
from twin.compliance.findings import Finding
from twin.drivers import FastDriver
from twin.hardware.emulator import Memory, Misbehaviour, SmibEmulator
from twin.hardware.link import Broker as Endpoint
from twin.hardware.link import close_socket
from twin.hardware.records import (
    SmibCommandResult,
    SmibEvent,
    SmibReconciled,
    SmibRequest,
)
from twin.machines.engine import PerSpinEngine, PlayRequest, PlayResult
from twin.machines.events import (
    BillAccepted,
    CashedOut,
    GamesPlayed,
    MachineException,
    MetersRead,
)
from twin.machines.machine import SlotMachine
from twin.machines.par import load_game
from twin.machines.sas import Door, MeterCode
from twin.records import MemorySink

from .broker import TWIN_PASSWORD, TWIN_USER, Broker, smib_password
from .floors import GAME, scenario
from .rig import PlayWhenOnline


def _url(broker: Broker) -> str:
    return f"mqtt://{TWIN_USER}:{TWIN_PASSWORD}@{broker.host}:{broker.port}"


def _serial(path: Path, smib: str) -> str:
    hw = Casino(api.prepare(path)).hardware
    assert hw is not None
    return hw.registry[smib].serial


@pytest.fixture
def emulators(broker: Broker) -> Iterator[list[SmibEmulator]]:
    made: list[SmibEmulator] = []
    yield made
    for emu in made:
        emu.client.disconnect()
        emu.client.loop_stop()
        close_socket(emu.client)


def _emulator(
    broker: Broker, made: list[SmibEmulator], smib: str, serial: str, **kw: Any
) -> SmibEmulator:
    emu = SmibEmulator(
        smib,
        Endpoint(broker.host, broker.port),
        smib_password(smib),
        load_game(GAME),
        serial=serial,
        memory=Memory(),
        **kw,
    )
    made.append(emu)
    emu.start()
    return emu


def test_a_scenario_binds_machines_to_smibs_before_t0(tmp_path: Path) -> None:
    path = scenario(tmp_path, seconds=5, bindings=(("A-001", "S-001", "mirror"),))
    casino = Casino(api.prepare(path))
    assert casino.hardware is not None
    assert [m.id for m in casino.machines] == ["A-002", "A-003", "A-004"]
    assert casino.hardware.registry["S-001"].machine == "A-001"
    assert casino.hardware.on_floor() == []  # mirror: real people play it, not patrons
    with pytest.raises(ConnectionError):
        api.run(path, hardware="mqtt://twin:x@127.0.0.1:1")


def test_mirror_machine_writes_what_a_simulated_machine_writes(
    tmp_path: Path, broker: Broker, emulators: list[SmibEmulator]
) -> None:
    path = scenario(tmp_path, seconds=6, bindings=(("A-001", "S-001", "mirror"),))
    emu = _emulator(broker, emulators, "S-001", _serial(path, "S-001"))
    sink = MemorySink()

    def play() -> None:
        emu.insert_bill(2000)
        for _ in range(3):
            emu.play(10)
        emu.open_door(tag={"staff": "T-bench"})
        emu.close_door(tag={"staff": "T-bench"})
        emu.cash_out()
        emu.send_meters()

    player = PlayWhenOnline("S-001", play)
    lines: list[list[str]] = []
    result = api.run(
        path, hardware=_url(broker), sinks=[sink, player], on_hardware_lines=lines.append
    )
    player.join()
    mine = [r for r in sink.records if getattr(r, "machine", None) == "A-001"]
    kinds = Counter(r.kind for r in mine)
    assert kinds["bill_accepted"] == 1 and kinds["games_played"] == 3
    assert kinds["cashed_out"] == 1 and kinds["machine_exception"] == 2
    assert kinds["meters_read"] >= 3  # birth, the bench's snapshot, the closing reading
    (bill,) = sink.of(BillAccepted)[:1]
    assert (bill.bill_cents, bill.credits) == (2000, 80)
    wagered = sum(g.wagered for g in sink.of(GamesPlayed) if g.machine == "A-001")
    last = [r for r in sink.of(MetersRead) if r.machine == "A-001"][-1]
    assert dict(last.meters)["total_coin_in"] == wagered == 30
    doors = [e for e in sink.of(MachineException) if e.machine == "A-001"]
    assert [(d.name, d.staff) for d in doors] == [
        ("slot_door_opened", "T-bench"),
        ("slot_door_closed", "T-bench"),
    ]
    assert all(r.ok for r in sink.of(SmibReconciled))
    assert [e.eid for e in sink.of(SmibEvent)] == list(range(1, 8))
    assert [f for f in result.findings if "A-001" in f["subjects"]] == []
    assert lines and "SMIB S-001 (A-001, mirror): online" in lines[-1][0]
    assert "reconciliation ok" in lines[-1][0]


def test_drive_patrons_play_the_real_machine_through_bench_commands(
    tmp_path: Path, broker: Broker, emulators: list[SmibEmulator]
) -> None:
    path = scenario(
        tmp_path,
        seconds=12,
        machines=1,
        arrivals=3000,
        quick_patrons=True,
        bindings=(("A-001", "S-001", "drive"),),
    )
    emu = _emulator(broker, emulators, "S-001", _serial(path, "S-001"))
    sink = MemorySink()
    result = api.run(path, hardware=_url(broker), sinks=[sink])
    plays = [r for r in sink.of(SmibRequest) if r.cmd == "play"]
    assert plays, "no patron played the machine"
    answered = {r.cmd_id for r in sink.of(SmibCommandResult) if r.result == "completed"}
    bench = [r for r in sink.of(SmibRequest) if r.cmd in ("credit_in", "play", "cash_out")]
    assert {r.cmd_id for r in bench} <= answered  # every bench command was applied, once
    games = sum(g.games for g in sink.of(GamesPlayed))
    assert games == emu.machine.meters[MeterCode.GAMES_PLAYED] > 0
    assert all(g.patron.startswith("P") for g in sink.of(GamesPlayed))
    paid = sum(c.credits for c in sink.of(CashedOut))
    assert paid == emu.machine.meters[MeterCode.TOTAL_CANCELLED_CREDITS]
    # the bench floor has no door check and no AML function (issue 25): those findings only
    assert [f["control"] for f in besides_absent_functions(result.findings)] == []


def test_drive_reports_that_the_commands_do_not_imply_are_found(
    tmp_path: Path, broker: Broker, emulators: list[SmibEmulator]
) -> None:
    """A bill acceptor that credits 3 credits less than each bill: the twin, which put the
    bill in, says so (HW.drive), and goes on from what the machine really shows."""
    path = scenario(
        tmp_path,
        seconds=10,
        machines=1,
        arrivals=3000,
        quick_patrons=True,
        bindings=(("A-001", "S-001", "drive"),),
    )
    emu = _emulator(broker, emulators, "S-001", _serial(path, "S-001"),
                    misbehave=Misbehaviour(short_credit=3))  # fmt: skip
    sink = MemorySink()
    result = api.run(path, hardware=_url(broker), sinks=[sink])
    bills = [b for b in sink.of(BillAccepted) if b.machine == "A-001"]
    assert bills, "no patron put a bill in"
    drive = [f for f in result.findings if f["control"] == "HW.drive"]
    assert len(drive) >= len(bills)
    assert all(f["subjects"] == ["A-001", "S-001"] for f in drive)
    assert any("gave" in f["message"] and "credits, not" in f["message"] for f in drive)
    # the cash-outs paid what the machine held: the twin followed the machine's meter
    paid = sum(c.credits for c in sink.of(CashedOut))
    assert paid == emu.machine.meters[MeterCode.TOTAL_CANCELLED_CREDITS]


# -- must show: mirror and simulated give the same findings for the same play ---------------------


def _stretches(n: int) -> list[PlayResult]:
    """Three stretches of ten games, drawn once, played on both machines."""
    engine = PerSpinEngine(load_game(GAME))
    rng = np.random.default_rng(8)
    out = []
    credits = 80
    for _ in range(n):
        r = engine.play(PlayRequest(credits=credits, bet_units=1, max_games=10), rng, rng)
        credits += r.won - r.wagered
        out.append(r)
    return out


def _play_simulated(casino: Casino, stretches: list[PlayResult]) -> None:
    """The same play on the casino's simulated A-001, at t = 1 s."""
    m = casino.machine("A-001")
    assert isinstance(m, SlotMachine)

    def script() -> Any:
        yield casino.env.timeout(1.0)
        m.insert_bill("", 2000)
        for r in stretches:
            m._commit("", r)
        m.open_door(Door.SLOT, "T-bench")
        m.close_door(Door.SLOT, "T-bench")
        m.accounts.tamper_meter(MeterCode.TOTAL_COIN_IN, 7)  # the fault: a meter skews
        yield from m.cash_out("")
        m.read_meters()

    casino.start()
    casino.env.process(script())


def _play_on_the_smib(emu: SmibEmulator, stretches: list[PlayResult]) -> None:
    emu.insert_bill(2000)
    for r in stretches:
        emu.record_games(r.games, r.wagered, r.won, r.games_won)
    emu.open_door(tag={"staff": "T-bench"})
    emu.close_door(tag={"staff": "T-bench"})
    emu.skew_meter("total_coin_in", 7)
    emu.cash_out(hopper_limit=400)
    emu.send_meters()


def _machine_findings(findings: list[Finding]) -> list[tuple[str, str, tuple[str, ...], str]]:
    """Control, severity, subjects and message of each finding of a machine control (not the
    link's, nor those of the functions the floor lacks: no AML function; nobody enters)."""
    return sorted(
        (f.control, f.severity, f.subjects, f.message)
        for f in besides_absent_functions(findings, entrants=False)
        if not f.control.startswith("HW.")
    )


def test_mirror_and_simulated_machine_give_the_same_findings_for_the_same_play(
    tmp_path: Path, broker: Broker, emulators: list[SmibEmulator]
) -> None:
    stretches = _stretches(3)
    plain = scenario(tmp_path, seconds=12, arrivals=0, faults=False, name="plain.toml")
    bound = scenario(
        tmp_path, seconds=12, arrivals=0, faults=False, bindings=(("A-001", "S-001", "mirror"),)
    )
    # the simulated machine
    simulated = Casino(api.prepare(plain), sinks=[sim_sink := MemorySink()])
    _play_simulated(simulated, stretches)
    simulated.run(driver=FastDriver())
    # the same machine behind an emulated SMIB, mirrored into a paced run
    emu = _emulator(broker, emulators, "S-001", _serial(bound, "S-001"))
    player = PlayWhenOnline("S-001", lambda: _play_on_the_smib(emu, stretches))
    hw_sink = MemorySink()
    api.run(bound, hardware=_url(broker), sinks=[hw_sink, player])
    player.join()

    sim_findings = sim_sink.of(Finding)
    hw_findings = hw_sink.of(Finding)
    expected = _machine_findings(sim_findings)
    assert expected, "the skewed meter must be found on the simulated machine"
    assert [c for c, _, _, _ in expected] == ["MT98.S1.4b"]  # the coin-in meter is off
    assert _machine_findings(hw_findings) == expected
    # ... and the link itself says the meters and the events disagree
    (reconcile,) = [f for f in hw_findings if f.control == "HW.reconcile"]
    assert "total_coin_in: meters moved" in reconcile.message
    # the records the controls read are the same activity
    for kind in (BillAccepted, GamesPlayed, CashedOut):
        sim = [(r.kind, getattr(r, "credits", None)) for r in sim_sink.of(kind)]
        hw = [(r.kind, getattr(r, "credits", None)) for r in hw_sink.of(kind)]
        assert sim == hw, kind
