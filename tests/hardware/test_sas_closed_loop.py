"""The SAS loop closed for real: `twin run` with [[sas]] serves each machine on a pseudo-
terminal pair, starts the reference SMIB (`twin smib bridge`, a subprocess) on the other end,
and takes what it reports over a real Mosquitto. A clean run reconciles every exception and
meter; each fault on the machine's side gives exactly its finding."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from twin import api
from twin.drivers import PacedDriver
from twin.hardware.records import SasLineClosed, SmibEvent, SmibOnline
from twin.records import MemorySink

from .broker import TWIN_PASSWORD, TWIN_USER, Broker
from .sasloop import sas_scenario

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _smib_password(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TWIN_SMIB_PASSWORD", "pw-{id}")  # the test broker's (smib_password)


def _url(broker: Broker) -> str:
    return f"mqtt://{TWIN_USER}:{TWIN_PASSWORD}@{broker.host}:{broker.port}"


def _run(path: Path, broker: Broker, pace: float) -> tuple[api.RunResult, MemorySink]:
    sink = MemorySink()
    result = api.run(path, hardware=_url(broker), driver=PacedDriver(pace), sinks=[sink])
    return result, sink


def _hw(result: api.RunResult) -> Counter[str]:
    return Counter(f["control"] for f in result.findings if f["control"].startswith("HW."))


def _closed(sink: MemorySink) -> list[SasLineClosed]:
    return [r for r in sink.records if isinstance(r, SasLineClosed)]


@pytest.mark.slow
def test_an_hour_on_four_machines_reconciles_end_to_end(broker: Broker) -> None:
    """scenarios/sas.toml: an hour of play on four machines (bills, cash outs, hand pays)
    at x120, each behind its reference SMIB: every exception the machines raised reached the
    host once, every meter the host held was the machine's, and nothing is found."""
    result, sink = _run(REPO / "scenarios" / "sas.toml", broker, 120)
    assert _hw(result) == Counter()
    closed = _closed(sink)
    assert sorted(c.machine for c in closed) == ["A-001", "A-002", "A-003", "A-004"]
    for c in closed:
        assert c.raised == c.delivered == c.reported > 5 and c.dropped == 0, c
        assert c.late == 0 and c.bad_crc == 0
    codes = {r.code for r in sink.records if isinstance(r, SmibEvent)}
    assert {0x66, 0x51, 0x52} <= codes and codes & {0x48, 0x49, 0x4A, 0x4B}
    assert 0x7F in codes  # play, seen on the meters
    online = [r for r in sink.records if isinstance(r, SmibOnline)]
    assert all(r.program.startswith("sas-rom-crc16:") for r in online)


def _faulty(tmp_path: Path, faults: str) -> Path:
    return sas_scenario(tmp_path, seconds=900, quick_patrons=True, arrivals=120, faults=faults)


@pytest.mark.parametrize(
    ("faults", "expected"),
    [
        ("", {}),
        ("noise = 0.05", {"HW.sas_line": 1}),
        ("reply_delay_ms = 30", {"HW.sas_line": 1}),
        ("silent_at_s = 300.0\nsilent_for_s = 180.0", {"HW.sas_link_lost": 1}),
        ("storm_at_s = 450.0\nstorm = 30", {"HW.sas_queue_overflow": 1}),
        ("smib_restart_at_s = 400.0\nsmib_down_s = 2.0", {}),
        ('tampered_program = "0badc0de"', {"HW.identity": 1}),
    ],
    ids=["clean", "noise", "slow", "silent", "overflow", "smib-restart", "tampered"],
)
def test_each_fault_gives_exactly_its_finding(
    tmp_path: Path, broker: Broker, faults: str, expected: dict[str, int]
) -> None:
    """15 simulated minutes at x60 on the tiny floor, A-001 on a pty line behind the reference
    SMIB, with one fault on the machine's side."""
    result, sink = _run(_faulty(tmp_path, faults), broker, 60)
    assert _hw(result) == Counter(expected), [f["message"] for f in result.findings]
    (c,) = _closed(sink)
    if "storm" in faults:
        assert c.dropped >= 10 and c.reported == c.delivered
    else:
        assert c.raised == c.delivered == c.reported and c.dropped == 0
    if "noise" in faults:
        assert c.bad_crc > 0
    if "reply_delay" in faults:
        assert c.late == c.replies > 0
    if "smib_restart" in faults:
        births = [r for r in sink.records if isinstance(r, SmibOnline)]
        assert len({r.bd for r in births}) == 2  # the board came back in a new session
