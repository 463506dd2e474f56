"""The premium room on the floor plan, and the AML desk's and surveillance's figures in the
sidebar (issue 32, the viewer's decisions on the last three departments).

Real pygame surfaces, headless. Singapore run live to 21:00 on its first day (the evening's
sessions under way: the players drew their chips at 20:00, their sessions are recorded at the
23:00 cash-in), then on to 23:30 so that the ledger holds the sessions of 21:00; the default
casino run live to 16:00 for the AML desk's and surveillance's figures.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

os.environ["SDL_VIDEODRIVER"] = "dummy"  # headless: real surfaces, no window
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame
import pytest
from conftest import REPO
from test_viz_departments import colour, rows

from viz import palette as P
from viz.app import SIDEBAR, TICKER, TOPBAR, Viewer, init_pygame
from viz.layout import hall, plan
from viz.live import open_live
from viz.sources import ReplaySource
from viz.views import NOT_DRAWN, registered

SINGAPORE = REPO / "scenarios" / "singapore.toml"
SIZE = (1280, 800)
AT = 11.0 * 3600.0  # 21:00 on Singapore's first day (it opens at 10:00)
AFTER = 13.5 * 3600.0  # 23:30: past the 23:00 cash-in, every session of 21:00 recorded
DAY = "2026-03-02"


@pytest.fixture(autouse=True)
def _pygame() -> None:
    init_pygame(headless=True)


@dataclass
class Room:
    frame: pygame.Surface
    ledger: Path
    seated: dict[str, int]
    pixels: dict[str, tuple[int, int, int]]  # table -> the colour at its rect
    premium_in: set[str]
    figures: list[str]
    lines: list[str]  # the sidebar's department lines
    plan_width: float
    figures_after: list[str]
    panel_after: list[str]  # PR-01's panel at 23:30
    stretches_after: dict[str, int]


def probe(r: pygame.Rect) -> tuple[int, int]:
    return (r.right - 4, r.centery)  # clear of the id and the seated count


@pytest.fixture(scope="module")
def room(tmp_path_factory: pytest.TempPathFactory) -> Room:
    init_pygame(headless=True)
    out = tmp_path_factory.mktemp("singapore")
    src = open_live(SINGAPORE, out=out, factor=60.0)
    viewer = Viewer(src, SIZE)
    src.seek(AT)
    viewer.draw()
    model = src.model
    hp = viewer.hall_plan
    assert hp is not None
    tables = model.hall.table_list("premium")
    for tv in tables:  # on screen
        assert viewer.floor_rect.contains(viewer.world_rect(hp.tables[tv.id])), tv.id
    got = Room(
        frame=viewer.screen.copy(),
        ledger=out / "ledger.sqlite",
        seated={tv.id: tv.seated for tv in tables},
        pixels={
            tv.id: colour(viewer.screen, probe(viewer.world_rect(hp.tables[tv.id])))
            for tv in tables
        },
        premium_in=set(model.hall.premium_in),
        figures=model.premium_figures(),
        lines=[line for line, _c in viewer.department_lines()],
        plan_width=viewer.plan.width,
        figures_after=[],
        panel_after=[],
        stretches_after={},
    )
    src.seek(AFTER)
    viewer.draw()
    got.figures_after = src.model.premium_figures()
    from viz.views.premium import PremiumView

    got.panel_after = PremiumView().lines(viewer, "PR-01")
    got.stretches_after = {tv.id: tv.stretches for tv in src.model.hall.table_list("premium")}
    src.close()
    return got


def sessions_under_way(ledger: Path, t: float) -> dict[str, set[str]]:
    """From the ledger: the players at each premium table at ``t``: chips drawn for the
    session (t > 0) at or before ``t``, its session recorded (at that table) after ``t``."""
    drew: dict[str, float] = {}
    out: dict[str, set[str]] = {}
    for _seq, rt, kind, d in rows(ledger):
        if kind == "premium_drawdown" and d["purpose"] == "chips" and rt > 0:
            drew[d["player"]] = rt
        elif kind == "premium_played":
            start = drew.pop(d["player"], rt)
            if start <= t < rt:
                out.setdefault(d["table"], set()).add(d["player"])
    return out


def test_premium_is_drawn_and_aml_and_surveillance_are_in_the_sidebar() -> None:
    assert "premium" in registered() and "premium" not in NOT_DRAWN
    for name in ("aml", "surveillance"):
        assert name not in registered()
        assert "sidebar" in NOT_DRAWN[name], name


def test_the_premium_room_is_drawn_with_its_players_where_the_records_seat_them(
    room: Room,
) -> None:
    """At 21:00 each table of the room is drawn open (green) with the players whose sessions,
    recorded at 23:00, began by 21:00; a table nobody sits at is drawn closed."""
    under_way = sessions_under_way(room.ledger, AT)
    assert set(room.seated) == {"PR-01", "PR-02", "PR-03"}
    assert room.seated == {t: len(under_way.get(t, set())) for t in room.seated}
    assert sum(room.seated.values()) == 10  # (the seed's evening)
    assert room.premium_in == set().union(*under_way.values())
    for tid, n in room.seated.items():
        assert room.pixels[tid] == (P.TABLE_OPEN if n else P.TABLE_CLOSED), tid
    assert P.TABLE_OPEN in room.pixels.values()


def test_the_premium_room_s_key_figures_are_the_records(room: Room) -> None:
    status: dict[str, str] = {}
    players: set[str] = set()
    accounts: set[str] = set()
    deposits = [0, 0]
    for _seq, t, kind, d in rows(room.ledger):
        if t > AT:
            continue
        if kind == "premium_player_registered":
            players.add(d["player"])
        elif kind == "premium_status_decided":
            status[d["player"]] = d["decision"]
        elif kind == "deposit_account_opened":
            accounts.add(d["account"])
        elif kind == "deposit_account_closed":
            accounts.discard(d["account"])
        elif kind == "premium_deposit_made" and d["day"] == DAY:
            deposits[0] += 1
            deposits[1] += d["amount_cents"]
    premium = sum(1 for v in status.values() if v != "ended")
    assert room.figures == [
        f"premium: {premium} of {len(players)} players premium, {len(accounts)} accounts open",
        f"  10 in the room; today {deposits[0]} deposits S$ {deposits[1] / 100:,.0f}, 0 sessions",
        "  0 sessions over the run, room won S$ 0",
    ]
    assert (premium, len(players), len(accounts)) == (37, 48, 45)
    assert room.figures[0] in room.lines  # the sidebar shows them


def test_the_sessions_recorded_at_the_cash_in_reach_the_tables_and_the_figures(
    room: Room,
) -> None:
    played = [d for _s, t, k, d in rows(room.ledger) if k == "premium_played" and t <= AFTER]
    assert played  # the evening's sessions, recorded at 23:00
    by_table: dict[str, int] = {}
    for d in played:
        by_table[d["table"]] = by_table.get(d["table"], 0) + 1
    assert room.stretches_after == {t: by_table.get(t, 0) for t in ("PR-01", "PR-02", "PR-03")}
    won = -sum(d["net_cents"] for d in played)
    assert room.figures_after[2] == (
        f"  {len(played)} sessions over the run, room won S$ {won / 100:,.0f}"
    )
    assert f"{len(played)} sessions" in room.figures_after[1]
    assert room.panel_after[0].startswith("PR-01  premium room table")
    assert f"sessions recorded: {by_table.get('PR-01', 0)} " in room.panel_after[2]


def test_a_replay_of_the_ledger_shows_the_premium_room_the_live_view_showed(room: Room) -> None:
    src = ReplaySource(room.ledger)
    viewer = Viewer(src, SIZE)
    assert viewer.plan.width == room.plan_width  # the same room, the same plan
    src.seek(AT)
    viewer.draw()
    hall_state = src.model.hall
    assert {tv.id: tv.seated for tv in hall_state.table_list("premium")} == room.seated
    assert set(hall_state.premium_in) == room.premium_in
    assert src.model.premium_figures() == room.figures
    hp = viewer.hall_plan
    assert hp is not None
    for tid, want in room.pixels.items():
        assert colour(viewer.screen, probe(viewer.world_rect(hp.tables[tid]))) == want, tid


@pytest.mark.parametrize("scenario", ["default.toml", "large.toml", "singapore.toml"])
def test_the_hall_fits_at_1280x800_with_the_premium_room(scenario: str) -> None:
    """Each scenario's hall, with a premium room of three tables added: its rooms inside the
    band, side by side without overlapping, and on screen at 1280x800."""
    from twin import api
    from twin.casino import Casino

    sc = api.prepare(REPO / "scenarios" / scenario, hours=0.01)
    casino = Casino(sc)
    floor = [(m.id, m.spec.bank, m.spec.zone) for m in casino.machines]
    p = plan(floor, hall=True, premium_tables=3)
    pr = ["PR-01", "PR-02", "PR-03"]
    hp = hall(p, ["RL-1", "RL-2", "BJ-1"], ["POKER"], ["JR-1", "JR-2"], 4, pr)
    bx, by, bw, bh = p.band
    rooms = {
        "door": hp.door, "cage": hp.cage, "junket": hp.junket_room,
        "premium": hp.premium_room, "count": hp.count_room, "staff": hp.staff_room,
    }  # fmt: skip
    rects = {k: pygame.Rect(*map(round, r)) for k, r in rooms.items()}
    for name, r in rooms.items():
        x, y, w, h = r
        assert bx <= x and x + w <= bx + bw and by <= y and y + h <= by + bh, name
    for a in rects:
        for b in rects:
            if a < b:
                assert not rects[a].colliderect(rects[b]), (a, b)
    room_rect = pygame.Rect(*map(round, hp.premium_room))
    for t in pr:
        assert room_rect.contains(pygame.Rect(*map(round, hp.tables[t]))), t
    # at 1280x800 the fitted view (the whole plan) keeps a table readable: 12 pixels high
    floor_w, floor_h = SIZE[0] - SIDEBAR, SIZE[1] - TOPBAR - TICKER
    zoom = min((floor_w - 20) / p.width, (floor_h - 20) / p.height)
    assert hp.tables["PR-01"][3] * zoom >= 12


def test_the_aml_desk_s_and_surveillance_s_figures_are_the_records(tmp_path: Path) -> None:
    src = open_live(None, out=tmp_path, factor=60.0)
    viewer = Viewer(src, SIZE)
    src.seek(6.0 * 3600.0)  # 16:00
    viewer.draw()
    model = src.model
    aml, surveillance = model.aml_figures(), model.surveillance_figures()
    lines = [line for line, _c in viewer.department_lines()]
    src.close()
    count: dict[str, int] = {}
    reports: dict[str, str] = {}
    decisions: dict[str, int] = {}
    recipients: dict[str, int] = {}
    cameras: set[str] = set()
    held: set[str] = set()
    cases: set[str] = set()
    for _seq, _t, kind, d in rows(tmp_path / "ledger.sqlite"):
        count[kind] = count.get(kind, 0) + 1
        if kind == "internal_report":
            reports[d["case"]] = d["patron"]
        elif kind == "ro_evaluation":
            reports.pop(d["case"], None)
            decisions[d["decision"]] = decisions.get(d["decision"], 0) + 1
        elif kind == "suspicion_reported":
            recipients[d["recipient"]] = recipients.get(d["recipient"], 0) + 1
        elif kind == "camera_installed":
            cameras.add(d["camera"])
        elif kind == "recording_held":
            held.add(d["recording"])
        elif kind == "case_opened":
            cases.add(d["case"])
        elif kind == "case_closed":
            cases.discard(d["case"])
            held -= set(d["recordings"])
    made = count.get("recording_made", 0)
    assert aml == [
        f"AML: {len(reports)} internal reports open of {count.get('internal_report', 0)}, "
        f"{count.get('red_flag_observed', 0)} red flags",
        f"  evaluated {sum(decisions.values())} ({decisions.get('suspicious', 0)} suspicious), "
        f"reported {sum(recipients.values())} (police {recipients.get('police', 0)}, "
        f"Board {recipients.get('board_mllo', 0)})",
    ]
    assert surveillance == [
        f"surveillance: {len(cameras)} cameras; recordings {made:,} made, "
        f"{made - count.get('recording_recycled', 0):,} kept, {len(held)} held",
        f"  cases {len(cases)} open of {count.get('case_opened', 0)}; requests "
        f"{count.get('recording_produced', 0)} produced, "
        f"{count.get('recording_request_refused', 0)} refused",
    ]
    assert count.get("internal_report", 0) > 0 and len(cameras) == 22 and cases
    for line in aml + surveillance:
        assert line in lines  # in the sidebar
