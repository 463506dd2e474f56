"""The table hold band's false-alarm rate, measured on the default pit (issue 10).

A game's counted win is checked against its theoretical win with a band from the variance
of the rounds played (``twin.pit.kpis.hold_band``, at the pit's ``hold_confidence``
of 0.99): on fair tables a game should fall outside about 1 % of the time. Measured here on
the default scenario's pit, arrivals and table share, over many seeds, one day each; the
slot banks are cut to one machine each (a visitor's choice of a table is drawn before any
slot play, on a stream of its own, so the pit's players are the default's; the lifecycle's
works, which name machines cut away, go), and the compliance engine is off (the band is a
KPI). The test fails (wrongly) with probability
P(Bin(300, 0.01) >= 10) = 0.07 % when the rate is exactly 1 %.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from scipy.stats import beta

from twin.casino import Casino
from twin.departments import load_scenario
from twin.metrics import Metrics
from twin.scenario import with_settings

ROOT = Path(__file__).resolve().parent.parent
RUNS = 100

pytestmark = pytest.mark.slow


def test_the_default_pits_hold_band_false_alarm_rate_is_about_its_1_percent() -> None:
    base = load_scenario(ROOT / "scenarios" / "default.toml")
    one_each = [(f"floor.banks[{i}].count", 1) for i in range(len(base.floor.banks))]
    one_each.append(("lifecycle.works", []))  # the week's works name machines cut away
    checked = alarms = 0
    for i in range(RUNS):
        sc = with_settings(base, [*one_each, ("scenario.seed", 1000 + i)])
        metrics = Metrics()
        Casino(sc, sinks=[metrics], compliance=False).run()
        games = metrics.kpis().sections["tables"]["games"]
        for g in games.values():
            if g["rounds"]:
                checked += 1
                alarms += not g["inside_band"]
    lo = beta.ppf(0.025, alarms, checked - alarms + 1) if alarms else 0.0
    hi = beta.ppf(0.975, alarms + 1, checked - alarms)
    print(
        f"table hold band (99 %): {alarms} of {checked} game-days outside "
        f"({alarms / checked:.2%}, Clopper-Pearson 95 % [{lo:.2%}, {hi:.2%}])"
    )
    assert checked == 3 * RUNS
    assert alarms <= 9
