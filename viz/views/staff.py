"""The staff's layer of the floor view (issue 32): every member on duty, where their work is,
drawn in their role's shape and colour (:data:`viz.palette.ROLES`, listed in the sidebar's
legend).

Where a member is drawn, first match: at or walking to a machine's job (the slot floor's
convention, :meth:`viz.views.slots.SlotsView.staff_position`); in the count room while the
count is on (its records name the team); a dealer at their open table (kept there past their
shift's end until relieved, as the pit keeps them); a Board inspector on duty at a table they
supervise; a cashier at their cage window (one window a cashier on duty, in the
order of their ids); the chief cashier at the cage's desk; everyone else in the staff room.
A member is drawn filled when busy (a job, a table with players, a window that has just
served), the outline alone when idle at their post.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import pygame

from viz import palette as P
from viz.model import COUNT_SHOWN_SECONDS, WINDOW_SHOWN_SECONDS
from viz.views import fill, register

if TYPE_CHECKING:
    from viz.app import Viewer

Surface = pygame.surface.Surface
Point = tuple[float, float]
#: world units between the members of one job at its machine (side by side, not on top)
SIDE_BY_SIDE = 6.0


def marker(s: Surface, style: P.RoleStyle, centre: tuple[int, int], r: int, busy: bool) -> None:
    """A member's marker: ``style``'s shape at ``centre`` with radius ``r``; filled when
    ``busy``, else its outline in the role's colour over white."""
    x, y = centre
    shape = style.shape
    if shape == "circle":
        pts: list[tuple[float, float]] = []
    elif shape == "square":
        pts = [(x - r, y - r), (x + r, y - r), (x + r, y + r), (x - r, y + r)]
    elif shape == "triangle":
        pts = [(x, y - r - 1), (x + r + 1, y + r), (x - r - 1, y + r)]
    elif shape == "down":
        pts = [(x - r - 1, y - r), (x + r + 1, y - r), (x, y + r + 1)]
    elif shape == "diamond":
        pts = [(x, y - r - 1), (x + r + 1, y), (x, y + r + 1), (x - r - 1, y)]
    elif shape == "star":
        pts = []
        for i in range(10):
            a = -math.pi / 2 + i * math.pi / 5
            rr = (r + 2) if i % 2 == 0 else (r + 2) * 0.45
            pts.append((x + rr * math.cos(a), y + rr * math.sin(a)))
    else:  # cross
        w = max(1, r // 2)
        pts = [
            (x - w, y - r), (x + w, y - r), (x + w, y - w), (x + r, y - w), (x + r, y + w),
            (x + w, y + w), (x + w, y + r), (x - w, y + r), (x - w, y + w), (x - r, y + w),
            (x - r, y - w), (x - w, y - w),
        ]  # fmt: skip
    fill = style.colour if busy else (255, 255, 255)
    if not pts:
        pygame.draw.circle(s, fill, centre, r)
        pygame.draw.circle(s, (0, 0, 0) if busy else style.colour, centre, r, 1 if busy else 2)
        return
    pygame.draw.polygon(s, fill, pts)
    pygame.draw.polygon(s, (0, 0, 0) if busy else style.colour, pts, 1 if busy else 2)


@register("staff")
class StaffView:
    """Every member on duty, by role, where their work is (see the module docstring)."""

    name = "staff"
    needs = ("on_duty", "busy", "walks", "hall", "t")

    def draw(self, viewer: Viewer, surface: Surface) -> None:
        """The staff room (the members are drawn over every department: draw_over)."""
        hp = viewer.hall_plan
        if hp is None:
            return
        surface.set_clip(viewer.floor_rect)
        room = viewer.world_rect(hp.staff_room)
        fill(surface, P.ROOM, room)
        pygame.draw.rect(surface, P.TABLE_EDGE, room, 1)
        viewer.text.draw(surface, "staff room (idle)", (room.x + 4, room.y + 2), 15, P.MUTED,
                         bold=True, width=room.w - 6)  # fmt: skip
        surface.set_clip(None)

    def places(self, viewer: Viewer) -> dict[str, tuple[Point, bool]]:
        """Each member on duty (and a dealer kept at their table past their shift's end, on
        overtime): where they are drawn (world units) and whether busy."""
        model = viewer.source.model
        hall = model.hall
        hp = viewer.hall_plan
        out: dict[str, tuple[Point, bool]] = {}
        taken: dict[Point, int] = {}
        for member in sorted(model.walks):
            at = viewer.slots.staff_position(viewer, member)
            if at is not None:  # a job's second member stands beside the first
                n = taken.get(at, 0)
                taken[at] = n + 1
                out[member] = ((at[0] - SIDE_BY_SIDE * n, at[1]), True)
        if hp is None:
            return out
        if hall.count_t >= 0 and model.t - hall.count_t < COUNT_SHOWN_SECONDS:
            cx, cy, cw, ch = hp.count_room
            for i, member in enumerate(hall.count_team):
                if member not in out and member in model.on_duty:
                    out[member] = ((cx + 10 + i * 12, cy + ch - 8), True)
        for tid, tv in sorted(hall.tables.items()):
            rect = hp.tables.get(tid)
            if rect is None or not tv.open:
                continue
            x, y, w, h = rect
            if tv.dealer and tv.dealer not in out:
                out[tv.dealer] = ((x + w / 2, y + h - 5), tv.seated > 0)
            if tv.inspector in model.on_duty and tv.inspector not in out:
                out[tv.inspector] = ((x + w - 5, y + h - 5), True)
        for i, cashier in enumerate(self.cashiers(viewer)):
            if cashier in out or i >= len(hp.windows):
                continue
            wx, wy, ww, _wh = hp.windows[i]
            win = hall.windows.get(cashier)
            busy = win is not None and 0 <= model.t - win.last_t < WINDOW_SHOWN_SECONDS
            out[cashier] = ((wx + ww / 2, wy + 6), busy)
        cx, cy, cw, ch = hp.cage
        chiefs = [m for m, r in sorted(model.on_duty.items()) if r == "chief_cashier"]
        for i, chief in enumerate(chiefs):
            if chief not in out:
                out[chief] = ((cx + cw - 8 - 12 * i, cy + ch - 7), False)
        sx, sy, sw, _sh = hp.staff_room
        per_row = max(1, int((sw - 12) // 11))
        rest = [m for m in sorted(model.on_duty) if m not in out]
        for i, member in enumerate(rest):
            out[member] = ((sx + 8 + (i % per_row) * 11, sy + 20 + (i // per_row) * 11), False)
        return out

    def cashiers(self, viewer: Viewer) -> list[str]:
        """The cashiers on duty, one a window, in the order of their ids."""
        duty = viewer.source.model.on_duty
        return sorted(m for m, r in duty.items() if r == "cashier")

    def draw_over(self, viewer: Viewer, s: Surface) -> None:
        model = viewer.source.model
        r = viewer.floor_rect
        radius = max(3, min(6, round(1.6 * viewer.zoom)))
        s.set_clip(r)
        dealers = {tv.dealer for tv in model.hall.tables.values() if tv.open}
        for member, (at, busy) in self.places(viewer).items():
            role = model.on_duty.get(member, "dealer" if member in dealers else "")
            if not role:
                continue
            x, y = viewer.to_screen(*at)
            marker(s, P.role_style(role), (int(x), int(y)), radius, busy)
        s.set_clip(None)


__all__ = ["StaffView", "marker"]
