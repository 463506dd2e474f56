"""Injected violations of the premium-player room (Singapore, issue 11), one per SG10 control.

Each takes over a player of the room (or a new patron, ``PPX001``...) at ``at_hours``: it
makes the lawful events that set the scene happen (an account opened, a withdrawal below
the minimum, a residency change...) and makes the cashier or the status desk do the one
wrong thing, so that exactly its control's finding follows. No ``target`` is needed: each
picks the first player (by id) whose account fits.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, timedelta

from dateutil.relativedelta import relativedelta

from twin.department import Site, Venue
from twin.errors import InputError
from twin.injections import InjectViolation, injection
from twin.premium.model import PremiumPlayer, PremiumRoom

K = 100_000  # S$1,000 in cents

#: the premium injections (they need a [premium] section)
KINDS: list[str] = []


def _room(venue: Venue) -> PremiumRoom:
    room = venue.find(PremiumRoom)
    assert room is not None  # checked before t = 0
    return room


def _register(kind: str, doc: str) -> Callable[[Callable[[PremiumRoom], None]], None]:
    def wrap(fn: Callable[[PremiumRoom], None]) -> None:
        def apply(venue: Venue, inj: InjectViolation) -> None:
            fn(_room(venue))

        KINDS.append(kind)
        injection(kind, doc, needs=())(apply)

    return wrap


def _newcomer(room: PremiumRoom, residency: str = "foreigner") -> tuple[PremiumPlayer, date]:
    p = room.newcomer(residency)
    day = room.today()
    room.open_account(p, day)
    return p, day


@_register(
    "premium_bank_draft_to_third_party",
    "a new patron's S$200,000 bank draft payable to a third-party company is taken as a "
    "deposit (SG10.R2A.1a)",
)
def _bank_draft(room: PremiumRoom) -> None:
    p, day = _newcomer(room)
    room.deposit(p, day, "bank_draft", 200 * K, payee="a third-party company")


@_register(
    "premium_chips_from_uncleared_cheque",
    "a new patron deposits S$150,000 cash and S$50,000 in chips bought against a cheque not "
    "yet cleared (SG10.R2A.1b)",
)
def _chips(room: PremiumRoom) -> None:
    p, day = _newcomer(room)
    room.deposit(p, day, "cash", 150 * K)
    room.deposit(p, day, "chips", 50 * K, provenance="uncleared_cheque")


@_register(
    "premium_casino_cheque_payable_to_another",
    "a new patron's S$200,000 casino cheque payable to someone else is accepted as their "
    "deposit (SG10.R2A.1c)",
)
def _casino_cheque(room: PremiumRoom) -> None:
    p, day = _newcomer(room)
    room.cheque(p, day, "casino_cheque", 200 * K, payee="another patron")


@_register(
    "premium_personal_cheque_counted_uncleared",
    "a new patron deposits S$150,000 cash and a S$50,000 personal cheque is credited to the "
    "account with no clearance (SG10.R2A.1d)",
)
def _personal_cheque(room: PremiumRoom) -> None:
    p, day = _newcomer(room)
    room.deposit(p, day, "cash", 150 * K)
    room.deposit(p, day, "personal_cheque", 50 * K)


@_register(
    "premium_credit_to_citizen",
    "a new patron who is a citizen of Singapore deposits S$150,000 cash and is given "
    "S$100,000 of the operator's credit into the account (SG10.R2A.1e)",
)
def _credit_to_citizen(room: PremiumRoom) -> None:
    p, day = _newcomer(room, "citizen")
    room.deposit(p, day, "cash", 150 * K)
    room.credit(p, day, "operator", 100 * K)


@_register(
    "premium_mixed_forms_refused",
    "a new foreign patron makes up S$100,000 of S$60,000 agent credit and S$40,000 cash, and "
    "the desk refuses the status (SG10.R2A.3)",
)
def _mixed(room: PremiumRoom) -> None:
    room.armed.append("mixed_forms_refused")
    p, day = _newcomer(room)
    room.credit(p, day, "ima", 60 * K)
    room.deposit(p, day, "cash", 40 * K)


@_register(
    "premium_requalified_after_long_dip",
    "a player whose status lapsed and whose balance has been below S$100,000 for more than "
    "12 months tops up, and the desk re-qualifies them under reg 4(2) (SG10.R2B)",
)
def _long_dip(room: PremiumRoom) -> None:
    today = room.today()
    limit = today - relativedelta(months=room.rules.max_below_months) - timedelta(days=1)

    def fits(p: PremiumPlayer) -> bool:
        assert p.stepper is not None
        dip = p.stepper.dip_start
        return not p.truth[0] and p.truth[1] == "reg 4(5)" and dip is not None and dip < limit

    p = room.pick(fits)
    if p is None:
        return
    room.armed.append("requalified_after_long_dip")
    room.deposit(p, today, "cash", room.rules.min_balance_cents + 50 * K)


@_register(
    "premium_qualified_below_minimum",
    "a new patron deposits S$99,999 and the desk grants the status (SG10.R3)",
)
def _below_minimum(room: PremiumRoom) -> None:
    room.armed.append("qualified_below_minimum")
    p, day = _newcomer(room)
    room.deposit(p, day, "cash", room.rules.min_balance_cents - 100)


@_register(
    "premium_downgraded_in_first_period",
    "a new patron deposits S$150,000 and draws S$100,000 the next day, and the desk ends "
    "the status inside the first 12 months (SG10.R4.1)",
)
def _first_period(room: PremiumRoom) -> None:
    room.armed.append("downgraded_in_first_period")
    p, day = _newcomer(room)
    room.deposit(p, day, "cash", 150 * K)
    room.later(1, lambda d: room.drawdown(p, d, 100 * K, "withdrawal"))


def _premium_until(room: PremiumRoom, days: int) -> Callable[[PremiumPlayer], bool]:
    horizon = room.today() + timedelta(days=days)

    def fits(p: PremiumPlayer) -> bool:
        return p.truth[0] and p.truth[2] is not None and p.truth[2] > horizon

    return fits


def _drain(room: PremiumRoom, p: PremiumPlayer, day: date) -> None:
    """Draw all but S$50,000 of the balance (a lawful withdrawal)."""
    if p.account is not None and p.balance > 50 * K:
        room.drawdown(p, day, p.balance - 50 * K, "withdrawal")


@_register(
    "premium_requalify_keeps_old_expiry",
    "a premium player draws down below S$100,000 and tops up the next day; the desk keeps "
    "the old period instead of a new one from the top-up (SG10.R4.2)",
)
def _keeps_expiry(room: PremiumRoom) -> None:
    p = room.pick(_premium_until(room, 30))
    if p is None:
        return
    room.armed.append("requalify_keeps_old_expiry")
    _drain(room, p, room.today())
    room.later(1, lambda d: room.deposit(p, d, "cash", 200 * K))


@_register(
    "premium_kept_after_residency_change",
    "a foreign premium player becomes a permanent resident with no new deposit, and the "
    "desk keeps the status (SG10.R4.3)",
)
def _residency(room: PremiumRoom) -> None:
    fits = _premium_until(room, 0)
    p = room.pick(lambda p: p.residency == "foreigner" and fits(p))
    if p is None:
        return
    room.armed.append("kept_after_residency_change")
    room.change_residency(p, room.today(), "pr")


def _before_anniversary(room: PremiumRoom, kind: str) -> None:
    """The premium player with the next anniversary draws down below the minimum on the
    period's last day; the desk then does ``kind`` on the anniversary."""
    today = room.today()
    soon = sorted(
        (p.truth[2], p.id)
        for p in room.players
        if not p.held and p.account and p.truth[0] and p.truth[2] and p.truth[2] > today
    )
    if not soon:
        return
    p = next(q for q in room.players if q.id == soon[0][1])
    p.held = True
    room.armed.append(kind)
    last = soon[0][0]
    assert last is not None
    room.later((last - today).days, lambda d: _drain(room, p, d))


@_register(
    "premium_renewed_below_minimum",
    "the premium player with the next anniversary draws below S$100,000 on the period's last "
    "day, and the desk renews the status anyway (SG10.R4.4)",
)
def _renewed(room: PremiumRoom) -> None:
    _before_anniversary(room, "renewed_below_minimum")


@_register(
    "premium_kept_after_lapse",
    "the premium player with the next anniversary draws below S$100,000 on the period's last "
    "day, and the desk lets the status run on, neither renewed nor ended (SG10.R4.5)",
)
def _kept_after_lapse(room: PremiumRoom) -> None:
    _before_anniversary(room, "kept_after_lapse")


@_register(
    "premium_kept_after_closure",
    "a premium player closes the account, and the desk keeps the status (SG10.R4.6)",
)
def _closure(room: PremiumRoom) -> None:
    p = room.pick(_premium_until(room, 0))
    if p is None:
        return
    room.armed.append("kept_after_closure")
    room.close_account(p, room.today())


__all__ = ["KINDS"]


def validate(site: Site) -> None:
    """A premium injection needs a ``[premium]`` section (before t = 0)."""
    for i, inj in enumerate(site.scenario.inject):
        if inj.kind in KINDS and site.find(PremiumRoom) is None:
            raise InputError(site.source, f"inject[{i}].kind", "a [premium] section", inj.kind)
