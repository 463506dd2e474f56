"""The ``[premium]`` section (Singapore, issue 11): premium players and deposit accounts.

Validated with the same one-line, key-path errors as every scenario section
(``twin.scenario.translate_validation_error``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, ClassVar, Literal

from pydantic import (
    BeforeValidator,
    Field,
    model_validator,
)

from twin.dists import expect, invalid
from twin.scenario import (
    NonNegativeFloat,
    NonNegativeInt,
    PositiveFloat,
    PositiveInt,
    Share,
    _Model,
    _resolve_game,
)

#: To whom the premium desk provides credit (the operator's or an international market
#: agent's) as a deposit: reg 2A(1)(e) allows it only for a patron who is neither a citizen
#: nor a permanent resident of Singapore, and 2A(2) limits citizens and PRs to 2A(1)(a)-(d).
CreditTo = Literal["foreigners", "everyone", "nobody"]


class PremiumPolicy(_Model):
    """``[premium.policy]``: the operator's own premium desk (issue 34). Every key defaults
    to what the ruleset requires; the SG10 controls read only the ruleset and the records, so
    a desk looser than the law is a legal scenario whose breaches are found (a desk granting
    the status from S$50,000: SG10.R3 on each such grant; credit to everyone: SG10.R2A.1e on
    each credit to a citizen or PR), and one that gives no credit is clean and shows its cost
    (no credit extended)."""

    #: the balance (cents) from which the desk grants, keeps, renews and restores the status
    #: (regs 3, 4(2)-(4)) and that the desk asks players to keep on the account; None: the
    #: ruleset's ``min_balance_cents``
    min_balance_cents: NonNegativeInt | None = None
    #: to whom the desk provides credit as a deposit (reg 2A(1)(e), 2A(2)): "foreigners" (the
    #: law: neither citizens nor permanent residents), "everyone", or "nobody"
    credit_to: CreditTo = "foreigners"


class PremiumConfig(_Model):
    """The premium-player room (``[premium]``, docs/scenario-premium.md): ``players``
    premium players (ids PP0001...) whose deposit accounts opened up to ``history_months``
    before the start (their history is recorded at t = 0), a share of them citizens and
    permanent residents, playing ``table_game`` at ``tables`` tables of the room."""

    department: ClassVar[str] = "premium"

    players: Annotated[int, expect("an integer from 1 to 999", lambda v: 1 <= v <= 999)] = 40
    history_months: Annotated[int, expect("an integer from 0 to 120", lambda v: 0 <= v <= 120)] = 24
    citizen_share: Share = 0.2
    pr_share: Share = 0.15
    table_game: Annotated[Path, BeforeValidator(_resolve_game)]
    tables: Annotated[int, expect("an integer from 1 to 20", lambda v: 1 <= v <= 20)] = 2
    #: a player's mean visits to the room a week (each a session of ``session_rounds``)
    visits_per_week: NonNegativeFloat = 2.0
    session_rounds: PositiveInt = 60
    #: a player's stake a round, as a share of the chips drawn for the session
    stake_share: Annotated[float, expect("a share in (0, 1]", lambda v: 0 < v <= 1)] = 0.02
    #: mean days between a player's account events other than play (top-ups, withdrawals...)
    days_between_events: PositiveFloat = 12.0
    policy: PremiumPolicy = Field(default_factory=PremiumPolicy)

    @model_validator(mode="after")
    def _shares(self) -> PremiumConfig:
        if self.citizen_share + self.pr_share > 1:
            raise invalid(
                "citizen_share + pr_share at most 1",
                key="pr_share",
                found=self.citizen_share + self.pr_share,
            )
        return self
