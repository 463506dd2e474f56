"""Records of the cage, the cash desks, the books and the count of the slot drop.

Money is integer cents of the floor's currency; calendar dates are ISO strings
(``YYYY-MM-DD``) taken from the one clock. People are named by role (``patron``,
``cashier``, ``authoriser``, ``chief_cashier``, ``inspector``, ``finder``, ``staff``, ``team``).
"""

from __future__ import annotations

from twin.records import Record, record

# --- cash desk transactions -------------------------------------------------------------------


@record("cage_transaction", roles=("patron", "cashier", "authoriser"))
class CageTransaction(Record):
    """A transaction at a cash desk.

    ``txn_kind``: "buy_in" (cash, a cheque or a card for chips or cash), "redemption" (chips
    for cash), "cheque_redeemed" (the drawer pays cash to take back a gaming cheque).
    ``method``: "cash", "cheque", "credit_card", "debit_card", "chips". The cage's drawer
    moves by ``cash_in_cents``/``cash_out_cents``; chips by ``chips_in_cents``/
    ``chips_out_cents``. ``payment``: the gaming cheque or card payment (reg 38) if any.
    A payment out of the licensee's funds (cash out) names its ``authoriser`` (reg 41(b)).
    """

    txn: str
    txn_kind: str
    method: str
    patron: str
    cashier: str
    authoriser: str
    amount_cents: int
    cash_in_cents: int
    cash_out_cents: int
    chips_in_cents: int
    chips_out_cents: int
    payment: str


@record("gaming_payment_accepted", roles=("patron", "cashier"))
class GamingPaymentAccepted(Record):
    """The reg 38 record of a gaming cheque, substitute cheque or card payment, under the
    name of its drawer or card holder (``holder``).

    (a) ``accepted_at``; (b) ``account_holder``, ``bank``, ``bank_address`` (cheques),
    ``account_number``, ``number`` (cheque or card number); (c) ``amount_cents``; (d)
    ``guarantee_card`` ("produced" / "not produced"; "" for a card); (e)
    ``substitute_for`` (the redeemed cheques it replaces) and ``given_with`` ("cash",
    "tokens", "both"; "" for no substitute). (f)-(h) follow in later records.
    """

    payment: str
    method: str  # "cheque", "credit_card", "debit_card"
    patron: str
    holder: str
    accepted_at: str
    account_holder: str
    bank: str
    bank_address: str
    account_number: str
    number: str
    amount_cents: int
    guarantee_card: str
    substitute_for: tuple[str, ...]
    given_with: str
    cashier: str


@record("cheque_redeemed", roles=("payment", "cashier"))
class ChequeRedeemed(Record):
    """Reg 38(2)(f): a gaming cheque became a redeemed cheque, taken back by its drawer for
    cash (``by`` = "drawer") or replaced by a substitute cheque (``by`` = "substitute",
    ``substitute`` its id)."""

    payment: str
    by: str
    substitute: str
    cashier: str


@record("cheque_payout_requested", roles=("patron", "cashier"))
class ChequePayoutRequested(Record):
    """A patron at ``cashier``'s window hands over a gaming cheque for ``amount_cents`` and
    asks for cash: the payout waits for the operator (``[cage] operator =
    ["cheque_payout"]``; never written otherwise)."""

    patron: str
    cashier: str
    amount_cents: int


@record("payments_banked", roles=("batch",))
class PaymentsBanked(Record):
    """Reg 38(2)(g): cheques delivered to a credit institution for collection (``method``
    "cheque"), or card payments' details delivered to the card issuer (``method`` "card"),
    on ``date``; one date for the batch (38(3)-(4))."""

    batch: str
    method: str
    institution: str
    date: str
    payments: tuple[str, ...]
    amounts_cents: tuple[int, ...]


@record("banking_evidence", roles=("batch",))
class BankingEvidence(Record):
    """Reg 40: the document backing a banking date: each payment's amount, endorsed (a
    stamp) by the collecting bank or the card issuer with its name and the date of
    delivery or receipt."""

    batch: str
    document: str
    endorser: str
    endorsed_date: str
    payments: tuple[str, ...]
    amounts_cents: tuple[int, ...]


@record("cheque_returned", roles=("payment",))
class ChequeReturned(Record):
    """The drawee bank refused payment of a cheque at first presentation (what happened)."""

    payment: str
    bank: str
    reason: str
    date: str


@record("cheque_represented", roles=("payment",))
class ChequeRepresented(Record):
    """A dishonoured cheque presented again: ``paid`` or not, on ``date`` (what happened)."""

    payment: str
    paid: bool
    date: str


@record("payment_refusal_recorded", roles=("payment", "cashier"))
class PaymentRefusalRecorded(Record):
    """Reg 38(2)(h): the reg 38 record of ``payment`` notes that payment was at first
    refused."""

    payment: str
    cashier: str


@record("dishonoured_cheque_entered", roles=("payment", "cashier"))
class DishonouredChequeEntered(Record):
    """Reg 39: the entry of a dishonoured cheque: (a) ``accepted_date``; (b)-(c) the
    particulars of 38(2)(b) and (c); (c) ``reason`` for the refusal."""

    payment: str
    accepted_date: str
    account_holder: str
    bank: str
    bank_address: str
    account_number: str
    number: str
    amount_cents: int
    reason: str
    cashier: str


@record("dishonoured_cheque_paid", roles=("payment", "cashier"))
class DishonouredChequePaid(Record):
    """Reg 39(2)(d): payment was later made on a dishonoured cheque, and its ``date``."""

    payment: str
    date: str
    cashier: str


# --- unclaimed money and chips (reg 23(4)) ----------------------------------------------------


@record("unclaimed_found", roles=("item", "finder", "staff"))
class UnclaimedFound(Record):
    """Money or chips found lying unclaimed, presented at once to ``staff`` (the licensee's
    employee); ``staff`` is "" when it was not handed in."""

    item: str
    form: str  # "cash" or "chips"
    value_cents: int
    location: str
    finder: str
    staff: str


@record("unclaimed_registered", roles=("item", "chief_cashier", "inspector"))
class UnclaimedRegistered(Record):
    """The item deposited with the Chief Cashier and entered in the register of unclaimed
    money before a Board inspector; ``balance_cents``: the register's outstanding amount."""

    item: str
    value_cents: int
    chief_cashier: str
    inspector: str
    balance_cents: int


@record("unclaimed_written_off", roles=("chief_cashier",))
class UnclaimedWrittenOff(Record):
    """At a calendar month end, the amount outstanding in the register written as gaming
    profit of ``month`` (``YYYY-MM``); ``items`` written off."""

    month: str
    amount_cents: int
    items: tuple[str, ...]
    chief_cashier: str


# --- books: reconciliation, year end, retention, production -------------------------------


@record("cage_reconciled", roles=("chief_cashier",))
class CageReconciled(Record):
    """The daily cage reconciliation (reg 41(a)) of ``gaming_day``: ``opening_cents`` +
    ``cash_in_cents`` - ``cash_out_cents`` = ``expected_cents``, against ``counted_cents``;
    a variance carries its ``explanation`` ("" when unexplained)."""

    gaming_day: str
    opening_cents: int
    cash_in_cents: int
    cash_out_cents: int
    expected_cents: int
    counted_cents: int
    variance_cents: int
    explanation: str
    chief_cashier: str


@record("financial_year_ended", roles=())
class FinancialYearEnded(Record):
    """The licensee's financial year ``year`` ended on ``end_date`` (reg 42)."""

    year: str
    end_date: str


@record("financial_statements_lodged", roles=())
class FinancialStatementsLodged(Record):
    """Reg 42: the statements of ``year`` lodged with the Secretary of the Board on
    ``lodged_date``; how they were made and audited."""

    year: str
    lodged_date: str
    accounting_standards: str
    auditing_standards: str
    audited: bool
    companies_act: bool


@record("record_volume", roles=("volume",))
class RecordVolume(Record):
    """A volume of records the casino keeps: ``category`` "payment_records" (regs 38-40,
    37(3)), "accounts" (43(1), bound: from the last entry) or "internal_audit" (43(3), a
    report dated ``last_entry``). Listed at t = 0 for the archive, when opened otherwise."""

    volume: str
    category: str
    first_entry: str
    last_entry: str
    entries: int
    electronic: bool


@record("record_destroyed", roles=("volume", "staff"))
class RecordDestroyed(Record):
    """A volume destroyed on ``date`` under the retention schedule."""

    volume: str
    category: str
    last_entry: str
    date: str
    staff: str


@record("records_requested", roles=("request", "volume", "inspector"))
class RecordsRequested(Record):
    """A Board inspector asks for a volume (reg 43(2); 37(4): a hard copy): the records of
    ``category`` up to ``last_entry``, a period the law says must still be kept (whether or
    not the casino kept them)."""

    request: str
    volume: str
    inspector: str
    category: str
    last_entry: str


@record("records_produced", roles=("request", "volume", "staff"))
class RecordsProduced(Record):
    """The volume produced for the inspector; ``hard_copy`` when printed."""

    request: str
    volume: str
    hard_copy: bool
    staff: str


@record("records_not_produced", roles=("request", "volume"))
class RecordsNotProduced(Record):
    """The volume asked for could not be produced (``reason``)."""

    request: str
    volume: str
    reason: str


# --- the count of the slot drop ----------------------------------------------------------


@record("drop_counted", roles=("machine", "team", "witness"))
class DropCounted(Record):
    """One container of the slot drop counted in the count room and reconciled with the
    machine's drop meter (``coins_to_drop_credits`` for the drop bucket, ``bill_credits``
    for the cash box) read at the collection: ``metered_cents`` = (``meter_after`` -
    ``meter_before``) mod ``rollover`` x ``denomination_cents``; ``variance_cents`` =
    ``counted_cents`` - ``metered_cents``. ``collection``: the seq of the money_removed
    record of the collection, ``collected_cents`` what it took out."""

    machine: str
    container: str
    collection: int
    collected_cents: int
    counted_cents: int
    meter: str
    meter_before: int
    meter_after: int
    rollover: int
    denomination_cents: int
    metered_cents: int
    variance_cents: int
    team: tuple[str, ...]
    witness: str


@record("drop_variance_investigated", roles=("machine", "investigator"))
class DropVarianceInvestigated(Record):
    """A count variance investigated: ``count`` the seq of its drop_counted record."""

    machine: str
    container: str
    count: int
    variance_cents: int
    outcome: str
    investigator: str


__all__ = [
    "BankingEvidence",
    "CageReconciled",
    "CageTransaction",
    "ChequePayoutRequested",
    "ChequeRedeemed",
    "ChequeRepresented",
    "ChequeReturned",
    "DishonouredChequeEntered",
    "DishonouredChequePaid",
    "DropCounted",
    "DropVarianceInvestigated",
    "FinancialStatementsLodged",
    "FinancialYearEnded",
    "GamingPaymentAccepted",
    "PaymentRefusalRecorded",
    "PaymentsBanked",
    "RecordDestroyed",
    "RecordVolume",
    "RecordsNotProduced",
    "RecordsProduced",
    "RecordsRequested",
    "UnclaimedFound",
    "UnclaimedRegistered",
    "UnclaimedWrittenOff",
]


class CageKpis:
    """The KPI section "cage" (``twin.metrics``), built from records alone: transactions by
    kind and method with amounts, cheques and card payments banked and dishonoured,
    unclaimed items and write-offs, the count of the slot drop and its variances."""

    name = "cage"
    reads: tuple[type[Record], ...] = (
        CageTransaction,
        GamingPaymentAccepted,
        PaymentsBanked,
        ChequeReturned,
        ChequeRepresented,
        UnclaimedFound,
        UnclaimedRegistered,
        UnclaimedWrittenOff,
        CageReconciled,
        DropCounted,
        DropVarianceInvestigated,
        RecordDestroyed,
        RecordsRequested,
        RecordsProduced,
        FinancialStatementsLodged,
    )

    def __init__(self) -> None:
        self.by_kind: dict[str, dict[str, int]] = {}
        self.payments: dict[str, int] = {}
        self.substitutes = 0
        self.banked = {"cheque": [0, 0], "card": [0, 0]}
        self.dishonoured = [0, 0]
        self.paid_later = 0
        self.found = [0, 0]
        self.registered = [0, 0]
        self.written_off: dict[str, int] = {}
        self.reconciliations = 0
        self.cage_variance = 0
        self.drop = {"containers": 0, "counted_cents": 0, "metered_cents": 0}
        self.variances: list[dict[str, int | str]] = []
        self.investigated = 0
        self.destroyed = 0
        self.requests = [0, 0]
        self.lodged: list[str] = []

    def accept(self, rec: Record) -> None:
        if isinstance(rec, CageTransaction):
            key = f"{rec.txn_kind}:{rec.method}"
            row = self.by_kind.setdefault(key, {"count": 0, "amount_cents": 0})
            row["count"] += 1
            row["amount_cents"] += rec.amount_cents
        elif isinstance(rec, GamingPaymentAccepted):
            self.payments[rec.method] = self.payments.get(rec.method, 0) + 1
            self.substitutes += bool(rec.substitute_for)
        elif isinstance(rec, PaymentsBanked):
            b = self.banked[rec.method]
            b[0] += len(rec.payments)
            b[1] += sum(rec.amounts_cents)
        elif isinstance(rec, ChequeReturned):
            self.dishonoured[0] += 1
        elif isinstance(rec, ChequeRepresented):
            self.paid_later += rec.paid
        elif isinstance(rec, UnclaimedFound):
            self.found[0] += 1
            self.found[1] += rec.value_cents
        elif isinstance(rec, UnclaimedRegistered):
            self.registered[0] += 1
            self.registered[1] += rec.value_cents
        elif isinstance(rec, UnclaimedWrittenOff):
            self.written_off[rec.month] = rec.amount_cents
        elif isinstance(rec, CageReconciled):
            self.reconciliations += 1
            self.cage_variance += rec.variance_cents
        elif isinstance(rec, DropCounted):
            self.drop["containers"] += 1
            self.drop["counted_cents"] += rec.counted_cents
            self.drop["metered_cents"] += rec.metered_cents
            if rec.variance_cents:
                self.variances.append(
                    {"machine": rec.machine, "container": rec.container,
                     "variance_cents": rec.variance_cents}
                )  # fmt: skip
        elif isinstance(rec, DropVarianceInvestigated):
            self.investigated += 1
        elif isinstance(rec, RecordDestroyed):
            self.destroyed += 1
        elif isinstance(rec, RecordsRequested):
            self.requests[0] += 1
        elif isinstance(rec, RecordsProduced):
            self.requests[1] += 1
        elif isinstance(rec, FinancialStatementsLodged):
            self.lodged.append(f"{rec.year}: {rec.lodged_date}")

    def report(self, end: float) -> dict[str, object]:
        return {
            "transactions_by_kind": {k: dict(v) for k, v in sorted(self.by_kind.items())},
            "payments_accepted": dict(sorted(self.payments.items())),
            "substitute_cheques": self.substitutes,
            "banked": {k: {"payments": v[0], "amount_cents": v[1]} for k, v in self.banked.items()},
            "cheques_dishonoured": self.dishonoured[0],
            "dishonoured_paid_later": self.paid_later,
            "unclaimed_found": {"items": self.found[0], "value_cents": self.found[1]},
            "unclaimed_registered": {
                "items": self.registered[0],
                "value_cents": self.registered[1],
            },
            "unclaimed_written_off": dict(self.written_off),
            "cage_reconciliations": self.reconciliations,
            "cage_variance_cents": self.cage_variance,
            "drop_count": dict(self.drop),
            "drop_variances": {
                "count": len(self.variances),
                "investigated": self.investigated,
                "net_cents": sum(int(v["variance_cents"]) for v in self.variances),
                "items": self.variances[:20],
            },
            "volumes_destroyed": self.destroyed,
            "records_requests": {"asked": self.requests[0], "produced": self.requests[1]},
            "statements_lodged": list(self.lodged),
        }
