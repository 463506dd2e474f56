"""The cage's operator action: pay cash out against a patron's gaming cheque (a drill's hook).

With ``[cage] operator = ["cheque_payout"]`` a patron who hands over a gaming cheque for cash
waits at the cashier's window (``cheque_payout_requested``) until the operator pays it with
:class:`PayCheque`: the cheque recorded with the particulars of reg 38(2) and the cash paid
out, authorised by the person the operator names (reg 41(b): a Chief Cashier other than the
cashier paying). A payment named badly (no authoriser, the cashier himself) is made as
ordered and found by the controls; a command the floor cannot carry out is refused with its
reason.
"""

from __future__ import annotations

from twin.cage.model import Cage
from twin.commands import Command, command
from twin.department import Venue


@command("pay_cheque")
class PayCheque(Command):
    """Pay ``patron``, waiting at ``cashier``'s window, the cash for their gaming cheque,
    authorised by ``authoriser`` (a staff member's id; "" for none)."""

    patron: str
    cashier: str
    authoriser: str

    def check(self, venue: Venue) -> str | None:
        cage = venue.find(Cage)
        if cage is None:
            return "this casino has no cage"
        return cage.payout_refusal(self.patron, self.cashier, self.authoriser)

    def apply(self, venue: Venue) -> None:
        venue.need(Cage).pay_payout(self.patron, self.cashier, self.authoriser)


__all__ = ["PayCheque"]
