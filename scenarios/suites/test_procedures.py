"""Procedures a test lab runs on a SMIB and its machine before it goes on a floor.

Each runs on the bench (``conftest.py``): bench commands make the machine act, the twin's
controls check what the SMIB reports, and the result names the controls exercised and
their findings (JUnit properties ``controls`` and ``findings``).
"""

from __future__ import annotations

from collections.abc import Callable

from twin.hardware.procedures import ProcedureBench, ProcedureResult

Report = Callable[[ProcedureResult], None]


def test_bill_in_play_and_cash_out(bench: ProcedureBench, report: Report) -> None:
    """A patron's session: a bill, twenty games, a cash out; the meters must account for it."""
    bench.do("credit_in", cents=2000)
    bench.do("play", games=20, bet_units=1)
    bench.do("cash_out")
    bench.read_meters()
    report(bench.finish())


def test_hopper_fill(bench: ProcedureBench, report: Report) -> None:
    """An attendant fills the hopper, a Board inspector certifies the count."""
    bench.do("fill_hopper", coins=100, staff=bench.on_duty("attendant"),
             witness=bench.on_duty("inspector"))  # fmt: skip
    bench.read_meters()
    report(bench.finish())


def test_hand_pay(bench: ProcedureBench, report: Report) -> None:
    """A cash out above the hopper-pay limit: the credits are paid by hand, certified."""
    bench.do("credit_in", cents=5000)
    bench.do("cash_out", limit=0, staff=bench.on_duty("attendant"),
             witness=bench.on_duty("inspector"))  # fmt: skip
    bench.read_meters()
    report(bench.finish())


def test_door_opening(bench: ProcedureBench, report: Report) -> None:
    """A technician opens the slot door and closes it; play is disabled meanwhile."""
    tech = bench.on_duty("technician")
    bench.do("open_door", door="slot", staff=tech)
    refused = bench.do("credit_in", cents=500)  # the bill goes in; play would not
    assert refused.result in ("completed", "rejected")
    bench.do("close_door", door="slot", staff=tech)
    bench.do("play", games=2, bet_units=1)
    bench.do("cash_out")
    bench.read_meters()
    report(bench.finish())


def test_power_loss(bench: ProcedureBench, report: Report) -> None:
    """Power is lost and restored: the games-since-power-up meter restarts, nothing else."""
    bench.do("credit_in", cents=1000)
    bench.do("play", games=5, bet_units=1)
    bench.do("power_loss", staff=bench.on_duty("technician"))
    bench.do("play", games=5, bet_units=1)
    bench.do("cash_out")
    bench.read_meters()
    report(bench.finish())
