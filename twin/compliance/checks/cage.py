"""The cage, gaming cheques and card payments, records kept, unclaimed money.

Malta regs 23(4), 37-40 and 43 (the books, authorised payments and audited statements of
regs 41 and 42 are in ``checks.accounts``). Calendar periods (month ends, 5/10/1 years) are
computed on calendar dates with ``dateutil.relativedelta`` from the ruleset's numbers.
"""

from __future__ import annotations

from datetime import date, datetime

from dateutil.relativedelta import relativedelta

from twin.cage.params import (
    ACCOUNTS_RETENTION,
    CHEQUE_RECORD_RETENTION,
    INTERNAL_AUDIT_RETENTION,
    WRITEOFF_CYCLE,
)
from twin.cage.records import (
    BankingEvidence,
    CageTransaction,
    ChequeRedeemed,
    ChequeRepresented,
    ChequeReturned,
    DishonouredChequeEntered,
    DishonouredChequePaid,
    GamingPaymentAccepted,
    PaymentRefusalRecorded,
    PaymentsBanked,
    RecordDestroyed,
    RecordsNotProduced,
    RecordsProduced,
    RecordsRequested,
    RecordVolume,
    UnclaimedFound,
    UnclaimedRegistered,
    UnclaimedWrittenOff,
)
from twin.compliance.registry import Checker, Kind, control
from twin.records import Record

T = "tests/test_cage.py::test_injected_violation_is_found"
TC = "tests/test_cage.py::"


# --- reg 23(4) ---------------------------------------------------------------------------


@control(
    "MT98.R23.4",
    kind=Kind.RUNTIME,
    title="Unclaimed money and chips handed in and registered",
    reads=("unclaimed_found", "unclaimed_registered"),
    test=T,
    checks={
        "found money or chips presented at once to the licensee's staff": T + "[R23.4]",
        "deposited with the Chief Cashier and registered in the register before a Board "
        "inspector": TC + "test_registration_needs_chief_cashier_and_inspector",
    },
    unchecked=(
        "'unless claimed by its owner': owners never claim in the twin (every item is registered)",
    ),
)
class UnclaimedHandedIn(Checker):
    def setup(self) -> None:
        self.found: dict[str, UnclaimedFound] = {}

    def on_record(self, rec: Record) -> None:
        ctx = self.ctx
        if isinstance(rec, UnclaimedFound):
            if not ctx.is_employee(rec.staff):
                self.report(
                    (rec.item, rec.finder),
                    f"unclaimed {rec.form} worth {rec.value_cents} cents found at "
                    f"{rec.location} was not presented to the licensee's staff",
                    (rec.seq,),
                )
            else:
                self.found[rec.item] = rec
        elif isinstance(rec, UnclaimedRegistered):
            found = self.found.pop(rec.item, None)
            ev = (rec.seq,) if found is None else (found.seq, rec.seq)
            if ctx.roles.get(rec.chief_cashier) != "chief_cashier":
                self.report((rec.item,), f"item {rec.item} registered without the Chief Cashier",
                            ev)  # fmt: skip
            elif not ctx.is_inspector(rec.inspector):
                self.report((rec.item, rec.chief_cashier),
                            f"item {rec.item} registered with no Board inspector present",
                            ev)  # fmt: skip

    def finish(self) -> None:
        for item, rec in sorted(self.found.items()):
            self.report((item,), f"item {item} handed in but never registered", (rec.seq,))


def _month_end_t(ctx_clock: object, t: float) -> tuple[str, float]:
    """(label of the month ``t`` is in, simulation time of its end)."""
    from twin.clock import Clock

    assert isinstance(ctx_clock, Clock)
    now = ctx_clock.at(t)
    first = datetime(now.year, now.month, 1, tzinfo=ctx_clock.zone)
    return f"{now.year:04d}-{now.month:02d}", ctx_clock.seconds(first + relativedelta(months=1))


@control(
    "MT98.R23.4.m",
    kind=Kind.PERIODIC,
    title="Month-end write-off of unclaimed items",
    reads=("record_volume", "unclaimed_registered", "unclaimed_written_off"),
    params=(WRITEOFF_CYCLE.key,),
    observes=("unclaimed_written_off",),
    needs="a calendar month end in the run, on a floor with a cage",
    test=T,
    checks={
        "the amount outstanding in the register at each calendar month end is written as "
        "that month's gaming profit (a write-off for the month, of exactly that amount)": T
        + "[R23.4.m]",
        "the month ends by the calendar": TC + "test_month_end_writeoff_calendar",
    },
)
class MonthEndWriteOff(Checker):
    def setup(self) -> None:
        self.outstanding: dict[str, tuple[int, int]] = {}  # item -> (value, seq)
        self.ended: dict[str, dict[str, tuple[int, int]]] = {}  # month -> register at its end
        self.written: set[str] = set()
        self.cage = False  # a floor without a cage keeps no register
        self._arm(self.ctx.now)

    def _arm(self, t: float) -> None:
        label, end = _month_end_t(self.ctx.clock, t)
        self.ctx.after(max(0.0, end - self.ctx.now), lambda: self._ended(label, end))

    def _ended(self, label: str, end: float) -> None:
        if self.cage:
            self.observed()  # the register at a month end, audited
        self.ended[label] = dict(self.outstanding)
        self._arm(end + 1.0)

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, RecordVolume):
            self.cage = True
        elif isinstance(rec, UnclaimedRegistered):
            self._overdue((rec.seq,))
            self.outstanding[rec.item] = (rec.value_cents, rec.seq)
        elif isinstance(rec, UnclaimedWrittenOff):
            due = sum(v for v, _ in self.outstanding.values())
            if rec.amount_cents != due:
                ev = (*tuple(s for _, s in self.outstanding.values()), rec.seq)
                self.report((rec.chief_cashier,),
                            f"write-off of {rec.month}: {rec.amount_cents} cents written, "
                            f"{due} outstanding in the register", ev)  # fmt: skip
            self.written.add(rec.month)
            self.outstanding.clear()

    def _overdue(self, ev: tuple[int, ...]) -> None:
        """Months ended with no write-off (checked before the register moves on)."""
        if not self.cage:
            return
        for label, held in sorted(self.ended.items()):
            if label not in self.written:
                due = sum(v for v, _ in held.values())
                self.report_once(label, (), f"the unclaimed register was not written off at "
                                 f"the end of {label} ({due} cents outstanding)",
                                 tuple(s for _, s in held.values()) + ev)  # fmt: skip

    def finish(self) -> None:
        self._overdue(())


# --- regs 37(3)-(4), 43(1)-(2), 43(3): retention and production ---------------------------

CATEGORY_PARAM = {
    "payment_records": CHEQUE_RECORD_RETENTION,
    "accounts": ACCOUNTS_RETENTION,
    "internal_audit": INTERNAL_AUDIT_RETENTION,
}


class _Retention(Checker):
    """A volume of ``category`` destroyed before its period ended; a request for one not
    answered by producing it."""

    category = ""
    what = ""

    def setup(self) -> None:
        self.volumes: dict[str, RecordVolume] = {}
        self.requests: dict[str, RecordsRequested] = {}

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, RecordVolume):
            if rec.category == self.category:
                self.volumes[rec.volume] = rec
        elif isinstance(rec, RecordDestroyed):
            if rec.category != self.category:
                return
            self.observed()  # a destruction judged against its period
            years = self.ctx.rule(CATEGORY_PARAM[self.category])
            ends = date.fromisoformat(rec.last_entry) + relativedelta(years=years)
            if date.fromisoformat(rec.date) < ends:
                vol = self.volumes.get(rec.volume)
                ev = (rec.seq,) if vol is None else (vol.seq, rec.seq)
                self.report_once(
                    rec.volume, (rec.volume,),
                    f"{self.what} {rec.volume} destroyed on {rec.date}, before its {years} "
                    f"years from {rec.last_entry} ended ({ends.isoformat()})", ev,
                )  # fmt: skip
        elif isinstance(rec, RecordsRequested):
            # the Board asks for a period whatever the casino made of it: the books that
            # must exist by the law, not only the volumes the casino lists (issue 34)
            if rec.category == self.category:
                self.requests[rec.request] = rec
        elif isinstance(rec, RecordsNotProduced):
            req = self.requests.pop(rec.request, None)
            if req is not None:
                self.observed()  # a request answered (here, not)
                years = self.ctx.rule(CATEGORY_PARAM[self.category])
                ends = date.fromisoformat(req.last_entry) + relativedelta(years=years)
                asked = self.ctx.clock.at(req.t).date()
                if asked >= ends:
                    return  # past the law's period: nothing needs to be kept
                held = self.volumes.get(rec.volume)
                proof = (req.seq, rec.seq) if held is None else (held.seq, req.seq, rec.seq)
                self.report_once(rec.volume, (rec.volume, req.inspector),
                                 f"{self.what} {rec.volume} (to {req.last_entry}) asked for by "
                                 f"a Board inspector on {asked.isoformat()} could not be "
                                 f"produced ({rec.reason}); the law keeps it {years} years, to "
                                 f"{ends.isoformat()}", proof)  # fmt: skip
        elif isinstance(rec, RecordsProduced):
            req = self.requests.pop(rec.request, None)
            if req is not None:
                self.observed()  # a request answered
                self.produced(req, rec)

    def produced(self, req: RecordsRequested, rec: RecordsProduced) -> None:
        pass

    def finish(self) -> None:
        # the end-of-run audit: every volume of the category the run held was kept (or its
        # destruction judged above); each is one observation
        self.observed(len(self.volumes))
        for req in self.requests.values():
            self.observed()
            self.report((req.volume, req.inspector),
                        f"{self.what} {req.volume} asked for was never produced",
                        (req.seq,))  # fmt: skip


@control(
    "MT98.R37.3",
    kind=Kind.RECORD,
    title="Keep cheque and card payment records five years in the casino",
    reads=("record_volume", "record_destroyed", "records_requested", "records_produced",
           "records_not_produced"),
    params=(CHEQUE_RECORD_RETENTION.key,),
    observes=(),
    needs="a volume of payment records in the archive, or asked for",
    test=T,
    checks={
        "records of regs 38-40 kept until five years from acceptance have expired (a volume "
        "from its latest acceptance)": T + "[R37.3]",
        "the five years by the calendar": TC + "test_retention_periods_calendar",
        "37(4): a hard copy produced when an inspector asks": TC
        + "test_hard_copy_and_production_are_checked",
    },
    unchecked=(
        "'retain in the casino' (the place of keeping) is not modelled",
        "the run's own payment records are never destroyed within a run (they are days "
        "old); the archive of earlier volumes carries the check",
    ),
)  # fmt: skip
class PaymentRecordsKept(_Retention):
    category = "payment_records"
    what = "payment records volume"

    def produced(self, req: RecordsRequested, rec: RecordsProduced) -> None:
        if not rec.hard_copy:
            self.report((rec.volume,), f"no hard copy of electronic volume {rec.volume} produced",
                        (req.seq, rec.seq))  # fmt: skip


@control(
    "MT98.R43.1",
    kind=Kind.RECORD,
    title="Keep gaming accounts ten years; produce them on request",
    reads=("record_volume", "record_destroyed", "records_requested", "records_produced",
           "records_not_produced"),
    params=(ACCOUNTS_RETENTION.key,),
    observes=(),
    needs="a volume of accounts in the archive, or asked for",
    test=T,
    checks={
        "accounts and records kept ten years, a bound volume from its last entry": T + "[R43.1]",
        "the ten years by the calendar (29 February)": TC + "test_retention_periods_calendar",
        "43(2): produced on request for inspection by a Board inspector": TC
        + "test_hard_copy_and_production_are_checked",
    },
    unchecked=(
        "cheque and card payment records are kept under 37(3) (the specific rule), not 43(1)",
    ),
)  # fmt: skip
class AccountsKept(_Retention):
    category = "accounts"
    what = "accounts volume"


@control(
    "MT98.R43.3",
    kind=Kind.RECORD,
    title="Keep internal audit reports one year",
    reads=("record_volume", "record_destroyed", "records_requested", "records_produced",
           "records_not_produced"),
    params=(INTERNAL_AUDIT_RETENTION.key,),
    observes=(),
    needs="an internal audit report in the archive, or asked for",
    test=T,
    checks={
        "internal audit reports kept available one year": T + "[R43.3]",
        "the year by the calendar": TC + "test_retention_periods_calendar",
    },
    unchecked=(
        "inspection by the Secretary of the Board: requests come from Board inspectors "
        "(a person the Secretary authorises)",
    ),
)  # fmt: skip
class AuditReportsKept(_Retention):
    category = "internal_audit"
    what = "internal audit report"


# --- reg 38: the record of each cheque and card payment -----------------------------------


@control(
    "MT98.R38.2",
    kind=Kind.RECORD,
    title="Record every gaming cheque and card payment",
    reads=("gaming_payment_accepted", "cage_transaction", "cheque_redeemed", "payments_banked",
           "cheque_returned", "payment_refusal_recorded"),
    observes=("gaming_payment_accepted", "cheque_redeemed", "payments_banked", "cheque_returned"),
    needs="a gaming cheque or card payment",
    test=T,
    checks={
        "(a)-(d) date and time, drawer/holder, bank (and its address for a cheque), account "
        "and cheque/card numbers, amount, guarantee card (cheques)": T + "[R38.2]",
        "(e) a substitute names the redeemed cheques and how it was given; (f) a redeemed "
        "cheque is marked; (g) a banked payment is a recorded, unredeemed one; (h) a first "
        "refusal is noted": TC + "test_reg38_parts_e_to_h",
    },
    unchecked=(
        "card payments are always authorised at first asking in the twin, so (h) is "
        "exercised for cheques only",
        "38(3)-(4) allow one date for a batch: the twin always records the batch's date",
    ),
)  # fmt: skip
class PaymentParticulars(Checker):
    def setup(self) -> None:
        self.accepted: dict[str, GamingPaymentAccepted] = {}
        self.redeemed: dict[str, int] = {}
        self.to_redeem: dict[str, int] = {}  # payment -> seq of what redeemed it
        self.refused: dict[str, int] = {}

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, GamingPaymentAccepted):
            self._particulars(rec)
            self.accepted[rec.payment] = rec
            for old in rec.substitute_for:
                if old not in self.accepted:
                    self.report((rec.payment,), f"substitute {rec.payment} names unknown cheque "
                                f"{old}", (rec.seq,))  # fmt: skip
                self.to_redeem[old] = rec.seq
        elif isinstance(rec, CageTransaction):
            if rec.txn_kind == "cheque_redeemed":
                self.to_redeem[rec.payment] = rec.seq
        elif isinstance(rec, ChequeRedeemed):
            self.redeemed[rec.payment] = rec.seq
            self.to_redeem.pop(rec.payment, None)
        elif isinstance(rec, PaymentsBanked):
            for p in rec.payments:
                if p not in self.accepted:
                    self.report((p,), f"payment {p} banked with no reg 38 record", (rec.seq,))
                elif p in self.redeemed:
                    self.report((p,), f"redeemed cheque {p} was banked",
                                (self.redeemed[p], rec.seq))  # fmt: skip
        elif isinstance(rec, ChequeReturned):
            self.refused[rec.payment] = rec.seq
        elif isinstance(rec, PaymentRefusalRecorded):
            self.refused.pop(rec.payment, None)

    def _particulars(self, rec: GamingPaymentAccepted) -> None:
        missing = [n for n in ("holder", "accepted_at", "bank", "account_number", "number")
                   if not getattr(rec, n)]  # fmt: skip
        if rec.method == "cheque":
            missing += [n for n in ("account_holder", "bank_address") if not getattr(rec, n)]
            if rec.guarantee_card not in ("produced", "not produced"):
                missing.append("guarantee_card")
        if rec.amount_cents <= 0:
            missing.append("amount_cents")
        if rec.accepted_at != self.ctx.clock.iso(rec.t):
            missing.append("accepted_at (not the time of acceptance)")
        if rec.substitute_for and rec.given_with not in ("cash", "tokens", "both"):
            missing.append("given_with")
        if missing:
            self.report((rec.payment, rec.cashier),
                        f"{rec.method} {rec.payment} recorded without {', '.join(missing)}",
                        (rec.seq,))  # fmt: skip

    def finish(self) -> None:
        for p, seq in sorted(self.to_redeem.items()):
            self.report((p,), f"cheque {p} was redeemed but its record does not say so", (seq,))
        for p, seq in sorted(self.refused.items()):
            self.report((p,), f"cheque {p} was refused but its record does not say so", (seq,))


@control(
    "MT98.R39",
    kind=Kind.RECORD,
    title="Register of dishonoured cheques",
    reads=("gaming_payment_accepted", "cheque_returned", "cheque_represented",
           "dishonoured_cheque_entered", "dishonoured_cheque_paid"),
    observes=("cheque_returned", "cheque_represented"),
    needs="a cheque refused by its bank",
    test=T,
    checks={
        "every cheque first refused is entered with (a) acceptance date, (b)-(c) the "
        "particulars of 38(2)(b)-(c), (c) the reason": T + "[R39]",
        "(d) a later payment and its date": TC + "test_dishonour_register_later_payment",
    },
)  # fmt: skip
class DishonouredRegister(Checker):
    def setup(self) -> None:
        self.accepted: dict[str, GamingPaymentAccepted] = {}
        self.returned: dict[str, ChequeReturned] = {}
        self.paid: dict[str, ChequeRepresented] = {}

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, GamingPaymentAccepted):
            self.accepted[rec.payment] = rec
        elif isinstance(rec, ChequeReturned):
            self.returned[rec.payment] = rec
        elif isinstance(rec, DishonouredChequeEntered):
            ret = self.returned.pop(rec.payment, None)
            acc = self.accepted.get(rec.payment)
            if ret is None or acc is None:
                return
            wrong = [
                n for n, want in (
                    ("accepted_date", acc.accepted_at[:10]), ("account_holder", acc.account_holder),
                    ("bank", acc.bank), ("bank_address", acc.bank_address),
                    ("account_number", acc.account_number), ("number", acc.number),
                    ("amount_cents", acc.amount_cents), ("reason", ret.reason),
                ) if getattr(rec, n) != want
            ]  # fmt: skip
            if not rec.reason:
                wrong.append("reason")
            if wrong:
                self.report((rec.payment,), f"dishonoured cheque {rec.payment} entered without "
                            f"{', '.join(wrong)}", (acc.seq, ret.seq, rec.seq))  # fmt: skip
        elif isinstance(rec, ChequeRepresented):
            if rec.paid:
                self.paid[rec.payment] = rec
        elif isinstance(rec, DishonouredChequePaid):
            got = self.paid.pop(rec.payment, None)
            if got is not None and got.date != rec.date:
                self.report(
                    (rec.payment,),
                    f"payment of dishonoured cheque {rec.payment} entered on {rec.date}, "
                    f"paid {got.date}",
                    (got.seq, rec.seq),
                )

    def finish(self) -> None:
        for p, ret in sorted(self.returned.items()):
            self.report((p,), f"cheque {p} refused by {ret.bank} ({ret.reason}) is not in the "
                        "register of dishonoured cheques", (ret.seq,))  # fmt: skip
        for p, rep in sorted(self.paid.items()):
            self.report((p,), f"later payment of dishonoured cheque {p} not entered",
                        (rep.seq,))  # fmt: skip


@control(
    "MT98.R40",
    kind=Kind.RECORD,
    title="Proof of banking and processing dates",
    reads=("payments_banked", "banking_evidence"),
    observes=("payments_banked",),
    needs="payments banked",
    test=T,
    checks={
        "each banking date backed by a document showing each amount, endorsed by the "
        "collecting bank or the card issuer with its name and the date": T + "[R40]",
    },
    unchecked=("the stamp as a physical mark is not modelled: the endorsement is data",),
)
class BankingProof(Checker):
    def setup(self) -> None:
        self.batches: dict[str, PaymentsBanked] = {}

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, PaymentsBanked):
            self.batches[rec.batch] = rec
        elif isinstance(rec, BankingEvidence):
            b = self.batches.pop(rec.batch, None)
            if b is None:
                return
            wrong = []
            if rec.endorser != b.institution or not rec.endorser:
                wrong.append(f"endorsed by {rec.endorser!r}, delivered to {b.institution!r}")
            if rec.endorsed_date != b.date:
                wrong.append(f"endorsed {rec.endorsed_date}, recorded as banked {b.date}")
            if dict(zip(rec.payments, rec.amounts_cents, strict=True)) != dict(
                zip(b.payments, b.amounts_cents, strict=True)
            ):
                wrong.append("amounts differ from the payments banked")
            if wrong:
                self.report((b.batch,), f"batch {b.batch}: " + "; ".join(wrong), (b.seq, rec.seq))

    def finish(self) -> None:
        for b in self.batches.values():
            self.report((b.batch,), f"batch {b.batch} banked {b.date} with no endorsed document",
                        (b.seq,))  # fmt: skip
