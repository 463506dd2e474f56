"""Simulation time never goes back: records come in seq order with non-decreasing times.

A machine's faults are drawn per kind; a fault due while the machine was being repaired for
another used to be scheduled with a negative delay, and the clock went back (found by the
viewer's replay). It now comes at once after the repair.
"""

from __future__ import annotations

import itertools
import tomllib
from pathlib import Path

import pytest
import simpy

from twin.casino import Casino
from twin.departments import parse_scenario
from twin.records import MemorySink
from twin.world import LateTimeout

TINY = Path(__file__).resolve().parents[1] / "scenarios" / "tiny.toml"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_records_never_go_back_in_time_when_faults_come_during_repairs(seed: int) -> None:
    data = tomllib.loads(TINY.read_text())
    data["scenario"]["seed"] = seed
    data["scenario"]["duration_hours"] = 6.0
    data["faults"] = {  # faults far more often than repairs take: they overlap
        "tilt_mtbf_hours": 0.3,
        "coin_in_jam_mtbf_hours": 0.3,
        "bill_jam_mtbf_hours": 0.3,
        "hopper_jam_mtbf_hours": 0.3,
        "door_checks_per_day": 20.0,
    }
    sink = MemorySink()
    Casino(parse_scenario(data, source=str(TINY), base_dir=TINY.parent), sinks=[sink]).run()
    times = [r.t for r in sink.records]
    assert len(times) > 100
    back = [(i, a, b) for i, (a, b) in enumerate(itertools.pairwise(times)) if b < a]
    assert back == []


def test_a_late_timeout_refuses_a_negative_delay() -> None:
    with pytest.raises(ValueError, match="negative delay"):
        LateTimeout(simpy.Environment(), -1.0)
