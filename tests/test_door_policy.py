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
from test_entrance import FLOOR, of, run, scenario_data

from twin.errors import InputError
from twin.floor.entrance_events import EntryAdmitted, EntryRefused, IdChecked, PersonListed

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
            a, i = next(p for p in young if (p[0].person, p[0].t) == (f.subjects[0], f.t))
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
    from twin.patrons.population import Population
    from twin.scenario import parse_scenario
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
    ],
)
def test_a_bad_door_policy_is_one_precise_error(
    policy: dict[str, Any], key: str, found: str
) -> None:
    from twin.scenario import parse_scenario

    with pytest.raises(InputError) as err:
        parse_scenario(world(**policy), source=str(FLOOR), base_dir=FLOOR.parent)
    assert err.value.key == key and found in str(err.value)
