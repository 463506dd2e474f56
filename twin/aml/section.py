"""The ``[aml]`` section (regs 45-51): the anti-money-laundering desk and launderers.

Validated with the same one-line, key-path errors as every scenario section
(``twin.scenario.translate_validation_error``).
"""

from __future__ import annotations

from datetime import time
from typing import Annotated, ClassVar, Literal

from pydantic import (
    Field,
    model_validator,
)

from twin.dists import Triangular, expect, invalid
from twin.scenario import (
    HHMM,
    NonEmptyStr,
    NonNegativeDist,
    NonNegativeFloat,
    NonNegativeInt,
    PositiveInt,
    Share,
    _check_unique,
    _Model,
)

#: the laundering strategies the twin knows (twin.aml.launderers)
STRATEGIES = ("structuring", "minimal_play", "chip_passing", "junket_abuse", "slot_bill_route")


class LaundererGroup(_Model):
    """``[[aml.launderers]]``: ``count`` launderers of one ``strategy``, each making
    ``visits`` laundering visits, the first within ``first_days`` of the start, then one
    every ``gap_days``; ``amount_cents`` the money laundered on a visit (or on a gaming day
    of visits, for the strategies that split a day into visits)."""

    strategy: Annotated[str, expect("one of " + ", ".join(STRATEGIES), lambda v: v in STRATEGIES)]
    count: Annotated[int, expect("an integer from 1 to 500", lambda v: 1 <= v <= 500)] = 1
    visits: Annotated[int, expect("an integer from 1 to 100", lambda v: 1 <= v <= 100)] = 4
    first_days: NonNegativeFloat = 7.0
    gap_days: NonNegativeDist = Triangular(low=2.0, mode=4.0, high=10.0)
    amount_cents: NonNegativeDist = Triangular(low=500_000.0, mode=800_000.0, high=1_500_000.0)
    play_minutes: NonNegativeDist = Triangular(low=5.0, mode=10.0, high=25.0)


class AmlPolicy(_Model):
    """``[aml.policy]``: the licensee's own AML procedure (issue 34). Every key defaults to
    what the ruleset requires; the controls read only the ruleset, so a procedure looser than
    the law is a legal scenario whose breaches are found, and a stricter one is clean and
    shows its cost (identifications, reports)."""

    #: the amount above which the desk identifies, in cents of the regulation's currency
    #: (like the ruleset's ``aml_id_threshold_cents``; None: the ruleset's)
    id_threshold_cents: NonNegativeInt | None = None
    #: the desk's window for adding up (None: the ruleset's ``aml_session_is_gaming_day`` and
    #: ``aml_aggregate_in_out_separately``)
    session_is_gaming_day: bool | None = None
    aggregate_in_out_separately: bool | None = None
    #: whether the licensee appoints (and notifies) a Reporting Officer (reg 50(1))
    appoint_reporting_officer: bool = True


#: The desk's acts that can wait for an operator's command (``[aml] operator``):
#: "evaluation", the Reporting Officer's evaluation of each internal report and his reports
#: of a suspicion to the police and the Board (the commands of twin.aml.actions).
OperatorAct = Literal["evaluation"]


class AmlConfig(_Model):
    """``[aml]`` (docs/scenario-aml.md): the licensee's anti-money-laundering function and
    the launderers the twin sends in. Shares in [0, 1]; money in cents of the floor's
    currency. Needs the ``[entrance]`` (sessions begin at the door, reg 45) and ``[cage]``
    sections."""

    department: ClassVar[str] = "aml"

    #: the Reporting Officer (50(1)): a named manager with office hours, every day
    officer: NonEmptyStr = "MLRO-01"
    officer_name: NonEmptyStr = "Reporting Officer"
    officer_grade: NonEmptyStr = "Senior Manager"
    officer_designation: NonEmptyStr = "Money Laundering Reporting Officer"
    appointed_days_before: NonNegativeInt = 400
    office_opens: HHMM = time(9, 0)
    office_closes: HHMM = time(17, 0)
    evaluation_minutes: NonNegativeDist = Triangular(low=10.0, mode=30.0, high=90.0)
    report_minutes: NonNegativeDist = Triangular(low=10.0, mode=20.0, high=60.0)
    #: employees trained before the start; the rest come on shift untrained (reg 48)
    trained_share: Share = 1.0
    #: the chance an employee notices a red flag in front of them, trained or not
    notice_trained: Share = 0.7
    notice_untrained: Share = 0.15
    #: a cash-out from this amount, after wagering less than ``minimal_play_ratio`` x the
    #: chips and tokens bought in the window, is a red flag ("minimal_play")
    flag_min_cents: NonNegativeInt = 100_000
    minimal_play_ratio: NonNegativeFloat = 0.25
    #: ``near_threshold_count`` buy-ins or cash-outs in one window, each between
    #: ``near_threshold_share`` of the identification threshold and the threshold
    near_threshold_share: Share = 0.75
    near_threshold_count: PositiveInt = 2
    #: the Reporting Officer reports when the patron's reports reach this many (a cash-out
    #: that does not cross-reference to its buy-in, or not from winnings, at once)
    reports_to_suspect: PositiveInt = 2
    launderers: tuple[LaundererGroup, ...] = Field(default=(), strict=False)
    policy: AmlPolicy = Field(default_factory=AmlPolicy)
    #: the Reporting Officer's acts that wait for an operator's command instead of being done
    #: by the desk (a drill's hook, like ``staff.dispatch.operator``); default none
    operator: tuple[OperatorAct, ...] = Field(default=(), strict=False)

    @model_validator(mode="after")
    def _office(self) -> AmlConfig:
        _check_unique(list(self.operator), "operator", "", "act")
        if self.office_closes <= self.office_opens:
            raise invalid(
                f"a time after office_opens ({self.office_opens:%H:%M})",
                key="office_closes", found=self.office_closes.strftime("%H:%M"),
            )  # fmt: skip
        return self
