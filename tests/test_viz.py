"""The floor view (issue 9): frames render off-screen with real pygame surfaces, screenshots
are PNGs whose pixels show a machine's state, operator input lands in the ledger, and
``twin viz`` is a plugin with the CLI's error discipline."""

from __future__ import annotations

import json
import os
from importlib.metadata import EntryPoint
from pathlib import Path

os.environ["SDL_VIDEODRIVER"] = "dummy"  # headless: real surfaces, no window
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame
import pytest
from conftest import REPO

import twin.cli
from twin.injections import InjectViolation
from twin.ledger import read_rows
from twin.records import LAG, LIVE_LAG
from viz import palette as P
from viz.app import Viewer, init_pygame
from viz.layout import plan
from viz.live import open_live
from viz.sources import LiveSource

TINY = REPO / "scenarios" / "tiny.toml"


@pytest.fixture(autouse=True)
def _pygame() -> None:
    init_pygame(headless=True)


def _centre(viewer: Viewer, machine: str) -> tuple[int, int]:
    r = viewer.machine_screen_rect(machine)
    return r.centerx, r.centery


def _corner(viewer: Viewer, machine: str) -> tuple[int, int]:
    """A pixel of the machine's face clear of its glyph."""
    r = viewer.machine_screen_rect(machine)
    return r.x + 2, r.bottom - 3


def _pixel(path: Path, at: tuple[int, int]) -> tuple[int, int, int]:
    image = pygame.image.load(str(path))
    c = image.get_at(at)
    return (c.r, c.g, c.b)


def test_frames_render_and_the_clock_moves(tmp_path: Path) -> None:
    src = open_live(TINY, out=tmp_path, factor=600.0)
    viewer = Viewer(src, (1024, 700))
    for _ in range(30):
        viewer.frame(1 / 30, budget=1.0)
    assert src.t == pytest.approx(600.0, abs=1.0)  # 1 wall second at x600
    shot = viewer.screenshot(tmp_path / "frame.png")
    assert pygame.image.load(str(shot)).get_size() == (1024, 700)
    assert viewer.frames == 30
    src.close()
    assert (tmp_path / "ledger.sqlite").is_file()


def test_a_live_run_numbers_its_findings_at_the_next_batch(tmp_path: Path) -> None:
    """The viewer shows findings as they come: its bus numbers them a batch late (LIVE_LAG),
    not an hour of batches like a run that nobody watches."""
    src = open_live(TINY, out=tmp_path)
    assert src.casino.bus.lag == LIVE_LAG == 1 < LAG
    src.close()


def test_a_tilt_changes_the_colour_of_the_machine_in_the_screenshot(tmp_path: Path) -> None:
    src = open_live(TINY, out=tmp_path)
    viewer = Viewer(src, (1024, 700))
    src.paused = True
    src.step()
    viewer.draw()
    at = _corner(viewer, "A-002")
    before = viewer.screenshot(tmp_path / "before.png")
    assert _pixel(before, at) in (P.IDLE.colour, P.IN_PLAY.colour)
    src.casino.inbox.put(InjectViolation(kind="unrepaired_tilt", machine="A-002"), source="test")
    src.step()
    viewer.draw()
    after = viewer.screenshot(tmp_path / "after.png")
    assert src.model.machines["A-002"].state is P.TILT
    assert _pixel(after, at) == P.TILT.colour
    assert _pixel(after, _corner(viewer, "A-001")) != P.TILT.colour
    src.close()


def test_clicking_a_machine_opens_its_meter_panel(tmp_path: Path) -> None:
    src = open_live(TINY, out=tmp_path, factor=1000.0)
    viewer = Viewer(src, (1280, 800))
    for _ in range(60):
        viewer.frame(1 / 30, budget=1.0)
    plain = viewer.screen.copy()
    viewer.click(_centre(viewer, "A-003"))
    assert viewer.selected == "A-003"
    viewer.draw()
    # the panel (white, with the black meter face) now covers the right of the floor
    r = viewer.floor_rect
    probe = (r.right - 200, r.y + 200)
    assert viewer.screen.get_at(probe)[:3] != plain.get_at(probe)[:3]
    st = src.model.machines["A-003"].machine_state(src.t)
    assert st.installed and dict(st.meters)["games_played"] >= 0
    viewer.key(pygame.K_ESCAPE)
    assert viewer.selected is None and viewer.running
    src.close()


def test_an_operator_opens_and_closes_a_door_through_the_inbox(tmp_path: Path) -> None:
    src = open_live(TINY, out=tmp_path)
    viewer = Viewer(src, (1024, 700))
    src.paused = True
    src.step()
    viewer.click(_centre(viewer, "A-004"))
    viewer.key(pygame.K_o)
    assert src.model.machines["A-004"].state is P.DOOR_OPEN
    viewer.key(pygame.K_c)
    src.step()
    assert src.model.machines["A-004"].state is not P.DOOR_OPEN
    src.close()
    rows = [
        json.loads(b)
        for _s, _t, _k, b in read_rows(tmp_path / "ledger.sqlite", kinds=("command_accepted",))
    ]
    assert [(r["source"], r["command"]) for r in rows] == [
        ("operator", "open_door"),
        ("operator", "close_door"),
    ]


def test_pause_step_and_speed_keys() -> None:
    src = open_live(TINY)
    viewer = Viewer(src, (1024, 700))
    viewer.key(pygame.K_SPACE)
    assert src.paused
    t = src.t
    viewer.frame(1.0)
    assert src.t == t  # paused: the clock stands
    viewer.key(pygame.K_s)
    assert src.t == pytest.approx(t + 60.0)
    src.factor = 1.0
    viewer.key(pygame.K_MINUS)
    assert src.factor == 1.0
    for _ in range(20):
        viewer.key(pygame.K_PLUS)
    assert src.factor == 10_000.0
    src.close()


@pytest.mark.parametrize("scenario", ["default.toml", "large.toml"])
def test_the_floor_plan_is_legible_when_zoomed(scenario: str) -> None:
    """Every machine has its own cell; fitted, the whole floor shows; zoomed in, a machine is
    big enough for its glyph. Patrons: fitted at 600 machines a seated patron is a diamond on
    their machine; at 2,500 a machine is a few pixels, so its seated patron is not drawn over
    it (its "in play" colour says it is taken) and walking patrons are 3x3 dots; zoomed in,
    the seated patron is a diamond again."""
    from viz.app import PATRON_SIDE

    src = open_live(REPO / "scenarios" / scenario, hours=0.1)
    viewer = Viewer(src, (1280, 800))
    n = len(viewer.plan.machines)
    assert n == len(src.casino.machines) and n >= 600
    cells = {(round(x), round(y)) for x, y, _w, _h in viewer.plan.machines.values()}
    assert len(cells) == n
    r = viewer.floor_rect
    for mid in viewer.plan.machines:
        assert r.contains(viewer.machine_screen_rect(mid))
    fitted = viewer.machine_screen_rect("A-001").w
    assert fitted >= 2
    assert (viewer.machine_side < PATRON_SIDE) == (n > 1000)

    src.seek(300.3)
    viewer.draw()
    model = src.model

    def colour(at: tuple[float, float]) -> tuple[int, int, int]:
        c = viewer.screen.get_at((int(at[0]), int(at[1])))
        return (c.r, c.g, c.b)

    walking = [viewer.patron_position(p) for p in [*model.walking_in, *model.walking_out]]
    dots = [viewer.to_screen(*at) for at in walking if at is not None]
    assert dots
    assert all(colour(at) == P.PATRON for at in dots)
    seated = [m for m in model.machines.values() if model.seated(m)]
    assert len(seated) >= 5
    # the licensing and lifecycle layers' panels cover the floor's top corners (with the hall
    # below the entrance, issue 32, the fitted floor is smaller and more of it lies under them)
    panels = _corner_panels(viewer)
    for m in seated:
        seat = viewer.seat(m.id)
        assert seat is not None
        at = viewer.to_screen(*seat)
        if any(p.collidepoint(at) for p in panels):
            continue
        if all(abs(at[0] - x) > 3 or abs(at[1] - y) > 3 for x, y in dots):  # clear of walkers
            drawn = P.PATRON if viewer.machine_side >= PATRON_SIDE else m.state.colour
            assert colour(at) == drawn, m.id

    for _ in range(12):
        viewer.zoom_at(1.25)
    assert viewer.machine_screen_rect("A-001").w >= 14 > fitted
    viewer.draw()
    while viewer.machine_side < 30:
        viewer.zoom_at(1.25)
    mx, my, _w, _h = viewer.plan.machines[seated[0].id]  # the seated patron's machine, centred
    viewer.pan = (mx - r.w / 2 / viewer.zoom, my - r.h / 2 / viewer.zoom)
    viewer.draw()
    seat = viewer.seat(seated[0].id)
    assert seat is not None and colour(viewer.to_screen(*seat)) == P.PATRON
    src.close()


def _corner_panels(viewer: Viewer) -> list[pygame.Rect]:
    """The rectangles of the licensing and lifecycle layers' panels, where they are drawn."""
    from viz.views import licensing, lifecycle

    r = viewer.floor_rect
    out = []
    for view in viewer.views:
        if isinstance(view, licensing.LicensingView) and viewer.source.model.licensing.active:
            n = len(view.lines(viewer))
            out.append(pygame.Rect(r.x + 8, r.y + 8, licensing.PANEL_WIDTH, 18 * n + 10))
        if isinstance(view, lifecycle.LifecycleView) and viewer.source.model.lifecycle.active:
            n = len(view.lines(viewer))
            w = lifecycle.PANEL_WIDTH
            out.append(pygame.Rect(r.right - w - 8, r.y + 8, w, 18 * n + 10))
    return out


def test_plan_groups_banks_into_zones() -> None:
    p = plan([("A-1", "A", "main"), ("A-2", "A", "main"), ("B-1", "B", "terrace")])
    assert set(p.zones) == {"main", "terrace"}
    ax = p.zones["main"][0] + p.zones["main"][2]
    assert p.banks["B"][0] > ax


# -- the command line ---------------------------------------------------------------------------


@pytest.fixture
def plugin(monkeypatch: pytest.MonkeyPatch) -> None:
    """The entry point pyproject.toml declares (this test environment's install may predate
    it)."""
    ep = EntryPoint(name="viz", value="viz.cli:viz", group=twin.cli.PLUGIN_GROUP)
    monkeypatch.setattr(twin.cli, "plugins", lambda: {"viz": ep})


def test_twin_viz_runs_headless_and_saves_a_screenshot(
    plugin: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shot = tmp_path / "shot.png"
    twin.cli.main(["viz", str(TINY), "--headless", "--frames", "5", "--out", str(tmp_path),
                   "--screenshot", str(shot)])  # fmt: skip
    assert pygame.image.load(str(shot)).get_size() == (1280, 800)
    assert "viz" in twin.cli.cli.list_commands(twin.cli.click.Context(twin.cli.cli))


@pytest.mark.parametrize(
    "args, needle",
    [
        (["no-such.toml"], "no-such.toml"),
        (["--size", "10x10"], "--size"),
        (["--ledger", "no-such.sqlite"], "no-such.sqlite"),
        (["--frames", "3"], "--frames"),
        (["--drill", "no-such-drill"], "no-such-drill"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    plugin: None, args: list[str], needle: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exc:
        twin.cli.main(["viz", *args])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and needle in err and "Traceback" not in err


def test_live_source_type() -> None:
    src = open_live(TINY)
    assert isinstance(src, LiveSource) and src.live
    src.close()


def test_python_m_viz_is_the_same_command(tmp_path: Path) -> None:
    """``python -m viz`` needs no entry point; a mistake is one line and exit 2 there too."""
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": str(REPO)}
    ok = subprocess.run(
        [sys.executable, "-m", "viz", "--drill", "door-opening", "--headless", "--frames", "3",
         "--out", str(tmp_path)],
        cwd=REPO, capture_output=True, text=True, timeout=120, env=env,
    )  # fmt: skip
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.startswith("drill door-opening: FAILED, 0/100")  # no step taken
    assert (tmp_path / "score.json").is_file() and (tmp_path / "ledger.sqlite").is_file()
    bad = subprocess.run(
        [sys.executable, "-m", "viz", "no-such.toml"],
        cwd=REPO, capture_output=True, text=True, timeout=120, env=env,
    )  # fmt: skip
    assert bad.returncode == 2
    assert bad.stderr.count("\n") == 1 and "no-such.toml" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_the_wheel_zooms_once_and_a_drag_pans() -> None:
    src = open_live(TINY)
    viewer = Viewer(src, (1024, 700))
    z = viewer.zoom
    viewer.handle(pygame.event.Event(pygame.MOUSEWHEEL, x=0, y=1))
    viewer.handle(pygame.event.Event(pygame.MOUSEBUTTONDOWN, button=4, pos=(300, 300)))
    assert viewer.zoom == pytest.approx(z * 1.2)
    pan = viewer.pan
    viewer.handle(pygame.event.Event(pygame.MOUSEBUTTONDOWN, button=3, pos=(300, 300)))
    viewer.handle(pygame.event.Event(pygame.MOUSEMOTION, rel=(12, -6), pos=(312, 294)))
    viewer.handle(pygame.event.Event(pygame.MOUSEBUTTONUP, button=3, pos=(312, 294)))
    assert viewer.pan == pytest.approx((pan[0] - 12 / viewer.zoom, pan[1] + 6 / viewer.zoom))
    src.close()


def test_staff_walk_to_their_job_and_are_drawn_there() -> None:
    from viz.app import WALK_SECONDS

    src = open_live(TINY, overrides=["faults.tilt_mtbf_hours=0.2"])
    viewer = Viewer(src, (1024, 700))
    while not src.model.walks:
        src.seek(src.t + 30.0)
    member, (_start, machine, t0) = next(iter(src.model.walks.items()))
    corner = viewer._corner(machine)
    assert corner is not None
    src.model.t = t0  # the moment the job started: still where they came from
    first = viewer.staff_position(member)
    src.model.t = t0 + WALK_SECONDS / 2
    half = viewer.staff_position(member)
    src.model.t = t0 + WALK_SECONDS
    assert viewer.staff_position(member) == pytest.approx(corner)
    assert first is not None and half is not None and first != pytest.approx(corner)
    assert half == pytest.approx(((first[0] + corner[0]) / 2, (first[1] + corner[1]) / 2))
    for _ in range(12):
        viewer.zoom_at(1.25, viewer.machine_screen_rect(machine).center)
    viewer.draw()
    x, y = viewer.to_screen(*corner)
    # drawn in their role's colour (issue 32: a shape and a colour per role)
    role = src.model.on_duty[member]
    assert tuple(viewer.screen.get_at((int(x), int(y))))[:3] == P.role_style(role).colour
    src.close()
