"""The slot floor's layer of the floor view: zones, banks, the entrance, the machines in their
state colours, patrons walking in and out or seated, busy staff at or walking to their job.

The plan (:mod:`viz.layout`) and its geometry (zoom, pan, a machine's rectangle on screen) stay
the viewer's: it is the floor view's frame, which the other departments' layers will share.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import pygame

from viz import palette as P
from viz.layout import CELL
from viz.views import fill, register

if TYPE_CHECKING:
    from viz.app import Viewer

Surface = pygame.surface.Surface

#: simulated seconds a member is drawn walking to a job (the scenario's walk times are drawn
#: by the model and not recorded; this is about their median)
WALK_SECONDS = 110.0
#: a machine's side in pixels from which its seated patron is drawn on it, and walking patrons
#: as diamonds (below it, zoomed out, the machine's "in play" colour says it is taken, and a
#: walking patron is a 3x3 pixel dot)
PATRON_SIDE = 9


@register("slots")
class SlotsView:
    """The slot floor: a floor layer kept between frames (plan and machines, seated patrons on
    their machines), and the walking patrons and busy staff drawn over it each frame."""

    name = "slots"
    needs = (
        "machines",
        "dirty",
        "seated",
        "patron_walk",
        "walking_in",
        "walking_out",
        "waiting_label",
        "walks",
        "on_duty",
        "t",
    )

    def __init__(self) -> None:
        self._floor: Surface | None = None  # the floor layer, kept between frames
        self._floor_key: tuple[object, ...] = ()
        self._diamonds: dict[int, Surface] = {}  # a patron's marker by radius

    def draw(self, viewer: Viewer, surface: Surface) -> None:
        self.draw_floor(viewer, surface)
        self.draw_patrons(viewer, surface)
        if not any(v.name == "staff" for v in viewer.views):  # else the staff's layer does
            self.draw_staff(viewer, surface)

    def draw_floor(self, viewer: Viewer, s: Surface) -> None:
        """The floor layer is kept between frames: redrawn whole when the view or the model
        changes, else only the machines whose state changed since the last frame."""
        r = viewer.floor_rect
        model = viewer.source.model
        key = (viewer.zoom, viewer.pan, r.size, id(model))
        if self._floor is None or self._floor_key != key:
            self._floor = pygame.Surface(r.size)
            self._floor_key = key
            self._draw_plan(viewer, self._floor)
            self._draw_machines(viewer, self._floor, viewer.plan.machines)
        elif model.dirty:
            self._draw_machines(viewer, self._floor, model.dirty)
        model.dirty.clear()
        s.blit(self._floor, r.topleft)

    # -- where things are (world units) ---------------------------------------------------------
    def staff_position(self, viewer: Viewer, member: str) -> tuple[float, float] | None:
        """Where a busy member is drawn (world units): walking from their last machine (or the
        staff station at the corner of the zone) to their job's machine over
        :data:`WALK_SECONDS`, then at the machine's top-right corner."""
        model = viewer.source.model
        walk = model.walks.get(member)
        if walk is None:
            return None
        start, machine, t0 = walk
        to = self.corner(viewer, machine)
        if to is None:
            return None
        if start:
            frm = self.corner(viewer, start) or to
        else:
            zone = model.machines[machine].zone
            zx, zy, _w, _h = viewer.plan.zones[zone]
            frm = (zx + 6.0, zy + 6.0)
        share = min(1.0, max(0.0, (model.t - t0) / WALK_SECONDS))
        return (frm[0] + (to[0] - frm[0]) * share, frm[1] + (to[1] - frm[1]) * share)

    def corner(self, viewer: Viewer, machine: str) -> tuple[float, float] | None:
        """A machine's top-right corner, where a member at its job is drawn."""
        place = viewer.plan.machines.get(machine)
        return None if place is None else (place[0] + place[2] - 1.0, place[1] + 1.0)

    def radius(self, viewer: Viewer) -> int:
        """A patron marker's radius at this zoom."""
        return max(2, min(5, viewer.machine_side // 5))

    def seat(self, viewer: Viewer, machine: str) -> tuple[float, float] | None:
        """Where a seated patron is drawn (world units): at the bottom middle of the machine's
        face, inside it (so a redraw of the machine clears it)."""
        place = viewer.plan.machines.get(machine)
        if place is None:
            return None
        x, y, w, h = place
        return (x + w / 2, y + h - (self.radius(viewer) + 2) / viewer.zoom)

    def patron_position(self, viewer: Viewer, patron: str) -> tuple[float, float] | None:
        """Where a walking patron is drawn (world units): on the straight line between the
        entrance and their machine's seat, the share of the walk done (see
        :data:`viz.model.PATRON_WALK_SECONDS`) along it; None when not walking."""
        walk = viewer.source.model.patron_walk(patron)
        if walk is None:
            return None
        machine, share, arriving = walk
        seat = self.seat(viewer, machine)
        if seat is None:
            return None
        door = viewer.plan.entrance
        frm, to = (door, seat) if arriving else (seat, door)
        return (frm[0] + (to[0] - frm[0]) * share, frm[1] + (to[1] - frm[1]) * share)

    # -- drawing ---------------------------------------------------------------------------------
    def diamond(self, radius: int) -> Surface:
        """A patron's marker: a diamond in the patron colour, outlined in black."""
        sprite = self._diamonds.get(radius)
        if sprite is None:
            size = 2 * radius + 1
            sprite = pygame.Surface((size, size))
            sprite.fill((255, 0, 255))
            sprite.set_colorkey((255, 0, 255))
            points = [(radius, 0), (size - 1, radius), (radius, size - 1), (0, radius)]
            pygame.draw.polygon(sprite, P.PATRON, points)
            pygame.draw.polygon(sprite, (0, 0, 0), points, 1)
            self._diamonds[radius] = sprite
        return sprite

    def draw_patrons(self, viewer: Viewer, s: Surface) -> None:
        """Patrons walking between the entrance and their machine (drawn each frame; a seated
        one is drawn with its machine on the floor layer), and how many wait for a machine."""
        r = viewer.floor_rect
        model = viewer.source.model
        s.set_clip(r)
        big = viewer.machine_side >= PATRON_SIDE
        radius = self.radius(viewer)
        sprite = self.diamond(radius)
        for walks in (model.walking_in, model.walking_out):
            for patron in walks:
                at = self.patron_position(viewer, patron)
                if at is None:
                    continue
                x, y = viewer.to_screen(*at)
                if big:
                    s.blit(sprite, (int(x) - radius, int(y) - radius))
                else:
                    fill(s, P.PATRON, (int(x) - 1, int(y) - 1, 3, 3))
        waiting = model.waiting_label()
        if waiting:
            door = self._door_rect(viewer)
            label = viewer.text.render(waiting, 16, P.TEXT)
            s.blit(label, (r.x + door.x - label.get_width() - 6, r.y + door.centery - 6))
        s.set_clip(None)

    def _door_rect(self, viewer: Viewer) -> pygame.Rect:
        """The entrance on the floor layer (its origin is the floor's)."""
        z = viewer.zoom
        ex, ey = viewer.plan.entrance
        px, py = viewer.pan
        return pygame.Rect(
            int((ex - 20 - px) * z), int((ey - 2 - py) * z), max(4, int(40 * z)), max(2, int(4 * z))
        )

    def draw_staff(self, viewer: Viewer, s: Surface) -> None:
        """Busy staff, walking to their job or at it, in their role's shape and colour (drawn
        each frame; in a run with a staff department, its layer draws them)."""
        from viz.views.staff import marker

        r = viewer.floor_rect
        radius = max(2, min(6, round(1.6 * viewer.zoom)))
        model = viewer.source.model
        s.set_clip(r)
        for member in sorted(model.walks):
            at = self.staff_position(viewer, member)
            if at is None:
                continue
            x, y = viewer.to_screen(*at)
            style = P.role_style(model.on_duty.get(member, "attendant"))
            marker(s, style, (int(x), int(y)), radius, True)
        s.set_clip(None)

    def _draw_plan(self, viewer: Viewer, s: Surface) -> None:
        """Background, zones and banks, on the floor layer (its origin is the floor's)."""
        s.fill(P.BACKGROUND)
        z = viewer.zoom
        px, py = viewer.pan
        t = viewer.text
        for zone, (x, y, w, h) in viewer.plan.zones.items():
            rect = pygame.Rect(int((x - px) * z), int((y - py) * z), int(w * z), int(h * z))
            fill(s, P.ZONE, rect)
            pygame.draw.rect(s, P.ZONE_EDGE, rect, 1)
            t.draw(s, f"zone {zone}", (rect.x + 6, rect.y + 4), 20, P.MUTED, bold=True)
        cell = CELL * z
        if cell >= 3:
            for bank, (x, y, w, h) in viewer.plan.banks.items():
                bx, by = int((x - px) * z), int((y - py) * z)
                pygame.draw.rect(
                    s, P.BANK_EDGE, (bx - 2, by - 2, int(w * z) + 4, int(h * z) + 4), 1
                )
                if cell >= 5:
                    t.draw(s, f"bank {bank}", (bx, by - 14), 16, P.MUTED)
        door = self._door_rect(viewer)
        fill(s, P.ENTRANCE, door)
        t.draw(s, "entrance", (door.right + 6, door.centery - 6), 16, P.MUTED)

    def _draw_machines(self, viewer: Viewer, s: Surface, ids: Iterable[str]) -> None:
        model = viewer.source.model
        machines = model.machines
        rects = viewer.plan.machines
        t = viewer.text
        z = viewer.zoom
        px, py = viewer.pan
        side = viewer.machine_side
        glyphs = side >= 14
        seats = side >= PATRON_SIDE
        radius = self.radius(viewer)
        sprite = self.diamond(radius)
        lift = (radius + 2) / z  # the seat's height above the machine's bottom edge
        fill = s.fill
        fw, fh = s.get_size()
        for mid in ids:
            place = rects.get(mid)
            if place is None:
                continue
            sx = (place[0] - px) * z
            sy = (place[1] - py) * z
            if sx > fw or sy > fh or sx + side < 0 or sy + side < 0:
                continue
            m = machines[mid]
            st = m.state
            box = (int(sx), int(sy), side, side)
            fill(st.colour, box)
            if st is P.OFFLINE and side >= 4:
                pygame.draw.line(
                    s, (235, 235, 235), (box[0], box[1]), (box[0] + side - 1, box[1] + side - 1)
                )
            if glyphs and st.glyph:
                ink = (0, 0, 0) if st is not P.OFFLINE else (255, 255, 255)
                g = t.render(st.glyph, max(12, side - 2), ink, True)
                at = (box[0] + (side - g.get_width()) // 2, box[1] + (side - g.get_height()) // 2)
                s.blit(g, (at[0], at[1] + 1))
            if seats and m.patron and model.seated(m):  # at self.seat(mid)
                sx = (place[0] + place[2] / 2 - px) * z
                sy = (place[1] + place[3] - lift - py) * z
                s.blit(sprite, (int(sx) - radius, int(sy) - radius))


__all__ = ["PATRON_SIDE", "WALK_SECONDS", "SlotsView"]
