"""The ``[cage]`` section (regs 23(4), 37-43): cage, cash desks, drop and count.

Validated with the same one-line, key-path errors as every scenario section
(``twin.scenario.translate_validation_error``).
"""

from __future__ import annotations

from datetime import time
from typing import Annotated, ClassVar, Literal, get_args

from pydantic import (
    Field,
    model_validator,
)

from twin.dists import Lognormal, Triangular, expect, invalid
from twin.scenario import (
    HHMM,
    NonNegativeDist,
    NonNegativeFloat,
    NonNegativeInt,
    PositiveInt,
    Share,
    Shares,
    _check_unique,
    _key_part,
    _Model,
    _Plain,
)

#: The particulars of reg 38(2) the cashier copies from a cheque or card (the field of
#: ``gaming_payment_accepted`` each fills): (b)(i) the name of the account holder (cheques),
#: (b)(ii)-(iii) the credit institution and, for a cheque, the address where the account is
#: held, (b)(iv) the account number, (b)(v) the cheque's or card's number, and (d) whether a
#: guarantee card was produced (cheques). (a) the time of acceptance, (c) the amount and (e)
#: the substitute's link are written by the cage's own system, on no checklist.
PaymentParticular = Literal[
    "account_holder", "bank", "bank_address", "account_number", "number", "guarantee_card"
]
PAYMENT_PARTICULARS: tuple[PaymentParticular, ...] = get_args(PaymentParticular)
#: The cage's acts that can wait for an operator's command (``[cage] operator``):
#: "cheque_payout", cash paid out to a patron against a gaming cheque (the ``pay_cheque``
#: command, twin.cage.actions).
OperatorAct = Literal["cheque_payout"]


class CagePolicy(_Model):
    """``[cage.policy]``: the cage's own procedures (issue 34). How long the licensee keeps
    its books, each in years, by default the ruleset's period
    (``cheque_record_retention_years``, ``accounts_retention_years``,
    ``internal_audit_retention_years``): a shorter period is a casino that destroys its books
    too early, found when the Board asks for a volume the law says must still exist. What
    the cashier records of each cheque and card payment (``payment_particulars``), by
    default every particular reg 38(2) requires."""

    payment_records_years: NonNegativeInt | None = None
    accounts_years: NonNegativeInt | None = None
    internal_audit_years: NonNegativeInt | None = None
    #: the cashier's checklist: which particulars of reg 38(2)(b) and (d) the cashier copies
    #: from the cheque or card into the record of each gaming cheque and card payment
    #: (``gaming_payment_accepted``); default every one the regulation requires. A particular
    #: left off is missing from every such record (found under 38(2), MT98.R38.2, on each).
    payment_particulars: tuple[PaymentParticular, ...] = Field(
        default=PAYMENT_PARTICULARS, strict=False
    )

    @model_validator(mode="after")
    def _check(self) -> CagePolicy:
        _check_unique(list(self.payment_particulars), "payment_particulars", "", "particular")
        return self


class CageConfig(_Model):
    """``[cage]``: the cage and cash desks, the books and the count of the slot drop (see
    docs/scenario-cage.md). Rates are per day; shares in [0, 1]; money in cents."""

    department: ClassVar[str] = "cage"

    visit_share: Share = 0.05  # visitors who buy in at the cage before play
    methods: Shares = Field(
        default_factory=lambda: {"cash": 0.6, "cheque": 0.15, "credit_card": 0.15,
                                 "debit_card": 0.1},
        strict=False,
    )  # fmt: skip
    chips_share: Share = 0.5  # buy-ins taken in chips (the rest in cash)
    buy_in_cents: NonNegativeDist = Lognormal(median=20000.0, sigma=0.6)
    redeem_share: Share = 0.6  # chip buyers who redeem chips after play
    cheque_redeemed_share: Share = 0.1  # cheques taken back by the drawer for cash after play
    substitute_share: Share = 0.05  # cheques replaced after play by a larger substitute cheque
    guarantee_card_share: Share = 0.7
    transaction_minutes: NonNegativeDist = Triangular(low=1.0, mode=2.0, high=5.0)
    float_cents: NonNegativeInt = 5_000_000  # the cage's cash at opening
    banking_time: HHMM = time(11, 0)  # cheques banked, card batches submitted, daily
    dishonour_rate: Share = 0.03  # cheques refused by the drawee bank at first presentation
    represented_paid_share: Share = 0.5  # dishonoured cheques paid when presented again
    represent_days: PositiveInt = 3  # days from a refusal to the second presentation
    reconcile_time: HHMM = time(6, 30)  # the daily cage reconciliation
    count_time: HHMM = time(5, 0)  # the count of the slot drop collected since the last
    unclaimed_per_day: NonNegativeFloat = 2.0
    unclaimed_cents: NonNegativeDist = Lognormal(median=500.0, sigma=1.0)
    unclaimed_chips_share: Share = 0.4
    register_minutes: NonNegativeDist = Triangular(low=5.0, mode=15.0, high=45.0)
    financial_year_end_month: Annotated[
        int, expect("a month number from 1 to 12", lambda v: 1 <= v <= 12)
    ] = 12  # the financial year ends on the last day of this month
    statements_after_days: NonNegativeInt = 75  # year end to audited statements lodged
    archive_years: NonNegativeInt = 11  # the casino's books began this many years before t = 0
    retention_time: HHMM = time(7, 0)  # the daily pass of the retention schedule
    record_requests_per_day: NonNegativeFloat = 1.0  # Board inspectors' requests
    produce_minutes: NonNegativeDist = Triangular(low=5.0, mode=20.0, high=60.0)

    policy: CagePolicy = Field(default_factory=CagePolicy)
    #: the cage's acts that wait for an operator's command instead of being done by the
    #: cashier at once (a drill's hook, like ``staff.dispatch.operator``); default none
    operator: tuple[OperatorAct, ...] = Field(default=(), strict=False)

    @model_validator(mode="after")
    def _check_methods(self) -> CageConfig:
        _check_unique(list(self.operator), "operator", "", "act")
        known = ("cash", "cheque", "credit_card", "debit_card")
        for name in self.methods:
            if name not in known:
                raise invalid(
                    "one of " + ", ".join(known), key=f"methods.{_key_part(name)}",
                    found=_Plain(name),
                )  # fmt: skip
        return self
