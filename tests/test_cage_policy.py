"""Issue 34: how long the casino keeps its books is its own policy (``[cage.policy]``); the
Board asks for what the law says must exist, not for what the casino made.

A casino that keeps its accounts and payment records 3 years (the law: 10 and 5) has no
volume older than that at the start of the run, and nothing in its records says so: the
finding comes when a Board inspector asks for such a period (43(1), 37(3)). The same casino
with the default policy produces every volume asked for.
"""

from __future__ import annotations

from collections import Counter
from datetime import date
from typing import Any

import pytest
from conftest import besides_absent_functions
from dateutil.relativedelta import relativedelta
from test_cage import run, scenario

from twin.cage.books import retention_ends
from twin.cage.records import (
    GamingPaymentAccepted,
    RecordDestroyed,
    RecordsNotProduced,
    RecordsProduced,
    RecordsRequested,
    RecordVolume,
)
from twin.casino import Casino
from twin.compliance.findings import Finding
from twin.errors import InputError

SHORT = {"accounts_years": 3, "payment_records_years": 3}
LAW = {"accounts": 10, "payment_records": 5, "internal_audit": 1}


def test_a_casino_that_keeps_its_books_3_years_is_found_when_the_board_asks() -> None:
    casino, records = run(scenario(policy=SHORT, record_requests_per_day=24.0))
    asked = {r.request: r for r in records if isinstance(r, RecordsRequested)}
    missing = [r for r in records if isinstance(r, RecordsNotProduced)]
    clock = casino.world.clock
    listed = {r.volume: r.seq for r in records if isinstance(r, RecordVolume)}
    gone = {r.volume: r.seq for r in records if isinstance(r, RecordDestroyed)}
    not_held = {  # never listed (destroyed before the run) or destroyed before the request
        r.request
        for r in asked.values()
        if r.volume not in listed or gone.get(r.volume, r.seq) < r.seq
    }
    assert not_held  # the Board asked for periods the casino no longer had ...
    assert {m.request for m in missing} == not_held  # ... and exactly those were missing
    for q in not_held:  # each under the casino's 3 years, never the law's
        r = asked[q]
        assert r.category in SHORT_CATEGORIES
        assert retention_ends(date.fromisoformat(r.last_entry), 3) <= clock.at(r.t).date()
    assert any(asked[q].volume not in listed for q in not_held)  # the invisible ones too
    found = besides_absent_functions(casino.compliance.findings, cage=True)  # no door, no AML
    by_control: dict[str, set[str]] = {}
    for f in found:
        by_control.setdefault(f.control, set()).add(f.subjects[0])
    # one finding per volume: destroyed in the run before the law's period ended, or asked
    # for and missing (destroyed before the run: nothing else shows it)
    control_of = {"accounts": "MT98.R43.1", "payment_records": "MT98.R37.3"}
    expected: dict[str, set[str]] = {}
    for d in records:
        if isinstance(d, RecordDestroyed) and d.category in control_of:
            expected.setdefault(control_of[d.category], set()).add(d.volume)
    for m in missing:
        expected.setdefault(control_of[asked[m.request].category], set()).add(m.volume)
    assert by_control == expected
    assert set(expected) == {"MT98.R43.1", "MT98.R37.3"}
    # every period asked for lies within the law's own period
    for r in asked.values():
        ends = date.fromisoformat(r.last_entry) + relativedelta(years=LAW[r.category])
        assert casino.world.clock.at(r.t).date() < ends


def test_with_the_law_s_periods_every_volume_asked_for_is_produced() -> None:
    casino, records = run(scenario(record_requests_per_day=24.0))
    asked = [r for r in records if isinstance(r, RecordsRequested)]
    produced = [r for r in records if isinstance(r, RecordsProduced)]
    assert asked and not [r for r in records if isinstance(r, RecordsNotProduced)]
    assert len(produced) == len(asked)
    found = besides_absent_functions(casino.compliance.findings, cage=True)
    assert not {"MT98.R43.1", "MT98.R37.3"} & {f.control for f in found}


SHORT_CATEGORIES = {"accounts", "payment_records"}


# --- the cashier's checklist of reg 38(2) particulars ---------------------------------------

#: the particulars of 38(2)(b) and (d) and the payments that carry them
CHEQUE_ONLY = {"account_holder", "bank_address", "guarantee_card"}
ALL = ("account_holder", "bank", "bank_address", "account_number", "number", "guarantee_card")


def r38(casino: Casino) -> list[Finding]:
    return [f for f in besides_absent_functions(casino.compliance.findings, cage=True)
            if f.control == "MT98.R38.2"]  # fmt: skip


def test_the_default_checklist_records_every_particular() -> None:
    casino, records = run(scenario())
    payments = [r for r in records if isinstance(r, GamingPaymentAccepted)]
    assert {p.method for p in payments} == {"cheque", "credit_card", "debit_card"}
    for p in payments:
        for name in ALL:
            if name in CHEQUE_ONLY and p.method != "cheque":
                assert getattr(p, name) == ""  # not a particular of a card payment
            else:
                assert getattr(p, name), (p.payment, name)
    assert not r38(casino)
    # the scenario with the checklist written out in full is the same run
    _, same = run(scenario(policy={"payment_particulars": list(ALL)}))
    assert same == records


@pytest.mark.parametrize("omitted", ALL)
def test_a_checklist_without_a_particular_is_found_on_every_payment_missing_it(
    omitted: str,
) -> None:
    methods = {"cheque"} if omitted in CHEQUE_ONLY else {"cheque", "credit_card", "debit_card"}
    checklist = [p for p in ALL if p != omitted]
    casino, records = run(scenario(policy={"payment_particulars": checklist}))
    payments = [r for r in records if isinstance(r, GamingPaymentAccepted)]
    missing = [p for p in payments if p.method in methods]
    assert missing and all(getattr(p, omitted) == "" for p in missing)
    found = besides_absent_functions(casino.compliance.findings, cage=True)
    # exactly one finding of 38(2) per payment missing it, and nothing else
    assert Counter(f.control for f in found) == {"MT98.R38.2": len(missing)}
    assert sorted(f.evidence for f in found) == sorted((p.seq,) for p in missing)
    assert all(f.message.endswith(f"recorded without {omitted}") for f in found)
    assert {p.method for p in missing} == methods


def test_the_counts_of_checklists_without_a_particular() -> None:
    """The figures of the runs above, pinned: 144 payments (85 cheques, 38 credit and 21
    debit card payments), 144 findings without the account number, 85 without the bank's
    address (cheques only)."""
    for omitted, expected in (("account_number", 144), ("bank_address", 85)):
        casino, records = run(scenario(policy={"payment_particulars": [
            p for p in ALL if p != omitted]}))  # fmt: skip
        methods = Counter(r.method for r in records if isinstance(r, GamingPaymentAccepted))
        assert methods == {"cheque": 85, "credit_card": 38, "debit_card": 21}
        assert len(r38(casino)) == expected


def test_a_casino_keeping_its_books_longer_than_the_law_is_clean_and_destroys_none() -> None:
    """Stricter than the law: accounts kept 12 years (law 10), payment records 8 (law 5).
    Nothing is found, and the cost is the volumes the law would let it destroy, kept."""
    _, law = run(scenario(record_requests_per_day=24.0))
    casino, records = run(scenario(policy={"accounts_years": 12, "payment_records_years": 8},
                                   record_requests_per_day=24.0))  # fmt: skip
    assert not besides_absent_functions(casino.compliance.findings, cage=True)

    def destroyed(recs: list[Any]) -> Counter[str]:
        return Counter(r.category for r in recs if isinstance(r, RecordDestroyed))

    assert destroyed(law) == {"accounts": 3, "payment_records": 3, "internal_audit": 3}
    assert destroyed(records) == {"internal_audit": 3}


@pytest.mark.parametrize(
    ("policy", "key", "found"),
    [
        ({"payment_particulars": ["bank", "iban"]}, "cage.policy.payment_particulars[1]", "iban"),
        ({"payment_particulars": ["bank", "bank"]}, "cage.policy.payment_particulars[1]", "bank"),
        ({"payment_particulars": "bank"}, "cage.policy.payment_particulars", "bank"),
    ],
)
def test_a_bad_checklist_is_one_precise_error(policy: dict[str, Any], key: str, found: str) -> None:
    with pytest.raises(InputError) as err:
        scenario(policy=policy)
    assert err.value.key == key and found in str(err.value)
