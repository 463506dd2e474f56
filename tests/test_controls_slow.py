"""Error rates of the statistical controls, measured over many seeded runs (slow).

False alarms: the fair floor of tests/data/controls.toml (14 machines, a day) over 100
seeds. The design rate is about q = 0.01 (randomness, Benjamini-Hochberg) + 0.001 (hold)
per run; measured: 0 alarming runs of 100. Allowing at most 5, the test fails by chance
with probability 9e-4 (binomial tail at p = 0.011).

Detection: each statistical violation over 30 seeds; the bounds are set below the rates
measured when the test was written (biased reel 30/30, halved pay table 30/30, a stop
that all but never lands 30/30, wager-dependent pays 26/30), so that a chance failure has
probability below 3e-4 each (binomial, taking the true rates as 29.5/30 and 26/30).
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from test_controls import CASES, FLOOR, GAMES, Case, classic_variant

from twin.casino import Casino
from twin.scenario import parse_scenario

pytestmark = pytest.mark.slow


def controls_found(tmp: Path, case: Case | None, seed: int) -> set[str]:
    data = tomllib.loads(FLOOR.read_text())
    data["scenario"]["seed"] = seed
    if case is not None:
        assert case.inject is not None and case.game is not None
        inj = dict(case.inject)
        inj["game"] = str(classic_variant(tmp, case.game, GAMES[case.game]))
        data["inject"] = [inj]
    casino = Casino(parse_scenario(data, source=str(FLOOR), base_dir=FLOOR.parent))
    casino.run()
    assert casino.compliance is not None
    return {f.control for f in casino.compliance.findings}


def test_a_fair_floor_rarely_raises_an_alarm(tmp_path: Path) -> None:
    alarms = [seed for seed in range(100, 200) if controls_found(tmp_path, None, seed)]
    assert len(alarms) <= 5, alarms


@pytest.mark.parametrize(
    ("case_id", "at_least"),
    [("S1.1b.ii", 26), ("S1.20f", 26), ("S1.1b.i", 26), ("S1.1b.iii", 19)],
)
def test_statistical_violations_are_detected(tmp_path: Path, case_id: str, at_least: int) -> None:
    case = CASES[case_id]
    found = sum(case.controls <= controls_found(tmp_path, case, seed) for seed in range(100, 130))
    assert found >= at_least, found
