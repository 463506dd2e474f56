"""Prevention of money laundering: regs 45-51 of the Malta regulations.

The checkers rebuild, from the floor's records alone, what each clause asks of the
licensee, and compare it with what the licensee's AML function recorded:

* **Who came in** (45): every admission at a door follows an id check of that person there.
* **Money changing form** (46): a buy-in is cash (or a cheque, a card) for chips or tokens
  (``cage_transaction`` "buy_in" for chips, ``table_stretch.buy_in_cents``,
  ``bill_accepted``, ``coins_accepted``, a junket member's front money and tokens bought
  for cash); a cash-out is chips or tokens for money (``cage_transaction`` "redemption",
  ``cashed_out``, a jackpot ``hand_paid``, junket chips redeemed at settlement). A junket
  member's stay, from arrival to settlement, is one window. Each is
  added to the patron's *window*: the gaming session (the visit, from an admission to this
  casino's gaming area to the next) or, when the ruleset's ``aml_session_is_gaming_day``
  says so, the gaming day; buy-ins and cash-outs separately unless
  ``aml_aggregate_in_out_separately`` is false. A transaction above
  ``aml_id_threshold_cents`` (compared exactly, as a fraction of the floor's cents) needs its
  own identification; a smaller one that takes its window past the threshold, an aggregate
  identification (46(4)); every cash-out so identified, a cross-reference to the window's
  buy-ins (46(3)) whose numbers the checker recomputes from the records of play.
* **Suspicion** (46(5), 49, 50, 51): red flags reported, reports evaluated by the Reporting
  Officer, suspicions reported to the police and the Board, with the contents of reg 51.

The record kinds are in ``twin.aml.records``; the checkers never read the twin's truth
(``laundering_act``).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from fractions import Fraction
from functools import partial
from typing import TYPE_CHECKING, Any, ClassVar

from dateutil.relativedelta import relativedelta

from twin.aml.params import (
    AGGREGATE_IN_OUT_SEPARATELY,
    CHIPS_FROM_NET_WINNINGS,
    ID_RECORD_RETENTION,
    ID_THRESHOLD,
    POLICE_MIN_RANK,
    SESSION_IS_GAMING_DAY,
    TRAINING_INTERVAL,
)
from twin.aml.records import (
    AmlTrainingCompleted,
    CashOutCrossReferenced,
    IdentificationRecorded,
    InternalReport,
    RedFlagObserved,
    ReportingOfficerAppointed,
    ReportingOfficerNotified,
    RoEvaluation,
    SuspicionReported,
)
from twin.cage import retention_ends
from twin.cage.records import CageTransaction, RecordDestroyed, RecordVolume
from twin.compliance.params import (
    AML_ESCALATION_TOGETHER,
    AML_EVALUATION_HOURS,
    AML_INTERNAL_REPORT_HOURS,
    AML_POLICE_REPORT_HOURS,
)
from twin.compliance.registry import Checker, Kind, control
from twin.door.records import CasinoLicensed, EntryAdmitted, EntryRefused, IdChecked
from twin.junkets.records import (
    JunketChipsRedeemed,
    JunketDepositLodged,
    JunketMemberArrived,
    JunketTablePlayed,
    JunketTokensBought,
)
from twin.machines.events import BillAccepted, CashedOut, CoinsAccepted, GamesPlayed, HandPaid
from twin.patrons.records import PatronArrived, PatronLeft, SessionStarted
from twin.pit.records import TableStretch
from twin.records import Record
from twin.staff.records import ShiftStarted

if TYPE_CHECKING:
    from twin.compliance.context import CheckContext

T = "tests/test_aml.py::"
INJ = T + "test_injected_violation_is_found"
V = "tests/test_aml_verdicts.py::"
#: what the casino can attribute to a person at a slot machine (the parts of 46 it cannot see)
ANONYMOUS = (
    "notes and coins fed into a slot machine, and its games and cash-outs, are anonymous "
    "unless the floor's session record (session_started) puts a person at that machine, "
    "or an attendant pays the person by hand: anonymous money is no one's transaction, "
    "so it is neither identified nor aggregated nor cross-referenced (the twin's truth of "
    "who fed it is not read)"
)
NO_FUNCTION = (
    "a casino with no AML function (no Reporting Officer, no training records: no [aml]) "
    "identifies no one: one finding, at the first transaction that needed identification, "
    "stands for every later one"
)

#: the records of money changing form (46(1), (2)): each is a transaction of its patron
MONEY = (
    "cage_transaction",
    "table_stretch",
    "bill_accepted",
    "coins_accepted",
    "cashed_out",
    "hand_paid",
    "junket_deposit_lodged",
    "junket_tokens_bought",
    "junket_chips_redeemed",
)
#: records that show the run has an AML function at all, from t = 0 (a floor with no
#: ``[aml]`` has none, and nothing there identifies anyone)
FUNCTION = ("reporting_officer_appointed", "reporting_officer_notified", "aml_training_completed")
#: what the money trail reads: the door (windows begin at admission; with no door, at the
#: floor's record of the arrival), the floor's slot sessions (who plays which machine), money,
#: play (winnings)
TRAIL = (
    "casino_licensed",
    "entry_admitted",
    "patron_arrived",
    "session_started",
    "patron_left",
    "junket_member_arrived",
    *MONEY,
    "games_played",
    "junket_table_played",
    *FUNCTION,
)
#: the ruleset parameters the money trail works to
TRAIL_PARAMS = (ID_THRESHOLD.key, SESSION_IS_GAMING_DAY.key, AGGREGATE_IN_OUT_SEPARATELY.key)
#: what an identification record shows of the person (47(1))
PARTICULARS = (
    "document_type",
    "document_number",
    "name",
    "date_of_birth",
    "nationality",
    "address",
)
REASONS = frozenset({"buy_in", "cash_out", "aggregate_buy_in", "aggregate_cash_out", "suspicion"})
#: the ranks of the Malta Police Force, lowest first (reg 49(1): "not below the rank of")
RANKS = (
    "Constable",
    "Sergeant",
    "Inspector",
    "Superintendent",
    "Assistant Commissioner",
    "Deputy Commissioner",
    "Commissioner",
)
#: the failures of the check of 46(3), by what failed: the red flag that must be raised
CROSS_FLAGS = {"matched": "unmatched_cash_out", "from_winnings": "not_from_winnings"}
#: records that show the run has an AML function at all (a floor with no ``[aml]`` has none)
AML_KINDS = (
    "reporting_officer_appointed",
    "reporting_officer_notified",
    "aml_training_completed",
    "identification_recorded",
    "internal_report",
)


def euros(cents: int) -> str:
    """Cents as an amount for a message."""
    return f"{cents // 100:,}.{cents % 100:02d}"


# --- the money trail: transactions and windows, from the records --------------------------------


@dataclass(frozen=True, slots=True)
class Txn:
    """One transaction as reg 46 sees it. ``need``: the identification it needs ("buy_in",
    "cash_out", "aggregate_buy_in", "aggregate_cash_out"; "" none). For a cash-out that needs
    one, the window as the cross-reference must show it (46(3)): its buy-ins, their total, the
    net winnings of play in it and its cash-outs with this one."""

    seq: int
    t: float
    patron: str
    out: bool
    cents: int
    window: str  # the window's key ("" when the patron was never admitted here)
    need: str
    buy_ins: tuple[int, ...] = ()
    bought: int = 0
    won: int = 0
    cashed: int = 0


@dataclass
class _Window:
    ins: list[tuple[int, int]] = field(default_factory=list)  # (seq, cents)
    outs: list[tuple[int, int]] = field(default_factory=list)
    won: int = 0

    @property
    def bought(self) -> int:
        return sum(c for _, c in self.ins)

    @property
    def cashed(self) -> int:
        return sum(c for _, c in self.outs)


class MoneyTrail:
    """Each patron's transactions and windows, rebuilt from the records (shared by the
    checkers of one run through ``ctx.shared``; each record is read once, whichever checker
    hands it over first).

    Only what the casino could see names a person. At the cage, a table and the junket desk
    the patron is in front of the staff. A slot machine is anonymous: its notes, coins,
    games and cash-outs are a person's only while the floor's session record
    (``session_started`` to ``patron_left``) puts that person at that machine; notes and coins
    fed in the instant a session begins there are that session's. A cash-out paid partly by
    hand, and a jackpot paid by hand, are paid to the person in front of the attendant.
    Everything else at a machine is *anonymous*: no one's transaction (the money fed in is
    :meth:`anonymous_cents`; the record's ``patron`` field is the twin's, not the casino's)."""

    KEY = "aml.money_trail"

    def __init__(self, ctx: CheckContext) -> None:
        self.ctx = ctx
        self.threshold: Fraction = ctx.rule_money(ID_THRESHOLD)
        self._over = math.floor(self.threshold)  # whole cents: above it iff above its floor
        self.by_day = bool(ctx.rule(SESSION_IS_GAMING_DAY))
        self.separately = bool(ctx.rule(AGGREGATE_IN_OUT_SEPARATELY))
        self.aml = False  # the run has an AML function (see FUNCTION)
        self.home = ""
        self.visit: dict[str, int] = {}  # person -> their latest admission here (visit number)
        self.stays: set[str] = set()  # junket members: their stay is one window
        self.windows: dict[str, _Window] = {}
        self.amounts: dict[int, tuple[str, int]] = {}  # seq -> (patron, cents) of each one
        self.seated: dict[str, str] = {}  # machine -> the person the floor's session puts there
        self.held: dict[str, list[tuple[Record, int]]] = {}  # machine -> notes/coins, one instant
        self._anonymous = 0  # money in at machines that no session of the floor's explained
        self._seq = -1
        self._txns: tuple[Txn, ...] = ()

    def threshold_text(self) -> str:
        """The threshold as the regulation states it, and in the floor's money."""
        lm = int(self.ctx.rule(ID_THRESHOLD))
        return f"Lm {euros(lm)}, EUR {float(self.threshold) / 100:,.4f}"

    @classmethod
    def of(cls, ctx: CheckContext) -> MoneyTrail:
        got = ctx.shared.get(cls.KEY)
        if not isinstance(got, MoneyTrail):
            got = ctx.shared[cls.KEY] = cls(ctx)
        return got

    def window_key(self, patron: str, t: float) -> str:
        """The key of ``patron``'s window at ``t`` ("" none: never admitted here)."""
        if patron in self.stays:
            return f"{patron}#stay"
        visit = self.visit.get(patron)
        if visit is None:
            return ""
        if self.by_day:
            return f"{patron}@{self.ctx.clock.gaming_day(t).isoformat()}"
        return f"{patron}#{visit}"

    def label(self, key: str) -> str:
        if key.endswith("#stay"):
            return "junket stay"
        _, sep, day = key.partition("@")
        if sep:
            return f"gaming day {day}"
        return f"gaming session (visit {key.partition('#')[2]})"

    def _window(self, patron: str, t: float) -> tuple[str, _Window | None]:
        key = self.window_key(patron, t)
        if not key:
            return key, None
        w = self.windows.get(key)
        if w is None:
            w = self.windows[key] = _Window()
        return key, w

    def accept(self, rec: Record) -> tuple[Txn, ...]:
        """Read ``rec`` (once, whoever asks first); the transactions it makes known: its own,
        or, for a slot session that begins, the notes and coins fed into its machine in that
        instant."""
        if rec.seq != self._seq:
            self._seq = rec.seq
            got = self._read(rec)
            self._txns = () if got is None else got if isinstance(got, tuple) else (got,)
        return self._txns

    def _denomination(self, machine: str) -> int:
        inst = self.ctx.installed.get(machine)
        return 0 if inst is None else inst.denomination_cents

    def _read(self, rec: Record) -> Txn | tuple[Txn, ...] | None:
        read = _READERS.get(rec.kind)
        return None if read is None else read(self, rec)

    def _function(self, rec: Record) -> None:
        self.aml = True

    def _licensed(self, rec: CasinoLicensed) -> None:
        if rec.home:
            self.home = rec.casino

    def _admitted(self, rec: EntryAdmitted) -> None:
        if rec.casino == self.home and rec.purpose == "play":
            self.visit[rec.person] = rec.visit

    def _arrived(self, rec: PatronArrived) -> None:
        if not self.home:  # no door: the visit is known from the floor's record of it
            self.visit[rec.patron] = rec.visit

    def _session(self, rec: SessionStarted) -> tuple[Txn, ...]:
        self.seated[rec.machine] = rec.patron
        held = self.held.pop(rec.machine, [])
        fed = [(r, c) for r, c in held if r.t == rec.t]
        self._anonymous += sum(c for r, c in held if r.t != rec.t)
        return tuple(self._money(r, rec.patron, c, out=False) for r, c in fed)

    def _left(self, rec: PatronLeft) -> None:
        if rec.machine and self.seated.get(rec.machine) == rec.patron:
            del self.seated[rec.machine]

    def anonymous_cents(self, now: float) -> int:
        """Notes and coins fed into machines before ``now`` that no session explains."""
        held = sum(c for h in self.held.values() for r, c in h if r.t < now)
        return self._anonymous + held

    def _slot_in(self, rec: Record, machine: str, cents: int) -> Txn | None:
        """Notes or coins into ``machine``: the seated person's, or held for a session that
        begins there in this instant (anonymous if none does)."""
        who = self.seated.get(machine)
        if who is not None:
            return self._money(rec, who, cents, out=False)
        held = self.held.setdefault(machine, [])
        if held and held[0][0].t != rec.t:
            self._anonymous += sum(c for _, c in held)
            held.clear()
        held.append((rec, cents))
        return None

    def _junket_arrived(self, rec: JunketMemberArrived) -> None:
        self.stays.add(rec.member)  # the stay, from arrival to settlement, is one window

    def _junket_deposit(self, rec: JunketDepositLodged) -> Txn | None:
        return self._money(rec, rec.member, rec.amount_cents, out=False)

    def _junket_tokens(self, rec: JunketTokensBought) -> Txn | None:
        if rec.paid_with == "cash":
            return self._money(rec, rec.member, rec.amount_cents, out=False)
        return None

    def _junket_play(self, rec: JunketTablePlayed) -> None:
        _, w = self._window(rec.player, rec.t)
        if w is not None:
            w.won += rec.net_cents

    def _junket_redeemed(self, rec: JunketChipsRedeemed) -> Txn | None:
        if rec.chips_cents > 0:
            return self._money(rec, rec.member, rec.chips_cents, out=True)
        return None

    def _cage(self, rec: CageTransaction) -> Txn | None:
        if rec.txn_kind == "buy_in" and rec.chips_out_cents > 0:
            return self._money(rec, rec.patron, rec.amount_cents, out=False)
        if rec.txn_kind == "redemption":
            return self._money(rec, rec.patron, rec.amount_cents, out=True)
        return None

    def _table(self, rec: TableStretch) -> Txn | None:
        _, w = self._window(rec.patron, rec.t)
        txn = None
        if rec.buy_in_cents > 0:
            txn = self._money(rec, rec.patron, rec.buy_in_cents, out=False)
        if w is not None:
            w.won += rec.net_cents
        return txn

    def _bill(self, rec: BillAccepted) -> Txn | None:
        return self._slot_in(rec, rec.machine, rec.bill_cents)

    def _coins(self, rec: CoinsAccepted) -> Txn | None:
        cents = rec.coins * self._denomination(rec.machine)
        if cents > 0:
            return self._slot_in(rec, rec.machine, cents)
        return None

    def _played(self, rec: GamesPlayed) -> None:
        who = self.seated.get(rec.machine)
        if who is None:
            return  # anonymous play: no one's winnings
        _, w = self._window(who, rec.t)
        if w is not None:
            w.won += (rec.won - rec.wagered) * self._denomination(rec.machine)

    def _cashed_out(self, rec: CashedOut) -> Txn | None:
        cents = rec.credits * self._denomination(rec.machine)
        who = self.seated.get(rec.machine)
        if who is None and rec.hand_paid > 0:
            who = rec.patron  # the attendant pays the person in front of him
        if cents > 0 and who is not None:
            return self._money(rec, who, cents, out=True)
        return None

    def _hand_paid(self, rec: HandPaid) -> Txn | None:
        if rec.reason in ("jackpot", "progressive") and rec.cents > 0:
            _, w = self._window(rec.patron, rec.t)
            if w is not None:
                w.won += rec.cents  # a jackpot is won by play, then paid out
            return self._money(rec, rec.patron, rec.cents, out=True)
        return None

    def _money(self, rec: Record, patron: str, cents: int, *, out: bool) -> Txn:
        self.amounts[rec.seq] = (patron, cents)
        key, w = self._window(patron, rec.t)
        need = ("cash_out" if out else "buy_in") if cents > self._over else ""
        if w is None:
            return Txn(rec.seq, rec.t, patron, out, cents, key, need)
        (w.outs if out else w.ins).append((rec.seq, cents))
        mine = w.cashed if out else w.bought
        total = mine if self.separately else w.bought + w.cashed
        if not need and total > self._over:
            need = "aggregate_cash_out" if out else "aggregate_buy_in"
        if not (out and need):
            return Txn(rec.seq, rec.t, patron, out, cents, key, need)
        return Txn(
            rec.seq,
            rec.t,
            patron,
            out,
            cents,
            key,
            need,
            tuple(s for s, _ in w.ins),
            w.bought,
            w.won,
            w.cashed,
        )


# what each kind of record is to the money trail (one lookup per record, not a chain of tests)
_READERS: dict[str, Callable[[MoneyTrail, Any], Txn | tuple[Txn, ...] | None]] = {
    **{kind: MoneyTrail._function for kind in FUNCTION},
    CasinoLicensed.kind: MoneyTrail._licensed,
    EntryAdmitted.kind: MoneyTrail._admitted,
    PatronArrived.kind: MoneyTrail._arrived,
    SessionStarted.kind: MoneyTrail._session,
    PatronLeft.kind: MoneyTrail._left,
    JunketMemberArrived.kind: MoneyTrail._junket_arrived,
    JunketDepositLodged.kind: MoneyTrail._junket_deposit,
    JunketTokensBought.kind: MoneyTrail._junket_tokens,
    JunketTablePlayed.kind: MoneyTrail._junket_play,
    JunketChipsRedeemed.kind: MoneyTrail._junket_redeemed,
    CageTransaction.kind: MoneyTrail._cage,
    TableStretch.kind: MoneyTrail._table,
    BillAccepted.kind: MoneyTrail._bill,
    CoinsAccepted.kind: MoneyTrail._coins,
    GamesPlayed.kind: MoneyTrail._played,
    CashedOut.kind: MoneyTrail._cashed_out,
    HandPaid.kind: MoneyTrail._hand_paid,
}


# --- reg 45 ----------------------------------------------------------------------------------


@control(
    "MT98.R45",
    kind=Kind.RUNTIME,
    title="Identify everyone entering the casino",
    reads=(
        "casino_licensed",
        "patron_arrived",
        "id_checked",
        "entry_admitted",
        "entry_refused",
        "session_started",
    ),
    test=INJ + "[R45]",
    checks={
        "every admission, at this casino's door and the peers' (any purpose, any area), "
        "follows an id check of that person at that door for that visit (each check lets "
        "one entry in)": INJ + "[R45]",
        "a visitor of this casino who arrived and started to play with no id check at its "
        "door entered unidentified": "tests/test_entrance.py::test_unidentified_entrant",
        "a casino with no door check at all (no licensed casino's door before the first "
        "arrival) lets its first entrant in unidentified: one finding there, which stands for "
        "every later entrant (each counted as an observation)": V + "test_no_door_check",
    },
    unchecked=(
        "section 25 of the Act (what identification it requires) is not in the seed text: "
        "an id check of the person's document at the door is read as identification",
    ),
    observes=("entry_admitted",),
    needs="a person admitted at a door, or one who came into a casino with no door check",
)
class EveryEntrantIdentified(Checker):
    def setup(self) -> None:
        self.home = ""
        self.checks: dict[tuple[str, str, int], IdChecked] = {}
        self.arrived: dict[str, int] = {}  # person -> arrival seq, until the door sees them
        self.undoored = 0  # entrants of a casino with no door check

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, CasinoLicensed):
            if rec.home:
                self.home = rec.casino
        elif isinstance(rec, IdChecked):
            self.checks[(rec.casino, rec.person, rec.visit)] = rec
            if rec.casino == self.home:
                self.arrived.pop(rec.person, None)
        elif isinstance(rec, EntryRefused):
            self.checks.pop((rec.casino, rec.person, rec.visit), None)
        elif isinstance(rec, EntryAdmitted):
            idc = self.checks.pop((rec.casino, rec.person, rec.visit), None)
            seq = self.arrived.pop(rec.person, None) if rec.casino == self.home else None
            if idc is None:
                area = "gaming area" if rec.area == "gaming" else rec.area
                self.report(
                    (rec.person, rec.casino),
                    f"{rec.person} was let into the {area} of {rec.casino} with no id check",
                    tuple(s for s in (seq, rec.seq) if s is not None),
                )
        elif isinstance(rec, PatronArrived):
            if self.home:
                self.arrived[rec.patron] = rec.seq
            else:
                self._no_door(rec)
        elif isinstance(rec, SessionStarted):
            seq = self.arrived.pop(rec.patron, None)
            if seq is not None:
                self.report(
                    (rec.patron, self.home),
                    f"{rec.patron} came into {self.home} and played machine "
                    f"{rec.machine} with no id check at the door",
                    (seq, rec.seq),
                )

    def _no_door(self, rec: PatronArrived) -> None:
        """An entrant of a casino with no door check: identified by no one. One finding, at
        the first; the later ones are observations of the same absence."""
        self.observed()
        self.undoored += 1
        self.report_once(
            "no door",
            (rec.patron,),
            f"no such function in this casino: no door check identifies entrants (no "
            f"licensed casino's door before the first arrival); {rec.patron} came in "
            f"unidentified (visit {rec.visit}), and so does every later entrant (this finding "
            "stands for them all; each is counted as an observation of reg 45)",
            (rec.seq,),
        )


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


# --- reg 46(5): identification on suspicion ---------------------------------------------------


@control(
    "MT98.R46.5",
    kind=Kind.RUNTIME,
    title="Record identity on suspicion of money laundering at any amount",
    reads=("internal_report", "identification_recorded"),
    test=INJ + "[R46.5]",
    checks={
        "every suspicion an employee reports to the Reporting Officer comes with a record "
        "of the patron's particulars (reason 'suspicion'), in the same instant, whatever "
        "the amounts": INJ + "[R46.5]",
    },
    unchecked=(
        "knowledge or suspicion that no one reported is not observable: a red flag that is "
        "observed but not reported is reg 49(2)'s finding (MT98.R49.2)",
    ),
    observes=("internal_report",),
)
class SuspectsIdentified(Checker):
    def setup(self) -> None:
        self.ids: set[tuple[str, float]] = set()

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, IdentificationRecorded):
            if rec.reason == "suspicion":
                self.ids.add((rec.patron, rec.t))
        elif isinstance(rec, InternalReport):
            self.ctx.after(0.0, partial(self._due, rec))

    def _due(self, rep: InternalReport) -> None:
        if (rep.patron, rep.t) not in self.ids:
            self.report(
                (rep.patron, rep.employee),
                f"{rep.employee} reported a suspicion about {rep.patron} (case "
                f"{rep.case}) and the patron's particulars were not recorded",
                (rep.seq,),
            )


# --- reg 47: the records and their retention ----------------------------------------------


@control(
    "MT98.R47",
    kind=Kind.RECORD,
    title="Identification records: investigation-grade, kept five years",
    reads=(*TRAIL, "identification_recorded", "record_volume", "record_destroyed"),
    params=(*TRAIL_PARAMS, ID_RECORD_RETENTION.key),
    test=INJ + "[R47]",
    checks={
        "47(1): every identification record shows the document (type, number) and the "
        "person (name, date of birth, nationality, address), its reason, and, unless made on "
        "suspicion alone, the window and the transactions it covers": INJ + "[R47]",
        "the transactions are earlier transactions of that patron whose amounts add up to "
        "the amount recorded": T + "test_identification_record_contents",
        "47(2): no volume of identification records is destroyed before five years from its "
        "last entry have expired (by the calendar)": INJ + "[R47.destroyed]",
    },
    unchecked=(
        "'such details as may be necessary to facilitate any investigation' is read as the "
        "particulars above; what an investigation needs beyond them is not judged",
        "the run's own records are not destroyed within a run (volumes are counted monthly, "
        "not filled from the records); the archive of earlier volumes carries 47(2)",
    ),
    observes=("identification_recorded", "record_destroyed"),
    needs="an identification record, or a volume of them destroyed",
)
class IdentificationRecordsKept(Checker):
    def setup(self) -> None:
        self.trail = MoneyTrail.of(self.ctx)
        self.volumes: dict[str, RecordVolume] = {}

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, IdentificationRecorded):
            self._particulars(rec)
        elif isinstance(rec, RecordVolume):
            if rec.category == "identification":
                self.volumes[rec.volume] = rec
        elif isinstance(rec, RecordDestroyed):
            if rec.category == "identification":
                self._destroyed(rec)
        else:
            self.trail.accept(rec)  # the transactions an identification may name

    def _particulars(self, rec: IdentificationRecorded) -> None:
        wrong = [n for n in PARTICULARS if not getattr(rec, n).strip()]
        if rec.reason not in REASONS:
            wrong.append(f"a reason ({rec.reason!r})")
        if rec.reason != "suspicion":
            if not rec.window:
                wrong.append("the window")
            if not rec.transactions:
                wrong.append("the transactions")
            amounts = self.trail.amounts
            odd = [
                s
                for s in rec.transactions
                if s >= rec.seq or amounts.get(s, ("", 0))[0] != rec.patron
            ]
            if odd:
                wrong.append(f"transactions of the patron (not: {odd})")
            elif rec.amount_cents <= 0 or rec.amount_cents != sum(
                amounts[s][1] for s in rec.transactions
            ):
                wrong.append(f"the amount of its transactions ({rec.amount_cents} cents recorded)")
        if wrong:
            self.report(
                (rec.patron, rec.staff),
                f"identification of {rec.patron} ({rec.reason}) recorded without "
                + ", ".join(wrong),
                (rec.seq,),
            )

    def _destroyed(self, rec: RecordDestroyed) -> None:
        vol = self.volumes.get(rec.volume)
        last = rec.last_entry if vol is None else vol.last_entry
        years = int(self.ctx.rule(ID_RECORD_RETENTION))
        ends = retention_ends(date.fromisoformat(last), years)
        if date.fromisoformat(rec.date) < ends:
            ev = (rec.seq,) if vol is None else (vol.seq, rec.seq)
            self.report_once(
                rec.volume,
                (rec.volume,),
                f"identification records {rec.volume} destroyed on {rec.date}, "
                f"before {years} years from {last} ended ({ends.isoformat()})",
                ev,
            )


# --- reg 48: training ----------------------------------------------------------------------


@control(
    "MT98.R48",
    kind=Kind.PERIODIC,
    title="AML training for casino employees",
    reads=(
        "shift_started",
        "aml_training_completed",
        "reporting_officer_appointed",
        "patron_arrived",
    ),
    params=(TRAINING_INTERVAL.key,),
    test=INJ + "[R48]",
    checks={
        "every employee of the licensee who comes on shift completed the AML course within "
        "the ruleset's calendar months before that day (once per employee)": INJ + "[R48]",
        "the months by the calendar; a course recorded in the same instant as the shift counts": T
        + "test_training_interval_by_the_calendar",
        "a casino with no AML training at all (no course on record, no Reporting Officer) "
        "when it opens to the public: one finding naming the employees on shift, which stands "
        "for every later one (each counted as an observation)": V
        + "test_no_aml_function_is_one_finding_per_clause",
    },
    unchecked=(
        "'adequately trained' has no frequency in the text: aml_training_interval_months is "
        "the twin's reading (on hire, then yearly)",
        "what the course teaches (the Act of 1994, recognising laundering) is its name "
        "only: the content is not modelled",
    ),
    observes=(),
    needs="an employee of the licensee coming on shift",
)
class EmployeesTrained(Checker):
    def setup(self) -> None:
        self.active = False  # a course on record, or a Reporting Officer to organise them
        self.trained: dict[str, AmlTrainingCompleted] = {}
        self.waiting: list[ShiftStarted] = []  # shifts judged before any training function
        self.absent = False  # the finding of a casino with no training at all is made

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, ReportingOfficerAppointed):
            self._activate()
        elif isinstance(rec, AmlTrainingCompleted):
            self._activate()
            last = self.trained.get(rec.employee)
            if last is None or rec.date >= last.date:
                self.trained[rec.employee] = rec
        elif isinstance(rec, ShiftStarted) and rec.employer != "board":
            # the course may be recorded in the same instant: judged at its end
            self.ctx.after(0.0, partial(self._due, rec))
        elif isinstance(rec, PatronArrived) and not self.active:
            self._no_training()  # open to the public, and no one is trained

    def _activate(self) -> None:
        if not self.active:
            self.active = True
            waiting, self.waiting = self.waiting, []
            for rec in waiting:  # judged at the end of this instant (its courses recorded)
                self.ctx.after(0.0, partial(self._due, rec))

    def _no_training(self) -> None:
        if self.absent or not self.waiting:
            return
        self.absent = True
        self.observed(len(self.waiting))
        names = sorted({r.member for r in self.waiting})
        shown = ", ".join(names[:10]) + (f" and {len(names) - 10} more" if len(names) > 10 else "")
        self.report(
            tuple(names),
            f"no such function in this casino: no AML training (no course on record, no "
            f"Reporting Officer to organise one); the {len(names)} employees of the licensee "
            f"on shift ({shown}) are not trained, nor is any who comes on shift later (this "
            "finding stands for them all)",
            tuple(r.seq for r in self.waiting),
        )

    def _due(self, rec: ShiftStarted) -> None:
        if not self.active:
            if not self.absent:
                self.waiting.append(rec)
            else:
                self.observed()  # one more of the untrained employees of the finding
            return
        self.observed()
        day = self.ctx.clock.at(rec.t).date()
        months = int(self.ctx.rule(TRAINING_INTERVAL))
        last = self.trained.get(rec.member)
        if (
            last is not None
            and day - relativedelta(months=months) <= date.fromisoformat(last.date) <= day
        ):
            return
        since = "never trained" if last is None else f"last trained {last.date}"
        ev = (rec.seq,) if last is None else (last.seq, rec.seq)
        self.report_once(
            rec.member,
            (rec.member,),
            f"{rec.member} ({rec.role}) came on shift on {day.isoformat()} with no "
            f"AML course in the {months} months before ({since})",
            ev,
        )

    def finish(self) -> None:
        if not self.active:
            self._no_training()


# --- reg 49: reports -----------------------------------------------------------------------


@control(
    "MT98.R49.2",
    kind=Kind.RUNTIME,
    title="Employees must report suspicious matters",
    reads=("red_flag_observed", "internal_report"),
    params=(AML_INTERNAL_REPORT_HOURS.key,),
    test=INJ + "[R49.2]",
    checks={
        "every red flag an employee observes is reported to the Reporting Officer by that "
        "employee, citing it, within the ruleset's hours (open at the run's end: only when "
        "overdue)": INJ + "[R49.2]",
    },
    unchecked=(
        "'any information or other matter' is the red flags the twin's employees observe; "
        "what an employee failed to notice is not observable (notice_trained is behaviour)",
        "reg 49(2) sets no time: aml_internal_report_hours is the twin's reading",
    ),
)
class RedFlagsReported(Checker):
    def setup(self) -> None:
        self.open: dict[int, RedFlagObserved] = {}

    def limit(self) -> float:
        return float(self.ctx.rule(AML_INTERNAL_REPORT_HOURS)) * 3600.0

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, RedFlagObserved):
            self.open[rec.seq] = rec
            self.ctx.after(self.limit(), partial(self._due, rec.seq))
        elif isinstance(rec, InternalReport):
            seen = self.open.get(rec.observed)
            if (
                seen is not None
                and (rec.employee, rec.patron) == (seen.employee, seen.patron)
                and rec.t - seen.t <= self.limit()
            ):
                del self.open[rec.observed]

    def _due(self, seq: int) -> None:
        seen = self.open.pop(seq, None)
        if seen is not None:
            hours = self.ctx.rule(AML_INTERNAL_REPORT_HOURS)
            self.report(
                (seen.employee, seen.patron),
                f"{seen.employee} observed a red flag ({seen.flag}) about "
                f"{seen.patron} and did not report it within {hours} h",
                (seq,),
            )

    def finish(self) -> None:
        for seq, seen in sorted(self.open.items()):
            if seen.t + self.limit() < self.ctx.now:
                self._due(seq)


def _rank_ok(rank: str, least: str) -> bool:
    return rank in RANKS and least in RANKS and RANKS.index(rank) >= RANKS.index(least)


@control(
    "MT98.R49.1",
    kind=Kind.RUNTIME,
    title="Internal reporting routes suspicions to the police immediately",
    reads=("internal_report", "ro_evaluation", "suspicion_reported"),
    params=(AML_POLICE_REPORT_HOURS.key, POLICE_MIN_RANK.key),
    test=INJ + "[R49.1]",
    checks={
        "every suspicion the Reporting Officer confirms is with a Police Officer of at least "
        "the ruleset's rank within the ruleset's hours of the internal report that raised "
        "it (the evaluation's time included)": INJ + "[R49.1]",
        "the police ranks, lowest first: Constable, Sergeant, Inspector, Superintendent, "
        "Assistant Commissioner, Deputy Commissioner, Commissioner": T + "test_police_ranks",
    },
    unchecked=(
        "'immediately' has no number in the text: aml_police_report_hours is the twin's reading",
        "a suspicion the Reporting Officer dismisses is not reported (the judgment itself is "
        "not checked)",
    ),
    observes=("ro_evaluation", "suspicion_reported"),
)
class SuspicionsToPolice(Checker):
    def setup(self) -> None:
        self.reports: dict[str, InternalReport] = {}
        self.police: dict[str, SuspicionReported] = {}  # case -> first report in rank

    def on_record(self, rec: Record) -> None:
        ctx = self.ctx
        if isinstance(rec, InternalReport):
            self.reports[rec.case] = rec
        elif isinstance(rec, RoEvaluation):
            rep = self.reports.get(rec.case)
            if rec.decision == "suspicious" and rep is not None:
                hours = float(ctx.rule(AML_POLICE_REPORT_HOURS))
                due = rep.t + hours * 3600.0
                ctx.after(max(0.0, due - ctx.now), partial(self._due, rep, rec, due))
        elif isinstance(rec, SuspicionReported) and rec.recipient == "police":
            least = str(ctx.rule(POLICE_MIN_RANK))
            if _rank_ok(rec.rank, least):
                self.police.setdefault(rec.case, rec)
            else:
                self.report_once(
                    (rec.case, "rank"),
                    (rec.patron, rec.officer),
                    f"case {rec.case} reported to a police officer of rank "
                    f"{rec.rank!r}, below {least}",
                    (rec.seq,),
                )

    def _due(self, rep: InternalReport, ev: RoEvaluation, due: float) -> None:
        got = self.police.get(rep.case)
        if got is not None and got.t <= due:
            return
        hours = self.ctx.rule(AML_POLICE_REPORT_HOURS)
        self.report_once(
            rep.case,
            (rep.patron, ev.officer),
            f"the suspicion of case {rep.case} about {rep.patron} was not "
            f"reported to the police within {hours} h of the internal report",
            (rep.seq, ev.seq),
        )


# --- reg 50: the Reporting Officer ---------------------------------------------------------


@control(
    "MT98.R50.1",
    kind=Kind.GOVERNANCE,
    title="Appoint and notify a Reporting Officer",
    reads=(
        "reporting_officer_appointed",
        "reporting_officer_notified",
        "ro_evaluation",
        "suspicion_reported",
        "patron_arrived",
    ),
    test=INJ + "[R50.1]",
    checks={
        "a Reporting Officer is appointed, and his name, grade and designation are notified "
        "to the Secretary of the Board and to the Commissioner of Police (the same "
        "particulars, on or after the appointment)": INJ + "[R50.1]",
        "the Reporting Officer who evaluates and reports is the one appointed": T
        + "test_officer_parts",
        "a casino with no Reporting Officer appointed when it opens to the public (its first "
        "entrant; the run's end if no one came) is one finding there": V
        + "test_no_aml_function_is_one_finding_per_clause",
    },
    unchecked=(
        "the text sets no time for the notice: a notice missing at the run's end is the finding",
        "a vacancy (the officer leaving, a successor) is not modelled: one officer serves "
        "the whole run",
    ),
    observes=(
        "reporting_officer_appointed",
        "reporting_officer_notified",
        "ro_evaluation",
        "suspicion_reported",
    ),
    needs="the casino's opening (its first entrant) or its Reporting Officer's records",
)
class ReportingOfficerNamed(Checker):
    def setup(self) -> None:
        self.opened = False
        self.appointed: ReportingOfficerAppointed | None = None
        self.notices: list[ReportingOfficerNotified] = []

    def _none(self, evidence: tuple[int, ...], when: str) -> None:
        self.report_once(
            "no officer",
            (),
            f"no such function in this casino: no Reporting Officer appointed {when}",
            evidence,
        )

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, PatronArrived):
            if not self.opened:  # the casino is open to the public: is an officer appointed?
                self.opened = True
                self.observed()
                if self.appointed is None:
                    self._none((rec.seq,), f"when the casino opened ({rec.patron} came in)")
        elif isinstance(rec, ReportingOfficerAppointed):
            self.appointed = rec
        elif isinstance(rec, ReportingOfficerNotified):
            self.notices.append(rec)
        elif isinstance(rec, RoEvaluation | SuspicionReported):
            a = self.appointed
            if a is not None and rec.officer != a.officer:
                what = "evaluated" if isinstance(rec, RoEvaluation) else "reported"
                self.report(
                    (rec.officer, rec.patron),
                    f"case {rec.case} was {what} by {rec.officer}, not the appointed "
                    f"Reporting Officer {a.officer}",
                    (a.seq, rec.seq),
                )

    def finish(self) -> None:
        a = self.appointed
        if a is None:
            if not self.opened:
                self.observed()  # the run's end: the clause is checked once
            self._none(tuple(n.seq for n in self.notices), "in the run")
            return
        who = (a.officer, a.name, a.grade, a.designation)
        missing = [
            r
            for r in ("board_secretary", "commissioner_of_police")
            if not any(
                n.recipient == r
                and (n.officer, n.name, n.grade, n.designation) == who
                and n.date >= a.date
                and all(who)
                for n in self.notices
            )
        ]
        if missing:
            self.report(
                (a.officer,),
                f"the Reporting Officer {a.officer} ({a.name}, {a.grade}, "
                f"{a.designation}) was not notified to {' and '.join(missing)}",
                (a.seq, *(n.seq for n in self.notices)),
            )


@control(
    "MT98.R50.2a",
    kind=Kind.RUNTIME,
    title="Reporting Officer receives, evaluates and oversees",
    reads=("reporting_officer_appointed", "internal_report", "ro_evaluation"),
    params=(AML_EVALUATION_HOURS.key,),
    test=INJ + "[R50.2a]",
    checks={
        "(a) every internal report is addressed to the appointed Reporting Officer": T
        + "test_officer_parts",
        "(b) he evaluates each, within the ruleset's hours, with a decision and its reasons": INJ
        + "[R50.2a]",
        "a report still within the hours at the run's end is not overdue": T
        + "test_evaluation_deadline_at_the_run_end",
        "(b) 'in the light of all other relevant information': the evaluation weighs every "
        "internal report on the patron made before it": T + "test_officer_parts",
    },
    unchecked=(
        "(e) that regs 45-49 are fully complied with is the sum of their own checks "
        "(MT98.R45 to MT98.R49.2)",
        "no time in the text: aml_evaluation_hours is the twin's reading",
        "whether the judgment is right is not checked; only that it is made and reasoned",
    ),
    observes=("internal_report", "ro_evaluation"),
)
class ReportsEvaluated(Checker):
    def setup(self) -> None:
        self.officer = ""
        self.reports: dict[str, InternalReport] = {}
        self.open: dict[str, InternalReport] = {}
        self.on_patron: dict[str, list[int]] = defaultdict(list)

    def limit(self) -> float:
        return float(self.ctx.rule(AML_EVALUATION_HOURS)) * 3600.0

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, ReportingOfficerAppointed):
            self.officer = rec.officer
        elif isinstance(rec, InternalReport):
            self.reports[rec.case] = self.open[rec.case] = rec
            self.on_patron[rec.patron].append(rec.seq)
            if self.officer and rec.officer != self.officer:
                self.report(
                    (rec.employee, rec.patron),
                    f"{rec.employee}'s report {rec.case} went to {rec.officer}, not "
                    f"the Reporting Officer {self.officer}",
                    (rec.seq,),
                )
            self.ctx.after(self.limit(), partial(self._due, rec.case))
        elif isinstance(rec, RoEvaluation):
            self._evaluated(rec)

    def _evaluated(self, ev: RoEvaluation) -> None:
        rep = self.reports.get(ev.case)
        if rep is None:
            return
        self.open.pop(ev.case, None)
        wrong = []
        if ev.officer != rep.officer:
            wrong.append(f"by {ev.officer}, the report went to {rep.officer}")
        if ev.decision not in ("suspicious", "no_suspicion") or not ev.reasons.strip():
            wrong.append("no decision with its reasons")
        unseen = sorted(
            set(s for s in self.on_patron[ev.patron] if s < ev.seq) - set(ev.considered)
        )
        if unseen:
            wrong.append(f"earlier reports on the patron not considered: {unseen}")
        if wrong:
            self.report(
                (ev.officer, ev.patron),
                f"evaluation of {ev.case}: " + "; ".join(wrong),
                (rep.seq, ev.seq),
            )

    def _due(self, case: str) -> None:
        rep = self.open.pop(case, None)
        if rep is not None:
            hours = self.ctx.rule(AML_EVALUATION_HOURS)
            self.report(
                (rep.officer, rep.patron),
                f"report {case} on {rep.patron} was not evaluated by the Reporting "
                f"Officer within {hours} h",
                (rep.seq,),
            )

    def finish(self) -> None:
        for case, rep in sorted(self.open.items()):
            if rep.t + self.limit() < self.ctx.now:
                self._due(case)


@control(
    "MT98.R50.2c",
    kind=Kind.RUNTIME,
    title="Reporting Officer escalates findings to the police and the Board",
    reads=("internal_report", "ro_evaluation", "suspicion_reported"),
    params=(POLICE_MIN_RANK.key, AML_ESCALATION_TOGETHER.key, AML_POLICE_REPORT_HOURS.key),
    test=INJ + "[R50.2c]",
    checks={
        "every suspicion the Reporting Officer finds is reported by him to a Police Officer "
        "of at least the ruleset's rank and to the Board's Money Laundering Liaison "
        "Officer": INJ + "[R50.2c]",
        "the police officer's rank": T + "test_police_ranks",
        "by the literal reading (aml_escalation_together false, the default) both reports "
        "are made, at any instants, by the run's end; the other reading wants both in the "
        "instant of the first": V + "test_escalation_together_reading",
        "a suspicion the Board (or the police) never hears of is found at the run's end, once "
        "aml_police_report_hours from its internal report have passed": V
        + "test_escalation_literal_reading_finds_a_report_never_made",
    },
    unchecked=(
        "50(2)(c) sets no time: how soon the police hear is reg 49(1)'s ('immediately', "
        "MT98.R49.1); a suspicion whose aml_police_report_hours have not run out at the run's "
        "end is not judged (its reports may still be on their way)",
    ),
    observes=("ro_evaluation", "suspicion_reported"),
)
class SuspicionsEscalated(Checker):
    def setup(self) -> None:
        self.reports: dict[str, InternalReport] = {}
        self.evaluations: dict[str, RoEvaluation] = {}
        self.sent: dict[str, list[SuspicionReported]] = defaultdict(list)
        self.together = bool(self.ctx.rule(AML_ESCALATION_TOGETHER))

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, InternalReport):
            self.reports[rec.case] = rec
        elif isinstance(rec, RoEvaluation):
            self.evaluations[rec.case] = rec
        elif isinstance(rec, SuspicionReported):
            first = rec.case not in self.sent
            self.sent[rec.case].append(rec)
            if first and self.together:
                self.ctx.after(0.0, partial(self._due, rec.case))

    def _due(self, case: str) -> None:
        ev = self.evaluations.get(case)
        if ev is None or ev.decision != "suspicious":
            return
        sent = self.sent[case]
        least = str(self.ctx.rule(POLICE_MIN_RANK))
        wrong = []
        to = {r.recipient for r in sent if r.officer == ev.officer}
        for recipient, name in (("police", "the police"), ("board_mllo", "the Board's MLLO")):
            if recipient not in to:
                wrong.append(f"not reported to {name}")
        if any(r.recipient == "police" and not _rank_ok(r.rank, least) for r in sent):
            wrong.append(f"the police officer is below {least}")
        if wrong:
            when = "in the instant of the first report" if self.together else "by the run's end"
            self.report(
                (ev.officer, ev.patron),
                f"the suspicion of case {case} ({when}): " + "; ".join(wrong),
                (ev.seq, *(r.seq for r in sent)),
            )

    def finish(self) -> None:
        if self.together:
            return
        hours = float(self.ctx.rule(AML_POLICE_REPORT_HOURS))
        for case, ev in sorted(self.evaluations.items()):
            rep = self.reports.get(case)
            since = ev.t if rep is None else rep.t
            if since + hours * 3600.0 <= self.ctx.now:  # its reports had their time
                self._due(case)


# --- reg 51: the report's contents ---------------------------------------------------------


@control(
    "MT98.R51",
    kind=Kind.RECORD,
    title="Contents of a suspicious transaction report",
    reads=(*TRAIL, "internal_report", "identification_recorded", "suspicion_reported"),
    params=TRAIL_PARAMS,
    test=INJ + "[R51]",
    checks={
        "(a) the suspicious transactions (earlier transactions of the floor, those of the "
        "case's report among them) and their detail; (b) the person, with the particulars "
        "of the patron's identification record; (c) the reasons; (d) other matters that may "
        "help the investigation: every report to the police and the Board has them all": T
        + "test_report_contents",
        "a report with no reasons is found on the floor": INJ + "[R51]",
    },
    unchecked=(
        "whether the contents are enough for an investigation is not judged: each part must "
        "be there and name what the records show",
        ANONYMOUS,
    ),
    observes=("suspicion_reported",),
)
class ReportContents(Checker):
    def setup(self) -> None:
        self.trail = MoneyTrail.of(self.ctx)
        self.cases: dict[str, InternalReport] = {}
        self.ids: dict[str, IdentificationRecorded] = {}

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, InternalReport):
            self.cases[rec.case] = rec
        elif isinstance(rec, IdentificationRecorded):
            self.ids[rec.patron] = rec
        elif isinstance(rec, SuspicionReported):
            self._contents(rec)
        else:
            self.trail.accept(rec)  # the transactions a report may name

    def _contents(self, rec: SuspicionReported) -> None:
        wrong = []
        amounts = self.trail.amounts
        case = self.cases.get(rec.case)
        odd = [s for s in rec.transactions if s >= rec.seq or s not in amounts]
        if not rec.transactions or odd:
            wrong.append("(a) the transactions" + (f" (not transactions: {odd})" if odd else ""))
        elif case is not None and not set(case.transactions) <= set(rec.transactions):
            wrong.append("(a) the transactions of the internal report")
        if not rec.transaction_detail.strip():
            wrong.append("(a) the transactions' detail")
        ident = self.ids.get(rec.patron)
        if not rec.person.strip():
            wrong.append("(b) the person")
        elif ident is not None and ident.document_number not in rec.person:
            wrong.append("(b) the person's particulars as identified")
        parts = (("(c) the reasons", rec.reasons), ("(d) other matters", rec.other))
        wrong += [name for name, got in parts if not got.strip()]
        if wrong:
            self.report(
                (rec.patron, rec.officer),
                f"report of case {rec.case} to {rec.recipient} without " + ", ".join(wrong),
                (rec.seq,),
            )


__all__ = ["MoneyTrail", "Txn", "euros"]
