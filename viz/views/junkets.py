"""The junkets' layer of the floor view (issue 32): the junket room and its tables, right of
the cage: the groups in the casino now, their members, the room's tables (open while a group
plays at them, as the pit's are drawn)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pygame

from viz import palette as P
from viz.views import fill, register
from viz.views.pit import draw_table

if TYPE_CHECKING:
    from viz.app import Viewer

Surface = pygame.surface.Surface


@register("junkets")
class JunketsView:
    """The junket room (see the module docstring)."""

    name = "junkets"
    needs = ("hall",)

    def draw(self, viewer: Viewer, s: Surface) -> None:
        hp = viewer.hall_plan
        hall = viewer.source.model.hall
        tables = hall.table_list("junket")
        if hp is None or not (tables or hall.junket_leaders):
            return
        s.set_clip(viewer.floor_rect)
        room = viewer.world_rect(hp.junket_room)
        fill(s, P.ROOM, room)
        pygame.draw.rect(s, P.TABLE_EDGE, room, 1)
        viewer.text.draw(
            s, f"junkets: {len(hall.junkets)} in",
            (room.x + 4, room.y + 2), 15, P.MUTED, bold=True, width=room.w - 6,
        )  # fmt: skip
        for tv in tables:  # open while a group is in
            draw_table(viewer, s, tv, bool(hall.junkets))
        s.set_clip(None)


__all__ = ["JunketsView"]
