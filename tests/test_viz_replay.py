"""``twin viz --ledger``: a finished run replayed from its ledger alone. At any chosen time the
state of every machine the viewer holds is what ``twin state`` gives for that time."""

from __future__ import annotations

import json
import os
from pathlib import Path

os.environ["SDL_VIDEODRIVER"] = "dummy"
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame
import pytest
from conftest import REPO

import twin.cli
from twin import api
from twin.ledger import read_rows
from viz import palette as P
from viz.app import Viewer, init_pygame
from viz.sources import ReplaySource


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small run with frequent faults, so machines are down at many moments."""
    out = tmp_path_factory.mktemp("run") / "tiny"
    api.run(
        REPO / "scenarios" / "tiny.toml",
        overrides=["faults.tilt_mtbf_hours=0.4", "faults.bill_jam_mtbf_hours=0.6"],
        out=out,
    )
    return out


def _twin_state(ledger: Path, machine: str, at: float, capsys: pytest.CaptureFixture[str]) -> dict:
    capsys.readouterr()
    twin.cli.main(["state", str(ledger), "--machine", machine, "--at", repr(at), "--json"])
    doc: dict = json.loads(capsys.readouterr().out)
    doc.pop("local_time")
    return doc


def _chosen_times(ledger: Path) -> list[float]:
    """Moments worth checking: when a fault or a door exception was written, and between."""
    exceptions = [t for _s, t, _k, _b in read_rows(ledger, kinds=("machine_exception",))]
    assert len(exceptions) >= 4
    end = max(t for _s, t, _k, _b in read_rows(ledger))
    return sorted({exceptions[0], exceptions[len(exceptions) // 2], exceptions[-1], end / 3, end})


def test_the_replay_at_a_chosen_time_is_what_twin_state_says(
    run_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ledger = run_dir / "ledger.sqlite"
    src = ReplaySource(ledger)
    times = _chosen_times(ledger)
    downs = 0
    for at in [*times, *reversed(times)]:  # forward, then jumping back
        src.seek(at)
        for machine, view in src.model.machines.items():
            mine = view.machine_state(at).to_json()
            assert mine == _twin_state(ledger, machine, at, capsys), (machine, at)
            downs += bool(mine["down"])
            if mine["down"] and not view.locked:
                assert view.state is not P.IDLE and view.state is not P.IN_PLAY
    assert downs > 0  # the check saw machines out of play, not only idle ones


def test_the_time_bar_jumps_and_frames_render(run_dir: Path, tmp_path: Path) -> None:
    init_pygame(headless=True)
    src = ReplaySource(run_dir / "ledger.sqlite", factor=600.0)
    viewer = Viewer(src, (1280, 800))
    viewer.draw()
    bar = viewer.timebar_rect
    assert bar is not None
    viewer.click((bar.x + bar.w // 2, bar.centery))
    assert src.t == pytest.approx(src.end / 2, rel=0.01)
    half = {m: v.state for m, v in src.model.machines.items()}
    src.paused = False
    viewer.frame(1.0)
    assert src.t == pytest.approx(src.end / 2 + 600.0, rel=0.01)
    viewer.key(pygame.K_COMMA)  # an hour back
    viewer.click((bar.x + bar.w // 2, bar.centery))
    assert {m: v.state for m, v in src.model.machines.items()} == half
    shot = viewer.screenshot(tmp_path / "replay.png")
    assert pygame.image.load(str(shot)).get_size() == (1280, 800)


def test_a_replay_takes_no_commands(run_dir: Path) -> None:
    src = ReplaySource(run_dir / "ledger.sqlite")
    assert src.put(object()) is None and not src.live


# -- patrons -----------------------------------------------------------------------------------


def _sessions(ledger: Path) -> list[tuple[str, str, float, float]]:
    """(patron, machine, sat down, left) of every finished session, in order."""
    started: dict[str, tuple[str, float]] = {}
    out = []
    for _s, t, kind, body in read_rows(ledger, kinds=("session_started", "patron_left")):
        d = json.loads(body)
        if kind == "session_started":
            started[d["patron"]] = (d["machine"], t)
        elif d["patron"] in started:
            machine, sat = started.pop(d["patron"])
            out.append((d["patron"], machine, sat, t))
    return out


def _screen(viewer: Viewer, at: tuple[float, float]) -> tuple[int, int]:
    x, y = viewer.to_screen(*at)
    return int(x), int(y)


def _colour(viewer: Viewer, at: tuple[float, float]) -> tuple[int, int, int]:
    c = viewer.screen.get_at(_screen(viewer, at))
    return (c.r, c.g, c.b)


def test_patrons_walk_in_sit_at_their_machine_and_walk_out(run_dir: Path) -> None:
    """From the ledger alone: a patron walks from the entrance to their machine when their
    session starts, is drawn at it (the patron colour at their seat) while playing, walks
    back to the entrance when they leave, and is not drawn once out."""
    from viz.model import PATRON_WALK_SECONDS as WALK

    init_pygame(headless=True)
    ledger = run_dir / "ledger.sqlite"
    sessions = _sessions(ledger)
    # a session long enough to be seated, on a machine nobody takes soon after
    patron, machine, sat, left = next(
        (p, m, s, e)
        for p, m, s, e in sessions
        if e - s > 3 * WALK
        and not any(m2 == m and e < s2 <= e + 2 * WALK for _p, m2, s2, _e in sessions)
    )
    src = ReplaySource(ledger)
    viewer = Viewer(src, (1280, 800))
    assert viewer.machine_side >= 14  # the tiny floor, fitted: markers drawn in full
    seat = viewer.seat(machine)
    door = viewer.plan.entrance
    assert seat is not None

    src.seek(sat + WALK / 2)  # half way in
    viewer.draw()
    mid = viewer.patron_position(patron)
    assert mid == pytest.approx(((door[0] + seat[0]) / 2, (door[1] + seat[1]) / 2))
    assert _colour(viewer, mid) == P.PATRON
    assert _colour(viewer, seat) != P.PATRON  # not there yet

    src.seek(sat + WALK + 1)  # seated, playing
    viewer.draw()
    assert viewer.patron_position(patron) is None  # not walking
    assert src.model.machines[machine].patron == patron
    assert _colour(viewer, seat) == P.PATRON
    assert _colour(viewer, _corner(viewer, machine)) == src.model.machines[machine].state.colour

    src.seek(left + WALK / 4)  # a quarter of the way out
    viewer.draw()
    out = viewer.patron_position(patron)
    assert out == pytest.approx(
        (seat[0] + (door[0] - seat[0]) / 4, seat[1] + (door[1] - seat[1]) / 4)
    )
    assert _colour(viewer, out) == P.PATRON
    assert _colour(viewer, seat) != P.PATRON

    src.seek(left + WALK + 1)  # gone
    viewer.draw()
    assert viewer.patron_position(patron) is None
    assert patron not in src.model.walking_in and patron not in src.model.walking_out
    assert _colour(viewer, seat) != P.PATRON
    assert _colour(viewer, out) != P.PATRON

    src.seek(sat + WALK + 1)  # and back again: the same picture as before
    viewer.draw()
    assert _colour(viewer, seat) == P.PATRON


def _corner(viewer: Viewer, machine: str) -> tuple[float, float]:
    """A point of the machine's face clear of its glyph and its seat (world units)."""
    x, y, _w, h = viewer.plan.machines[machine]
    return (x + 0.5, y + h - 0.5)


def _patrons(viewer: Viewer) -> tuple[dict[str, tuple[float, float]], dict[str, str], set[str]]:
    """What the view shows of patrons: walking ones where they are, seated ones by machine,
    and those waiting for a machine."""
    model = viewer.source.model
    walking = {}
    for p in [*model.walking_in, *model.walking_out]:
        at = viewer.patron_position(p)
        if at is not None:
            walking[p] = at
    seated = {m.id: m.patron for m in model.machines.values() if model.seated(m)}
    return walking, seated, set(model.waiting)


def test_live_and_replay_show_the_same_patrons(tmp_path: Path) -> None:
    """Live at time t and the replay of its ledger at t draw the same patrons in the same
    places (the picture comes from the records up to t)."""
    from viz.live import open_live

    init_pygame(headless=True)
    live = open_live(REPO / "scenarios" / "tiny.toml", out=tmp_path)
    viewer = Viewer(live, (1280, 800))
    times = [600.3 + 97.0 * i for i in range(60)]  # between the records' ticks
    seen = []
    for t in times:
        live.seek(t)
        viewer.draw()
        seen.append(_patrons(viewer))
    live.close()
    assert sum(len(w) for w, _s, _q in seen) >= 5 and sum(len(s) for _w, s, _q in seen) >= 20
    replay = ReplaySource(tmp_path / "ledger.sqlite")
    again = Viewer(replay, (1280, 800))
    again.zoom = viewer.zoom  # (the replay's time bar leaves the floor a little less room)
    for t, shown in zip(times, seen, strict=True):
        replay.seek(t)
        again.draw()
        assert _patrons(again) == shown, t
