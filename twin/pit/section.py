"""The ``[tables]`` section (regs 21, 23, 26): the pit and the card room.

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

from twin.dists import Distribution, expect, invalid
from twin.scenario import (
    HHMM,
    Cents,
    Ident,
    NonEmptyStr,
    NonNegativeDist,
    NonNegativeFloat,
    NonNegativeInt,
    PositiveInt,
    Share,
    _check_unique,
    _Model,
    _one_of,
    _Plain,
    _resolve_game,
    _support_at_least,
)

# [tables] (regs 21, 23, 26): the pit and the card room


class TableConfig(_Model):
    """A gaming table (``[[tables.tables]]``): its game file (resolved like a slot game), the
    stakes it opens with, its hours (local; ``close <= open`` wraps past midnight), the asset
    id of its wheel or shoe (``equipment``) and its chip float (``tray_cents``)."""

    id: Ident
    game: Annotated[Path, BeforeValidator(_resolve_game)]
    min_stake_cents: Cents
    max_stake_cents: Cents
    open: HHMM
    close: HHMM
    equipment: Ident
    tray_cents: Cents = 500_000

    @model_validator(mode="after")
    def _check(self) -> TableConfig:
        if self.max_stake_cents < self.min_stake_cents:
            raise invalid(f"at least min_stake_cents ({self.min_stake_cents})",
                          key="max_stake_cents", found=self.max_stake_cents)  # fmt: skip
        if self.open == self.close:
            raise invalid("a closing time other than the opening time", key="close",
                          found=_Plain(self.close.strftime("%H:%M")))  # fmt: skip
        return self


class StakeChange(_Model):
    """``[[tables.stake_changes]]``: at ``at_hours`` table ``table`` changes its minimum
    and/or maximum stake; ``authorised``: with the Board's authorisation (reg 21(3))."""

    at_hours: NonNegativeFloat
    table: Ident
    min_stake_cents: Cents | None = None
    max_stake_cents: Cents | None = None
    authorised: bool = True

    @model_validator(mode="after")
    def _check(self) -> StakeChange:
        if self.min_stake_cents is None and self.max_stake_cents is None:
            raise invalid("min_stake_cents and/or max_stake_cents", key="min_stake_cents",
                          found=None)  # fmt: skip
        return self


class Equipment(_Model):
    """``[[tables.equipment]]``: a wheel, shoe or table layout by asset id; ``approved``: the
    Board approved it for this casino (reg 23(1))."""

    asset: Ident
    type: Literal["wheel", "shoe", "layout", "shuffler"]
    approved: bool = True


class CardRoomArea(_Model):
    """``[[tables.card_room]]``: an area for card games of equal chance (reg 26).
    ``approved``: the licence or the Board allows it; ``hourly_charge_cents``: the approved
    hourly rate; ``charged_cents``: what the area actually charges an hour (default: the
    approved rate); ``displayed``: the charge is displayed in the area."""

    id: Ident
    seats: PositiveInt
    open: HHMM
    close: HHMM
    approved: bool = True
    hourly_charge_cents: NonNegativeInt
    charged_cents: NonNegativeInt | None = None
    displayed: bool = True

    @property
    def rate_cents(self) -> int:
        return self.hourly_charge_cents if self.charged_cents is None else self.charged_cents


class TablesPolicy(_Model):
    """``[tables.policy]``: what this casino's entrance notice shows (issue 34). The Board's
    requirement is ``[tables] notice_conditions`` and ``entrance_fee_cents`` (reg 22(b), (c));
    by default the notice shows exactly that. A policy that leaves out a condition or shows
    another fee is a casino whose notice falls short of the Board's requirement."""

    notice_conditions: tuple[NonEmptyStr, ...] | None = Field(default=None, strict=False)
    notice_entrance_fee_cents: NonNegativeInt | None = None


#: The pit's acts that can wait for an operator's command (``[tables] operator``): "fill"
#: (chips from the cage to a table whose tray runs low) and "credit" (chips back to the
#: cage from a tray that holds too many), made with the commands of twin.pit.actions.
OperatorAct = Literal["fill", "credit"]


class TablesConfig(_Model):
    """The ``[tables]`` table: the pit and the card room (regs 21, 22, 23, 26).

    ``share``: the share of visitors who play at a table instead of the slot floor (drawn on
    each visit's own stream ``table:<n>``); ``card_room_share``: of those, the share who go
    to the card room. ``board_minimum_cents``: the Board's minimum stake per game id
    (reg 21(1)); ``authorised_maximum_cents``: the maximum stake the Board authorised per game
    id (reg 21(3)). Chips: ``chip_series`` the series the Board approved, ``chips_in_play``
    the series the pit uses. ``device_share``: the share of table players who are cheats
    carrying a device (reg 23(5)), ``counterfeit_share``: who present unapproved chips.
    """

    department: ClassVar[str] = "pit"

    share: Share
    card_room_share: Share = 0.0
    stake_cents: NonNegativeDist
    stretch_minutes: NonNegativeDist
    buy_in_stakes: Annotated[Distribution, _support_at_least(1.0, "values >= 1")]
    drop_collection: HHMM
    hold_confidence: Annotated[float, expect("a number in (0.5, 1)", lambda v: 0.5 < v < 1)] = 0.99
    board_minimum_cents: dict[str, Cents] = Field(strict=False)
    authorised_maximum_cents: dict[str, Cents] = Field(strict=False)
    chip_series: tuple[Ident, ...] = Field(strict=False)
    chips_in_play: Ident
    equipment: tuple[Equipment, ...] = Field(default=(), strict=False)
    tables: Annotated[
        tuple[TableConfig, ...], expect("at least one [[tables.tables]]", lambda v: len(v) > 0)
    ] = Field(strict=False)
    stake_changes: tuple[StakeChange, ...] = Field(default=(), strict=False)
    card_room: tuple[CardRoomArea, ...] = Field(default=(), strict=False)
    notice_conditions: tuple[NonEmptyStr, ...] = Field(default=(), strict=False)
    entrance_fee_cents: NonNegativeInt = 0
    device_share: Share = 0.0
    device_sanctions: tuple[
        Literal["void_wagers", "play_ban", "eviction", "police_complaint"], ...
    ] = Field(default=("void_wagers", "eviction", "police_complaint"), strict=False)
    counterfeit_share: Share = 0.0
    drop_team: tuple[Ident, ...] = Field(default=("attendant", "inspector"), strict=False)
    policy: TablesPolicy = Field(default_factory=TablesPolicy)
    #: the tray's fills and credits that wait for an operator's command instead of being
    #: made at once (a drill's hook, like ``staff.dispatch.operator``); default none. A fill
    #: the table cannot wait for (a buy-in or a payout the tray cannot cover) is made at once.
    operator: tuple[OperatorAct, ...] = Field(default=(), strict=False)

    @property
    def shown_conditions(self) -> tuple[str, ...]:
        """The conditions the casino's entrance notice shows (its policy; default: the
        Board's requirement)."""
        shown = self.policy.notice_conditions
        return self.notice_conditions if shown is None else shown

    @property
    def shown_entrance_fee_cents(self) -> int:
        """The entrance fee the casino's notice shows (default: the one the Board approved)."""
        fee = self.policy.notice_entrance_fee_cents
        return self.entrance_fee_cents if fee is None else fee

    @model_validator(mode="after")
    def _check(self) -> TablesConfig:
        _check_unique([t.id for t in self.tables], "tables", "id", "table id")
        _check_unique(list(self.operator), "operator", "", "act")
        _check_unique([e.asset for e in self.equipment], "equipment", "asset", "asset id")
        _check_unique([a.id for a in self.card_room], "card_room", "id", "card room area id")
        assets = [e.asset for e in self.equipment]
        for i, t in enumerate(self.tables):
            if t.equipment not in assets:
                raise invalid(_one_of(assets, "an asset of [[tables.equipment]]"),
                              key=f"tables[{i}].equipment", found=t.equipment)  # fmt: skip
        ids = [t.id for t in self.tables]
        for i, c in enumerate(self.stake_changes):
            if c.table not in ids:
                raise invalid(_one_of(ids, "a table id"), key=f"stake_changes[{i}].table",
                              found=c.table)  # fmt: skip
        if self.card_room_share > 0 and not self.card_room:
            raise invalid("a [[tables.card_room]] area when card_room_share > 0",
                          key="card_room", found=[])  # fmt: skip
        return self
