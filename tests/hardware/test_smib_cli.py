"""``twin smib emulate``: a bench of emulated SMIBs that the twin's link accepts."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from twin.hardware.records import SmibMeterReset, SmibOffline, SmibOnline, SmibReconciled

from .broker import Broker
from .rig import REGISTERED, Rig


def _twin(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "twin", *args], capture_output=True, text=True, timeout=120
    )


def test_smib_emulate_runs_a_bench_the_twin_reconciles(rig: Rig, broker: Broker) -> None:
    proc = _twin(
        "smib", "emulate", "--id", "S", "--count", "3", "--broker", broker.url,
        "--password", "pw-{id}", "--events", "12", "--rate", "200", "--misbehave",
        "duplicate=0.2,reorder=0.2",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert [line.split(":")[0] for line in proc.stdout.splitlines()] == list(REGISTERED)
    rig.until("three clean goodbyes", lambda: len(rig.of(SmibOffline)) == 3)
    rig.until("every event", lambda: all(rig.eids(s) == list(range(1, 13)) for s in REGISTERED))
    recs = rig.of(SmibReconciled)
    assert {r.smib for r in recs} == set(REGISTERED)
    assert all(r.ok for r in recs)
    assert rig.link.rejected.keys() <= {"duplicate"}


def test_smib_emulate_bad_input_is_one_line_and_exit_2() -> None:
    cases = {
        ("--broker", "http://h"): "twin: error: --broker: expected mqtt://host[:port] or "
        "mqtts://host[:port], found 'http://h'\n",
        ("--broker", "mqtt://h", "--misbehave", "fly=2"): "twin: error: smib emulate: "
        "Invalid value for --misbehave: 'fly=2': expected drop, duplicate, reorder, delay, "
        "reset_at, die_at, skew, short_credit, keep, drop_eids, cmd_delay, regress_at, "
        "regress_to, phantom_at or phantom_bytes=<value>\n",
        ("--broker", "mqtt://h", "--game", "/nowhere.toml"): "twin: error: /nowhere.toml: "
        "expected a readable PAR sheet file, found 'No such file or directory'\n",
    }
    for args, message in cases.items():
        proc = _twin("smib", "emulate", "--id", "S", *args)
        assert (proc.returncode, proc.stderr) == (2, message)


def test_smib_emulate_wrong_password_exits_1(broker: Broker) -> None:
    proc = _twin("smib", "emulate", "--id", "S-001", "--broker", broker.url, "--password", "x")
    assert proc.returncode == 1
    assert proc.stderr == (
        "twin: error: SMIB S-001: cannot connect to the broker (Not authorized)\n"
    )


def test_smib_emulate_reset_and_die_switches(rig: Rig, broker: Broker, tmp_path: Path) -> None:
    """The board dies after 6 activities (what it had not sent yet is lost on the wire, but
    kept in its state); started again on the same state, the twin gets every event once."""
    base = ("smib", "emulate", "--id", "S-001", "--broker", broker.url, "--password",
            "pw-S-001", "--rate", "200", "--state-dir", str(tmp_path))  # fmt: skip
    proc = _twin(*base, "--events", "20", "--misbehave", "reset_at=4,die_at=6")
    assert proc.returncode == 0, proc.stderr
    rig.until("the will", lambda: rig.of(SmibOffline) != [])
    assert [(r.bd, r.state) for r in rig.of(SmibOffline)] == [(1, "lost")]
    proc = _twin(*base, "--events", "2")
    assert proc.returncode == 0, proc.stderr
    # 6 activities and the reset's own event, then 2 more
    rig.until("events 1..9", lambda: rig.eids("S-001") == list(range(1, 10)))
    assert [r.new_epoch for r in rig.of(SmibMeterReset)] == [1]
    assert [r.bd for r in rig.of(SmibOnline)] == [1, 2]
    rig.until("the last snapshot", lambda: any(r.to_eid == 9 for r in rig.of(SmibReconciled)))
    # the machine's meters survived the SMIB's restart: every interval of epoch 1 reconciles
    assert [(r.epoch, r.ok) for r in rig.of(SmibReconciled)] == [(1, True), (1, True)]
