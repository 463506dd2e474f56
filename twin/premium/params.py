"""The ruleset parameters the premium room works to, each declared once (issue 26)."""

from __future__ import annotations

from twin.accounts.replay import AccountRules
from twin.rules import Rule, RuleSource

MIN_BALANCE = Rule[int](
    "min_balance_cents", "money", "the least balance of a premium player's deposit account"
)
PERIOD = Rule[int]("period_months", "months", "the length of a premium-player period")
MAX_BELOW = Rule[int](
    "max_below_months", "months", "the longest continuous time an account may be below minimum"
)
REG4_2_LITERAL = Rule[bool](
    "sg_4_2_literal", "bool", "whether reg 4(2) can revive a status that has lapsed"
)
REG3_NEW_ACCOUNT = Rule[bool](
    "sg_reg3_requires_new_account", "bool", "whether qualifying under reg 3 needs a new account"
)
REG4_3_NEW_DEPOSIT_MINIMUM = Rule[bool](
    "reg4_3_new_deposit_must_meet_minimum",
    "bool",
    "whether a reg 4(3) new deposit must meet the minimum balance",
)

#: the parameters the deposit accounts' replay works to (singapore-2010)
RULES = (
    MIN_BALANCE,
    PERIOD,
    MAX_BELOW,
    REG4_2_LITERAL,
    REG3_NEW_ACCOUNT,
    REG4_3_NEW_DEPOSIT_MINIMUM,
)


def account_rules(rules: RuleSource) -> AccountRules:
    """The replay's numbers and readings, from ``rules`` (InputError if it lacks one)."""
    return AccountRules(
        min_balance_cents=MIN_BALANCE.of(rules),
        period_months=PERIOD.of(rules),
        max_below_months=MAX_BELOW.of(rules),
        sg_4_2_literal=REG4_2_LITERAL.of(rules),
        sg_reg3_requires_new_account=REG3_NEW_ACCOUNT.of(rules),
        reg4_3_new_deposit_must_meet_minimum=REG4_3_NEW_DEPOSIT_MINIMUM.of(rules),
    )
