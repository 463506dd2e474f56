"""Premium players in a run (issue 11): the Singapore floor's premium room, its deposit
accounts and every SG10 control checked on it, with one injected violation per control."""

from __future__ import annotations

import tomllib
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from twin.accounts.replay import AccountRules, Stepper
from twin.accounts.timeline import AccountEvent
from twin.casino import Casino
from twin.compliance.findings import Finding
from twin.departments import load_scenario, parse_scenario
from twin.errors import InputError
from twin.metrics import Metrics
from twin.premium.records import PremiumPlayed, PremiumStatusDecided
from twin.records import MemorySink

ROOT = Path(__file__).resolve().parent.parent
SG = ROOT / "scenarios" / "singapore.toml"
SG10 = {
    "SG10.R2A.1a", "SG10.R2A.1b", "SG10.R2A.1c", "SG10.R2A.1d", "SG10.R2A.1e", "SG10.R2A.3",
    "SG10.R2B", "SG10.R3", "SG10.R4.1", "SG10.R4.2", "SG10.R4.3", "SG10.R4.4", "SG10.R4.5",
    "SG10.R4.6",
}  # fmt: skip


def casino(days: float, *, slots: bool = False, **edits: Any) -> tuple[Casino, MemorySink]:
    data = tomllib.loads(SG.read_text())
    data["scenario"]["duration_hours"] = days * 24.0
    if not slots:  # the premium room alone: no slot visitors
        data["patrons"]["arrivals_per_hour"] = [0.0] * 24
    for key, value in edits.items():
        data[key] = value
    sc = parse_scenario(data, source=str(SG), base_dir=SG.parent)
    sink = MemorySink()
    return Casino(sc, sinks=[sink]), sink


def findings(sink: MemorySink) -> list[Finding]:
    return [r for r in sink.records if isinstance(r, Finding)]


@pytest.fixture(scope="module")
def clean() -> tuple[Casino, MemorySink]:
    c, sink = casino(90, slots=True)
    c.run()
    return c, sink


def test_clean_run(clean: tuple[Casino, MemorySink]) -> None:
    """90 days of scenarios/singapore.toml: no finding, every SG10 control checked, and the
    run shows renewals, 4(2) re-qualifications, lapses, closures and residency changes."""
    c, sink = clean
    assert c.compliance is not None
    assert set(c.compliance.counts()) == SG10
    assert findings(sink) == []
    seen = {
        (r.decision, r.basis)
        for r in sink.records
        if isinstance(r, PremiumStatusDecided) and r.t > 0
    }
    for wanted in [
        ("granted", "reg 3 + 4(1)"),
        ("renewed", "reg 4(4)"),
        ("ended", "reg 4(5)"),
        ("ended", "reg 4(6)"),
        ("ended", "reg 4(3)"),
    ]:
        assert wanted in seen, wanted
    assert any(isinstance(r, PremiumPlayed) for r in sink.records)
    kpis = Metrics.from_records(sink.records).kpis(c.end).sections["premium"]
    assert kpis["players"] == 48
    assert kpis["room"]["turnover_cents"] > 0
    assert set(kpis["deposits_cents_by_form"]) >= {"cash", "chips", "personal_cheque"}


EXPECTED = {
    "premium_bank_draft_to_third_party": "SG10.R2A.1a",
    "premium_chips_from_uncleared_cheque": "SG10.R2A.1b",
    "premium_casino_cheque_payable_to_another": "SG10.R2A.1c",
    "premium_personal_cheque_counted_uncleared": "SG10.R2A.1d",
    "premium_credit_to_citizen": "SG10.R2A.1e",
    "premium_mixed_forms_refused": "SG10.R2A.3",
    "premium_requalified_after_long_dip": "SG10.R2B",
    "premium_qualified_below_minimum": "SG10.R3",
    "premium_downgraded_in_first_period": "SG10.R4.1",
    "premium_requalify_keeps_old_expiry": "SG10.R4.2",
    "premium_kept_after_residency_change": "SG10.R4.3",
    "premium_renewed_below_minimum": "SG10.R4.4",
    "premium_kept_after_lapse": "SG10.R4.5",
    "premium_kept_after_closure": "SG10.R4.6",
}


#: the controls whose injected violation this module proves (tests/test_controls.py)
INJECTED_CONTROLS = frozenset(EXPECTED.values())


@pytest.mark.parametrize("kind", sorted(EXPECTED))
def test_injected_violation_gives_exactly_its_finding(kind: str) -> None:
    c, sink = casino(45, inject=[{"kind": kind, "at_hours": 26.0}])
    c.run()
    got = [(f.control, f.subjects) for f in findings(sink)]
    assert [g[0] for g in got] == [EXPECTED[kind]], got
    assert all(f.evidence for f in findings(sink))


def test_form_checks_on_records() -> None:
    """The parts of 2A(1)(a), (c), (d) and (e) no injection exercises."""
    c, sink = casino(3)
    c.advance(30 * 3600.0)
    room = c.premium
    assert room is not None
    p = room.newcomer("foreigner")
    day = room.today()
    room.open_account(p, day)
    room.deposit(p, day, "eft", 150_000_00, payee="someone else's account")  # 2A(1)(a)
    room.cheque(p, day, "personal_cheque", 10_000_00, payee="a friend")  # 2A(1)(d)
    p.refs += 1
    room._emit(  # a casino cheque with no issuer: 2A(1)(c)
        __import__("twin.premium.records", fromlist=["x"]).ChequeReceived, p,
        account=p.account, day=day.isoformat(), ref="X1", cheque_kind="casino_cheque",
        amount_cents=5_000_00, issuer="", payee=p.id,
    )  # fmt: skip
    room._emit(  # agent credit naming no agent: 2A(1)(e)
        __import__("twin.premium.records", fromlist=["x"]).CreditExtended, p,
        account=p.account, day=day.isoformat(), lender="ima", agent="", amount_cents=1_000_00,
    )  # fmt: skip
    c.finish()
    assert sorted(f.control for f in findings(sink)) == [
        "SG10.R2A.1a", "SG10.R2A.1c", "SG10.R2A.1d", "SG10.R2A.1e",
    ]  # fmt: skip


def test_play_checks() -> None:
    """Premium play after the account closed (4(6)) and while the operator's decisions say
    the status has ended (4(5))."""
    c, sink = casino(4)
    c.advance(30 * 3600.0)
    room = c.premium
    assert room is not None
    p = room.pick(lambda q: q.truth[0])
    assert p is not None
    account = p.account
    room.close_account(p, room.today())
    c.advance(31 * 3600.0)
    bus = c.world.bus
    bus.emit(PremiumPlayed, player=p.id, account=account, table="PR-01", game="x",
             day=room.today().isoformat(), rounds=1, staked_cents=100, net_cents=0)  # fmt: skip
    c.advance(60 * 3600.0)  # the closure is decided at midnight
    q = room.newcomer("foreigner")
    room.open_account(q, room.today())
    bus.emit(PremiumPlayed, player=q.id, account=q.account, table="PR-01", game="x",
             day=room.today().isoformat(), rounds=1, staked_cents=100, net_cents=0)  # fmt: skip
    c.finish()
    got = sorted((f.control, f.subjects) for f in findings(sink))
    assert got == [("SG10.R4.5", (q.id,)), ("SG10.R4.6", (p.id,))]


RULES = AccountRules()


def _step(events: list[tuple[str, str, dict[str, Any]]], until: str) -> list[Any]:
    """Feed a timeline day by day into a Stepper (as the status desk does)."""
    by_day: dict[date, list[AccountEvent]] = {}
    for i, (d, kind, fields) in enumerate(events):
        day = date.fromisoformat(d)
        by_day.setdefault(day, []).append(AccountEvent(i, day, kind, **fields))  # type: ignore[arg-type]
    s = Stepper("foreigner", RULES)
    day = min(by_day)
    out = []
    while day <= date.fromisoformat(until):
        for ev in by_day.get(day, []):
            s.apply(ev)
        out.append(s.end_day(day))
        day = date.fromordinal(day.toordinal() + 1)
    return out


def test_period_calendar() -> None:
    """C1 with Illustration 1: qualified 2 Jan 2012, drew everything down on 4 Jan, still a
    premium player on 1 Jan 2013 and not on 2 Jan 2013; a period from 29 Feb 2024 ends on
    27 Feb 2025 (calendar months)."""
    days = _step(
        [
            ("2012-01-02", "open_account", {}),
            ("2012-01-02", "deposit", {"form": "cash", "amount_cents": 10_000_000}),
            ("2012-01-04", "drawdown", {"amount_cents": 10_000_000}),
        ],
        "2013-01-02",
    )
    assert days[-2].premium_player and str(days[-2].period_last_day) == "2013-01-01"
    assert not days[-1].premium_player and days[-1].basis == "reg 4(5)"
    leap = _step(
        [
            ("2024-02-29", "open_account", {}),
            ("2024-02-29", "deposit", {"form": "cash", "amount_cents": 10_000_000}),
        ],
        "2024-02-29",
    )
    assert str(leap[-1].period_last_day) == "2025-02-27"


@pytest.mark.parametrize(("restored", "premium"), [("2014-07-15", True), ("2014-07-16", False)])
def test_spell_limit_calendar(restored: str, premium: bool) -> None:
    """Reg 2B (C4): a spell below the minimum from 15 Jul 2013 restored on 15 Jul 2014 is
    within 12 months (4(2) applies, C5); restored a day later, it is not."""
    days = _step(
        [
            ("2013-01-02", "open_account", {}),
            ("2013-01-02", "deposit", {"form": "cash", "amount_cents": 20_000_000}),
            ("2013-07-15", "drawdown", {"amount_cents": 15_000_000}),
            (restored, "deposit", {"form": "cash", "amount_cents": 10_000_000}),
        ],
        restored,
    )
    assert days[-1].premium_player is premium
    assert days[-1].basis == ("reg 4(2)" if premium else "reg 4(5)")


def test_a_floor_without_premium_keeps_its_timeline() -> None:
    """No [premium] section: no room, no premium record; a premium injection is refused."""
    sc = load_scenario(ROOT / "scenarios" / "small.toml").with_overrides(duration_hours=1.0)
    sink = MemorySink()
    c = Casino(sc, sinks=[sink])
    assert c.premium is None
    c.run()
    assert not any(r.kind.startswith("premium") for r in sink.records)
    data = tomllib.loads((ROOT / "scenarios" / "small.toml").read_text())
    data["inject"] = [{"kind": "premium_kept_after_closure", "at_hours": 1.0}]
    bad = parse_scenario(data, source="small.toml", base_dir=ROOT / "scenarios")
    with pytest.raises(InputError, match="premium"):
        Casino(bad)


def test_premium_section_is_validated() -> None:
    data = tomllib.loads(SG.read_text())
    data["premium"]["pr_share"] = 0.9
    with pytest.raises(InputError, match="pr_share"):
        parse_scenario(data, source=str(SG), base_dir=SG.parent)
    data = tomllib.loads(SG.read_text())
    data["premium"]["table_game"] = "tables/nowhere.toml"
    with pytest.raises(InputError, match="table_game"):
        parse_scenario(data, source=str(SG), base_dir=SG.parent)
