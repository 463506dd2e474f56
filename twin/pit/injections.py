"""Injected violations of the table pit and the card room (regs 21, 22, 23, 26).

Each kind names its table (or card room area) in the ``[[inject]]``'s ``target``; the
targets are checked before t = 0 (:func:`validate`). A kind that spoils "the next player"
arms the table: its next player (after ``at_hours``) is the one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from twin.department import Site, Venue
from twin.errors import InputError
from twin.injections import InjectViolation, injection
from twin.pit import pit as P
from twin.pit.notice import NoticeBoard
from twin.pit.pit import Pit
from twin.pit.records import TableEquipmentChanged

if TYPE_CHECKING:
    from twin.pit.pit import Pit, Table

#: kinds whose target is a table, and those whose target is a card room area
ON_TABLE = (
    P.WAGER_BELOW_MINIMUM,
    "unauthorised_stake_change",
    P.NOTICE_NOT_UPDATED,
    "unapproved_equipment",
    P.UNREPORTED_COUNTERFEIT,
    P.UNDETECTED_DEVICE,
    P.DEVICE_SEEN_AFTER_PLAY,
    P.DEVICE_WITHOUT_SANCTION,
    "table_drop_skim",
    P.COUNT_WITHOUT_STAFF,
)
ON_AREA = ("card_room_overcharge",)


def validate(site: Site) -> None:
    """Every table injection names a table (an area) of the scenario's ``[tables]``."""
    pit, source = site.find(Pit), site.source
    for i, inj in enumerate(site.scenario.inject):
        if inj.kind not in ON_TABLE + ON_AREA:
            continue
        if pit is None:
            raise InputError(source, f"inject[{i}].kind", "a kind for this scenario (it has no "
                             "[tables] section)", inj.kind)  # fmt: skip
        known = sorted(pit.tables if inj.kind in ON_TABLE else pit.rooms)
        what = "table" if inj.kind in ON_TABLE else "card room area"
        if inj.target not in known:
            raise InputError(source, f"inject[{i}].target",
                             f"the id of a {what} ({', '.join(known) or 'none'})",
                             inj.target)  # fmt: skip
        if inj.kind == P.NOTICE_NOT_UPDATED and inj.amount <= 0:
            raise InputError(source, f"inject[{i}].amount",
                             "the new maximum stake in cents (> 0)", inj.amount)  # fmt: skip


def _pit(venue: Venue) -> Pit:
    pit = venue.find(Pit)
    assert pit is not None
    return pit


def _table(venue: Venue, inj: InjectViolation) -> Table:
    assert inj.target is not None
    return _pit(venue).table(inj.target)


def _arm(kind: str, doc: str) -> None:
    def apply(venue: Venue, inj: InjectViolation) -> None:
        _table(venue, inj).armed[kind] = inj.amount

    injection(kind, doc, needs=("target",))(apply)


_arm(
    P.WAGER_BELOW_MINIMUM,
    "the table's next player wagers `amount` cents (0: half the Board's minimum) and the "
    "dealer accepts it (reg 21(1))",
)
_arm(
    P.UNREPORTED_COUNTERFEIT,
    "the table's next player presents chips the Board never approved; the dealer refuses "
    "them but nobody reports it to a Board inspector (reg 23(3) proviso)",
)
_arm(
    P.UNDETECTED_DEVICE,
    "the table's next player carries a card-counting computer that surveillance misses: "
    "the player's wagers are settled, and nobody ever knows (the twin's truth, "
    "`device_carried`, and the detection KPI show it; no checker can: no finding)",
)
_arm(
    P.DEVICE_SEEN_AFTER_PLAY,
    "the table's next player carries a card-counting computer that surveillance finds only "
    "on review, after the player's wagers were settled; the sanctions follow (reg 23(5))",
)
_arm(
    P.DEVICE_WITHOUT_SANCTION,
    "the table's next player carries a device; surveillance detects it, but the licensee "
    "applies no sanction (reg 23(6))",
)


@injection(
    "unauthorised_stake_change",
    "the table's maximum stake is raised to `amount` cents (0: twice the game's authorised "
    "maximum) without the Board's authorisation (reg 21(3))",
    needs=("target",),
)
def _unauthorised_stake_change(venue: Venue, inj: InjectViolation) -> None:
    pit = _pit(venue)
    t = _table(venue, inj)
    new = inj.amount if inj.amount > 0 else 2 * pit.config.authorised_maximum_cents[t.game.id]
    pit.change_stakes(t, None, new, authorised=False)


@injection(
    P.NOTICE_NOT_UPDATED,
    "the table's maximum stake changes to `amount` cents with the Board's authorisation, "
    "but the entrance notice is not updated (reg 22)",
    needs=("target", "amount"),
)
def _notice_not_updated(venue: Venue, inj: InjectViolation) -> None:
    _pit(venue).change_stakes(_table(venue, inj), None, inj.amount, authorised=True,
                               notice=False)  # fmt: skip


@injection(
    "unapproved_equipment",
    "the table's wheel or shoe is replaced by one the Board never approved (reg 23(1))",
    needs=("target",),
)
def _unapproved_equipment(venue: Venue, inj: InjectViolation) -> None:
    t = _table(venue, inj)
    t.equipment = f"{t.cfg.equipment}-UNAPPROVED"
    venue.world.bus.emit(TableEquipmentChanged, table=t.id, equipment=t.equipment)


@injection(
    "table_drop_skim",
    "`amount` cents (0: 5000) are taken from the table's drop box before the count: the "
    "count falls short of the table card's buy-ins (reg 41(a))",
    needs=("target",),
)
def _table_drop_skim(venue: Venue, inj: InjectViolation) -> None:
    t = _table(venue, inj)
    t.drop -= min(t.drop, inj.amount if inj.amount > 0 else 5000)


_arm(
    P.COUNT_WITHOUT_STAFF,
    "the table's next count is made by the Board inspector of the drop team alone, with none "
    "of the licensee's staff (reg 41(b)(iii))",
)


@injection(
    "no_entrance_notice",
    "the casino exhibits no entrance notice at all, with or without tables: nobody posts "
    "one (reg 22)",
    needs=(),
    static=True,
)
def _no_entrance_notice(venue: Venue, inj: InjectViolation) -> None:
    if (_pit := venue.find(Pit)) is not None:
        _pit.no_notice = True
    if (_noticeboard := venue.find(NoticeBoard)) is not None:
        _noticeboard.missing = True


@injection(
    "card_room_overcharge",
    "the card room area charges `amount` cents an hour (0: 100) above its approved rate (reg 26)",
    needs=("target",),
)
def _card_room_overcharge(venue: Venue, inj: InjectViolation) -> None:
    assert inj.target is not None
    room = _pit(venue).rooms[inj.target]
    room.rate += inj.amount if inj.amount > 0 else 100


__all__ = ["ON_AREA", "ON_TABLE", "validate"]
