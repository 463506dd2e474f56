"""``twin run SCENARIO --hardware URL``: real subprocesses (a broker, SMIB emulators, the run)."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from twin import api
from twin.casino import Casino

from .broker import TWIN_PASSWORD, TWIN_USER, Broker, wait_until
from .floors import REPO, scenario


def _twin(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "twin", *args], capture_output=True, text=True, timeout=timeout
    )


def _popen(*args: str, err: Path) -> subprocess.Popen[bytes]:
    with err.open("wb") as f:
        return subprocess.Popen(
            [sys.executable, "-m", "twin", *args], stdout=subprocess.DEVNULL, stderr=f
        )


def test_twin_run_hardware_shows_a_live_line_per_smib(broker: Broker, tmp_path: Path) -> None:
    path = scenario(
        tmp_path,
        seconds=14,
        bindings=(("A-001", "S-001", "mirror"), ("A-002", "S-002", "mirror")),
    )
    hw = Casino(api.prepare(path)).hardware
    assert hw is not None
    url = f"mqtt://{TWIN_USER}:{TWIN_PASSWORD}@{broker.host}:{broker.port}"
    out = tmp_path / "out"
    err = tmp_path / "run.err"
    run = _popen("run", str(path), "--hardware", url, "--out", str(out), err=err)
    try:
        wait_until("the first status line", lambda: b"SMIB S-00" in err.read_bytes(), 30)
        emulate = ("smib", "emulate", "--broker", broker.url, "--events", "15", "--rate", "6")
        # S-001 is the registered machine; S-002 reports another serial (HW.identity); the two
        # boards play at once, as on a floor (one after the other, a loaded machine could end
        # the 14-second run before the second said goodbye)
        boards = [
            subprocess.Popen(
                [sys.executable, "-m", "twin", *emulate, *extra],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for extra in (
                (
                    "--id",
                    "S-001",
                    "--password",
                    "pw-S-001",
                    "--serial",
                    hw.registry["S-001"].serial,
                ),
                ("--id", "S-002", "--password", "pw-S-002", "--seed", "2"),
            )
        ]
        for board in boards:
            _out, board_err = board.communicate(timeout=60)
            assert board.returncode == 0, board_err
        assert run.wait(timeout=60) == 0, err.read_text()
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    text = err.read_text()
    lines = [line for line in text.splitlines() if line.startswith("twin: SMIB ")]
    assert any("SMIB S-001 (A-001, mirror): online, last message" in x for x in lines)
    assert any("SMIB S-002 (A-002, mirror): online" in x for x in lines)
    # after their clean goodbye the lines say so, with every event and reconciled meters
    last = {line.split()[2]: line for line in lines}
    for smib in ("S-001", "S-002"):
        assert f"SMIB {smib}" in last[smib] and "OFFLINE" in last[smib], last[smib]
        assert "events 15" in last[smib] and "reconciliation ok" in last[smib], last[smib]
        assert " lag " in last[smib]
    findings = json.loads((out / "findings.json").read_text())
    hw_findings = [(f["control"], f["subjects"]) for f in findings if f["control"].startswith("HW")]
    assert hw_findings == [("HW.identity", ["S-002"])]
    with sqlite3.connect(out / "ledger.sqlite") as db:
        rows = db.execute("SELECT body FROM records WHERE kind = 'smib_event'").fetchall()
        mirrored = db.execute(
            "SELECT count(*) FROM records WHERE kind = 'games_played' AND body LIKE '%A-00_\"%'"
        ).fetchone()
    eids: dict[str, list[int]] = {}
    for (body,) in rows:
        doc = json.loads(body)
        eids.setdefault(doc["smib"], []).append(doc["eid"])
    assert eids == {"S-001": list(range(1, 16)), "S-002": list(range(1, 16))}
    assert mirrored[0] > 0


def test_twin_run_hardware_bad_input_is_one_line_and_exit_2(tmp_path: Path) -> None:
    bound = scenario(tmp_path, seconds=5, bindings=(("A-001", "S-001", "mirror"),))
    plain = scenario(tmp_path, seconds=5, name="plain.toml")
    wrong = scenario(tmp_path, seconds=5, bindings=(("A-009", "S-001", "drive"),), name="w.toml")
    cases = [
        (("run", str(bound)), f"{bound}: hardware: expected --hardware mqtt://host:port for its "
         "SMIBs, found '1 machine(s) bound to SMIBs and no broker'"),
        (("run", str(plain), "--hardware", "mqtt://127.0.0.1:1"), f"{plain}: hardware: expected "
         "[[hardware]] or [[sas]] bindings for --hardware, found 'none'"),
        (("run", str(bound), "--hardware", "http://x"), "--hardware: expected "
         "mqtt://[user:password@]host[:port], found 'http://x'"),
        (("run", str(wrong), "--hardware", "mqtt://127.0.0.1:1"), f"{wrong}: hardware[0].machine: "
         "expected the id of a machine on the floor (e.g. A-001), found 'A-009'"),
        (("run", str(bound), "--hardware", "mqtt://127.0.0.1:1", "--pace", "10"),
         "command line: --pace: expected 1 (or nothing) with --hardware and [[hardware]], found "
         "10.0"),
    ]  # fmt: skip
    for args, message in cases:
        proc = _twin(*args, "--out", str(tmp_path / "o"))
        assert (proc.returncode, proc.stderr) == (2, f"twin: error: {message}\n"), args


def test_twin_run_hardware_without_a_broker_exits_1(tmp_path: Path) -> None:
    bound = scenario(tmp_path, seconds=5, bindings=(("A-001", "S-001", "mirror"),))
    t0 = time.monotonic()
    proc = _twin("run", str(bound), "--hardware", "mqtt://twin:x@127.0.0.1:1", "--out",
                 str(tmp_path / "o"))  # fmt: skip
    assert proc.returncode == 1
    assert proc.stderr.startswith("twin: error: cannot connect to the MQTT broker at 127.0.0.1:1")
    assert "Traceback" not in proc.stderr
    assert time.monotonic() - t0 < 60


def test_twin_controls_lists_the_hardware_findings_each_with_its_test() -> None:
    from twin.hardware.findings import CATALOG

    text = _twin("controls").stdout
    assert "Findings of the hardware link" in text
    doc = json.loads(_twin("controls", "--json").stdout)
    assert doc["total"] == 149  # the regulation's catalogue is unchanged
    ids = [h["id"] for h in doc["hardware"]]
    assert ids == [h.id for h in CATALOG]
    assert {"HW.reconcile", "HW.identity", "HW.drive", "HW.par"} <= set(ids)
    for h in doc["hardware"]:
        assert h["id"] in text
        path, _, name = h["test"].partition("::")
        assert f"def {name}(" in (REPO / path).read_text(), h["test"]


def test_twin_run_resume_bad_input_is_one_line_and_exit_2(tmp_path: Path) -> None:
    bound = scenario(tmp_path, seconds=5, bindings=(("A-001", "S-001", "mirror"),))
    plain = scenario(tmp_path, seconds=5, name="plain.toml")
    empty = tmp_path / "empty"
    empty.mkdir()
    url = "mqtt://127.0.0.1:1"
    cases = [
        (("run", str(plain), "--resume", str(empty)), f"--resume: expected --hardware with it "
         f"(a run of SMIBs), found '{empty}'"),
        (("run", str(bound), "--hardware", url, "--resume", str(empty)), "--resume: expected a "
         f"run folder holding ledger.sqlite, or a ledger file, found '{empty}'"),
    ]  # fmt: skip
    for args, message in cases:
        proc = _twin(*args, "--out", str(tmp_path / "o"))
        assert (proc.returncode, proc.stderr) == (2, f"twin: error: {message}\n"), args
    proc = _twin("run", str(bound), "--hardware", url, "--resume", str(bound))  # not a ledger
    assert proc.returncode == 2 and proc.stderr.startswith(f"twin: error: {bound}"), proc.stderr
    assert "Traceback" not in proc.stderr
