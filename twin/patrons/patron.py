"""Patrons: who arrives when, what they bring, and how they play a session.

Arrivals follow a non-homogeneous Poisson process with a piecewise-constant rate per local
hour (exact: the exponential is memoryless, so a draw that crosses an hour boundary is
discarded and drawn again at the new rate). Each patron's attributes come from the patron's
own stream, so adding a patron changes no machine's outcomes.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Generator
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING, Any

import numpy as np
import simpy

from twin.patrons.events import PatronArrived, PatronLeft, SessionStarted
from twin.world import quantize

if TYPE_CHECKING:
    from twin.casino import Casino
    from twin.scenario import Segment

Proc = Generator[simpy.events.Event, Any, Any]


@dataclass(frozen=True, slots=True)
class PatronPlan:
    """What a patron brings and intends, drawn once on arrival."""

    segment: str
    bankroll_cents: int
    session_seconds: float
    pace: float
    bet_units: int
    loss_limit_share: float
    win_goal_multiple: float
    pays_with_bills: bool
    zones: frozenset[str]


def draw_plan(seg: Segment, rng: np.random.Generator) -> PatronPlan:
    return PatronPlan(
        segment=seg.name,
        bankroll_cents=max(0, round(seg.bankroll_cents.sample(rng))),
        session_seconds=quantize(max(0.0, seg.session_minutes.sample(rng)) * 60.0),
        pace=max(quantize(seg.spin_seconds.sample(rng)), 1 / 64),
        bet_units=max(1, round(seg.bet_units.sample(rng))),
        loss_limit_share=seg.loss_limit_share,
        win_goal_multiple=seg.win_goal_multiple,
        pays_with_bills=bool(rng.random() < seg.pays_with_bills_share),
        zones=frozenset(seg.zones),
    )


class Patron:
    def __init__(self, casino: Casino, pid: str, plan: PatronPlan, rng: np.random.Generator):
        self.casino = casino
        self.id = pid
        self.plan = plan
        self.rng = rng

    def visit(self) -> Proc:
        """Arrive, find a machine (or give up), buy in, play, cash out, leave."""
        casino = self.casino
        world = casino.world
        bus = world.bus
        plan = self.plan
        bus.emit(
            PatronArrived, patron=self.id, segment=plan.segment, bankroll_cents=plan.bankroll_cents
        )
        patience = casino.scenario.patrons.max_wait_minutes * 60.0
        machine = yield from casino.floor.find_machine(
            self.id, plan.zones, quantize(patience), self.rng
        )
        if machine is None:
            bus.emit(PatronLeft, patron=self.id, machine="", reason="no_machine", spent_cents=0)
            return
        denom = machine.spec.denomination_cents
        spent = self.buy_in(machine)
        start_credits = machine.accounts.credits
        if start_credits == 0:
            casino.floor.release(machine)
            bus.emit(
                PatronLeft, patron=self.id, machine=machine.id, reason="no_credits", spent_cents=0
            )
            return
        env = world.env
        until = env.now + plan.session_seconds
        closing = casino.closing_after(env.now)
        until = min(until, closing)
        loss_limit = int(start_credits * plan.loss_limit_share)
        goal = int(start_credits * plan.win_goal_multiple)
        bus.emit(
            SessionStarted,
            patron=self.id,
            machine=machine.id,
            bet_units=plan.bet_units,
            pace_seconds=plan.pace,
            planned_end_t=until,
        )
        paid = yield from machine.play_session(
            self.id,
            bet_units=plan.bet_units,
            pace=plan.pace,
            until=until,
            floor_credits=start_credits - loss_limit,
            goal_credits=max(goal, start_credits + 1),
        )
        casino.floor.release(machine)
        bus.emit(
            PatronLeft,
            patron=self.id,
            machine=machine.id,
            reason="done",
            spent_cents=spent - paid * denom,
        )

    def buy_in(self, machine: Any) -> int:
        """Feed the machine: bills largest first where it takes them, the rest in coins."""
        spec = machine.spec
        denom = spec.denomination_cents
        left = self.plan.bankroll_cents
        spent = 0
        if self.plan.pays_with_bills and spec.bill_acceptor:
            for bill in sorted(spec.bill_denominations_cents, reverse=True):
                while left >= bill:
                    machine.insert_bill(self.id, bill)
                    left -= bill
                    spent += bill
        if spec.coin_acceptor:
            coins = left // denom
            if coins:
                machine.insert_coins(self.id, coins)
                spent += coins * denom
        return spent


class Arrivals:
    """Generates patrons at the scenario's hourly rates while the casino is open."""

    def __init__(self, casino: Casino) -> None:
        self.casino = casino
        self.rng = casino.world.streams.stream("arrivals", "times")
        self.count = 0
        self._segments = casino.scenario.patrons.segments
        self._cum_shares = list(itertools.accumulate(s.share for s in self._segments))

    def arrive(self) -> Proc:
        casino = self.casino
        world = casino.world
        env = world.env
        clock = world.clock
        rates = casino.scenario.patrons.arrivals_per_hour
        while True:
            local = clock.at(env.now)
            top = local.replace(minute=0, second=0, microsecond=0) + timedelta(hours=1)
            boundary = clock.seconds(top)
            rate = rates[local.hour] / 3600.0 if clock.is_open(env.now) else 0.0
            if rate > 0:
                gap = quantize(self.rng.exponential(1.0 / rate))
                if env.now + gap < boundary:
                    yield env.timeout(gap)
                    self.spawn()
                    continue
            yield env.timeout(boundary - env.now)

    def spawn(self) -> None:
        casino = self.casino
        self.count += 1
        pid = f"P{self.count:06d}"
        rng = casino.world.streams.fresh(pid, "attributes")
        segs = self._segments
        seg = segs[
            min(
                bisect.bisect_right(self._cum_shares, rng.random() * self._cum_shares[-1]),
                len(segs) - 1,
            )
        ]
        plan = draw_plan(seg, rng)
        casino.world.env.process(Patron(casino, pid, plan, rng).visit())
