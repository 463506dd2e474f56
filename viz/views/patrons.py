"""The patrons' layer of the floor view (issue 32): the patrons around the slot floor (the
slot floor's layer draws those walking to, from and seated at a machine).

A patron is a diamond (:data:`viz.palette.PATRON`): in the door's lane while the door has not
decided (the twin's door takes no time: rarely seen), walking away from the door in the
refusal colour for :data:`viz.model.REFUSED_WALK_SECONDS` after a refusal, on each seat taken
at a table or in the card room (the live world's count: a stretch's record is written as it
ends), at a cage window while it serves, junket members in the junket room while not at its tables,
and by the entrance while waiting for a machine
(live; the slot floor's layer writes their count by the entrance).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pygame

from viz import palette as P
from viz.model import REFUSED_WALK_SECONDS
from viz.views import register
from viz.views.cage import cashiers, window_busy
from viz.views.pit import seat_positions

if TYPE_CHECKING:
    from viz.app import Viewer

Surface = pygame.surface.Surface


@register("patrons")
class PatronsView:
    """Patrons at the door, the tables, the cage, waiting for a machine."""

    name = "patrons"
    needs = ("hall", "t", "whereabouts")

    def __init__(self) -> None:
        self._sprites: dict[tuple[int, P.Colour], Surface] = {}

    def draw(self, viewer: Viewer, surface: Surface) -> None:
        pass  # drawn over the other departments' places (draw_over)

    def sprite(self, radius: int, colour: P.Colour) -> Surface:
        key = (radius, colour)
        got = self._sprites.get(key)
        if got is None:
            size = 2 * radius + 1
            got = pygame.Surface((size, size))
            got.fill((255, 0, 255))
            got.set_colorkey((255, 0, 255))
            pts = [(radius, 0), (size - 1, radius), (radius, size - 1), (0, radius)]
            pygame.draw.polygon(got, colour, pts)
            pygame.draw.polygon(got, (0, 0, 0), pts, 1)
            self._sprites[key] = got
        return got

    def draw_over(self, viewer: Viewer, s: Surface) -> None:
        model = viewer.source.model
        hall = model.hall
        radius = max(2, min(5, round(1.3 * viewer.zoom)))
        here = self.sprite(radius, P.PATRON)
        away = self.sprite(radius, P.REFUSED)
        s.set_clip(viewer.floor_rect)

        def put(sprite: Surface, at: tuple[float, float]) -> None:
            x, y = viewer.to_screen(*at)
            s.blit(sprite, (int(x) - radius, int(y) - radius))

        for at in self.queue_positions(viewer):
            put(here, at)
        hp = viewer.hall_plan
        if hp is None:
            s.set_clip(None)
            return
        qx, qy, qw, _qh = hp.queue
        for i, _patron in enumerate(sorted(hall.at_door, key=hall.at_door.__getitem__)):
            put(here, (qx + qw / 2, qy + 4 + 6 * i))
        dx, dy = hp.door[0] + hp.door[2] / 2, hp.door[1] + hp.door[3]
        rx, ry = hp.refused
        for _person, (_reason, t0) in hall.leaving.items():
            share = (model.t - t0) / REFUSED_WALK_SECONDS
            if 0 <= share < 1:
                put(away, (dx + (rx - dx) * share, dy + (ry - dy) * share))
        for tid, tv in hall.tables.items():
            rect = hp.tables.get(tid)
            if rect is None or not tv.seated:
                continue
            for at in seat_positions(rect, max(tv.seats, tv.seated))[: tv.seated]:
                put(here, at)
        on = cashiers(viewer)
        for i, rect in enumerate(hp.windows):
            if i < len(on) and window_busy(viewer, on[i]):
                put(here, (rect[0] + rect[2] / 2, rect[1] + rect[3] + 4))
        members = sum(len(m) for _leader, m in hall.junkets.values())
        in_room = members - sum(tv.seated for tv in hall.table_list("junket"))
        jx, jy, jw, jh = hp.junket_room
        per_row = max(1, int((jw - 12) // 7))
        for i in range(max(0, in_room)):  # the members in the room, not at a table
            put(here, (jx + 8 + (i % per_row) * 7, jy + jh - 4 - 7 * (i // per_row)))
        s.set_clip(None)

    def queue_positions(self, viewer: Viewer) -> list[tuple[float, float]]:
        """Where the patrons waiting for a machine stand (world units): inside the entrance,
        left of it, six a row (at most two rows drawn; the entrance's label counts them)."""
        waiting = viewer.source.model.hall.machine_queue or 0
        ex, ey = viewer.plan.entrance
        return [(ex - 60 - 6 * (i % 6), ey + 6 * (i // 6) - 3) for i in range(min(waiting, 12))]


__all__ = ["PatronsView"]
