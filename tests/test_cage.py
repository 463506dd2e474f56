"""The cage (regs 23(4), 37-43): injected violations, calendar periods, the count."""

from __future__ import annotations

import tomllib
from datetime import date, datetime
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from conftest import besides_absent

from twin.cage.books import retention_ends
from twin.cage.records import (
    CageTransaction,
    DropCounted,
    DropVarianceInvestigated,
    GamingPaymentAccepted,
    UnclaimedRegistered,
    UnclaimedWrittenOff,
)
from twin.casino import Casino
from twin.compliance.checks.accounts import AuditedStatements
from twin.departments import parse_scenario
from twin.errors import InputError
from twin.records import Record

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"

CAGE = {
    "visit_share": 0.5,
    "methods": {"cash": 0.3, "cheque": 0.4, "credit_card": 0.2, "debit_card": 0.1},
    "dishonour_rate": 1.0,
    "represented_paid_share": 1.0,
    "represent_days": 1,
    "unclaimed_per_day": 6.0,
    "statements_after_days": 89,
    "record_requests_per_day": 4.0,
}


def scenario(inject: tuple[dict[str, Any], ...] = (), **cage: Any) -> Any:
    """The tiny floor from Sunday 29 March 2026 for 100 hours (over the month end), a cage."""
    data = tomllib.loads((SCENARIOS / "tiny.toml").read_text())
    data["scenario"] |= {"start": datetime(2026, 3, 29, 10, 0), "duration_hours": 100.0}
    data["floor"]["drop_collection"] = "04:30"
    data["staff"]["roles"] = [
        {"id": "attendant", "prefix": "ATT", "title": "Slot attendant"},
        {"id": "technician", "prefix": "TEC", "title": "Slot technician"},
        {"id": "inspector", "prefix": "INS", "title": "Board inspector", "employer": "board"},
        {"id": "cashier", "prefix": "CSH", "title": "Cashier"},
        {"id": "chief_cashier", "prefix": "CCH", "title": "Chief Cashier"},
    ]
    data["staff"]["shifts"][0]["crew"] |= {"cashier": 2, "chief_cashier": 1}
    data["cage"] = CAGE | cage
    data["inject"] = list(inject)
    return parse_scenario(data, source="test", base_dir=SCENARIOS)


class Keep:
    def __init__(self) -> None:
        self.records: list[Record] = []

    def accept(self, rec: Record) -> None:
        self.records.append(rec)

    def close(self) -> None:
        pass


def run(sc: Any) -> tuple[Casino, list[Record]]:
    keep = Keep()
    casino = Casino(sc, sinks=[keep])
    casino.run()
    return casino, keep.records


@cache
def baseline() -> tuple[Casino, list[Record]]:
    return run(scenario())


def findings(casino: Casino) -> dict[str, int]:
    assert casino.compliance is not None
    out: dict[str, int] = {}
    for f in besides_absent(casino):
        out[f.control] = out.get(f.control, 0) + 1
    return out


def test_baseline_has_no_findings() -> None:
    casino, records = baseline()
    assert findings(casino) == {}
    kinds = {r.kind for r in records}
    for k in ("cage_transaction", "gaming_payment_accepted", "payments_banked",
              "banking_evidence", "cheque_returned", "dishonoured_cheque_entered",
              "dishonoured_cheque_paid", "unclaimed_registered", "unclaimed_written_off",
              "cage_reconciled", "drop_counted", "record_destroyed", "records_produced",
              "financial_statements_lodged"):  # fmt: skip
        assert k in kinds, k


INJECTED = {
    "R23.4": ("unclaimed_pocketed", 0),
    "R23.4.m": ("writeoff_skipped", 0),
    "R37.3": ("destroy_payment_records", 0),
    "R38.2": ("cheque_particulars_missing", 0),
    "R39": ("dishonour_unregistered", 0),
    "R40": ("banking_evidence_misdated", 0),
    "R41.a": ("cage_shortage", 0),
    "R41.b": ("unauthorised_payout", 0),
    "R42": ("late_statements", 5),
    "R43.1": ("destroy_accounts", 0),
    "R43.3": ("destroy_audit_report", 0),
}
#: the controls whose injected violation this module proves (tests/test_controls.py)
INJECTED_CONTROLS = frozenset(f"MT98.{c}" for c in INJECTED)


@pytest.mark.parametrize("control", sorted(INJECTED))
def test_injected_violation_is_found(control: str) -> None:
    kind, amount = INJECTED[control]
    casino, _ = run(scenario(({"kind": kind, "at_hours": 0.5, "amount": amount},)))
    assert set(findings(casino)) == {f"MT98.{control}"}


def test_month_end_writeoff_calendar() -> None:
    casino, records = baseline()
    clock = casino.world.clock
    offs = [r for r in records if isinstance(r, UnclaimedWrittenOff)]
    assert [o.month for o in offs] == ["2026-03"]
    end = clock.seconds(datetime(2026, 4, 1, 0, 0))
    assert offs[0].t == end
    before = [r for r in records if isinstance(r, UnclaimedRegistered) and r.t < end]
    assert offs[0].amount_cents == sum(r.value_cents for r in before) > 0
    assert offs[0].items == tuple(sorted(r.item for r in before))


def test_retention_periods_calendar() -> None:
    assert retention_ends(date(2016, 2, 29), 10) == date(2026, 2, 28)
    assert retention_ends(date(2021, 3, 31), 5) == date(2026, 3, 31)
    assert retention_ends(date(2025, 3, 29), 1) == date(2026, 3, 29)
    _, records = baseline()
    destroyed = [r for r in records if r.kind == "record_destroyed"]
    when = {r.volume: r.date for r in destroyed}  # type: ignore[attr-defined]
    # the first pass (30 March 07:00): January and February (29 February 2016 + 10 years
    # = 28 February 2026); the March volumes on 31 March, not a day before
    assert when == {
        "payment_records-2021-01": "2026-03-30", "payment_records-2021-02": "2026-03-30",
        "accounts-2016-01": "2026-03-30", "accounts-2016-02": "2026-03-30",
        "internal_audit-2025-01": "2026-03-30", "internal_audit-2025-02": "2026-03-30",
        "payment_records-2021-03": "2026-03-31", "accounts-2016-03": "2026-03-31",
        "internal_audit-2025-03": "2026-03-31",
    }  # fmt: skip


def test_statements_deadline_calendar() -> None:
    casino, _ = baseline()
    assert casino.compliance is not None
    checker = next(c for c in casino.compliance.checkers if isinstance(c, AuditedStatements))
    assert checker.deadline(date(2025, 12, 31)) == date(2026, 3, 31)
    assert checker.deadline(date(2023, 12, 31)) == date(2024, 3, 30)  # a leap year


def test_reg38_parts_e_to_h() -> None:
    casino, records = run(scenario(substitute_share=0.5, cheque_redeemed_share=0.3))
    subs = [r for r in records if isinstance(r, GamingPaymentAccepted) and r.substitute_for]
    assert subs and all(s.given_with == "tokens" for s in subs)
    redeemed = {r.payment for r in records if r.kind == "cheque_redeemed"}  # type: ignore[attr-defined]
    assert {s.substitute_for[0] for s in subs} <= redeemed
    assert findings(casino) == {}


def test_dishonour_register_later_payment() -> None:
    _, records = baseline()
    paid = [r for r in records if r.kind == "dishonoured_cheque_paid"]
    returned = [r for r in records if r.kind == "cheque_returned"]
    assert paid and len(paid) <= len(returned)


def test_registration_needs_chief_cashier_and_inspector() -> None:
    _, records = baseline()
    regs = [r for r in records if isinstance(r, UnclaimedRegistered)]
    assert regs and all(r.chief_cashier.startswith("CCH-") for r in regs)
    assert all(r.inspector.startswith("INS-") for r in regs)


def test_hard_copy_and_production_are_checked() -> None:
    _, records = baseline()
    asked = [r for r in records if r.kind == "records_requested"]
    produced = [r for r in records if r.kind == "records_produced"]
    assert asked and len(produced) == len(asked)
    assert all(r.hard_copy for r in produced)  # type: ignore[attr-defined]


def test_drop_count_reconciliation() -> None:
    _casino, records = baseline()
    counts = [r for r in records if isinstance(r, DropCounted)]
    removed = [r for r in records if r.kind == "money_removed"]
    assert len(counts) == len(removed) > 0
    assert all(c.variance_cents == 0 and c.counted_cents == c.metered_cents for c in counts)
    skim, _rec = run(scenario(({"kind": "drop_count_skim", "at_hours": 0.5, "amount": 50},)))
    assert set(findings(skim)) == {"MT98.R41.a"}
    # a meter that counts what never dropped: a variance, investigated, no finding
    m = "A-001"
    skew = scenario(({"kind": "meter_skew", "machine": m, "meter": "coins_to_drop_credits",
                      "amount": 7, "at_hours": 1.0},))  # fmt: skip
    c2, rec2 = run(skew)
    var = [r for r in rec2 if isinstance(r, DropCounted) and r.variance_cents]
    assert [(v.machine, v.variance_cents) for v in var] == [(m, -7 * 25)]
    inv = [r for r in rec2 if isinstance(r, DropVarianceInvestigated)]
    assert [i.count for i in inv] == [var[0].seq]
    assert "MT98.R41.a" not in findings(c2)


def test_payments_out_are_authorised() -> None:
    _, records = baseline()
    outs = [r for r in records if isinstance(r, CageTransaction) and r.cash_out_cents]
    assert outs and all(r.authoriser.startswith("CCH-") for r in outs)


def test_cage_needs_cashiers() -> None:
    sc = scenario()
    crew = {"attendant": 1, "technician": 1, "inspector": 1}
    shifts = (sc.staff.shifts[0].model_copy(update={"crew": crew}),)
    bad = sc.model_copy(update={"staff": sc.staff.model_copy(update={"shifts": shifts})})
    with pytest.raises(InputError, match="cashier"):
        Casino(bad)


def test_unknown_method_is_an_input_error() -> None:
    with pytest.raises(InputError, match=r"cage\.methods\.cheques"):
        scenario(methods={"cheques": 1.0})


def test_no_cage_keeps_the_timeline() -> None:
    data = tomllib.loads((SCENARIOS / "tiny.toml").read_text())
    sc = parse_scenario(data, source="t", base_dir=SCENARIOS)
    _, a = run(sc)
    assert not any(r.kind.startswith("cage") for r in a)


def test_a_casino_without_books_is_found_at_its_first_game() -> None:
    """Issue 25: a casino with no cage keeps no books (no count of the drop, no
    reconciliation, no accounts). Reg 41(a) is not silent about it: one finding, citing the
    first gaming operation, and every slot session of the run is an observation of it."""
    data = tomllib.loads((SCENARIOS / "tiny.toml").read_text())
    sc = parse_scenario(data, source="test", base_dir=SCENARIOS)
    casino, records = run(sc)
    assert casino.cage is None and casino.compliance is not None
    absent = [f for f in casino.compliance.findings if f.control == "MT98.R41.a"]
    sessions = [r for r in records if r.kind == "session_started"]
    assert len(absent) == 1
    first = sessions[0]
    assert absent[0].evidence == (first.seq,)
    assert absent[0].message.startswith(
        "no such function in this casino: no accounts or records of its operation are kept "
        "(no cage: no count of the drop, no reconciliation, no books); "
        f"{first.patron} began a session at machine {first.machine}"  # type: ignore[attr-defined]
    )
    verdict = next(v for v in casino.compliance.verdicts() if v.control == "MT98.R41.a")
    assert verdict.status == "breached"
    assert verdict.observations == len(sessions) == 14  # the scenario's own 2 hours
    # with the cage (the baseline of this file) the books are kept: no such finding
    with_cage, _ = baseline()
    assert with_cage.compliance is not None
    assert not [f for f in with_cage.compliance.findings if f.control == "MT98.R41.a"]
