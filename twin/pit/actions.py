"""The pit's operator actions: a table's fill or credit, and its entry on the table card (a
drill's hook).

With ``[tables] operator = ["fill", "credit"]`` (either or both) a tray that runs low (or
holds too many chips) asks for a fill (credit) (``table_fill_requested``) and waits for the
operator: :class:`FillTable` moves the chips between the cage and the table with their slip
(a ``table_fill`` record), and :class:`SignTableCard` has the dealer enter them on the table
card. A fill left off the card is found at the table's count (reg 41(a)); a command about no
fill asked for is refused with its reason.
"""

from __future__ import annotations

from twin.commands import Command, command
from twin.department import Venue
from twin.pit.pit import Pit


@command("fill_table")
class FillTable(Command):
    """Bring ``amount_cents`` of chips from the cage to ``table`` (``credit``: from the
    table back to the cage), as its dealer asked."""

    table: str
    amount_cents: int
    credit: bool

    def check(self, venue: Venue) -> str | None:
        pit = venue.find(Pit)
        if pit is None:
            return "this casino has no tables"
        return pit.fill_refusal(self.table, self.amount_cents, self.credit)

    def apply(self, venue: Venue) -> None:
        venue.need(Pit).operator_fill(self.table, self.amount_cents, self.credit)


@command("sign_table_card")
class SignTableCard(Command):
    """The dealer of ``table`` enters the fills and credits made on its table card."""

    table: str

    def check(self, venue: Venue) -> str | None:
        pit = venue.find(Pit)
        if pit is None:
            return "this casino has no tables"
        return pit.card_refusal(self.table)

    def apply(self, venue: Venue) -> None:
        venue.need(Pit).enter_on_card(self.table)


__all__ = ["FillTable", "SignTableCard"]
