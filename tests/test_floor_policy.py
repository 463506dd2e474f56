"""Issue 34: the slot floor works to its own procedures (``[floor.policy]``), the controls to
the law.

Three procedures of the floor used to read the ruleset directly: how many Board inspectors it
calls to a hand pay (a proposal's ``hand_pay_second_inspector_above_cents``), how often the
inspectors challenge every program (``program_verification_hours``) and which approved pay
table it installs (``min_rtp``). Each is now a key of ``[floor.policy]``, by default the
ruleset's. A floor looser than the law is a legal scenario (no ``[[inject]]``) whose breaches
the controls find; the same floor with the default policy is clean; a stricter floor is clean
and shows its cost.

The test floor is ``tiny.toml`` (4 machines) with two inspectors on shift, for 16 hours. It has
no door, AML desk or cage, so four controls find those functions absent on every run
(:data:`ABSENT`): the floor's own findings are what a policy adds to them.
"""

from __future__ import annotations

import tomllib
from collections import Counter
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from test_aml import run

from twin.casino import Casino
from twin.departments import parse_scenario
from twin.errors import InputError
from twin.metrics import Metrics
from twin.records import Record
from twin.slots.section import FloorPolicy
from twin.staff.records import JobCompleted, JobStarted

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "scenarios"
HOURS = 16.0
#: the tiny floor's departments that are not there, found as absent on every run
ABSENT = Counter({"MT98.R45": 1, "MT98.R48": 1, "MT98.R50.1": 1, "MT98.R41.a": 1, "MT98.R8": 1})
LM10 = 1_000  # a proposal's amount: Lm 10.00, in cents of the regulation's currency
ABOVE = Fraction(LM10) / Fraction("0.4293")  # Lm 10 in euro cents, exactly (EUR 23.29...)
PAY_TABLES = ["games/classic-3reel-87.toml", "games/classic-3reel-90.toml"]


def scenario(policy: dict[str, Any] | None = None, pay_tables: bool = False, **law: Any) -> Any:
    """The tiny floor for 16 hours with 2 inspectors on shift, its ``policy`` and ``law``
    (ruleset overrides); ``pay_tables``: bank A may run the 86.75 % or 90.17 % pay table."""
    data = tomllib.loads((SCENARIOS / "tiny.toml").read_text())
    data["scenario"]["duration_hours"] = HOURS
    data["staff"]["shifts"][0]["crew"]["inspector"] = 2
    if pay_tables:
        data["floor"]["banks"][0]["pay_tables"] = PAY_TABLES
    if policy is not None:
        data["floor"]["policy"] = policy
    data["ruleset"]["overrides"] = dict(law)
    return parse_scenario(data, source="test", base_dir=SCENARIOS)


def found(casino: Casino) -> Counter[str]:
    assert casino.compliance is not None
    return Counter(f.control for f in casino.compliance.findings)


def hand_pay_inspectors(records: list[Record]) -> dict[tuple[str, float], int]:
    """(machine, requested_t) -> how many Board inspectors staffed each hand-pay job."""
    return {
        (r.machine, r.requested_t): r.roles.count("inspector")
        for r in records
        if isinstance(r, JobStarted) and r.job_kind == "hand_pay"
    }


@pytest.fixture(scope="module")
def lawful() -> tuple[Casino, list[Record]]:
    return run(scenario())


def test_the_default_policy_is_the_ruleset_s_and_clean(
    lawful: tuple[Casino, list[Record]],
) -> None:
    assert FloorPolicy() == FloorPolicy(
        hand_pay_second_inspector_above_cents=None, program_verification_hours=None, min_rtp=None
    )
    casino, records = lawful
    assert found(casino) == ABSENT
    # one inspector at every hand pay (the text's rule), a verification every 24 hours
    assert set(hand_pay_inspectors(records).values()) == {1}
    assert casino.verifier.hours == 24


# -- (a) the second inspector ------------------------------------------------------------------


def test_a_floor_that_never_calls_a_second_inspector_is_found() -> None:
    """Under a proposal of two inspectors above Lm 10, a floor whose policy is never to call
    a second one (0) is found under 10(a) on each hand pay above Lm 10, once; the same floor
    with the default policy calls two and is clean."""
    clean, clean_records = run(scenario(hand_pay_second_inspector_above_cents=LM10))
    assert found(clean) == ABSENT
    paid = {(r.machine, r.requested_t): r.cents for r in clean_records if r.kind == "hand_paid"}
    staffed = hand_pay_inspectors(clean_records)
    assert {k: staffed[k] for k in paid} == {k: 2 if c > ABOVE else 1 for k, c in paid.items()}

    casino, records = run(
        scenario({"hand_pay_second_inspector_above_cents": 0},
                 hand_pay_second_inspector_above_cents=LM10)
    )  # fmt: skip
    hand_pays = [r for r in records if r.kind == "hand_paid"]
    above = sorted(r.seq for r in hand_pays if r.cents > ABOVE)
    assert sorted(r.cents for r in hand_pays) == [25, 1375, 1600, 2700, 10750, 44500]
    assert len(above) == 3  # EUR 27.00, 107.50 and 445.00: each above Lm 10 (EUR 23.29...)
    assert found(casino) == ABSENT + Counter({"MT98.S1.10a": 3})
    assert casino.compliance is not None
    s110a = [f for f in casino.compliance.findings if f.control == "MT98.S1.10a"]
    assert sorted(f.evidence[-1] for f in s110a) == above
    assert all("MTL 10.00" in f.message and "1 Board inspector, not two" in f.message
               for f in s110a)  # fmt: skip
    assert set(hand_pay_inspectors(records).values()) == {1}


def test_a_floor_calling_two_inspectors_to_every_hand_pay_is_clean_and_costs_inspector_time(
    lawful: tuple[Casino, list[Record]],
) -> None:
    """Stricter than the text (one inspector): two at every hand pay above Lm 0.01. Clean;
    nobody waits longer on this quiet floor, but the inspectors spend each of the 6 hand pays'
    service time twice: busy 6,181.297 s -> 9,791.469 s of 115,200 s on duty."""
    casino, records = run(scenario({"hand_pay_second_inspector_above_cents": 1}))
    assert found(casino) == ABSENT
    assert set(hand_pay_inspectors(records).values()) == {2}

    def inspectors(c: Casino, recs: list[Record]) -> Any:
        return Metrics.from_records(recs).kpis(c.end).utilisation["inspector"]

    law, strict = inspectors(*lawful), inspectors(casino, records)
    assert (law["busy_s"], law["utilisation"]) == (6181.297, 0.0537)
    assert (strict["busy_s"], strict["utilisation"]) == (9791.469, 0.085)
    service = sum(r.t - r.started_t for r in records
                  if isinstance(r, JobCompleted) and r.job_kind == "hand_pay")  # fmt: skip
    assert strict["busy_s"] - law["busy_s"] == pytest.approx(service, abs=1e-3)


# -- (b) program verification --------------------------------------------------------------------


def verifications(records: list[Record]) -> Counter[str]:
    return Counter(r.reason for r in records if r.kind == "program_verified")  # type: ignore[attr-defined]


def test_the_floor_verifies_programs_as_often_as_its_policy_says() -> None:
    """Under a law of every 2 hours, a floor that verifies every 6 hours challenges the 4
    machines twice (8 scheduled challenges) instead of 7 times (28). No control reads the
    interval (the text names none: reg 28's First Schedule leaves it to the Board), so the
    looser floor is not found; what it gives up is how soon a changed program is seen."""
    law, law_records = run(scenario(program_verification_hours=2))
    assert verifications(law_records) == Counter({"install": 4, "scheduled": 28, "closing": 4})
    loose, loose_records = run(scenario({"program_verification_hours": 6},
                                        program_verification_hours=2))  # fmt: skip
    assert verifications(loose_records) == Counter({"install": 4, "scheduled": 8, "closing": 4})
    assert found(law) == found(loose) == ABSENT


def test_a_floor_verifying_more_often_than_the_law_is_clean_and_challenges_more(
    lawful: tuple[Casino, list[Record]],
) -> None:
    _, law_records = lawful
    assert verifications(law_records) == Counter({"install": 4, "closing": 4})  # 16 h < 24 h
    casino, records = run(scenario({"program_verification_hours": 2}))
    assert found(casino) == ABSENT
    assert verifications(records) == Counter({"install": 4, "scheduled": 28, "closing": 4})


# -- (c) the pay table ---------------------------------------------------------------------------


def test_a_floor_installing_a_pay_table_below_the_law_s_minimum_is_found_on_each_machine() -> None:
    """Under a 90 % minimum, the operator's own 85 % installs the 86.75 % pay table: 1(a)
    finds each of the 4 machines once; the default policy installs the 90.17 % one, clean."""
    clean, _ = run(scenario(pay_tables=True, min_rtp=0.9))
    assert {m.game.id for m in clean.machines} == {"classic-3reel-90"}
    assert found(clean) == ABSENT

    casino, _ = run(scenario({"min_rtp": 0.85}, pay_tables=True, min_rtp=0.9))
    assert {m.game.id for m in casino.machines} == {"classic-3reel-87"}
    assert found(casino) == ABSENT + Counter({"MT98.S1.1a": 4})
    assert casino.compliance is not None
    s11a = [f for f in casino.compliance.findings if f.control == "MT98.S1.1a"]
    assert sorted(f.subjects[0] for f in s11a) == ["A-001", "A-002", "A-003", "A-004"]
    assert all("86.7523%, below the minimum 90.00%" in f.message for f in s11a)


def test_a_floor_installing_a_richer_pay_table_than_the_law_needs_is_clean_and_holds_less() -> None:
    """Stricter: 90 % under the law's 85 %. Clean; the designed hold falls from 13.25 % to
    9.83 % of the money played (exact PAR returns 28427/32768 and 29547/32768)."""
    law, _ = run(scenario(pay_tables=True))
    strict, _ = run(scenario({"min_rtp": 0.9}, pay_tables=True))
    assert {m.game.id for m in law.machines} == {"classic-3reel-87"}
    assert {m.game.id for m in strict.machines} == {"classic-3reel-90"}
    assert found(law) == found(strict) == ABSENT

    def hold(c: Casino) -> Fraction:
        (sig,) = {m.game.signature for m in c.machines}
        a = c.facts.analysis(sig)
        assert a is not None
        return 1 - a.rtp

    assert hold(law) == Fraction(4341, 32768) and hold(strict) == Fraction(3221, 32768)


# -- bad input -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("hand_pay_second_inspector_above_cents", -1),
        ("hand_pay_second_inspector_above_cents", 50.5),
        ("program_verification_hours", -2.0),
        ("program_verification_hours", "daily"),
        ("min_rtp", 1.5),
        ("min_rtp", "0.9"),
        ("min_rpt", 0.9),
    ],
)
def test_a_bad_floor_policy_is_one_error_naming_its_key(key: str, value: Any) -> None:
    with pytest.raises(InputError) as err:
        scenario({key: value})
    assert err.value.key == f"floor.policy.{key}"


# -- twin compare --operators keep ---------------------------------------------------------------


def test_compare_the_90_percent_proposal_with_the_floor_adapting_or_keeping_85() -> None:
    """``--operators keep`` pins the floor's minimum return at today's 85 %: under the 90 %
    proposal the 12 machines of bank B keep their 86.75 % pay table and 1(a) finds each, in
    each replication; operators who adapt install the 90.17 % table on them."""
    from twin.experiments import Plan, compare, load_arm
    from twin.experiments.arms import kept_policies

    study = SCENARIOS / "study.toml"
    base = load_arm("malta-1998", "baseline")
    prop = load_arm(SCENARIOS / "proposals" / "min-return-90.toml", "proposed")
    kept = tuple(kept_policies(study, base, 2.0))
    assert kept == (
        ("floor.policy.hand_pay_second_inspector_above_cents", 0),
        ("floor.policy.program_verification_hours", 24),
        ("floor.policy.min_rtp", 0.85),
    )

    def run_study(operators: str) -> Any:
        plan = Plan(str(study), base, prop, replications=2, root_seed=1, hours=2.0,
                    min_replications=2, operators=operators, kept=kept)  # fmt: skip
        return compare(plan, workers=0)

    def s11a(result: Any, arm: str) -> list[float]:
        return [o.values.get("findings.MT98.S1.1a", 0.0) for o in getattr(result, arm)]

    adapt, keep = run_study("adapt"), run_study("keep")
    assert s11a(adapt, "baseline") == s11a(keep, "baseline") == [0.0, 0.0]
    # adapting: the 8 linked machines of bank P (no other pay table) fall below 90 % anyway
    assert s11a(adapt, "proposed") == [8.0, 8.0]
    # keeping 85 %: bank B's 12 machines too, on their 86.75 % pay table
    assert s11a(keep, "proposed") == [20.0, 20.0]
    assert [o.ledger_sha256 for o in adapt.baseline] == [o.ledger_sha256 for o in keep.baseline]


def test_compare_two_inspectors_above_lm_50_with_the_floor_adapting_or_keeping_one() -> None:
    """Under the proposal of two inspectors above Lm 50, operators who keep calling one
    inspector run the same floor as the baseline (the same waits) and 10(a)
    finds the hand pay above Lm 50 (one, in replication 2); operators who adapt call two and
    patrons wait longer (p95 501.859 s -> 765.484 s in replication 2)."""
    from twin.experiments import Plan, compare, load_arm
    from twin.experiments.arms import kept_policies

    study = SCENARIOS / "study.toml"
    base = load_arm("malta-1998", "baseline")
    prop = load_arm(SCENARIOS / "proposals" / "two-inspectors-above-lm-50.toml", "proposed")
    kept = tuple(kept_policies(study, base, 4.0))

    def run_study(operators: str) -> Any:
        plan = Plan(str(study), base, prop, replications=2, root_seed=1, hours=4.0,
                    min_replications=2, operators=operators, kept=kept)  # fmt: skip
        return compare(plan, workers=0)

    def values(result: Any, arm: str, key: str) -> list[float]:
        return [o.values.get(key, 0.0) for o in getattr(result, arm)]

    adapt, keep = run_study("adapt"), run_study("keep")
    s110a, p95 = "findings.MT98.S1.10a", "hand_pay_wait_p95_s"
    assert values(adapt, "baseline", s110a) == values(adapt, "proposed", s110a) == [0.0, 0.0]
    assert values(keep, "proposed", s110a) == [0.0, 1.0]
    assert values(adapt, "baseline", p95) == values(keep, "proposed", p95) == [368.516, 501.859]
    assert values(adapt, "proposed", p95) == [368.516, 765.484]
