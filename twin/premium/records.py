"""Records of the premium-player room and its deposit accounts (Singapore, issue 11).

Every event of a deposit account carries ``day``, its calendar date (ISO ``YYYY-MM-DD``, in
the scenario's time zone): an account's history from before the run starts is recorded at
t = 0 with the dates it happened on. Entities by role: ``player`` (a premium player, or a
patron who may become one), ``account`` (a deposit account), ``table`` (a table of the
premium room), ``agent`` (an international market agent). Money is integer cents (S$).

The operator's decisions on status are records of their own (``premium_status_decided``):
the checkers replay each player's account records through ``twin.accounts`` and compare.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from twin.accounts.forms import Form
from twin.accounts.timeline import AccountEvent
from twin.records import Record, record

#: who a cashier's order, bank draft or electronic transfer of a deposit is payable to when
#: it is payable to the casino operator (reg 2A(1)(a))
OPERATOR = "operator"


@record("premium_player_registered", roles=("player",))
class PremiumPlayerRegistered(Record):
    """A patron known to the premium room, with the residency they had on ``day`` (the
    first day of their history): ``foreigner``, ``citizen`` or ``pr``."""

    player: str
    residency: str
    day: str


@record("deposit_account_opened", roles=("player", "account"))
class DepositAccountOpened(Record):
    player: str
    account: str
    day: str


@record("deposit_account_closed", roles=("player", "account"))
class DepositAccountClosed(Record):
    """The account closes at the player's request (reg 4(6)); its balance is paid out and
    cheques still waiting for clearance are returned."""

    player: str
    account: str
    day: str
    paid_out_cents: int


@record("premium_deposit_made", roles=("player", "account"))
class DepositMade(Record):
    """Money received into the account in ``form`` (reg 2A(1)(a)-(b): cash, cashiers_order,
    bank_draft, eft, chips, travellers_cheque). ``payee``: whom a cashier's order, bank
    draft or transfer is payable to (``operator`` when to the casino operator; "" for cash,
    chips and traveller's cheques). ``provenance``: for chips, how the player came by them
    (``gaming``: chips bought at the room's cage or won at its tables; ``uncleared_cheque``:
    bought through a cheque-cashing facility against a cheque not yet cleared)."""

    player: str
    account: str
    day: str
    form: str
    amount_cents: int
    payee: str
    provenance: str


@record("premium_cheque_received", roles=("player", "account"))
class ChequeReceived(Record):
    """A cheque handed over for the account: a personal cheque payable to the operator
    (counts once cleared, 2A(1)(d)) or a casino cheque payable to the player and accepted
    by the operator (counts from today, 2A(1)(c)). ``issuer``: the player's bank, or the
    casino that issued a casino cheque; ``payee``: whom the cheque is payable to."""

    player: str
    account: str
    day: str
    ref: str
    cheque_kind: str
    amount_cents: int
    issuer: str
    payee: str


@record("premium_cheque_cleared", roles=("player", "account"))
class ChequeCleared(Record):
    """An authorised bank received and cleared cheque ``ref`` (2A(1)(d))."""

    player: str
    account: str
    day: str
    ref: str
    bank: str


@record("premium_cheque_dishonoured", roles=("player", "account"))
class ChequeDishonoured(Record):
    player: str
    account: str
    day: str
    ref: str


@record("premium_credit_extended", roles=("player", "account", "agent"))
class CreditExtended(Record):
    """Credit granted to the player and credited to the deposit account as (part of) the
    deposit (reg 2A(1)(e)): by the casino operator (``lender`` = ``operator``, form
    ``credit_operator``) or by a licensed international market agent (``lender`` = ``ima``,
    form ``credit_ima``, ``agent`` naming it)."""

    player: str
    account: str
    day: str
    lender: str
    agent: str
    amount_cents: int


@record("premium_credit_repaid", roles=("player", "account"))
class CreditRepaid(Record):
    """The player repays credit to its lender from outside the account."""

    player: str
    account: str
    day: str
    lender: str
    amount_cents: int


@record("premium_drawdown", roles=("player", "account"))
class Drawdown(Record):
    """Money taken off the account: ``purpose`` ``chips`` (to play in the room) or
    ``withdrawal`` (paid out to the player)."""

    player: str
    account: str
    day: str
    amount_cents: int
    purpose: str


@record("premium_residency_changed", roles=("player",))
class ResidencyChanged(Record):
    player: str
    day: str
    from_residency: str
    to_residency: str


@record("premium_status_decided", roles=("player", "account"))
class PremiumStatusDecided(Record):
    """The operator's decision on the player's status at the end of ``day`` (C2):
    ``granted`` (a period starts: basis ``reg 3 + 4(1)``, ``reg 4(2)`` or ``reg 4(3)``),
    ``renewed`` (``reg 4(4)``) or ``ended`` (``reg 4(3)``, ``reg 4(5)`` or ``reg 4(6)``).
    ``period_start``/``period_last_day``: the period granted ("" when ended)."""

    player: str
    account: str
    day: str
    decision: str
    basis: str
    period_start: str
    period_last_day: str


@record("premium_played", roles=("player", "account", "table"))
class PremiumPlayed(Record):
    """A session at a table of the premium room, a privilege of premium players (reg
    4(5)): ``rounds`` of ``game`` at ``stake_cents`` a round; ``net_cents`` is the player's
    result (negative: the house won)."""

    player: str
    account: str
    table: str
    game: str
    day: str
    rounds: int
    staked_cents: int
    net_cents: int


@record("premium_day_closed")
class PremiumDayClosed(Record):
    """The operator has decided every player's status at the end of ``day``."""

    day: str
    accounts_open: int
    premium_players: int


#: the record kinds of a deposit account's events (what ``account_event`` reads)
ACCOUNT_KINDS = (
    "deposit_account_opened",
    "deposit_account_closed",
    "premium_deposit_made",
    "premium_cheque_received",
    "premium_cheque_cleared",
    "premium_cheque_dishonoured",
    "premium_credit_extended",
    "premium_drawdown",
    "premium_residency_changed",
)


def account_event(rec: Record, index: int) -> AccountEvent | None:
    """The event of a player's timeline (``twin.accounts``) a record states, numbered
    ``index`` in the player's timeline; None for a record that is not one."""
    day = date.fromisoformat(getattr(rec, "day", "1970-01-01"))
    if isinstance(rec, DepositAccountOpened):
        return AccountEvent(index, day, "open_account")
    if isinstance(rec, DepositAccountClosed):
        return AccountEvent(index, day, "close_account")
    if isinstance(rec, DepositMade):
        return AccountEvent(index, day, "deposit", form=rec.form, amount_cents=rec.amount_cents)  # type: ignore[arg-type]
    if isinstance(rec, CreditExtended):
        credit: Form = "credit_operator" if rec.lender == OPERATOR else "credit_ima"
        return AccountEvent(index, day, "deposit", form=credit, amount_cents=rec.amount_cents)
    if isinstance(rec, ChequeReceived):
        return AccountEvent(
            index, day, "cheque_received", ref=rec.ref, kind=rec.cheque_kind,  # type: ignore[arg-type]
            amount_cents=rec.amount_cents,
        )  # fmt: skip
    if isinstance(rec, ChequeCleared):
        return AccountEvent(index, day, "cheque_cleared", ref=rec.ref)
    if isinstance(rec, ChequeDishonoured):
        return AccountEvent(index, day, "cheque_dishonoured", ref=rec.ref)
    if isinstance(rec, Drawdown):
        return AccountEvent(index, day, "drawdown", amount_cents=rec.amount_cents)
    if isinstance(rec, ResidencyChanged):
        return AccountEvent(index, day, "residency_change", to=rec.to_residency)  # type: ignore[arg-type]
    return None


class PremiumKpis:
    """KPI section ``premium``: the room and its deposit accounts, from records alone.
    Flows (deposits, credit, drawdowns, play) count the run's days (t > 0), not the history
    recorded at t = 0; the accounts and statuses are as at the end."""

    name = "premium"
    reads: tuple[type[Record], ...] = (
        DepositAccountOpened, DepositAccountClosed, DepositMade, ChequeReceived, ChequeCleared,
        CreditExtended, CreditRepaid, Drawdown, PremiumStatusDecided, PremiumPlayed,
        PremiumPlayerRegistered,
    )  # fmt: skip

    def __init__(self) -> None:
        self.players: set[str] = set()
        self.open: set[str] = set()
        self.opened = self.closed = 0
        self.status: dict[str, str] = {}
        self.deposits: dict[str, int] = {}
        self.pending: dict[str, tuple[str, int]] = {}
        self.credit = {"extended_cents": 0, "repaid_cents": 0}
        self.outstanding = 0
        self.drawdowns = {"count": 0, "chips_cents": 0, "withdrawal_cents": 0}
        self.sessions = self.rounds = self.turnover = self.win = 0
        self.decisions: dict[str, int] = {}

    def _add(self, rec: Record, form: str, cents: int) -> None:
        if rec.t > 0:
            self.deposits[form] = self.deposits.get(form, 0) + cents

    def accept(self, rec: Record) -> None:
        if isinstance(rec, PremiumPlayerRegistered):
            self.players.add(rec.player)
        elif isinstance(rec, DepositAccountOpened):
            self.open.add(rec.account)
            self.opened += rec.t > 0
        elif isinstance(rec, DepositAccountClosed):
            self.open.discard(rec.account)
            self.closed += rec.t > 0
        elif isinstance(rec, DepositMade):
            self._add(rec, rec.form, rec.amount_cents)
        elif isinstance(rec, ChequeReceived):
            if rec.cheque_kind == "personal_cheque":
                self.pending[rec.ref] = (rec.cheque_kind, rec.amount_cents)
            else:
                self._add(rec, rec.cheque_kind, rec.amount_cents)
        elif isinstance(rec, ChequeCleared):
            if rec.ref in self.pending:
                kind, cents = self.pending.pop(rec.ref)
                self._add(rec, kind, cents)
        elif isinstance(rec, CreditExtended):
            self.outstanding += rec.amount_cents
            if rec.t > 0:
                self.credit["extended_cents"] += rec.amount_cents
                self._add(rec, "credit_operator" if rec.lender == OPERATOR else "credit_ima",
                          rec.amount_cents)  # fmt: skip
        elif isinstance(rec, CreditRepaid):
            self.outstanding -= rec.amount_cents
            if rec.t > 0:
                self.credit["repaid_cents"] += rec.amount_cents
        elif isinstance(rec, Drawdown):
            if rec.t > 0:
                self.drawdowns["count"] += 1
                self.drawdowns[f"{rec.purpose}_cents"] += rec.amount_cents
        elif isinstance(rec, PremiumStatusDecided):
            self.status[rec.player] = "premium" if rec.decision != "ended" else "ended"
            if rec.t > 0:
                key = f"{rec.decision} {rec.basis}"
                self.decisions[key] = self.decisions.get(key, 0) + 1
        elif isinstance(rec, PremiumPlayed):
            self.sessions += 1
            self.rounds += rec.rounds
            self.turnover += rec.staked_cents
            self.win -= rec.net_cents

    def report(self, end: float) -> dict[str, Any]:
        by_status = {"premium": 0, "ended": 0, "never": 0}
        for p in self.players:
            by_status[self.status.get(p, "never")] += 1
        return {
            "players": len(self.players),
            "players_by_status": by_status,
            "accounts": {"open": len(self.open), "opened": self.opened, "closed": self.closed},
            "deposits_cents_by_form": dict(sorted(self.deposits.items())),
            "credit": {**self.credit, "outstanding_cents": self.outstanding},
            "drawdowns": dict(self.drawdowns),
            "status_decisions": dict(sorted(self.decisions.items())),
            "room": {
                "sessions": self.sessions,
                "rounds": self.rounds,
                "turnover_cents": self.turnover,
                "win_cents": self.win,
                "hold": round(self.win / self.turnover, 6) if self.turnover else 0.0,
            },
        }


__all__ = [
    "ACCOUNT_KINDS",
    "OPERATOR",
    "ChequeCleared",
    "ChequeDishonoured",
    "ChequeReceived",
    "CreditExtended",
    "CreditRepaid",
    "DepositAccountClosed",
    "DepositAccountOpened",
    "DepositMade",
    "Drawdown",
    "PremiumDayClosed",
    "PremiumKpis",
    "PremiumPlayed",
    "PremiumPlayerRegistered",
    "PremiumStatusDecided",
    "ResidencyChanged",
    "account_event",
]
