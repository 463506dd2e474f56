"""The cage's operator action: pay a drawer who takes back a gaming cheque (a drill's hook).

With ``[cage] operator = ["cheque_redemption"]`` a drawer's redemption of an unbanked gaming
cheque waits at the cashier's window (``cheque_redemption_requested``) until the operator
pays it with :class:`PayCheque`: the cash out, authorised by the person the operator names
(reg 41(b): a Chief Cashier other than the cashier paying), and the cheque marked redeemed
(38(2)(f)). A payment named badly (no authoriser, the cashier himself) is made as ordered and
found by the controls; a command the floor cannot carry out is refused with its reason.
"""

from __future__ import annotations

from twin.cage.model import Cage
from twin.commands import Command, command
from twin.department import Venue


@command("pay_cheque")
class PayCheque(Command):
    """Pay the cash for the waiting redemption of gaming cheque ``payment`` at ``cashier``'s
    window, authorised by ``authoriser`` (a staff member's id; "" for none)."""

    payment: str
    cashier: str
    authoriser: str

    def check(self, venue: Venue) -> str | None:
        cage = venue.find(Cage)
        if cage is None:
            return "this casino has no cage"
        return cage.redemption_refusal(self.payment, self.cashier, self.authoriser)

    def apply(self, venue: Venue) -> None:
        venue.need(Cage).pay_redemption(self.payment, self.cashier, self.authoriser)


__all__ = ["PayCheque"]
