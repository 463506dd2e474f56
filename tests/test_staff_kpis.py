"""Staff KPIs from records: censored waits and utilisation with overtime, exactly."""

from __future__ import annotations

from collections.abc import Generator
from datetime import datetime, time
from typing import Any

import pytest
import simpy

from twin.clock import Clock
from twin.jobs import JobSpec
from twin.records import RecordBus
from twin.staff.dispatch import Dispatcher, Shift
from twin.staff.kpis import Spread, StaffKpis, spread
from twin.streams import Streams
from twin.world import World

H = 3600.0


def test_spread_without_censoring_is_the_empirical_quantile() -> None:
    """p-quantile = the smallest value whose empirical CDF reaches p."""
    got = spread([float(x) for x in range(1, 21)], [])
    assert got == Spread(done=20, open=0, p50=10.0, p95=19.0, max=20.0, max_open=False)


def test_open_jobs_are_right_censored_not_left_out() -> None:
    """Three done in 60 s; two still waiting after 600 s. Leaving the open ones out would
    give p95 = 60 s. Kaplan-Meier keeps them: 3 of 5 are done by 60 s (p50 = 60 s) and the
    other 2/5 of the mass lies beyond 600 s, so p95 is unknown (None) and the max (600 s) is
    only a lower bound (max_open)."""
    got = spread([60.0, 60.0, 60.0], [600.0, 600.0])
    assert got == Spread(done=3, open=2, p50=60.0, p95=None, max=600.0, max_open=True)
    only_open = spread([], [5.0])
    assert only_open == Spread(done=0, open=1, p50=None, p95=None, max=5.0, max_open=True)


def test_utilisation_counts_overtime_as_duty_and_busy() -> None:
    """One attendant and one inspector on a 10:00-11:00 shift from 10:00. A hand pay from
    10:30 takes 60 min: both work until 11:30 on 30 min of overtime. By 12:00 each was on
    duty 90 min (60 + 30 overtime) and busy 60 min: utilisation 2/3 exactly (it used to be
    30/60 = 1/2, the overtime dropped from both sides). A second job at 11:45 never starts
    (nobody on duty): open, censored at 15 min."""
    env = simpy.Environment()
    kpis = StaffKpis()
    world = World(
        env=env,
        clock=Clock(datetime(2026, 3, 2, 10, 0), "Europe/Malta"),
        streams=Streams(1),
        bus=RecordBus(lambda: env.now, [kpis]),
    )
    staff = Dispatcher(world)
    staff.enlist("ATT-s-01", "attendant", "s")
    staff.enlist("INS-s-01", "inspector", "s")
    env.process(staff.keep_roster([Shift("s", time(10), time(11), ("ATT-s-01", "INS-s-01"))]))

    def hand_pay(at: float, seconds: float) -> Generator[simpy.events.Event, Any, None]:
        yield env.timeout(at)
        h = staff.request(JobSpec("hand_pay", "M1", ("attendant", "inspector")))
        yield h.assigned
        yield env.timeout(seconds)
        staff.complete(h)

    env.process(hand_pay(0.5 * H, 1 * H))
    env.process(hand_pay(1.75 * H, 1 * H))
    env.run(until=2 * H)
    report = kpis.report(env.now)
    for role in ("attendant", "inspector"):
        r = report.roles[role]
        assert (r.members, r.duty_s, r.busy_s, r.overtime_s) == (1, 1.5 * H, 1 * H, 0.5 * H)
        assert r.utilisation == pytest.approx(0.6667, abs=0)
    hp = report.jobs["hand_pay"]
    assert (hp.requested, hp.completed, hp.open_waiting, hp.open_in_service) == (2, 1, 1, 0)
    assert hp.queue_wait == Spread(1, 1, 0.0, None, 900.0, True)
    assert hp.service == Spread(1, 0, 3600.0, 3600.0, 3600.0, False)
    assert hp.to_completion.max == 3600.0
