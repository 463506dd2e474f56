"""The ``[junkets]`` section (reg 25): junket leaders, the junket room and schedules.

Validated with the same one-line, key-path errors as every scenario section
(``twin.scenario.translate_validation_error``).
"""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path
from typing import Annotated, ClassVar, Literal

from pydantic import (
    BeforeValidator,
    Field,
    ValidationInfo,
    model_validator,
)

from twin.dists import expect, invalid
from twin.scenario import (
    MISSING,
    Cents,
    Ident,
    NonEmptyStr,
    NonNegativeFloat,
    NonNegativeInt,
    PositiveFloat,
    PositiveInt,
    Share,
    _check_unique,
    _Model,
    _one_of,
)

# [junkets] (reg 25): junket leaders, the junket room, and the junkets' schedules
# (a [junkets] section with [[junkets.leaders]] and [[junkets.schedules]]; docs/scenario-junkets.md)

CountryCode = Annotated[
    str, expect("an ISO 3166 alpha-2 country code such as 'IT'",
                lambda v: len(v) == 2 and v.isascii() and v.isupper())
]  # fmt: skip
_JUNKET_PREFIX = re.compile(r"^[A-Z]{1,4}$")


def _resolve_table_game(value: object, info: ValidationInfo) -> object:
    if not isinstance(value, str | Path) or not str(value):
        raise invalid("a path to a table game file (a string)")
    base = (info.context or {}).get("base_dir")
    path = Path(value)
    if not path.is_absolute():
        path = (Path(base) if base is not None else Path.cwd()) / path
    return path.resolve()


class JunketRepresentative(_Model):
    """A person representing a junket leader in Malta (reg 25(4), 25(6)(ii))."""

    name: NonEmptyStr
    address: NonEmptyStr
    id_number: NonEmptyStr


class JunketLeader(_Model):
    """``[[junkets.leaders]]``: a junket leader (a person or a company) under a service
    agreement with the licensee, and its licence (reg 25(2)-(5)). Dates are calendar dates;
    those before the run starts are recorded at t = 0 with their dates as fields."""

    id: Ident
    kind: Literal["person", "company"] = "person"
    name: NonEmptyStr
    #: a person's address, a company's registered address
    address: NonEmptyStr
    #: a person's identification number, a company's registration number
    id_number: NonEmptyStr
    representatives: tuple[JunketRepresentative, ...] = Field(default=(), strict=False)
    #: the day the licensee applied for the leader's licence with its particulars (reg 25(2))
    applied: date
    agreement_supplied: bool = True  # a copy of the service agreement went with them
    licence_number: NonEmptyStr
    licence_issued: date
    #: renewals of the licence by the Board (reg 25(5)), each for a further term
    renewals: tuple[date, ...] = Field(default=(), strict=False)
    services_start: date
    #: the end of the leader's services as the licence specifies it (None: open-ended)
    services_end: date | None = None

    @model_validator(mode="after")
    def _dates(self) -> JunketLeader:
        if self.licence_issued < self.applied:
            raise invalid(f"a date on or after applied ({self.applied})",
                          key="licence_issued", found=self.licence_issued)  # fmt: skip
        if self.services_end is not None and self.services_end <= self.services_start:
            raise invalid(f"a date after services_start ({self.services_start})",
                          key="services_end", found=self.services_end)  # fmt: skip
        for i, r in enumerate(self.renewals):
            before = self.renewals[i - 1] if i else self.licence_issued
            if r <= before:
                raise invalid(f"a date after {before}", key=f"renewals[{i}]", found=r)
        return self


class JunketSchedule(_Model):
    """``[[junkets.schedules]]``: junkets arriving on a schedule, ``every_days`` apart from
    ``first_arrival_hours`` (hours after the run starts); junket ``k`` is ``<prefix><k>``
    and its members ``<prefix><k>-M<n>``. ``leader`` omitted: junkets the licensee organises
    itself (reg 25(7))."""

    prefix: Annotated[
        str, expect("1 to 4 capital letters", lambda v: bool(_JUNKET_PREFIX.match(v)))
    ]
    leader: Ident | None = None
    first_arrival_hours: NonNegativeFloat
    every_days: PositiveInt = 7
    count: PositiveInt | None = None  # how many junkets (default: as many as the run holds)
    members: PositiveInt = 6
    stay_hours: PositiveFloat = 48.0
    #: hours before arrival the licensee notifies the Board (reg 25(6): at least 48); the
    #: desk's ``[junkets.policy] notice_hours``, when set, replaces it
    notice_hours: NonNegativeFloat = 72.0
    #: the Board dispensed with the 48 hours (reg 25(6) proviso): the particulars are due
    #: before junket gaming starts
    dispensation: bool = False
    countries: tuple[CountryCode, ...] = Field(default=("IT",), strict=False, min_length=1)
    deposit_cents: PositiveInt  # each member's front-money deposit, in the floor's cents
    stake_cents: PositiveInt  # each round's stake of rolling (junket) chips
    session_hours: PositiveFloat = 2.0
    rest_hours: PositiveFloat = 3.0  # mean rest between a member's sessions
    #: machine tokens each member buys at a cash desk with junket chips (0: none)
    tokens_cents: NonNegativeInt = 0
    commission_bp: NonNegativeInt = 0  # the leader's commission on rolling turnover
    rebate_bp: NonNegativeInt = 0  # rebate on each member's net loss
    #: the share of members domiciled in the ruleset's junket_home_country (Malta) though
    #: resident abroad (in one of ``countries``); drawn per member on the junket's own
    #: stream (junket, "domicile"), only when above 0
    home_domiciled_share: Share = 0.0

    def junket_ids(self, duration_hours: float) -> list[str]:
        """The ids of the junkets that arrive before the run ends (at most ``count``)."""
        out: list[str] = []
        k = 0
        while self.count is None or k < self.count:
            if self.first_arrival_hours + 24.0 * self.every_days * k >= duration_hours:
                break
            k += 1
            out.append(f"{self.prefix}{k}")
        return out


class JunketPolicy(_Model):
    """``[junkets.policy]``: the junket desk's own procedures (issue 34). The controls of reg
    25 read only the ruleset and the records, never this: a desk looser than the law is a
    legal scenario whose breaches are found, a stricter one is clean and shows its cost.

    ``notice_hours`` and ``leader_notice_days`` are the desk's working numbers: when set, the
    desk acts exactly that long ahead for every junket and every leader; None keeps each
    schedule's ``notice_hours`` and each leader's ``applied`` date (the scenario's, which
    the law bounds: reg 25(6)'s 48 hours, 25(2)'s 14 days). ``max_representatives`` and
    ``accept_home_residents`` are what the desk accepts, by default the law."""

    #: hours before each junket's arrival the desk notifies the Board (reg 25(6), 25(7));
    #: None: each schedule's ``notice_hours``
    notice_hours: NonNegativeFloat | None = None
    #: days before a leader's services start the desk gives the Board the leader's
    #: particulars, its application (reg 25(2)); None: each leader's ``applied`` date
    leader_notice_days: NonNegativeInt | None = None
    #: the most representatives of a leader the desk registers, the first the leader names
    #: (reg 25(4)); None: the ruleset's ``junket_max_representatives``
    max_representatives: NonNegativeInt | None = None
    #: reg 25(1): junket members "shall be domiciled and resident outside Malta". The
    #: members' residence is scenario data (a schedule's ``countries``); whom the desk
    #: accepts is policy. False (the law): the desk turns away, before the junket is
    #: notified, every member resident in the ruleset's ``junket_home_country``; True: it
    #: accepts them. (The domicile is not on the particulars the desk sees: a member domiciled
    #: in Malta though resident abroad, ``home_domiciled_share``, comes either way.)
    accept_home_residents: bool = False


class JunketsConfig(_Model):
    """``[junkets]``: the junket room (its tables play ``game``), the front-money desk, the
    junket leaders and the schedules of junkets, and the desk's procedures (``policy``)."""

    department: ClassVar[str] = "junkets"

    #: a table game file, relative to the scenario's folder (read when the casino is built)
    game: Annotated[Path, BeforeValidator(_resolve_table_game)]
    bet: Ident | None = None  # the bet junket players make (default: the game's main bet)
    tables: PositiveInt = 1
    desk: Ident = "FM-1"
    #: the Board's minimum stake (reg 21(1)) and authorised maximum (reg 21(3)) of the junket
    #: room's game, for a casino without a [tables] section (with one, the Board's figures
    #: are [tables].board_minimum_cents / authorised_maximum_cents, which must name the game)
    board_minimum_cents: Cents | None = None
    authorised_maximum_cents: Cents | None = None
    #: the stakes of the junket room's tables, as the entrance notice lists them (reg 22(a));
    #: default: the lowest and the highest ``stake_cents`` of the schedules
    min_stake_cents: Cents | None = None
    max_stake_cents: Cents | None = None
    leaders: tuple[JunketLeader, ...] = Field(default=(), strict=False)
    schedules: tuple[JunketSchedule, ...] = Field(default=(), strict=False, min_length=1)
    policy: JunketPolicy = Field(default_factory=JunketPolicy)

    @property
    def room_stakes(self) -> tuple[int, int]:
        """The junket room tables' minimum and maximum stake (cents)."""
        stakes = [s.stake_cents for s in self.schedules] or [0]
        lo = self.min_stake_cents if self.min_stake_cents is not None else min(stakes)
        hi = self.max_stake_cents if self.max_stake_cents is not None else max(stakes)
        return lo, hi

    @model_validator(mode="after")
    def _refs(self) -> JunketsConfig:
        lo, hi = self.board_minimum_cents, self.authorised_maximum_cents
        if (lo is None) != (hi is None):
            key = "authorised_maximum_cents" if hi is None else "board_minimum_cents"
            raise invalid("a value too (the Board's minimum and authorised maximum go "
                          "together)", key=key, found=MISSING)  # fmt: skip
        if lo is not None and hi is not None and hi < lo:
            raise invalid(f"an amount >= board_minimum_cents ({lo})",
                          key="authorised_maximum_cents", found=hi)  # fmt: skip
        low, high = self.room_stakes
        if self.min_stake_cents is not None and self.max_stake_cents is not None and high < low:
            raise invalid(f"an amount >= min_stake_cents ({low})", key="max_stake_cents",
                          found=high)  # fmt: skip
        for i, s in enumerate(self.schedules):
            if not low <= s.stake_cents <= high:
                raise invalid(f"a stake within the junket room's stakes ({low}-{high} cents)",
                              key=f"schedules[{i}].stake_cents", found=s.stake_cents)  # fmt: skip
        _check_unique([x.id for x in self.leaders], "leaders", "id", "leader id")
        _check_unique([x.prefix for x in self.schedules], "schedules", "prefix", "prefix")
        leaders = [x.id for x in self.leaders]
        for i, s in enumerate(self.schedules):
            if s.leader is not None and s.leader not in leaders:
                raise invalid(_one_of(leaders, "the id of a junket leader"),
                              key=f"schedules[{i}].leader", found=s.leader)  # fmt: skip
            if s.leader is None and s.commission_bp:
                raise invalid(
                    "0 (a junket the licensee organises has no leader to pay)",
                    key=f"schedules[{i}].commission_bp", found=s.commission_bp,
                )  # fmt: skip
        return self
