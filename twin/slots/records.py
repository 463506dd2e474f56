"""The slot floor's own record kinds (the machines' are in ``twin.machines.events``): the
promotions it runs."""

from __future__ import annotations

from twin.records import Record, record


@record("promotion_awarded", roles=("machine", "patron"))
class PromotionAwarded(Record):
    """The promotion system awarded a supplemental prize to the patron at the machine."""

    machine: str
    patron: str
    promotion: str
    amount_cents: int


@record("promotional_payout", roles=("machine", "patron", "attendant", "inspector"))
class PromotionalPayout(Record):
    """The documentation of a promotional payout (item 16 (i)-(v)); ``t`` is its time."""

    machine: str
    denomination_cents: int
    patron: str
    award: str  # (iii) description of the award
    promotion: str  # (iv) type of promotion
    amount_cents: int
    attendant: str
    inspector: str  # (v) the Board inspector who confirmed the payout is due
    awarded_t: float


__all__ = ["PromotionAwarded", "PromotionalPayout"]
