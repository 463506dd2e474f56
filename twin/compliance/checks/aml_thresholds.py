"""Prevention of money laundering, reg 46(1)-(4) of the Malta regulations: buy-ins and
cash-outs above the threshold identified, alone or in aggregate over the patron's window,
and every such cash-out cross-referenced to the window's buy-ins and winnings.

The money trail and what the AML checkers share are in ``checks.aml``.
"""

from __future__ import annotations

from collections import defaultdict
from functools import partial
from typing import ClassVar

from twin.aml.params import CHIPS_FROM_NET_WINNINGS
from twin.aml.records import CashOutCrossReferenced, IdentificationRecorded, RedFlagObserved
from twin.compliance.checks.aml import (
    ANONYMOUS,
    INJ,
    NO_FUNCTION,
    TRAIL,
    TRAIL_PARAMS,
    MoneyTrail,
    T,
    Txn,
    V,
    euros,
)
from twin.compliance.registry import Checker, Kind, control
from twin.records import Record

#: the failures of the check of 46(3), by what failed: the red flag that must be raised
CROSS_FLAGS = {"matched": "unmatched_cash_out", "from_winnings": "not_from_winnings"}


# --- reg 46(1), (2), (4): identification ------------------------------------------------------


class _Identified(Checker):
    """Every transaction needing one of ``reasons`` is identified when it is made: in the
    same instant, an identification of its patron with that reason whose newest transaction
    is it (an aggregate identification lists the window's earlier ones too)."""

    reasons: ClassVar[frozenset[str]] = frozenset()
    what: ClassVar[str] = ""

    def setup(self) -> None:
        self.trail = MoneyTrail.of(self.ctx)
        self.ids: dict[tuple[str, float], list[IdentificationRecorded]] = defaultdict(list)

    def counts(self, txn: Txn) -> bool:
        """Whether ``txn`` is one this clause looks at (one observation of it)."""
        return True

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, IdentificationRecorded):
            self.ids[(rec.patron, rec.t)].append(rec)
            return
        for txn in self.trail.accept(rec):
            if self.counts(txn):
                self.observed()
            if txn.need in self.reasons:
                self.ctx.after(0.0, partial(self._due, txn))

    def _due(self, txn: Txn) -> None:
        if not self.trail.aml:
            self.report_once(
                "no AML function",
                (txn.patron,),
                f"no such function in this casino: no AML function (no Reporting Officer, "
                f"no identification records); {self.message(txn)}, and neither is any later "
                "one (this finding stands for them all)",
                (txn.seq,),
            )
            return
        got = self.ids.get((txn.patron, txn.t), [])
        if any(i.reason == txn.need and max(i.transactions, default=-1) == txn.seq for i in got):
            return  # its own identification: the one whose newest transaction it is
        self.report((txn.patron,), self.message(txn), (txn.seq,))

    def message(self, txn: Txn) -> str:
        return (
            f"{txn.patron}'s {self.what} of EUR {euros(txn.cents)} (more than the "
            f"threshold, {self.trail.threshold_text()}) was not identified"
        )


@control(
    "MT98.R46.1",
    kind=Kind.RUNTIME,
    title="ID for chip purchases above Lm2,000",
    reads=(*TRAIL, "identification_recorded"),
    params=TRAIL_PARAMS,
    test=INJ + "[R46.1]",
    checks={
        "every exchange of cash, a cheque or a card for chips or tokens above the threshold "
        "(cage buy-ins for chips, cash at a table, notes or coins into a machine, front "
        "money at the junket desk), compared exactly with Lm 2,000 in the floor's cents, is "
        "identified in the same instant, with a record of the particulars": INJ + "[R46.1]",
        "'in excess of': the threshold itself needs no identification, a cent more does": T
        + "test_threshold_is_exclusive",
        NO_FUNCTION: V + "test_no_aml_function_is_one_finding_per_clause",
        "a slot machine's notes and coins are a person's only through the floor's session record": V
        + "test_anonymous_bills_are_no_ones",
    },
    unchecked=(
        "the particulars 'in accordance with section 25(2) of the Act' (not in the seed "
        "text): their content is checked under reg 47 (MT98.R47)",
        ANONYMOUS,
    ),
    observes=(),
    needs="a buy-in of chips or tokens the casino could attribute to a person",
)
class BuyInsIdentified(_Identified):
    reasons = frozenset({"buy_in"})
    what = "buy-in"

    def counts(self, txn: Txn) -> bool:
        return not txn.out


@control(
    "MT98.R46.2",
    kind=Kind.RUNTIME,
    title="ID for cash-outs above Lm2,000",
    reads=(*TRAIL, "identification_recorded"),
    params=TRAIL_PARAMS,
    test=INJ + "[R46.2]",
    checks={
        "every exchange of chips or tokens for money above the threshold (chips redeemed at "
        "the cage, a machine's cash-out, a jackpot paid by hand) is identified in the same "
        "instant": INJ + "[R46.2]",
        "the threshold itself needs no identification, a cent more does": T
        + "test_threshold_is_exclusive",
        NO_FUNCTION: V + "test_no_aml_function_is_one_finding_per_clause",
    },
    unchecked=(
        "'after playing a game': a cash-out is checked whether or not the patron played "
        "(chips exchanged without play are cash-outs too)",
        ANONYMOUS,
    ),
    observes=(),
    needs="a cash-out of chips or tokens the casino could attribute to a person",
)
class CashOutsIdentified(_Identified):
    reasons = frozenset({"cash_out"})
    what = "cash-out"

    def counts(self, txn: Txn) -> bool:
        return txn.out


@control(
    "MT98.R46.4",
    kind=Kind.RUNTIME,
    title="Aggregate smaller transactions within a gaming session",
    reads=(*TRAIL, "identification_recorded"),
    params=TRAIL_PARAMS,
    test=INJ + "[R46.4]",
    checks={
        "every transaction at or below the threshold that takes its window's total past it "
        "(and every later one in that window) is identified when it is made: an aggregate "
        "identification in the same instant whose newest transaction it is": INJ + "[R46.4]",
        "the window is rebuilt from the records: the visit, from an admission to this "
        "casino's gaming area to the next, or the gaming day (aml_session_is_gaming_day); "
        "buy-ins and cash-outs added separately or together "
        "(aml_aggregate_in_out_separately)": T + "test_aggregate_windows_exactly",
        "a junket member's stay, from arrival to settlement, is one window (front money, "
        "tokens bought for cash, junket chips redeemed)": "tests/test_launderers.py::"
        "test_junket_front_money_is_identified_and_a_guest_is_known_by_passport",
        "on the floor, the gaming-day reading aggregates a structurer's visits of one day, "
        "the visit's does not": T + "test_windows_follow_the_ruleset_switches",
        NO_FUNCTION: V + "test_no_aml_function_is_one_finding_per_clause",
    },
    unchecked=(
        "'gaming session' is not defined in the text: both readings are switches of the "
        "ruleset, the visit by default",
        "a patron never admitted at this casino's door has no session: their small "
        "transactions are not aggregated ([aml] needs [entrance], so every visitor is; a "
        "casino with no door at all has the visit from the floor's record of the arrival)",
        ANONYMOUS,
    ),
    observes=(),
    needs="a transaction of a person in a window (a visit through the door, a junket stay)",
)
class AggregatesIdentified(_Identified):
    reasons = frozenset({"aggregate_buy_in", "aggregate_cash_out"})

    def counts(self, txn: Txn) -> bool:
        return bool(txn.window)

    def message(self, txn: Txn) -> str:
        what = "cash-out" if txn.out else "buy-in"
        return (
            f"{txn.patron}'s {what} of EUR {euros(txn.cents)} took the "
            f"{self.trail.label(txn.window)}'s total past the threshold "
            f"({self.trail.threshold_text()}) and was not identified"
        )


# --- reg 46(3): the cash-out matched to the buy-ins, the chips to winnings ------------------


@control(
    "MT98.R46.3",
    kind=Kind.RUNTIME,
    title="Match cash-out identity to buy-in; confirm chips came from winnings",
    reads=(*TRAIL, "cash_out_cross_referenced", "red_flag_observed"),
    params=(*TRAIL_PARAMS, CHIPS_FROM_NET_WINNINGS.key),
    test=INJ + "[R46.3]",
    checks={
        "every cash-out needing identification (alone or in aggregate) is cross-referenced "
        "in the same instant to the buy-ins of the same person in its window": INJ + "[R46.3]",
        "the cross-reference's numbers are the records': the window's buy-ins and their "
        "total, the net winnings of play in it (tables, machines, jackpots), the cash-outs "
        "with this one; 'matched' and 'from winnings' follow from them": T
        + "test_cross_reference_numbers",
        "a cash-out not matched to a buy-in of the person's own, or whose chips are not "
        "derived from winnings, is raised as a suspicion at once (a red flag of the window)": T
        + "test_cross_reference_numbers",
        "'derived from winnings made whilst playing' (aml_chips_from_net_winnings, the "
        "literal reading by default): the window's cash-outs are covered by its net winnings; "
        "the other reading lets the patron's own stake back too (cash-outs at most buy-ins "
        "and net winnings)": V + "test_chips_from_winnings_reading",
        NO_FUNCTION: V + "test_no_aml_function_is_one_finding_per_clause",
    },
    unchecked=(
        "chips passed between patrons are seen only as one patron's cash-outs without "
        "buy-ins (the twin's truth, laundering_act, is not read)",
        "the report of such a red flag to the Reporting Officer is reg 49(2)'s (MT98.R49.2)",
        ANONYMOUS,
    ),
    observes=(),
    needs="a cash-out needing identification (above the threshold, alone or in aggregate)",
)
class CashOutsCrossReferenced(Checker):
    def setup(self) -> None:
        self.trail = MoneyTrail.of(self.ctx)
        self.xrefs: dict[int, CashOutCrossReferenced] = {}
        self.flags: set[tuple[str, str]] = set()  # (window key, flag) raised

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, CashOutCrossReferenced):
            self.xrefs[rec.cash_out] = rec
        elif isinstance(rec, RedFlagObserved):
            key = self.trail.window_key(rec.patron, rec.t)
            if key:
                self.flags.add((key, rec.flag))
        else:
            for txn in self.trail.accept(rec):
                if txn.out and txn.need:
                    self.observed()
                    self.ctx.after(0.0, partial(self._due, txn))

    def from_winnings(self, cashed: int, bought: int, won: int) -> bool:
        """The chips cashed are derived from winnings, by the ruleset's reading."""
        if bool(self.ctx.rule(CHIPS_FROM_NET_WINNINGS)):
            return cashed <= max(0, won)
        return cashed <= bought + max(0, won)

    def _due(self, txn: Txn) -> None:
        x = self.xrefs.pop(txn.seq, None)
        if not self.trail.aml:
            self.report_once(
                "no AML function",
                (txn.patron,),
                f"no such function in this casino: no AML function (no Reporting Officer, "
                f"no identification records); {txn.patron}'s cash-out of EUR "
                f"{euros(txn.cents)} ({txn.need}) was not cross-referenced to the buy-ins of "
                "the chips, and neither is any later one (this finding stands for them all)",
                (txn.seq,),
            )
            return
        if x is None or x.t != txn.t or x.patron != txn.patron:
            self.report(
                (txn.patron,),
                f"{txn.patron}'s cash-out of EUR {euros(txn.cents)} ({txn.need}) was "
                "not cross-referenced to the buy-ins of the chips",
                (txn.seq,),
            )
            return
        wrong = [
            f"{name} {got} (the records show {want})"
            for name, got, want in (
                ("buy-ins", list(x.buy_ins), list(txn.buy_ins)),
                ("bought", x.bought_cents, txn.bought),
                ("won", x.won_cents, txn.won),
                ("cashed", x.cashed_cents, txn.cashed),
            )
            if got != want
        ]
        if x.matched != bool(x.buy_ins):
            wrong.append(f"matched {x.matched} with {len(x.buy_ins)} buy-ins")
        if x.from_winnings != self.from_winnings(x.cashed_cents, x.bought_cents, x.won_cents):
            wrong.append(f"from winnings {x.from_winnings}")
        if wrong:
            self.report(
                (txn.patron,),
                f"cross-reference of {txn.patron}'s cash-out: " + "; ".join(wrong),
                (txn.seq, x.seq),
            )
            return
        for part, flag in CROSS_FLAGS.items():
            if not getattr(x, part):
                if (txn.window, flag) not in self.flags:
                    self.report(
                        (txn.patron,),
                        f"{txn.patron}'s cash-out failed the check of 46(3) ({flag}) "
                        "and no suspicion was raised",
                        (txn.seq, x.seq),
                    )
                break
