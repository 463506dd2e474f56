"""Records of the anti-money-laundering function (Malta regs 45-51).

The licensee's side: the Reporting Officer appointed and notified (50(1)), employees'
AML training (48), identification at the thresholds and on suspicion (46), cash-outs
cross-referenced to the buy-ins of the chips (46(3)), red flags employees observe and
report (49(2)), the Reporting Officer's evaluation (50(2)(a)-(b)) and reports to the
police and the Board's Money Laundering Liaison Officer (49(1), 50(2)(c), 51).

The twin's side (what happened, which the licensee never sees): ``laundering_act``, one
record per act of a launderer, naming the strategy. Detection studies read it; no checker
and no procedure of the licensee does.

Money is integer cents of the floor's currency. Transactions are named by the ``seq`` of
the record that shows them (a ``cage_transaction``, ``table_stretch``, ``bill_accepted``,
``coins_accepted``, ``cashed_out`` or ``hand_paid``).
"""

from __future__ import annotations

from twin.records import Record, record

# --- the Reporting Officer and training (regs 48, 50(1)) ------------------------------------


@record("reporting_officer_appointed", roles=("officer",))
class ReportingOfficerAppointed(Record):
    """The licensee appointed ``officer`` as its Reporting Officer on ``date`` (50(1))."""

    officer: str
    name: str
    grade: str
    designation: str
    date: str


@record("reporting_officer_notified", roles=("officer",))
class ReportingOfficerNotified(Record):
    """The Reporting Officer's name, grade and designation notified to ``recipient``
    ("board_secretary" or "commissioner_of_police") on ``date`` (50(1))."""

    officer: str
    recipient: str
    name: str
    grade: str
    designation: str
    date: str


@record("aml_training_completed", roles=("employee", "officer"))
class AmlTrainingCompleted(Record):
    """``employee`` completed the AML course on ``date`` (reg 48): the Prevention of Money
    Laundering Act 1994 and its regulations, and recognising and dealing with laundering;
    organised by the Reporting Officer ``officer`` (50(2)(d))."""

    employee: str
    course: str
    date: str
    officer: str


# --- identification (regs 46, 47) -------------------------------------------------------------


@record("identification_recorded", roles=("patron", "staff"))
class IdentificationRecorded(Record):
    """The particulars of ``patron`` recorded from an identification document (46, 47).

    ``reason``: "buy_in" (46(1)), "cash_out" (46(2)), "aggregate_buy_in" /
    "aggregate_cash_out" (46(4): this transaction took the ``window``'s total past the
    threshold) or "suspicion" (46(5)). ``transactions``: the seqs of the transactions it
    covers (empty on suspicion alone); ``amount_cents`` their total (for an aggregate, the
    window's total). ``window``: the gaming session or gaming day aggregated ("" none).
    """

    patron: str
    reason: str
    transactions: tuple[int, ...]
    amount_cents: int
    window: str
    document_type: str
    document_number: str
    name: str
    date_of_birth: str
    nationality: str
    address: str
    staff: str


@record("cash_out_cross_referenced", roles=("patron", "staff"))
class CashOutCrossReferenced(Record):
    """Reg 46(3): the identity of the person cashing out ``cash_out`` (a seq) matched to the
    identity recorded when the chips or tokens were bought, and their source checked.

    ``buy_ins``: the seqs of the window's buy-ins of ``patron``; ``bought_cents`` their
    total; ``won_cents`` the net winnings of ``patron`` in the window from the records of
    play (tables, machines); ``cashed_cents`` the window's cash-outs with this one.
    ``matched``: the patron bought chips or tokens in the window; ``from_winnings``:
    ``cashed_cents`` <= ``bought_cents`` + max(0, ``won_cents``) (the chips are the
    patron's own stake or winnings).
    """

    patron: str
    cash_out: int
    window: str
    buy_ins: tuple[int, ...]
    bought_cents: int
    won_cents: int
    cashed_cents: int
    matched: bool
    from_winnings: bool
    staff: str


# --- suspicion: employees, the Reporting Officer, the police and the Board ------------------


@record("red_flag_observed", roles=("employee", "patron"))
class RedFlagObserved(Record):
    """``employee`` noticed something that gives, or may give, rise to a suspicion that
    ``patron`` is laundering money (what happened; 49(2) requires the report).

    ``flag``: "minimal_play", "near_threshold", "unmatched_cash_out", "not_from_winnings",
    "chip_walk" ... ``detail`` in plain words."""

    employee: str
    patron: str
    flag: str
    transactions: tuple[int, ...]
    detail: str


@record("internal_report", roles=("case", "employee", "patron", "officer"))
class InternalReport(Record):
    """``employee`` reported to the Reporting Officer ``officer`` (49(2), 50(2)(a)).
    ``observed``: the seq of the red_flag_observed record."""

    case: str
    employee: str
    patron: str
    officer: str
    flag: str
    observed: int
    transactions: tuple[int, ...]


@record("ro_evaluation", roles=("case", "officer", "patron"))
class RoEvaluation(Record):
    """The Reporting Officer evaluated the report ``case`` in the light of all other relevant
    information (50(2)(b)): ``decision`` "suspicious" or "no_suspicion"; ``considered`` the
    seqs of the records weighed (earlier reports on the patron, transactions, play)."""

    case: str
    officer: str
    patron: str
    decision: str
    reasons: str
    considered: tuple[int, ...]


@record("suspicion_reported", roles=("case", "officer", "patron"))
class SuspicionReported(Record):
    """The Reporting Officer's report of a suspicion (49(1), 50(2)(c), 51) to ``recipient``:
    "police" (a Police Officer of rank ``rank``) or "board_mllo" (the Board's Money
    Laundering Liaison Officer). Contents (51): (a) ``transactions`` and
    ``transaction_detail``; (b) ``person`` (the particulars of the person involved); (c)
    ``reasons``; (d) ``other`` (anything else that may facilitate the investigation)."""

    case: str
    officer: str
    patron: str
    recipient: str
    rank: str
    transactions: tuple[int, ...]
    transaction_detail: str
    person: str
    reasons: str
    other: str


# --- the twin's truth ------------------------------------------------------------------------


@record("laundering_act", roles=("launderer",), truth=True)
class LaunderingAct(Record):
    """What happened (unseen by the licensee): ``launderer`` made an act of ``strategy``
    ("structuring", "minimal_play", "chip_passing", "junket_abuse", "slot_bill_route");
    ``step`` what it was ("buy_in", "play", "pass_chips", "cash_out", "bills_in"...),
    ``amount_cents`` the money moved, ``associate`` the other person of a chip pass."""

    launderer: str
    strategy: str
    step: str
    amount_cents: int
    associate: str


__all__ = [
    "AmlTrainingCompleted",
    "CashOutCrossReferenced",
    "IdentificationRecorded",
    "InternalReport",
    "LaunderingAct",
    "RedFlagObserved",
    "ReportingOfficerAppointed",
    "ReportingOfficerNotified",
    "RoEvaluation",
    "SuspicionReported",
]
