"""The procedure suites for CI (``scenarios/suites/``), run as a lab runs them: pytest in a
subprocess, with ``--junitxml``; the report names each procedure's controls and findings."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from twin.casino import Casino
from twin.departments import load_scenario
from twin.hardware.mosquitto import smib_password
from twin.hardware.procedures import MachineActed, ProcedureBench
from twin.hardware.sas.station import PASSWORD_ENV

from .broker import TWIN_PASSWORD, TWIN_USER, Broker

REPO = Path(__file__).resolve().parents[2]
SUITES = REPO / "scenarios" / "suites"
PROCEDURES = ("bill_in_play_and_cash_out", "hopper_fill", "hand_pay", "door_opening", "power_loss")
#: The SAS loop's controls (a machine on a SAS line, issue 30).
SAS_CONTROLS = {
    "HW.sas_lost", "HW.sas_misreported", "HW.sas_meters", "HW.sas_late",
    "HW.sas_queue_overflow", "HW.sas_link_lost", "HW.sas_line",
}  # fmt: skip


def _pytest(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", str(SUITES), "-p", "no:cacheprovider", *args],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=REPO,
        env=env,
    )


def _cases(xml: Path) -> dict[str, tuple[bool, set[str], list[dict[str, object]]]]:
    """Each testcase: (failed, controls exercised, findings) from the JUnit report."""
    out = {}
    for tc in ET.parse(xml).getroot().iter("testcase"):
        props = {p.get("name"): p.get("value") or "" for p in tc.iter("property")}
        failed = tc.find("failure") is not None or tc.find("error") is not None
        out[tc.get("name", "")] = (
            failed,
            set(props.get("controls", "").split()),
            json.loads(props.get("findings", "[]")),
        )
    return out


def test_suite_against_three_emulated_smibs_one_misbehaving_junit_shows_findings(
    tmp_path: Path,
) -> None:
    xml = tmp_path / "suite.xml"
    proc = _pytest(f"--junitxml={xml}", "--misbehave", "S-003=skew=1")
    assert proc.returncode == 1, proc.stdout[-3000:]  # the misbehaving SMIB fails procedures
    cases = _cases(xml)
    assert set(cases) == {f"test_{p}[S-00{i}]" for p in PROCEDURES for i in (1, 2, 3)}
    for name, (failed, controls, findings) in cases.items():
        # every procedure names the controls it exercised: the link's and the regulation's
        assert {"HW.reconcile", "HW.identity", "MT98.S1.4b"} <= controls, name
        assert not {c for c in controls if c.startswith("HW.sas_")}, name  # no SAS line
        if "S-003" not in name:
            assert (failed, findings) == (False, []), name
    # the misbehaving machine counts one credit of coin-in per stretch that no game wagered:
    # every procedure that plays fails, with the meter and the reconciliation findings
    for p in ("bill_in_play_and_cash_out", "door_opening", "power_loss"):
        failed, controls, findings = cases[f"test_{p}[S-003]"]
        assert failed, p
        assert {f["control"] for f in findings} == {"MT98.S1.4b", "HW.reconcile"}, findings
        (reconcile,) = [f for f in findings if f["control"] == "HW.reconcile"]
        assert "total_coin_in: meters moved" in str(reconcile["message"])
        assert reconcile["subjects"] == ["S-003"]
    for p in ("hopper_fill", "hand_pay"):  # no game played: nothing to miscount
        assert cases[f"test_{p}[S-003]"][0] is False
    # procedure-specific controls: a fill is certified (7(a)), a hand pay too (8)
    assert "MT98.S1.7a" in cases["test_hopper_fill[S-001]"][1]
    assert "MT98.S1.8" in cases["test_hand_pay[S-001]"][1]
    assert "15 " in proc.stdout.splitlines()[-1] or "3 failed, 12 passed" in proc.stdout


def test_suite_against_connected_hardware(broker: Broker, tmp_path: Path) -> None:
    """``--hardware URL --smib ID --serial ID=SERIAL``: the suite runs against a SMIB that is
    already on the broker (here `twin smib emulate`, as a bench's board would be)."""
    bench = load_scenario(SUITES / "bench.toml", [("hardware[0].smib", "S-002")])
    hw = Casino(bench, compliance=False).hardware
    assert hw is not None
    serial = "LAB-BOARD-7"
    board = subprocess.Popen(
        [sys.executable, "-m", "twin", "smib", "emulate", "--id", "S-002", "--broker",
         broker.url, "--password", "pw-S-002", "--serial", serial, "--rate", "0.001"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        url = f"mqtt://{TWIN_USER}:{TWIN_PASSWORD}@{broker.host}:{broker.port}"
        xml = tmp_path / "lab.xml"
        proc = _pytest(f"--junitxml={xml}", "--hardware", url, "--smib", "S-002",
                       "--serial", f"S-002={serial}", "-k", "hopper_fill")  # fmt: skip
        assert proc.returncode == 0, proc.stdout[-3000:]
        cases = _cases(xml)
        assert list(cases) == ["test_hopper_fill[S-002]"]
        failed, controls, findings = cases["test_hopper_fill[S-002]"]
        assert (failed, findings) == (False, [])
        assert {"MT98.S1.7a", "HW.identity"} <= controls
        # without --serial the board's own serial is not the registered one: HW.identity
        proc = _pytest("--hardware", url, "--smib", "S-002", "-k", "hopper_fill")
        assert proc.returncode == 1
        assert "HW.identity: SMIB S-002 on machine A-001 reports serial 'LAB-BOARD-7'" in (
            proc.stdout
        )
    finally:
        board.kill()
        board.wait()


def test_suite_usage_errors_name_the_option() -> None:
    proc = _pytest("--hardware", "mqtt://127.0.0.1:1")
    assert proc.returncode in (2, 4)  # a usage error, before any procedure runs
    assert "--hardware: expected at least one --smib ID, found none" in proc.stdout + proc.stderr
    assert "passed" not in proc.stdout


def test_suite_on_a_sas_line_with_the_reference_smib(tmp_path: Path) -> None:
    """``--sas-port pty``: the bench's machine stays simulated and answers SAS on a pseudo-
    terminal; the twin starts the reference SMIB on the other end (its password from
    TWIN_SMIB_PASSWORD, the suite's own Mosquitto's), the machine does each bench command
    and the SMIB reports it: every procedure passes, names the machine's controls and the
    SAS loop's, and finds nothing."""
    xml = tmp_path / "sas.xml"
    proc = _pytest(f"--junitxml={xml}", "--sas-port", "pty",
                   env={**os.environ, PASSWORD_ENV: smib_password("{id}")})  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-3000:]
    cases = _cases(xml)
    assert set(cases) == {f"test_{p}[SAS-001]" for p in PROCEDURES}
    for name, (failed, controls, findings) in cases.items():
        assert (failed, findings) == (False, []), name
        assert {"HW.identity", "MT98.S1.4b", "MT98.S1.4a"} <= controls, name
        sas = {c for c in controls if c.startswith("HW.sas_")}
        if "hopper_fill" in name:  # no SAS exception for a fill: the SMIB reported no event
            assert sas == SAS_CONTROLS - {"HW.sas_misreported", "HW.sas_late",
                                          "HW.sas_link_lost"}  # fmt: skip
        else:
            assert sas == SAS_CONTROLS, name
    assert "MT98.S1.7a" in cases["test_hopper_fill[SAS-001]"][1]
    assert "MT98.S1.8" in cases["test_hand_pay[SAS-001]"][1]
    assert "5 passed" in proc.stdout.splitlines()[-1]


def test_suite_sas_port_usage_errors_name_the_option() -> None:
    """A serial device has a SMIB of one's own on it: the broker it reports to is needed."""
    proc = _pytest("--sas-port", "/dev/ttyUSB-nope")
    assert proc.returncode == 4  # pytest's usage error, before any procedure runs
    assert (
        "ERROR: --sas-port: a serial device ('/dev/ttyUSB-nope') has a SMIB of your own on it: "
        "expected --hardware URL (the broker it reports to) too, found none (or use "
        "--sas-port pty)"
    ) in proc.stderr
    assert "passed" not in proc.stdout
    proc = _pytest("--sas-port", "pty", "--misbehave", "SAS-001=skew=1")
    assert proc.returncode == 4
    assert "--misbehave: expected no --misbehave with --sas-port" in proc.stderr
    # the reference SMIB on another broker: its password must be given
    without = {k: v for k, v in os.environ.items() if k != PASSWORD_ENV}
    proc = _pytest("--sas-port", "pty", "--hardware", "mqtt://127.0.0.1:1", "--smib", "SAS-001",
                   env=without)  # fmt: skip
    assert proc.returncode == 4
    assert (
        "ERROR: --sas-port: the reference SMIB on a pty logs in to the --hardware broker with "
        "TWIN_SMIB_PASSWORD ('{id}': its id): expected it set, found none"
    ) in proc.stderr


def test_a_sas_bench_machine_acts_refuses_and_its_smib_reports_each_exception(
    broker: Broker, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In process, on the test broker: ``do`` makes the simulated machine act (a door open
    refuses play; a bill it does not take is refused; a power loss is repaired by a
    technician with the slot door open; no credits, no cash out) and returns once the
    reference SMIB has reported every exception the machine raised."""
    monkeypatch.setenv(PASSWORD_ENV, smib_password("{id}"))
    url = f"mqtt://{TWIN_USER}:{TWIN_PASSWORD}@{broker.host}:{broker.port}"
    bench = ProcedureBench(SUITES / "bench.toml", url, "SAS-001", sas_port="pty").start()
    try:
        assert bench.loop is not None and bench.machine == "A-001"
        tech = bench.on_duty("technician")
        done = [
            bench.do("open_door", door="slot", staff=tech),
            bench.do("play", games=2, bet_units=1),
            bench.do("credit_in", cents=700),
            bench.do("credit_in", cents=500),
            bench.do("close_door", door="slot", staff=tech),
            bench.do("play", games=2, bet_units=1),
            bench.do("power_loss", staff=tech),
            bench.do("cash_out"),
            bench.do("cash_out"),
        ]
        assert done == [
            MachineActed("open_door", "completed"),
            MachineActed("play", "rejected", "cannot play (door:slot)"),
            MachineActed("credit_in", "rejected", "bill 700 not accepted"),
            MachineActed("credit_in", "completed"),
            MachineActed("close_door", "completed"),
            MachineActed("play", "completed"),
            MachineActed("power_loss", "completed"),
            MachineActed("cash_out", "completed"),
            MachineActed("cash_out", "rejected", "no credits"),
        ]
        raised = bench.loop.view.snapshot()
        # slot door open, a $5 bill, door closed; AC power lost, the technician's door
        # opened, power applied, door closed; the cash out
        assert [r.code for r in raised] == [0x11, 0x48, 0x12, 0x18, 0x11, 0x17, 0x12, 0x66]
        assert all(r.reported is not None for r in raised)
        assert bench.loop.meters_agree()
        result = bench.finish()
    finally:
        bench.session.stop()
    assert result.findings == ()
    assert {"MT98.S1.4b", "HW.sas_lost", "HW.sas_meters"} <= set(result.controls)
