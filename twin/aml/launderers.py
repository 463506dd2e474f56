"""Money launderers: members of the population who come in to launder (issue 11).

The twin knows who they are; the licensee does not. Each ``[[aml.launderers]]`` group of
the scenario names a strategy, and ``count`` members of the population (adults on no list,
drawn on the stream ("aml", "launderers")) follow it, ``visits`` times, the first within
``first_days`` of the start and then every ``gap_days``. A launderer's draws come from the
member's own stream ``(member id, "launder")``, so one launderer never moves another's.

They enter like anyone else: through the door (``Hall.admit``), and only when not inside on
an ordinary visit. What they do, by strategy (``amount_cents`` is the money of one round):

* ``structuring``: the amount is split into pieces just below the identification
  threshold, one piece a visit, several visits a gaming day; each visit buys chips at the
  cage in cash, plays them through once or more at a table (to look like play) and cashes
  the rest out.
* ``minimal_play``: one visit; chips bought at the cage above the threshold (identified),
  a few rounds at a table's minimum stake, the rest cashed out.
* ``chip_passing``: an associate (another member) buys the chips in one visit and hands
  them over; the launderer cashes them out in pieces below the threshold over several
  visits the same day, after a few rounds at a table.
* ``junket_abuse``: the launderer travels with junkets as one more member (with a passport
  of its own, the same on every trip), lodges the money as front money at the junket desk,
  plays one short session of rolling chips, and takes the chips (and the rebate on the
  loss) back in cash at settlement. It never enters through the door of the population.
* ``slot_bill_route``: notes into a slot machine's bill acceptor, a few minutes at the
  lowest bet, and the credits cashed out (by the hopper or by hand).

Every act is also a ``laundering_act`` record: the twin's truth, for detection studies.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Generator
from dataclasses import dataclass
from datetime import time
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np
import simpy

from twin.aml.records import LaunderingAct
from twin.aml.section import AmlConfig, LaundererGroup
from twin.errors import InputError
from twin.junkets import Guest
from twin.patrons import Floor, Hall, Population, member_id
from twin.patrons.records import PatronArrived, PatronLeft, SessionStarted
from twin.world import World, quantize

if TYPE_CHECKING:
    from twin.cage import Cage
    from twin.junkets import Junkets
    from twin.pit import Pit

Proc = Generator[simpy.events.Event, Any, Any]

#: the share of the threshold a piece of a structured amount stays under
PIECE_SHARE = 0.9
#: launderers come when the tables are busy: from this local time
EVENING = time(14, 0)


@dataclass(frozen=True, slots=True)
class Launderer:
    index: int
    id: str
    strategy: str
    group: LaundererGroup
    associate: int  # population index of the associate (-1: none)


@dataclass(frozen=True, slots=True)
class _Visitor:
    id: str
    visit_number: int
    rng: np.random.Generator


class Launderers:
    """The launderers of a run: a department with one process per launderer."""

    name = "launderers"

    def __init__(
        self,
        world: World,
        config: AmlConfig,
        population: Population,
        hall: Hall,
        floor: Floor,
        cage: Cage,
        pit: Pit | None,
        threshold_cents: Fraction,
        min_age: int,
        junkets: Junkets | None = None,
        source: str = "<scenario>",
    ) -> None:
        self.world = world
        self.cfg = config
        self.population = population
        self.hall = hall
        self.floor = floor
        self.cage = cage
        self.pit = pit
        self.threshold = threshold_cents
        self.min_age = min_age
        self.junkets = junkets
        if junkets is None:
            for i, g in enumerate(config.launderers):
                if g.strategy == "junket_abuse":
                    raise InputError(source, f"aml.launderers[{i}].strategy",
                                     "a [junkets] section for junket_abuse (the launderer "
                                     "travels with junkets)", g.strategy)  # fmt: skip
        self.launderers: list[Launderer] = self.choose()
        self.join_junkets()

    # -- who ----------------------------------------------------------------------------------
    def _eligible(self, index: int) -> bool:
        m = self.population.member(index)
        return m.age >= self.min_age and not m.self_excluded and not m.barred

    def choose(self) -> list[Launderer]:
        """Draw the launderers and their associates: distinct eligible members."""
        rng = self.world.streams.fresh("aml", "launderers")
        size = self.population.size
        taken: set[int] = set()

        def draw() -> int:
            for _ in range(100_000):
                i = int(rng.integers(size))
                if i not in taken and self._eligible(i):
                    taken.add(i)
                    return i
            raise RuntimeError("not enough eligible members for the launderers")

        out: list[Launderer] = []
        for group in self.cfg.launderers:
            for k in range(group.count):
                if group.strategy == "junket_abuse":  # a junket's guest, not a member
                    out.append(Launderer(-1, f"junket-guest-{k + 1}", group.strategy, group, -1))
                    continue
                i = draw()
                assoc = draw() if group.strategy == "chip_passing" else -1
                out.append(Launderer(i, member_id(i), group.strategy, group, assoc))
        return out

    def join_junkets(self) -> None:
        """Each junket-abuse launderer joins ``visits`` junkets in a row (the k-th starts
        with the k-th junket of the run, round the list), with a passport of its own: the
        same on every trip, so the cage can link the trips. Before t = 0."""
        if self.junkets is None:
            return
        plans = sorted(self.junkets.plans.values(), key=lambda p: (p.arrival, p.id))
        guests = [lau for lau in self.launderers if lau.strategy == "junket_abuse"]
        for k, lau in enumerate(guests):
            rng = self.world.streams.fresh(lau.id, "launder")
            countries = plans[0].schedule.countries if plans else ("GB",)
            country = countries[int(rng.integers(len(countries)))]
            passport = f"{country}{int(rng.integers(10**7, 10**8))}"
            for v in range(min(lau.group.visits, len(plans))):
                plan = plans[(k + v) % len(plans)]
                amount = max(10_000, round(float(lau.group.amount_cents.sample(rng)) / 100) * 100)
                guest = Guest(
                    label=lau.id, passport=passport, country=country, deposit_cents=amount,
                    rounds=self._rounds(lau, rng), act=self._guest_act(lau),
                )  # fmt: skip
                self.junkets.add_guest(plan.id, guest)

    def _guest_act(self, lau: Launderer) -> Callable[[str, int, str], None]:
        def act(step: str, cents: int, member: str) -> None:
            self.act(lau, step, cents, member)

        return act

    def start(self) -> None:
        for lau in self.launderers:
            if lau.index >= 0:
                self.world.env.process(self.launder(lau))

    def finish(self) -> None:
        pass

    # -- visits -------------------------------------------------------------------------------
    def launder(self, lau: Launderer) -> Proc:
        """The launderer's rounds: the first within ``first_days``, then every ``gap_days``."""
        env = self.world.env
        rng = self.world.streams.fresh(lau.id, "launder")
        g = lau.group
        yield env.timeout(quantize(float(rng.uniform(0.0, g.first_days)) * 86400.0))
        act = getattr(self, lau.strategy)
        for _ in range(g.visits):
            yield env.timeout(self._evening_wait(rng))
            amount = max(10_000, round(float(g.amount_cents.sample(rng)) / 100.0) * 100)
            yield from act(lau, rng, amount)
            yield env.timeout(quantize(max(0.0, float(g.gap_days.sample(rng))) * 86400.0))

    def _evening_wait(self, rng: np.random.Generator) -> float:
        """Seconds to a time between 14:00 and 23:00 local, when the tables are busy (now,
        if it is one)."""
        env, clock = self.world.env, self.world.clock
        if 14 <= clock.at(env.now).hour < 23:
            return 0.0
        start = clock.next_local(env.now, EVENING)
        return start - env.now + quantize(float(rng.uniform(0.0, 6.0)) * 3600.0)

    def enter(self, index: int, rng: np.random.Generator, amount: int) -> Proc:
        """Come in through the door when not inside and the casino is open; the visitor, or
        None when the door refuses."""
        env, clock, pop = self.world.env, self.world.clock, self.population
        while pop.is_inside(index) or not clock.is_open(env.now):
            yield env.timeout(900.0)
        number = pop.enter(index)
        m = pop.member(index)
        self.world.bus.emit(PatronArrived, patron=m.id, segment=m.segment,
                            bankroll_cents=amount, visit=number,
                            residency=m.residency)  # fmt: skip
        v = _Visitor(m.id, number, rng)
        if not (yield from self.hall.admit(v)):
            pop.leave(index)
            return None
        return v

    def act(self, lau: Launderer, step: str, cents: int, associate: str = "") -> None:
        self.world.bus.emit(LaunderingAct, launderer=lau.id, strategy=lau.strategy, step=step,
                            amount_cents=cents, associate=associate)  # fmt: skip

    def _pieces(self, amount: int) -> list[int]:
        """``amount`` in pieces each under PIECE_SHARE of the threshold (whole euros)."""
        cap = int(self.threshold * Fraction(PIECE_SHARE))
        k = max(1, math.ceil(amount / cap))
        piece = (amount // k) // 100 * 100
        return [piece] * k

    def _play(
        self, who: str, chips: int, stake: int, rounds: int, rng: np.random.Generator
    ) -> Proc:
        """A stretch at a table with chips in hand; the chips left after it."""
        if self.pit is None or chips <= 0:
            return chips
        rec = yield from self.pit.play_chips(who, chips, stake, rounds, float(rng.random()))
        return chips if rec is None else chips + rec.net_cents

    def _play_and_cash(
        self, lau: Launderer, rng: np.random.Generator, chips: int, stake: int, rounds: int
    ) -> Proc:
        """A show of play with ``chips`` in hand, then what is left cashed at the cage."""
        left = yield from self._play(lau.id, chips, stake, rounds, rng)
        if left > 0:
            yield from self.cage.redeem_chips(lau.id, left, rng=rng)
            self.act(lau, "cash_out", left)

    def _rounds(self, lau: Launderer, rng: np.random.Generator) -> int:
        """A few rounds at the table minimum: about one a minute of ``play_minutes``."""
        return max(1, round(self._minutes(lau, rng)))

    def _gap(self, rng: np.random.Generator) -> simpy.events.Timeout:
        return self.world.env.timeout(quantize(float(rng.uniform(45.0, 150.0)) * 60.0))

    def _minutes(self, lau: Launderer, rng: np.random.Generator) -> float:
        return max(1.0, float(lau.group.play_minutes.sample(rng)))

    # -- the strategies -----------------------------------------------------------------------
    def structuring(self, lau: Launderer, rng: np.random.Generator, amount: int) -> Proc:
        for piece in self._pieces(amount):
            v = yield from self.enter(lau.index, rng, piece)
            if v is None:
                return
            txn = yield from self.cage.buy_chips(lau.id, piece, "cash", "chips", rng=rng)
            if txn:
                self.act(lau, "buy_in", piece)
                stake = max(100, piece // 20 // 100 * 100)
                yield from self._play_and_cash(lau, rng, piece, stake, 30)
            self.population.leave(lau.index)
            yield self._gap(rng)

    def minimal_play(self, lau: Launderer, rng: np.random.Generator, amount: int) -> Proc:
        v = yield from self.enter(lau.index, rng, amount)
        if v is None:
            return
        txn = yield from self.cage.buy_chips(lau.id, amount, "cash", "chips", rng=rng)
        if txn:
            self.act(lau, "buy_in", amount)
            yield from self._play_and_cash(lau, rng, amount, 1, self._rounds(lau, rng))
        self.population.leave(lau.index)

    def chip_passing(self, lau: Launderer, rng: np.random.Generator, amount: int) -> Proc:
        assoc = member_id(lau.associate)
        v = yield from self.enter(lau.associate, rng, amount)
        if v is None:
            return
        txn = yield from self.cage.buy_chips(assoc, amount, "cash", "chips", rng=rng)
        self.population.leave(lau.associate)
        if not txn:
            return
        self.act(lau, "buy_in", amount, assoc)
        self.act(lau, "pass_chips", amount, assoc)
        for piece in self._pieces(amount):
            yield self._gap(rng)
            v = yield from self.enter(lau.index, rng, piece)
            if v is None:
                return
            yield from self._play_and_cash(lau, rng, piece, 1, self._rounds(lau, rng))
            self.population.leave(lau.index)

    def junket_abuse(self, lau: Launderer, rng: np.random.Generator, amount: int) -> Proc:
        """Nothing at the door: the launderer travels with junkets (``join_junkets``)."""
        return
        yield

    def slot_bill_route(self, lau: Launderer, rng: np.random.Generator, amount: int) -> Proc:
        env = self.world.env
        v = yield from self.enter(lau.index, rng, amount)
        if v is None:
            return
        machine = yield from self.floor.find_machine(lau.id, frozenset(), 1800.0, rng)
        if machine is None:
            self.population.leave(lau.index)
            return
        spec = machine.spec
        fed = paid = 0
        if spec.bill_acceptor and spec.bill_denominations_cents:
            for bill in sorted(spec.bill_denominations_cents, reverse=True):
                while amount - fed >= bill:
                    machine.insert_bill(lau.id, bill)
                    fed += bill
        if fed:
            self.act(lau, "bills_in", fed)
            until = env.now + quantize(self._minutes(lau, rng) * 60.0)
            # the floor records the session as anyone's (who plays which machine)
            self.world.bus.emit(SessionStarted, patron=lau.id, machine=machine.id, bet_units=1,
                                pace_seconds=4.0, planned_end_t=until)  # fmt: skip
            paid = yield from machine.play_session(
                lau.id, bet_units=1, pace=4.0, until=until, floor_credits=0, goal_credits=10**12,
            )  # fmt: skip
            self.act(lau, "cash_out", paid * spec.denomination_cents)
        self.floor.release(machine)
        if fed:
            self.world.bus.emit(PatronLeft, patron=lau.id, machine=machine.id, reason="done",
                                spent_cents=fed - paid * spec.denomination_cents)  # fmt: skip
        self.population.leave(lau.index)


__all__ = ["PIECE_SHARE", "Launderer", "Launderers"]
