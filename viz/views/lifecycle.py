"""The lifecycle's layer of the floor view (issue 27): what the slot floor's machines are
going through off the play itself.

A machine waiting for the Board's written approval (a conversion, a move, a replacement, an
outcome-affecting repair) is ringed in the Board's colour, a suspended one crossed out; a
panel at the floor's top right lists the reserve store (and whether it is locked), the works
waiting for the Board and since when, and where the certificate of registered machines is. A
run without a ``[lifecycle]`` draws nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pygame

from viz import palette as P
from viz.views import register

if TYPE_CHECKING:
    from viz.app import Viewer

Surface = pygame.surface.Surface

#: the Board's colour: a ring round a machine whose work waits for its approval
BOARD = (30, 80, 200)
SUSPENDED = (200, 40, 40)
PANEL_WIDTH = 330
LINE = 18
#: at most this many works listed (the rest counted)
MAX_WORKS = 6


@register("lifecycle")
class LifecycleView:
    """Rings and crosses over the floor's machines, and the lifecycle's panel."""

    name = "lifecycle"
    needs = ("lifecycle", "clock", "t")

    def draw(self, viewer: Viewer, surface: Surface) -> None:
        lc = viewer.source.model.lifecycle
        if not lc.active:
            return
        self.draw_marks(viewer, surface)
        self.draw_panel(viewer, surface)

    def draw_marks(self, viewer: Viewer, s: Surface) -> None:
        """A ring round each machine waiting for the Board, a cross over each suspended one."""
        lc = viewer.source.model.lifecycle
        s.set_clip(viewer.floor_rect)
        waiting = {machine for _matter, machine, _t in lc.awaiting.values()}
        for machine in sorted(waiting | lc.suspended):
            if machine not in viewer.plan.machines:
                continue  # in the store, or not yet on the floor
            r = viewer.machine_screen_rect(machine).inflate(4, 4)
            if machine in lc.suspended:
                pygame.draw.line(s, SUSPENDED, r.topleft, r.bottomright, 2)
                pygame.draw.line(s, SUSPENDED, r.bottomleft, r.topright, 2)
            else:
                pygame.draw.rect(s, BOARD, r, 2)
        s.set_clip(None)

    def lines(self, viewer: Viewer) -> list[tuple[str, tuple[int, int, int]]]:
        """The panel's lines, with their colours."""
        model = viewer.source.model
        lc = model.lifecycle
        lock = "locked" if lc.store_locked else "UNLOCKED"
        store = ", ".join(sorted(lc.store)) or "empty"
        out = [
            ("machines' lives", P.TEXT),
            (f"register: {lc.registered} on the floor", P.MUTED),
            (f"reserve store ({lock}): {store}", P.MUTED if lc.store_locked else SUSPENDED),
            (
                "certificate: with the Board (amending)"
                if lc.certificate_with_board
                else "certificate: on site, shown on request",
                P.MUTED,
            ),
        ]
        works = sorted(lc.awaiting.items(), key=lambda kv: kv[1][2])
        if works:
            out.append((f"waiting for the Board ({len(works)}):", BOARD))
        for work, (matter, machine, since) in works[:MAX_WORKS]:
            hours = (model.t - since) / 3600.0
            day = model.clock.at(since).strftime("%a %H:%M")
            out.append((f"  {work} {matter} {machine}: since {day} ({hours:.0f} h)", BOARD))
        if len(works) > MAX_WORKS:
            out.append((f"  ... and {len(works) - MAX_WORKS} more", BOARD))
        if lc.suspended:
            out.append((f"suspended: {', '.join(sorted(lc.suspended))}", SUSPENDED))
        return out

    def draw_panel(self, viewer: Viewer, s: Surface) -> None:
        r = viewer.floor_rect
        lines = self.lines(viewer)
        box = pygame.Rect(r.right - PANEL_WIDTH - 8, r.y + 8, PANEL_WIDTH, LINE * len(lines) + 10)
        s.fill(P.PANEL, box)
        pygame.draw.rect(s, P.PANEL_EDGE, box, 1)
        for i, (text, colour) in enumerate(lines):
            viewer.text.draw(s, text, (box.x + 8, box.y + 5 + i * LINE), 15, colour, bold=i == 0)


__all__ = ["LifecycleView"]
