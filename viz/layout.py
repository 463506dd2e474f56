"""The floor plan: zones side by side, each a flow of banks, each bank a grid of machines, and
the entrance (where patrons come in and go out) below them, in the middle; below the entrance,
when the run has them, the hall (issue 32): the door and its queue under the entrance, the
pit's tables and the card room to its left, the cage's windows, the count room, the junket
room, the premium room (Singapore: the floor is widened for it) and the staff room to its
right (:func:`hall`).

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
HALL = 118.0  # the band below the entrance that holds the other departments
HALL_MIN_WIDTH = 680.0  # the floor is widened to this when it has a hall
TABLE = (40.0, 26.0)  # a gaming table
CARD_ROOM = (74.0, 30.0)
WINDOW = (22.0, 22.0)  # a cage window
GAP = 8.0
DOOR_HALF = 50.0  # the door's half width (its desk, queue lane and figures)

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
    #: the band below the entrance that holds the hall (zero height: no hall)
    band: Rect = (0.0, 0.0, 0.0, 0.0)

    def machine_at(self, x: float, y: float) -> str | None:
        """The machine whose cell holds the world point ``(x, y)``, if any."""
        for mid, (mx, my, _w, _h) in self.machines.items():
            if mx - 1 <= x <= mx + CELL - 1 and my - 1 <= y <= my + CELL - 1:
                return mid
        return None


def plan(
    floor: Iterable[tuple[str, str, str]], hall: bool = False, premium_tables: int = 0
) -> Plan:
    """The plan of the floor's machines; ``hall``: with the band below the entrance that
    holds the other departments (:func:`hall`), widened by the premium room's width when the
    run has one (``premium_tables`` tables, right of the junket room)."""
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
    # the premium room is right of the junket room, and the hall is centred on the entrance:
    # the room's width is added on both sides
    extra = premium_width(premium_tables) + GAP + 4.0 if premium_tables else 0.0
    least = HALL_MIN_WIDTH + 2 * extra
    if hall and width < least:  # the floor's zones centred over the wider hall
        shift = (least - width) / 2
        machines = {k: (x + shift, y, w, h) for k, (x, y, w, h) in machines.items()}
        banks = {k: (x + shift, y, w, h) for k, (x, y, w, h) in banks.items()}
        zone_rects = {k: (x + shift, y, w, h) for k, (x, y, w, h) in zone_rects.items()}
        width = least
    entrance = (width / 2, tallest + ENTRANCE / 2)
    height = tallest + ENTRANCE
    band: Rect = (0.0, height, width, HALL) if hall else (0.0, height, width, 0.0)
    if hall:
        height += HALL
    return Plan(machines, banks, zone_rects, width, height, entrance, band)


@dataclass(frozen=True, slots=True)
class HallPlan:
    """Where the hall's departments are (world units; see :func:`hall`)."""

    door: Rect  # the door's desk, under the entrance
    queue: Rect  # the lane below the desk where entrants wait
    refused: tuple[float, float]  # where a refused entrant walks to
    pit: Rect  # the pit's area (tables and card room)
    tables: dict[str, Rect]  # table or card room -> its rect
    cage: Rect
    windows: tuple[Rect, ...]  # the cage's windows, left to right
    cage_queue: tuple[float, float]  # where the cage's queue starts (in front of the windows)
    count_room: Rect
    junket_room: Rect
    staff_room: Rect
    #: the premium-player room, right of the junket room (zero size: none)
    premium_room: Rect = (0.0, 0.0, 0.0, 0.0)

    def table_at(self, x: float, y: float) -> str | None:
        """The table or card room holding the world point ``(x, y)``, if any."""
        for tid, (tx, ty, tw, th) in self.tables.items():
            if tx <= x <= tx + tw and ty <= y <= ty + th:
                return tid
        return None

    def window_at(self, x: float, y: float) -> int | None:
        """The index of the cage window holding the world point ``(x, y)``, if any."""
        for i, (wx, wy, ww, wh) in enumerate(self.windows):
            if wx <= x <= wx + ww and wy <= y <= wy + wh + 10:
                return i
        return None


def _flow(
    items: Iterable[tuple[str, tuple[float, float]]], x0: float, y0: float, right: float
) -> tuple[dict[str, Rect], float]:
    """Place ``(id, (w, h))`` items left to right from ``(x0, y0)``, wrapping at ``right``
    (seats drawn above each item need ``LABEL`` of room); the rects and the bottom."""
    out: dict[str, Rect] = {}
    x, y, row = x0, y0, 0.0
    for key, (w, h) in items:
        if x + w > right and x > x0:
            x, y, row = x0, y + row + LABEL, 0.0
        out[key] = (x, y, w, h)
        x += w + GAP + 6
        row = max(row, h)
    return out, y + row


def premium_width(tables: int) -> float:
    """The premium room's width for ``tables`` tables in one row."""
    return max(70.0, tables * (TABLE[0] + GAP + 6.0) + 8.0)


def hall(
    p: Plan,
    tables: Iterable[str],
    rooms: Iterable[str],
    junket_tables: Iterable[str],
    windows: int,
    premium_tables: Iterable[str] = (),
) -> HallPlan:
    """The hall in ``p``'s band: the door under the entrance; the pit's ``tables`` and card
    ``rooms`` to its left; the cage (``windows`` windows) and the count room, the junket room
    (``junket_tables``), the premium room (``premium_tables``, when the run has one) and the
    staff room to its right."""
    bx, by, bw, bh = p.band
    ex = p.entrance[0]
    door = (ex - DOOR_HALF, by + 4.0, 2 * DOOR_HALF, 16.0)
    queue = (ex - 8.0, by + 24.0, 16.0, bh - 30.0)
    refused = (ex + DOOR_HALF + 10.0, by + bh - 6.0)
    left, right = bx + ZONE_PAD, ex - DOOR_HALF - 12.0
    pit_rect = (left - 6.0, by + 2.0, right - left + 12.0, bh - 4.0)
    items = [(t, TABLE) for t in tables] + [(r, CARD_ROOM) for r in rooms]
    placed, _bottom = _flow(items, left, by + LABEL + LABEL, right)
    x = ex + DOOR_HALF + 18.0
    n = max(1, windows)
    cage_w = n * (WINDOW[0] + 4.0) + 12.0
    cage = (x, by + 2.0, cage_w, 56.0)
    wins = tuple(
        (x + 8.0 + i * (WINDOW[0] + 4.0), by + 2.0 + LABEL + 4.0, WINDOW[0], WINDOW[1])
        for i in range(n)
    )
    cage_queue = (x + cage_w / 2, by + 62.0)
    count_room = (x, by + 66.0, cage_w, bh - 68.0)
    x += cage_w + GAP + 4.0
    jt = list(junket_tables)
    jw = max(70.0, len(jt) * (TABLE[0] + GAP + 6.0) + 8.0)
    junket_room = (x, by + 2.0, jw, 56.0)
    placed.update(_flow([(t, TABLE) for t in jt], x + 8.0, by + 2.0 + LABEL + 8.0, x + jw)[0])
    staff_room = (x, by + 66.0, max(jw, bx + bw - x - 4.0), bh - 68.0)
    pt = list(premium_tables)
    premium_room = (0.0, 0.0, 0.0, 0.0)
    if pt:
        px = x + jw + GAP + 4.0
        premium_room = (px, by + 2.0, premium_width(len(pt)), 56.0)
        placed.update(
            _flow([(t, TABLE) for t in pt], px + 8.0, by + 2.0 + LABEL + 8.0, px + premium_room[2])[
                0
            ]
        )
    return HallPlan(
        door, queue, refused, pit_rect, placed, cage, wins, cage_queue, count_room, junket_room,
        staff_room, premium_room,
    )  # fmt: skip
