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

This module holds what the checkers share: the money trail (:class:`MoneyTrail`, each
patron's transactions and windows rebuilt from the records), its record kinds and parameters,
and the tests the controls cite. The checkers are in ``aml_identification`` (45, 46(5), 47:
who came in, identification on suspicion, the records kept), ``aml_thresholds`` (46(1)-(4):
transactions above the threshold, alone or in aggregate, and the cross-reference of
cash-outs) and ``aml_reporting`` (48-51: training, reports, the Reporting Officer, the
report's contents).

The record kinds are in ``twin.aml.records``; the checkers never read the twin's truth
(``laundering_act``).
"""

from __future__ import annotations

import math
from array import array
from bisect import bisect_left
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any, overload

from twin.aml.params import AGGREGATE_IN_OUT_SEPARATELY, ID_THRESHOLD, SESSION_IS_GAMING_DAY
from twin.cage.records import CageTransaction
from twin.door.records import CasinoLicensed, EntryAdmitted
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


class Amounts:
    """Every money transaction of the run, by its record's seq: (person, cents). A later
    record (an identification, a suspicion report) may name any of them, so all are kept, in
    three arrays of machine integers (24 bytes a transaction, not a dict's ~150): a year of
    the default floor is about 150 MB, not 1 GB. Seqs come nearly in order (the notes fed in
    the instant a session begins are a little behind), so a late one is put in its place."""

    __slots__ = ("_cents", "_ids", "_names", "_seqs", "_who")

    def __init__(self) -> None:
        self._seqs = array("q")
        self._cents = array("q")
        self._who = array("l")
        self._ids: dict[str, int] = {}
        self._names: list[str] = []

    def __setitem__(self, seq: int, value: tuple[str, int]) -> None:
        person, cents = value
        who = self._ids.get(person)
        if who is None:
            who = self._ids[person] = len(self._names)
            self._names.append(person)
        seqs = self._seqs
        if not seqs or seqs[-1] < seq:
            seqs.append(seq)
            self._cents.append(cents)
            self._who.append(who)
            return
        i = bisect_left(seqs, seq)
        if seqs[i] == seq:  # the same transaction again: its last reading, as a dict's
            self._cents[i], self._who[i] = cents, who
            return
        seqs.insert(i, seq)
        self._cents.insert(i, cents)
        self._who.insert(i, who)

    def _at(self, seq: int) -> int:
        seqs = self._seqs
        i = bisect_left(seqs, seq)
        return i if i < len(seqs) and seqs[i] == seq else -1

    def __contains__(self, seq: object) -> bool:
        return isinstance(seq, int) and self._at(seq) >= 0

    def __getitem__(self, seq: int) -> tuple[str, int]:
        i = self._at(seq)
        if i < 0:
            raise KeyError(seq)
        return self._names[self._who[i]], self._cents[i]

    @overload
    def get(self, seq: int) -> tuple[str, int] | None: ...
    @overload
    def get(self, seq: int, default: tuple[str, int]) -> tuple[str, int]: ...
    def get(self, seq: int, default: tuple[str, int] | None = None) -> tuple[str, int] | None:
        i = self._at(seq)
        return default if i < 0 else (self._names[self._who[i]], self._cents[i])

    def __len__(self) -> int:
        return len(self._seqs)


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
        # person -> (key, window) of their current window: one once left is never read
        # again (visits and gaming days only go forward, a stay is for good), so memory
        # does not grow with the run
        self._current: dict[str, tuple[str, _Window]] = {}
        self.amounts = Amounts()  # seq -> (patron, cents) of each one
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
        cur = self._current.get(patron)
        if cur is not None and cur[0] == key:
            return cur
        cur = self._current[patron] = (key, _Window())
        return cur

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


__all__ = ["MoneyTrail", "Txn", "euros"]
