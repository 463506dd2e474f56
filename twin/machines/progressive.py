"""Progressive links: machines share a prize counter fed by a percentage of each bet.

The counter is kept exactly in integers: contributions accumulate in units of 1/10,000 of a
cent (cents × basis points), so no fraction of a cent is ever lost or invented.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class ProgressiveLink:
    id: str
    reset_cents: int
    increment_bp: int
    _accrued: int = 0  # in cents × 1e-4 above the reset value
    hits: int = 0

    def contribute(self, wagered_cents: int) -> None:
        self._accrued += wagered_cents * self.increment_bp

    @property
    def prize_cents(self) -> int:
        return self.reset_cents + self._accrued // 10_000

    def hit(self, denomination_cents: int) -> tuple[int, int]:
        """Pay the prize in whole credits; returns (credits, cents paid) and resets.

        The part of the prize below one credit stays on the counter above the reset value.
        """
        prize = self.prize_cents
        credits = prize // denomination_cents
        paid = credits * denomination_cents
        self._accrued = (prize - paid) * 10_000 + self._accrued % 10_000
        self.hits += 1
        return credits, paid
