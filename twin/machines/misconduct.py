"""Misconduct: deliberate violations a machine can be armed with (violation injection).

A typed plan instead of string switches: ``SlotMachine.arm(Misconduct.X, amount)`` arms one,
and the machine consumes it the next time the activity it spoils happens
(``SlotMachine.take(Misconduct.X)``). Only ``twin.slots.injections`` arms anything.
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
    UNDOCUMENTED_PAYOUT = "undocumented_payout"  # next cash-out paid by hand, no record at all
    SHORT_PAY_WITHOUT_FILL = "short_pay_without_fill"  # next short pay settled by hand, no fill
    DROP_BY_OUTSIDER = "drop_by_outsider"  # next drop: emptied by someone not the licensee's
    TECHNICIAN_TAKES_COINS = "technician_takes_coins"  # next slot-door job: ``amount`` coins
    PLAY_THROUGH_TILT = "play_through_tilt"  # next tilt: play goes on until it is repaired
    UNRECORDED_PROMOTIONAL_PAYOUT = "unrecorded_promotional_payout"  # paid, never documented
    UNCONFIRMED_PROMOTIONAL_PAYOUT = "unconfirmed_promotional_payout"  # no inspector confirms
    SHORTENED_WIN = "shortened_win"  # a selected win is shown smaller (games won unchanged)
    HOPPER_EMPTIED_BY_OUTSIDER = "hopper_emptied_by_outsider"  # next removal: not the licensee's
    RETAG_ON_RETURN = "retag_on_return"  # next return to the floor: a new asset number
    REMOVAL_CONTENTS_UNSECURED = "removal_contents_unsecured"  # next removal: hopper left full
    REMOVAL_WITHOUT_INSPECTOR = "removal_without_inspector"  # next removal: no Board inspector


#: What each misconduct waits for: "the machine never <awaits> before the run ended" is the
#: reason an armed one is reported as never having taken effect (a test holds every member).
AWAITS: dict[Misconduct, str] = {
    Misconduct.HAND_PAY_WITHOUT_INSPECTOR: "made a hand pay",
    Misconduct.HAND_PAY_BY_OUTSIDER: "made a hand pay",
    Misconduct.UNPAID_HAND_PAY: "locked for a hand pay",
    Misconduct.FILL_WITHOUT_INSPECTOR: "had its hopper filled",
    Misconduct.FILL_MISCOUNTED: "had its hopper filled",
    Misconduct.SECONDARY_DECISION: "selected a winning outcome",
    Misconduct.UNDOCUMENTED_PAYOUT: "paid a cash-out",
    Misconduct.SHORT_PAY_WITHOUT_FILL: "short paid with its hopper empty",
    Misconduct.DROP_BY_OUTSIDER: "had its drop collected",
    Misconduct.TECHNICIAN_TAKES_COINS: "had its slot door checked",
    Misconduct.PLAY_THROUGH_TILT: "tilted",
    Misconduct.UNRECORDED_PROMOTIONAL_PAYOUT: "made a promotional payout",
    Misconduct.UNCONFIRMED_PROMOTIONAL_PAYOUT: "made a promotional payout",
    Misconduct.SHORTENED_WIN: "selected a win of two credits or more",
    Misconduct.HOPPER_EMPTIED_BY_OUTSIDER: "was taken out of operation",
    Misconduct.RETAG_ON_RETURN: "was placed back into operation",
    Misconduct.REMOVAL_CONTENTS_UNSECURED: "was taken out of operation",
    Misconduct.REMOVAL_WITHOUT_INSPECTOR: "was taken out of operation",
}

__all__ = ["AWAITS", "Misconduct"]
