"""Money controls read their clause: meters against the records that define them, money that
no game paid, who removes money from a machine, the slips, the amount due, tilts.

Floor runs use tests/data/controls.toml (one [[inject]] at a time); checker-level tests feed
hand-made records to a compliance engine of only the control under test.

Detection power, measured when this was written on that floor over seeds 1-10 (one run per
seed and case, every control on; B-001 the target): no injection, 0 findings in 10 runs;
meter_skew +500 of handpaid_cancelled_credits or coins_to_drop_credits at 3 h, 10/10 found
(4(b) alone); phantom_credits 99,575 at 3.5 h, 10/10 (reg 36 and 10(a)); technician_takes_coins
40 at 2 h, 10/10 (reg 36); drop_by_outsider, 10/10 (reg 36); a credit-meter rollback of
100,000 at 3.5 h, found in 6/10, the other 4 seeds having 0 credits on B-001 at that instant
(nothing to lose, nothing to find), and no run raised. The meter, drop and removal detectors
are deterministic (any skew not a multiple of the rollover is seen at the next reading; every
removal record is checked); phantom credits are found whenever they leave the machine.
"""

from __future__ import annotations

import tomllib
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest
import simpy
from conftest import besides_absent, besides_absent_functions

from twin.casino import Casino
from twin.compliance.engine import ComplianceEngine
from twin.compliance.findings import Finding
from twin.compliance.ruleset import load_ruleset
from twin.departments import load_scenario, parse_scenario
from twin.injections import InjectViolation
from twin.machines.events import (
    BillAccepted,
    CashedOut,
    CoinsAccepted,
    HandPaid,
    HopperFilled,
    HopperPaid,
    MachineException,
    MachineInstalled,
    MachineLocked,
    MetersRead,
    MoneyRemoved,
    ShortPayCompleted,
)
from twin.machines.facts import FloorFacts
from twin.machines.sas import ExceptionCode
from twin.records import MemorySink, Record, RecordBus
from twin.staff.records import ShiftStarted
from twin.state import replay

FLOOR = Path(__file__).resolve().parent / "data" / "controls.toml"


def floor_data(**floor: Any) -> dict[str, Any]:
    data = tomllib.loads(FLOOR.read_text())
    data["floor"].update(floor)
    return data


def run(
    data: dict[str, Any], inject: list[dict[str, Any]] | None = None
) -> tuple[Casino, MemorySink]:
    if inject is not None:
        data["inject"] = inject
    sc = parse_scenario(data, source=str(FLOOR), base_dir=FLOOR.parent)
    sink = MemorySink()
    casino = Casino(sc, sinks=[sink])
    casino.run()
    return casino, sink


def findings(casino: Casino, *, entrants: bool = True) -> list[Finding]:
    """The run's findings besides those of its missing door check and AML function (issue
    25: the controls floor has neither), which :func:`besides_absent` asserts. Without
    ``entrants`` (a scripted run: nobody arrives, its patrons play without coming in), reg 45
    has no one to find unidentified: no R45 finding is asserted, only the AML function's."""
    assert casino.compliance is not None
    if entrants:
        return besides_absent(casino)
    assert casino.entrance is None
    return besides_absent_functions(
        casino.compliance.findings, entrants=False, aml=casino.aml is not None
    )


# -- checker-level: hand-made records -------------------------------------------------------


class Desk:
    """A compliance engine of the named controls fed by hand-made records."""

    def __init__(self, *controls: str) -> None:
        self.env = simpy.Environment()
        self.sink = MemorySink()
        self.bus = RecordBus(lambda: self.env.now, [self.sink])
        sc = load_scenario(FLOOR)
        self.engine = ComplianceEngine(
            load_ruleset("malta-1998", {}), sc.clock(), FloorFacts(),
            controls=controls,
        )  # fmt: skip
        self.bus.attach(self.engine)
        self.bus.attach_producer(self.engine)
        for member, role, employer in (
            ("ATT-1", "attendant", "licensee"),
            ("TEC-1", "technician", "licensee"),
            ("INS-1", "inspector", "board"),
        ):
            self.emit(
                ShiftStarted, role=role, shift="day", member=member, name=member, employer=employer
            )
        self.emit(
            MachineInstalled, machine="B-001", bank="B", zone="main", game_id="g",
            game_signature="s", denomination_cents=25, max_bet_units=3, registration="R",
            serial="S", asset_number="AN-B-001", hopper_coins=300, progressive="", meter_digits=8,
            manufacturer="m",
            model="x", manufactured="2025-01-01", certified_min_payout_bp=9000, certificate=(),
            paytable_displayed=True, promotional=False, bill_denominations_cents=(500,),
        )  # fmt: skip

    def emit(self, cls: type[Record], **fields: Any) -> Record:
        return self.bus.emit(cls, **fields)

    def messages(self) -> list[str]:
        return [f.message for f in self.engine.findings_so_far()]


def hand_paid(**kw: Any) -> dict[str, Any]:
    base: dict[str, Any] = dict(
        machine="B-001", patron="P1", reason="jackpot", credits=5000, cents=125000,
        attendant="ATT-1", inspector="INS-1", requested_t=0.0,
    )  # fmt: skip
    return base | kw


def test_slip_particulars_are_checked() -> None:
    """Item 8: a hand-pay slip names the payout, the amount (credits and money agreeing with
    the denomination) and who paid; a correct slip passes."""
    desk = Desk("MT98.S1.8")
    desk.emit(HandPaid, **hand_paid())  # correct: 5000 credits x 25 cents
    assert desk.messages() == []
    desk.emit(HandPaid, **hand_paid(cents=120000))
    desk.emit(HandPaid, **hand_paid(reason="tip", attendant=""))
    assert desk.messages() == [
        "the jackpot slip on B-001 gives 120000 cents for 5000 credits of 25 cents",
        "the tip slip on B-001 names no kind of payout ('tip'); names nobody who paid",
    ]


def test_short_pay_needs_a_countersigned_fill_slip() -> None:
    desk = Desk("MT98.S1.8")
    empty = dict(machine="B-001", patron="P1", code=int(ExceptionCode.HOPPER_EMPTY),
                 name="hopper_empty")  # fmt: skip
    fill = dict(machine="B-001", reason="empty", coins=1000, certified_coins=1000,
                hopper_level=1000, attendant="ATT-1", inspector="INS-1",
                requested_t=0.0)  # fmt: skip
    desk.emit(MachineException, **empty)
    desk.emit(HopperFilled, **fill)
    desk.emit(ShortPayCompleted, machine="B-001", patron="P1", coins=40, short_coins=40)
    assert desk.messages() == []  # paid under a countersigned fill slip
    desk.emit(MachineException, **empty)
    desk.emit(ShortPayCompleted, machine="B-001", patron="P1", coins=40, short_coins=40)
    assert desk.messages() == [
        "the short pay of 40 coins on B-001 was paid under no countersigned fill slip"
    ]


def test_jackpot_hand_pay_must_equal_the_locked_win() -> None:
    """10(a): the inspector certifies the payment is due: a jackpot paid must be the win the
    machine locked up for, and a jackpot hand pay needs a lock-up at all."""
    desk = Desk("MT98.S1.10a")
    lock = dict(machine="B-001", patron="P1", reason="jackpot", win=5000, prize_cents=125000)
    desk.emit(MachineLocked, **lock)
    desk.emit(HandPaid, **hand_paid())
    assert desk.messages() == []
    desk.emit(MachineLocked, **lock)
    desk.emit(HandPaid, **hand_paid(credits=6000, cents=150000))
    desk.emit(HandPaid, **hand_paid())
    assert desk.messages() == [
        "a jackpot hand pay of 6000 credits on B-001 was certified as due; the lock-up was "
        "for 5000 credits",
        "a jackpot hand pay of 5000 credits on B-001 was certified with no jackpot lock-up "
        "recorded",
    ]


def test_credit_payout_due_is_what_play_left_on_the_meter() -> None:
    """10(a): 1000 credits in, 400 by the hopper: 600 are due by hand, 601 are not."""
    desk = Desk("MT98.S1.10a")
    desk.emit(CoinsAccepted, machine="B-001", patron="P1", coins=1000, to_hopper=1000, to_drop=0)
    desk.emit(HopperPaid, machine="B-001", patron="P1", coins=400, requested=400, hopper_level=900)
    desk.emit(HandPaid, **hand_paid(reason="credit_payout", credits=600, cents=15000))
    assert desk.messages() == []
    desk.emit(CoinsAccepted, machine="B-001", patron="P2", coins=1000, to_hopper=0, to_drop=1000)
    desk.emit(HopperPaid, machine="B-001", patron="P2", coins=400, requested=400, hopper_level=500)
    desk.emit(HandPaid, **hand_paid(patron="P2", reason="credit_payout", credits=601, cents=15025))
    assert desk.messages() == [
        "a credit payout of 601 credits on B-001 was certified as due; the play and money in "
        "recorded leave 600 credits to pay"
    ]


def test_removal_by_an_unauthorised_role_is_found() -> None:
    """Reg 36 (money_removal_roles = attendant): an attendant may empty the drop; a
    technician, a Board inspector and an outsider may not."""
    desk = Desk("MT98.R36")
    for who in ("ATT-1", "TEC-1", "INS-1", "STRANGER"):
        desk.emit(
            MoneyRemoved, machine="B-001", container="cash_box", coins=0, cents=1000, staff=who,
            witness="INS-1", reason="drop_collection",
        )  # fmt: skip
    assert desk.messages() == [
        "TEC-1 took 1000 cents from the cash_box of B-001: a technician, a role the licensee "
        "does not authorise to remove money",
        "INS-1 took 1000 cents from the cash_box of B-001: a Board inspector, who may witness "
        "a removal but not make it",
        "STRANGER took 1000 cents from the cash_box of B-001: not the licensee's employee nor "
        "acting for it",
    ]


def test_a_drop_short_of_what_went_in_is_found() -> None:
    """Reg 36: the drop bucket must hold every coin diverted to it and the stacker every bill
    since the last drop; what is short was taken with no record."""
    desk = Desk("MT98.R36")
    coins = desk.emit(CoinsAccepted, machine="B-001", patron="P1", coins=50, to_hopper=10,
                      to_drop=40)  # fmt: skip
    bill = desk.emit(BillAccepted, machine="B-001", patron="P1", bill_cents=500, credits=20)
    drop = dict(machine="B-001", staff="ATT-1", witness="INS-1", reason="drop_collection")
    desk.emit(MoneyRemoved, container="cash_box", coins=0, cents=500, **drop)
    taken = desk.emit(MoneyRemoved, container="drop_bucket", coins=30, cents=750, **drop)
    assert desk.messages() == [
        "the drop_bucket of B-001 held 30 coins when ATT-1 emptied it; 40 went in since it "
        "was last emptied: 10 coins were removed with no record"
    ]
    assert desk.engine.findings_so_far()[0].evidence == (coins.seq, taken.seq)
    assert bill.seq  # the stacker held its one bill: no finding
    desk.emit(MoneyRemoved, container="drop_bucket", coins=0, cents=0, **drop)
    assert len(desk.messages()) == 1  # emptied: nothing went in since


def test_money_book_balances_credits_in_play_and_cash_out() -> None:
    """The book's identity on a clean session: nothing reported; one credit too many paid
    out is money from nowhere (reg 36), citing the session's records."""
    desk = Desk("MT98.R36")
    desk.emit(BillAccepted, machine="B-001", patron="P1", bill_cents=500, credits=20)
    desk.emit(HopperPaid, machine="B-001", patron="P1", coins=20, requested=20, hopper_level=280)
    desk.emit(CashedOut, machine="B-001", patron="P1", credits=20, hopper_coins=20, hand_paid=0,
              short_paid=0)  # fmt: skip
    assert desk.messages() == []
    bill = desk.emit(BillAccepted, machine="B-001", patron="P2", bill_cents=500, credits=20)
    paid = desk.emit(
        HopperPaid, machine="B-001", patron="P2", coins=21, requested=21, hopper_level=259
    )
    out = desk.emit(CashedOut, machine="B-001", patron="P2", credits=21, hopper_coins=21,
                    hand_paid=0, short_paid=0)  # fmt: skip
    assert desk.messages() == [
        "machine B-001 paid out 1 credits (25 cents) that no game paid and no money put in "
        "explains: money left the machine that was not a prize"
    ]
    assert desk.engine.findings_so_far()[0].evidence == (bill.seq, paid.seq, out.seq)


def test_hopper_coins_missing_at_a_reading_are_found() -> None:
    desk = Desk("MT98.R36")
    opened = desk.emit(MachineException, machine="B-001", staff="TEC-1",
                       code=int(ExceptionCode.SLOT_DOOR_OPENED),
                       name="slot_door_opened")  # fmt: skip
    reading = desk.emit(MetersRead, machine="B-001", meters=(("current_credits", 0),),
                        hopper_level=260, registration="R", serial="S",
                        asset_number="AN-B-001", program_signature="s")  # fmt: skip
    desk.emit(BillAccepted, machine="B-001", patron="P1", bill_cents=500, credits=20)
    assert desk.messages() == [
        "40 coins are missing from B-001's hopper with no record of their removal; the machine "
        "was opened by TEC-1"
    ]
    assert desk.engine.findings_so_far()[0].evidence == (opened.seq, reading.seq)
    assert desk.engine.findings_so_far()[0].subjects == ("B-001", "TEC-1")


def test_a_reading_before_a_delayed_cash_out_is_no_finding() -> None:
    """Reg 36 and 4(d): a reading shows what the machine holds at that instant. 1000 credits
    sit on a tilted machine when the day's reading is taken; hours later the cash-out runs the
    hopper dry (300 of 400 coins), a fill, the short pay of 100, 600 by hand. Every figure
    agrees with the records: no surplus paid out, no coins missing, no credits lost. (Found
    on ``scenarios/aml.toml`` seed 4, machine D-006: the book took the reading for one made
    while the coins dropped, and reported 3,983 credits paid from nowhere and missing.)"""
    desk = Desk("MT98.R36", "MT98.S1.4d")
    b = dict(machine="B-001", patron="P1")
    meters = dict(registration="R", serial="S", asset_number="AN-B-001", program_signature="s")
    desk.emit(CoinsAccepted, **b, coins=1000, to_hopper=0, to_drop=1000)
    desk.emit(MetersRead, machine="B-001", meters=(("current_credits", 1000),),
              hopper_level=300, **meters)  # fmt: skip
    desk.emit(HopperPaid, **b, coins=300, requested=400, hopper_level=0)
    desk.emit(MachineException, **b, code=int(ExceptionCode.HOPPER_EMPTY), name="hopper_empty")
    desk.emit(HopperFilled, **b, reason="empty", coins=1000, certified_coins=1000,
              hopper_level=1000, attendant="ATT-1", inspector="INS-1",
              requested_t=0.0)  # fmt: skip
    desk.emit(ShortPayCompleted, **b, coins=100, short_coins=100)
    desk.emit(HandPaid, **hand_paid(reason="credit_payout", credits=600, cents=15000))
    desk.emit(CashedOut, **b, credits=1000, hopper_coins=400, hand_paid=600, short_paid=100)
    desk.emit(MetersRead, machine="B-001", meters=(("current_credits", 0),), hopper_level=900,
              **meters)  # fmt: skip
    assert desk.messages() == []
    # the same figures one coin short are still found, at the reading that shows them
    desk.emit(MetersRead, machine="B-001", meters=(("current_credits", 0),), hopper_level=899,
              **meters)  # fmt: skip
    assert desk.messages() == [
        "1 coins are missing from B-001's hopper with no record of their removal; the "
        "machine was opened by nobody recorded"
    ]


def test_a_reading_while_coins_drop_shows_them_on_the_machine() -> None:
    """The meters and the hopper change when the coins have dropped (the ``hopper_paid``
    record): a reading 5 s into a 12.5 s payout shows the 100 credits and the hopper's coins
    still there, equal to the ledger's replay at that instant; the cash-out, the reading and
    the closing reading are no finding."""
    got: dict[str, Any] = {}

    def script(casino: Casino) -> Generator[simpy.events.Event, Any, None]:
        m = casino.machine("B-001")
        m.insert_coins("P1", 100)
        got["hopper"] = m.accounts.hopper_level
        proc = casino.env.process(m.cash_out("P1"))
        yield casino.env.timeout(5.0)
        m.read_meters()
        got["credits_then"] = m.accounts.credits
        yield proc

    casino, sink = _scripted(script)
    reading = [r for r in sink.of(MetersRead) if r.t == 3605.0]
    assert len(reading) == 1
    shown = dict(reading[0].meters)
    assert (shown["current_credits"], reading[0].hopper_level) == (100, got["hopper"])
    assert got["credits_then"] == 100
    state = replay(sink.records, "B-001", upto_seq=reading[0].seq)
    assert state.meters == reading[0].meters and state.hopper_level == got["hopper"]
    (paid,) = sink.of(HopperPaid)
    assert (paid.t, paid.coins, paid.hopper_level) == (3612.5, 100, got["hopper"] - 100)
    assert findings(casino, entrants=False) == []


# -- floor runs -------------------------------------------------------------------------------


def test_the_drop_is_collected_by_the_drop_team_with_an_inspector_witnessing() -> None:
    """At 05:00 every machine's drop bucket and bill stacker are emptied by an attendant,
    a Board inspector witnessing; what is taken is exactly what went in since."""
    casino, sink = run(floor_data())
    removed = sink.of(MoneyRemoved)
    coin_machines = {m.id for m in casino.machines if m.spec.coin_acceptor}
    assert {(r.machine, r.container) for r in removed} == {
        (m.id, "cash_box") for m in casino.machines
    } | {(m, "drop_bucket") for m in coin_machines}
    assert {r.staff[:3] for r in removed} == {"ATT"}
    assert {r.witness[:3] for r in removed} == {"INS"}
    for r in removed:
        before = [x for x in sink.records if x.seq < r.seq and x.entity("machine") == r.machine]
        if r.container == "cash_box":
            assert r.cents == sum(b.bill_cents for b in before if isinstance(b, BillAccepted))
        else:
            coins = sum(c.to_drop for c in before if isinstance(c, CoinsAccepted))
            assert (r.coins, r.cents) == (coins, coins * 25)
    assert sum(r.cents for r in removed) > 0
    assert findings(casino) == []
    for m in casino.machines:  # the ledger replays the removals and the hand-pay meter
        last = [r for r in sink.of(MetersRead) if r.machine == m.id][-1]
        state = replay(sink.records, m.id)
        assert state.meters == last.meters and state.hopper_level == last.hopper_level


@pytest.mark.parametrize(
    "meter",
    ["coins_to_drop_credits", "total_jackpot", "handpaid_cancelled_credits", "total_drop"],
)
def test_skewed_meter_is_found(meter: str) -> None:
    """4(b): a meter skewed by 500 credits no longer counts what defines it (coins diverted to
    the drop, jackpots paid by hand, credit payouts paid by hand, the cash box)."""
    casino, _ = run(
        floor_data(),
        [{"kind": "meter_skew", "machine": "B-001", "meter": meter, "amount": 500,
          "at_hours": 3.0}],
    )  # fmt: skip
    found = findings(casino)
    assert [(f.control, f.subjects[0]) for f in found] == [("MT98.S1.4b", "B-001")]
    assert f"{meter} meter shows" in found[0].message


def test_play_meters_must_be_reported() -> None:
    casino, _ = run(
        floor_data(),
        [{"kind": "missing_meter", "machine": "B-001", "meter": "games_since_door_closed"}],
    )
    assert {f.control for f in findings(casino)} == {"MT98.S1.4c", "MT98.S1.20d"}


def test_new_machine_needs_a_fill() -> None:
    """7(a): nobody on duty at opening, so the new machines' coins go in with no fill."""
    data = floor_data()
    for shift in data["staff"]["shifts"]:
        if shift["name"] == "day":
            shift["start"] = "10:30"
    sc = parse_scenario(data, source=str(FLOOR), base_dir=FLOOR.parent)
    casino = Casino(sc, controls=["MT98.S1.7a"])
    casino.run(until=600.0)
    loaded = sorted(m.id for m in casino.machines if m.spec.hopper_initial > 0)
    assert casino.compliance is not None  # only 7(a) runs: no absent-function finding
    assert [f.subjects[0] for f in casino.compliance.findings] == loaded


def _scripted(script: Any) -> tuple[Casino, MemorySink]:
    """One 25-cent machine (B-001), no patrons; ``script(casino)`` runs at 1 h."""
    data = floor_data()
    data["floor"].pop("drop_collection")
    data["floor"]["banks"] = [dict(b, count=1) for b in data["floor"]["banks"] if b["id"] == "B"]
    data.pop("promotions", None)  # they run on bank G, which this floor leaves out
    data["patrons"]["arrivals_per_hour"] = [0] * 24
    sc = parse_scenario(data, source=str(FLOOR), base_dir=FLOOR.parent)
    sink = MemorySink()
    casino = Casino(sc, sinks=[sink])

    def at_one_hour() -> Generator[simpy.events.Event, Any, None]:
        yield casino.env.timeout(3600.0)
        yield from script(casino)

    casino.start()
    casino.env.process(at_one_hour())
    casino.run()
    return casino, sink


def test_credit_rollback_while_coins_drop_is_no_short_pay() -> None:
    """Wound back to 100 credits while 400 coins drop: the hopper pays the 100 the meter
    still holds and the cash-out ends there. The hopper did not run dry, so there is no
    hopper-empty tilt, no fill and no short pay (nothing is owed: the credits are gone), and
    the only finding is 4(d)'s credits lost, not 7(a)'s short pay without a fill."""

    def script(casino: Casino) -> Generator[simpy.events.Event, Any, None]:
        m = casino.machine("B-001")
        m.insert_coins("P1", 1000)
        proc = casino.env.process(m.cash_out("P1"))
        yield casino.env.timeout(10.0)  # 400 coins take 50 s to drop
        InjectViolation(
            kind="meter_rollback", machine="B-001", meter="current_credits", amount=900
        ).apply(casino)
        yield proc

    casino, sink = _scripted(script)
    (paid,) = sink.of(HopperPaid)
    assert (paid.t, paid.coins, paid.requested) == (3650.0, 100, 100)
    assert not sink.of(ShortPayCompleted) and not sink.of(HopperFilled)[1:]
    assert not [e for e in sink.of(MachineException) if e.code == ExceptionCode.HOPPER_EMPTY]
    assert [(f.control, f.message) for f in findings(casino, entrants=False)] == [
        (
            "MT98.S1.4d",
            "machine B-001's credit meter shows 900 credits fewer than the play and money in "
            "recorded give: credits were lost",
        )
    ]
    # nothing is owed to the patron (the wound-back credits are not in the ledger, which is
    # what 4(d) reports: the replay still counts them)
    state = replay(sink.records, "B-001")
    assert (state.credits, state.hopper_owed) == (900, 0)


def test_phantom_credits_are_money_from_nowhere() -> None:
    """A patron puts in EUR 26.50 (106 coins) and cashes out EUR 24,920.25 (99,681 credits):
    99,575 credits no game paid. Reg 36: money left the machine that was not a prize; 10(a):
    the credit payout certified was not due."""

    def script(casino: Casino) -> Generator[simpy.events.Event, Any, None]:
        m = casino.machine("B-001")
        m.insert_coins("P-LUCKY", 106)
        InjectViolation(kind="phantom_credits", machine="B-001", amount=99575).apply(casino)
        got = yield from m.cash_out("P-LUCKY")
        assert got * 25 == 2_492_025

    casino, sink = _scripted(script)
    found = findings(casino, entrants=False)
    assert sorted((f.control, f.message) for f in found) == [
        (
            "MT98.R36",
            "machine B-001 paid out 99575 credits (2489375 cents) that no game paid and no "
            "money put in explains: money left the machine that was not a prize",
        ),
        (
            "MT98.S1.10a",
            "a credit payout of 99281 credits on B-001 was certified as due; the play and "
            "money in recorded leave 0 credits to pay",
        ),
    ]
    r36 = next(f for f in found if f.control == "MT98.R36")
    cited = {sink.records[s].kind for s in r36.evidence}
    # the machine's money records since it was installed (its first cash-out)
    assert cited == {"hopper_filled", "meters_read", "coins_accepted", "hopper_paid",
                     "hand_paid", "cashed_out"}  # fmt: skip


def test_credit_rollback_mid_session_runs_to_the_end_and_is_found() -> None:
    """The credit meter wound back by more than it holds while a patron plays: the machine
    shows zero credits (never fewer), the run ends normally, and 4(d) reports the credits
    lost; nothing else is reported."""
    casino, _ = run(
        floor_data(),
        [{"kind": "meter_rollback", "machine": "B-001", "meter": "current_credits",
          "amount": 100000, "at_hours": 3.5}],
    )  # fmt: skip
    assert casino.env.now == casino.end
    found = findings(casino)
    assert [(f.control, f.subjects) for f in found] == [("MT98.S1.4d", ("B-001",))]
    assert found[0].message.endswith("credits fewer than the play and money in recorded "
                                     "give: credits were lost")  # fmt: skip
    assert casino.machine("B-001").accounts.credits >= 0


def test_credit_rollback_during_a_cash_out_pays_what_the_meter_holds() -> None:
    """Wound back between the hopper payout and the hand pay: the hand pay is what is left."""

    def script(casino: Casino) -> Generator[simpy.events.Event, Any, None]:
        m = casino.machine("B-001")
        m.insert_coins("P1", 1000)
        proc = casino.env.process(m.cash_out("P1"))
        yield casino.env.timeout(60.0)  # the hopper has paid 400; the hand pay is pending
        InjectViolation(
            kind="meter_rollback", machine="B-001", meter="current_credits", amount=500
        ).apply(casino)
        yield proc

    casino, sink = _scripted(script)
    assert [h.credits for h in sink.of(HandPaid)] == [100]
    assert [(f.control, f.message) for f in findings(casino, entrants=False)] == [
        (
            "MT98.S1.4d",
            "machine B-001's credit meter shows 500 credits fewer than the play and money in "
            "recorded give: credits were lost",
        )
    ]
