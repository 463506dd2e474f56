"""The table pit and the card room (issue 10): the pit runs clean, each injected violation
gives exactly its control's finding, the checkers' parts one by one, and the slot floor is
untouched by a pit nobody visits."""

from __future__ import annotations

import copy
import tomllib
from datetime import datetime, time
from pathlib import Path
from typing import Any

import pytest
import simpy
from conftest import besides_absent, besides_absent_functions

from twin.casino import Casino
from twin.clock import Clock, OpeningHours
from twin.compliance.engine import ComplianceEngine
from twin.compliance.findings import Finding
from twin.compliance.ruleset import load_ruleset
from twin.departments import parse_scenario
from twin.errors import InputError
from twin.machines.events import GamesPlayed
from twin.machines.facts import FloorFacts
from twin.metrics import Metrics
from twin.pit.kpis import hold_band
from twin.pit.records import (
    BoardMinimumStake,
    CardRoomApproved,
    CardRoomOpened,
    CardRoomSession,
    DeviceCarried,
    DeviceDetected,
    DeviceSanction,
    EntranceNotice,
    GamingItemsApproved,
    NoticeRequirements,
    StakesAuthorised,
    TableCount,
    TableFill,
    TableOpened,
    TableStakes,
    TableStretch,
    UnapprovedItemDetected,
    UnapprovedItemReported,
)
from twin.records import MemorySink, Record, RecordBus
from twin.staff.records import ShiftStarted

ROOT = Path(__file__).resolve().parent.parent
FLOOR = ROOT / "tests" / "data" / "controls.toml"
ROULETTE = ROOT / "scenarios" / "tables" / "roulette-single-zero.toml"

ROLES = [
    {"id": "attendant", "prefix": "ATT", "title": "Slot attendant"},
    {"id": "technician", "prefix": "TEC", "title": "Slot technician"},
    {"id": "inspector", "prefix": "INS", "title": "Board inspector", "employer": "board"},
    {"id": "dealer", "prefix": "DLR", "title": "Croupier"},
]

TABLES: dict[str, Any] = {
    "share": 0.3,
    "card_room_share": 0.2,
    "stake_cents": {"dist": "choice", "values": [200, 500, 1000, 5000], "weights": [4, 3, 2, 1]},
    "stretch_minutes": {"dist": "lognormal", "median": 40, "sigma": 0.5},
    "buy_in_stakes": {"dist": "choice", "values": [10, 20]},
    "drop_collection": "05:00",
    "board_minimum_cents": {"roulette-single-zero": 200},
    "authorised_maximum_cents": {"roulette-single-zero": 50000},
    "chip_series": ["MGB-A"],
    "chips_in_play": "MGB-A",
    "notice_conditions": ["No admission under 18"],
    "entrance_fee_cents": 0,
    "device_share": 0.02,
    "counterfeit_share": 0.02,
    "equipment": [{"asset": "W-1", "type": "wheel"}, {"asset": "W-2", "type": "wheel"}],
    "tables": [
        {
            "id": "T-1",
            "game": str(ROULETTE),
            "min_stake_cents": 200,
            "max_stake_cents": 10000,
            "open": "10:00",
            "close": "04:00",
            "equipment": "W-1",
        },
        {
            "id": "T-2",
            "game": str(ROULETTE),
            "min_stake_cents": 500,
            "max_stake_cents": 20000,
            "open": "18:00",
            "close": "04:00",
            "equipment": "W-2",
        },
    ],
    "card_room": [
        {"id": "CR", "seats": 8, "open": "12:00", "close": "04:00", "hourly_charge_cents": 500}
    ],
}


def floor_data(section: dict[str, Any] | None = TABLES, **changes: Any) -> dict[str, Any]:
    data = tomllib.loads(FLOOR.read_text())
    data["staff"]["roles"] = ROLES
    for s in data["staff"]["shifts"]:
        s["crew"]["dealer"] = 3
    if section is not None:
        data["tables"] = copy.deepcopy(section) | changes
    return data


def run(data: dict[str, Any]) -> tuple[Casino, MemorySink]:
    sc = parse_scenario(data, source=str(FLOOR), base_dir=FLOOR.parent)
    sink = MemorySink()
    casino = Casino(sc, sinks=[sink])
    casino.run()
    return casino, sink


@pytest.fixture(scope="module")
def clean() -> tuple[Casino, MemorySink]:
    return run(floor_data())


def test_the_pit_runs_clean(clean: tuple[Casino, MemorySink]) -> None:
    casino, sink = clean
    assert casino.compliance is not None
    assert besides_absent(casino) == []
    stretches = sink.of(TableStretch)
    assert len(stretches) > 50
    # the positive paths ran: detections reported, devices sanctioned, card room charged
    assert sink.of(UnapprovedItemReported) and sink.of(DeviceSanction)
    assert sink.of(CardRoomSession)
    # the count reconciles with the play: each table's win is what its players lost
    for table in ("T-1", "T-2"):
        counted = sum(c.win_cents for c in sink.of(TableCount) if c.table == table)
        lost = -sum(s.net_cents for s in stretches if s.table == table)
        assert counted == lost
        assert all(c.variance_cents == 0 for c in sink.of(TableCount))
    # the stake in force is respected: between the table's limits
    for s in stretches:
        lo, hi = (200, 10000) if s.table == "T-1" else (500, 20000)
        assert lo <= s.stake_cents <= hi


def test_kpis_from_records(clean: tuple[Casino, MemorySink]) -> None:
    _, sink = clean
    k = Metrics.from_records(sink.records).kpis().sections["tables"]
    g = k["games"]["roulette-single-zero"]
    stretches = sink.of(TableStretch)
    assert g["rounds"] == sum(s.rounds for s in stretches)
    assert g["handle_cents"] == sum(s.handle_cents for s in stretches)
    assert g["drop_cents"] == sum(c.drop_cents for c in sink.of(TableCount))
    assert g["theoretical_percent"] == pytest.approx(100 / 37, abs=0.01)
    lo, hi = hold_band(g["theoretical_win_cents"], sum(s.var_cents2 for s in stretches), 0.99)
    assert g["band_cents"] == [round(lo), round(hi)]
    assert g["inside_band"] == (lo <= g["win_cents"] <= hi)
    assert k["card_room"]["CR"]["charged_cents"] == 500 * k["card_room"]["CR"]["hours"]


CASES: dict[str, dict[str, Any]] = {
    "R21.1": {"kind": "wager_below_minimum", "target": "T-1", "at_hours": 2.0},
    "R21.3": {"kind": "unauthorised_stake_change", "target": "T-1", "at_hours": 2.0},
    "R22": {"kind": "notice_not_updated", "target": "T-1", "at_hours": 9.0, "amount": 30000},
    "R23.1": {"kind": "unapproved_equipment", "target": "T-2", "at_hours": 9.0},
    "R23.3.p": {"kind": "unreported_counterfeit_chips", "target": "T-1", "at_hours": 2.0},
    "R23.5": {"kind": "device_detected_after_play", "target": "T-1", "at_hours": 2.0},
    "R23.6": {"kind": "device_without_sanction", "target": "T-1", "at_hours": 2.0},
    "R26": {"kind": "card_room_overcharge", "target": "CR", "at_hours": 3.0},
    "R41.a": {"kind": "table_drop_skim", "target": "T-1", "at_hours": 6.0, "amount": 700},
    "R41.b": {"kind": "table_count_without_staff", "target": "T-1", "at_hours": 6.0},
}


#: the controls whose injected violation this module proves (tests/test_controls.py); R41(a)
#: and (b) are test_cage's (the slot count), here only their table side
INJECTED_CONTROLS = frozenset(f"MT98.{case}" for case in CASES) - {"MT98.R41.a", "MT98.R41.b"}


@pytest.mark.parametrize("case", sorted(CASES))
def test_injected_violation_is_found(case: str) -> None:
    data = floor_data()
    data["inject"] = [CASES[case]]
    casino, sink = run(data)
    assert casino.compliance is not None
    found = besides_absent(casino)
    assert found, case
    assert {f.control for f in found} == {f"MT98.{case}"}, [(f.control, f.message) for f in found]
    seqs = {r.seq for r in sink.records}
    for f in found:
        assert isinstance(f, Finding) and f.evidence and set(f.evidence) <= seqs


def test_a_drop_skim_is_a_recorded_variance_and_a_finding() -> None:
    """Was: a skim was a recorded, investigated variance and no finding (issue 25: the pit's
    count was unchecked). The count falls short of the table card: reg 41(a)'s finding."""
    data = floor_data()
    data["inject"] = [{"kind": "table_drop_skim", "target": "T-1", "at_hours": 6.0, "amount": 700}]
    casino, sink = run(data)
    assert casino.compliance is not None
    [f] = besides_absent(casino)
    assert f.control == "MT98.R41.a"
    assert "700 cents unaccounted for" in f.message
    skimmed = [c for c in sink.of(TableCount) if c.variance_cents]
    assert [c.variance_cents for c in skimmed] == [-700]
    assert skimmed[0].seq in f.evidence
    k = Metrics.from_records(sink.records).kpis().sections["tables"]
    assert k["count_variances_investigated"] == 1


def test_pit_count_holes_are_found() -> None:
    """The pit's count part by part (reg 41): the card's fills, the opening, the team."""
    fill = (1.0, TableFill, {"table": "T-1", "dealer": "DLR-1", "amount_cents": 1000,
                             "credit": False})  # fmt: skip
    count = {"table": "T-1", "game": "g", "members": ("DLR-1", "INS-1"), "opening_cents": 5000,
             "fills_cents": 1000, "credits_cents": 0, "closing_cents": 4000, "drop_cents": 3000,
             "card_drop_cents": 3000, "win_cents": 1000, "variance_cents": 0}  # fmt: skip
    assert judge(["MT98.R41.a", "MT98.R41.b"], [fill, (2.0, TableCount, count)]) == []
    [f] = judge(["MT98.R41.a"], [(2.0, TableCount, count)])  # a fill not recorded
    assert "fills 1000 / credits 0, those recorded 0 / 0" in f.message
    later = count | {"opening_cents": 3000, "fills_cents": 0, "win_cents": 4000}
    [f] = judge(["MT98.R41.a"], [fill, (2.0, TableCount, count), (3.0, TableCount, later)])
    assert "opening 3000 is not the last count's closing 4000" in f.message
    [f] = judge(["MT98.R41.a"], [fill, (2.0, TableCount, count | {"win_cents": 999})])
    assert "misstated" in f.message
    # the count by the inspector alone, or by someone unknown, is not the licensee's control
    for team in (("INS-1",), ("DLR-1", "X"), ()):
        [f] = judge(["MT98.R41.b"], [fill, (2.0, TableCount, count | {"members": team})])
        assert f.control == "MT98.R41.b" and "not a team of the licensee's staff" in f.message


def test_a_floor_nobody_leaves_for_the_pit_keeps_its_slot_timeline() -> None:
    """[tables] with share 0: every slot record is the same (time, machine, games...) as on
    the floor with no [tables] section: the visit's choice is drawn on a new stream."""

    def slots(sink: MemorySink) -> list[tuple[float, dict[str, Any]]]:
        return [(r.t, r.payload()) for r in sink.of(GamesPlayed)]

    bare = floor_data(None)
    bare["scenario"]["duration_hours"] = 6.0
    _, without = run(bare)
    data = floor_data(share=0.0)
    data["scenario"]["duration_hours"] = 6.0
    _, with_pit = run(data)
    assert slots(without) and slots(without) == slots(with_pit)
    assert not with_pit.of(TableStretch)


# -- scenario errors -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "key"),
    [
        ({"tables": [{**TABLES["tables"][0], "equipment": "W-9"}]}, "tables.tables[0].equipment"),
        ({"board_minimum_cents": {}}, "tables.board_minimum_cents"),
        (
            {"stake_changes": [{"at_hours": 99.0, "table": "T-1", "min_stake_cents": 300}]},
            "tables.stake_changes[0].at_hours",
        ),
        (
            {"stake_changes": [{"at_hours": 1.0, "table": "T-9", "min_stake_cents": 300}]},
            "tables.stake_changes[0].table",
        ),
        (
            {"tables": [{**TABLES["tables"][0], "max_stake_cents": 100}]},
            "tables.tables[0].max_stake_cents",
        ),
    ],
)
def test_scenario_mistakes_are_one_input_error(change: dict[str, Any], key: str) -> None:
    with pytest.raises(InputError) as err:
        sc = parse_scenario(floor_data(**change), source=str(FLOOR), base_dir=FLOOR.parent)
        Casino(sc)
    assert err.value.key == key


def test_a_pit_needs_dealers_and_known_targets() -> None:
    data = floor_data()
    for s in data["staff"]["shifts"]:
        s["crew"]["dealer"] = 0
    with pytest.raises(InputError, match="dealer"):
        Casino(parse_scenario(data, source=str(FLOOR), base_dir=FLOOR.parent))
    data = floor_data()
    data["inject"] = [{"kind": "undetected_device", "target": "T-9"}]
    with pytest.raises(InputError) as err:
        Casino(parse_scenario(data, source=str(FLOOR), base_dir=FLOOR.parent))
    assert err.value.key == "inject[0].target"


# -- the checkers part by part, on records alone ------------------------------------------------


Emit = tuple[float, type[Record], dict[str, Any]]


def judge(controls: list[str], emits: list[Emit]) -> list[Finding]:
    env = simpy.Environment()
    bus = RecordBus(lambda: env.now)
    clock = Clock(datetime(2026, 3, 2, 10, 0), "Europe/Malta",
                  opening_hours=OpeningHours(time(10, 0), time(4, 0)))  # fmt: skip
    eng = ComplianceEngine(load_ruleset("malta-1998"), clock, FloorFacts(), controls=controls)
    bus.attach(eng)
    bus.attach_producer(eng)
    bus.emit(ShiftStarted, role="inspector", shift="day", member="INS-1", name="I",
             employer="board")  # fmt: skip
    bus.emit(ShiftStarted, role="dealer", shift="day", member="DLR-1", name="D",
             employer="licensee")  # fmt: skip
    for t, cls, fields in emits:
        if t > env.now:
            env.run(until=t)
        bus.emit(cls, **fields)
    env.run(until=env.now + 48 * 3600.0)
    bus.finish_producers(env.now)
    return eng.findings


def stretch(stake: int, **kw: Any) -> dict[str, Any]:
    return {"table": "T-1", "game": "g", "patron": "P", "dealer": "DLR-1", "bet": "red",
            "stake_cents": stake, "rounds": 10, "buy_in_cents": 10 * stake,
            "handle_cents": 10 * stake, "net_cents": 0, "theo_cents": 0, "var_cents2": 0,
            "chip_series": "A"} | kw  # fmt: skip


def test_minimum_in_force() -> None:
    board = (0.0, BoardMinimumStake, {"game": "g", "min_stake_cents": 200})
    varied = (0.0, StakesAuthorised, {"game": "g", "table": "T-1", "min_stake_cents": 100,
                                      "max_stake_cents": 1000, "inspector": "INS-1"})  # fmt: skip
    assert len(judge(["MT98.R21.1"], [board, (1.0, TableStretch, stretch(150))])) == 1
    assert judge(["MT98.R21.1"], [board, (1.0, TableStretch, stretch(200))]) == []
    # a minimum the Board authorised for the table (21(3)) is the one in force there
    assert judge(["MT98.R21.1"], [board, varied, (1.0, TableStretch, stretch(150))]) == []
    assert len(judge(["MT98.R21.1"], [board, varied, (1.0, TableStretch, stretch(50))])) == 1
    # the Board's later notice (21(2)) replaces its first
    later = (0.5, BoardMinimumStake, {"game": "g", "min_stake_cents": 100})
    assert judge(["MT98.R21.1"], [board, later, (1.0, TableStretch, stretch(150))]) == []


def test_minimum_varied_without_authorisation() -> None:
    base = [
        (0.0, BoardMinimumStake, {"game": "g", "min_stake_cents": 200}),
        (0.0, StakesAuthorised, {"game": "g", "table": "", "min_stake_cents": 0,
                                 "max_stake_cents": 1000, "inspector": "INS-1"}),
    ]  # fmt: skip
    ok = {"table": "T-1", "game": "g", "min_stake_cents": 200, "max_stake_cents": 1000,
          "reason": "licence"}  # fmt: skip
    assert judge(["MT98.R21.3"], [*base, (0.0, TableStakes, ok)]) == []
    low = ok | {"min_stake_cents": 100}
    found = judge(["MT98.R21.3"], [*base, (0.0, TableStakes, low)])
    assert len(found) == 1 and "below the Board's minimum" in found[0].message
    # the same change, authorised for the table first, is lawful
    auth = (1.0, StakesAuthorised, {"game": "g", "table": "T-1", "min_stake_cents": 100,
                                    "max_stake_cents": 1000, "inspector": "INS-1"})  # fmt: skip
    change = (1.0, TableStakes, low | {"reason": "change"})
    assert judge(["MT98.R21.3"], [*base, (0.0, TableStakes, ok), auth, change]) == []
    found = judge(["MT98.R21.3"], [*base, (0.0, TableStakes, ok), change])
    assert any("without the Board's authorisation" in f.message for f in found)


NOTICE = {
    "games": ("g",),
    "min_stakes_cents": (200,),
    "max_stakes_cents": (1000,),
    "conditions": ("No admission under 18",),
    "entrance_fee_cents": 0,
    "displayed": True,
}
STAKES = {"table": "T-1", "game": "g", "min_stake_cents": 200, "max_stake_cents": 1000,
          "reason": "licence"}  # fmt: skip
OPENED = {"table": "T-1", "game": "g", "dealer": "DLR-1", "inspector": "INS-1",
          "equipment": "W-1", "chip_series": "A", "inventory_cents": 0}  # fmt: skip
REQ = (0.0, NoticeRequirements, {"conditions": ("No admission under 18",),
                                 "entrance_fee_cents": 0})  # fmt: skip


def test_notice_taken_down() -> None:
    ok = [REQ, (0.0, TableStakes, STAKES), (0.0, EntranceNotice, NOTICE),
          (0.0, TableOpened, OPENED)]  # fmt: skip
    assert judge(["MT98.R22"], ok) == []
    # a table opens before any notice is up: one finding for the day (not two with the
    # opening's), and one at the next day's opening, still with no notice
    found = judge(["MT98.R22"], [REQ, (0.0, TableStakes, STAKES), (0.0, TableOpened, OPENED)])
    assert [f.message for f in found] == [
        "table T-1 opened with no entrance notice displayed",
        "the casino is open with no entrance notice exhibited: no such function in this casino",
    ]
    assert found[1].at == "2026-03-03T10:01:00+01:00"
    # taken down at 12:00 (open) is a finding; left down, so is each later opening
    down = NOTICE | {"displayed": False}
    found = judge(["MT98.R22"], [*ok, (2 * 3600.0, EntranceNotice, down)])
    assert [(f.at, f.message) for f in found] == [
        ("2026-03-02T12:00:00+01:00", "the entrance notice was taken down while the casino "
         "was open"),
        ("2026-03-03T10:01:00+01:00", "the casino opened with the entrance notice not displayed"),
        ("2026-03-04T10:01:00+01:00", "the casino opened with the entrance notice not displayed"),
    ]  # fmt: skip
    # taken down at 05:00 (closed) is not; but it is not up when the casino opens at 10:00
    # (was: no finding, as R22 was checked only when a table opened; issue 25)
    found = judge(["MT98.R22"], [*ok, (19 * 3600.0, EntranceNotice, down)])
    assert [(f.at, f.message) for f in found] == [
        ("2026-03-03T10:01:00+01:00", "the casino opened with the entrance notice not displayed"),
        ("2026-03-04T10:01:00+01:00", "the casino opened with the entrance notice not displayed"),
    ]
    # put back before the opening: clean
    back = (23 * 3600.0, EntranceNotice, NOTICE)
    assert judge(["MT98.R22"], [*ok, (19 * 3600.0, EntranceNotice, down), back]) == []


def test_no_notice_function() -> None:
    """A casino open with no entrance notice at all (no tables, nobody posts one): one
    finding a day it opens, at its first minute open (issue 25: was never checked)."""
    found = judge(["MT98.R22"], [])
    assert [f.message for f in found] == [
        "the casino is open with no entrance notice exhibited: no such function in this casino"
    ] * 2
    assert [f.at for f in found] == ["2026-03-02T10:01:00+01:00", "2026-03-03T10:01:00+01:00"]
    assert all(f.evidence for f in found)  # the first record of the run (a shift started)


@pytest.mark.parametrize("tables", [False, True])
def test_no_entrance_notice_finds_exactly_r22(tables: bool) -> None:
    """``no_entrance_notice``: a casino (slot floor only, or with a pit) that exhibits no
    notice gets exactly R22's findings, at its first minute open; without the injection a
    casino without tables exhibits its (table-less) notice and runs clean of R22."""
    data = floor_data(TABLES if tables else None)
    data["scenario"]["duration_hours"] = 3.0
    data["inject"] = [{"kind": "no_entrance_notice"}]
    casino, sink = run(data)
    assert casino.compliance is not None
    # R22's own finding here also says "no such function in this casino" (no notice at all):
    # set it aside before checking the door's and the AML function's
    found = [f for f in casino.compliance.findings if f.control == "MT98.R22"]
    others = [f for f in casino.compliance.findings if f.control != "MT98.R22"]
    has = {"door": casino.entrance is not None, "aml": casino.aml is not None}
    assert besides_absent_functions(others, **has) == []
    assert {f.control for f in found} == {"MT98.R22"}, [(f.control, f.message) for f in found]
    assert not sink.of(EntranceNotice)
    # the first of the day: the table opening with no notice, or the first minute open
    want = "opened with no entrance notice displayed" if tables else "no such function"
    assert len(found) == 1 and want in found[0].message
    seqs = {r.seq for r in sink.records}
    assert all(f.evidence and set(f.evidence) <= seqs for f in found)
    if not tables:
        bare = floor_data(None)
        bare["scenario"]["duration_hours"] = 3.0
        casino, sink = run(bare)
        assert casino.compliance is not None
        assert not [f for f in casino.compliance.findings if f.control == "MT98.R22"]
        [n] = sink.of(EntranceNotice)
        assert n.t == 0.0 and n.displayed and n.games == ()


def test_notice_conditions() -> None:
    base = [REQ, (0.0, TableStakes, STAKES)]
    found = judge(["MT98.R22"], [*base, (0.0, EntranceNotice, NOTICE | {"conditions": ()})])
    assert len(found) == 1 and "licence conditions" in found[0].message
    found = judge(
        ["MT98.R22"], [*base, (0.0, EntranceNotice, NOTICE | {"entrance_fee_cents": 500})]
    )
    assert len(found) == 1 and "entrance fee" in found[0].message
    found = judge(
        ["MT98.R22"], [*base, (0.0, EntranceNotice, NOTICE | {"max_stakes_cents": (900,)})]
    )
    assert len(found) == 1 and "stakes in force" in found[0].message


@pytest.mark.parametrize(
    ("policy", "message"),
    [
        ({"notice_conditions": []}, "the entrance notice omits the licence conditions the Board "
         "requires: No admission under 18"),
        ({"notice_entrance_fee_cents": 500}, "the entrance notice shows an entrance fee of "
         "5.00; the Board approved 0.00"),
    ],
)  # fmt: skip
def test_notice_policy_short_of_the_board(policy: dict[str, Any], message: str) -> None:
    """``[tables.policy]`` is what the casino's notice shows, ``[tables]`` notice_conditions
    and entrance_fee_cents what the Board requires (issue 34): a notice that omits a condition
    or shows another fee is exactly R22, once at t = 0 and once at each opening (10:00 the
    next day); the default policy (what the Board requires) is clean."""
    data = floor_data(policy=policy)
    data["scenario"]["duration_hours"] = 26.0
    casino, sink = run(data)
    found = besides_absent(casino)
    assert [(f.control, f.message) for f in found] == [("MT98.R22", message)] * 2
    notices = sink.of(EntranceNotice)
    assert [n.t for n in notices] == [0.0, 24 * 3600.0]
    assert [f.evidence[-1] for f in found] == [n.seq for n in notices]
    [req] = sink.of(NoticeRequirements)  # the Board's requirement is unchanged
    assert (req.conditions, req.entrance_fee_cents) == (("No admission under 18",), 0)
    data = floor_data(policy={"notice_conditions": ["No admission under 18"],
                              "notice_entrance_fee_cents": 0})  # fmt: skip
    data["scenario"]["duration_hours"] = 26.0
    casino, _ = run(data)
    assert [f for f in besides_absent(casino) if f.control == "MT98.R22"] == []


def test_notice_policy_mistakes_are_one_input_error() -> None:
    with pytest.raises(InputError) as err:
        parse_scenario(floor_data(policy={"notice_entrance_fee_cents": -1}), source=str(FLOOR),
                       base_dir=FLOOR.parent)  # fmt: skip
    assert err.value.key == "tables.policy.notice_entrance_fee_cents"
    assert err.value.found == -1 and "integer >= 0" in err.value.expected


def test_unapproved_chips_in_play() -> None:
    approved = (0.0, GamingItemsApproved, {"equipment": ("W-1",), "chip_series": ("A",)})
    assert judge(["MT98.R23.1"], [approved, (1.0, TableStretch, stretch(500))]) == []
    found = judge(["MT98.R23.1"], [approved, (1.0, TableStretch, stretch(500, chip_series="B")),
                                   (2.0, TableStretch, stretch(500, chip_series="B"))])  # fmt: skip
    assert len(found) == 1 and "chips B" in found[0].message


def test_report_to_someone_not_an_inspector() -> None:
    seen = (0.0, UnapprovedItemDetected, {"table": "T-1", "patron": "P", "dealer": "DLR-1",
                                          "item": "chips:X"})  # fmt: skip

    def report(t: float, to: str) -> tuple[float, type[Record], dict[str, Any]]:
        return (t, UnapprovedItemReported, {"table": "T-1", "patron": "P", "dealer": "DLR-1",
                                            "inspector": to, "item": "chips:X",
                                            "detected_seq": 2})  # fmt: skip

    hour = 3600.0
    assert judge(["MT98.R23.3.p"], [seen, report(59 * 60.0, "INS-1")]) == []
    assert len(judge(["MT98.R23.3.p"], [seen, report(61 * 60.0, "INS-1")])) == 1  # too late
    assert len(judge(["MT98.R23.3.p"], [seen, report(0.5 * hour, "DLR-1")])) == 1  # a dealer
    assert len(judge(["MT98.R23.3.p"], [seen])) == 1


def test_unknown_sanction_does_not_count() -> None:
    seen = (0.0, DeviceDetected, {"table": "T-1", "patron": "P", "device": "d", "by": "cctv"})

    def sanction(t: float, kind: str) -> tuple[float, type[Record], dict[str, Any]]:
        return (t, DeviceSanction, {"patron": "P", "sanction": kind, "detected_seq": 2})

    assert judge(["MT98.R23.6"], [seen, sanction(600.0, "police_complaint")]) == []
    assert len(judge(["MT98.R23.6"], [seen, sanction(600.0, "warning")])) == 1
    assert len(judge(["MT98.R23.6"], [seen, sanction(3700.0, "eviction")])) == 1  # after 1 h


def test_card_room_rules() -> None:
    ok = (0.0, CardRoomApproved, {"area": "CR", "hourly_charge_cents": 500})
    opened = {"area": "CR", "displayed": True, "displayed_rate_cents": 500}
    session = {"area": "CR", "patron": "P", "seconds": 5400.0, "hours_billed": 2,
               "rate_cents": 500, "charged_cents": 1000}  # fmt: skip
    assert judge(["MT98.R26"], [ok, (0.0, CardRoomOpened, opened),
                                (1.0, CardRoomSession, session)]) == []  # fmt: skip
    assert len(judge(["MT98.R26"], [(0.0, CardRoomOpened, opened)])) == 1  # not approved
    assert len(judge(["MT98.R26"], [ok, (0.0, CardRoomOpened, opened | {"displayed": False})])) == 1
    found = judge(["MT98.R26"], [ok, (0.0, CardRoomOpened, opened | {"displayed_rate_cents": 400})])
    assert len(found) == 1 and "displays" in found[0].message
    bad = session | {"hours_billed": 3, "charged_cents": 1500}  # 1.5 h billed as 3
    assert len(judge(["MT98.R26"], [ok, (1.0, CardRoomSession, bad)])) == 1


def test_a_device_nobody_detects_is_truth_not_a_finding() -> None:
    """Was: R23.5 read ``table_stretch.device``, set only when surveillance missed the device
    (the twin's truth; issue 25). Now the casino sees a device only when it detects it: a
    missed one is no finding, and the truth (``device_carried``) feeds the detection KPI."""
    data = floor_data(device_share=0.0)
    data["inject"] = [{"kind": "undetected_device", "target": "T-1", "at_hours": 2.0}]
    casino, sink = run(data)
    assert casino.compliance is not None and besides_absent(casino) == []
    [carried] = sink.of(DeviceCarried)
    assert carried.detected == "never" and not sink.of(DeviceDetected)
    assert "device" not in TableStretch.__dataclass_fields__
    k = Metrics.from_records(sink.records).kpis().sections["tables"]["devices"]
    assert k == {"carried": 1, "detected_before_play": 0, "detected_after_play": 0, "missed": 1}


def test_a_device_found_after_play_is_sanctioned_and_found() -> None:
    data = floor_data(device_share=0.0)
    data["inject"] = [CASES["R23.5"]]
    casino, sink = run(data)
    assert casino.compliance is not None
    [f] = besides_absent(casino)
    [seen] = sink.of(DeviceDetected)
    played = next(s for s in sink.of(TableStretch) if s.seq == seen.stretch)
    assert played.patron == seen.patron and played.rounds > 0
    assert f.evidence == (played.seq, seen.seq)
    assert {s.sanction for s in sink.of(DeviceSanction)} == set(TABLES.get(
        "device_sanctions", ["void_wagers", "eviction", "police_complaint"]))  # fmt: skip
    k = Metrics.from_records(sink.records).kpis().sections["tables"]["devices"]
    assert k == {"carried": 1, "detected_before_play": 0, "detected_after_play": 1, "missed": 0}


def test_no_table_or_cage_checker_reads_the_twins_truth() -> None:
    from twin.compliance.registry import registry
    from twin.records import truth_kinds

    truth = truth_kinds()
    assert "device_carried" in truth
    for cid, spec in registry().items():
        if spec.checker.__module__.endswith((".tables", ".cage", ".accounts")):
            assert not set(spec.reads) & truth, cid
