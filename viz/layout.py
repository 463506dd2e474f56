"""The floor plan: zones side by side, each a flow of banks, each bank a grid of machines, and
the entrance (where patrons come in and go out) below them, in the middle.

Positions are in world units (one machine cell is :data:`CELL` units); the view's zoom and pan
map them to pixels. Built from ``(machine, bank, zone)`` triples in floor order, so a live
scenario and a replayed ledger of it give the same plan.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

CELL = 10.0  # world units per machine cell
MACHINE = 8.0  # the machine's square inside its cell
BANK_GAP = 14.0
ZONE_PAD = 18.0
ZONE_GAP = 24.0
LABEL = 14.0  # room above a bank or zone for its name
ENTRANCE = 20.0  # the strip below the zones that holds the entrance

Rect = tuple[float, float, float, float]  # x, y, w, h


@dataclass(frozen=True, slots=True)
class Plan:
    machines: dict[str, Rect]
    banks: dict[str, Rect]
    zones: dict[str, Rect]
    width: float
    height: float
    #: where patrons come in and go out (the middle of the strip below the zones)
    entrance: tuple[float, float] = (0.0, 0.0)

    def machine_at(self, x: float, y: float) -> str | None:
        """The machine whose cell holds the world point ``(x, y)``, if any."""
        for mid, (mx, my, _w, _h) in self.machines.items():
            if mx - 1 <= x <= mx + CELL - 1 and my - 1 <= y <= my + CELL - 1:
                return mid
        return None


def plan(floor: Iterable[tuple[str, str, str]]) -> Plan:
    zones: dict[str, dict[str, list[str]]] = {}
    for machine, bank, zone in floor:
        zones.setdefault(zone, {}).setdefault(bank, []).append(machine)
    machines: dict[str, Rect] = {}
    banks: dict[str, Rect] = {}
    zone_rects: dict[str, Rect] = {}
    x0 = 0.0
    tallest = 0.0
    for zone, zone_banks in zones.items():
        total = sum(len(ms) for ms in zone_banks.values())
        cols = max(8, min(24, round(math.sqrt(total / 4))))  # columns of one bank
        zone_w = max(
            2 * (cols * CELL) + BANK_GAP if len(zone_banks) > 1 else cols * CELL,
            cols * CELL,
        )
        x, y = x0 + ZONE_PAD, LABEL + ZONE_PAD
        row_h = 0.0
        right = x0 + ZONE_PAD + zone_w
        for bank, ms in zone_banks.items():
            bcols = min(cols, len(ms))
            brows = math.ceil(len(ms) / bcols)
            bw, bh = bcols * CELL, brows * CELL
            if x + bw > right + 0.5 and x > x0 + ZONE_PAD:
                x = x0 + ZONE_PAD
                y += row_h + BANK_GAP + LABEL
                row_h = 0.0
            by = y + LABEL
            banks[bank] = (x, by, bw, bh)
            for i, mid in enumerate(ms):
                machines[mid] = (
                    x + (i % bcols) * CELL + 1,
                    by + (i // bcols) * CELL + 1,
                    MACHINE,
                    MACHINE,
                )
            x += bw + BANK_GAP
            row_h = max(row_h, bh + LABEL)
        height = y + row_h + ZONE_PAD
        zone_rects[zone] = (x0, 0.0, zone_w + 2 * ZONE_PAD, height)
        tallest = max(tallest, height)
        x0 += zone_w + 2 * ZONE_PAD + ZONE_GAP
    zone_rects = {z: (x, y, w, tallest) for z, (x, y, w, _h) in zone_rects.items()}
    width = max(x0 - ZONE_GAP, 1.0)
    entrance = (width / 2, tallest + ENTRANCE / 2)
    return Plan(machines, banks, zone_rects, width, tallest + ENTRANCE, entrance)
