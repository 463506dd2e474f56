"""Records of the table pit and the card room (regs 21, 22, 23, 26; drop and count).

Entities by role: ``table``, ``patron``, ``dealer``, ``inspector``, ``area`` (a card room
area), ``members`` (a drop team). Money is integer cents. Play is recorded per stretch (one
record per player's sitting at a table), not per round, to keep the ledger small.
"""

from __future__ import annotations

from twin.records import Record, record


@record("pit_configured", roles=("tables",))
class PitConfigured(Record):
    """The pit's tables, and the confidence of the band its hold is read against."""

    tables: tuple[str, ...]
    hold_confidence: float


# -- what the Board determined, approved or authorised (before the floor opens) ---------------


@record("board_minimum_stake")
class BoardMinimumStake(Record):
    """The Board's notice of the minimum stake of an authorised game (reg 21(1)-(2))."""

    game: str
    min_stake_cents: int


@record("stakes_authorised", roles=("table", "inspector"))
class StakesAuthorised(Record):
    """The Board authorises stakes (reg 21(3)): for a whole game (``table`` empty: the
    licence's authorised maximum) or for one table (a varied minimum and/or a maximum)."""

    game: str
    table: str
    min_stake_cents: int  # 0: the minimum is not varied
    max_stake_cents: int
    inspector: str


@record("gaming_items_approved")
class GamingItemsApproved(Record):
    """The Board's approval of gaming equipment (asset ids) and chip series (reg 23(1))."""

    equipment: tuple[str, ...]
    chip_series: tuple[str, ...]


@record("notice_requirements")
class NoticeRequirements(Record):
    """What the Board requires the entrance notice to show besides games and stakes (reg
    22(b), (c)): conditions of the licence, and the approved entrance fee."""

    conditions: tuple[str, ...]
    entrance_fee_cents: int


@record("card_room_approved", roles=("area",))
class CardRoomApproved(Record):
    """The licence or the Board allows card room area ``area`` at this hourly rate (reg 26)."""

    area: str
    hourly_charge_cents: int


# -- the pit --------------------------------------------------------------------------------


@record("table_stakes", roles=("table",))
class TableStakes(Record):
    """The stakes in force at a table from now: set at the start, or changed (``reason``)."""

    table: str
    game: str
    min_stake_cents: int
    max_stake_cents: int
    reason: str  # "licence" (as set up) or "change"


@record("entrance_notice")
class EntranceNotice(Record):
    """The notice exhibited at the entrance (reg 22), aligned lists per game."""

    games: tuple[str, ...]
    min_stakes_cents: tuple[int, ...]
    max_stakes_cents: tuple[int, ...]
    conditions: tuple[str, ...]
    entrance_fee_cents: int
    displayed: bool


@record("table_opened", roles=("table", "dealer", "inspector"))
class TableOpened(Record):
    """A table opens: its dealer, the Board inspector supervising, its equipment and chips;
    ``inventory_cents``: the chips in its tray (the table card's opening figure)."""

    table: str
    game: str
    dealer: str
    inspector: str
    equipment: str
    chip_series: str
    inventory_cents: int


@record("table_closed", roles=("table", "dealer"))
class TableClosed(Record):
    table: str
    dealer: str
    inventory_cents: int


@record("table_equipment_changed", roles=("table",))
class TableEquipmentChanged(Record):
    """The table's wheel or shoe is replaced by asset ``equipment``."""

    table: str
    equipment: str


@record("table_stretch", roles=("table", "patron", "dealer"))
class TableStretch(Record):
    """One player's stretch at a table: ``rounds`` rounds of ``bet`` at ``stake_cents``
    each. ``buy_in_cents``: cash into the drop box for chips of ``chip_series``;
    ``net_cents``: the player's net result (the table won ``-net_cents``); ``handle_cents``:
    stakes wagered; ``theo_cents``: the table's expected win (the bet's house edge, rounded).
    Whether the player held a device is not here: the casino sees a device only when it
    detects one (``device_detected``); the twin's truth is ``device_carried``."""

    table: str
    game: str
    patron: str
    dealer: str
    bet: str
    stake_cents: int
    rounds: int
    buy_in_cents: int
    handle_cents: int
    net_cents: int
    theo_cents: int
    var_cents2: int  # the variance of the table's win over the stretch (cents squared)
    chip_series: str


@record("table_fill", roles=("table", "dealer"))
class TableFill(Record):
    """Chips from the cage to a table (``credit`` False) or back (``credit`` True)."""

    table: str
    dealer: str
    amount_cents: int
    credit: bool


@record("table_fill_requested", roles=("table", "dealer"))
class TableFillRequested(Record):
    """The dealer of ``table`` asks for a fill (chips from the cage, ``credit`` False) or a
    credit (chips back to the cage, ``credit`` True) of ``amount_cents``: it waits for the
    operator (``[tables] operator``; never written otherwise)."""

    table: str
    dealer: str
    amount_cents: int
    credit: bool


@record("table_count", roles=("table", "members"))
class TableCount(Record):
    """The drop box counted and reconciled against the table card for one period.

    ``win_cents`` = closing + credits - opening - fills + drop (the count's win);
    ``card_drop_cents``: the buy-ins written on the table card; ``variance_cents``: counted
    drop minus the card's (0 when they agree)."""

    table: str
    game: str
    members: tuple[str, ...]
    opening_cents: int
    fills_cents: int
    credits_cents: int
    closing_cents: int
    drop_cents: int
    card_drop_cents: int
    win_cents: int
    variance_cents: int


@record("count_variance_investigated", roles=("table", "members"))
class CountVarianceInvestigated(Record):
    """A count variance investigated (who looked, what they found)."""

    table: str
    members: tuple[str, ...]
    variance_cents: int
    finding: str


# -- equipment, chips and devices (reg 23) ----------------------------------------------------


@record("unapproved_item_detected", roles=("table", "patron", "dealer"))
class UnapprovedItemDetected(Record):
    """Staff become aware that a person holds unapproved equipment or chips (reg 23(3))."""

    table: str
    patron: str
    dealer: str
    item: str  # "chips:<series>" or "equipment:<asset>"


@record("unapproved_item_reported", roles=("table", "patron", "dealer", "inspector"))
class UnapprovedItemReported(Record):
    """The detection reported to a Board inspector (reg 23(3) proviso)."""

    table: str
    patron: str
    dealer: str
    inspector: str
    item: str
    detected_seq: int


@record("device_detected", roles=("table", "patron"))
class DeviceDetected(Record):
    """Surveillance detects a prohibited device at a gaming position; the licensee is
    satisfied the person contravened reg 23(5). ``stretch``: the seq of the stretch the
    person had already played holding it (detected on review, after wagers were settled),
    0 when it was detected before any wager."""

    table: str
    patron: str
    device: str
    by: str
    stretch: int = 0


@record("device_carried", roles=("table", "patron"), truth=True)
class DeviceCarried(Record):
    """The twin's truth (no checker reads it): ``patron`` brought ``device`` to ``table``;
    ``detected``: "before_play", "after_play" (wagers were settled first) or "never"
    (surveillance missed it). The detection KPI reads it."""

    table: str
    patron: str
    device: str
    detected: str


@record("device_sanction", roles=("patron",))
class DeviceSanction(Record):
    """A sanction of reg 23(6): void_wagers, play_ban, eviction or police_complaint."""

    patron: str
    sanction: str
    detected_seq: int


@record("play_refused", roles=("patron",))
class PlayRefused(Record):
    """A patron barred from play (reg 23(6)(b)) is refused a seat."""

    patron: str
    reason: str


# -- the card room (reg 26) --------------------------------------------------------------------


@record("card_room_opened", roles=("area",))
class CardRoomOpened(Record):
    """A card room area opens, showing ``displayed_rate_cents`` an hour if ``displayed``."""

    area: str
    displayed: bool
    displayed_rate_cents: int


@record("card_room_session", roles=("area", "patron"))
class CardRoomSession(Record):
    """A player's time in a card room area, charged ``rate_cents`` per started hour."""

    area: str
    patron: str
    seconds: float
    hours_billed: int
    rate_cents: int
    charged_cents: int


__all__ = [
    "BoardMinimumStake",
    "CardRoomApproved",
    "CardRoomOpened",
    "CardRoomSession",
    "CountVarianceInvestigated",
    "DeviceCarried",
    "DeviceDetected",
    "DeviceSanction",
    "EntranceNotice",
    "GamingItemsApproved",
    "NoticeRequirements",
    "PitConfigured",
    "PlayRefused",
    "StakesAuthorised",
    "TableClosed",
    "TableCount",
    "TableEquipmentChanged",
    "TableFill",
    "TableFillRequested",
    "TableOpened",
    "TableStakes",
    "TableStretch",
    "UnapprovedItemDetected",
    "UnapprovedItemReported",
]
