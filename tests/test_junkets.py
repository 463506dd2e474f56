"""Junkets (Malta reg 25): the department, its scenario section, its KPIs, and every control
proven both ways: the junket floor runs clean, and each injected violation produces exactly
its control's finding.

The floor is scenarios/tiny.toml for 60 hours with the default scenario's [junkets] section:
junket J1 (leader MJL, 4 members) arrives Monday 16:00 for 24 hours, and the licensee's own
one-person junket L1 arrives at 20:00 for 20 hours.
"""

from __future__ import annotations

import tomllib
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from conftest import besides_absent

from twin.casino import Casino
from twin.compliance.checks.junkets import (
    application_deadline,
    licence_in_force,
    notice_deadline,
)
from twin.compliance.findings import Finding
from twin.departments import load_scenario, parse_scenario
from twin.errors import InputError
from twin.injections import INJECTIONS
from twin.junkets.model import OFF_NOTICE, JunketMisconduct
from twin.junkets.records import (
    JunketArrived,
    JunketChipsApproved,
    JunketChipsIssued,
    JunketDispensation,
    JunketMemberArrived,
    JunketNotified,
    JunketServicesStarted,
    JunketTablePlayed,
)
from twin.metrics import Metrics
from twin.records import MemorySink, Record
from twin.scenario import MISSING

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "scenarios"
ROULETTE = SCENARIOS / "tables" / "roulette-single-zero.toml"
MALTA = ZoneInfo("Europe/Malta")
#: the clauses a casino without a door check or an AML function breaches by itself
ABSENT_CONTROLS = frozenset({"MT98.R45", "MT98.R48", "MT98.R50.1"})
JUNKET_CONTROLS = frozenset(
    f"MT98.R25.{p}" for p in ("1", "2", "4", "5", "6", "7", "8", "9a", "9b")
)
#: the table controls that cover the junket room too (stakes, notice, chips; issue 25)
ROOM_CONTROLS = frozenset({"MT98.R21.1", "MT98.R21.3", "MT98.R22", "MT98.R23.1"})


def floor_data(**schedule: Any) -> dict[str, Any]:
    """The junket floor's scenario data (``schedule`` edits J's schedule)."""
    data = tomllib.loads((SCENARIOS / "tiny.toml").read_text())
    junkets = tomllib.loads((SCENARIOS / "default.toml").read_text())["junkets"]
    data["scenario"]["duration_hours"] = 60.0
    junkets["game"] = str(ROULETTE)
    # no [tables]: the Board's figures for the junket room's game are [junkets]'s
    junkets.update(board_minimum_cents=200, authorised_maximum_cents=50000)
    junkets["schedules"][0].update(first_arrival_hours=6.0, members=4, stay_hours=24.0)
    junkets["schedules"][0].update(schedule)
    junkets["schedules"].append(
        {"prefix": "L", "first_arrival_hours": 10.0, "members": 1, "deposit_cents": 500000,
         "stake_cents": 5000, "rebate_bp": 500, "stay_hours": 20.0}
    )  # fmt: skip
    data["junkets"] = junkets
    return data


def run(data: dict[str, Any], controls: list[str] | None = None) -> tuple[Casino, MemorySink]:
    sc = parse_scenario(data, source="junkets.toml", base_dir=SCENARIOS)
    sink = MemorySink()
    casino = Casino(sc, sinks=[sink], controls=controls)
    casino.run()
    return casino, sink


def findings(casino: Casino) -> list[Finding]:
    """The casino's findings; when its checkers include the door's and the AML function's,
    those this floor's missing functions imply are asserted and left out (tests/conftest.py)."""
    assert casino.compliance is not None
    if {c.spec.id for c in casino.compliance.checkers} >= ABSENT_CONTROLS:
        return besides_absent(casino)
    return casino.compliance.findings_so_far()  # a harness fed by hand is never finished


def controls_found(casino: Casino) -> set[str]:
    return {f.control for f in findings(casino)}


def harness(control: str) -> Casino:
    """A junket floor with one control, fed records by hand (nothing runs)."""
    sc = parse_scenario(floor_data(), source="junkets.toml", base_dir=SCENARIOS)
    return Casino(sc, controls=[control])


# -- the department and its KPIs ---------------------------------------------------------------


def test_the_junket_floor_runs_clean_with_its_economics() -> None:
    casino, sink = run(floor_data())
    assert findings(casino) == []
    kpis = Metrics.from_records(sink.records).kpis().sections["junkets"]
    assert kpis == {
        "junkets": 2,
        "settled": 2,
        "members": 5,
        "deposits_cents": 2_500_000,
        "rolling_turnover_cents": 14_200_000,
        "win_cents": 570_000,
        "commission_cents": 150_240,  # 1.2 % of J1's 12,520,000 rolling turnover
        "rebates_cents": 54_500,
        "net_to_house_cents": 570_000 - 150_240 - 54_500,
    }
    plays = [r for r in sink.records if isinstance(r, JunketTablePlayed)]
    assert sum(p.staked_cents for p in plays if p.junket == "J1") == 12_520_000
    assert {p.table for p in plays} == {"JR-1", "JR-2"}
    assert all(p.chips == "junket" and p.player.startswith(p.junket + "-M") for p in plays)
    notice = next(r for r in sink.records if isinstance(r, JunketNotified) and r.junket == "J1")
    assert notice.t == 0.0  # due 72 h before Monday 16:00: before the run, recorded at t = 0
    assert notice.sent == "2026-02-27T16:00:00+01:00"
    assert notice.arrival == "2026-03-02T16:00:00+01:00"
    assert notice.members == ("J1-M1", "J1-M2", "J1-M3", "J1-M4")


def test_the_junket_room_is_observed_by_the_table_controls() -> None:
    """On the junket floor (no pit) the table controls observe the junket room alone (issue
    25): R21.1 each junket session, R21.3 each session and each junket room table's stakes,
    R22 the one notice and the first minute of each of the 3 openings, R23.1 each of the 5
    issues of junket chips; all checked, clean."""
    casino, sink = run(floor_data())
    assert casino.compliance is not None and findings(casino) == []
    assert (len(sink.of(JunketTablePlayed)), len(sink.of(JunketChipsIssued))) == (19, 5)
    v = {v.control: v for v in casino.compliance.verdicts()}
    got = {c: (v[c].status, v[c].observations) for c in sorted(ROOM_CONTROLS)}
    assert got == {
        "MT98.R21.1": ("checked", 19),
        "MT98.R21.3": ("checked", 19 + 2),
        "MT98.R22": ("checked", 1 + 3),
        "MT98.R23.1": ("checked", 5),
    }


def test_junkets_leave_the_slot_floor_exactly_as_it_was() -> None:
    """The junket department draws on streams of its own: every slot record is the same.
    The junket room is on the entrance notice (issue 25): with it, the notice board records
    the Board's figures for its game and its tables' stakes, and lists them."""
    room = ("board_minimum_stake", "stakes_authorised", "table_stakes", "entrance_notice")

    def slot(records: list[Record]) -> list[tuple[str, float, dict[str, Any]]]:
        return [(r.kind, r.t, r.payload()) for r in records
                if not r.kind.startswith("junket")
                and r.kind not in ("finding", *room)]  # fmt: skip

    def notice(records: list[Record]) -> list[tuple[str, float, dict[str, Any]]]:
        return [(r.kind, r.t, r.payload()) for r in records if r.kind in room]

    def found(casino: Casino) -> list[tuple[float, str, tuple[str, ...], str]]:
        assert casino.compliance is not None
        return [(f.t, f.control, f.subjects, f.message) for f in casino.compliance.findings]

    data = floor_data()
    junkets, with_junkets = run(data)
    del data["junkets"]
    slots, without = run(data)
    assert slot(with_junkets.records) == slot(without.records)
    g = "roulette-single-zero"
    stakes = {"game": g, "min_stake_cents": 5000, "max_stake_cents": 10000, "reason": "licence"}
    listed = {"conditions": (), "entrance_fee_cents": 0, "displayed": True}
    assert notice(with_junkets.records) == [
        ("board_minimum_stake", 0.0, {"game": g, "min_stake_cents": 200}),
        ("stakes_authorised", 0.0, {"game": g, "table": "", "min_stake_cents": 0,
                                    "max_stake_cents": 50000, "inspector": ""}),
        ("table_stakes", 0.0, {"table": "JR-1"} | stakes),
        ("table_stakes", 0.0, {"table": "JR-2"} | stakes),
        ("entrance_notice", 0.0, {"games": (g,), "min_stakes_cents": (5000,),
                                  "max_stakes_cents": (10000,)} | listed),
    ]  # fmt: skip
    assert notice(without.records) == [
        ("entrance_notice", 0.0, {"games": (), "min_stakes_cents": (),
                                  "max_stakes_cents": ()} | listed),
    ]  # fmt: skip
    [approval] = [r for r in with_junkets.records if isinstance(r, JunketChipsApproved)]
    assert approval.t == 0.0 and approval.series == ("NN-J1", "NN-L1")
    # issue 25: this floor has no door and no AML function, and so its findings; they are the
    # same but for their evidence (the junkets' records shift the seqs) and the AML ones only
    # the junket members' money needed
    assert findings(junkets) == [] and findings(slots) == []
    members = {m for r in with_junkets.of(JunketNotified) for m in r.members}
    theirs = [x for x in found(junkets) if set(x[2]) & members]
    assert theirs and all(x[1].startswith("MT98.R46.") for x in theirs)
    assert [x for x in found(junkets) if x not in theirs] == found(slots)
    assert len(with_junkets.records) > len(without.records)


def test_default_scenario_has_a_junket_a_week() -> None:
    sc = load_scenario(SCENARIOS / "default.toml")
    assert sc.junkets is not None
    (s,) = sc.junkets.schedules
    assert s.junket_ids(7 * 24.0) == ["J1"]
    assert s.junket_ids(14 * 24.0) == ["J1", "J2"]
    assert s.members == 6 and s.stay_hours == 48.0 and s.leader == "MJL"


# -- the scenario section ------------------------------------------------------------------------


def test_a_junket_naming_an_unknown_leader_is_one_input_error() -> None:
    data = floor_data(leader="NOBODY")
    with pytest.raises(InputError) as err:
        parse_scenario(data, source="junkets.toml", base_dir=SCENARIOS)
    assert err.value.key == "junkets.schedules[0].leader"
    assert "'MJL'" in err.value.expected


def test_commission_on_a_licensee_junket_is_an_input_error() -> None:
    data = floor_data()
    data["junkets"]["schedules"][1]["commission_bp"] = 100
    with pytest.raises(InputError) as err:
        parse_scenario(data, source="junkets.toml", base_dir=SCENARIOS)
    assert err.value.key == "junkets.schedules[1].commission_bp"


def test_an_unknown_bet_is_an_input_error() -> None:
    data = floor_data()
    data["junkets"]["bet"] = "banker"
    with pytest.raises(InputError) as err:
        run(data)
    assert err.value.key == "junkets.bet"


def test_junket_injection_targets_are_checked_before_t0() -> None:
    data = floor_data()
    data["inject"] = [{"kind": "junket_late_notice", "target": "J7"}]
    with pytest.raises(InputError) as err:
        run(data)
    assert err.value.key == "inject[0].target"
    data["inject"] = [{"kind": "junket_schedule_not_sent", "target": "J1"}]
    with pytest.raises(InputError) as err:
        run(data)
    assert "licensee organises" in err.value.expected
    del data["junkets"]
    data["inject"] = [{"kind": "junket_late_notice", "target": "J1"}]
    with pytest.raises(InputError) as err:
        run(data)
    assert err.value.key == "inject[0].kind"


# -- every control both ways -------------------------------------------------------------------

#: case -> (the control, the injection, the entities a finding may name first)
CASES: dict[str, tuple[str, dict[str, Any], frozenset[str]]] = {
    "R25.1": ("MT98.R25.1", {"kind": "junket_resident_member", "target": "J1"},
              frozenset({"J1-M4"})),
    "R25.2": ("MT98.R25.2", {"kind": "junket_leader_late_application", "target": "MJL"},
              frozenset({"MJL"})),
    "R25.4": ("MT98.R25.4", {"kind": "junket_third_representative", "target": "MJL"},
              frozenset({"MJL"})),
    "R25.5": ("MT98.R25.5", {"kind": "junket_leader_services_ended", "target": "MJL"},
              frozenset({"J1"})),
    "R25.6": ("MT98.R25.6", {"kind": "junket_late_notice", "target": "J1"}, frozenset({"J1"})),
    "R25.6.particular": ("MT98.R25.6", {"kind": "junket_missing_particular", "target": "J1"},
                         frozenset({"J1"})),
    "R25.7": ("MT98.R25.7", {"kind": "junket_schedule_not_sent", "target": "L1"},
              frozenset({"L1"})),
    "R25.8": ("MT98.R25.8", {"kind": "junket_short_deposit", "target": "J1"},
              frozenset({"J1-M1"})),
    "R25.9a": ("MT98.R25.9a", {"kind": "junket_cash_chips", "target": "J1"},
               frozenset({"J1-M1"})),
    "R25.9a.tokens": ("MT98.R25.9a", {"kind": "junket_cash_tokens", "target": "J1"},
                      frozenset({"J1-M1"})),
    "R25.9b": ("MT98.R25.9b", {"kind": "junket_chips_to_outsider", "target": "J1"},
               frozenset({"J1-G1"})),
    # the junket room under the table controls (issue 25)
    "R21.1.junket": ("MT98.R21.1", {"kind": "junket_stake_below_minimum", "target": "J1"},
                     frozenset({"JR-1"})),
    "R21.3.junket": ("MT98.R21.3", {"kind": "junket_stake_above_maximum", "target": "J1"},
                     frozenset({"JR-1"})),
    "R22.junket": ("MT98.R22", {"kind": "junket_room_off_notice"},
                   frozenset({"roulette-single-zero"})),
    "R23.1.junket": ("MT98.R23.1", {"kind": "junket_unapproved_chips", "target": "J1"},
                     frozenset({"J1"})),
}  # fmt: skip


def test_every_junket_control_and_injection_has_a_case() -> None:
    assert {c for c, _, _ in CASES.values()} == JUNKET_CONTROLS | ROOM_CONTROLS
    kinds = {m.value for m in JunketMisconduct} | {OFF_NOTICE}
    assert {i["kind"] for _, i, _ in CASES.values()} == kinds
    assert all(INJECTIONS[k].static for k in kinds)


#: the controls whose injected violation this module proves (tests/test_controls.py); the
#: table controls' cases here are the junket room's, their own are tests/test_pit.py's
INJECTED_CONTROLS = frozenset(c for c, _, _ in CASES.values()) - ROOM_CONTROLS


#: the junket room's findings under the table controls, word for word (issue 25)
ROOM_MESSAGES = {
    "R21.1.junket": "junket room table JR-1 accepted 4 wagers of 1.99 on roulette-single-zero "
    "from J1-M1 (J1), below the minimum stake in force (2.00)",
    "R21.3.junket": "junket room table JR-1 accepted 4 wagers of 500.01 on "
    "roulette-single-zero from J1-M1 (J1), above the authorised maximum (500.00)",
    "R22.junket": "the entrance notice lists no game; the authorised games and stakes in force "
    "are roulette-single-zero 50.00-100.00",
    "R23.1.junket": "junket J1's non-negotiable chips of series NN-J1 were issued at FM-1 for "
    "play in the casino; the Board never approved that series",
}


@pytest.mark.parametrize("case_id", sorted(CASES))
def test_injected_violation_is_found(case_id: str) -> None:
    control, inj, first = CASES[case_id]
    data = floor_data()
    data["inject"] = [inj]
    casino, sink = run(data)
    got = findings(casino)
    assert [f.control for f in got] == [control], [(f.control, f.message) for f in got]
    (f,) = got
    assert f.subjects[0] in first, f
    seqs = {r.seq for r in sink.records}
    assert f.evidence and set(f.evidence) <= seqs
    assert f.at.startswith("2026-03-0")
    if case_id in ROOM_MESSAGES:
        assert f.message == ROOM_MESSAGES[case_id]
        kinds = {r.seq: r.kind for r in sink.records}
        assert (
            sorted(kinds[e] for e in f.evidence)
            == {
                "R21.1.junket": ["board_minimum_stake", "junket_table_played"],
                "R21.3.junket": ["junket_table_played", "stakes_authorised"],
                "R22.junket": ["entrance_notice"],
                "R23.1.junket": ["junket_chips_approved", "junket_chips_issued"],
            }[case_id]
        )
        if case_id.startswith("R21"):
            (play,) = [r for r in sink.of(JunketTablePlayed) if r.seq in f.evidence]
            stake = 199 if case_id == "R21.1.junket" else 50001
            assert (play.rounds, play.staked_cents) == (4, 4 * stake)


def test_junket_room_stakes_beyond_the_board() -> None:
    """Policy only: junket room tables set up with stakes beyond the Board's figures (a
    minimum of 1.99 under its 2.00, a maximum of 500.01 over its authorised 500.00) are
    R21.3's findings, two a table; the notice lists them as they are (no R22)."""
    data = floor_data()
    data["junkets"].update(min_stake_cents=199, max_stake_cents=50001)
    casino, sink = run(data)
    got = findings(casino)
    assert [(f.control, f.subjects, f.message) for f in got] == [
        ("MT98.R21.3", (t,), m)
        for t in ("JR-1", "JR-2")
        for m in (
            f"table {t} set a maximum stake of 500.01 on roulette-single-zero; the Board "
            "authorised a maximum of 500.00",
            f"table {t} set a minimum stake of 1.99, below the Board's minimum for "
            "roulette-single-zero (2.00), with no authorisation",
        )
    ]
    (n,) = [r for r in sink.records if r.kind == "entrance_notice"]
    assert (n.games, n.min_stakes_cents, n.max_stakes_cents) == (
        ("roulette-single-zero",), (199,), (50001,),
    )  # fmt: skip


@pytest.mark.parametrize(
    ("change", "key", "found"),
    [
        ({"board_minimum_cents": None, "authorised_maximum_cents": None},
         "junkets.board_minimum_cents", None),
        ({"authorised_maximum_cents": None}, "junkets.authorised_maximum_cents", MISSING),
        ({"authorised_maximum_cents": 100}, "junkets.authorised_maximum_cents", 100),
        ({"max_stake_cents": 9999}, "junkets.schedules[0].stake_cents", 10000),
        ({"min_stake_cents": 5001}, "junkets.schedules[1].stake_cents", 5000),
    ],
)  # fmt: skip
def test_junket_room_figures_are_one_input_error(
    change: dict[str, Any], key: str, found: object
) -> None:
    data = floor_data()
    for k, v in change.items():
        if v is None:
            del data["junkets"][k]
        else:
            data["junkets"][k] = v
    with pytest.raises(InputError) as err:
        run(data)
    assert (err.value.key, err.value.found) == (key, found)


def test_with_a_pit_the_boards_figures_are_the_tables() -> None:
    """With a [tables] section the Board's figures are [tables]'s, one place for them: a
    [junkets] figure too, or a junket room game [tables] does not name, is one error."""
    data = tomllib.loads((SCENARIOS / "default.toml").read_text())
    data["junkets"].update(board_minimum_cents=500, authorised_maximum_cents=50000)
    with pytest.raises(InputError) as err:
        parse = parse_scenario(data, source="default.toml", base_dir=SCENARIOS)
        Casino(parse)
    assert (err.value.key, err.value.found) == ("junkets.board_minimum_cents", 500)
    data = tomllib.loads((SCENARIOS / "default.toml").read_text())
    del data["tables"]["authorised_maximum_cents"]["punto-banco-8deck"]
    data["tables"]["tables"] = [
        t for t in data["tables"]["tables"] if "punto-banco" not in t["game"]
    ]
    with pytest.raises(InputError) as err:
        Casino(parse_scenario(data, source="default.toml", base_dir=SCENARIOS))
    assert err.value.key == "tables.authorised_maximum_cents"
    assert "'punto-banco-8deck' (played in the junket room)" in err.value.expected


# -- calendar tests ----------------------------------------------------------------------------


def test_fourteen_days_on_the_calendar() -> None:
    assert application_deadline(date(2026, 1, 5), 14) == date(2025, 12, 22)
    assert application_deadline(date(2026, 3, 1), 14) == date(2026, 2, 15)  # February's 28 days
    data = floor_data()
    data["junkets"]["leaders"][0]["applied"] = date(2025, 12, 22)  # 14 days before 5 January
    data["junkets"]["leaders"][0]["licence_issued"] = date(2025, 12, 30)
    casino, _ = run(data, controls=["MT98.R25.2"])
    assert findings(casino) == []
    data["junkets"]["leaders"][0]["applied"] = date(2025, 12, 23)  # 13 days
    casino, _ = run(data, controls=["MT98.R25.2"])
    (f,) = findings(casino)
    assert "2025-12-23" in f.message and "due by 2025-12-22" in f.message


def test_forty_eight_hours_across_dst() -> None:
    """Malta's clocks go forward at 02:00 on 29 March 2026: 48 hours before 12:00 on the
    30th is 11:00 on the 28th, not 12:00."""
    arrival = datetime(2026, 3, 30, 12, 0, tzinfo=MALTA)
    due = notice_deadline(arrival, 48)
    assert datetime(2026, 3, 28, 11, 0, tzinfo=MALTA) <= due
    assert datetime(2026, 3, 28, 11, 0, 1, tzinfo=MALTA) > due
    assert datetime(2026, 3, 28, 12, 0, tzinfo=MALTA) > due  # wall-clock 48 h: 47 real hours
    # the same in a run: the floor starts Friday 27 March; J1 arrives Monday 30 at 12:00
    start = datetime(2026, 3, 27, 10, 0, tzinfo=MALTA)
    hours = (arrival.astimezone(UTC) - start.astimezone(UTC)).total_seconds() / 3600
    assert hours == 73.0  # one hour of the 74 on the wall clock is skipped
    data = floor_data(first_arrival_hours=hours, notice_hours=48.0)
    data["scenario"]["start"] = datetime(2026, 3, 27, 10, 0)
    data["scenario"]["duration_hours"] = 96.0
    casino, sink = run(data, controls=["MT98.R25.6"])
    assert findings(casino) == []
    notice = next(r for r in sink.records if isinstance(r, JunketNotified) and r.junket == "J1")
    assert notice.sent == "2026-03-28T11:00:00+01:00"
    data["junkets"]["schedules"][0]["notice_hours"] = 47.99
    casino, _ = run(data, controls=["MT98.R25.6"])
    assert [f.subjects[0] for f in findings(casino)] == ["J1"]


def test_licence_term_on_the_calendar() -> None:
    issued = date(2021, 3, 2)
    assert licence_in_force(issued, [], 5, 5, None, date(2026, 3, 1))
    assert not licence_in_force(issued, [], 5, 5, None, date(2026, 3, 2))
    assert licence_in_force(issued, [date(2026, 2, 1)], 5, 5, None, date(2031, 3, 1))
    assert not licence_in_force(issued, [date(2026, 2, 1)], 5, 5, None, date(2031, 3, 2))
    lapsed = [date(2026, 6, 1)]  # renewed after it lapsed: a gap, then a new term
    assert not licence_in_force(issued, lapsed, 5, 5, None, date(2026, 5, 31))
    assert licence_in_force(issued, lapsed, 5, 5, None, date(2026, 6, 1))
    assert not licence_in_force(issued, [], 5, 5, date(2024, 1, 1), date(2024, 1, 1))
    # in a run: J1 arrives on Monday 2 March 2026
    data = floor_data()
    leader = data["junkets"]["leaders"][0]
    leader.update(applied=date(2021, 2, 1), licence_issued=date(2021, 3, 3),
                  services_start=date(2021, 4, 1))  # fmt: skip
    casino, _ = run(data, controls=["MT98.R25.5"])
    assert findings(casino) == []  # its last day
    leader["licence_issued"] = date(2021, 3, 2)
    casino, _ = run(data, controls=["MT98.R25.5"])
    (f,) = findings(casino)
    assert f.subjects == ("J1", "MJL") and "expired" in f.message
    leader["renewals"] = [date(2026, 1, 15)]
    casino, _ = run(data, controls=["MT98.R25.5"])
    assert findings(casino) == []


def test_junket_before_the_licence_is_issued() -> None:
    data = floor_data()
    data["junkets"]["leaders"][0]["licence_issued"] = date(2026, 3, 3)
    casino, _ = run(data, controls=["MT98.R25.5"])
    (f,) = findings(casino)
    assert f.subjects == ("J1", "MJL") and "holds no junket leader licence" in f.message


# -- the other parts of each clause ------------------------------------------------------------


def test_domicile_in_malta_is_a_finding() -> None:
    casino = harness("MT98.R25.1")
    casino.bus.emit(JunketMemberArrived, member="J9-M1", junket="J9", name="A", id_number="X1",
                    nationality="IT", domicile="MT", residence="IT", address="Roma")  # fmt: skip
    casino.bus.emit(JunketMemberArrived, member="J9-M2", junket="J9", name="B", id_number="X2",
                    nationality="IT", domicile="IT", residence="IT", address="Roma")  # fmt: skip
    (f,) = findings(casino)
    assert f.subjects == ("J9-M1", "J9") and "domiciled in MT" in f.message


def test_a_member_domiciled_in_malta_resident_abroad() -> None:
    """Policy only (no injection, issue 34): the licensee's one-person junket L1 brings a
    member domiciled in Malta though resident in Italy (``home_domiciled_share = 1``); that
    is exactly R25.1's finding on the domicile alone. Its clean twin (share 0) is clean,
    and every other record of the two runs is the same (the domicile is drawn on a stream
    of its own)."""
    data = floor_data()
    data["junkets"]["schedules"][1]["home_domiciled_share"] = 1.0
    casino, sink = run(data)
    (f,) = findings(casino)
    assert f.control == "MT98.R25.1" and f.subjects == ("L1-M1", "L1")
    assert f.message == ("junket member L1-M1 of L1 is domiciled in MT: junket members must "
                         "be domiciled and resident outside Malta")  # fmt: skip
    (arrived,) = [r for r in sink.of(JunketMemberArrived) if r.member == "L1-M1"]
    assert (arrived.domicile, arrived.residence, arrived.nationality) == ("MT", "IT", "IT")
    assert f.evidence == (arrived.seq,)
    notice = next(r for r in sink.of(JunketNotified) if r.junket == "L1")
    assert notice.member_residences == ("IT",)  # the notice's place of residence: abroad
    twin, twin_sink = run(floor_data())
    assert findings(twin) == []

    def rest(records: list[Record]) -> list[tuple[str, float, dict[str, Any]]]:
        return [(r.kind, r.t, r.payload()) for r in records
                if r.kind not in ("junket_member_arrived", "finding")]  # fmt: skip

    assert rest(sink.records) == rest(twin_sink.records)
    data["junkets"]["schedules"][1]["home_domiciled_share"] = 1.5
    with pytest.raises(InputError) as err:
        run(data)
    assert err.value.key == "junkets.schedules[1].home_domiciled_share"
    assert err.value.found == 1.5 and err.value.expected == "a number in [0, 1]"


def test_services_without_application() -> None:
    casino = harness("MT98.R25.2")
    casino.bus.emit(JunketServicesStarted, leader="X", started="2026-01-05")
    (f,) = findings(casino)
    assert f.subjects == ("X",) and "no licence application" in f.message


def test_leader_particulars_are_checked() -> None:
    data = floor_data()
    data["junkets"]["leaders"][0]["agreement_supplied"] = False
    casino, _ = run(data)
    (f,) = findings(casino)
    assert f.control == "MT98.R25.2" and "copy of the service agreement" in f.message


def _notice(**kw: Any) -> dict[str, Any]:
    base: dict[str, Any] = dict(
        junket="J9", organiser="leader", leader="MJL", licence_number="JL-1",
        representatives=(), members=("J9-M1",), member_names=("A",), member_residences=("IT",),
        member_id_numbers=("X1",), arrival="2026-03-05T10:00:00+01:00", stay_hours=24.0,
        registration="JR-J9", agreement_attached=True, sent="2026-03-01T10:00:00+01:00",
    )  # fmt: skip
    return base | kw


def test_member_not_on_the_notice() -> None:
    casino = harness("MT98.R25.6")
    casino.bus.emit(JunketNotified, **_notice())
    casino.bus.emit(JunketMemberArrived, member="J9-M2", junket="J9", name="B", id_number="X2",
                    nationality="IT", domicile="IT", residence="IT", address="Roma")  # fmt: skip
    (f,) = findings(casino)
    assert f.subjects == ("J9", "J9-M2") and "not on its notice" in f.message


def test_leader_junket_without_agreement() -> None:
    casino = harness("MT98.R25.6")
    casino.bus.emit(JunketNotified, **_notice(agreement_attached=False))
    (f,) = findings(casino)
    assert "copy of the agreement" in f.message


def test_dispensation_needs_notice_before_gaming() -> None:
    casino = harness("MT98.R25.6")
    bus = casino.bus
    bus.emit(JunketDispensation, junket="J9", reason="flight moved")
    bus.emit(JunketArrived, junket="J9", leader="MJL", registration="JR-J9", members=("J9-M1",),
             stay_hours=24.0)  # fmt: skip
    assert findings(casino) == []  # dispensed: no 48 hours
    bus.emit(JunketTablePlayed, player="J9-M1", table="JR-1", junket="J9", chips="junket",
             game="roulette-single-zero", bet="red", rounds=1, staked_cents=100, net_cents=-100,
             started=0.0)  # fmt: skip
    (f,) = findings(casino)
    assert "before its particulars were notified" in f.message
    ok = harness("MT98.R25.6")
    ok.bus.emit(JunketDispensation, junket="J9", reason="flight moved")
    ok.bus.emit(JunketNotified, **_notice(sent="2026-03-02T09:00:00+01:00"))
    ok.bus.emit(JunketTablePlayed, player="J9-M1", table="JR-1", junket="J9", chips="junket",
                game="roulette-single-zero", bet="red", rounds=1, staked_cents=100,
                net_cents=-100, started=0.0)  # fmt: skip
    assert findings(ok) == []


def test_licensee_junket_late_schedule() -> None:
    """A late notice of the licensee's own junket breaches 25(6) and 25(7) both."""
    data = floor_data()
    data["junkets"]["schedules"][1]["notice_hours"] = 47.0
    casino, _ = run(data)
    assert sorted(f.control for f in findings(casino)) == ["MT98.R25.6", "MT98.R25.7"]
    assert {f.subjects[0] for f in findings(casino)} == {"L1"}


def test_single_person_minimum() -> None:
    """Lm 2,000 is EUR 4,658.7468...: EUR 4,658.74 is short, EUR 4,658.75 is not."""
    data = floor_data()
    data["junkets"]["schedules"][1]["deposit_cents"] = 465_874
    casino, _ = run(data, controls=["MT98.R25.8"])
    (f,) = findings(casino)
    assert f.subjects == ("L1-M1", "L1") and "one person" in f.message
    data["junkets"]["schedules"][1]["deposit_cents"] = 465_875
    casino, _ = run(data, controls=["MT98.R25.8"])
    assert findings(casino) == []


def test_deposit_compared_exactly() -> None:
    """Lm 1,000 is EUR 2,329.3734...: EUR 2,329.37 is short for each member, 2,329.38 not."""
    casino, _ = run(floor_data(deposit_cents=232_937), controls=["MT98.R25.8"])
    assert sorted(f.subjects[0] for f in findings(casino)) == [f"J1-M{n}" for n in (1, 2, 3, 4)]
    casino, _ = run(floor_data(deposit_cents=232_938), controls=["MT98.R25.8"])
    assert findings(casino) == []


def test_chips_issued_to_a_non_member() -> None:
    casino = harness("MT98.R25.9b")
    casino.bus.emit(JunketChipsIssued, member="P-123", junket="J9", desk="FM-1",
                    series="NN-J9", amount_cents=1000)  # fmt: skip
    (f,) = findings(casino)
    assert f.subjects[0] == "P-123"


def test_a_missing_table_game_file_is_one_input_error() -> None:
    data = floor_data()
    data["junkets"]["game"] = "tables/no-such-game.toml"
    with pytest.raises(InputError) as err:
        run(data)
    assert err.value.key == "junkets.game"
    assert "no-such-game.toml" in err.value.expected
