"""The ruleset parameters only the compliance engine reads, each declared once (issue 26).

The parameters a department acts on are declared in its own ``params.py`` (``twin.aml.params``,
``twin.slots.params``, ...); ``twin.compliance.declared`` imports them all.
"""

from __future__ import annotations

from twin.rules import Rule

# --- the First Schedule: machines, their randomness, meters and payouts --------------------

RANDOMNESS_CONFIDENCE = Rule[float](
    "randomness_confidence", "fraction", "the confidence of a machine's randomness tests"
)
RANDOMNESS_MIN_GAMES = Rule[int](
    "randomness_min_games", "integer", "the fewest games before a machine's randomness is tested"
)
RANDOMNESS_FDR = Rule[float](
    "randomness_fdr", "fraction", "the false discovery rate of randomness tests across the floor"
)
HOLD_VARIANCE_CONFIDENCE = Rule[float](
    "hold_variance_confidence", "fraction", "the confidence beyond which a hold variance is large"
)
PAYTABLE_ADAPTATION_FDR = Rule[float](
    "paytable_adaptation_fdr", "fraction", "the false discovery rate of pay-table adaptation tests"
)
PAYBACK_CHANGE_FDR = Rule[float](
    "payback_change_fdr", "fraction", "the false discovery rate of payback change tests"
)
MIN_METER_DIGITS = Rule[int]("min_meter_digits", "integer", "the fewest digits of a meter")
TILT_REPAIR_MAX_HOURS = Rule[float](
    "tilt_repair_max_hours", "hours", "the longest a machine may stay tilted"
)
HAND_PAY_MAX_HOURS = Rule[float](
    "hand_pay_max_hours", "hours", "the longest a hand pay may wait to be recorded and confirmed"
)
MONEY_REMOVAL_ROLES = Rule[str](
    "money_removal_roles", "text", "the roles that may remove money from a machine"
)
PROMOTIONAL_PAYOUT_RECORD_MAX_HOURS = Rule[float](
    "promotional_payout_record_max_hours", "hours", "the longest a promotional payout may wait"
)
MAX_STAKE = Rule[int]("max_stake_cents", "money", "the highest stake for one game")
MAX_PRIZE = Rule[int]("max_prize_cents", "money", "the highest prize of one game")
PRIZE_CAP_INCLUDES_PROGRESSIVE = Rule[bool](
    "prize_cap_includes_progressive", "bool", "whether a progressive prize counts to the cap"
)

# --- the tables, the books, junket licences and AML reporting ------------------------------

UNAPPROVED_REPORT_MAX_HOURS = Rule[float](
    "unapproved_report_max_hours", "hours", "the longest before unapproved equipment is reported"
)
DEVICE_SANCTION_MAX_HOURS = Rule[float](
    "device_sanction_max_hours", "hours", "the longest before a device user is sanctioned"
)
FINANCIAL_STATEMENTS_DEADLINE = Rule[int](
    "financial_statements_deadline_days", "days", "the days to lodge audited statements"
)
JUNKET_LICENCE_TERM = Rule[int](
    "junket_licence_term_years", "years", "the term of a junket leader's licence"
)
JUNKET_LICENCE_RENEWAL = Rule[int](
    "junket_licence_renewal_years", "years", "the length of a junket leader licence's renewal"
)
AML_INTERNAL_REPORT_HOURS = Rule[float](
    "aml_internal_report_hours", "hours", "the longest before a suspicion is reported inside"
)
AML_EVALUATION_HOURS = Rule[float](
    "aml_evaluation_hours", "hours", "the longest the Reporting Officer takes to evaluate"
)
AML_POLICE_REPORT_HOURS = Rule[float](
    "aml_police_report_hours", "hours", "the longest before a confirmed suspicion reaches police"
)
AML_ESCALATION_TOGETHER = Rule[bool](
    "aml_escalation_together", "bool", "whether both AML reports are made together"
)
LM_PER_EUR = Rule[float]("lm_per_eur", "number", "Maltese liri per euro")

# --- stated by a ruleset, read by no code yet (out of scope or cited only) -----------------

BOARD_MEMBER_TERM = Rule[int](
    "board_member_term_years", "years", "the term of a Gaming Board member"
)
COMMENCEMENT_DATE = Rule[str](
    "commencement_date", "text", "the day the regulations came into operation"
)
AMENDMENT_EFFECTIVE_DATE = Rule[str](
    "amendment_effective_date", "text", "the day the amendments took effect"
)
