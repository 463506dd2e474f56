"""The cage and cash desks, the books of the casino and the count of the slot drop.

Regs 23(4) and 37-43 of the Malta Gaming Act Regulations 1998. The ``Cage`` department is
built by the assembly from the scenario's ``[cage]`` section (docs/scenario-cage.md):

* cashiers (role ``cashier``) and a chief cashier (role ``chief_cashier``), the licensee's
  employees, serve patrons at the cash desks: buy-ins by cash, gaming cheque, credit or
  debit card, for chips or cash; chips redeemed; a cheque taken back by its drawer for cash
  or replaced by a substitute cheque. Each cheque or card payment is recorded with the
  particulars of reg 38(2) (``gaming_payment_accepted``, then ``cheque_redeemed``,
  ``payments_banked``, ``payment_refusal_recorded``): those the cashier copies from the
  cheque or card as the cage's checklist says (``[cage.policy] payment_particulars``,
  by default every one the regulation requires);
* cheques are banked and card batches submitted daily at ``banking_time``, each batch with
  an endorsed document of the collecting bank or card issuer (reg 40); a cheque refused at
  first presentation (``dishonour_rate``) goes in the register of dishonoured cheques with
  the reason and any later payment (reg 39);
* unclaimed money and chips found on the floor are handed at once to staff, registered by
  the Chief Cashier before a Board inspector, and the register's balance is written to
  gaming profits at each calendar month end (reg 23(4));
* the cage is reconciled daily (41(a)); every payment out names its authoriser (41(b));
  the financial year ends and the audited statements are lodged (42);
* an archive of monthly volumes from before t = 0 (``archive_years``) is kept under a
  retention schedule that destroys only what is past its period (37(3), 43(1), 43(3)),
  and Board inspectors' requests for records are answered by producing them (37(4), 43(2));
* the slot drop collected by the floor is counted by a count team, reconciled against each
  machine's drop meter read at the collection, and every variance investigated.

The financial year and the archive of records kept (the books) are the base class's,
:class:`twin.cage.books.CageBooks`.

Public API for other departments (the table pit, junkets): process generators

* ``buy_chips(patron, amount_cents, method, chips="chips")`` -> the transaction id
  (``method``: "cash", "cheque", "credit_card", "debit_card"; ``chips``: "chips" or "cash",
  what the patron takes away), and
* ``redeem_chips(patron, amount_cents)`` -> the transaction id (chips for cash),

each ``""`` when no cashier is on duty. Call them with ``yield from``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Protocol

import numpy as np
import simpy
from dateutil.relativedelta import relativedelta

from twin.cage.books import RETENTION, CageBooks, Proc, Volume, _Armed, month_label
from twin.cage.params import RULES, WRITEOFF_CYCLE
from twin.cage.records import (
    BankingEvidence,
    CageReconciled,
    CageTransaction,
    ChequePayoutRequested,
    ChequeRedeemed,
    ChequeRepresented,
    ChequeReturned,
    DishonouredChequeEntered,
    DishonouredChequePaid,
    DropCounted,
    DropVarianceInvestigated,
    GamingPaymentAccepted,
    PaymentRefusalRecorded,
    PaymentsBanked,
    UnclaimedFound,
    UnclaimedRegistered,
    UnclaimedWrittenOff,
)
from twin.cage.section import CageConfig
from twin.errors import InputError
from twin.machines.events import MoneyRemoved
from twin.machines.machine import SlotMachine
from twin.machines.sas import MeterCode
from twin.records import Record
from twin.staff import Dispatcher
from twin.staff.section import StaffConfig
from twin.world import World, quantize

#: Institutions of the model (names only; no regulation number).
BANKS = (
    ("Bank of Valletta plc", "58 Triq San Zakkarija, Valletta"),
    ("HSBC Bank Malta plc", "116 Archbishop Street, Valletta"),
    ("APS Bank plc", "APS Centre, Birkirkara"),
    ("Lombard Bank Malta plc", "67 Republic Street, Valletta"),
)
COLLECTING_BANK = "Bank of Valletta plc"
CARD_ISSUER = {"credit_card": "CardNet Malta Ltd", "debit_card": "CardNet Malta Ltd"}
REFUSAL_REASONS = ("refer to drawer", "insufficient funds", "signature differs", "stopped")
DROP_METERS = {"drop_bucket": MeterCode.COINS_TO_DROP_CREDITS, "cash_box": MeterCode.BILL_CREDITS}


class Visitor(Protocol):
    """What the cage sees of a patron on a visit (``twin.patrons.venue.Visitor``)."""

    @property
    def id(self) -> str: ...

    @property
    def visit_number(self) -> int: ...


#: The ruleset parameters the cage works to (the assembly hands their values over).
PARAMS = tuple(r.key for r in RULES)


@dataclass
class Payment:
    id: str
    method: str
    patron: str
    amount: int
    accepted: date
    particulars: GamingPaymentAccepted
    redeemed: bool = False
    banked: bool = False


@dataclass
class _Payout:
    """A cheque payout waiting for the operator: the patron's wait, the window's cashier, the
    cheque's amount and the stream its particulars are drawn from."""

    done: simpy.events.Event
    cashier: str
    amount: int
    rng: np.random.Generator


@dataclass
class _Visit:
    chips: int = 0
    payment: str = ""
    rng: np.random.Generator | None = None


class Cage(CageBooks):
    """The cage department (see the module docstring)."""

    name = "cage"

    def __init__(
        self,
        world: World,
        config: CageConfig,
        crews: StaffConfig,
        staff: Dispatcher,
        machines: Mapping[str, SlotMachine],
        params: Mapping[str, int],
        source: str,
    ) -> None:
        for role in ("cashier", "chief_cashier"):
            if crews.head_count(role) == 0:
                raise InputError(
                    source,
                    "staff.shifts",
                    f"a role {role!r} with a head count > 0 in some shift's crew "
                    "(the [cage] section needs cashiers and a chief cashier)",
                    "none",
                )
        for key in PARAMS:
            if key not in params:
                raise InputError(source, "ruleset.name", f"a ruleset with {key}", "none")
        self.world = world
        self.cfg = config
        self.staff = staff
        self.machines = machines
        self.params = dict(params)
        self.zones = tuple(dict.fromkeys(m.spec.zone for m in machines.values())) or ("floor",)
        self.rng = world.streams.stream("cage", "operations")
        self.armed = _Armed()
        self.payments: dict[str, Payment] = {}
        self.visits: dict[tuple[str, int], _Visit] = {}
        self.drawer = config.float_cents  # the cash physically in the cage
        self.book_opening = config.float_cents  # the last reconciliation's counted cash
        self.day_in = 0
        self.day_out = 0
        self.register: dict[str, int] = {}  # unclaimed item -> value, outstanding
        self.volumes: dict[str, Volume] = {}  # the volumes the casino holds (or held in the run)
        #: every monthly period of books since they began (``archive_years``) that the law
        #: says must still exist, held or not: what a Board inspector may ask for
        self.periods: dict[str, Volume] = {}
        #: how long the casino keeps each category ([cage.policy], default the law's)
        self.keep = {
            category: (
                self.params[law]
                if getattr(config.policy, f"{category}_years") is None
                else getattr(config.policy, f"{category}_years")
            )
            for category, law in RETENTION.items()
        }
        #: the particulars of reg 38(2) the cashier records ([cage.policy], default all)
        self.checklist = frozenset(config.policy.payment_particulars)
        self._n: dict[str, int] = {}
        self._meters: dict[tuple[str, str], int] = {}
        self._collected: list[tuple[MoneyRemoved, str, int, int]] = []
        self._pending_items: list[UnclaimedFound] = []
        self._pending_requests: dict[str, Volume] = {}
        #: cheque payouts waiting for the operator's ``pay_cheque`` ([cage] operator):
        #: patron -> the payout asked for
        self.payouts: dict[str, _Payout] = {}
        self.years: list[tuple[str, date]] = []
        world.bus.attach(self)  # the count room receives the containers the drop team empties

    # -- the department ---------------------------------------------------------------------
    def start(self) -> None:
        env = self.env
        for m in self.machines.values():
            for container, code in DROP_METERS.items():
                self._meters[(m.id, container)] = m.accounts.reading(code)
        self._open_archive()
        self._open_years()
        env.process(self.bank_daily())
        env.process(self.reconcile_daily())
        env.process(self.count_drop_daily())
        env.process(self.find_unclaimed())
        env.process(self.write_off_monthly())
        env.process(self.keep_retention())
        env.process(self.answer_requests())

    def finish(self) -> None:
        """The end of the run: the drop collected since the last count is counted, items
        handed in are registered, records asked for are produced."""
        for item in list(self._pending_items):
            self._register(item)
        for request, vol in list(self._pending_requests.items()):
            self._produce(request, vol)
        self.count_drop()

    # -- patrons at the cage (the Hall hooks) -------------------------------------------------
    def before_play(self, visitor: Visitor) -> Proc:
        """A share of visitors buy in at the cage before play (a fresh stream per visit)."""
        rng = self.world.streams.fresh(visitor.id, f"cage:{visitor.visit_number}")
        if rng.random() >= self.cfg.visit_share or not self.staff.on_duty("cashier"):
            return None
        names = list(self.cfg.methods)
        method = names[int(rng.choice(len(names), p=list(self.cfg.methods.values())))]
        amount = max(100, round(float(self.cfg.buy_in_cents.sample(rng)) / 100.0) * 100)
        chips = "chips" if rng.random() < self.cfg.chips_share else "cash"
        visit = _Visit(rng=rng)
        self.visits[(visitor.id, visitor.visit_number)] = visit
        txn = yield from self.buy_chips(visitor.id, amount, method, chips, rng=rng)
        if txn:
            visit.chips = amount if chips == "chips" else 0
            visit.payment = self._last_payment if method != "cash" else ""

    def after_play(self, visitor: Visitor) -> Proc:
        """Back at the cage: chips redeemed, a cheque taken back or replaced."""
        visit = self.visits.pop((visitor.id, visitor.visit_number), None)
        if visit is None or visit.rng is None or not self.staff.on_duty("cashier"):
            return None
        rng = visit.rng
        pay = self.payments.get(visit.payment)
        if pay is not None and pay.method == "cheque" and not pay.banked and not pay.redeemed:
            u = rng.random()
            if u < self.cfg.cheque_redeemed_share:
                yield from self.redeem_cheque(visitor.id, pay.id, rng)
            elif u < self.cfg.cheque_redeemed_share + self.cfg.substitute_share:
                extra = max(100, round(float(self.cfg.buy_in_cents.sample(rng)) / 100) * 100)
                yield from self.substitute_cheque(visitor.id, pay.id, extra, rng)
        if visit.chips > 0 and rng.random() < self.cfg.redeem_share:
            amount = max(1, int(visit.chips * float(rng.uniform(0.2, 1.0))))
            yield from self.redeem_chips(visitor.id, amount, rng=rng)

    # -- the public API ------------------------------------------------------------------------
    _last_payment = ""

    def buy_chips(
        self,
        patron: str,
        amount_cents: int,
        method: str,
        chips: str = "chips",
        rng: np.random.Generator | None = None,
    ) -> Proc:
        """A buy-in of ``amount_cents`` by ``method`` for chips or cash; returns the txn id."""
        r = rng if rng is not None else self.rng
        cashier = self._cashier()
        if not cashier:
            return ""
        if method == "cheque" and chips == "cash" and "cheque_payout" in self.cfg.operator:
            done = self.env.event()  # the operator pays it (pay_cheque)
            self.payouts[patron] = _Payout(done, cashier, amount_cents, r)
            self.emit(ChequePayoutRequested, patron=patron, cashier=cashier,
                      amount_cents=amount_cents)  # fmt: skip
            paid: tuple[str, str] = yield done
            self._last_payment = paid[1]
            return paid[0]
        yield self._minutes(self.cfg.transaction_minutes, r)
        payment = ""
        if method != "cash":
            payment = self._accept_payment(patron, method, amount_cents, cashier, r)
        self._last_payment = payment
        cash_in = amount_cents if method == "cash" else 0
        cash_out = amount_cents if chips == "cash" and method != "cash" else 0
        chips_out = amount_cents if chips == "chips" else 0
        if method == "cash" and chips == "cash":
            cash_out = amount_cents  # change of notes: in and out
        return self._transaction(
            "buy_in", method, patron, cashier, amount_cents, cash_in, cash_out, 0, chips_out,
            payment,
        )  # fmt: skip

    def payout_refusal(self, patron: str, cashier: str, authoriser: str) -> str | None:
        """Why the operator may not pay ``patron``'s waiting cheque payout at ``cashier``'s
        window, authorised by ``authoriser`` ("" none), or None."""
        waiting = self.payouts.get(patron)
        if waiting is None:
            known = ", ".join(sorted(self.payouts)) or "nobody"
            return f"no cheque payout to {patron!r} waits (waiting: {known})"
        if cashier != waiting.cashier:
            return f"{patron} is at {waiting.cashier}'s window, not {cashier!r}'s"
        if cashier not in self.staff.on_duty("cashier"):
            return f"{cashier} is not a cashier on duty"
        if authoriser and authoriser not in self.staff.members:
            return f"{authoriser!r} is no member of the staff"
        if authoriser and not self.staff.members[authoriser].on_duty:
            return f"{authoriser} is not on duty"
        return None

    def pay_payout(self, patron: str, cashier: str, authoriser: str) -> None:
        """The operator pays the waiting payout (checked by :meth:`payout_refusal`): the
        cheque recorded with its particulars (reg 38(2)) and the cash paid out, authorised by
        ``authoriser`` (reg 41(b)); the patron goes on."""
        p = self.payouts.pop(patron)
        payment = self._accept_payment(patron, "cheque", p.amount, cashier, p.rng)
        txn = self._transaction(
            "buy_in", "cheque", patron, cashier, p.amount, 0, p.amount, 0, 0, payment,
            authoriser=authoriser,
        )  # fmt: skip
        p.done.succeed((txn, payment))

    def redeem_chips(
        self, patron: str, amount_cents: int, rng: np.random.Generator | None = None
    ) -> Proc:
        """Chips worth ``amount_cents`` redeemed for cash; returns the txn id."""
        r = rng if rng is not None else self.rng
        cashier = self._cashier()
        if not cashier:
            return ""
        yield self._minutes(self.cfg.transaction_minutes, r)
        return self._transaction(
            "redemption", "chips", patron, cashier, amount_cents, 0, amount_cents, amount_cents,
            0, "",
        )  # fmt: skip

    def redeem_cheque(self, patron: str, payment: str, rng: np.random.Generator) -> Proc:
        """The drawer pays cash and takes back an unbanked gaming cheque (38(2)(f))."""
        cashier = self._cashier()
        pay = self.payments[payment]
        if not cashier or pay.banked or pay.redeemed:
            return ""
        yield self._minutes(self.cfg.transaction_minutes, rng)
        if pay.banked:
            return ""
        pay.redeemed = True
        txn = self._transaction(
            "cheque_redeemed", "cash", patron, cashier, pay.amount, pay.amount, 0, 0, 0, payment
        )
        self.emit(ChequeRedeemed, payment=payment, by="drawer", substitute="", cashier=cashier)
        return txn

    def substitute_cheque(
        self, patron: str, payment: str, extra_cents: int, rng: np.random.Generator
    ) -> Proc:
        """A substitute cheque for the redeemed ``payment`` plus ``extra_cents`` in chips."""
        cashier = self._cashier()
        pay = self.payments[payment]
        if not cashier or pay.banked or pay.redeemed:
            return ""
        yield self._minutes(self.cfg.transaction_minutes, rng)
        if pay.banked:
            return ""
        pay.redeemed = True
        new = self._accept_payment(
            patron, "cheque", pay.amount + extra_cents, cashier, rng, substitute_for=(payment,)
        )
        self.emit(ChequeRedeemed, payment=payment, by="substitute", substitute=new,
                  cashier=cashier)  # fmt: skip
        return self._transaction(
            "buy_in", "cheque", patron, cashier, extra_cents, 0, 0, 0, extra_cents, new
        )

    def _transaction(
        self, kind: str, method: str, patron: str, cashier: str, amount: int, cash_in: int,
        cash_out: int, chips_in: int, chips_out: int, payment: str,
        authoriser: str | None = None,
    ) -> str:  # fmt: skip
        txn = self._id("TXN")
        if authoriser is None:  # (given: the operator named who authorised it)
            authoriser = ""
            if cash_out > 0:
                authoriser = self._on("chief_cashier", skip=(cashier,))
                if self.armed.unauthorised_payout:
                    self.armed.unauthorised_payout = False
                    authoriser = ""
        self.drawer += cash_in - cash_out
        self.day_in += cash_in
        self.day_out += cash_out
        self.emit(
            CageTransaction, txn=txn, txn_kind=kind, method=method, patron=patron, cashier=cashier,
            authoriser=authoriser, amount_cents=amount, cash_in_cents=cash_in,
            cash_out_cents=cash_out, chips_in_cents=chips_in, chips_out_cents=chips_out,
            payment=payment,
        )  # fmt: skip
        return txn

    def _account(self, patron: str) -> tuple[str, str, str, str]:
        """The patron's bank, its address, account number and card number (stable)."""
        r = self.world.streams.fresh(patron, "cage:account")
        bank, address = BANKS[int(r.integers(len(BANKS)))]
        account = "".join(str(int(d)) for d in r.integers(0, 10, 11))
        card = "4" + "".join(str(int(d)) for d in r.integers(0, 10, 15))
        return bank, address, account, card

    def _accept_payment(
        self,
        patron: str,
        method: str,
        amount: int,
        cashier: str,
        rng: np.random.Generator,
        substitute_for: tuple[str, ...] = (),
    ) -> str:
        bank, address, account, card = self._account(patron)
        cheque = method == "cheque"
        payment = self._id("CHQ" if cheque else "CRD")
        number = payment.split("-")[1] if cheque else card
        if self.armed.missing_particulars and cheque:
            self.armed.missing_particulars = False
            account = ""
        guarantee = ""
        if cheque:  # drawn whatever the checklist, so that it changes no other draw
            produced = rng.random() < self.cfg.guarantee_card_share
            guarantee = "produced" if produced else "not produced"
        # what the cheque or card shows; the cashier copies what the checklist says (reg 38(2))
        shown = {
            "account_holder": patron if cheque else "", "bank": bank,
            "bank_address": address if cheque else "", "account_number": account,
            "number": number, "guarantee_card": guarantee,
        }  # fmt: skip
        copied = {k: (v if k in self.checklist else "") for k, v in shown.items()}
        rec = self.emit(
            GamingPaymentAccepted, payment=payment, method=method, patron=patron, holder=patron,
            accepted_at=self.world.clock.iso(self.env.now), amount_cents=amount,
            substitute_for=substitute_for, given_with="tokens" if substitute_for else "",
            cashier=cashier, **copied,
        )  # fmt: skip
        self.payments[payment] = Payment(payment, method, patron, amount, self._today(), rec)
        return payment

    # -- banking (38(2)(g), 39, 40) -------------------------------------------------------------
    def bank_daily(self) -> Proc:
        env, clock = self.env, self.world.clock
        while True:
            yield env.timeout(clock.next_local(env.now, self.cfg.banking_time) - env.now)
            self.bank()

    def bank(self) -> None:
        today = self._today()
        groups: dict[tuple[str, str], list[Payment]] = {}
        for p in self.payments.values():
            if p.banked or p.redeemed:
                continue
            fam = "cheque" if p.method == "cheque" else "card"
            inst = COLLECTING_BANK if fam == "cheque" else CARD_ISSUER[p.method]
            groups.setdefault((fam, inst), []).append(p)
        for (fam, inst), pays in sorted(groups.items()):
            batch = self._id("BATCH")
            ids = tuple(p.id for p in pays)
            amounts = tuple(p.amount for p in pays)
            for p in pays:
                p.banked = True
            self.emit(PaymentsBanked, batch=batch, method=fam, institution=inst,
                      date=today.isoformat(), payments=ids, amounts_cents=amounts)  # fmt: skip
            endorsed = today + timedelta(days=self.armed.misdated_evidence_days)
            self.armed.misdated_evidence_days = 0
            self.emit(
                BankingEvidence, batch=batch,
                document=("paying-in slip" if fam == "cheque" else "batch receipt") + f" {batch}",
                endorser=inst, endorsed_date=endorsed.isoformat(), payments=ids,
                amounts_cents=amounts,
            )  # fmt: skip
            if fam == "cheque":
                rng = self.world.streams.fresh(batch, "cage:dishonour")
                for p in pays:
                    if rng.random() < self.cfg.dishonour_rate:
                        reason = REFUSAL_REASONS[int(rng.integers(len(REFUSAL_REASONS)))]
                        paid = bool(rng.random() < self.cfg.represented_paid_share)
                        self.env.process(self.dishonour(p, reason, paid))

    def dishonour(self, pay: Payment, reason: str, paid_later: bool) -> Proc:
        """The drawee bank returns the cheque unpaid two days after banking; it is entered in
        the register of dishonoured cheques and presented again ``represent_days`` later."""
        env = self.env
        yield env.timeout(2 * 86400.0)
        bank = pay.particulars.bank
        self.emit(ChequeReturned, payment=pay.id, bank=bank, reason=reason,
                  date=self._today().isoformat())  # fmt: skip
        cashier = self._on("chief_cashier") or self._cashier()
        self.emit(PaymentRefusalRecorded, payment=pay.id, cashier=cashier)
        if self.armed.unregistered_dishonour:
            self.armed.unregistered_dishonour = False
        else:
            p = pay.particulars
            self.emit(
                DishonouredChequeEntered, payment=pay.id, accepted_date=pay.accepted.isoformat(),
                account_holder=p.account_holder, bank=p.bank, bank_address=p.bank_address,
                account_number=p.account_number, number=p.number, amount_cents=p.amount_cents,
                reason=reason, cashier=cashier,
            )  # fmt: skip
        yield env.timeout(self.cfg.represent_days * 86400.0)
        today = self._today().isoformat()
        self.emit(ChequeRepresented, payment=pay.id, paid=paid_later, date=today)
        if paid_later:
            self.emit(DishonouredChequePaid, payment=pay.id, date=today,
                      cashier=self._on("chief_cashier") or self._cashier())  # fmt: skip

    # -- the daily reconciliation (41(a)) -------------------------------------------------------
    def reconcile_daily(self) -> Proc:
        env, clock = self.env, self.world.clock
        while True:
            yield env.timeout(clock.next_local(env.now, self.cfg.reconcile_time) - env.now)
            self.reconcile()

    def reconcile(self) -> None:
        if self.armed.shortage_cents:
            self.drawer -= self.armed.shortage_cents  # taken from the drawer, off the books
            self.armed.shortage_cents = 0
        expected = self.book_opening + self.day_in - self.day_out
        counted = self.drawer
        self.emit(
            CageReconciled,
            gaming_day=self.world.clock.gaming_day(self.env.now - 1.0).isoformat(),
            opening_cents=self.book_opening, cash_in_cents=self.day_in,
            cash_out_cents=self.day_out, expected_cents=expected, counted_cents=counted,
            variance_cents=counted - expected, explanation="",
            chief_cashier=self._on("chief_cashier"),
        )  # fmt: skip
        self.book_opening = counted
        self.day_in = self.day_out = 0

    # -- unclaimed money and chips (23(4)) ------------------------------------------------------
    def find_unclaimed(self) -> Proc:
        env = self.env
        rate = self.cfg.unclaimed_per_day
        if rate <= 0:
            return
        rng = self.world.streams.stream("cage", "unclaimed")
        while True:
            yield env.timeout(quantize(float(rng.exponential(86400.0 / rate))))
            finder = self._on("attendant") or self._cashier()
            staff = self._cashier() or self._on("chief_cashier")
            if not staff:
                continue
            value = max(1, round(float(self.cfg.unclaimed_cents.sample(rng))))
            form = "chips" if rng.random() < self.cfg.unclaimed_chips_share else "cash"
            zone = self.zones[int(rng.integers(len(self.zones)))]
            if self.armed.pocket_next_item:
                self.armed.pocket_next_item = False
                staff = ""
            item = self.emit(UnclaimedFound, item=self._id("FOUND"), form=form,
                             value_cents=value, location=zone, finder=finder or "patron",
                             staff=staff)  # fmt: skip
            if staff:
                self._pending_items.append(item)
                env.process(self.deposit(item, rng))

    def deposit(self, item: UnclaimedFound, rng: np.random.Generator) -> Proc:
        """Deposited with the Chief Cashier and registered before a Board inspector."""
        env = self.env
        yield self._minutes(self.cfg.register_minutes, rng)
        while not (self._on("chief_cashier") and self._on("inspector")):
            yield env.timeout(900.0)
        if item in self._pending_items:
            self._register(item)

    def _register(self, item: UnclaimedFound) -> None:
        self._pending_items.remove(item)
        self.register[item.item] = item.value_cents
        self.emit(UnclaimedRegistered, item=item.item, value_cents=item.value_cents,
                  chief_cashier=self._on("chief_cashier"), inspector=self._on("inspector"),
                  balance_cents=sum(self.register.values()))  # fmt: skip

    def write_off_monthly(self) -> Proc:
        """At each calendar month end the register's outstanding amount becomes that
        month's gaming profit."""
        env, clock = self.env, self.world.clock
        months = self.params[WRITEOFF_CYCLE.key]
        while True:
            now = clock.at(env.now)
            first = datetime(now.year, now.month, 1, tzinfo=clock.zone)
            end = first + relativedelta(months=months)
            yield env.timeout(clock.seconds(end) - env.now)
            label = month_label((end - relativedelta(days=1)).date())
            if self.armed.skip_next_writeoff:
                self.armed.skip_next_writeoff = False
                continue
            items = tuple(sorted(self.register))
            amount = sum(self.register.values())
            self.register.clear()
            self.emit(UnclaimedWrittenOff, month=label, amount_cents=amount, items=items,
                      chief_cashier=self._on("chief_cashier"))  # fmt: skip

    # -- the count of the slot drop -----------------------------------------------------------
    def accept(self, rec: Record) -> None:
        """The count room receives each container the drop team empties, with the machine's
        drop meter read at the collection."""
        if not isinstance(rec, MoneyRemoved) or rec.container not in DROP_METERS:
            return
        m = self.machines.get(rec.machine)
        if m is None:
            return
        reading = m.accounts.reading(DROP_METERS[rec.container])
        before = self._meters.get((rec.machine, rec.container), 0)
        self._meters[(rec.machine, rec.container)] = reading
        self._collected.append((rec, rec.container, before, reading))

    def close(self) -> None:
        pass

    def count_drop_daily(self) -> Proc:
        env, clock = self.env, self.world.clock
        while True:
            yield env.timeout(clock.next_local(env.now, self.cfg.count_time) - env.now)
            self.count_drop()

    def count_drop(self) -> None:
        """Count every container received since the last count; reconcile with its meter."""
        chief = self._on("chief_cashier")
        team = tuple(p for p in (chief, self._on("cashier")) if p)
        witness = self._on("inspector")
        batch, self._collected = self._collected, []
        for rec, container, before, after in batch:
            m = self.machines[rec.machine]
            denom = m.spec.denomination_cents
            rollover = m.accounts.rollover
            metered = ((after - before) % rollover) * denom
            counted = rec.cents
            if self.armed.drop_skim_cents and counted > 0:
                taken = min(counted, self.armed.drop_skim_cents)
                self.armed.drop_skim_cents = 0
                counted -= taken
            count = self.emit(
                DropCounted, machine=rec.machine, container=container, collection=rec.seq,
                collected_cents=rec.cents, counted_cents=counted,
                meter=DROP_METERS[container].name.lower(), meter_before=before,
                meter_after=after, rollover=rollover, denomination_cents=denom,
                metered_cents=metered, variance_cents=counted - metered, team=team,
                witness=witness,
            )  # fmt: skip
            if counted != metered and counted == rec.cents:
                self.emit(
                    DropVarianceInvestigated, machine=rec.machine, container=container,
                    count=count.seq, variance_cents=counted - metered,
                    outcome="meter and contents differ: meter referred to the slot technicians",
                    investigator=chief,
                )  # fmt: skip


__all__ = ["Cage"]
