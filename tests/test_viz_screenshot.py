"""Screenshots at a chosen simulated time (issue 32): ``twin viz --headless --at WHEN
--screenshot PATH`` draws the run (or a ``--ledger`` replay) at that moment, and the picture
agrees with the ledger there: every machine's colour is the palette colour of the state its
records up to that time give (rebuilt here from the ledger's rows: ``twin.state`` for the down
reasons, the session and lock records for the rest), and the top bar's clock reads that time.
The file is written whole or not at all; a wrong ``--at`` or an unwritable path is one line
and exit 2, before any run.

Real parts: the CLI in a subprocess, SQLite ledgers it wrote, PNGs read back with pygame
(SDL's dummy video driver)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime
from pathlib import Path

os.environ["SDL_VIDEODRIVER"] = "dummy"  # headless: real surfaces, no window
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import numpy as np
import pygame
import pytest
from conftest import REPO

from twin.clock import Clock
from twin.errors import InputError
from twin.ledger import read_meta, read_rows
from twin.machines.sas import ExceptionCode
from twin.state import replay
from viz import palette as P
from viz.app import Viewer, init_pygame
from viz.live import open_live
from viz.screenshots import parse_at, staged, write_png
from viz.sources import ReplaySource

TINY = REPO / "scenarios" / "tiny.toml"
SMALL = REPO / "scenarios" / "small.toml"
#: 40 machines; tilts often, so that some are down at the moment drawn
FAULTY = ("--set", "faults.tilt_mtbf_hours=1.5", "--hours", "3")
LIVE_AT = "11:30"  # 1.5 simulated hours after the 10:00 start
REPLAY_AT = "11:05"
ENV = {
    **os.environ,
    "PYTHONPATH": str(REPO),
    "SDL_VIDEODRIVER": "dummy",
    "PYGAME_HIDE_SUPPORT_PROMPT": "1",
}


@pytest.fixture(autouse=True)
def _pygame() -> None:
    init_pygame(headless=True)


def twin_viz(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "viz", *args],
        cwd=cwd, capture_output=True, text=True, timeout=300, env=ENV,
    )  # fmt: skip


@pytest.fixture(scope="module")
def live_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``twin viz small.toml --headless --at 11:30 --screenshot live.png``: its folder (the
    screenshot, and the run's ledger in ``run/``)."""
    folder = tmp_path_factory.mktemp("live")
    done = twin_viz(
        str(SMALL), *FAULTY, "--headless", "--at", LIVE_AT, "--screenshot", "live.png",
        "--out", "run", cwd=folder,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stderr.endswith("twin viz: wrote live.png\n")
    return folder


# -- the ledger's state at a time, rebuilt from its rows ----------------------------------------
def ledger_states(ledger: Path, at: float) -> dict[str, P.State]:
    """Every machine's state at ``at`` from the ledger's rows with ``t <= at``: installed and
    down reasons as ``twin state`` replays them, played when a session started on it and its
    patron has not left, locked from a ``machine_locked`` until its hand pay or reset."""
    docs = [json.loads(body) for _s, _t, _k, body in read_rows(ledger, max_t=at)]
    machines = [str(d["machine"]) for d in docs if d["kind"] == "machine_installed"]
    patron: dict[str, str] = {}
    locked: dict[str, bool] = {}
    for d in docs:
        machine = str(d.get("machine") or "")
        if d["kind"] == "session_started":
            patron[machine] = str(d["patron"])
        elif d["kind"] == "patron_left" and patron.get(machine) == d["patron"]:
            patron[machine] = ""
        elif d["kind"] == "machine_locked":
            locked[machine] = True
        elif d["kind"] == "hand_paid" or (
            d["kind"] == "machine_exception" and int(d["code"]) == ExceptionCode.HANDPAY_RESET
        ):
            locked[machine] = False
    out = {}
    for m in machines:
        st = replay(docs, m, at=at)
        assert st.installed
        out[m] = P.state_of(set(st.down), bool(patron.get(m)), locked.get(m, False))
    return out


def ledger_clock(ledger: Path) -> Clock:
    meta = read_meta(ledger)
    return Clock(datetime.fromisoformat(meta["start"]), meta["timezone"])


# -- reading the picture ------------------------------------------------------------------------
def pixels(path: Path) -> np.ndarray:
    """The PNG as an array indexed [x, y, rgb]."""
    return np.asarray(pygame.surfarray.array3d(pygame.image.load(str(path))))


def main_colour(image: np.ndarray, rect: pygame.Rect) -> tuple[tuple[int, int, int], float]:
    """The commonest colour inside ``rect`` and its share of the pixels (a machine's face,
    with its glyph or a seated patron's marker over a small part of it)."""
    face = image[rect.left : rect.right, rect.top : rect.bottom].reshape(-1, 3)
    colours, counts = np.unique(face, axis=0, return_counts=True)
    top = int(np.argmax(counts))
    c = colours[top]
    return (int(c[0]), int(c[1]), int(c[2])), float(counts[top]) / len(face)


def shows_text(image: np.ndarray, text: str, band: int = 60) -> bool:
    """Whether ``text``, drawn as the top bar draws the clock (bold, 26, on the panel), is in
    the top ``band`` pixel rows of ``image``, exactly."""
    font = pygame.font.Font(None, 26)
    font.set_bold(True)
    ink = font.render(text, True, P.TEXT)
    tile = pygame.Surface(ink.get_size())
    tile.fill(P.PANEL)
    tile.blit(ink, (0, 0))
    want = np.asarray(pygame.surfarray.array3d(tile))
    tw, th, _ = want.shape
    width = image.shape[0]
    for y in range(band - th + 1):
        strip = image[:, y : y + th]
        starts = np.all(strip[: width - tw + 1] == want[0][None], axis=(1, 2))
        for x in np.flatnonzero(starts):
            if np.array_equal(strip[x : x + tw], want):
                return True
    return False


def check_machines(image: np.ndarray, viewer: Viewer, expected: dict[str, P.State]) -> set[str]:
    """Every machine's face is its expected colour; the states seen."""
    assert set(viewer.plan.machines) == set(expected)
    for machine, state in expected.items():
        rect = viewer.machine_screen_rect(machine)
        assert viewer.floor_rect.contains(rect)
        colour, share = main_colour(image, rect)
        assert (machine, colour) == (machine, state.colour), f"{machine} is not {state.key}"
        assert share > 0.6
    return {s.key for s in expected.values()}


# -- the picture agrees with the ledger ----------------------------------------------------------
def test_a_live_frame_at_a_time_shows_each_machine_in_its_ledger_state(
    live_run: Path, tmp_path: Path
) -> None:
    ledger = live_run / "run" / "ledger.sqlite"
    clock = ledger_clock(ledger)
    at = clock.seconds(datetime(2026, 3, 2, 11, 30))
    assert at == 5400.0
    expected = ledger_states(ledger, at)
    image = pixels(live_run / "live.png")
    # the live view's geometry (same floor, fitted to the same window)
    src = open_live(SMALL, overrides=["faults.tilt_mtbf_hours=1.5"])
    seen = check_machines(image, Viewer(src, (1280, 800)), expected)
    src.close()
    assert {"idle", "in_play", "tilt"} <= seen  # the check tells states apart
    assert shows_text(image, f"{clock.at(at):%a %d %b %Y  %H:%M:%S}")
    assert shows_text(image, "Mon 02 Mar 2026  11:30:00")
    assert not shows_text(image, "Mon 02 Mar 2026  11:31:00")  # the clock check is exact


def test_a_replay_frame_at_a_time_shows_each_machine_in_its_ledger_state(
    live_run: Path, tmp_path: Path
) -> None:
    ledger = live_run / "run" / "ledger.sqlite"
    done = twin_viz(
        "--ledger", str(ledger), "--headless", "--at", REPLAY_AT, "--screenshot", "replay.png",
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    clock = ledger_clock(ledger)
    at = clock.seconds(datetime(2026, 3, 2, 11, 5))
    expected = ledger_states(ledger, at)
    image = pixels(tmp_path / "replay.png")
    seen = check_machines(image, Viewer(ReplaySource(ledger), (1280, 800)), expected)
    assert {"idle", "in_play"} <= seen
    assert shows_text(image, "Mon 02 Mar 2026  11:05:00")


def test_frames_after_at_move_on_from_it(tmp_path: Path) -> None:
    """``--frames N`` with ``--at``: N frames played from that moment (at x60, a frame of
    1/60 s is a simulated second)."""
    done = twin_viz(
        str(TINY), "--headless", "--at", "0.5h", "--frames", "3", "--screenshot", "f.png",
        "--out", "run", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    image = pixels(tmp_path / "f.png")
    assert shows_text(image, "Mon 02 Mar 2026  10:30:03")


# -- --at -----------------------------------------------------------------------------------------
MALTA = Clock(datetime(2026, 3, 2, 10, 0), "Europe/Malta")


@pytest.mark.parametrize(
    "text, seconds",
    [
        ("22:00", 43200.0),  # 12 hours after the 10:00 start
        ("10:00", 0.0),
        ("10:00:30", 30.0),
        ("09:00", 82800.0),  # before the start: the next day's
        ("2026-03-03T02:15", 58500.0),
        ("3.5h", 12600.0),
        ("0h", 0.0),
        ("24h", 86400.0),
    ],
)
def test_at_is_a_time_of_day_a_local_date_and_time_or_hours(text: str, seconds: float) -> None:
    assert parse_at(text).seconds(MALTA, end=86400.0) == seconds


@pytest.mark.parametrize("text", ["25:00", "22", "soon", "-1h", "10:61", "2026-13-01T10:00"])
def test_a_malformed_at_is_refused(text: str) -> None:
    with pytest.raises(InputError, match="--at: expected HH:MM, HH:MM:SS"):
        parse_at(text)


def test_an_at_outside_the_run_is_refused() -> None:
    with pytest.raises(InputError, match="a time within the run, Mon 02 Mar 10:00 to"):
        parse_at("25h").seconds(MALTA, end=86400.0)


@pytest.mark.parametrize(
    "args, needle",
    [
        (["tiny", "--at", "25:00"], "--at: expected HH:MM"),
        (["tiny", "--at", "tea time"], "--at: expected HH:MM"),
        (["tiny", "--at", "09:00", "--hours", "2"], "--at: expected a time within the run"),
        (["--ledger", "ledger", "--at", "13:00"], "--at: expected a time within the run"),
        (["--drill", "door-opening", "--at", "11:00"], "--at"),
        (["--screenshots", "docs", "--at", "11:00"], "--screenshots: expected no other option"),
        (["--screenshots", "docs", "--size", "900x700"], "no other option, found '--size'"),
        (["--screenshots", "docs", "tiny"], "no other option, found 'SCENARIO'"),
        (["--screenshots", "no-such-folder"], "no-such-folder: --screenshots: expected a folder"),
    ],
)
def test_bad_at_is_one_line_naming_the_option_and_exit_2(
    live_run: Path, tmp_path: Path, args: list[str], needle: str
) -> None:
    given = {"tiny": str(TINY), "ledger": str(live_run / "run" / "ledger.sqlite")}
    (tmp_path / "docs").mkdir()
    shot = [] if "--screenshots" in args else ["--screenshot", "x.png"]
    done = twin_viz(*(given.get(a, a) for a in args), "--headless", *shot, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and needle in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs"]  # no PNG, no run


# -- where the PNG goes -------------------------------------------------------------------------
def unwritable(tmp_path: Path, case: str) -> Path:
    if case == "missing folder":
        return tmp_path / "no-such-folder" / "shot.png"
    if case == "a file for a folder":
        (tmp_path / "notes.txt").write_text("")
        return tmp_path / "notes.txt" / "shot.png"
    if case == "a folder for a file":
        (tmp_path / "shot.png").mkdir()
        return tmp_path / "shot.png"
    if case == "not a png":
        return tmp_path / "shot.jpg"
    if case == "read-only folder":
        folder = tmp_path / "locked"
        folder.mkdir(mode=0o555)
        if not writable(folder):
            return folder / "shot.png"
        if Path("/sys").is_dir() and not writable(Path("/sys")):  # root: a read-only file system
            return Path("/sys") / "twin-viz-shot.png"
        raise AssertionError(
            "no read-only folder for this user: run as a user, or as root "
            "with /sys mounted read-only"
        )  # not a skip: it would prove nothing
    raise AssertionError(case)


def writable(folder: Path) -> bool:
    probe = folder / f"probe-{os.getpid()}"
    try:
        probe.touch()
    except OSError:
        return False
    probe.unlink()
    return True


@pytest.mark.parametrize(
    "case, needle",
    [
        ("missing folder", "expected a folder that exists, found 'no such folder'"),
        ("a file for a folder", "expected a folder, found 'a file'"),
        ("a folder for a file", "expected a file name"),
        ("not a png", "ending in .png"),
        ("read-only folder", "a folder this user can write to"),
    ],
)
def test_an_unwritable_screenshot_path_is_one_line_and_exit_2_before_the_run(
    tmp_path: Path, case: str, needle: str
) -> None:
    path = unwritable(tmp_path, case)
    done = twin_viz(str(TINY), "--headless", "--at", "11:00", "--out", "run",
                    "--screenshot", str(path), cwd=tmp_path)  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1, done.stderr
    assert "--screenshot" in done.stderr and needle in done.stderr and str(path) in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "run").exists()  # refused before the run
    assert not path.is_file()


def test_a_refused_run_leaves_the_old_screenshot_as_it_was(tmp_path: Path) -> None:
    """An ``--at`` past the run's end is refused before the run is built: no ledger started,
    the old screenshot untouched."""
    old = tmp_path / "shot.png"
    old.write_bytes(b"the old picture")
    done = twin_viz(str(TINY), "--headless", "--at", "13:00", "--out", "run",
                    "--screenshot", str(old), cwd=tmp_path)  # fmt: skip
    assert done.returncode == 2
    assert "--at: expected a time within the run, Mon 02 Mar 10:00 to Mon 02 Mar 12:00:00" in (
        done.stderr
    )
    assert old.read_bytes() == b"the old picture"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shot.png"]


def test_a_screenshot_is_written_whole_or_not_at_all(tmp_path: Path) -> None:
    """Several files drawn together (the README's screenshots): all renamed in place at the
    end, or, when drawing fails half way, none; no temporary file is left either way."""
    surface = pygame.Surface((64, 48))
    surface.fill(P.TILT.colour)
    a, b = tmp_path / "a.png", tmp_path / "b.png"
    a.write_bytes(b"old a")
    with pytest.raises(RuntimeError, match="drawing failed"), staged([a, b]) as (ta, _tb):
        pygame.image.save(surface, str(ta))
        raise RuntimeError("drawing failed")
    assert a.read_bytes() == b"old a" and not b.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.png"]
    with staged([a, b]) as (ta, tb):
        pygame.image.save(surface, str(ta))
        pygame.image.save(surface, str(tb))
        assert not b.exists()  # nothing is in place before the end
    for path in (a, b):
        assert pygame.image.load(str(path)).get_at((5, 5))[:3] == P.TILT.colour
    write_png(surface, tmp_path / "c.png")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.png", "b.png", "c.png"]


@pytest.mark.slow
def test_one_command_makes_every_readme_screenshot(tmp_path: Path) -> None:
    """``twin viz --screenshots FOLDER``: the six PNGs the README shows, 1280x800, the live
    one of the default scenario at 22:00; no temporary file left (~20 s)."""
    docs = tmp_path / "docs"
    docs.mkdir()
    done = twin_viz("--screenshots", "docs", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    names = ["viz-live.png", "viz-meter-panel.png", "viz-live-2500.png", "viz-replay.png",
             "viz-drill-score.png", "viz-premium.png"]  # fmt: skip
    assert done.stdout.splitlines() == [f"docs/{n}" for n in names]
    assert sorted(p.name for p in docs.iterdir()) == sorted(names)
    for name in names:
        assert pygame.image.load(str(docs / name)).get_size() == (1280, 800)
    live = pixels(docs / "viz-live.png")
    assert shows_text(live, "Mon 02 Mar 2026  22:00:00")
    assert shows_text(pixels(docs / "viz-replay.png"), "Mon 02 Mar 2026  14:15:00")
    assert shows_text(pixels(docs / "viz-live-2500.png"), "Mon 02 Mar 2026  12:00:00")
    readme = (REPO / "README.md").read_text()
    assert all(f"](docs/{n})" in readme for n in names)  # the files the README shows
