"""The ruleset parameters the AML desk works to, each declared once (issue 26)."""

from __future__ import annotations

from twin.rules import Rule

ID_THRESHOLD = Rule[int](
    "aml_id_threshold_cents", "money", "the amount above which a transaction needs identification"
)
SESSION_IS_GAMING_DAY = Rule[bool](
    "aml_session_is_gaming_day", "bool", "whether a gaming session is the gaming day"
)
AGGREGATE_IN_OUT_SEPARATELY = Rule[bool](
    "aml_aggregate_in_out_separately", "bool", "whether buy-ins and cash-outs add up apart"
)
CHIPS_FROM_NET_WINNINGS = Rule[bool](
    "aml_chips_from_net_winnings", "bool", "whether cashed chips must come from net winnings"
)
ID_RECORD_RETENTION = Rule[int](
    "id_record_retention_years", "years", "how long identification records are kept"
)
TRAINING_INTERVAL = Rule[int](
    "aml_training_interval_months", "months", "how often employees are trained against laundering"
)
POLICE_MIN_RANK = Rule[str](
    "aml_police_min_rank", "text", "the lowest police rank a suspicion is reported to"
)

#: the parameters the desk works to (the Malta AML rules, regs 45-51)
RULES = (
    ID_THRESHOLD,
    SESSION_IS_GAMING_DAY,
    AGGREGATE_IN_OUT_SEPARATELY,
    CHIPS_FROM_NET_WINNINGS,
    ID_RECORD_RETENTION,
    TRAINING_INTERVAL,
    POLICE_MIN_RANK,
)
