"""Issue 34: the door follows its own policy, the controls follow the law.

``[entrance.policy]`` is the casino's procedure (admission age, what the id check looks at),
whose default is what the ruleset requires; ``[patrons.population] minor_share`` puts people
under age in the world. A door looser than the law is a legal scenario whose breaches are found
(no ``[[inject]]``); the same floor with the default policy is clean; a stricter door is clean
and shows its cost in refusals.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from test_entrance import ENTRANCE, FLOOR, build, of, run, scenario_data

from twin.door.records import (
    BoardNotified,
    EntrantPlayed,
    EntryAdmitted,
    EntryRefused,
    IdChecked,
    NoticeCopied,
    PersonListed,
    SelfExclusionRequested,
    StaffRegistered,
    VisitAuthorised,
)
from twin.errors import InputError
from twin.metrics import Metrics

HOURS = 4.0


def world(**policy: Any) -> dict[str, Any]:
    """The entrance test floor with minors in the population and the door's ``policy``."""
    data = scenario_data(hours=HOURS)
    data["patrons"]["population"].update({"minor_share": 0.06, "minor_age": {"dist": "uniform",
                                          "low": 14.0, "high": 18.0}})  # fmt: skip
    if policy:
        data["entrance"]["policy"] = policy
    return data


def controls(casino: Any) -> Counter[str]:
    return Counter(f.control for f in casino.compliance.findings)


@pytest.fixture(scope="module")
def lawful() -> Any:
    return run(world())


def admitted_at_home(sink: Any) -> list[tuple[EntryAdmitted, IdChecked]]:
    checks = {(r.person, r.t): r for r in of(sink, IdChecked) if r.casino == "home"}
    return [
        (a, checks[(a.person, a.t)])
        for a in of(sink, EntryAdmitted)
        if a.casino == "home" and (a.person, a.t) in checks
    ]


def test_with_the_default_policy_minors_are_refused_and_nothing_is_found(lawful: Any) -> None:
    casino, sink = lawful
    minors = [r for r in of(sink, IdChecked) if r.casino == "home" and 0 <= r.age < 18]
    assert minors  # the world holds minors, and they come to the door
    refused = {(r.person, r.t) for r in of(sink, EntryRefused) if r.reason == "under_age"}
    assert {(r.person, r.t) for r in minors} <= refused
    assert not {"MT98.R20.1", "MT98.R24.2"} & set(controls(casino))
    assert all(i.age >= 18 for _, i in admitted_at_home(sink))


def test_a_door_that_admits_from_16_is_found_on_each_admitted_minor(lawful: Any) -> None:
    casino, sink = run(world(admission_min_age_years=16))
    young = [(a, i) for a, i in admitted_at_home(sink) if i.age < 18]
    assert young and all(16 <= i.age < 18 for _, i in young)
    assert all(i.age >= 16 for _, i in admitted_at_home(sink))
    # exactly one R24.2 and one R20.1 finding per admitted minor, and nothing else new
    extra = controls(casino) - controls(lawful[0])
    assert extra == Counter({"MT98.R24.2": len(young), "MT98.R20.1": len(young)})
    by_control: dict[str, list[tuple[str, ...]]] = {}
    for f in casino.compliance.findings:
        by_control.setdefault(f.control, []).append(f.subjects)
    assert sorted(by_control["MT98.R24.2"]) == sorted((a.person, "home") for a, _ in young)
    for f in casino.compliance.findings:
        if f.control == "MT98.R24.2":
            a, i = next(p for p in young if (p[0].person, p[0].t) == (f.subjects[0], f.found_t))
            assert set(f.evidence) == {i.seq, a.seq}
            assert f"a document of age {i.age} (the law: 18)" in f.message


def test_a_door_that_skips_the_boards_list_is_found_on_each_listed_entrant(lawful: Any) -> None:
    casino, sink = run(world(checks=["document_age", "exclusion_list", "staff_register"]))
    listed = {r.person for r in of(sink, PersonListed)}
    let_in = [(a, i) for a, i in admitted_at_home(sink) if a.person in listed]
    assert let_in
    assert all("board_list" not in i.checked for _, i in let_in)
    extra = controls(casino) - controls(lawful[0])
    assert extra["MT98.R24.2"] == len(let_in)
    assert set(extra) <= {"MT98.R24.2", "MT98.R20.1"}


def test_a_stricter_door_is_clean_and_costs_refusals(lawful: Any) -> None:
    casino, sink = run(world(admission_min_age_years=25))
    assert not {"MT98.R20.1", "MT98.R24.2"} & set(controls(casino))
    under = sum(1 for r in of(sink, EntryRefused) if r.reason == "under_age")
    lawful_under = sum(1 for r in of(lawful[1], EntryRefused) if r.reason == "under_age")
    assert under > lawful_under


def test_a_population_without_minors_is_drawn_as_before() -> None:
    """The minors come from a stream of their own: a scenario without them keeps every
    member (and so every ledger) it had."""
    from twin.departments import parse_scenario
    from twin.patrons.population import Population
    from twin.streams import Streams

    def members(data: dict[str, Any]) -> list[tuple[int, str]]:
        sc = parse_scenario(data, source=str(FLOOR), base_dir=FLOOR.parent)
        pop = Population.build(sc.patrons, Streams(1))
        return [(pop.member(i).age, pop.member(i).segment) for i in range(pop.size)]

    base, young = members(scenario_data(hours=HOURS)), members(world())
    changed = [i for i, (a, b) in enumerate(zip(base, young, strict=True)) if a != b]
    assert changed  # some members are minors now ...
    for i in changed:  # ... and only their age differs
        assert young[i][0] < 18 <= base[i][0] and young[i][1] == base[i][1]


@pytest.mark.parametrize(
    ("policy", "key", "found"),
    [
        ({"admission_min_age_years": 200}, "entrance.policy.admission_min_age_years", "200"),
        ({"checks": ["document_age", "palm_reading"]}, "entrance.policy.checks[1]", "palm"),
        ({"checks": ["board_list", "board_list"]}, "entrance.policy.checks[1]", "board_list"),
        ({"copy_notice_minutes": -5}, "entrance.policy.copy_notice_minutes", "-5"),
        ({"copy_notice_minutes": 1.5}, "entrance.policy.copy_notice_minutes", "1.5"),
        ({"peer_visits": "sometimes"}, "entrance.policy.peer_visits", "sometimes"),
        ({"peer_visits": True}, "entrance.policy.peer_visits", "True"),
    ],
)
def test_a_bad_door_policy_is_one_precise_error(
    policy: dict[str, Any], key: str, found: str
) -> None:
    from twin.departments import parse_scenario

    with pytest.raises(InputError) as err:
        parse_scenario(world(**policy), source=str(FLOOR), base_dir=FLOOR.parent)
    assert err.value.key == key and found in str(err.value)


# -- the staff of every casino, the notice of a self-exclusion, employees' visits ------------

#: peers with staff of their own on the Board's register, who try to play at this casino
PEERS: list[dict[str, Any]] = [
    {"id": "peer-a", "visits_per_hour": 30.0, "employees": 6, "directors": 3,
     "staff_play_attempts_per_day": 48.0},
    {"id": "peer-b", "visits_per_hour": 10.0, "employees": 10,
     "staff_play_attempts_per_day": 12.0},
]  # fmt: skip
WITHOUT_STAFF_REGISTER = ["document_age", "board_list", "exclusion_list"]


def staffed(**policy: Any) -> dict[str, Any]:
    """The entrance test floor whose peers have staff who try to play here; this casino's own
    staff make no attempts (so every finding of reg 24(1) is a peer's person)."""
    entrance = dict(ENTRANCE, peers=PEERS, staff_play_attempts_per_day=0.0)
    data = scenario_data(hours=HOURS, entrance=entrance)
    if policy:
        data["entrance"]["policy"] = policy
    return data


def door(**policy: Any) -> dict[str, Any]:
    """The entrance test floor (no minors) with the door's ``policy``."""
    data = scenario_data(hours=HOURS)
    if policy:
        data["entrance"]["policy"] = policy
    return data


def findings(casino: Any, control: str) -> list[Any]:
    return [f for f in casino.compliance.findings if f.control == control]


@pytest.fixture(scope="module")
def staffed_lawful() -> Any:
    return run(staffed())


def test_peers_staff_are_on_the_boards_register_and_refused_here(staffed_lawful: Any) -> None:
    casino, sink = staffed_lawful
    registered = Counter((r.casino, r.category) for r in of(sink, StaffRegistered))
    assert registered[("peer-a", "employee")] == 6 and registered[("peer-a", "director")] == 3
    assert registered[("peer-b", "employee")] == 10 and registered[("peer-b", "director")] == 0
    assert all(r.t == 0.0 for r in of(sink, StaffRegistered))
    peer_staff = {r.person: r.category for r in of(sink, StaffRegistered) if r.casino != "home"}
    tried = [r for r in of(sink, IdChecked) if r.casino == "home" and r.person in peer_staff]
    assert len({r.person[:6] for r in tried}) == 2  # both peers' staff came to the door
    refused = [r for r in of(sink, EntryRefused) if r.person in peer_staff]
    assert [(r.person, r.t) for r in refused] == [(r.person, r.t) for r in tried]
    assert all(r.reason == peer_staff[r.person] and r.casino == "home" for r in refused)
    assert of(sink, EntrantPlayed) == []
    assert not {"MT98.R24.1", "MT98.R24.4"} & set(controls(casino))


def test_a_door_that_skips_the_staff_register_lets_peer_staff_play(staffed_lawful: Any) -> None:
    """No [[inject]]: the door does not consult the Board's register, the peers' staff who
    try are let in and play; reg 24(1) finds each play, and reg 24(4) each entry of a peer's
    employee (their licensee authorised no visit); nothing else changes."""
    casino, sink = run(staffed(checks=WITHOUT_STAFF_REGISTER))
    peer_staff = {r.person: r for r in of(sink, StaffRegistered) if r.casino != "home"}
    played = [r for r in of(sink, EntrantPlayed) if r.casino == "home"]
    assert played and {r.person for r in played} <= set(peer_staff)
    lawful_tries = [r for r in of(staffed_lawful[1], IdChecked) if r.person in peer_staff]
    assert [(r.person, r.t) for r in played] == [(r.person, r.t) for r in lawful_tries]
    entered = [r for r in of(sink, EntryAdmitted) if r.person in peer_staff]
    employees = [r for r in entered if peer_staff[r.person].category == "employee"]
    assert employees and len(employees) < len(entered)  # directors play too
    assert (len(played), len(employees)) == (9, 6)  # this floor and seed: 9 plays, 6 by employees
    assert controls(casino) - controls(staffed_lawful[0]) == Counter(
        {"MT98.R24.1": len(played), "MT98.R24.4": len(employees)}
    )
    assert not controls(staffed_lawful[0]) - controls(casino)
    r241 = findings(casino, "MT98.R24.1")
    assert sorted(f.subjects for f in r241) == sorted((r.person,) for r in played)
    for f, r in zip(sorted(r241, key=lambda f: f.t), played, strict=True):
        assert f.evidence == (peer_staff[r.person].seq, r.seq)
        assert f"({peer_staff[r.person].category}) took part in gaming at home" in f.message
    r244 = findings(casino, "MT98.R24.4")
    assert sorted(f.subjects for f in r244) == sorted((r.person, "home") for r in employees)


def test_a_licensee_that_copies_late_is_found_on_each_request() -> None:
    """No [[inject]]: the licensee notifies the Board and copies the peers 90 minutes after
    each written request made here; reg 24(3) finds each request, and each admission at a
    peer that had no copy yet. The default policy is clean."""
    lawful, lawful_sink = run(door())
    assert not findings(lawful, "MT98.R24.3")
    assert [r for r in of(lawful_sink, SelfExclusionRequested) if r.casino == "home"]
    casino, sink = run(door(copy_notice_minutes=90))
    here = [r for r in of(sink, SelfExclusionRequested) if r.casino == "home"]
    assert here
    late = 90 * 60.0
    board = {r.request: r.t for r in of(sink, BoardNotified)}
    copies = Counter((r.request, r.to_casino, r.t) for r in of(sink, NoticeCopied))
    for req in here:
        if req.t + late <= HOURS * 3600.0:
            assert board[req.seq] == req.t + late
            assert copies[(req.seq, "peer-a", req.t + late)] == 1
            assert copies[(req.seq, "peer-b", req.t + late)] == 1
    for req in of(sink, SelfExclusionRequested):  # the peers' licensees follow the law
        if req.casino != "home":
            assert board[req.seq] == req.t
    meanwhile = [
        a
        for a in of(sink, EntryAdmitted)
        for req in here
        if a.person == req.person and a.casino != "home" and req.t < a.t < req.t + late
    ]
    r243 = findings(casino, "MT98.R24.3")
    assert len(r243) == len(here) + len(meanwhile)
    assert (len(here), len(meanwhile)) == (3, 0)  # this floor and seed
    assert not controls(lawful) - controls(casino)
    assert set(controls(casino) - controls(lawful)) == {"MT98.R24.3"}
    notices = sorted(f.subjects for f in r243 if "request" in f.message)
    assert notices == sorted((r.person, "home", "peer-a", "peer-b") for r in here)
    for f in r243:
        if "request" in f.message:
            assert "the Board was not notified in writing at once" in f.message
            assert "no copy went at once to peer-a, peer-b" in f.message


def test_a_late_copy_shows_when_the_person_is_admitted_at_a_peer_meanwhile() -> None:
    """A world of 150 people: a person who asked this casino for self-exclusion comes to a
    peer's door within the 120 minutes before its copy, and is admitted; reg 24(3) finds the
    request and the admission (the peer did not know: not reg 24(2)). The default is clean."""

    def small(**policy: Any) -> dict[str, Any]:
        data = door(**policy)
        data["patrons"]["population"]["size"] = 150
        return data

    lawful = run(small())[0]
    assert not findings(lawful, "MT98.R24.3")
    casino, sink = run(small(copy_notice_minutes=120))
    here = {r.person: r for r in of(sink, SelfExclusionRequested) if r.casino == "home"}
    meanwhile = [
        a
        for a in of(sink, EntryAdmitted)
        if a.person in here and a.casino != "home" and 0 < a.t - here[a.person].t < 7200.0
    ]
    assert (len(here), len(meanwhile)) == (3, 2)  # this floor and seed
    r243 = findings(casino, "MT98.R24.3")
    assert len(r243) == 5
    assert controls(casino) - controls(lawful) == Counter({"MT98.R24.3": 5})
    admitted = sorted(f.subjects for f in r243 if "admitted" in f.message)
    assert admitted == sorted((a.person, a.casino) for a in meanwhile)
    for f in r243:
        if "admitted" in f.message:
            a = next(a for a in meanwhile if (a.person, a.t) == (f.subjects[0], f.found_t))
            assert f.evidence == (here[a.person].seq, a.seq)
            assert f"asked for self-exclusion at home and was admitted at {a.casino}" in f.message


def test_unauthorised_peer_visits_are_found_on_each_visit() -> None:
    """No [[inject]]: the employees visit the peers as before, with no authorisation of the
    licensee; reg 24(4) finds each visit, and nothing else changes. The default policy
    authorises each beforehand (clean); a licensee that authorises none has no visits."""
    lawful, lawful_sink = run(door())
    casino, sink = run(door(peer_visits="unauthorised"))
    strict, strict_sink = run(door(peer_visits="none"))

    def visits(sink: Any) -> list[tuple[str, str, float]]:
        return [(r.person, r.casino, r.t) for r in of(sink, EntryAdmitted) if r.purpose == "visit"]

    assert visits(lawful_sink) and visits(sink) == visits(lawful_sink)
    assert of(lawful_sink, VisitAuthorised) and of(sink, VisitAuthorised) == []
    assert not findings(lawful, "MT98.R24.4")
    assert controls(casino) - controls(lawful) == Counter({"MT98.R24.4": len(visits(sink))})
    assert len(visits(sink)) == 2  # this floor and seed
    assert not controls(lawful) - controls(casino)
    r244 = findings(casino, "MT98.R24.4")
    assert sorted(f.subjects for f in r244) == sorted((p, c) for p, c, _ in visits(sink))
    assert all("with no prior authorisation" in f.message for f in r244)
    # stricter: no authorisation, no visit; clean, at the cost of every visit
    assert visits(strict_sink) == [] and of(strict_sink, VisitAuthorised) == []
    assert not findings(strict, "MT98.R24.4")
    kpis = Metrics.from_records(strict_sink.records).kpis().sections["entrance"]
    assert (kpis["visits_authorised"], kpis["employee_visits"]) == (0, 0)
    lawful_kpis = Metrics.from_records(lawful_sink.records).kpis().sections["entrance"]
    assert lawful_kpis["employee_visits"] == len(visits(lawful_sink))


def test_a_stricter_door_with_peer_staff_is_clean_and_costs_refusals(
    staffed_lawful: Any,
) -> None:
    """The strictest door: admits from 21 and consults every list and the register; copies
    at once (nothing is faster than the law's 'immediately'); authorises no visit. No finding
    of regs 20 or 24, and more refusals and no employee visits than the law's door."""
    casino, sink = run(staffed(admission_min_age_years=21, peer_visits="none"))
    regs = {"MT98.R20.1", "MT98.R24.1", "MT98.R24.2", "MT98.R24.3", "MT98.R24.4"}
    assert not regs & set(controls(casino))
    kpis = Metrics.from_records(sink.records).kpis().sections["entrance"]
    law = Metrics.from_records(staffed_lawful[1].records).kpis().sections["entrance"]
    assert kpis["refusals"] > law["refusals"]
    assert kpis["employee_visits"] == 0 < law["employee_visits"]


def test_a_scenario_without_peer_staff_draws_as_before() -> None:
    """The peers' staff attempts have a stream of their own (peer id, "staff_attempts"): the
    same floor with staff at the peers who never try to play records the same run plus their
    registration."""
    plain = run(door())[1].records
    quiet = [dict(p, employees=5, directors=1) for p in ENTRANCE["peers"]]
    registered = run(scenario_data(hours=HOURS, entrance=dict(ENTRANCE, peers=quiet)))[1].records

    def kinds(records: Any) -> list[tuple[str, float]]:
        return [(type(r).__name__, r.t) for r in records if not isinstance(r, StaffRegistered)]

    assert kinds(registered) == kinds(plain)
    assert (
        sum(isinstance(r, StaffRegistered) for r in registered)
        == sum(isinstance(r, StaffRegistered) for r in plain) + 12
    )


@pytest.mark.parametrize(
    ("peer", "key", "found"),
    [
        ({"employees": -1}, "entrance.peers[0].employees", "-1"),
        ({"directors": 10_001}, "entrance.peers[0].directors", "10001"),
        ({"staff_play_attempts_per_day": 2.0}, "entrance.peers[0].staff_play_attempts_per_day",
         "2.0"),
    ],
)  # fmt: skip
def test_a_bad_peer_staff_is_one_precise_error(peer: dict[str, Any], key: str, found: str) -> None:
    from twin.departments import parse_scenario

    peers = [dict(ENTRANCE["peers"][0], **peer), ENTRANCE["peers"][1]]
    data = scenario_data(hours=HOURS, entrance=dict(ENTRANCE, peers=peers))
    with pytest.raises(InputError) as err:
        parse_scenario(data, source=str(FLOOR), base_dir=FLOOR.parent)
    assert err.value.key == key and found in str(err.value)


def test_a_peer_staff_id_taken_by_a_director_is_one_precise_error() -> None:
    peers = [dict(ENTRANCE["peers"][0], directors=1), ENTRANCE["peers"][1]]
    entrance = dict(ENTRANCE, peers=peers, directors=["DIR-01", "peer-a-D01"])
    with pytest.raises(InputError) as err:
        build(scenario_data(hours=HOURS, entrance=entrance))
    assert err.value.key == "entrance.peers[0].id" and "peer-a" in str(err.value)
