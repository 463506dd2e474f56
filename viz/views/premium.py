"""The premium room's layer of the floor view (issue 32): the Singapore premium-player room
and its tables (PR-01...), right of the junket room. A table is drawn open while players sit
at it: a player is in the room from the chips drawn for the evening's session to the
session's record at the day's cash-in (live, the table their visit took is read from the
running room; a replay reads it from the session's record). The room's key figures (players
with premium status, accounts, deposits today) are in the sidebar; a click on a table opens
its panel."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pygame

from viz import palette as P
from viz.views import fill, register
from viz.views.pit import draw_table, short_game

if TYPE_CHECKING:
    from viz.app import Viewer

Surface = pygame.surface.Surface


def sgd(cents: int) -> str:
    sign = "-" if cents < 0 else ""
    return f"{sign}S$ {abs(cents) / 100:,.0f}"


@register("premium")
class PremiumView:
    """The premium-player room (see the module docstring)."""

    name = "premium"
    needs = ("hall", "clock")

    def draw(self, viewer: Viewer, s: Surface) -> None:
        hp = viewer.hall_plan
        hall = viewer.source.model.hall
        tables = hall.table_list("premium")
        if hp is None or not tables or hp.premium_room[2] <= 0:
            return
        s.set_clip(viewer.floor_rect)
        room = viewer.world_rect(hp.premium_room)
        fill(s, P.ROOM, room)
        pygame.draw.rect(s, P.TABLE_EDGE, room, 1)
        viewer.text.draw(
            s, f"premium room: {len(hall.premium_in)} in",
            (room.x + 4, room.y + 2), 15, P.MUTED, bold=True, width=room.w - 6,
        )  # fmt: skip
        for tv in tables:  # open while players sit at it
            draw_table(viewer, s, tv, tv.seated > 0)
        s.set_clip(None)

    def lines(self, viewer: Viewer, tid: str) -> list[str]:
        """A premium table's panel."""
        model = viewer.source.model
        tv = model.hall.tables[tid]
        out = [f"{tv.id}  premium room table  {short_game(tv.game) if tv.game else ''}".rstrip()]
        out.append(f"seated now: {tv.seated}" if tv.seated else "no one seated")
        out.append(f"sessions recorded: {tv.stretches} (each once, at the day's cash-in)")
        out.append(f"staked {sgd(tv.handle_cents)}, table won {sgd(tv.win_cents)}")
        if tv.last:
            out.append("last players (net to the player):")
            for t, player, net in reversed(tv.last):
                out.append(f"  {model.clock.at(t):%d %b %H:%M} {player} {sgd(net)}")
        return out


__all__ = ["PremiumView", "sgd"]
