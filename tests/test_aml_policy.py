"""Issue 34: the AML desk works to its own procedure (``[aml.policy]``), the controls to the law.

A desk that identifies only above Lm 3,000 under the Malta law (Lm 2,000) is a legal scenario
with no ``[[inject]]``: R46(1)/(2) find every cage transaction between the two thresholds, each
once; the same casino with the default policy (the ruleset's) is clean; a licensee that
appoints no Reporting Officer is found under 50(1).
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from typing import Any

from test_aml import baseline, of, run, scenario

from twin.aml.records import ReportingOfficerAppointed
from twin.cage.records import CageTransaction
from twin.errors import InputError
from twin.machines.events import CashedOut

LAW = Fraction(200_000) / Fraction("0.4293")  # Lm 2,000 in euro cents, exactly
POLICY = Fraction(300_000) / Fraction("0.4293")  # Lm 3,000


def test_a_desk_that_identifies_from_lm_3000_is_found_on_each_transaction_between() -> None:
    clean, _ = baseline()
    assert clean.compliance is not None and clean.compliance.findings == []
    casino, records = run(scenario(aml_policy={"id_threshold_cents": 300_000}))
    assert casino.compliance is not None
    found = casino.compliance.findings
    # only the identification clauses: the desk's own procedure is otherwise the law's
    assert set(Counter(f.control for f in found)) <= {
        "MT98.R46.1", "MT98.R46.2", "MT98.R46.3", "MT98.R46.4",
    }  # fmt: skip
    # the transactions between the thresholds: chips bought or cashed at the cage, and a
    # machine's credits cashed out (paid by hand to the person at it)
    band = {
        r.seq: "MT98.R46.1" if r.txn_kind == "buy_in" else "MT98.R46.2"
        for r in of(records, CageTransaction)
        if r.txn_kind in ("buy_in", "redemption") and LAW < r.amount_cents <= POLICY
    } | {
        r.seq: "MT98.R46.2"
        for r in of(records, CashedOut)
        if LAW < r.credits * casino.machine(r.machine).spec.denomination_cents <= POLICY
    }
    assert len(band) >= 4  # the floor has such transactions, of both kinds ...
    single = {f.evidence[-1]: f.control for f in found if f.control in ("MT98.R46.1", "MT98.R46.2")}
    # ... and each is exactly one finding of its clause: buy-ins 46(1), cash-outs 46(2)
    assert single == band
    # nothing above the policy's threshold is found: the desk identified those
    above = [r for r in of(records, CageTransaction) if r.amount_cents > POLICY]
    assert not {r.seq for r in above} & {e for f in found for e in f.evidence}


def test_a_stricter_desk_is_clean_and_identifies_more() -> None:
    _, clean_records = baseline()
    casino, records = run(scenario(aml_policy={"id_threshold_cents": 100_000}))
    assert casino.compliance is not None and casino.compliance.findings == []
    ids = sum(1 for r in records if r.kind == "identification_recorded")
    assert ids > sum(1 for r in clean_records if r.kind == "identification_recorded")


def test_a_licensee_with_no_reporting_officer_is_found_under_50_1() -> None:
    casino, records = run(scenario(aml_policy={"appoint_reporting_officer": False}))
    assert not of(records, ReportingOfficerAppointed)
    assert casino.compliance is not None
    r50 = [f for f in casino.compliance.findings if f.control == "MT98.R50.1"]
    assert len(r50) == 1 and "no Reporting Officer appointed" in r50[0].message


def test_a_bad_aml_policy_is_one_precise_error() -> None:
    import pytest

    with pytest.raises(InputError) as err:
        scenario(aml_policy={"id_threshold_cents": -1})
    assert err.value.key == "aml.policy.id_threshold_cents"
    with pytest.raises(InputError) as err:
        scenario(aml_policy={"apoint_reporting_officer": False})
    assert err.value.key == "aml.policy.apoint_reporting_officer"


def test_compare_the_lm_1000_proposal_with_operators_adapting_or_keeping_lm_2000() -> None:
    """Issue 34: the same proposal, two questions. Operators adapting (today's answer): the
    desk identifies from Lm 1,000 and both arms are clean. Operators keeping Lm 2,000: the
    law moved, the desk did not, and the proposed arm's findings are reg 46's on the
    transactions between the two amounts."""
    from pathlib import Path

    from twin.experiments import Plan, compare, load_arm
    from twin.experiments.arms import kept_policies
    from twin.experiments.report import render_text, to_json

    root = Path(__file__).resolve().parent.parent
    scenario = root / "scenarios" / "aml.toml"
    base = load_arm("malta-1998", "baseline")
    prop = load_arm(root / "scenarios" / "proposals" / "aml-threshold-lm-1000.toml", "proposed")
    kept = tuple(kept_policies(scenario, base, 12.0))
    assert kept == (
        ("aml.policy.id_threshold_cents", 200_000),
        ("aml.policy.session_is_gaming_day", False),
        ("aml.policy.aggregate_in_out_separately", True),
        ("entrance.policy.admission_min_age_years", 18),
        ("floor.policy.hand_pay_second_inspector_above_cents", 0),
        ("floor.policy.program_verification_hours", 24),
        ("floor.policy.min_rtp", 0.85),
        ("junkets.policy.max_representatives", 2),
    )

    def study(operators: str) -> Any:
        plan = Plan(str(scenario), base, prop, replications=2, root_seed=1, hours=12.0,
                    min_replications=2, operators=operators, kept=kept)  # fmt: skip
        return compare(plan, workers=0)

    adapt, keep = study("adapt"), study("keep")

    def found(result: Any, arm: str) -> Counter[str]:
        obs = getattr(result, arm)
        return Counter({k.removeprefix("findings."): v for o in obs for k, v in o.values.items()
                        if k.startswith("findings.") and v})  # fmt: skip

    assert found(adapt, "baseline") == found(adapt, "proposed") == Counter()
    assert found(keep, "baseline") == Counter()
    gap = found(keep, "proposed")
    assert gap and set(gap) <= {"MT98.R46.1", "MT98.R46.2", "MT98.R46.3", "MT98.R46.4"}
    # the baseline arms are the same runs (the operators' choice touches the proposal only)
    assert [o.ledger_sha256 for o in adapt.baseline] == [o.ledger_sha256 for o in keep.baseline]
    text = render_text(keep)
    assert "operators: keep today's procedures under the proposal" in text
    assert "aml.policy.id_threshold_cents = 200000" in text
    assert to_json(keep)["operators_kept"]["aml.policy.id_threshold_cents"] == 200_000
    assert "adapt their procedures to the proposed law" in render_text(adapt)
