"""The ruleset parameters machines' lives are run to, each declared once (issue 26): the
operation obeys them (the Board's decision times, the reserve share, whether a replacement
waits for the Board, how often seals are checked) and the controls read the same ones."""

from __future__ import annotations

from twin.rules import Rule

#: reg 31(1), first proviso: reserve machines, as a share of the licensed number
RESERVE_MAX_FRACTION = Rule[float](
    "reserve_max_fraction", "fraction", "the most reserve machines kept outside the floor"
)
#: how long the Board takes to decide a request (a registration, an approval), in hours
BOARD_DECISION_HOURS = Rule[float](
    "board_decision_hours", "hours", "how long the Board takes to decide a request", default=48
)
#: reg 31(1), second proviso: whether a reserve machine may replace a floor machine only
#: with the Board's prior written approval (a proposal may drop it)
REPLACEMENT_NEEDS_APPROVAL = Rule[bool](
    "replacement_needs_prior_approval",
    "bool",
    "whether a replacement from reserve waits for the Board's written approval",
    default=True,
)
#: item 11(c): "immediately" as working days (Malta's), the day of the conversion excluded
CONVERSION_LODGE_DAYS = Rule[int](
    "conversion_lodge_business_days",
    "days",
    "working days to lodge a conversion record with the Secretary",
    default=1,
)
#: item 19: how often every machine's EPROM seal is checked against the register (0: only
#: when an EPROM is received, sealed or removed)
SEAL_CHECK_DAYS = Rule[int](
    "eprom_seal_check_days", "days", "days between checks of every machine's EPROM seal",
    default=0,
)  # fmt: skip
#: item 14(b): the longest a fault found on a machine in play may stay unrepaired
FAULT_REPAIR_MAX_DAYS = Rule[int](
    "fault_repair_max_days", "days", "days a fault found on a machine may stay unrepaired",
    default=7,
)  # fmt: skip
#: item 18: the working days the licensee has to submit the manual once the Secretary asks
MANUAL_SUBMIT_DAYS = Rule[int](
    "icpm_submit_business_days", "days", "working days to submit the manual on request",
    default=2,
)  # fmt: skip
#: reg 34: the Secretary's "immediately" for a refusal's or deletion's written notice
NOTICE_DAYS = Rule[int](
    "board_notice_business_days", "days",
    "working days for the Secretary's written notice of a refusal or a deletion", default=1,
)  # fmt: skip
