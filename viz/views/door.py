"""The door's layer of the floor view (issue 32): the entrance desk under the slot floor's
entrance, where every entrant's identity is checked (regs 20, 24), with the lane where
entrants wait and the way out for those refused (the patrons' layer draws them), and its
figures: entries, refusals by reason, the queue now.

The twin's door takes no time (an entrant is admitted or refused the instant they arrive), so
its queue is empty between events; it is drawn all the same, as an operator rehearsing would
look for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pygame

from viz import palette as P
from viz.views import fill, register

if TYPE_CHECKING:
    from viz.app import Viewer

Surface = pygame.surface.Surface


@register("door")
class DoorView:
    """The door's desk and lane (see the module docstring)."""

    name = "door"
    needs = ("hall",)

    def draw(self, viewer: Viewer, s: Surface) -> None:
        hp = viewer.hall_plan
        hall = viewer.source.model.hall
        if hp is None or not hall.door:
            return
        s.set_clip(viewer.floor_rect)
        lane = viewer.world_rect(hp.queue)
        fill(s, (250, 250, 248), lane)
        pygame.draw.rect(s, P.ZONE_EDGE, lane, 1)
        desk = viewer.world_rect(hp.door)
        fill(s, P.ENTRANCE, desk)
        refused = sum(hall.refusals.values())
        t = viewer.text
        size = max(11, min(16, desk.h))
        t.draw(s, "door", (desk.x + 3, desk.y + 2), size, (255, 255, 255), bold=True)
        left = t.render(f"{hall.entries:,} in", size, P.TEXT)
        s.blit(left, (lane.x - left.get_width() - 3, lane.y + 2))
        t.draw(s, f"queue {len(hall.at_door)}", (lane.right + 3, lane.y + 2), size, P.TEXT)
        t.draw(s, f"{refused} refused", (lane.right + 3, lane.y + 2 + size), size, P.REFUSED)
        s.set_clip(None)


__all__ = ["DoorView"]
