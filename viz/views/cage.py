"""The cage's layer of the floor view (issue 32): the cash desks' windows and the count room,
right of the door.

One window a cashier on duty (in the order of their ids; the chief cashier at the cage's
desk): white while the window waits, yellow while it serves (a transaction's record is written
as it completes, so a window is drawn serving its patron for
:data:`viz.model.WINDOW_SHOWN_SECONDS` after it), grey with no cashier. The twin's cage has no
queue (a patron is served the moment they come): the queue's count is drawn, and is 0. The
count room is drawn lit for :data:`viz.model.COUNT_SHOWN_SECONDS` after a count, with what it
counted and its team. Clicking a window opens its panel.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pygame

from viz import palette as P
from viz.model import COUNT_SHOWN_SECONDS, WINDOW_SHOWN_SECONDS
from viz.views import fill, register
from viz.views.pit import money

if TYPE_CHECKING:
    from viz.app import Viewer

Surface = pygame.surface.Surface


def cashiers(viewer: Viewer) -> list[str]:
    """The cashiers on duty, one a window, in the order of their ids."""
    duty = viewer.source.model.on_duty
    return sorted(m for m, r in duty.items() if r == "cashier")


def window_busy(viewer: Viewer, cashier: str) -> bool:
    model = viewer.source.model
    w = model.hall.windows.get(cashier)
    return w is not None and 0 <= model.t - w.last_t < WINDOW_SHOWN_SECONDS


@register("cage")
class CageView:
    """The cage's windows and the count room (see the module docstring)."""

    name = "cage"
    needs = ("hall", "on_duty", "t", "clock")

    def draw(self, viewer: Viewer, s: Surface) -> None:
        hp = viewer.hall_plan
        model = viewer.source.model
        hall = model.hall
        if hp is None or not hall.cage:
            return
        t = viewer.text
        s.set_clip(viewer.floor_rect)
        cage = viewer.world_rect(hp.cage)
        fill(s, P.CAGE, cage)
        pygame.draw.rect(s, P.TABLE_EDGE, cage, 1)
        t.draw(s, "cage, queue 0", (cage.x + 4, cage.y + 2),
               15, P.MUTED, bold=True, width=cage.w - 6)  # fmt: skip
        on = cashiers(viewer)
        for i, rect in enumerate(hp.windows):
            box = viewer.world_rect(rect)
            if i >= len(on):
                colour = P.WINDOW_CLOSED
            else:
                colour = P.WINDOW_BUSY if window_busy(viewer, on[i]) else P.WINDOW_IDLE
            fill(s, colour, box)
            pygame.draw.rect(s, P.TABLE_EDGE, box, 1)
            if viewer.selected_place == ("window", str(i)):
                pygame.draw.rect(s, P.SELECT, box.inflate(8, 8), 2)
            t.draw(s, str(i + 1), (box.x + 2, box.bottom - 12), 13, P.MUTED)
        room = viewer.world_rect(hp.count_room)
        counting = hall.count_t >= 0 and model.t - hall.count_t < COUNT_SHOWN_SECONDS
        fill(s, P.COUNT_ACTIVE if counting else P.ROOM, room)
        pygame.draw.rect(s, P.TABLE_EDGE, room, 1)
        t.draw(s, "count room" + (": counting" if counting else ""), (room.x + 4, room.y + 2),
               15, P.MUTED, bold=True, width=room.w - 6)  # fmt: skip
        if hall.count_t >= 0:
            lines = [
                f"{model.clock.at(hall.count_t):%a %H:%M}: {hall.counted:,} counted",
                f"{money(hall.counted_cents)}, "
                + (f"var. {money(var)}" if (var := hall.count_variance_cents) else "no variance"),
            ]
        else:
            lines = ["no count yet"]
        for i, line in enumerate(lines):
            t.draw(s, line, (room.x + 4, room.y + 16 + 13 * i), 13, P.TEXT, width=room.w - 6)
        s.set_clip(None)

    def lines(self, viewer: Viewer, index: int) -> list[str]:
        """A window's panel."""
        model = viewer.source.model
        on = cashiers(viewer)
        out = [f"cage window {index + 1}"]
        if index >= len(on):
            return [*out, "closed: no cashier on duty for it"]
        cashier = on[index]
        w = model.hall.windows.get(cashier)
        busy = window_busy(viewer, cashier)
        out.append(f"cashier {cashier}: {'SERVING' if busy else 'waiting for a patron'}")
        if w is None:
            return [*out, "no transaction yet"]
        out.append(f"transactions: {w.served}")
        out.append(
            f"last: {model.clock.at(w.last_t):%H:%M:%S} {w.txn_kind.replace('_', ' ')} "
            f"{money(w.amount_cents)}"
        )
        out.append(f"patron {w.patron}")
        return out


__all__ = ["CageView", "cashiers", "window_busy"]
