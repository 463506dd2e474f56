"""The exact ledger of one deposit account, by form of deposit (reg 2A; accounts.md C4b-C4e).

Money is integer cents. The balance is a list of lots, one per deposit (or cleared or
accepted cheque), each remembering its form, the day it began to count and whether reg 2A
allowed that form for the patron when it was made. A drawdown takes credit-funded lots first
(``credit_operator``, ``credit_ima``, oldest first), then the other lots in the order they
were deposited (C4e). So the ledger can always say how much of the balance qualifies for the
patron on a given day: the lots whose form reg 2A allows for the patron's residency that day
and that were allowed when they were made (C4b).

A personal cheque is held outside the balance until an authorised bank clears it (reg
2A(1)(d), C4c); a casino cheque counts from the day the operator accepts it (2A(1)(c)), and a
traveller's cheque from the day it is received (2A(1)(b)).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from twin.accounts.forms import CREDIT_FORMS, form_allowed

__all__ = ["Ledger", "LedgerError", "Lot"]


class LedgerError(ValueError):
    """An event the account cannot take (a drawdown above the balance, an unknown cheque)."""


@dataclass(slots=True)
class Lot:
    """Money of one form that counts from ``since``; ``remaining`` falls as it is drawn."""

    seq: int
    form: str
    amount: int
    remaining: int
    since: date
    allowed: bool  # reg 2A allowed the form for the patron when the money came in
    ref: str | None = None

    @property
    def credit(self) -> bool:
        return self.form in CREDIT_FORMS


@dataclass(frozen=True, slots=True)
class _Pending:
    kind: str
    amount: int
    received: date
    allowed: bool


class Ledger:
    """The balance of one open deposit account, by lot. Every change goes through a method
    that keeps the balance non-negative and the lots in deposit order."""

    __slots__ = ("_counted", "_lots", "_pending", "_refs", "_seq")

    def __init__(self) -> None:
        self._lots: list[Lot] = []
        self._pending: dict[str, _Pending] = {}
        self._counted: dict[str, Lot] = {}  # cheques counted on receipt, by ref
        self._refs: set[str] = set()
        self._seq = 0

    # --- reading ---------------------------------------------------------------------------

    def balance(self) -> int:
        """Every cent on the account (whatever its form)."""
        return sum(lot.remaining for lot in self._lots)

    def qualifying(self, residency: str) -> int:
        """The part of the balance that counts towards a balance test on a day the patron has
        this residency: lots allowed when made and whose form reg 2A allows today (C4b)."""
        return sum(
            lot.remaining for lot in self._lots if lot.allowed and form_allowed(lot.form, residency)
        )

    def by_form(self) -> dict[str, int]:
        """The balance by form (forms with money only)."""
        out: dict[str, int] = {}
        for lot in self._lots:
            if lot.remaining:
                out[lot.form] = out.get(lot.form, 0) + lot.remaining
        return out

    def pending(self) -> list[str]:
        """Refs of cheques received and not yet cleared or dishonoured."""
        return sorted([*self._pending, *self._counted])

    # --- changing --------------------------------------------------------------------------

    def _add(self, form: str, amount: int, day: date, allowed: bool, ref: str | None) -> Lot:
        self._seq += 1
        lot = Lot(self._seq, form, amount, amount, day, allowed, ref)
        self._lots.append(lot)
        return lot

    def deposit(self, form: str, amount: int, day: date, *, allowed: bool) -> Lot:
        """Money in ``form`` counts from ``day``."""
        if amount <= 0:
            raise LedgerError("a deposit must be a positive amount")
        return self._add(form, amount, day, allowed, None)

    def receive_cheque(
        self, ref: str, kind: str, amount: int, day: date, *, allowed: bool
    ) -> Lot | None:
        """A cheque handed over: a personal cheque waits for clearance (None is returned); a
        casino cheque (accepted) or a traveller's cheque counts from ``day`` (its lot)."""
        if ref in self._refs:
            raise LedgerError(f"cheque {ref} was received before")
        self._refs.add(ref)
        if kind == "personal_cheque":
            self._pending[ref] = _Pending(kind, amount, day, allowed)
            return None
        lot = self._add(kind, amount, day, allowed, ref)
        self._counted[ref] = lot
        return lot

    def clear_cheque(self, ref: str, day: date) -> tuple[int, bool]:
        """An authorised bank cleared cheque ``ref``: (amount now counted, whether it was
        waiting). A cheque that counted on receipt is only marked cleared (0, False)."""
        if ref in self._pending:
            p = self._pending.pop(ref)
            self._add(p.kind, p.amount, day, p.allowed, ref)
            return p.amount, True
        if ref in self._counted:
            del self._counted[ref]
            return 0, False
        raise LedgerError(self._unknown(ref))

    def dishonour_cheque(self, ref: str) -> tuple[int, int]:
        """Cheque ``ref`` was dishonoured: (its amount, the amount taken off the balance). A
        waiting personal cheque never counted; a cheque counted on receipt loses what of it
        is still on the account (what was drawn already is a debt the twin does not model).
        """
        if ref in self._pending:
            return self._pending.pop(ref).amount, 0
        if ref in self._counted:
            lot = self._counted.pop(ref)
            taken, lot.remaining = lot.remaining, 0
            return lot.amount, taken
        raise LedgerError(self._unknown(ref))

    def _unknown(self, ref: str) -> str:
        waiting = ", ".join(self.pending()) or "none"
        return (
            "the ref of a cheque received into the open account and not yet cleared or "
            f"dishonoured (open refs: {waiting})"
        )

    def drawdown(self, amount: int) -> list[tuple[str, int]]:
        """Take ``amount`` off: credit lots first, then the rest in deposit order (C4e).
        Returns (form, cents) taken, in the order taken."""
        if amount <= 0:
            raise LedgerError("a drawdown must be a positive amount")
        have = self.balance()
        if amount > have:
            raise LedgerError(f"at most the balance of the account ({have} cents)")
        order = sorted(self._lots, key=lambda lot: (not lot.credit, lot.seq))
        taken: list[tuple[str, int]] = []
        left = amount
        for lot in order:
            if not left:
                break
            part = min(left, lot.remaining)
            if part:
                lot.remaining -= part
                left -= part
                taken.append((lot.form, part))
        self._lots = [lot for lot in self._lots if lot.remaining]
        return taken

    def close(self) -> tuple[int, list[str]]:
        """The account closes: (balance paid out, refs of cheques returned uncleared)."""
        paid = self.balance()
        returned = sorted(self._pending)
        self._lots.clear()
        self._pending.clear()
        self._counted.clear()
        return paid, returned
