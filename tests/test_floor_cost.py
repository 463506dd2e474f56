"""The floor's own cost (issue 31): each shortcut gives what the longer way gave.

Every shipped scenario's ledger head is held by ``test_ledger_heads``; these hold the
shortcuts on the cases a shipped day may not reach (a DST change under the arrivals, a zone
added to the slot floor, a record class met for the first time).
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Generator
from datetime import datetime, time, timedelta
from types import SimpleNamespace
from typing import Any, cast

import numpy as np
import pytest
import simpy
from conftest import SCENARIOS

from twin.aml.model import Window
from twin.aml.views import JUNKET_VIEW_KINDS, junket_view
from twin.cage.records import CageTransaction
from twin.clock import Clock, OpeningHours
from twin.door.records import EntryAdmitted, EntryRefused
from twin.junkets import records as junket_records
from twin.machines.accounting import SlotAccounts
from twin.machines.events import BillAccepted, CashedOut, CoinsAccepted, GamesPlayed, HandPaid
from twin.machines.sas import MeterCode
from twin.patrons.patron import Arrivals
from twin.patrons.population import Population, member_id
from twin.patrons.section import PatronsConfig
from twin.pit.records import DeviceDetected, TableStretch
from twin.records import MemorySink, Record, RecordBus, kinds
from twin.slots.floor import SlotFloor
from twin.staff.dispatch import Dispatcher
from twin.staff.roles import DEFAULT_ROLES
from twin.streams import Streams, _Digest
from twin.surveillance import model as surveillance
from twin.world import World, quantize

# -- the arrivals keep their hour's end and rate for the hour -----------------------------------


def _old_arrivals(world: World, rates: list[float], rng: np.random.Generator) -> Any:
    """The arrival instants as the loop gave them when it worked out the hour every time."""
    env, clock = world.env, world.clock
    times: list[float] = []

    def arrive() -> Generator[simpy.events.Event, Any, None]:
        while True:
            local = clock.at(env.now)
            top = local.replace(minute=0, second=0, microsecond=0) + timedelta(hours=1)
            boundary = clock.seconds(top)
            rate = rates[local.hour] / 3600.0 if clock.is_open(env.now) else 0.0
            if rate > 0:
                gap = quantize(rng.exponential(1.0 / rate))
                if env.now + gap < boundary:
                    yield env.timeout(gap)
                    times.append(env.now)
                    continue
            yield env.timeout(boundary - env.now)

    env.process(arrive())
    return times


class _Counted(Arrivals):
    """Arrivals that only note when someone comes."""

    times: list[float]

    def admit(self) -> None:
        self.times.append(self.world.env.now)


def _world(start: datetime, hours: OpeningHours | None) -> World:
    env = simpy.Environment()
    clock = Clock(start, "Europe/Malta", opening_hours=hours)
    return World(env=env, clock=clock, streams=Streams(3), bus=RecordBus(lambda: env.now))


@pytest.mark.parametrize(
    "start",
    [
        datetime(2026, 3, 28, 12, 17),  # the night the clocks go forward (29 March)
        datetime(2026, 10, 24, 12, 17),  # the night they go back (25 October): 02:00 twice
    ],
)
@pytest.mark.parametrize(
    "hours", [None, OpeningHours(time(10, 30), time(2, 30))], ids=["always", "closing"]
)
def test_the_arrivals_over_a_dst_change_are_those_of_the_hour_by_hour_loop(
    start: datetime, hours: OpeningHours | None
) -> None:
    rates = [float(30 + 7 * h) for h in range(24)]
    config = SimpleNamespace(arrivals_per_hour=rates, max_wait_minutes=5.0)
    old = _world(start, hours)
    want = _old_arrivals(old, rates, old.streams.stream("arrivals", "times"))
    old.env.run(until=48 * 3600.0)
    new = _world(start, hours)
    arrivals = _Counted(new, cast(Any, SimpleNamespace()), cast(Any, config), cast(Any, None))
    arrivals.times = []
    new.env.process(arrivals.arrive())
    new.env.run(until=48 * 3600.0)
    assert len(want) > 2000
    assert arrivals.times == want


# -- the slot floor's pools of free machines per set of zones ----------------------------------


def _machine(mid: str, zone: str) -> Any:
    return SimpleNamespace(id=mid, spec=SimpleNamespace(zone=zone), available=True, patron=None)


def test_a_zone_added_to_the_floor_is_found_by_a_patron_who_asked_for_it_before() -> None:
    env = simpy.Environment()
    floor = SlotFloor(env, [_machine("A-1", "main")])
    rng = np.random.default_rng(1)
    assert floor._pick(frozenset({"vip"}), rng) is None  # no such zone yet (remembered empty)
    vip = _machine("V-1", "vip")
    floor.add(vip)
    assert floor._pick(frozenset({"vip"}), rng) is vip
    assert floor._pick(frozenset({"main", "vip"}), rng) is not None


# -- the AML desk: the junket view's kinds, each window's totals ----------------------------------


def test_the_junket_view_kinds_are_every_junket_record_it_reads_and_it_reads_no_other() -> None:
    junket_kinds = {
        cls.kind
        for cls in vars(junket_records).values()
        if isinstance(cls, type) and issubclass(cls, Record) and cls is not Record
    }
    assert junket_kinds >= JUNKET_VIEW_KINDS
    assert set(kinds()) >= JUNKET_VIEW_KINDS
    # any record of another kind: the view sees nothing in it
    other = GamesPlayed(
        seq=1, t=0.0, machine="A-1", patron="P000001", games=1, bet_units=1, wagered=1, won=0,
        games_won=0, free_games=0, credits=0, stop="time",
    )  # fmt: skip
    assert other.kind not in JUNKET_VIEW_KINDS
    assert junket_view(other) is None


def test_a_window_adds_up_its_buy_ins_and_cash_outs_as_they_come() -> None:
    w = Window("P000001#1", "gaming session (visit 1)")
    for seq, cents in ((3, 500), (7, 2_000), (9, 125)):
        w.add_in(seq, cents)
    w.add_out(11, 900)
    assert (w.bought, w.cashed) == (sum(c for _, c in w.ins), sum(c for _, c in w.outs))
    assert (w.bought, w.cashed) == (2_625, 900)


# -- surveillance routes a record by its class, as the isinstance tests did ------------------------


class _LaterCoins(CoinsAccepted):
    """A subclass of a money record (isinstance holds for it)."""


@pytest.mark.parametrize(
    ("cls", "route"),
    [
        (BillAccepted, surveillance._MONEY),
        (CoinsAccepted, surveillance._MONEY),
        (_LaterCoins, surveillance._MONEY),
        (CashedOut, surveillance._MONEY),
        (HandPaid, surveillance._MONEY),
        (CageTransaction, surveillance._MONEY),
        (TableStretch, surveillance._MONEY),
        (surveillance.InternalReport, surveillance._REPORT),
        (surveillance.SuspicionReported, surveillance._REPORT),
        (surveillance.UnapprovedItemReported, surveillance._PIT),
        (DeviceDetected, surveillance._PIT),
        (EntryRefused, surveillance._REFUSED),
        (EntryAdmitted, surveillance._NONE),
        (GamesPlayed, surveillance._NONE),
    ],
)
def test_surveillance_routes_each_record_class_as_the_isinstance_tests_did(
    cls: type, route: int
) -> None:
    assert surveillance._route(cls) == route


# -- the first member on duty, the meters read, the stream's seed words --------------------------


def test_the_first_on_duty_is_the_first_of_the_sorted_list() -> None:
    env = simpy.Environment()
    w = World(
        env=env,
        clock=Clock(datetime(2026, 3, 2, 10, 0), "Europe/Malta"),
        streams=Streams(7),
        bus=RecordBus(lambda: env.now, [MemorySink()]),
    )
    staff = Dispatcher(w)
    role = DEFAULT_ROLES[0].id
    assert staff.first_on_duty(role) == "" and staff.on_duty(role) == []
    for mid in ("X-09", "X-02", "X-11"):
        staff.enlist(mid, role, "day")
        staff.come_on(mid)
        assert staff.first_on_duty(role) == staff.on_duty(role)[0]
    assert staff.first_on_duty(role) == "X-02"
    staff.go_off("X-02")
    assert staff.first_on_duty(role) == staff.on_duty(role)[0] == "X-09"


def test_the_readings_are_each_meter_read_on_its_own() -> None:
    acc = SlotAccounts(
        denomination_cents=10, hopper_capacity=2_000, hopper_level=500, meter_digits=4,
        bill_denominations_cents=(500, 1_000),
    )  # fmt: skip
    acc.insert_coins(12_345)
    acc.insert_bill(1_000)
    acc.record_play(games=9_000, wagered=11_000, won=4_321, games_won=3_000)
    got = acc.readings()
    for code in MeterCode:
        assert got[code.name.lower()] == acc.reading(code)
    assert got["bills_1000"] == 1 and got["bills_500"] == 0
    assert got["total_coin_in"] == 11_000 % 10_000
    assert got["current_credits"] == acc.credits  # never rolled over


@pytest.mark.parametrize(("n", "dtype"), [(4, np.uint64), (8, np.uint32), (2, np.uint64)])
def test_a_digest_gives_its_words_little_endian_by_the_short_way_and_the_long(
    n: int, dtype: Any
) -> None:
    digest = bytes(range(7, 39))
    got = _Digest(digest).generate_state(n, dtype)
    want = np.frombuffer(digest, dtype=np.dtype(dtype).newbyteorder("<"), count=n).astype(dtype)
    assert got.dtype == np.dtype(dtype)
    assert got.tolist() == want.tolist()
    assert math.prod(got.shape) == n


# -- the door finds a member by id, and lists the barred and self-excluded, without a table -----


def test_a_member_is_found_by_id_and_nobody_else_is() -> None:
    data = tomllib.loads((SCENARIOS / "small.toml").read_text())["patrons"]
    data["population"] = {"size": 3_000, "barred_share": 0.02, "self_excluded_share": 0.03}
    pop = Population.build(PatronsConfig.model_validate(data), Streams(5))
    for i in (0, 1, 41, 2_999):
        assert pop.index_of(member_id(i)) == i
    for other in ("P003001", "P000000", "P0000001", "P00001", "p000001", "P00000١", "ATT-01", ""):
        assert pop.index_of(other) is None
    listed = [i for i in range(pop.size) if pop.member(i).barred or pop.member(i).self_excluded]
    assert pop.listed() == listed
    assert 50 < len(listed) < 250
