"""Every department on the floor plan (issue 32): the door, the pit's tables and the card room,
the cage's windows and the count room, the junket room, the staff by role, the patrons where
they are; the counts said for what they count, from the records; the true lag and the frame
rate with controlled frame times; a click on a table or a cage window opens its panel.

Real pygame surfaces, headless; the default scenario run live to 21:30 (11.5 simulated hours),
then on past the tables' closing so that every stretch under way at 21:30 has its record.
"""

from __future__ import annotations

import json
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

os.environ["SDL_VIDEODRIVER"] = "dummy"  # headless: real surfaces, no window
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame
import pytest
from conftest import REPO

from twin.world import quantize
from viz import palette as P
from viz.app import Viewer, duration, init_pygame
from viz.layout import plan
from viz.live import open_live
from viz.model import WINDOW_SHOWN_SECONDS
from viz.sources import SPEED_WINDOW, Pace, ReplaySource
from viz.views.pit import seat_positions, table_colour

TINY = REPO / "scenarios" / "tiny.toml"
SIZE = (1280, 800)
AT = 11.5 * 3600.0  # 21:30 on the default scenario's first day (it opens at 10:00)
#: 05:06 the next morning: past the tables' 04:00 closing (every stretch of 21:30 has ended),
#: six minutes into the count room's 05:00 count
AFTER = 19.1 * 3600.0


@pytest.fixture(autouse=True)
def _pygame() -> None:
    init_pygame(headless=True)


def colour(s: pygame.Surface, at: tuple[float, float]) -> tuple[int, int, int]:
    c = s.get_at((int(at[0]), int(at[1])))
    return (c.r, c.g, c.b)


@dataclass
class Snapshot:
    """The default floor's live view at 21:30: its frame, what the model said, and the run's
    ledger (the run went on past the tables' closing)."""

    cashiers: int

    frame: pygame.Surface
    ledger: Path
    tables: dict[str, tuple[str, bool, int, int, str, str]]  # id -> kind, open, seated, seats, ...
    rects: dict[str, pygame.Rect]
    windows: list[tuple[pygame.Rect, P.Colour]]
    door: pygame.Rect
    count_room: pygame.Rect
    legend: dict[str, tuple[int, int]]
    roles_on_duty: set[str]
    places: dict[str, tuple[tuple[float, float], bool, str]]  # member -> screen, busy, role
    seats: dict[str, list[tuple[float, float]]]  # table -> screen points of its taken seats
    whereabouts: dict[str, int]
    on_floor: int
    entries: int
    refusals: dict[str, int]
    transactions: int
    stretches: dict[str, int]
    paces: dict[str, float]  # table -> rounds an hour
    label: str
    waiting_for: dict[str, int | None]
    #: at AFTER: the count room's pixel, what it says it counted, its team's places and roles
    count_pixel: tuple[int, int, int] = (0, 0, 0)
    count: tuple[float, int, int, int] = (0.0, 0, 0, 0)
    count_team: dict[str, tuple[tuple[float, float], str]] | None = None
    frame_after: pygame.Surface | None = None
    inside_after: tuple[int, int] = (-1, -1)  # on the floor, and without a machine, at AFTER


@pytest.fixture(scope="module")
def at_ten(tmp_path_factory: pytest.TempPathFactory) -> Snapshot:
    init_pygame(headless=True)
    out = tmp_path_factory.mktemp("default")
    src = open_live(None, out=out, factor=60.0)
    viewer = Viewer(src, SIZE)
    src.seek(AT)
    assert src.t == AT
    viewer.draw()
    model = src.model
    hall = model.hall
    hp = viewer.hall_plan
    assert hp is not None
    tables = {
        t: (tv.kind, tv.open, tv.seated, tv.seats, tv.dealer, tv.inspector)
        for t, tv in hall.tables.items()
    }
    rects = {t: viewer.world_rect(r) for t, r in hp.tables.items()}
    on = sorted(m for m, r in model.on_duty.items() if r == "cashier")
    windows = []
    for i, r in enumerate(hp.windows):
        if i >= len(on):
            want = P.WINDOW_CLOSED
        else:
            w = hall.windows.get(on[i])
            busy = w is not None and 0 <= model.t - w.last_t < WINDOW_SHOWN_SECONDS
            want = P.WINDOW_BUSY if busy else P.WINDOW_IDLE
        windows.append((viewer.world_rect(r), want))
    dealers = {tv.dealer for tv in hall.tables.values() if tv.open}
    places = {
        m: (
            viewer.to_screen(*at),
            busy,
            model.on_duty.get(m, "dealer" if m in dealers else ""),
        )
        for m, (at, busy) in viewer.staff_places().items()
    }
    seats = {
        t: [viewer.to_screen(*p) for p in seat_positions(hp.tables[t], tv.seats)[: tv.seated]]
        for t, tv in hall.tables.items()
        if tv.seated
    }
    snap = Snapshot(
        cashiers=len(on),
        frame=viewer.screen.copy(),
        ledger=out / "ledger.sqlite",
        tables=tables,
        rects=rects,
        windows=windows,
        door=viewer.world_rect(hp.door),
        count_room=viewer.world_rect(hp.count_room),
        legend=dict(viewer.legend_at),
        roles_on_duty=set(model.on_duty.values()),
        places=places,
        seats=seats,
        whereabouts=model.whereabouts(),
        on_floor=model.kpis.on_floor,
        entries=hall.entries,
        refusals=dict(hall.refusals),
        transactions=hall.transactions,
        stretches={t: tv.stretches for t, tv in hall.tables.items()},
        paces={t: float(tb.pace) for t, tb in src.casino.pit.tables.items()},
        label=model.waiting_label(),
        waiting_for=model.waiting_for(),
    )
    src.seek(AFTER)
    viewer.draw()
    room = viewer.world_rect(hp.count_room)
    snap.count_pixel = colour(viewer.screen, (room.right - 3, room.bottom - 3))
    snap.count = (hall.count_t, hall.counted, hall.counted_cents, hall.count_variance_cents)
    places = viewer.staff_places()
    snap.count_team = {
        m: (viewer.to_screen(*places[m][0]), model.on_duty[m])
        for m in hall.count_team
        if m in places and m not in model.walks  # (a job at a machine comes first)
    }
    snap.frame_after = viewer.screen.copy()
    snap.inside_after = (model.kpis.on_floor, len(model.waiting))
    snap.count_room = room
    src.close()
    return snap


def rows(ledger: Path, upto: float = float("inf")) -> list[tuple[int, float, str, dict[str, Any]]]:
    with sqlite3.connect(ledger) as db:
        got = db.execute("SELECT seq, t, kind, body FROM records ORDER BY seq").fetchall()
    return [(seq, t, kind, json.loads(body)) for seq, t, kind, body in got if t <= upto]


def test_each_department_s_place_is_drawn_in_its_state(at_ten: Snapshot) -> None:
    """At 21:30 the six tables are open (green), the junket room's two closed (grey), the
    card room open in its own colour; each window in its state; the door's desk and the count
    room drawn (no count at 21:30)."""
    s = at_ten.frame
    kinds = {t: k for t, (k, *_rest) in at_ten.tables.items()}
    assert kinds == {
        "RL-1": "table", "RL-2": "table", "RL-3": "table", "RL-4": "table", "PB-1": "table",
        "BJ-1": "table", "POKER": "card_room", "JR-1": "junket", "JR-2": "junket",
    }  # fmt: skip
    assert {t for t, (_k, is_open, *_r) in at_ten.tables.items() if is_open} == {
        "RL-1", "RL-2", "RL-3", "RL-4", "PB-1", "BJ-1", "POKER",
    }  # fmt: skip
    from viz.model import TableView

    for tid, (kind, is_open, *_rest) in at_ten.tables.items():
        box = at_ten.rects[tid]
        probe = (box.right - 4, box.centery)  # clear of the id and the seated count
        assert colour(s, probe) == table_colour(TableView(tid, kind), is_open), tid
    assert colour(s, (at_ten.rects["RL-1"].right - 4, at_ten.rects["RL-1"].centery)) == (
        P.TABLE_OPEN
    )
    assert colour(s, (at_ten.rects["JR-1"].right - 4, at_ten.rects["JR-1"].centery)) == (
        P.TABLE_CLOSED
    )
    assert len(at_ten.windows) == 4
    assert at_ten.cashiers == 4  # the evening's crew: every window open
    assert [w for _r, w in at_ten.windows].count(P.WINDOW_CLOSED) == 0
    for box, want in at_ten.windows:
        assert colour(s, (box.right - 3, box.y + 3)) == want
    assert colour(s, (at_ten.door.right - 3, at_ten.door.bottom - 2)) == P.ENTRANCE
    # the count room at 21:30 is dark: no count yet
    assert colour(s, (at_ten.count_room.right - 3, at_ten.count_room.bottom - 3)) == P.ROOM


def test_the_count_room_is_lit_during_the_count_with_its_team(at_ten: Snapshot) -> None:
    """At 05:06 the count of 05:00 (every slot drop container and table drop box, at one
    instant) is on: the room lit, what it counted as the ledger has it, its team drawn in it
    (but a member called to a machine's job since, drawn there)."""
    assert at_ten.count_pixel == P.COUNT_ACTIVE
    t0, counted, cents, variance = at_ten.count
    assert t0 == 19 * 3600.0
    n = total = var = 0
    for _seq, t, kind, d in rows(at_ten.ledger):
        if t == t0 and kind == "drop_counted":
            n, total, var = n + 1, total + d["counted_cents"], var + d["variance_cents"]
        elif t == t0 and kind == "table_count":
            n, total, var = n + 1, total + d["drop_cents"], var + d["variance_cents"]
    assert (counted, cents, variance) == (n, total, var) and n > 200
    team = at_ten.count_team
    assert team is not None and len(team) >= 2 and at_ten.frame_after is not None
    for member, (at, role) in team.items():
        assert at_ten.count_room.collidepoint(at), member
        assert colour(at_ten.frame_after, at) == P.role_style(role).colour, member


def test_patrons_sit_at_the_tables_and_dealers_deal_there(at_ten: Snapshot) -> None:
    """Each seat taken has a patron's diamond on it; each open table's dealer stands at it,
    drawn in the dealer's shape and colour, filled (busy) when the table has players."""
    s = at_ten.frame
    assert sum(len(points) for points in at_ten.seats.values()) == sum(
        seated for _k, _o, seated, *_r in at_ten.tables.values()
    )
    assert at_ten.seats["RL-2"]  # players at the busiest roulette
    for tid, points in at_ten.seats.items():
        for at in points:
            assert colour(s, at) == P.PATRON, tid
    dealers = 0
    for tid, (kind, is_open, seated, _seats, dealer, _ins) in at_ten.tables.items():
        if kind != "table" or not is_open:
            continue
        at, busy, role = at_ten.places[dealer]
        assert role == "dealer" and busy == (seated > 0)
        assert at_ten.rects[tid].collidepoint(at)
        want = P.role_style("dealer").colour if busy else (255, 255, 255)
        assert colour(s, at) == want
        dealers += 1
    assert dealers == 6


def test_the_legend_lists_every_role_on_duty_in_its_shape_and_colour(at_ten: Snapshot) -> None:
    s = at_ten.frame
    assert set(at_ten.legend) == at_ten.roles_on_duty == {
        "attendant", "technician", "inspector", "cashier", "chief_cashier", "dealer",
    }  # fmt: skip
    for role, at in at_ten.legend.items():
        assert colour(s, at) == P.role_style(role).colour, role
    shapes = {P.role_style(r).shape for r in at_ten.legend}
    assert len(shapes) == len(at_ten.legend)  # a distinct shape per role
    points = {m: at for m, (at, _b, _r) in at_ten.places.items()}
    busy_shown = 0
    for member, (at, busy, role) in at_ten.places.items():  # everyone on duty has a place
        assert role, member
        alone = all(
            abs(at[0] - x) >= 7 or abs(at[1] - y) >= 7
            for m, (x, y) in points.items()
            if m != member
        )  # (a member walking past another may hide them)
        if busy and alone:
            assert colour(s, at) == P.role_style(role).colour, member
            busy_shown += 1
    assert busy_shown >= 10


def test_the_door_pit_and_cage_figures_are_counted_from_the_records(at_ten: Snapshot) -> None:
    """Entries, refusals, cage transactions and stretches as the ledger has them by 21:30;
    the players seated at each table at 21:30 as the ledger's stretches say (a stretch of
    ``rounds`` at the table's pace ends with its record)."""
    home = ""
    entries = 0
    refusals: dict[str, int] = {}
    txns = 0
    stretches: dict[str, int] = {}
    seated: dict[str, int] = {}
    for _seq, t, kind, d in rows(at_ten.ledger):
        if kind == "casino_licensed" and d["home"]:
            home = d["casino"]
        if kind == "table_stretch":
            start = t - quantize(d["rounds"] * 3600.0 / at_ten.paces[d["table"]])
            if start <= AT < t:
                seated[d["table"]] = seated.get(d["table"], 0) + 1
        if kind == "card_room_session" and t - d["seconds"] <= AT < t:
            seated[d["area"]] = seated.get(d["area"], 0) + 1
        if t > AT:
            continue
        if kind == "entry_admitted" and d["casino"] == home and d["purpose"] == "play":
            entries += 1
        if kind == "entry_refused" and d["casino"] == home:
            refusals[d["reason"]] = refusals.get(d["reason"], 0) + 1
        if kind == "cage_transaction":
            txns += 1
        if kind in ("table_stretch", "card_room_session"):
            key = d.get("table", d.get("area"))
            stretches[key] = stretches.get(key, 0) + 1
    assert home == "dragonara"
    assert (at_ten.entries, at_ten.refusals, at_ten.transactions) == (entries, refusals, txns)
    assert {t: n for t, n in at_ten.stretches.items() if n} == stretches
    assert {t: v[2] for t, v in at_ten.tables.items() if v[2]} == seated
    assert sum(seated.values()) == 27


def test_waiting_says_for_what_and_every_patron_inside_is_counted_once(at_ten: Snapshot) -> None:
    """The old "N waiting" counted the table players (and everyone refused at the door) as
    waiting for a machine; now each patron inside is in one place, and those waiting for a
    machine are only those the slot floor makes wait (none at 21:30 with machines idle)."""
    w = at_ten.whereabouts
    assert sum(w.values()) == at_ten.on_floor
    assert w["waiting for a machine"] == 0 and at_ten.label == ""
    assert w["at a table"] + w["in the card room"] == 27
    assert w["at the door"] == 0  # the twin's door takes no time
    # inside by the ledger: arrived, minus left, refused, or done at a table or the card room
    inside: set[str] = set()
    for _seq, _t, kind, d in rows(at_ten.ledger, AT):
        if kind == "patron_arrived":
            inside.add(d["patron"])
        elif kind in ("patron_left", "table_stretch", "card_room_session", "play_refused"):
            inside.discard(d["patron"])
        elif kind == "entry_refused":
            inside.discard(d["person"])
        elif kind in ("device_detected", "unapproved_item_detected"):
            inside.discard(d["patron"])
    assert len(inside) == at_ten.on_floor


def test_nobody_is_left_inside_once_the_casino_has_closed(at_ten: Snapshot) -> None:
    """At 05:06 the casino has been closed since 04:00: nobody inside, nobody without a
    machine (the old count kept everyone refused at the door and every table player inside
    for ever)."""
    assert at_ten.inside_after == (0, 0)


def test_a_replay_at_21_30_shows_what_the_live_view_showed(at_ten: Snapshot) -> None:
    """The ledger's replay derives the seated players and the machine queue the live view
    read from the live world: the same at 21:30."""
    replay = ReplaySource(at_ten.ledger)
    replay.seek(AT)
    model = replay.model
    assert {t: tv.seated for t, tv in model.hall.tables.items()} == {
        t: v[2] for t, v in at_ten.tables.items()
    }
    assert model.whereabouts() == at_ten.whereabouts
    assert (model.hall.entries, model.hall.refusals) == (at_ten.entries, at_ten.refusals)


def test_a_click_on_a_table_or_a_cage_window_opens_its_panel(tmp_path: Path) -> None:
    src = open_live(None, out=tmp_path, factor=60.0)
    viewer = Viewer(src, SIZE)
    src.seek(3 * 3600.0)  # 13:00: RL-1 open since noon
    viewer.draw()
    hp = viewer.hall_plan
    assert hp is not None
    box = viewer.world_rect(hp.tables["RL-1"])
    viewer.handle(pygame.event.Event(pygame.MOUSEBUTTONDOWN, button=1, pos=box.center))
    assert viewer.selected_place == ("table", "RL-1") and viewer.selected is None
    viewer.draw()
    from viz.views.pit import PitView

    tv = src.model.hall.tables["RL-1"]
    lines = PitView().lines(viewer, "RL-1")
    assert lines[0] == "RL-1  table  roulette"
    assert lines[1] == "OPEN since 12:00"
    assert lines[2] == f"dealer {tv.dealer}   inspector: {tv.inspector}".replace(
        "dealer ", "dealer: "
    )
    assert f"seated now: {tv.seated} of 8 seats" in lines
    assert f"stretches ended: {tv.stretches}" in lines
    r = viewer.floor_rect
    panel_corner = (r.right - 340 - 8 + 4, r.y + 8 + 30)
    assert colour(viewer.screen, panel_corner) == P.PANEL
    viewer.key(pygame.K_ESCAPE)
    assert viewer.selected_place is None and viewer.running
    window = viewer.world_rect(hp.windows[0])
    viewer.click(window.center)
    assert viewer.selected_place == ("window", "0")
    from viz.views.cage import CageView

    cashier = sorted(m for m, role in src.model.on_duty.items() if role == "cashier")[0]
    got = CageView().lines(viewer, 0)
    assert got[0] == "cage window 1" and got[1].startswith(f"cashier {cashier}: ")
    served = src.model.hall.windows[cashier].served
    assert got[2] == f"transactions: {served}" and served > 0
    viewer.draw()
    assert colour(viewer.screen, panel_corner) == P.PANEL
    src.close()


def test_behind_is_the_true_lag_with_controlled_frame_times(tmp_path: Path) -> None:
    """Frames of 0.1 wall seconds at x60 with no time to simulate: the run falls 6 simulated
    seconds behind a frame, uncapped by the run's end (the run has 36 s; the old figure was
    capped at the time left ÷ the speed); the top bar says it cannot keep x60, and the frame
    rate is 10 a second. With time to simulate, it keeps up: nothing behind, x60 achieved."""
    src = open_live(TINY, hours=0.01, out=tmp_path, factor=60.0)
    viewer = Viewer(src, (1024, 700))
    t0 = src.t
    for _ in range(10):
        viewer.frame(0.1, budget=0.0)
    assert src.t == t0
    assert src.behind_seconds == pytest.approx(60.0)  # 10 frames x 0.1 s x 60
    assert src.behind_seconds > src.end - src.t
    assert src.achieved == 0.0 and not src.keeping_up
    assert viewer.fps == pytest.approx(10.0)
    speed, lag, short = viewer.speed_text()
    assert speed == "x60 asked, x0.0 achieved"
    assert lag == "behind by 1 min 00 s simulated: cannot keep x60" and short
    viewer.draw()
    # the warning in the top bar, in the warning colour
    assert any(
        colour(viewer.screen, (x, y)) == P.FINDING for x in range(300, 900) for y in range(12, 30)
    )
    src.factor = 2.0  # a new speed starts the schedule again from now
    for _ in range(10):
        viewer.frame(0.1, budget=5.0)  # ample time: 0.2 simulated seconds a frame
    assert src.behind_seconds == pytest.approx(0.0)
    assert src.t == pytest.approx(t0 + 2.0, abs=1 / 64)
    assert src.achieved == pytest.approx(2.0, abs=0.2) and src.keeping_up
    assert viewer.speed_text()[1:] == ("", False)
    src.close()


def test_the_pace_measures_the_achieved_speed_over_its_window() -> None:
    pace = Pace(100.0)
    t = 100.0
    for _ in range(30):  # 3 wall seconds of 0.1 s frames at x60, advancing 3 s each
        target = pace.target(t, 0.1, 60.0)
        t += 3.0
        pace.record(0.1, 3.0, t, 10_000.0)
        assert target == pytest.approx(100.0 + 6.0 * (t - 100.0) / 3.0)
    assert pace.behind == pytest.approx(90.0)  # 180 s asked, 90 s done
    assert pace.window_wall == pytest.approx(SPEED_WINDOW, abs=0.11)
    assert pace.achieved == pytest.approx(30.0)
    pace.reset(t)
    assert (pace.behind, pace.achieved) == (0.0, None)


def test_the_frame_rate_is_over_the_last_second_of_frames() -> None:
    src = open_live(TINY, hours=0.01, factor=1.0)
    viewer = Viewer(src, (1024, 700))
    assert viewer.fps is None
    for dt in [0.5] * 4 + [0.02] * 50:  # slow frames, then 50 a second
        viewer.frame(dt, budget=0.0)
    assert viewer.fps == pytest.approx(50.0)
    src.close()


@pytest.mark.parametrize("seconds,text", [(4.25, "4.2 s"), (42, "42 s"), (750, "12 min 30 s"),
                                          (11100, "3 h 05 min")])  # fmt: skip
def test_durations_are_said_plainly(seconds: float, text: str) -> None:
    assert duration(seconds) == text


@pytest.mark.parametrize("scenario", ["default.toml", "large.toml"])
def test_the_hall_fits_beside_the_floor_at_1280_by_800(scenario: str) -> None:
    """Default (600 machines, every department) and large (2,500): every machine and every
    place of the hall on screen, fitted; the hall's places overlap no machine, no zone and
    one another."""
    src = open_live(REPO / "scenarios" / scenario, hours=0.1)
    viewer = Viewer(src, SIZE)
    r = viewer.floor_rect
    for mid in viewer.plan.machines:
        assert r.contains(viewer.machine_screen_rect(mid))
    hp = viewer.hall_plan
    if scenario == "large.toml":
        assert hp is None and viewer.plan.band[3] == 0  # no door, pit, cage or junkets
        src.close()
        return
    assert hp is not None
    places = [hp.door, hp.queue, hp.cage, hp.count_room, hp.junket_room, hp.staff_room]
    places += list(hp.tables.values()) + list(hp.windows)
    for p in places:
        assert r.contains(viewer.world_rect(p)), p
    for zone in viewer.plan.zones.values():
        for p in places:
            assert not viewer.world_rect(zone).colliderect(viewer.world_rect(p))
    tables = [viewer.world_rect(t) for t in hp.tables.values()]
    assert all(a.collidelist([b for b in tables if b is not a]) == -1 for a in tables)
    rooms = [viewer.world_rect(p) for p in (hp.pit, hp.door, hp.cage, hp.count_room,
                                            hp.junket_room, hp.staff_room)]  # fmt: skip
    assert all(a.collidelist([b for b in rooms if b is not a]) == -1 for a in rooms)
    assert len(hp.tables) == 9 and len(hp.windows) == 4
    src.close()


def test_a_floor_without_a_hall_keeps_its_plan() -> None:
    """The tiny floor has no door, cage, tables or junkets: no hall below its entrance."""
    src = open_live(TINY, hours=0.1)
    viewer = Viewer(src, (1024, 700))
    assert viewer.hall_plan is None
    layout = [(m.id, m.bank, m.zone) for m in src.model.machines.values()]
    assert viewer.plan == plan(layout)
    src.close()


def test_the_hall_plan_is_kept_and_a_room_half_off_screen_does_not_spill(tmp_path: Path) -> None:
    """The hall's plan is made once (frames reuse it); zoomed in on the hall, with the pit's
    area and the first zone starting left of the screen, each is filled only where it is:
    the door's desk shows, and the gap between two zones is the background (pygame 2.6 fills
    a rectangle that starts left of a surface from its edge with the whole width)."""
    src = open_live(None, hours=0.5, out=tmp_path, factor=60.0)
    viewer = Viewer(src, SIZE)
    src.seek(600.0)
    hp = viewer.hall_plan
    assert hp is not None
    viewer.frame(1 / 30)
    assert viewer.hall_plan is hp
    x, y, w, h = viewer.plan.band
    viewer.zoom_at(2.2, viewer.to_screen(x + w / 2, y + h / 2))
    viewer.draw()
    pit = viewer.world_rect(hp.pit)
    zone = next(iter(viewer.plan.zones.values()))
    assert pit.x < 0 and viewer.to_screen(zone[0], 0)[0] < 0
    door = viewer.world_rect(hp.door)
    assert colour(viewer.screen, (door.right - 4, door.bottom - 3)) == P.ENTRANCE
    assert colour(viewer.screen, (pit.right + 4, pit.centery)) == P.BACKGROUND
    gap_x = viewer.to_screen(zone[0] + zone[2] + 6, 0)[0]  # between the first two zones
    assert colour(viewer.screen, (gap_x, viewer.floor_rect.y + 200)) == P.BACKGROUND
    src.close()


def test_a_stalled_frame_counts_a_quarter_second_for_the_schedule_and_its_time_for_fps() -> None:
    """A frame of 2 wall seconds (a window dragged) in the window's loop: the frame rate says
    0.5 a second, but the schedule counts a quarter of a second (x60: 15 simulated seconds),
    so a stall is neither caught up nor called lag."""
    from viz.app import MAX_FRAME_SECONDS

    src = open_live(TINY, hours=0.01, factor=60.0)
    viewer = Viewer(src, (1024, 700))
    viewer.frame(2.0, budget=0.0, longest=MAX_FRAME_SECONDS)
    viewer.frame(2.0, budget=0.0, longest=MAX_FRAME_SECONDS)
    assert src.behind_seconds == pytest.approx(30.0)
    assert viewer.fps == pytest.approx(0.5)
    src.close()


def test_a_junket_in_the_junket_room(tmp_path: Path) -> None:
    """The default scenario's first junket (J1, 7 members) arrives on Tuesday at 16:00 (30 h).
    At 19:00 its members play at the junket room's tables (open, green) and the rest wait in
    the room; the replay of the ledger (each session's ``started``) seats the same players."""
    src = open_live(None, hours=36.0, out=tmp_path, factor=60.0)
    viewer = Viewer(src, SIZE)
    at = 33 * 3600.0
    src.seek(at)
    viewer.draw()
    hall = src.model.hall
    assert list(hall.junkets) == ["J1"] and len(hall.junkets["J1"][1]) == 7
    seated = {t: tv.seated for t, tv in hall.tables.items() if tv.kind == "junket"}
    assert seated == {"JR-1": 2, "JR-2": 2} and hall.seat_queue == 0
    hp = viewer.hall_plan
    assert hp is not None
    for tid in seated:
        box = viewer.world_rect(hp.tables[tid])
        assert colour(viewer.screen, (box.right - 4, box.centery)) == P.TABLE_OPEN
    jx, jy, _jw, jh = hp.junket_room
    for i in range(7 - 4):  # the members not at a table, in the room
        assert colour(viewer.screen, viewer.to_screen(jx + 8 + 7 * i, jy + jh - 4)) == P.PATRON
    lines = [line for line, _c in viewer.department_lines()]
    assert "junkets: 1 groups in (7 members), 1 over the run" in lines
    assert "  4 at the junket tables, 0 waiting for a seat" in lines
    src.seek(36 * 3600.0)
    src.close()
    replay = ReplaySource(tmp_path / "ledger.sqlite")
    replay.seek(at)
    assert {t: tv.seated for t, tv in replay.model.hall.tables.items() if tv.kind == "junket"} == (
        seated
    )


def test_waiting_is_said_for_each_thing_one_may_wait_for(at_ten: Snapshot) -> None:
    assert at_ten.waiting_for == {
        "a machine": 0, "the door": 0, "a table seat": 0, "a cage window": 0,
    }  # fmt: skip
    replay = ReplaySource(at_ten.ledger)
    replay.seek(AT)
    got = replay.model.waiting_for()
    assert got == {"a machine": 0, "the door": 0, "a table seat": None, "a cage window": 0}


def test_a_patron_waiting_for_a_machine_is_counted_and_drawn_at_the_entrance(
    tmp_path: Path,
) -> None:
    """The tiny floor's four machines are all taken at 11:23 (4,980 s): one patron waits for a
    machine, drawn inside the entrance and counted by its label; the replay says the same."""
    from viz.views.patrons import PatronsView

    src = open_live(TINY, hours=2.0, out=tmp_path, factor=60.0)
    viewer = Viewer(src, (1024, 700))
    src.seek(4980.0)
    viewer.draw()
    model = src.model
    assert model.hall.machine_queue == 1 and model.waiting_label() == "1 waiting for a machine"
    assert model.whereabouts()["waiting for a machine"] == 1
    assert model.waiting_for()["a machine"] == 1
    (at,) = PatronsView().queue_positions(viewer)
    assert colour(viewer.screen, viewer.to_screen(*at)) == P.PATRON
    src.seek(7200.0)
    src.close()
    replay = ReplaySource(tmp_path / "ledger.sqlite")
    replay.seek(4980.0)
    assert replay.model.waiting_label() == "1 waiting for a machine"


def test_a_refused_entrant_walks_away_from_the_door(tmp_path: Path) -> None:
    """The default floor's first refusal (P017901, self-excluded, at 139.08 s): half a minute
    later they are drawn half way from the door to the way out, in the refusal colour; the
    door's figures and the ticker say so."""
    from viz.model import REFUSED_WALK_SECONDS

    src = open_live(None, hours=0.1, out=tmp_path, factor=60.0)
    viewer = Viewer(src, SIZE)
    src.seek(139.078125 + REFUSED_WALK_SECONDS / 2)
    viewer.draw()
    hall = src.model.hall
    assert hall.refusals == {"self_excluded": 1}
    assert hall.leaving == {"P017901": ("self_excluded", 139.078125)}
    hp = viewer.hall_plan
    assert hp is not None
    dx, dy = hp.door[0] + hp.door[2] / 2, hp.door[1] + hp.door[3]
    rx, ry = hp.refused
    half = viewer.to_screen((dx + rx) / 2, (dy + ry) / 2)
    assert colour(viewer.screen, half) == P.REFUSED
    assert any("P017901 refused (self excluded)" in line for _t, line, _f in src.model.ticker)
    lines = [line for line, _c in viewer.department_lines()]
    assert "  1 refused (self excluded 1)" in lines
    src.close()


def test_a_role_the_palette_does_not_know_is_a_grey_cross() -> None:
    style = P.role_style("sommelier")
    assert (style.label, style.shape, style.colour) == ("sommelier", "cross", (95, 95, 95))
    assert len({r.shape for r in P.ROLES[:6]}) == 6  # the six roles the scenarios define
