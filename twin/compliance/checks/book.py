"""The money book: what each machine's credit meter and hopper must hold, from the records.

Credits are conserved: credits in (coins, bills) + won - wagered - paid by the hopper -
paid by hand (credit payouts) = the credit meter. Coins too: hopper = installed + fills +
coins to the hopper - coins paid - coins removed. The book is rebuilt from the records alone
and compared wherever the machine states what it holds: after each stretch of play
(``games_played.credits``), at a cash-out (the meter must end at zero) and at a meter reading
(``current_credits``, ``hopper_level``).

A difference is remembered, not re-reported: surplus credits (the meter shows more than the
records explain) are kept in ``surplus`` until they leave the machine; credits lost (it shows
fewer) are reported once and the book follows the meter.

Several checkers share one book (``ctx.shared["money_book"]``); each record is applied once,
by whichever checker sees it first (``observe`` is idempotent by ``seq``).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from twin.compliance.context import CheckContext
from twin.machines.events import (
    BillAccepted,
    CashedOut,
    CoinsAccepted,
    GamesPlayed,
    HandPaid,
    HopperFilled,
    HopperPaid,
    MachineInstalled,
    MachineLocked,
    MetersRead,
    MoneyRemoved,
    ShortPayCompleted,
)
from twin.records import Record

#: the record kinds the book is built from (a checker using it reads all of them)
BOOK_KINDS = (
    "machine_installed",
    "coins_accepted",
    "bill_accepted",
    "games_played",
    "machine_locked",
    "hopper_paid",
    "short_pay_completed",
    "hopper_filled",
    "hand_paid",
    "cashed_out",
    "meters_read",
    "money_removed",
)
_EVIDENCE = 40


def reads_with_book(*kinds: str) -> tuple[str, ...]:
    """``kinds`` and the book's kinds, each once (a kind read twice is delivered twice)."""
    return tuple(dict.fromkeys((*kinds, *BOOK_KINDS)))


# money records kept per machine since its last cash-out


@dataclass
class Account:
    """One machine's book."""

    credits: int = 0  # what the credit meter must show
    hopper: int = 0  # coins the hopper must hold
    owed: int = 0  # coins of a short pay still owed after the last hopper payout
    surplus: int = 0  # credits on the machine that no play and no money in explain
    surplus_seen: int | None = None  # seq of the record that first showed the surplus
    lock_win: int = 0  # the win of the open jackpot lock-up (0 when none)
    lock_seq: int | None = None
    paid_lock: tuple[int, int | None] = (0, None)  # the lock-up a jackpot hand pay settled
    session: list[int] = field(default_factory=list)  # money records since the last cash-out
    closed: bool = False  # the last money record was a cash-out (the next starts a session)
    #: set by ``observe`` for the record just applied
    before: int = 0  # the book's credits before it
    lost: int = 0  # credits the meter shows fewer than the book (0 when none)
    missing_coins: int = 0  # coins the hopper holds fewer than the book (0 when none)
    paid_out_surplus: int = 0  # surplus credits that left the machine with this cash-out
    shown_by: int = 0  # seq of the record whose figure showed ``lost`` / ``missing_coins``


class MoneyBook:
    def __init__(self) -> None:
        self.accounts: dict[str, Account] = defaultdict(Account)
        self.last_seq = -1

    @staticmethod
    def of(ctx: CheckContext) -> MoneyBook:
        book = ctx.shared.get("money_book")
        if book is None:
            book = ctx.shared["money_book"] = MoneyBook()
        assert isinstance(book, MoneyBook)
        return book

    def observe(self, rec: Record) -> Account | None:
        """Apply ``rec`` (once) and return the machine's account, or None for other kinds."""
        m = rec.entity("machine")
        if not m or rec.kind not in BOOK_KINDS:
            return None
        a = self.accounts[m]
        if rec.seq <= self.last_seq:
            return a
        self.last_seq = rec.seq
        a.lost = a.missing_coins = a.paid_out_surplus = 0
        self._apply(a, rec)
        return a

    def _reading(self, a: Account, rec: MetersRead) -> None:
        """A meter reading states what the machine holds: compare, then follow the machine.

        The machine's meters change only when a record says so (a hopper payout when its
        coins have dropped), so a reading agrees with the records before it, whenever it is
        taken, the closing reading of a run included.
        """
        credits = dict(rec.meters).get("current_credits")
        if credits is not None:
            self._compare(a, credits, rec.seq)
        if rec.hopper_level < a.hopper:
            a.missing_coins = a.hopper - rec.hopper_level
            a.shown_by = rec.seq
        a.hopper = rec.hopper_level

    def _apply(self, a: Account, rec: Record) -> None:
        a.before = a.credits
        if a.closed:
            a.session.clear()
            a.closed = False
        if isinstance(rec, MachineInstalled):
            a.hopper = rec.hopper_coins
            return
        if isinstance(rec, CoinsAccepted):
            a.credits += rec.coins
            a.hopper += rec.to_hopper
        elif isinstance(rec, BillAccepted):
            a.credits += rec.credits
        elif isinstance(rec, GamesPlayed):
            a.credits += rec.won - rec.wagered
            self._compare(a, rec.credits, rec.seq)
        elif isinstance(rec, MachineLocked):
            a.lock_win, a.lock_seq = rec.win, rec.seq
        elif isinstance(rec, HopperPaid):
            a.credits -= rec.coins
            a.hopper -= rec.coins
            a.owed = rec.requested - rec.coins
        elif isinstance(rec, ShortPayCompleted):
            if rec.coins > 0:
                # the last of the owed coins (fewer if the meter could not cover them)
                paid = min(a.owed, rec.coins) if a.owed else rec.coins
                a.credits -= paid
                a.hopper -= paid
            a.owed = 0
        elif isinstance(rec, HopperFilled):
            if rec.reason != "new":
                a.hopper += rec.coins
        elif isinstance(rec, HandPaid):
            if rec.reason == "credit_payout":
                a.credits -= rec.credits
            else:
                a.paid_lock = (a.lock_win, a.lock_seq)
                a.lock_win, a.lock_seq = 0, None
        elif isinstance(rec, MoneyRemoved):
            if rec.container == "hopper":
                a.hopper -= rec.coins
        elif isinstance(rec, CashedOut):
            # everything on the meter was paid: it must now show zero
            a.session.append(rec.seq)
            a.closed = True
            self._compare(a, 0, rec.seq)
            if a.surplus:
                a.paid_out_surplus = min(a.surplus, rec.credits)
                a.surplus = 0
            return
        elif isinstance(rec, MetersRead):
            self._reading(a, rec)
        else:
            return
        a.session.append(rec.seq)
        del a.session[:-_EVIDENCE]

    @staticmethod
    def _compare(a: Account, shown: int, seq: int) -> None:
        """The machine shows ``shown`` credits: a surplus is kept, a loss is flagged; the
        book then follows the machine."""
        diff = shown - a.credits
        if diff > 0:
            if a.surplus == 0:
                a.surplus_seen = seq
            a.surplus += diff
        elif diff < 0:
            a.lost += -diff
            a.shown_by = seq
        a.credits = shown
