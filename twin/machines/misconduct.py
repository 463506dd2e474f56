"""Misconduct: deliberate violations a machine can be armed with (violation injection).

A typed plan instead of string switches: ``SlotMachine.arm(Misconduct.X, amount)`` arms one,
and the machine consumes it the next time the activity it spoils happens
(``SlotMachine.take(Misconduct.X)``). Only ``twin.inject`` arms anything.
"""

from __future__ import annotations

from enum import Enum


class Misconduct(Enum):
    """What goes wrong, and the activity it spoils (consumed once)."""

    HAND_PAY_WITHOUT_INSPECTOR = "hand_pay_without_inspector"  # next hand pay: no inspector
    HAND_PAY_BY_OUTSIDER = "hand_pay_by_outsider"  # next hand pay: not the licensee's employee
    UNPAID_HAND_PAY = "unpaid_hand_pay"  # next hand pay never made: the machine stays locked
    FILL_WITHOUT_INSPECTOR = "fill_without_inspector"  # next fill: no inspector present
    FILL_MISCOUNTED = "fill_miscounted"  # next fill's certified coins differ by ``amount``
    SECONDARY_DECISION = "secondary_decision"  # a selected win is shown as a loss
    UNDOCUMENTED_PAYOUT = "undocumented_payout"  # next cash-out leaves no record
    SHORT_PAY_WITHOUT_FILL = "short_pay_without_fill"  # next short pay settled by hand, no fill
    SHORTENED_WIN = "shortened_win"  # a selected win is shown smaller (games won unchanged)


__all__ = ["Misconduct"]
