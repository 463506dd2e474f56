"""The ruleset parameters the slot floor works to, each declared once (issue 26)."""

from __future__ import annotations

from twin.rules import Rule

#: the operator installs on each bank the approved pay table of least return meeting this
MIN_RTP = Rule[float]("min_rtp", "fraction", "the least designed return of a machine")
#: how often Board inspectors challenge every machine's program; absent: only unscheduled
PROGRAM_VERIFICATION_HOURS = Rule[float](
    "program_verification_hours",
    "hours",
    "how often the Board verifies every machine's program",
    default=0,
)
#: a proposal's rule only (not the 1998 text): absent or 0, one inspector confirms any hand pay
HAND_PAY_SECOND_INSPECTOR_ABOVE = Rule[int](
    "hand_pay_second_inspector_above_cents",
    "money",
    "the amount above which a hand pay needs a second Board inspector",
    default=0,
)
