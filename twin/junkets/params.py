"""The ruleset parameters the junket desk works to, each declared once (issue 26)."""

from __future__ import annotations

from twin.rules import Rule

LEADER_NOTICE_DAYS = Rule[int](
    "junket_leader_notice_days", "days", "how early a junket leader's particulars are given"
)
MAX_REPRESENTATIVES = Rule[int](
    "junket_max_representatives", "integer", "the most representatives of a junket leader"
)
NOTICE_HOURS = Rule[float](
    "junket_notice_hours", "hours", "how early a junket's arrival is notified"
)
SINGLE_MIN_DEPOSIT = Rule[int](
    "junket_single_min_deposit_cents", "money", "the least deposit of a junket of one person"
)
MEMBER_MIN_DEPOSIT = Rule[int](
    "junket_member_min_deposit_cents", "money", "the least deposit of each member of a junket"
)
HOME_COUNTRY = Rule[str](
    "junket_home_country", "text", "the country junket members must live outside"
)
