"""Issue 29, "must show": ``twin run --hardware`` against ``twin smib emulate`` boards, each
misbehaving by one switch and logging what it sent (``--truth``); ``twin smib compare`` then
holds the ledger against each log: nothing missing, nothing doubled, nothing undeclared.

One run, six boards (real subprocesses, a real Mosquitto): a replay store of 1 with two
events dropped (the replay is answered ``failed``), a board that answers commands 6 s late
(its first requests expire), a board restored from an earlier backup (its counters go back),
a 2 MB phantom and a small phantom that take the next eid, and random drops, duplicates,
reordering and delays.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

from twin import api
from twin.casino import Casino

from .broker import TWIN_PASSWORD, TWIN_USER, Broker, smib_password, wait_until
from .floors import scenario

BOARDS = {
    "R-001": "keep=1,drop_eids=20-21",
    "R-002": "drop_eids=10,cmd_delay=6",
    "R-003": "regress_at=40,regress_to=15",
    "R-004": "phantom_at=20",
    "R-005": "phantom_at=20,phantom_bytes=300",
    "R-006": "drop=0.05,duplicate=0.05,reorder=0.05,delay=0.2",
}
EVENTS, RATE = 90, 8.0  # each board: about 11 s of play


def _twin(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "twin", *args], capture_output=True, text=True, timeout=120
    )


def _kinds(ledger: Path, kind: str) -> list[dict[str, object]]:
    with sqlite3.connect(ledger) as db:
        rows = db.execute("SELECT body FROM records WHERE kind = ?", (kind,)).fetchall()
    return [json.loads(body) for (body,) in rows]


def test_every_event_of_every_misbehaving_board_is_applied_once_or_declared(
    broker: Broker, tmp_path: Path
) -> None:
    bindings = tuple((f"A-{i:03d}", smib, "mirror") for i, smib in enumerate(BOARDS, start=1))
    path = scenario(tmp_path, seconds=32, machines=len(BOARDS), bindings=bindings)
    hw = Casino(api.prepare(path)).hardware
    assert hw is not None
    url = f"mqtt://{TWIN_USER}:{TWIN_PASSWORD}@{broker.host}:{broker.port}"
    out, err = tmp_path / "out", tmp_path / "run.err"
    with err.open("wb") as f:
        run = subprocess.Popen(
            [sys.executable, "-m", "twin", "run", str(path), "--hardware", url, "--out", str(out)],
            stdout=subprocess.DEVNULL,
            stderr=f,
        )
    boards: list[subprocess.Popen[str]] = []
    try:
        wait_until("the first status line", lambda: b"SMIB R-00" in err.read_bytes(), 30)
        for smib, switch in BOARDS.items():
            argv = [
                sys.executable, "-m", "twin", "smib", "emulate", "--id", smib,
                "--broker", broker.url, "--password", smib_password(smib),
                "--serial", hw.registry[smib].serial, "--events", str(EVENTS),
                "--rate", str(RATE), "--misbehave", switch,
                "--truth", str(tmp_path / f"{smib}.jsonl"),
            ]  # fmt: skip
            boards.append(
                subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            )
        for board in boards:
            _out, board_err = board.communicate(timeout=90)
            assert board.returncode == 0, board_err
        assert run.wait(timeout=90) == 0, err.read_text()
    finally:
        for proc in (run, *boards):
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    for smib in BOARDS:  # the ledger against what each board says it sent
        proc = _twin("smib", "compare", str(out), "--truth", str(tmp_path / f"{smib}.jsonl"))
        assert proc.returncode == 0, (smib, proc.stdout, proc.stderr)
        assert "nothing missing, nothing doubled, nothing undeclared" in proc.stdout
    ledger = out / "ledger.sqlite"
    lost = {(r["smib"], r["from_eid"], r["to_eid"]) for r in _kinds(ledger, "smib_events_lost")}
    # the replay answered `failed` (its store of 3 had moved on): 20..21 declared
    assert any(s == "R-001" and lo <= 20 and hi >= 21 for s, lo, hi in lost), lost
    # its first requests expired; asked again with a longer expiry, all applied
    assert not any(s == "R-002" for s, _lo, _hi in lost), lost
    r2 = [r["eid"] for r in _kinds(ledger, "smib_event") if r["smib"] == "R-002"]
    assert sorted(r2) == list(range(1, max(r2) + 1)) and max(r2) >= EVENTS - 5
    expired = [
        r for r in _kinds(ledger, "smib_command_result")
        if r["smib"] == "R-002" and r["result"] == "expired"
    ]  # fmt: skip
    assert expired, "R-002's first replay request should have expired"
    # its counters went back: a new series, whose events are applied
    (reset,) = _kinds(ledger, "smib_counters_reset")
    assert (reset["smib"], reset["series"], reset["last_eid"]) == ("R-003", 1, 15)
    assert any(r["smib"] == "R-003" and r["series"] == 1 for r in _kinds(ledger, "smib_event"))
    # the 2 MB phantom refused before it was parsed; R-005: the small one stood, the
    # real event is a conflict
    too_large = [r for r in _kinds(ledger, "smib_message_rejected") if r["reason"] == "too_large"]
    assert [r["smib"] for r in too_large] == ["R-004"]
    (conflict,) = _kinds(ledger, "smib_event_conflict")
    assert (conflict["smib"], conflict["eid"]) == ("R-005", 21)
    # requests stayed bounded: nothing like one a second for the rest of the run
    replays = [r for r in _kinds(ledger, "smib_request") if r["cmd"] == "replay_events"]
    per_board = {s: sum(r["smib"] == s for r in replays) for s in BOARDS}
    assert max(per_board.values()) <= 12, per_board
    findings = json.loads((out / "findings.json").read_text())
    controls = {(f["control"], f["subjects"][0]) for f in findings if f["control"].startswith("HW")}
    assert {("HW.events_lost", "R-001"), ("HW.counters_reset", "R-003"),
            ("HW.event_conflict", "R-005")} <= controls  # fmt: skip
    closed = {r["smib"]: r for r in _kinds(ledger, "smib_closed")}
    assert set(closed) == set(BOARDS)


def test_a_twin_started_again_resumes_from_its_earlier_ledger(
    broker: Broker, tmp_path: Path
) -> None:
    """The twin's own restart: a first run ends while the board plays on; a second run
    ``--resume``s from the first one's folder and asks the board for what came after: the
    two ledgers hold every event once."""
    bindings = (("A-001", "S-001", "mirror"),)
    first_sc = scenario(tmp_path, seconds=6, bindings=bindings, name="first.toml")
    second_sc = scenario(tmp_path, seconds=14, bindings=bindings, name="second.toml")
    hw = Casino(api.prepare(first_sc)).hardware
    assert hw is not None
    url = f"mqtt://{TWIN_USER}:{TWIN_PASSWORD}@{broker.host}:{broker.port}"
    first, second, err = tmp_path / "first", tmp_path / "second", tmp_path / "run.err"
    twin = [sys.executable, "-m", "twin", "run"]
    with err.open("wb") as f:
        run = subprocess.Popen([*twin, str(first_sc), "--hardware", url, "--out", str(first)],
                               stdout=subprocess.DEVNULL, stderr=f)  # fmt: skip
    wait_until("the first status line", lambda: b"SMIB S-001" in err.read_bytes(), 30)
    argv = [
        sys.executable, "-m", "twin", "smib", "emulate", "--id", "S-001", "--broker",
        broker.url, "--password", smib_password("S-001"), "--serial", hw.registry["S-001"].serial,
        "--events", "60", "--rate", "4", "--truth", str(tmp_path / "S-001.jsonl"),
    ]  # fmt: skip
    board = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert run.wait(timeout=60) == 0, err.read_text()
        again = _twin("run", str(second_sc), "--hardware", url, "--out", str(second),
                      "--resume", str(first))  # fmt: skip
        assert again.returncode == 0, again.stderr
        _out, board_err = board.communicate(timeout=60)
        assert board.returncode == 0, board_err
    finally:
        for proc in (run, board):
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    eids = [
        r["eid"]
        for folder in (first, second)
        for r in _kinds(folder / "ledger.sqlite", "smib_event")
    ]
    assert sorted(eids) == list(range(1, 61))  # every event once, across the restart
    requests = _kinds(second / "ledger.sqlite", "smib_request")
    assert [r["cmd"] for r in requests][:2] == ["rebirth", "replay_events"]
    resumed_from = max(r["eid"] for r in _kinds(first / "ledger.sqlite", "smib_event"))
    assert json.loads(str(requests[1]["args"]))["from_eid"] == resumed_from + 1
