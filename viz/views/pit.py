"""The pit's layer of the floor view (issue 32): the gaming tables and the card room, left of
the door.

Each table is drawn in its state (baize green open, grey closed) with its id, its game and its
seated count against its seats; its seats are marks along its far edge (the patrons' layer
puts a player on each seat taken); the dealer and the Board inspector stand at its near edge
(the staff's layer). Clicking a table opens its panel: state, dealer, stakes, seated, the
drop since the last count, handle and result, the last players. The card room is drawn the
same way in its own colour.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pygame

from viz import palette as P
from viz.layout import Rect
from viz.views import fill, register

if TYPE_CHECKING:
    from viz.app import Viewer
    from viz.model import TableView

Surface = pygame.surface.Surface

GAME_SHORT = {"roulette": "roulette", "punto": "punto banco", "blackjack": "blackjack"}


def short_game(game: str) -> str:
    """A game id as a short label (``roulette-single-zero`` -> ``roulette``)."""
    head = game.split("-")[0]
    return GAME_SHORT.get(head, head)


def seat_positions(rect: Rect, seats: int) -> list[tuple[float, float]]:
    """Where a table's seats are (world units): along its far (top) edge, in one row for a
    table, in two for a card room's many seats."""
    x, y, w, _h = rect
    n = max(1, seats)
    rows = 1 if n <= 10 else 2
    per = -(-n // rows)
    out = []
    for i in range(n):
        row, col = divmod(i, per)
        out.append((x + (col + 0.5) * w / per, y - 3.0 - row * 5.0))
    return out


def money(cents: int) -> str:
    sign = "-" if cents < 0 else ""
    return f"{sign}EUR {abs(cents) / 100:,.0f}"


def table_colour(tv: TableView, is_open: bool) -> P.Colour:
    """The colour a table is drawn in: open (the card room in its own colour) or closed."""
    if not is_open:
        return P.TABLE_CLOSED
    return P.CARD_ROOM if tv.kind == "card_room" else P.TABLE_OPEN


def draw_table(viewer: Viewer, s: Surface, tv: TableView, is_open: bool) -> None:
    """A table (or card room, or junket room table) in its state, with its seats."""
    hp = viewer.hall_plan
    rect = None if hp is None else hp.tables.get(tv.id)
    if rect is None:
        return
    box = viewer.world_rect(rect)
    rounding = max(2, min(6, box.h // 3))  # (more would hide the id in the corner)
    pygame.draw.rect(s, table_colour(tv, is_open), box, border_radius=rounding)
    pygame.draw.rect(s, P.TABLE_EDGE, box, 1, border_radius=rounding)
    if viewer.selected_place == ("table", tv.id):
        pygame.draw.rect(s, P.SELECT, box.inflate(8, 8), 2)
    ink = (255, 255, 255) if is_open else P.TEXT
    size = max(11, min(16, box.h // 2))
    viewer.text.draw(s, tv.id, (box.x + 4, box.y + 2), size, ink, bold=True, width=box.w - 6)
    seats = f"{tv.seated}/{tv.seats}" if tv.seats else f"{tv.seated}"
    label = seats if is_open else "closed"
    viewer.text.draw(s, label, (box.x + 4, box.y + box.h // 2), size, ink, width=box.w - 6)
    if tv.seats and box.w >= 20:
        dot = max(1, round(viewer.zoom))
        for sx, sy in seat_positions(rect, tv.seats):
            x, y = viewer.to_screen(sx, sy)
            pygame.draw.circle(s, P.TABLE_EDGE, (int(x), int(y)), dot, 1)


@register("pit")
class PitView:
    """The pit's tables and the card room (see the module docstring)."""

    name = "pit"
    needs = ("hall", "clock", "t")

    def draw(self, viewer: Viewer, s: Surface) -> None:
        hp = viewer.hall_plan
        hall = viewer.source.model.hall
        tables = hall.table_list("table") + hall.table_list("card_room")
        if hp is None or not tables:
            return
        s.set_clip(viewer.floor_rect)
        area = viewer.world_rect(hp.pit)
        fill(s, P.ROOM, area)
        pygame.draw.rect(s, P.ZONE_EDGE, area, 1)
        open_ = sum(1 for tv in hall.table_list("table") if tv.open)
        viewer.text.draw(
            s, f"pit: {open_} of {len(hall.table_list('table'))} tables open",
            (area.x + 5, area.y + 3), 16, P.MUTED, bold=True, width=area.w - 8,
        )  # fmt: skip
        for tv in tables:
            draw_table(viewer, s, tv, tv.open)
        s.set_clip(None)

    def lines(self, viewer: Viewer, tid: str) -> list[str]:
        """The table's panel."""
        model = viewer.source.model
        tv = model.hall.tables[tid]
        kind = {"table": "table", "card_room": "card room", "junket": "junket room table"}[tv.kind]
        out = [f"{tv.id}  {kind}  {short_game(tv.game) if tv.game else ''}".rstrip()]
        state = "OPEN" if tv.open else "closed"
        if tv.open and tv.opened_t >= 0:
            state += f" since {model.clock.at(tv.opened_t):%H:%M}"
        out.append(state)
        if tv.kind != "card_room":
            out.append(f"dealer: {tv.dealer or '-'}   inspector: {tv.inspector or '-'}")
            if tv.max_stake_cents:
                out.append(f"stakes {money(tv.min_stake_cents)} to {money(tv.max_stake_cents)}")
        seats = f" of {tv.seats} seats" if tv.seats else ""
        out.append(f"seated now: {tv.seated}{seats}")
        ended = "sessions ended" if tv.kind == "card_room" else "stretches ended"
        out.append(f"{ended}: {tv.stretches}")
        if tv.kind == "card_room":
            out.append(f"charged: {money(tv.win_cents)}")
        else:
            out.append(f"drop since the count: {money(tv.drop_cents)}")
            out.append(f"handle {money(tv.handle_cents)}, table won {money(tv.win_cents)}")
        if tv.last:
            out.append("last players (net to the player):")
            for t, patron, net in reversed(tv.last):
                out.append(f"  {model.clock.at(t):%H:%M} {patron} {money(net)}")
        return out


__all__ = ["PitView", "draw_table", "seat_positions", "short_game", "table_colour"]
