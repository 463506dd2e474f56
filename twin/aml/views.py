"""What the AML desk sees of other parts of the casino that it does not know by itself: the
junket desk's deposits, play and redemptions (a view per department it uses when present)."""

from __future__ import annotations

import zlib

from twin.aml.cases import Particulars, Seen
from twin.junkets.records import (
    JunketChipsRedeemed,
    JunketDepositLodged,
    JunketMemberArrived,
    JunketTablePlayed,
    JunketTokensBought,
)
from twin.records import Record


def junket_view(rec: Record) -> Seen | None:
    """What the licensee's AML staff see at the junket desk (``twin.aml.model.AmlDesk``
    views): a member's stay is one window, begun at arrival with the passport shown; the
    front money lodged (and cash paid for tokens) is cash for chips; rolling-chip play is
    play; the chips redeemed at settlement are a cash-out. The same passport on a later
    junket is the same person."""
    if isinstance(rec, JunketMemberArrived):
        born = 1950 + zlib.crc32(rec.id_number.encode()) % 46  # the document's, synthetic
        who = Particulars(
            document_type="passport", document_number=rec.id_number, name=rec.name,
            date_of_birth=str(born), nationality=rec.nationality, address=rec.address,
        )  # fmt: skip
        return Seen("arrived", rec.member, particulars=who, person=f"passport {rec.id_number}",
                    label=f"junket stay ({rec.junket})")  # fmt: skip
    if isinstance(rec, JunketDepositLodged):
        return Seen("in", rec.member, cents=rec.amount_cents)
    if isinstance(rec, JunketTokensBought) and rec.paid_with == "cash":
        return Seen("in", rec.member, cents=rec.amount_cents)
    if isinstance(rec, JunketTablePlayed):
        return Seen("play", rec.player, wagered=rec.staked_cents, won=rec.net_cents)
    if isinstance(rec, JunketChipsRedeemed) and rec.chips_cents > 0:
        return Seen("out", rec.member, cents=rec.chips_cents)
    return None


#: the record kinds ``junket_view`` reads (it sees nothing in any other)
JUNKET_VIEW_KINDS = frozenset(
    cls.kind
    for cls in (
        JunketMemberArrived,
        JunketDepositLodged,
        JunketTokensBought,
        JunketTablePlayed,
        JunketChipsRedeemed,
    )
)

__all__ = ["JUNKET_VIEW_KINDS", "junket_view"]
