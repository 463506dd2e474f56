"""Hopper fills, hand pays and who may handle a machine's money.

Malta First Schedule items 7 (hopper fills), 8 (records countersigned), 10 (jackpot and
credit payments before a certifying inspector) and reg 36 (only the licensee's people).
"""

from __future__ import annotations

from twin.compliance.registry import Checker, Kind, control
from twin.machines.events import (
    HandPaid,
    HopperFilled,
    MachineException,
    MachineInstalled,
    ShortPayCompleted,
)
from twin.machines.sas import ExceptionCode
from twin.records import Record

T = "tests/test_controls.py::test_injected_violation_is_found"


@control(
    "MT98.S1.7a",
    kind=Kind.RUNTIME,
    title="Hopper fill when the hopper runs dry mid-payout, or on a new machine",
    reads=("machine_installed", "machine_exception", "hopper_filled", "short_pay_completed"),
    test=T,
)
class FillWhenEmpty(Checker):
    def setup(self) -> None:
        self.empty: dict[str, int] = {}  # machine -> seq of its hopper-empty exception
        self.new: dict[str, int] = {}  # machine installed with coins, awaiting its "new" fill

    def on_record(self, rec: Record) -> None:
        m = rec.entity("machine")
        if isinstance(rec, MachineInstalled):
            if rec.hopper_coins > 0:
                self.new[m] = rec.seq
        elif isinstance(rec, MachineException):
            if rec.code == ExceptionCode.HOPPER_EMPTY:
                self.empty[m] = rec.seq
        elif isinstance(rec, HopperFilled):
            if rec.reason == "new":
                self.new.pop(m, None)
            self.empty.pop(m, None)
        elif isinstance(rec, ShortPayCompleted):
            seq = self.empty.pop(m, None)
            if seq is not None or rec.coins == 0:
                self.report(
                    rec.entities,
                    f"machine {m}'s hopper ran dry mid-payout and the short pay of "
                    f"{rec.short_coins} coins was settled with no hopper fill",
                    tuple(x for x in (seq, rec.seq) if x is not None),
                )

    def finish(self) -> None:
        for m, seq in sorted(self.new.items()):
            self.report(
                (m,),
                f"new machine {m} was loaded with coins without a recorded hopper fill",
                (seq,),
            )


@control(
    "MT98.S1.7b",
    kind=Kind.RUNTIME,
    title="Board inspector witnesses and certifies every hopper fill",
    reads=("hopper_filled",),
    test=T,
)
class FillCertified(Checker):
    def on_record(self, rec: Record) -> None:
        assert isinstance(rec, HopperFilled)
        m = rec.machine
        if not self.ctx.is_inspector(rec.inspector):
            self.report(
                (m, rec.attendant),
                f"hopper fill of {rec.coins} coins on {m} was made with no Board inspector present",
                (rec.seq,),
            )
        elif rec.certified_coins != rec.coins:
            self.report(
                (m, rec.attendant, rec.inspector),
                f"hopper fill on {m}: {rec.coins} coins put in, {rec.certified_coins} certified",
                (rec.seq,),
            )


@control(
    "MT98.S1.8",
    kind=Kind.RECORD,
    title="Jackpots, fills, short pays and credit payouts: recorded and countersigned",
    reads=("machine_exception", "hand_paid", "hopper_filled"),
    params=("hand_pay_max_hours",),
    test=T,
)
class PayoutsRecorded(Checker):
    """Every hand pay (jackpot or credit payout) is made and recorded within the deadline, and
    every hand-pay and fill slip is countersigned by an inspector."""

    def setup(self) -> None:
        self.pending: dict[str, int] = {}  # machine -> seq of its open "hand pay pending"

    def on_record(self, rec: Record) -> None:
        m = rec.entity("machine")
        if isinstance(rec, MachineException):
            if rec.code != ExceptionCode.HANDPAY_PENDING:
                return
            self.pending[m] = rec.seq
            hours = float(self.ctx.param("hand_pay_max_hours"))

            def overdue(seq: int = rec.seq) -> None:
                if self.pending.get(m) == seq:
                    self.report(
                        (m,),
                        f"the hand pay on {m} was not paid and recorded within {hours:g} hours",
                        (seq,),
                    )

            self.ctx.after(hours * 3600.0, overdue)
        elif isinstance(rec, HandPaid):
            self.pending.pop(m, None)
            if not rec.inspector:
                self.report(
                    (rec.machine, rec.patron),
                    f"the {rec.reason} slip for {rec.cents} cents on "
                    f"{m} carries no inspector's countersignature",
                    (rec.seq,),
                )
        elif isinstance(rec, HopperFilled) and not rec.inspector:
            self.report(
                (m,),
                f"the hopper fill slip for {rec.coins} coins on {m} carries no "
                "inspector's countersignature",
                (rec.seq,),
            )


@control(
    "MT98.S1.10a",
    kind=Kind.RUNTIME,
    title="Jackpot and credit payments made before a certifying inspector",
    reads=("hand_paid",),
    test=T,
)
class HandPaysCertified(Checker):
    def on_record(self, rec: Record) -> None:
        assert isinstance(rec, HandPaid)
        if not self.ctx.is_inspector(rec.inspector):
            self.report(
                (rec.machine, rec.patron),
                f"{rec.reason} of {rec.cents} cents on {rec.machine} was paid with no Board "
                "inspector certifying it",
                (rec.seq,),
            )


@control(
    "MT98.R36",
    kind=Kind.RUNTIME,
    title="Only the licensee's people remove money from machines",
    reads=("hand_paid", "hopper_filled"),
    test=T,
)
class LicenseeStaffOnly(Checker):
    def on_record(self, rec: Record) -> None:
        assert isinstance(rec, HandPaid | HopperFilled)
        if not self.ctx.is_employee(rec.attendant):
            what = "hopper fill" if isinstance(rec, HopperFilled) else rec.reason
            self.report(
                (rec.machine, rec.attendant),
                f"{what} on {rec.machine} was "
                f"handled by {rec.attendant}, who is not the licensee's employee",
                (rec.seq,),
            )
