"""The whole casino on its default scenario (issue 10's "must show"), as a user runs it.

``twin run --days 7 --strict`` on the shipped default scenario: not one finding, every
department around the slot floor reporting its KPIs (entries refused by reason, table drop
and hold by game against theoretical, cage transactions by kind, drop variances, junket
turnover and commission), and the regulations' controls of regs 20-26 and 37-43 checked.
A week of the default floor takes about two minutes: it runs with the slow tests.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.slow


def test_a_week_of_the_default_casino_runs_clean_and_shows_every_department(
    tmp_path: Path,
) -> None:
    out = tmp_path / "week"
    p = subprocess.run(
        [sys.executable, "-m", "twin", "run", "--days", "7", "--strict", "--no-progress",
         "--out", str(out)],
        cwd=ROOT, capture_output=True, text=True, env={**os.environ}, timeout=1800,
    )  # fmt: skip
    assert p.returncode == 0, p.stdout + p.stderr
    s = json.loads((out / "summary.json").read_text())
    c = s["compliance"]
    assert c["findings"] == 0
    checked = set(c["by_control"])
    for reg in (*range(20, 27), *range(37, 44)):
        assert any(k.startswith(f"MT98.R{reg}") for k in checked), reg
    sec = s["kpis"]["sections"]
    door = sec["entrance"]
    assert door["refusals"] == sum(door["refusals_by_reason"].values()) > 0
    assert {"self_excluded", "barred"} <= set(door["refusals_by_reason"])
    games = sec["tables"]["games"]
    assert set(games) == {"roulette-single-zero", "punto-banco-8deck", "blackjack-infinite-s17-das"}
    for g in games.values():
        assert g["rounds"] > 0 and g["drop_cents"] > 0 and g["inside_band"]
    cage = sec["cage"]
    kinds = {k.split(":")[0] for k in cage["transactions_by_kind"]}
    assert {"buy_in", "redemption"} <= kinds
    assert set(cage["payments_accepted"]) == {"cheque", "credit_card", "debit_card"}
    assert cage["drop_count"]["containers"] > 0
    assert cage["drop_count"]["counted_cents"] == cage["drop_count"]["metered_cents"]
    junkets = sec["junkets"]
    assert junkets["junkets"] == junkets["settled"] == 1
    assert junkets["rolling_turnover_cents"] > 0 and junkets["commission_cents"] > 0
    for line in ("door (dragonara)", "tables punto-banco-8deck", "cage:", "junkets:"):
        assert line in p.stdout, line
