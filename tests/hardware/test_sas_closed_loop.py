"""The SAS loop closed for real: `twin run` with [[sas]] serves each machine on a pseudo-
terminal pair, starts the reference SMIB (`twin smib bridge`, a subprocess) on the other end,
and takes what it reports over a real Mosquitto. A clean run reconciles every exception and
meter; each fault on the machine's side gives exactly its finding."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from twin import api
from twin.drivers import PacedDriver
from twin.hardware.machine import SAS_ONLY
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


# -- the command line ---------------------------------------------------------------------------


def _twin(*args: str, env: dict[str, str] | None = None, **kw: object) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "twin", *args], cwd=REPO, text=True, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, env={**os.environ, **(env or {})}, **kw,  # type: ignore[arg-type]
    )  # fmt: skip


def _children(pid: int) -> list[int]:
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(stat.parent.name))
    return out


def test_twin_run_with_sas_lines_from_the_command_line(tmp_path: Path, broker: Broker) -> None:
    """`twin run` paced x300 on a 15-minute floor: the status lines name the SAS SMIB, the
    run's findings have no HW finding, and the reference SMIB is gone afterwards."""
    path = _faulty(tmp_path, "")
    out = tmp_path / "out"
    proc = _twin("run", str(path), "--hardware", _url(broker), "--pace", "300", "--out", str(out))
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 0, stderr[-2000:]
    assert "SMIB SAS-001 (A-001, sas): online" in stderr
    last = [ln for ln in stderr.splitlines() if ln.startswith("twin: SMIB SAS-001")][-1]
    assert re.search(r"SAS exceptions raised (\d+), read \1, at the host \1$", last), last
    findings = json.loads((out / "findings.json").read_text())
    assert [f for f in findings if f["control"].startswith("HW.")] == []
    by_control = json.loads((out / "summary.json").read_text())["compliance"]["by_control"]
    assert {c: by_control[c] for c in SAS_ONLY} == dict.fromkeys(SAS_ONLY, 0)  # checked, none
    assert _children(proc.pid) == []


def test_an_interrupted_sas_run_leaves_no_smib_running(tmp_path: Path, broker: Broker) -> None:
    path = _faulty(tmp_path, "")
    proc = _twin("run", str(path), "--hardware", _url(broker), "--out", str(tmp_path / "o"))
    deadline = time.monotonic() + 60
    bridges: list[int] = []
    while not bridges and time.monotonic() < deadline:  # the reference SMIB is started
        bridges = [
            c for c in _children(proc.pid) if b"bridge" in Path(f"/proc/{c}/cmdline").read_bytes()
        ]
        time.sleep(0.1)
    assert bridges
    time.sleep(3)  # online, the run paced x1
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr[-2000:]
    assert "interrupted" in stderr
    assert not any(Path(f"/proc/{b}").exists() for b in bridges)
    assert (tmp_path / "o.incomplete").is_dir() and not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    ("edit", "env", "message"),
    [
        (
            "",
            {"TWIN_SMIB_PASSWORD": ""},
            "environment: TWIN_SMIB_PASSWORD: expected the reference "
            "SMIBs' MQTT password ('{id}' in it is replaced by each SMIB's id), found 'nothing'",
        ),
        (
            'port = "/dev/ttyNOPE0"\nsmib_kind = "external"',
            {},
            "sas[0].port: expected a serial device that exists, found '/dev/ttyNOPE0'",
        ),
        (
            'port = "/dev/ttyNOPE0"',
            {},
            "sas[0].smib_port: expected the reference SMIB's end of "
            "the cable (smib_port) with a serial device, found 'nothing'",
        ),
    ],
    ids=["no-password", "no-device", "reference-on-a-device"],
)
def test_sas_bad_input_is_one_line_and_exit_2(
    tmp_path: Path, broker: Broker, edit: str, env: dict[str, str], message: str
) -> None:
    path = _faulty(tmp_path, "")
    path.write_text(path.read_text().replace("max_delay_s = 5.0\n", f"max_delay_s = 5.0\n{edit}\n"))
    proc = _twin("run", str(path), "--hardware", _url(broker), "--out", str(tmp_path / "o"),
                 env=env)  # fmt: skip
    _, stderr = proc.communicate(timeout=60)
    where = "" if message.startswith("environment") else f"{path}: "
    assert (proc.returncode, stderr.strip()) == (2, f"twin: error: {where}{message}")
    assert not (tmp_path / "o").exists()
