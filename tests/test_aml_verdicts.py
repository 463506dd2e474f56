"""Verdicts of the AML controls (regs 45-51) a regulator can rely on (issue 25): a casino with
no door check, no AML function, no Reporting Officer and no training gets the findings the
regulation implies; the readings of 46(3) and 50(2)(c) are ruleset switches, the literal one
by default; a slot machine's notes are a person's only through what the casino records; and
no AML checker claims observations it did not make."""

from __future__ import annotations

from collections import Counter
from functools import cache
from pathlib import Path

import pytest
from test_aml import Rig, _evaluate, _report, _xref

from twin.aml.records import SuspicionReported
from twin.casino import Casino
from twin.compliance.checks.aml import MoneyTrail
from twin.compliance.registry import registry
from twin.departments import load_scenario
from twin.machines.events import BillAccepted, CashedOut
from twin.patrons.records import PatronArrived, PatronLeft, SessionStarted
from twin.pit.records import TableStretch
from twin.records import MemorySink, Record, truth_kinds
from twin.staff.records import ShiftStarted

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"
AML = (
    "MT98.R45",
    "MT98.R46.1",
    "MT98.R46.2",
    "MT98.R46.3",
    "MT98.R46.4",
    "MT98.R46.5",
    "MT98.R47",
    "MT98.R48",
    "MT98.R49.1",
    "MT98.R49.2",
    "MT98.R50.1",
    "MT98.R50.2a",
    "MT98.R50.2c",
    "MT98.R51",
)


@cache
def tiny() -> tuple[Casino, tuple[Record, ...]]:
    """scenarios/tiny.toml: four machines for two hours, no door, no AML function."""
    sink = MemorySink()
    casino = Casino(load_scenario(SCENARIOS / "tiny.toml"), sinks=[sink])
    casino.run()
    return casino, tuple(sink.records)


def test_no_door_check() -> None:
    """tiny has no [entrance]: its first entrant came in unidentified, one finding of reg 45
    that stands for every entrant, each an observation."""
    casino, records = tiny()
    assert casino.compliance is not None
    arrived = [r for r in records if isinstance(r, PatronArrived)]
    got = [f for f in casino.compliance.findings if f.control == "MT98.R45"]
    assert [f.evidence for f in got] == [(arrived[0].seq,)]
    assert got[0].found_t == arrived[0].t
    assert "no door check" in got[0].message and arrived[0].patron in got[0].message
    v = {v.control: v for v in casino.compliance.verdicts()}["MT98.R45"]
    assert (v.status, v.findings, v.observations) == ("breached", 1, len(arrived))


def test_tiny_gets_the_findings_the_regulation_implies() -> None:
    """No door, no AML function: reg 45 (the door), 48 (training) and 50(1) (the Reporting
    Officer) are breached once each, at the first entrant; every buy-in and cash-out was
    checked against the threshold and none needed identification, so 46(3) (a cash-out to
    cross-reference) is not exercised; nothing was reported, so 46(5) and 49-51 are not
    either."""
    casino, records = tiny()
    assert casino.compliance is not None
    found = [f for f in casino.compliance.findings if f.control in AML]
    assert Counter(f.control for f in found) == Counter(
        {"MT98.R45": 1, "MT98.R48": 1, "MT98.R50.1": 1}
    )
    first = next(r for r in records if isinstance(r, PatronArrived))
    shifts = [r for r in records if isinstance(r, ShiftStarted) and r.employer != "board"]
    by = {f.control: f for f in found}
    assert by["MT98.R50.1"].evidence == (first.seq,)
    assert by["MT98.R48"].evidence == tuple(r.seq for r in shifts if r.t <= first.t)
    assert by["MT98.R48"].found_t == first.t
    verdicts = {v.control: v.status for v in casino.compliance.verdicts() if v.control in AML}
    assert verdicts == {
        "MT98.R45": "breached",
        "MT98.R46.1": "checked",  # each buy-in of a session, all under Lm 2,000
        "MT98.R46.2": "checked",
        "MT98.R46.3": "not_exercised",
        "MT98.R46.4": "checked",
        "MT98.R46.5": "not_exercised",
        "MT98.R47": "not_exercised",
        "MT98.R48": "breached",
        "MT98.R49.1": "not_exercised",
        "MT98.R49.2": "not_exercised",
        "MT98.R50.1": "breached",
        "MT98.R50.2a": "not_exercised",
        "MT98.R50.2c": "not_exercised",
        "MT98.R51": "not_exercised",
    }


def test_no_aml_function_is_one_finding_per_clause() -> None:
    """No Reporting Officer, no training records: each clause that needed the function is
    breached once, at the first transaction (or employee, or entrant) that needed it; later
    ones are observations of the same absence."""
    rig = Rig(
        ["MT98.R46.1", "MT98.R46.2", "MT98.R46.3", "MT98.R46.4", "MT98.R48", "MT98.R50.1"],
        officer=False,
    )
    shift = rig.emit(ShiftStarted, role="cashier", shift="day", member="CSH-1", name="c",
                     employer="licensee")  # fmt: skip
    rig.at(0.5)
    came = rig.emit(PatronArrived, patron="P1", segment="s", bankroll_cents=0, visit=1,
                    residency="local")  # fmt: skip
    rig.admit("P1", 1)
    rig.buy("P1", 300_000)
    agg = rig.buy("P1", 300_000)  # the window's total past the threshold
    big = rig.buy("P1", 500_000)  # above it alone
    out = rig.redeem("P1", 800_000)
    rig.at(1.0)
    rig.admit("P2", 1)
    rig.buy("P2", 600_000)  # the same absence: no second finding
    rig.redeem("P2", 600_000)
    assert sorted(rig.findings()) == [
        ("MT98.R46.1", (big.seq,)),
        ("MT98.R46.2", (out.seq,)),
        ("MT98.R46.3", (out.seq,)),
        ("MT98.R46.4", (agg.seq,)),
        ("MT98.R48", (shift.seq,)),
        ("MT98.R50.1", (came.seq,)),
    ]
    obs = {c.spec.id: rig.engine.observations(c) for c in rig.engine.checkers}
    assert obs == {
        "MT98.R46.1": 4,  # every buy-in
        "MT98.R46.2": 2,  # every cash-out
        "MT98.R46.3": 2,  # every cash-out needing identification
        "MT98.R46.4": 6,  # every transaction in a window
        "MT98.R48": 1,  # the employee on shift
        "MT98.R50.1": 1,  # the opening
    }


# -- the readings ------------------------------------------------------------------------------


@pytest.mark.parametrize(("literal", "found"), [(True, True), (False, False)])
def test_chips_from_winnings_reading(literal: bool, found: bool) -> None:
    """P1 buys EUR 5,000, wins EUR 500 and cashes EUR 5,400, cross-referenced as from winnings
    with no red flag: the earlier reading (stake and winnings) passes it; the literal one
    (the chips cashed must be covered by the winnings) finds it."""
    rig = Rig(["MT98.R46.3"], aml_chips_from_net_winnings=literal)
    rig.admit("P1", 1)
    b = rig.buy("P1", 500_000)
    rig.emit(TableStretch, table="RL-1", game="g", patron="P1", dealer="DLR-1", bet="red",
             stake_cents=1000, rounds=10, buy_in_cents=0, handle_cents=10_000,
             net_cents=50_000, theo_cents=270, var_cents2=0, chip_series="A")  # fmt: skip
    out = rig.redeem("P1", 540_000)
    rig.identify("P1", "cash_out", (out.seq,), 540_000)
    _xref(rig, b, out, bought_cents=500_000, cashed_cents=540_000, from_winnings=True)
    got = rig.findings()
    assert [c for c, _ in got] == (["MT98.R46.3"] if found else [])


@pytest.mark.parametrize(("together", "found"), [(False, []), (True, ["MT98.R50.2c"])])
def test_escalation_together_reading(together: bool, found: list[str]) -> None:
    """The police told at 3 h, the Board's MLLO at 4 h: both told (within 24 h of the internal
    report) satisfies the literal reading; the other wants both in one instant."""
    rig = Rig(["MT98.R50.2c"], aml_escalation_together=together)
    rep = _report(rig, "C1")
    rig.at(2.0)
    _evaluate(rig, "C1", (rep.seq,), decision="suspicious")
    for hours, recipient in ((3.0, "police"), (4.0, "board_mllo")):
        rig.at(hours)
        _tell(rig, recipient)
    assert [c for c, _ in rig.findings()] == found


def test_escalation_literal_reading_finds_a_report_never_made() -> None:
    """By the literal reading, a suspicion the Board never hears of is found when the
    allowance runs out (24 h from the internal report), not before."""
    for tail, found in ((21.0, []), (23.0, ["MT98.R50.2c"])):
        rig = Rig(["MT98.R50.2c"])
        rep = _report(rig, "C1")
        rig.at(2.0)
        ev = _evaluate(rig, "C1", (rep.seq,), decision="suspicious")
        police = _tell(rig, "police")
        got = rig.findings(tail)
        assert [c for c, _ in got] == found
        assert all(e == (ev.seq, police.seq) for _, e in got)


def _tell(rig: Rig, recipient: str) -> SuspicionReported:
    rec: SuspicionReported = rig.emit(
        SuspicionReported,
        case="C1",
        officer="MLRO-01",
        patron="P1",
        recipient=recipient,
        rank="Inspector" if recipient == "police" else "",
        transactions=(1,),
        transaction_detail="d",
        person="p",
        reasons="r",
        other="o",
    )
    return rec


# -- what the casino can see at a slot machine ----------------------------------------------------


def _bills(rig: Rig, machine: str, patron: str, n: int) -> list[BillAccepted]:
    return [
        rig.emit(BillAccepted, machine=machine, patron=patron, bill_cents=50_000, credits=2000)
        for _ in range(n)
    ]


def test_anonymous_bills_are_no_ones() -> None:
    """Ten EUR 500 notes (EUR 5,000, past the threshold) into a machine no session explains
    are anonymous: no one's transactions, nothing to identify. The same notes fed in the
    instant the floor's session of P2 begins at a machine are P2's, and their aggregate
    needs identification; so does a cash-out an attendant pays P1 by hand."""
    rig = Rig(["MT98.R46.1", "MT98.R46.2", "MT98.R46.4"])
    trail = MoneyTrail.of(rig.engine.ctx)
    rig.admit("P1", 1)
    rig.admit("P2", 1)
    _bills(rig, "M-1", "P1", 10)
    rig.at(0.1)
    fed = _bills(rig, "M-2", "P2", 10)
    rig.emit(SessionStarted, patron="P2", machine="M-2", bet_units=1, pace_seconds=4.0,
             planned_end_t=1e9)  # fmt: skip
    rig.at(0.2)
    _bills(rig, "M-2", "P2", 1)  # while seated: P2's (every later one needs it too)
    rig.emit(PatronLeft, patron="P2", machine="M-2", reason="done", spent_cents=0)
    rig.at(0.3)
    _bills(rig, "M-2", "P2", 1)  # after the session: anonymous again
    got = rig.findings()
    assert trail.anonymous_cents(rig.env.now) == 11 * 50_000  # M-1's ten, M-2's last
    by_control = Counter(c for c, _ in got)
    assert by_control == Counter({"MT98.R46.4": 2})
    assert got[0][1] == (fed[-1].seq,)  # the tenth note takes P2's session past Lm 2,000
    assert trail.amounts.get(fed[0].seq) == ("P2", 50_000)


def test_a_hand_paid_cash_out_is_the_persons() -> None:
    """A cash-out no session explains is anonymous when the hopper pays it, the person's
    when an attendant pays it by hand."""
    rig = Rig(["MT98.R46.2"])
    rig.engine.ctx.installed["M-1"] = _Installed(100)  # type: ignore[assignment]
    rig.admit("P1", 1)
    hopper = rig.emit(CashedOut, machine="M-1", patron="P1", credits=5000, hopper_coins=5000,
                      hand_paid=0, short_paid=0)  # fmt: skip
    by_hand = rig.emit(CashedOut, machine="M-1", patron="P1", credits=5000, hopper_coins=400,
                       hand_paid=4600, short_paid=0)  # fmt: skip
    assert rig.findings() == [("MT98.R46.2", (by_hand.seq,))]
    assert hopper.seq not in MoneyTrail.of(rig.engine.ctx).amounts


class _Installed:
    def __init__(self, denomination_cents: int) -> None:
        self.denomination_cents = denomination_cents


# -- honesty ---------------------------------------------------------------------------------------


def test_no_aml_checker_reads_the_truth() -> None:
    specs = registry()
    assert "laundering_act" in truth_kinds()
    for cid in AML:
        assert not set(specs[cid].reads) & truth_kinds(), cid


@pytest.mark.parametrize("cid", AML)
def test_no_aml_control_is_checked_without_its_clause(cid: str) -> None:
    """A run with only money and play (no door, no AML records): the AML controls that
    observe records observe only records of their clause (never the money trail's context)."""
    spec = registry()[cid]
    trail_only = {
        "casino_licensed",
        "entry_admitted",
        "patron_arrived",
        "session_started",
        "patron_left",
        "games_played",
        "table_stretch",
        "junket_member_arrived",
        "junket_table_played",
    }
    assert not set(spec.observes) & (trail_only - {"entry_admitted"}), spec.observes
