"""Issue 34: the junket desk works to its own procedures (``[junkets.policy]``), the reg 25
controls to the law (malta-1998) and the records.

Policy-only scenarios (no ``[[inject]]``) on the junket floor of tests/test_junkets.py
(scenarios/tiny.toml for 60 hours: junket J1 of leader MJL, 4 members, notified 72 hours
before it arrives on Monday 2 March at 16:00; the licensee's own one-person junket L1 at
20:00; MJL's particulars sent on 3 November 2025, 63 days before its services start on
5 January 2026; two representatives). Each looser desk produces exactly its findings, its
twin with the default policy is clean, a stricter desk is clean, and a bad key is one
``InputError`` naming ``junkets.policy.<key>``.
"""

from __future__ import annotations

from collections import Counter
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from test_junkets import findings, floor_data, run

from twin.casino import Casino
from twin.errors import InputError
from twin.junkets.records import (
    JunketLeaderApplied,
    JunketMemberArrived,
    JunketNotified,
    JunketRepresentativeRegistered,
)
from twin.metrics import Metrics
from twin.records import MemorySink

THIRD = {"name": "Luca Verdi", "address": "Via Dante 1, Napoli, IT", "id_number": "IT-YC1111111"}


def floor(policy: dict[str, Any] | None = None, **schedule: Any) -> dict[str, Any]:
    """The junket floor's data, its desk working to ``policy`` (None: no policy table)."""
    data = floor_data(**schedule)
    if policy is not None:
        data["junkets"]["policy"] = policy
    return data


def controls(casino: Casino) -> Counter[str]:
    return Counter(f.control for f in findings(casino))


def payloads(sink: MemorySink) -> list[tuple[str, float, dict[str, Any]]]:
    return [(r.kind, r.t, r.payload()) for r in sink.records]


def sent(sink: MemorySink) -> dict[str, str]:
    return {r.junket: r.sent for r in sink.of(JunketNotified)}


@pytest.fixture(scope="module")
def default() -> tuple[Casino, MemorySink]:
    return run(floor())


def test_the_default_desk_is_clean_and_the_same_as_no_policy(
    default: tuple[Casino, MemorySink],
) -> None:
    casino, sink = default
    assert findings(casino) == []
    for same in ({}, {"accept_home_residents": False}):
        _, same_sink = run(floor(same))
        assert payloads(same_sink) == payloads(sink)
    # the working numbers set to the scenario's own (72 hours; 63 days) change nothing
    _, pinned = run(floor({"notice_hours": 72.0, "leader_notice_days": 63}))
    assert payloads(pinned) == payloads(sink)
    assert sent(sink) == {"J1": "2026-02-27T16:00:00+01:00", "L1": "2026-02-27T20:00:00+01:00"}
    assert [r.applied for r in sink.of(JunketLeaderApplied)] == ["2025-11-03"]
    assert len(sink.of(JunketRepresentativeRegistered)) == 2


# -- notice_hours (reg 25(6), 25(7)) -------------------------------------------------------------


def test_a_desk_notifying_24_hours_ahead_is_found_on_each_junket() -> None:
    """J1 under 25(6); the licensee's own L1 under 25(6) and 25(7) (its schedule is late too)."""
    casino, sink = run(floor({"notice_hours": 24.0}))
    assert controls(casino) == {"MT98.R25.6": 2, "MT98.R25.7": 1}
    assert sorted(f.subjects[0] for f in findings(casino)) == ["J1", "L1", "L1"]
    assert sent(sink) == {"J1": "2026-03-01T16:00:00+01:00", "L1": "2026-03-01T20:00:00+01:00"}


def test_a_desk_notifying_96_hours_ahead_is_clean() -> None:
    casino, sink = run(floor({"notice_hours": 96.0}))
    assert findings(casino) == []
    assert sent(sink) == {"J1": "2026-02-26T16:00:00+01:00", "L1": "2026-02-26T20:00:00+01:00"}


# -- leader_notice_days (reg 25(2)) --------------------------------------------------------------


def test_a_desk_sending_the_leaders_particulars_13_days_ahead_is_found() -> None:
    casino, sink = run(floor({"leader_notice_days": 13}))
    assert controls(casino) == {"MT98.R25.2": 1}
    (f,) = findings(casino)
    assert f.subjects == ("MJL",)
    assert "2025-12-23" in f.message and "due by 2025-12-22" in f.message
    assert [r.applied for r in sink.of(JunketLeaderApplied)] == ["2025-12-23"]


def test_a_desk_sending_them_40_days_ahead_is_clean() -> None:
    """40 days before 5 January is 26 November, before the licence's issue on 1 December."""
    casino, sink = run(floor({"leader_notice_days": 40}))
    assert findings(casino) == []
    assert [r.applied for r in sink.of(JunketLeaderApplied)] == [date(2025, 11, 26).isoformat()]


# -- max_representatives (reg 25(4)) -------------------------------------------------------------


def three_representatives(policy: dict[str, Any] | None = None) -> dict[str, Any]:
    """MJL names a third representative (the leader's data; whom the desk registers is policy)."""
    data = floor(policy)
    data["junkets"]["leaders"][0]["representatives"].append(dict(THIRD))
    return data


def test_a_desk_registering_a_third_representative_is_found() -> None:
    casino, sink = run(three_representatives({"max_representatives": 3}))
    assert controls(casino) == {"MT98.R25.4": 1}
    (f,) = findings(casino)
    assert f.subjects == ("MJL", "MJL-R3") and "has 3 representatives; at most 2" in f.message
    assert [r.representative for r in sink.of(JunketRepresentativeRegistered)] == [
        "MJL-R1", "MJL-R2", "MJL-R3",
    ]  # fmt: skip
    (notice,) = [r for r in sink.of(JunketNotified) if r.junket == "J1"]
    assert len(notice.representatives) == 3


def test_the_default_desk_registers_the_laws_two_and_is_clean() -> None:
    casino, sink = run(three_representatives())
    assert findings(casino) == []
    assert [r.representative for r in sink.of(JunketRepresentativeRegistered)] == [
        "MJL-R1", "MJL-R2",
    ]  # fmt: skip


def test_a_desk_registering_one_representative_is_clean() -> None:
    casino, sink = run(floor({"max_representatives": 1}))
    assert findings(casino) == []
    assert [r.name for r in sink.of(JunketRepresentativeRegistered)] == ["Marco Bellini"]
    (notice,) = [r for r in sink.of(JunketNotified) if r.junket == "J1"]
    assert notice.representatives == ("Marco Bellini|Via Po 3, Torino, IT|IT-YA1234567",)


def test_the_default_desk_follows_the_law_the_kept_one_does_not() -> None:
    """None is the ruleset's number: under a law of one representative the default desk
    registers one (clean); a desk kept at today's two (``twin compare --operators keep``) is
    found under 25(4)."""
    data = floor()
    data["ruleset"]["overrides"] = {"junket_max_representatives": 1}
    casino, sink = run(data)
    assert findings(casino) == [] and len(sink.of(JunketRepresentativeRegistered)) == 1
    data["junkets"]["policy"] = {"max_representatives": 2}
    casino, _ = run(data)
    assert controls(casino) == {"MT98.R25.4": 1}


def test_operators_keep_pins_the_representatives_to_the_baselines_law() -> None:
    from twin.experiments.arms import POLICY_OF_RULE, kept_policies, load_arm

    assert POLICY_OF_RULE["junket_max_representatives"] == ("junkets", "max_representatives")
    default = Path(__file__).resolve().parent.parent / "scenarios" / "default.toml"
    kept = kept_policies(default, load_arm("malta-1998", "baseline"), 2.0)
    assert ("junkets.policy.max_representatives", 2) in kept
    assert [k for k, _ in kept if k.startswith("junkets.")] == [
        "junkets.policy.max_representatives"
    ]


# -- accept_home_residents (reg 25(1)) -----------------------------------------------------------


def test_a_desk_accepting_members_resident_in_malta_is_found_on_each() -> None:
    """J1's members live in Italy or Malta (drawn): 3 of its 4 are resident in Malta."""
    casino, sink = run(floor({"accept_home_residents": True}, countries=["IT", "MT"]))
    assert controls(casino) == {"MT98.R25.1": 3}
    assert sorted(f.subjects for f in findings(casino)) == [
        ("J1-M1", "J1"), ("J1-M2", "J1"), ("J1-M3", "J1"),
    ]  # fmt: skip
    assert all("resident in MT" in f.message for f in findings(casino))
    residences = {r.member: r.residence for r in sink.of(JunketMemberArrived)}
    assert residences == {"J1-M1": "MT", "J1-M2": "MT", "J1-M3": "MT", "J1-M4": "IT",
                          "L1-M1": "IT"}  # fmt: skip


def test_the_default_desk_turns_them_away_and_is_clean() -> None:
    """The same draws: the desk turns away the 3 members resident in Malta before J1 is
    notified, and J1 comes as a junket of one (its cost: 3 members, their front money)."""
    casino, sink = run(floor(countries=["IT", "MT"]))
    assert findings(casino) == []
    assert [r.member for r in sink.of(JunketMemberArrived)] == ["J1-M4", "L1-M1"]
    (notice,) = [r for r in sink.of(JunketNotified) if r.junket == "J1"]
    assert notice.members == ("J1-M4",) and notice.member_residences == ("IT",)
    kpis = Metrics.from_records(sink.records).kpis().sections["junkets"]
    assert (kpis["members"], kpis["deposits_cents"]) == (2, 1_000_000)


# -- bad input -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("policy", "key", "found"),
    [
        ({"notice_hours": -1.0}, "junkets.policy.notice_hours", "-1.0"),
        ({"notice_hours": "soon"}, "junkets.policy.notice_hours", "soon"),
        ({"leader_notice_days": -1}, "junkets.policy.leader_notice_days", "-1"),
        ({"leader_notice_days": 14.5}, "junkets.policy.leader_notice_days", "14.5"),
        ({"max_representatives": -1}, "junkets.policy.max_representatives", "-1"),
        ({"max_representatives": "two"}, "junkets.policy.max_representatives", "two"),
        ({"accept_home_residents": "yes"}, "junkets.policy.accept_home_residents", "yes"),
        ({"min_deposit_cents": 1}, "junkets.policy.min_deposit_cents", "1"),
    ],
)
def test_a_bad_policy_is_one_input_error(policy: dict[str, Any], key: str, found: str) -> None:
    with pytest.raises(InputError) as err:
        run(floor(policy))
    assert err.value.key == key and found in str(err.value)


def test_the_reg_25_checkers_read_neither_the_policy_nor_the_department() -> None:
    """The controls read the ruleset and the records: their module imports no scenario model
    and not the department."""
    import ast

    import twin.compliance.checks.junkets as checks

    tree = ast.parse(Path(checks.__file__).read_text())
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    imported |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert {m for m in imported if m and m.startswith("twin.")} == {
        "twin.compliance.registry", "twin.junkets.records", "twin.records",
        # the parameters' declarations (issue 26), which import nothing but twin.rules
        "twin.compliance.params", "twin.junkets.params",
    }  # fmt: skip
    for declarations in ("compliance", "junkets"):
        source = Path(checks.__file__).parents[2] / declarations / "params.py"
        tree = ast.parse(source.read_text())
        assert {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module} <= {
            "__future__",
            "twin.rules",
        }
        assert not [n for n in ast.walk(tree) if isinstance(n, ast.Import)]
