"""Promotional payouts (First Schedule item 16) on machines flagged promotional.

A promotional payout is "a supplemental payout that is not reflected in the machine pay
table": a prize the casino's promotion adds (double jackpots, a four-of-a-kind bonus...).
While a patron plays a promotional machine of a bank that runs a promotion
(``[[promotions]]``), the promotion awards its prize at random moments
(``PromotionAwarded``, what the promotion system logs). An attendant then pays it by hand and
a Board inspector on duty confirms that it is due; the documentation
(``PromotionalPayout``) carries item 16's particulars: date and time (the record's time),
machine number and denomination, description of the award, type of promotion, and the
inspector's confirmation. The cash is the promotion's, not the machine's: no meter moves.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING, Any

import simpy

from twin.jobs import HAND_PAY, JOB_ROLES, JobSpec
from twin.machines.misconduct import Misconduct
from twin.slots.records import PromotionalPayout, PromotionAwarded
from twin.world import quantize

if TYPE_CHECKING:
    from twin.machines.machine import SlotMachine
    from twin.slots.section import Promotion
    from twin.world import World


class PromotionDesk:
    """Runs each promotion on the promotional machines of its bank."""

    def __init__(self, world: World) -> None:
        self.world = world

    def run_promotion(self, m: SlotMachine, promo: Promotion) -> Generator[Any, Any, None]:
        """At random moments (mean ``mean_hours``), award the patron playing ``m``, if any."""
        env = self.world.env
        rng = self.world.streams.stream(m.id, f"promotion:{promo.id}")
        while True:
            yield env.timeout(quantize(rng.exponential(promo.mean_hours * 3600.0)))
            patron = m.patron
            if patron is None:
                continue
            self.world.bus.emit(
                PromotionAwarded,
                machine=m.id,
                patron=patron,
                promotion=promo.type,
                amount_cents=promo.award_cents,
            )
            env.process(self.pay_promotion(m, patron, promo))

    def pay_promotion(
        self, m: SlotMachine, patron: str, promo: Promotion
    ) -> Generator[simpy.events.Event, Any, None]:
        """An attendant pays the award by hand; a Board inspector confirms it is due."""
        env = self.world.env
        awarded = env.now
        unconfirmed = m.take(Misconduct.UNCONFIRMED_PROMOTIONAL_PAYOUT)
        roles = tuple(r for r in JOB_ROLES[HAND_PAY] if not (unconfirmed and r == "inspector"))
        job = m.crew.service.request(JobSpec(HAND_PAY, m.id, roles))
        got: dict[str, str] = yield job.assigned
        rng = self.world.streams.stream(m.id, f"promotion:{promo.id}:service")
        timing = m.crew.timing
        minutes = max(0.0, timing.walk.sample(rng)) + max(0.0, timing.hand_pay.sample(rng))
        yield env.timeout(quantize(minutes * 60.0))
        if not m.take(Misconduct.UNRECORDED_PROMOTIONAL_PAYOUT):
            self.world.bus.emit(
                PromotionalPayout,
                machine=m.id,
                denomination_cents=m.spec.denomination_cents,
                patron=patron,
                award=promo.award,
                promotion=promo.type,
                amount_cents=promo.award_cents,
                attendant=got["attendant"],
                inspector=got.get("inspector", ""),
                awarded_t=awarded,
            )
        m.crew.service.complete(job)


__all__ = ["PromotionAwarded", "PromotionDesk", "PromotionalPayout"]
