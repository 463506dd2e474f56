"""The ``[patrons]`` section: arrivals, segments and the population they are drawn from.

Validated with the same one-line, key-path errors as every scenario section
(``twin.scenario.translate_validation_error``).
"""

from __future__ import annotations

import math
from typing import Annotated, ClassVar

from pydantic import (
    AfterValidator,
    Field,
    model_validator,
)

from twin.dists import Distribution, Lognormal, Normal, Uniform, expect, invalid
from twin.scenario import (
    SHARE_TOLERANCE,
    BetUnitsDist,
    Ident,
    NonEmptyStr,
    NonNegativeDist,
    NonNegativeFloat,
    Share,
    Shares,
    _check_unique,
    _Model,
    _Plain,
)


class Segment(_Model):
    """A patron segment (``[[patrons.segments]]``)."""

    name: NonEmptyStr
    share: Annotated[float, expect("a number in (0, 1]", lambda v: 0 < v <= 1)]
    bankroll_cents: NonNegativeDist
    session_minutes: NonNegativeDist
    spin_seconds: NonNegativeDist
    bet_units: BetUnitsDist
    loss_limit_share: Annotated[float, expect("a number in (0, 1]", lambda v: 0 < v <= 1)] = 1.0
    win_goal_multiple: Annotated[float, expect("a number > 1", lambda v: v > 1)] = 3.0
    pays_with_bills_share: Annotated[float, expect("a number in [0, 1]", lambda v: 0 <= v <= 1)] = (
        0.7
    )
    zones: tuple[Ident, ...] = Field(default=(), strict=False)


#: Ages an adult member of the population may have (years); minors are drawn apart
#: (``minor_share``, ``minor_age``). Legal age is a ruleset matter, the door's a policy.
AGE_RANGE = (18.0, 110.0)
#: Without a [patrons.population] size: the expected arrivals of this many days, at least
#: ``MIN_DEFAULT_MEMBERS`` members.
DEFAULT_MEMBER_DAYS = 4
MIN_DEFAULT_MEMBERS = 100
MAX_MEMBERS = 9_999_999


def _check_age(d: Distribution) -> Distribution:
    lo, hi = d.support
    if lo < AGE_RANGE[0] or hi > AGE_RANGE[1]:
        hint = " (give a normal a min and a max)" if d.dist == "normal" else ""
        raise invalid(
            f"a distribution of ages within [{AGE_RANGE[0]:g}, {AGE_RANGE[1]:g}]{hint}",
            found=_Plain(f"values from {lo:g} to {hi:g}"),
        )
    return d


def _check_minor_age(d: Distribution) -> Distribution:
    lo, hi = d.support
    if lo < 0 or hi > AGE_RANGE[0]:
        raise invalid(
            f"a distribution of ages within [0, {AGE_RANGE[0]:g}]",
            found=_Plain(f"values from {lo:g} to {hi:g}"),
        )
    return d


def _check_propensity(d: Distribution) -> Distribution:
    lo = d.support[0]
    if lo < 0 or not d.mean > 0:
        raise invalid(
            "a distribution of values >= 0 with a positive mean",
            found=_Plain(f"values down to {lo:g}, mean {d.mean:g}"),
        )
    return d


class PopulationConfig(_Model):
    """The ``[patrons.population]`` table: the people who visit, again and again.

    Every key is optional. ``size`` defaults to the expected arrivals of
    ``DEFAULT_MEMBER_DAYS`` days (at least ``MIN_DEFAULT_MEMBERS``); see
    ``PatronsConfig.members``. Attributes are drawn independently of each other; a member's
    segment comes from the segment shares.
    """

    size: (
        Annotated[
            int, expect(f"an integer from 1 to {MAX_MEMBERS}", lambda v: 1 <= v <= MAX_MEMBERS)
        ]
        | None
    ) = None
    age: Annotated[Distribution, AfterValidator(_check_age)] = Normal.model_validate(
        {"mean": 45.0, "sd": 15.0, "min": 18.0, "max": 90.0}
    )
    residency: Shares = Field(default_factory=lambda: {"local": 1.0}, strict=False)
    nationalities: Shares | None = Field(default=None, strict=False)
    visit_propensity: Annotated[Distribution, AfterValidator(_check_propensity)] = Lognormal(
        median=1.0, sigma=1.0
    )
    self_excluded_share: Share = 0.0
    barred_share: Share = 0.0
    #: members under age (the world as it is, issue 34): this share of the members has an
    #: age drawn from ``minor_age`` instead of ``age``; what the door does with them is the
    #: door's policy ([entrance.policy]), what the law says is the ruleset's
    minor_share: Share = 0.0
    minor_age: Annotated[Distribution, AfterValidator(_check_minor_age)] = Uniform(
        low=14.0, high=18.0
    )


def _check_24(value: tuple[float, ...]) -> tuple[float, ...]:
    if len(value) != 24:
        raise invalid(
            "exactly 24 numbers (one per local hour 0..23)",
            found=_Plain(f"{len(value)} numbers"),
        )
    return value


class PatronsConfig(_Model):
    """The ``[patrons]`` table."""

    department: ClassVar[str] = "patrons"

    arrivals_per_hour: Annotated[
        tuple[NonNegativeFloat, ...],
        AfterValidator(_check_24),
    ] = Field(strict=False)
    max_wait_minutes: NonNegativeFloat
    segments: Annotated[
        tuple[Segment, ...],
        expect("at least one [[patrons.segments]] table", lambda v: len(v) > 0),
    ] = Field(strict=False)
    population: PopulationConfig = PopulationConfig()

    @model_validator(mode="after")
    def _check(self) -> PatronsConfig:
        _check_unique([s.name for s in self.segments], "segments", "name", "segment name")
        total = math.fsum(s.share for s in self.segments)
        if abs(total - 1.0) > SHARE_TOLERANCE:
            raise invalid(
                "segment shares summing to 1",
                key="segments",
                found=_Plain(f"shares summing to {total:.12g}"),
            )
        return self

    @property
    def expected_arrivals_per_day(self) -> float:
        """Mean arrivals over one local day (sum of the 24 hourly means)."""
        return math.fsum(self.arrivals_per_hour)

    @property
    def members(self) -> int:
        """The population's size: ``population.size``, or by default the expected arrivals
        of ``DEFAULT_MEMBER_DAYS`` days, rounded up, at least ``MIN_DEFAULT_MEMBERS``."""
        if self.population.size is not None:
            return self.population.size
        days = DEFAULT_MEMBER_DAYS * self.expected_arrivals_per_day
        return min(MAX_MEMBERS, max(MIN_DEFAULT_MEMBERS, math.ceil(days)))
