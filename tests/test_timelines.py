"""Exact micro-timelines of a single machine, as (time, record kind, key fields).

Each test builds a one-machine world with one attendant, one Board inspector and one
technician on a 24-hour shift and fixed service times (walk 1 min, hand pay 4 min, hopper
fill 5 min, repair 10 min), so every instant is known in advance. Each runs under both the
batched engine and the per-spin reference: the timelines must be identical.
"""

from __future__ import annotations

from collections.abc import Generator
from datetime import datetime, time
from pathlib import Path
from typing import Any

import pytest
import simpy

from twin.clock import Clock
from twin.dists import Fixed
from twin.machines.machine import SlotMachine
from twin.machines.par import load_game
from twin.machines.sas import Door, MeterCode
from twin.machines.spec import Crew, EngineKind, MachineSpec, Timing
from twin.records import MemorySink, Record, RecordBus
from twin.staff.dispatch import Dispatcher, Shift
from twin.streams import Streams
from twin.world import World

ENGINES: tuple[EngineKind, ...] = ("batched", "per_spin")
#: Staff records (duty, and the dispatcher's job records) are not part of these timelines.
STAFF_RECORDS = ("shift_started", "shift_ended", "job_requested", "job_started", "job_completed")


def table_game(tmp_path: Path, name: str, outcomes: list[tuple[str, int, int]]) -> Path:
    lines = [f'[game]\nid = "{name}"\nname = "{name}"\nkind = "table"\ncost = 1\n']
    for oname, weight, pay in outcomes:
        lines.append(f'[[outcomes]]\nname = "{oname}"\nweight = {weight}\npay = {pay}\n')
    path = tmp_path / f"{name}.toml"
    path.write_text("\n".join(lines))
    return path


def build(
    tmp_path: Path, game: Path, engine: EngineKind, **spec: Any
) -> tuple[simpy.Environment, SlotMachine, MemorySink]:
    env = simpy.Environment()
    sink = MemorySink()
    world = World(
        env=env,
        clock=Clock(datetime(2026, 3, 2, 10, 0), "Europe/Malta"),
        streams=Streams(1),
        bus=RecordBus(lambda: env.now, [sink]),
    )
    staff = Dispatcher(world)
    members = ("ATT-1", "TEC-1", "INS-1")
    for role, member in zip(("attendant", "technician", "inspector"), members, strict=True):
        staff.enlist(member, role, "all")
    env.process(staff.keep_roster([Shift("all", time(0), time(0), members)]))
    crew = Crew(staff, Timing(Fixed(value=1), Fixed(value=4), Fixed(value=5), Fixed(value=10)))
    fields: dict[str, Any] = dict(
        id="M1",
        bank="A",
        zone="main",
        game=load_game(game),
        denomination_cents=25,
        max_bet_units=3,
        hopper_capacity=100,
        hopper_standard_fill=50,
        hopper_initial=10,
        hopper_pay_limit_credits=400,
        jackpot_limit_cents=120_000,  # 4,800 credits at 25c
        bill_denominations_cents=(500, 1000),
        coin_pay_seconds=0.125,
    )
    fields.update(spec)
    machine = SlotMachine(world, MachineSpec(**fields), crew, engine=engine)
    return env, machine, sink


def timeline(sink: MemorySink, *fields: str) -> list[tuple[Any, ...]]:
    out = []
    for r in sink.records:
        if r.kind in STAFF_RECORDS:
            continue
        out.append((r.t, r.kind, *(getattr(r, f) for f in fields if hasattr(r, f))))
    return out


def _role_left_out(r: Record, field: str, value: Any) -> bool:
    return field in r.role_fields and (field in ("machine", "patron", "staff") or value == "")


def kinds(sink: MemorySink) -> list[tuple[float, str, dict[str, Any]]]:
    """(t, kind, fields) of every record but staff records. The machine, patron and
    exception ``staff`` roles and empty roles are left out (test_records_name_their_entities_by_role
    checks roles); attendant, inspector and technician stay."""
    return [
        (r.t, r.kind, {k: v for k, v in r.payload().items() if not _role_left_out(r, k, v)})
        for r in sink.records
        if r.kind not in STAFF_RECORDS
    ]


@pytest.mark.parametrize("engine", ENGINES)
def test_hopper_runs_dry_mid_payout_then_fill_then_short_pay(tmp_path: Path, engine: EngineKind):
    """20 credits to cash out, 10 coins in the hopper: pay 10, tilt, fill 50, pay the 10 short."""
    game = table_game(tmp_path, "push", [("push", 1, 1)])
    env, m, sink = build(tmp_path, game, engine)

    def patron() -> Generator[simpy.events.Event, Any, None]:
        m.insert_bill("P1", 500)  # 20 credits at 25c
        yield from m.cash_out("P1")

    env.process(patron())
    env.run(until=3600)
    got = kinds(sink)
    assert got == [
        (0.0, "bill_accepted", {"bill_cents": 500, "credits": 20}),
        (1.25, "hopper_paid", {"coins": 10, "requested": 20, "hopper_level": 0}),
        (1.25, "machine_exception", {"code": 0x23, "name": "hopper_empty"}),
        (
            361.25,  # walk 60 s + fill 300 s
            "hopper_filled",
            {
                "reason": "empty",
                "coins": 50,
                "certified_coins": 50,
                "hopper_level": 50,
                "attendant": "ATT-1",
                "inspector": "INS-1",
                "requested_t": 1.25,
            },
        ),
        (362.5, "short_pay_completed", {"coins": 10, "short_coins": 10}),
        (
            362.5,
            "cashed_out",
            {"credits": 20, "hopper_coins": 20, "hand_paid": 0, "short_paid": 10},
        ),
    ]
    acc = m.accounts
    assert acc.hopper_level == 40
    assert acc.meters[MeterCode.HOPPER_PAID_CREDITS] == 20
    assert acc.meters[MeterCode.TOTAL_CANCELLED_CREDITS] == 20
    assert acc.credits == 0
    assert acc.invariant_violations() == []
    assert m.downtime.area() == pytest.approx(361.25)  # down from the tilt to the end of the pay


@pytest.mark.parametrize("engine", ENGINES)
def test_jackpot_locks_machine_until_paid_by_hand(tmp_path: Path, engine: EngineKind):
    """The first game wins 5,000 credits >= the 4,800-credit jackpot limit: lock, hand pay."""
    game = table_game(tmp_path, "big", [("big", 1, 5000)])
    env, m, sink = build(tmp_path, game, engine, hopper_initial=100)

    def patron() -> Generator[simpy.events.Event, Any, None]:
        m.insert_bill("P1", 500)
        paid = yield from m.play_session(
            "P1", bet_units=1, pace=5.0, until=100.0, floor_credits=0, goal_credits=10**9
        )
        assert paid == 5000 + 19

    env.process(patron())
    env.run(until=3600)
    assert kinds(sink) == [
        (0.0, "bill_accepted", {"bill_cents": 500, "credits": 20}),
        (
            5.0,
            "games_played",
            {
                "games": 1,
                "bet_units": 1,
                "wagered": 1,
                "won": 0,
                "games_won": 1,
                "free_games": 0,
                "credits": 19,
                "stop": "jackpot",
            },
        ),
        (5.0, "machine_locked", {"reason": "jackpot", "win": 5000, "prize_cents": 125_000}),
        (5.0, "machine_exception", {"code": 0x51, "name": "handpay_pending"}),
        (
            305.0,  # walk 60 s + hand pay 240 s
            "hand_paid",
            {
                "reason": "jackpot",
                "credits": 5000,
                "cents": 125_000,
                "attendant": "ATT-1",
                "inspector": "INS-1",
                "requested_t": 5.0,
            },
        ),
        (305.0, "machine_exception", {"code": 0x52, "name": "handpay_reset"}),
        (307.375, "hopper_paid", {"coins": 19, "requested": 19, "hopper_level": 81}),
        (
            307.375,
            "cashed_out",
            {"credits": 19, "hopper_coins": 19, "hand_paid": 0, "short_paid": 0},
        ),
    ]
    acc = m.accounts
    assert acc.meters[MeterCode.TOTAL_JACKPOT] == 5000
    assert acc.meters[MeterCode.TOTAL_COIN_OUT] == 0
    assert acc.meters[MeterCode.GAMES_WON] == 1
    assert acc.invariant_violations() == []
    jobs = [(r.t, r.kind, r.job_kind) for r in sink.records if r.kind.startswith("job_")]
    assert jobs == [
        (5.0, "job_requested", "hand_pay"),
        (5.0, "job_started", "hand_pay"),
        (305.0, "job_completed", "hand_pay"),
    ]


@pytest.mark.parametrize("engine", ENGINES)
def test_door_opened_during_play_disables_play_until_closed(tmp_path: Path, engine: EngineKind):
    """Games every 4 s from t=0; the slot door opens at t=41 (game 11 under way) and closes at
    t=100; the session runs to t=400. 11 games before, 75 after, and the door meter resets."""
    game = table_game(tmp_path, "push", [("push", 1, 1)])
    env, m, sink = build(tmp_path, game, engine, hopper_initial=100)

    def patron() -> Generator[simpy.events.Event, Any, None]:
        m.insert_coins("P1", 40)
        yield from m.play_session(
            "P1", bet_units=1, pace=4.0, until=400.0, floor_credits=0, goal_credits=10**9
        )

    def technician() -> Generator[simpy.events.Event, Any, None]:
        yield env.timeout(41)
        m.open_door(Door.SLOT, "TEC-1")
        yield env.timeout(59)
        assert m.accounts.meters[MeterCode.GAMES_SINCE_DOOR_CLOSED] == 11
        m.close_door(Door.SLOT, "TEC-1")
        assert m.accounts.meters[MeterCode.GAMES_SINCE_DOOR_CLOSED] == 0

    env.process(patron())
    env.process(technician())
    env.run(until=3600)
    got = [(t, k, p.get("code", p.get("games"))) for t, k, p in kinds(sink)]
    assert got == [
        (0.0, "coins_accepted", None),
        (41.0, "machine_exception", 0x11),
        (41.0, "games_played", 11),
        (100.0, "machine_exception", 0x12),
        (400.0, "games_played", 75),
        (405.0, "hopper_paid", None),
        (405.0, "cashed_out", None),
    ]
    acc = m.accounts
    assert acc.meters[MeterCode.GAMES_PLAYED] == 86
    assert acc.meters[MeterCode.GAMES_SINCE_DOOR_CLOSED] == 75
    assert acc.meters[MeterCode.TOTAL_COIN_IN] == 86
    assert acc.meters[MeterCode.TOTAL_COIN_OUT] == 86
    assert acc.invariant_violations() == []
    assert m.downtime.area() == 59.0


def test_record_base_is_frozen() -> None:
    r = Record(seq=0, t=0.0)
    with pytest.raises(AttributeError):
        r.t = 1.0  # type: ignore[misc]


def test_records_name_their_entities_by_role(tmp_path: Path) -> None:
    """A hopper-empty cash-out names the machine, the patron and the staff by role."""
    game = table_game(tmp_path, "push", [("push", 1, 1)])
    env, m, sink = build(tmp_path, game, "batched")

    def patron() -> Generator[simpy.events.Event, Any, None]:
        m.insert_bill("P1", 500)
        yield from m.cash_out("P1")

    env.process(patron())
    env.run(until=1000)
    roles = [(r.kind, r.role_map()) for r in sink.records if r.kind not in STAFF_RECORDS]
    assert roles == [
        ("bill_accepted", {"machine": "M1", "patron": "P1"}),
        ("hopper_paid", {"machine": "M1", "patron": "P1"}),
        ("machine_exception", {"machine": "M1", "patron": "P1"}),
        (
            "hopper_filled",
            {"machine": "M1", "patron": "P1", "attendant": "ATT-1", "inspector": "INS-1"},
        ),
        ("short_pay_completed", {"machine": "M1", "patron": "P1"}),
        ("cashed_out", {"machine": "M1", "patron": "P1"}),
    ]
    filled = next(r for r in sink.records if r.kind == "hopper_filled")
    assert filled.entities == ("M1", "P1", "ATT-1", "INS-1")
    assert filled.entity("inspector") == "INS-1" and filled.entity("technician") == ""
