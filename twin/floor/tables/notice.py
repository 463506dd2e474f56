"""The entrance notice of a casino without a table pit (reg 22).

A casino with a ``[tables]`` section exhibits its notice through the pit (its games, stakes,
conditions and fee). A casino without one still exhibits a notice at its entrance: this
department posts it at t = 0 and leaves it displayed. It lists no table game (there are
none); the Board's requirements of conditions and fee are part of ``[tables]``, so it shows
none. The injection ``no_entrance_notice`` takes the function away (nothing is ever posted).
"""

from __future__ import annotations

from twin.floor.tables.events import EntranceNotice
from twin.world import World


class NoticeBoard:
    """The entrance notice of a casino with no pit: a department."""

    name = "notice"

    def __init__(self, world: World) -> None:
        self.world = world
        self.missing = False  # the casino has no notice at all (injected)

    def start(self) -> None:
        if self.missing:
            return
        self.world.bus.emit(EntranceNotice, games=(), min_stakes_cents=(), max_stakes_cents=(),
                            conditions=(), entrance_fee_cents=0, displayed=True)  # fmt: skip

    def finish(self) -> None:
        """Nothing is due at the end."""


__all__ = ["NoticeBoard"]
