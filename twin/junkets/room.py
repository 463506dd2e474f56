"""The junket room as the casino's entrance notice and stakes see it (reg 21, 22)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class JunketRoom:
    """The junket room's tables as the casino's notice and stakes see them: ``game`` (its
    id), the tables' ids, their minimum and maximum stake, and the Board's minimum stake
    and authorised maximum of the game (reg 21(1), (3))."""

    game: str
    tables: tuple[str, ...]
    min_stake_cents: int
    max_stake_cents: int
    board_minimum_cents: int
    authorised_maximum_cents: int
    #: the notice leaves the junket room out (injected: ``junket_room_off_notice``)
    off_notice: bool = False


__all__ = ["JunketRoom"]
