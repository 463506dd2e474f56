"""The licensing department's layer of the floor view (issue 28): employees under licence.

Employees have no place of their own on the floor (a member who may not work is off duty,
which the slots view shows by their absence), so the layer is a panel at the floor's top left:
the licences by state, the members who may not work now and why, those covering another
grade, and the open cases on a ground for cancellation or suspension (with the show-cause
notice's due date, or an imposed term's). A run without ``[licensing]`` draws nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pygame

from viz import palette as P
from viz.views import register

if TYPE_CHECKING:
    from viz.app import Viewer

Surface = pygame.surface.Surface

BARRED = (200, 40, 40)
COVER = (190, 120, 20)
CASE = (30, 80, 200)
PANEL_WIDTH = 360
LINE = 18
#: at most this many members or cases listed under a heading (the rest counted)
MAX_LINES = 5


@register("licensing")
class LicensingView:
    """The licences panel."""

    name = "licensing"
    needs = ("licensing", "clock")

    def draw(self, viewer: Viewer, surface: Surface) -> None:
        if not viewer.source.model.licensing.active:
            return
        self.draw_panel(viewer, surface)

    def lines(self, viewer: Viewer) -> list[tuple[str, tuple[int, int, int]]]:
        """The panel's lines, with their colours."""
        model = viewer.source.model
        lic = model.licensing
        counts = ", ".join(f"{state} {n}" for state, n in lic.counts().items())
        out = [("Licences", P.TEXT), (counts, P.MUTED)]

        def section(title: str, items: list[str], colour: tuple[int, int, int]) -> None:
            if not items:
                return
            out.append((f"{title} ({len(items)}):", colour))
            out.extend((f"  {item}", colour) for item in items[:MAX_LINES])
            if len(items) > MAX_LINES:
                out.append((f"  ... and {len(items) - MAX_LINES} more", colour))

        def day(t: float) -> str:
            return model.clock.at(t).strftime("%a %d %b")

        section(
            "may not work now",
            [f"{member}: {why}" for member, why in sorted(lic.barred.items())],
            BARRED,
        )
        section(
            "covering another grade",
            [f"{member} as {role}" for member, role in sorted(lic.covering.items())],
            COVER,
        )
        cases = []
        for case, c in sorted(lic.cases.items()):
            if c.term_due_t >= 0:
                due = f"term due {day(c.term_due_t)}"
            elif c.show_cause_due_t >= 0:
                due = f"show cause by {day(c.show_cause_due_t)}"
            else:
                due = f"reported {day(c.reported_t)}"
            cases.append(f"{case} {c.member} {c.ground.replace('_', ' ')}: {due}")
        section("open cases", cases, CASE)
        return out

    def draw_panel(self, viewer: Viewer, s: Surface) -> None:
        r = viewer.floor_rect
        lines = self.lines(viewer)
        box = pygame.Rect(r.x + 8, r.y + 8, PANEL_WIDTH, LINE * len(lines) + 10)
        s.fill(P.PANEL, box)
        pygame.draw.rect(s, P.PANEL_EDGE, box, 1)
        for i, (text, colour) in enumerate(lines):
            at = (box.x + 8, box.y + 5 + i * LINE)
            viewer.text.draw(s, text, at, 15, colour, bold=i == 0, width=PANEL_WIDTH - 16)


__all__ = ["LicensingView"]
