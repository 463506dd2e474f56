"""``twin smib emulate``: a bench of emulated SMIBs that the twin's link accepts."""

from __future__ import annotations

import subprocess
import sys

from twin.hardware.records import SmibOffline, SmibReconciled

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
        ("--broker", "mqtt://h", "--misbehave", "fly=2"): "twin: error: twin smib emulate: "
        "Invalid value for --misbehave: 'fly=2': expected drop, duplicate, reorder or "
        "delay=<number>\n",
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
