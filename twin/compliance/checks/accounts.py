"""The casino's books: proper books giving a true and fair view, authorised payments,
audited financial statements.

Malta regs 41 and 42 (the cage's cheques, card payments, records kept and unclaimed money
are in ``checks.cage``). The 90 days are computed on calendar dates with
``dateutil.relativedelta`` from the ruleset's number.
"""

from __future__ import annotations

from datetime import date, datetime, time

from dateutil.relativedelta import relativedelta

from twin.cage.records import (
    CageReconciled,
    CageTransaction,
    DropCounted,
    DropVarianceInvestigated,
    FinancialStatementsLodged,
    FinancialYearEnded,
    GamingPaymentAccepted,
)
from twin.compliance.params import FINANCIAL_STATEMENTS_DEADLINE
from twin.compliance.registry import Checker, Kind, control
from twin.machines.events import MoneyRemoved
from twin.patrons.records import SessionStarted
from twin.pit.records import TableCount, TableFill, TableOpened
from twin.records import Record

T = "tests/test_cage.py::test_injected_violation_is_found"
TC = "tests/test_cage.py::"


# --- reg 41: books and payments -----------------------------------------------------------


@control(
    "MT98.R41.a",
    kind=Kind.PERIODIC,
    title="Proper books giving a true and fair view",
    reads=("cage_transaction", "cage_reconciled", "money_removed", "drop_counted",
           "drop_variance_investigated", "table_fill", "table_count", "financial_year_ended",
           "session_started", "table_opened"),
    observes=("cage_reconciled", "drop_counted", "table_count"),
    test=T,
    checks={
        "the cage reconciled: opening + cash in - cash out (from the transactions) = "
        "expected, a variance explained": T + "[R41.a]",
        "the slot drop: every container counted, the count equal to what was collected and "
        "reconciled with the drop meter, every variance investigated": TC
        + "test_drop_count_reconciliation",
        "the pit's count: each table's drop equal to the buy-ins on its table card, the "
        "card's fills and credits those recorded, its opening the last count's closing, and "
        "the win stated from them": "tests/test_pit.py::test_injected_violation_is_found[R41.a]",

        "a casino that keeps no books at all (no cage: no count room, no reconciliation, no "
        "accounts): found once, at its first gaming operation (a slot session, a table "
        "opened), with every later one an observation of the same absence (issue 25)": TC
        + "test_a_casino_without_books_is_found_at_its_first_game",
    },
    unchecked=(
        "the financial position 'at any time' beyond the cage, the slot drop and the pit's "
        "count (bank accounts, the liabilities of reg 41(b)(ii)) is not in the run's records",
        "on a floor without a cage the drop's containers are not judged one by one: the "
        "one finding of the absent books stands for them",
        "a table card's buy-ins are taken as the dealer wrote them: they are not re-added "
        "from the stretches (a stretch is recorded when the sitting ends, after the buy-in)",
    ),
    needs="a cage reconciliation, a drop count or a table count, or a gaming operation in a "
    "casino that keeps no books",
)  # fmt: skip
class TrueAndFairBooks(Checker):
    def setup(self) -> None:
        self.books = False  # the run keeps a cage's books (a count room, reconciliations)
        self.cage = False  # the cage keeps the books: it closes a financial year at t = 0
        self.cash_in = 0
        self.cash_out = 0
        self.closing: int | None = None
        self.collected: dict[int, MoneyRemoved] = {}
        self.meter: dict[tuple[str, str], int] = {}
        self.variances: dict[int, DropCounted] = {}
        self.card: dict[str, tuple[int, int, list[int]]] = {}  # table -> fills, credits, seqs
        self.table_closing: dict[str, tuple[int, int]] = {}  # table -> (closing, seq)

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, FinancialYearEnded):
            self.cage = True
        elif isinstance(rec, (SessionStarted, TableOpened)):
            if not self.cage:
                self.no_books(rec)
        elif isinstance(rec, CageTransaction):
            self.cash_in += rec.cash_in_cents
            self.cash_out += rec.cash_out_cents
        elif isinstance(rec, CageReconciled):
            self.books = True
            wrong = []
            if self.closing is not None and rec.opening_cents != self.closing:
                wrong.append(f"opening {rec.opening_cents} is not the last closing {self.closing}")
            if (rec.cash_in_cents, rec.cash_out_cents) != (self.cash_in, self.cash_out):
                wrong.append(f"books show in {rec.cash_in_cents} / out {rec.cash_out_cents}, the "
                             f"transactions {self.cash_in} / {self.cash_out}")  # fmt: skip
            expected = rec.opening_cents + self.cash_in - self.cash_out
            if rec.counted_cents != expected and not rec.explanation:
                wrong.append(f"unexplained variance of {rec.counted_cents - expected} cents")
            if wrong:
                self.report((rec.chief_cashier,), f"cage reconciliation of {rec.gaming_day}: "
                            + "; ".join(wrong), (rec.seq,))  # fmt: skip
            self.closing = rec.counted_cents
            self.cash_in = self.cash_out = 0
        elif isinstance(rec, MoneyRemoved):
            if rec.container in ("drop_bucket", "cash_box"):
                self.collected[rec.seq] = rec
        elif isinstance(rec, DropCounted):
            self.books = True
            self._count(rec)
        elif isinstance(rec, DropVarianceInvestigated):
            self.variances.pop(rec.count, None)
        elif isinstance(rec, TableFill):
            fills, credits, seqs = self.card.get(rec.table, (0, 0, []))
            if rec.credit:
                credits += rec.amount_cents
            else:
                fills += rec.amount_cents
            self.card[rec.table] = (fills, credits, [*seqs, rec.seq])
        elif isinstance(rec, TableCount):
            self._table_count(rec)

    def no_books(self, rec: SessionStarted | TableOpened) -> None:
        """A gaming operation in a casino that keeps no books: one finding, at the first;
        the later ones are observations of the same absence."""
        self.observed()
        what = (
            f"{rec.patron} began a session at machine {rec.machine}"
            if isinstance(rec, SessionStarted)
            else f"table {rec.table} opened"
        )
        self.report_once(
            "no books",
            (),
            "no such function in this casino: no accounts or records of its operation are "
            "kept (no cage: no count of the drop, no reconciliation, no books); "
            f"{what}, and every later gaming operation goes unaccounted (this finding stands "
            "for them all; each is counted as an observation of reg 41(a))",
            (rec.seq,),
        )

    def _table_count(self, rec: TableCount) -> None:
        """The pit's count of one table against its table card (the fills and credits
        recorded since its last count, that count's closing inventory)."""
        t = rec.table
        fills, credits, seqs = self.card.pop(t, (0, 0, []))
        ev = [*seqs, rec.seq]
        wrong = []
        last = self.table_closing.get(t)
        if last is not None and rec.opening_cents != last[0]:
            wrong.append(f"opening {rec.opening_cents} is not the last count's closing {last[0]}")
            ev.append(last[1])
        if (rec.fills_cents, rec.credits_cents) != (fills, credits):
            wrong.append(f"the card's fills {rec.fills_cents} / credits {rec.credits_cents}, "
                         f"those recorded {fills} / {credits}")  # fmt: skip
        win = (rec.closing_cents + rec.credits_cents - rec.opening_cents - rec.fills_cents
               + rec.drop_cents)  # fmt: skip
        if rec.win_cents != win or rec.variance_cents != rec.drop_cents - rec.card_drop_cents:
            wrong.append("win or variance misstated")
        if rec.drop_cents != rec.card_drop_cents:
            wrong.append(f"the drop box held {rec.drop_cents} cents, the table card's buy-ins "
                         f"are {rec.card_drop_cents}: {rec.card_drop_cents - rec.drop_cents} "
                         "cents unaccounted for")  # fmt: skip
        if wrong:
            self.report((t, *rec.members), f"count of table {t}: " + "; ".join(wrong), tuple(ev))
        self.table_closing[t] = (rec.closing_cents, rec.seq)

    def _count(self, rec: DropCounted) -> None:
        got = self.collected.pop(rec.collection, None)
        wrong = []
        if got is not None and rec.counted_cents != got.cents:
            wrong.append(f"counted {rec.counted_cents} cents of {got.cents} collected")
        key = (rec.machine, rec.container)
        last = self.meter.get(key)
        if last is not None and rec.meter_before != last:
            wrong.append(f"meter taken from {rec.meter_before}, last count ended at {last}")
        self.meter[key] = rec.meter_after
        metered = ((rec.meter_after - rec.meter_before) % rec.rollover) * rec.denomination_cents
        if metered != rec.metered_cents or rec.variance_cents != rec.counted_cents - metered:
            wrong.append("metered amount or variance misstated")
        if wrong:
            ev = (rec.seq,) if got is None else (got.seq, rec.seq)
            self.report((rec.machine,), f"drop count of {rec.machine} {rec.container}: "
                        + "; ".join(wrong), ev)  # fmt: skip
        if rec.counted_cents != metered:
            self.variances[rec.seq] = rec

    def finish(self) -> None:
        if not self.books:
            return  # no cage: the finding of the absent books stands for the drop
        for seq, got in sorted(self.collected.items()):
            self.report((got.machine,), f"{got.container} of {got.machine} collected, never "
                        "counted", (seq,))  # fmt: skip
        for seq, rec in sorted(self.variances.items()):
            self.report((rec.machine,), f"drop variance of {rec.variance_cents} cents on "
                        f"{rec.machine} {rec.container} never investigated", (seq,))  # fmt: skip


@control(
    "MT98.R41.b",
    kind=Kind.RUNTIME,
    title="Authorised payments; control over liabilities and assets",
    reads=("cage_transaction", "gaming_payment_accepted", "drop_counted", "table_count"),
    observes=("drop_counted", "table_count"),
    test=T,
    checks={
        "(i) every payment out of the cage is authorised by a chief cashier other than the "
        "cashier paying, and correct (cash out = chips or payment received)": T + "[R41.b]",
        "(iii) the slot drop, an asset, is counted by the licensee's staff": TC
        + "test_drop_count_reconciliation",
        "(iii) the table drop is counted by a team with the licensee's staff in it and "
        "nobody but the licensee's staff and Board inspectors": "tests/test_pit.py::"
        "test_pit_count_holes_are_found",
    },
    unchecked=(
        "(ii) control over incurring liabilities: the casino does incur them (progressive "
        "prize pools, the unclaimed-money register, junket members' front money), but the "
        "twin records no decision to incur one, so there is nothing to judge that control "
        "by; the liabilities are checked only where a clause names them: the unclaimed "
        "register (MT98.R23.4, R23.4.m), a progressive link's approved reset and rates "
        "(MT98.S1.2a, S1.2b), front money's minimum (MT98.R25.8), not its repayment",
    ),
    needs="a payment out of the cage, a drop count or a table count",
)  # fmt: skip
class AuthorisedPayments(Checker):
    def setup(self) -> None:
        self.payments: dict[str, int] = {}

    def on_record(self, rec: Record) -> None:
        ctx = self.ctx
        if isinstance(rec, GamingPaymentAccepted):
            self.payments[rec.payment] = rec.amount_cents
        elif isinstance(rec, CageTransaction) and rec.cash_out_cents > 0:
            self.observed()
            if ctx.roles.get(rec.authoriser) != "chief_cashier" or rec.authoriser == rec.cashier:
                self.report((rec.txn, rec.cashier),
                            f"payment out of {rec.cash_out_cents} cents ({rec.txn_kind}) not "
                            "properly authorised", (rec.seq,))  # fmt: skip
                return
            due = rec.chips_in_cents if rec.method in ("chips",) else rec.amount_cents
            if rec.payment:
                due = self.payments.get(rec.payment, -1)
            if rec.cash_out_cents != due:
                self.report((rec.txn, rec.cashier), f"payment out of {rec.cash_out_cents} cents "
                            f"for {due} received", (rec.seq,))  # fmt: skip
        elif isinstance(rec, DropCounted) and (
            not rec.team or not all(ctx.is_employee(p) for p in rec.team)
        ):
            self.report((rec.machine, *rec.team), f"drop of {rec.machine} counted by "
                        "someone not the licensee's", (rec.seq,))  # fmt: skip
        elif isinstance(rec, TableCount):
            staff = [p for p in rec.members if ctx.is_employee(p)]
            others = [p for p in rec.members if not ctx.is_employee(p)
                      and not ctx.is_inspector(p)]  # fmt: skip
            if not staff or others:
                who = ", ".join(rec.members) or "nobody"
                self.report((rec.table, *rec.members),
                            f"drop box of table {rec.table} counted by {who}: not a team of "
                            "the licensee's staff", (rec.seq,))  # fmt: skip


# --- reg 42: audited statements -------------------------------------------------------------


@control(
    "MT98.R42",
    kind=Kind.PERIODIC,
    title="Audited financial statements within 90 days of year end",
    reads=("financial_year_ended", "financial_statements_lodged"),
    params=(FINANCIAL_STATEMENTS_DEADLINE.key,),
    observes=("financial_statements_lodged",),
    needs="statements lodged, or the 90 days after a year end passing",
    test=T,
    checks={
        "lodged not later than 90 days after the year end": T + "[R42]",
        "the 90 days by the calendar": TC + "test_statements_deadline_calendar",
        "made under IAS, audited under ISA, complying with the Companies Act 1995": TC
        + "test_statements_deadline_calendar",
    },
    unchecked=("'as soon as practicable' within the 90 days is not judged",),
)
class AuditedStatements(Checker):
    def setup(self) -> None:
        self.open: dict[str, tuple[date, int]] = {}

    def deadline(self, end: date) -> date:
        return end + relativedelta(days=int(self.ctx.rule(FINANCIAL_STATEMENTS_DEADLINE)))

    def on_record(self, rec: Record) -> None:
        clock = self.ctx.clock
        if isinstance(rec, FinancialYearEnded):
            end = date.fromisoformat(rec.end_date)
            self.open[rec.year] = (end, rec.seq)
            due = datetime.combine(self.deadline(end) + relativedelta(days=1), time(0, 0),
                                   tzinfo=clock.zone)  # fmt: skip
            year = rec.year
            self.ctx.after(max(0.0, clock.seconds(due) - self.ctx.now), lambda: self._due(year))
        elif isinstance(rec, FinancialStatementsLodged):
            got = self.open.pop(rec.year, None)
            if got is None:
                return
            end, seq = got
            wrong = []
            if date.fromisoformat(rec.lodged_date) > self.deadline(end):
                wrong.append(f"lodged {rec.lodged_date}, after {self.deadline(end).isoformat()}")
            if not (rec.audited and rec.accounting_standards == "IAS"
                    and rec.auditing_standards == "ISA" and rec.companies_act):  # fmt: skip
                wrong.append("not audited statements under IAS/ISA and the Companies Act")
            if wrong:
                self.report((), f"financial statements of {rec.year}: " + "; ".join(wrong),
                            (seq, rec.seq))  # fmt: skip

    def _due(self, year: str) -> None:
        got = self.open.pop(year, None)
        if got is not None:
            self.observed()  # the 90 days passed with no statements
            end, seq = got
            self.report((), f"financial statements of {year} not lodged by "
                        f"{self.deadline(end).isoformat()}", (seq,))  # fmt: skip
