"""The entrance notice of a casino without a table pit (reg 22), and the junket room's tables
as the notice lists them.

A casino with a ``[tables]`` section exhibits its notice through the pit (its games, stakes,
conditions and fee). A casino without one still exhibits a notice at its entrance: this
department posts it at t = 0 and leaves it displayed. It lists no table game of a pit (there
are none); the Board's requirements of conditions and fee are part of ``[tables]``, so it
shows none. The injection ``no_entrance_notice`` takes the function away (nothing is ever
posted).

The junket room (reg 25) is part of the casino open for business: its junkets come "to the
casino for the purpose of junket gaming", with deposits "for the purpose of gaming in the
casino". Its game is an authorised game conducted in the casino (reg 21), its tables'
stakes belong on the entrance notice (reg 22(a)). Whoever exhibits the notice (the pit, or
this department without one) records the Board's figures for the junket room's game when
nobody else does, the stakes of the junket room's tables (``table_stakes``), and lists them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from twin.pit.records import (
    BoardMinimumStake,
    EntranceNotice,
    StakesAuthorised,
    TableStakes,
)
from twin.world import World

if TYPE_CHECKING:
    from twin.junkets import JunketRoom  # the junkets provide it (the pit uses them)


def emit_room_board(room: JunketRoom, world: World, inspector: str = "") -> None:
    """The Board's minimum and authorised maximum of the junket room's game."""
    world.bus.emit(BoardMinimumStake, game=room.game,
                   min_stake_cents=room.board_minimum_cents)  # fmt: skip
    world.bus.emit(StakesAuthorised, game=room.game, table="", min_stake_cents=0,
                   max_stake_cents=room.authorised_maximum_cents,
                   inspector=inspector)  # fmt: skip


def emit_room_stakes(room: JunketRoom, world: World) -> None:
    """The stakes in force at each junket room table, as set up."""
    for t in room.tables:
        world.bus.emit(TableStakes, table=t, game=room.game,
                       min_stake_cents=room.min_stake_cents,
                       max_stake_cents=room.max_stake_cents, reason="licence")  # fmt: skip


class NoticeBoard:
    """The entrance notice of a casino with no pit: a department."""

    name = "notice"

    def __init__(self, world: World, junket_room: JunketRoom | None = None) -> None:
        self.world = world
        self.junket_room = junket_room
        self.missing = False  # the casino has no notice at all (injected)

    def start(self) -> None:
        room = self.junket_room
        if room is not None:
            emit_room_board(room, self.world)
            emit_room_stakes(room, self.world)
        if self.missing:
            return
        games: tuple[str, ...] = ()
        lo: tuple[int, ...] = ()
        hi: tuple[int, ...] = ()
        if room is not None and not room.off_notice:
            games, lo, hi = (room.game,), (room.min_stake_cents,), (room.max_stake_cents,)
        self.world.bus.emit(EntranceNotice, games=games, min_stakes_cents=lo,
                            max_stakes_cents=hi, conditions=(), entrance_fee_cents=0,
                            displayed=True)  # fmt: skip

    def finish(self) -> None:
        """Nothing is due at the end."""


__all__ = ["NoticeBoard", "emit_room_board", "emit_room_stakes"]
