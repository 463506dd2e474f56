"""Patrons: who arrives when, who of the population it is, and how they play a visit.

Arrivals follow a non-homogeneous Poisson process with a piecewise-constant rate per local
hour (exact: the exponential is memoryless, so a draw that crosses an hour boundary is
discarded and drawn again at the new rate), on the stream ("arrivals", "times"). Each
arrival is a member of the population not inside at the time, picked in proportion to the
member's visit propensity on the stream ("arrivals", "who"). The visit's plan is drawn from
the member's segment on the member's own stream for that visit, ``(member id,
"visit:<n>")``, so a member's draws depend on no one else and adding a patron changes no
machine's outcomes.

Patrons see the casino only through ``twin.patrons.venue.Venue`` and machines only through
``twin.machines.protocol.Machine``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Generator
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, TypeGuard

import numpy as np
import simpy

from twin.machines.protocol import Machine
from twin.patrons.population import Member, Population, member_id
from twin.patrons.records import PatronArrived, PatronLeft, SessionStarted
from twin.patrons.section import PatronsConfig, Segment
from twin.patrons.venue import Hall, Venue
from twin.world import World, quantize

Proc = Generator[simpy.events.Event, Any, Any]

_HALLS: dict[type, bool] = {}


def _is_hall(venue: Venue) -> TypeGuard[Hall]:
    """``isinstance(venue, Hall)``, answered once per class: a runtime protocol check
    inspects every member each time (it cost ~3 % of a default day, one per visit)."""
    cls = type(venue)
    known = _HALLS.get(cls)
    if known is None:
        known = _HALLS[cls] = isinstance(venue, Hall)
    return known


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


#: each segment's zones as one shared frozenset (its hash worked out once)
_ZONE_SETS: dict[tuple[str, ...], frozenset[str]] = {}


def _zone_set(zones: tuple[str, ...]) -> frozenset[str]:
    got = _ZONE_SETS.get(zones)
    if got is None:
        got = _ZONE_SETS[zones] = frozenset(zones)
    return got


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
        zones=_zone_set(seg.zones),
    )


class ClosingTimes:
    """``venue.closing_after`` remembered: the answer for ``t`` holds until that closing.

    ``closing_after(t)`` is the first closing strictly after ``t``; for any ``t'`` with
    ``t <= t' < closing_after(t)`` there is no closing in ``(t, t']``, so the answer is the same.
    """

    __slots__ = ("_after", "_from", "_venue")

    def __init__(self, venue: Venue) -> None:
        self._venue = venue
        self._from = float("inf")  # the answer below holds for [_from, _after)
        self._after = float("-inf")

    def __call__(self, t: float) -> float:
        if not self._from <= t < self._after:
            self._from = t
            self._after = self._venue.closing_after(t)
        return self._after


class Patron:
    """One visit of one member: arrive, find a machine (or give up), play, leave."""

    def __init__(
        self,
        world: World,
        venue: Venue,
        population: Population,
        index: int,
        visit_number: int,
        plan: PatronPlan,
        rng: np.random.Generator,
        patience: float,
        closing: Callable[[float], float] | None = None,
    ) -> None:
        self.world = world
        self.venue = venue
        self.population = population
        self.index = index
        self.member: Member = population.member(index)
        self.id = self.member.id
        self.visit_number = visit_number
        self.plan = plan
        self.rng = rng
        self.patience = patience
        self.closing_after = venue.closing_after if closing is None else closing
        self.hall: Hall | None = venue if _is_hall(venue) else None

    def visit(self) -> Proc:
        """The whole visit: the member is inside from arrival until leaving the floor."""
        member = self.member
        self.world.bus.emit(
            PatronArrived,
            patron=self.id,
            segment=self.plan.segment,
            bankroll_cents=self.plan.bankroll_cents,
            visit=self.visit_number,
            residency=member.residency,
        )
        hall = self.hall
        if hall is None:
            yield from self.play_visit()
        elif (yield from hall.admit(self)):
            yield from hall.before_play(self)
            if not (yield from hall.play_elsewhere(self)):
                yield from self.play_visit()
            yield from hall.after_play(self)
        self.population.leave(self.index)

    def play_visit(self) -> Proc:
        """Find a machine (or give up), buy in, play, cash out."""
        world = self.world
        floor = self.venue.floor
        bus = world.bus
        plan = self.plan
        machine = yield from floor.find_machine(self.id, plan.zones, self.patience, self.rng)
        if machine is None:
            bus.emit(PatronLeft, patron=self.id, machine="", reason="no_machine", spent_cents=0)
            return
        denom = machine.spec.denomination_cents
        spent = self.buy_in(machine)
        start_credits = machine.accounts.credits
        if start_credits == 0:
            floor.release(machine)
            bus.emit(
                PatronLeft, patron=self.id, machine=machine.id, reason="no_credits", spent_cents=0
            )
            return
        env = world.env
        until = env.now + plan.session_seconds
        closing = self.closing_after(env.now)
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
        floor.release(machine)
        bus.emit(
            PatronLeft,
            patron=self.id,
            machine=machine.id,
            reason="done",
            spent_cents=spent - paid * denom,
        )

    def buy_in(self, machine: Machine) -> int:
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
    """Brings members of the population in at the scenario's hourly rates while open.

    ``count`` is the number of visits begun; ``unmatched`` counts arrival instants at which
    every member who could come was already inside (nobody came).
    """

    def __init__(
        self, world: World, venue: Venue, config: PatronsConfig, population: Population
    ) -> None:
        self.world = world
        self.venue = venue
        self.config = config
        self.population = population
        self.rng = world.streams.stream("arrivals", "times")
        self.who = world.streams.stream("arrivals", "who")
        self.patience = quantize(config.max_wait_minutes * 60.0)
        self.closing = ClosingTimes(venue)
        self.count = 0
        self.unmatched = 0

    def arrive(self) -> Proc:
        """Poisson arrival instants, hour by hour of local time; nobody while closed."""
        world = self.world
        env = world.env
        clock = world.clock
        rates = self.config.arrivals_per_hour
        # the local hour's end and rate, worked out at its first instant and kept until that
        # end: any later instant before it has the same local hour, and so the same answers
        # (a DST change falls on an hour's end; a repeated hour ends once, at its second end)
        boundary = -math.inf
        hour_rate = 0.0
        while True:
            if env.now >= boundary:
                local = clock.at(env.now)
                top = local.replace(minute=0, second=0, microsecond=0) + timedelta(hours=1)
                boundary = clock.seconds(top)
                hour_rate = rates[local.hour] / 3600.0
            rate = hour_rate if clock.is_open(env.now) else 0.0
            if rate > 0:
                gap = quantize(self.rng.exponential(1.0 / rate))
                if env.now + gap < boundary:
                    yield env.timeout(gap)
                    self.admit()
                    continue
            yield env.timeout(boundary - env.now)

    def admit(self) -> None:
        """Someone arrives: pick the member, draw the visit's plan, start the visit."""
        population = self.population
        index = population.pick_outside(self.who)
        if index is None:
            self.unmatched += 1
            return
        number = population.enter(index)
        self.count += 1
        seg = population.segment_of(index)
        rng = self.world.streams.fresh(member_id(index), f"visit:{number}")
        plan = draw_plan(seg, rng)
        patron = Patron(
            self.world,
            self.venue,
            population,
            index,
            number,
            plan,
            rng,
            self.patience,
            self.closing,
        )
        self.world.env.process(patron.visit())
