"""An honest floor over weeks: no finding from any control that is not a statistical test
(slow).

A control that checks records, money or deadlines has no error rate by design: on a floor
where nothing is injected it must never report. The statistical ones (randomness, the hold
test, the outcome tests of 1(c) and 1(e)) report an honest floor at their design rate and
are measured in ``test_controls_slow.py``; they are left out here. The seeds are fixed, so
the runs are deterministic: this is a regression guard over long runs, where rare meetings
of events happen (a tilt with credits on the machine across a gaming day's meter reading,
then a cash-out that runs the hopper dry: ``scenarios/aml.toml`` seed 4 reported a false
reg 36 and 4(d) breach on D-006 until the machine's meters changed only when a record said
so). Measured when written: 0 findings of any control, statistical ones included, on seeds
1-8 of ``aml.toml`` (14 days) and 11-13 of ``default.toml`` (7 days).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from twin import api
from twin.compliance.registry import Kind, registry

pytestmark = pytest.mark.slow

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"


def _statistical() -> frozenset[str]:
    specs = registry()
    return frozenset(
        cid
        for cid, s in specs.items()
        if s.kind == Kind.STATISTICAL
        or s.checker.__module__ in ("twin.compliance.checks.randomness",
                                    "twin.compliance.checks.outcomes")
    )  # fmt: skip


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_the_aml_floor_over_two_weeks_reports_nothing_but_chance(seed: int) -> None:
    result = api.run(SCENARIOS / "aml.toml", seed=seed, hours=14 * 24)
    chance = _statistical()
    assert {"MT98.S1.1b", "MT98.S1.1c", "MT98.S1.20f"} <= chance
    found = [(f["control"], f["message"]) for f in result.findings if f["control"] not in chance]
    assert found == []
