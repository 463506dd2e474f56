"""The viewer's screenshots: a frame at a chosen simulated time, written whole or not at all;
and every screenshot of the README in one command, ``twin viz --screenshots docs`` (or
``python -m viz.screenshots docs``, the same).

The README's screenshots, headless at 1280x800 (the live and replay ones drawn as
``twin viz --headless --at ... --screenshot`` draws them):

* ``viz-live.png``: the default scenario live at 22:00 (the evening's peak), at the default
  speed ×60;
* ``viz-meter-panel.png``: the same moment zoomed on its busiest machine, its meter panel open;
* ``viz-live-2500.png``: the large floor (2,500 machines) at 12:00, fitted to the window;
* ``viz-replay.png``: a 6-hour run of the default floor replayed from its ledger at 14:15;
* ``viz-drill-score.png``: the jackpot hand pay drill's score screen (a hand pay too late);
* ``viz-premium.png``: the Singapore floor at 21:00, zoomed on the premium room, the evening's
  players at its tables, table PR-01's panel open.

Every file is drawn to a temporary file in the target folder first; only when all are drawn are
they renamed over the old ones, so a failed or interrupted run leaves the old screenshots as
they were and no half-written PNG.

``--at`` (see :func:`parse_at`): ``HH:MM`` or ``HH:MM:SS``, the first time the run's clock
reads it at or after the start; a local date and time, ``2026-03-02T22:00``; or simulated hours
since the start, ``3.5h``.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from twin.clock import Clock
from twin.errors import InputError

if TYPE_CHECKING:
    import pygame

    from viz.sources import Source

SIZE = (1280, 800)
#: ``--at``'s accepted forms, as the error names them
AT_EXPECTED = "HH:MM, HH:MM:SS, a local date and time (2026-03-02T22:00) or simulated hours (3.5h)"
_HOURS = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*h\s*$", re.IGNORECASE)
_CLOCK = re.compile(r"^\s*(\d{1,2}):(\d{2})(?::(\d{2}))?\s*$")
#: the README's screenshots, in the order they are made
DOCS = (
    "viz-live.png",
    "viz-meter-panel.png",
    "viz-live-2500.png",
    "viz-replay.png",
    "viz-drill-score.png",
    "viz-premium.png",
)


# -- when ----------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class At:
    """A ``--at`` value, parsed: one of ``hours``, ``clock`` (a time of day) or ``local``."""

    text: str
    hours: float | None = None
    clock: time | None = None
    local: datetime | None = None

    def seconds(self, clock: Clock, end: float, option: str = "--at") -> float:
        """Simulated seconds since the start; an :class:`InputError` when not in the run."""
        if self.hours is not None:
            t = self.hours * 3600.0
        elif self.clock is not None:
            start = clock.at(0.0)
            day = start.date()
            t = clock.seconds(datetime.combine(day, self.clock))
            if t < 0:
                t = clock.seconds(datetime.combine(day + timedelta(days=1), self.clock))
        else:
            assert self.local is not None
            t = clock.seconds(self.local)
        if not 0.0 <= t <= end:
            first, last = clock.at(0.0), clock.at(end)
            raise InputError(
                "command line",
                option,
                f"a time within the run, {first:%a %d %b %H:%M} to {last:%a %d %b %H:%M:%S}",
                self.text,
            )
        return t


def parse_at(text: str, option: str = "--at") -> At:
    """``HH:MM``, ``HH:MM:SS``, ``YYYY-MM-DDTHH:MM[:SS]`` (local) or ``<hours>h``; one clear
    :class:`InputError` otherwise."""
    m = _HOURS.match(text)
    if m is not None:
        return At(text, hours=float(m.group(1)))
    m = _CLOCK.match(text)
    if m is not None:
        h, mi, s = int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)
        if h < 24 and mi < 60 and s < 60:
            return At(text, clock=time(h, mi, s))
    elif "T" in text or " " in text.strip():
        try:
            local = datetime.fromisoformat(text.strip())
        except ValueError:
            pass
        else:
            return At(text, local=local)
    raise InputError("command line", option, AT_EXPECTED, text)


def seek_to(source: Source, t: float) -> None:
    """Bring ``source`` to simulated time ``t`` with every record up to ``t`` applied (as a
    replay at ``t`` shows it): a live run is run to one tick past ``t`` (the step driver
    leaves the events at its target for later), a replay jumps there."""
    from twin.world import TICKS_PER_SECOND

    if source.live:
        source.seek(min(source.end, (int(t * TICKS_PER_SECOND) + 1) / TICKS_PER_SECOND))
    else:
        source.seek(t)


# -- writing ------------------------------------------------------------------------------------
def check_png_path(path: Path, option: str = "--screenshot") -> None:
    """Refuse, before any work, a screenshot path that cannot be written: not ``.png``, a
    folder, in a folder that does not exist or that this user cannot write to."""
    if path.suffix.lower() != ".png":
        raise InputError(path, option, "a file name ending in .png", path.suffix or "no suffix")
    if path.is_dir():
        raise InputError(path, option, "a file name", "a folder")
    check_folder(path.parent, option, what=path)


def check_folder(folder: Path, option: str, what: Path | None = None) -> None:
    """``folder`` exists and this user can create a file in it (tried, then removed)."""
    name = what if what is not None else folder
    if not folder.exists():
        raise InputError(name, option, "a folder that exists", "no such folder")
    if not folder.is_dir():
        raise InputError(name, option, "a folder", "a file")
    probe = folder / f".twin-viz-probe-{os.getpid()}-{secrets.token_hex(4)}"
    try:
        probe.touch(exist_ok=False)
        probe.unlink()
    except OSError as exc:
        raise InputError(name, option, "a folder this user can write to", exc.strerror) from None


@contextmanager
def staged(paths: Sequence[Path], option: str = "--screenshot") -> Iterator[list[Path]]:
    """Temporary PNG names next to ``paths`` (same folder, so the rename is atomic): draw into
    them; when the block ends without an error they are renamed over ``paths``, all of them,
    else removed (the old files stay as they were)."""
    temps = [p.with_name(f".{p.stem}.{os.getpid()}-{secrets.token_hex(4)}.tmp.png") for p in paths]
    try:
        yield temps
        for tmp in temps:
            if not tmp.is_file():
                raise RuntimeError(f"{tmp} was not drawn")
        for tmp, path in zip(temps, paths, strict=True):
            try:
                os.replace(tmp, path)
            except OSError as exc:
                raise InputError(path, option, "a file it can write", exc.strerror) from None
    finally:
        for tmp in temps:
            tmp.unlink(missing_ok=True)


def save(surface: pygame.Surface, path: Path, option: str = "--screenshot") -> Path:
    """``surface`` as a PNG at ``path`` (a temporary name of :func:`staged`)."""
    import pygame

    try:
        pygame.image.save(surface, str(path))
    except (OSError, pygame.error) as exc:
        raise InputError(path, option, "a PNG written", str(exc)) from None
    return path


def write_png(surface: pygame.Surface, path: Path, option: str = "--screenshot") -> Path:
    """``surface`` as a PNG at ``path``, whole or not at all."""
    with staged([path], option) as (tmp,):
        save(surface, tmp, option)
    return path


# -- the README's screenshots -------------------------------------------------------------------
def main(out: Path) -> list[Path]:
    """Every screenshot of the README into ``out`` (an existing folder); their paths."""
    from twin import api
    from viz.app import Viewer, init_pygame
    from viz.drill import DrillScreen, find_drill, play_script, start_attempt
    from viz.live import open_live
    from viz.sources import ReplaySource

    check_folder(out, "--screenshots")
    init_pygame(headless=True)
    root = Path(__file__).resolve().parent.parent
    paths = [out / name for name in DOCS]
    work = Path(tempfile.mkdtemp(prefix="viz-shots-"))
    try:
        with staged(paths, "--screenshots") as temps:
            shot = iter(temps)
            # the default scenario live at 22:00, at the default speed, as `twin viz` shows it
            src = open_live(None, out=work / "live", factor=60.0)
            sc = src.casino.scenario
            viewer = Viewer(src, SIZE, title=f"{sc.scenario.name}, seed {sc.seed}")
            seek_to(src, parse_at("22:00").seconds(src.model.clock, src.end))
            viewer.draw()
            save(viewer.screen, next(shot))
            busy = max(
                src.model.machines.values(),
                key=lambda m: (bool(m.patron), dict(m.machine_state(src.t).meters)["games_played"]),
            )
            viewer.zoom_at(3.0, viewer.machine_screen_rect(busy.id).center)
            viewer.selected = busy.id
            viewer.draw()
            save(viewer.screen, next(shot))
            src.close()

            large = open_live(root / "scenarios" / "large.toml", factor=60.0)
            viewer = Viewer(large, SIZE, title="large (2,500 machines), fitted")
            seek_to(large, parse_at("12:00").seconds(large.model.clock, large.end))
            viewer.draw()
            save(viewer.screen, next(shot))
            large.close()

            run = work / "run"
            api.run(None, hours=6, out=run)
            replay = ReplaySource(run / "ledger.sqlite")
            viewer = Viewer(
                replay, SIZE, title="replay: a 6-hour run of the default floor, from its ledger"
            )
            seek_to(replay, parse_at("14:15").seconds(replay.model.clock, replay.end))
            viewer.draw()
            save(viewer.screen, next(shot))

            attempt = start_attempt(find_drill("jackpot-hand-pay"), out=work / "drill")
            viewer = Viewer(attempt.source, SIZE, title="drill: Jackpot hand pay")
            screen = DrillScreen(attempt)
            screen.attach(viewer)
            play_script(attempt, [("wait", 1020), ("key", "2"), ("wait", 720)], screen)
            viewer.draw()
            save(viewer.screen, next(shot))

            sg = open_live(root / "scenarios" / "singapore.toml", out=work / "sg", factor=60.0)
            viewer = Viewer(sg, SIZE, title="singapore: the premium room")
            seek_to(sg, parse_at("21:00").seconds(sg.model.clock, sg.end))
            viewer.draw()
            hall = viewer.hall_plan
            assert hall is not None and "PR-01" in hall.tables
            viewer.zoom_at(1.7, viewer.world_rect(hall.tables["PR-02"]).center)
            viewer.draw()
            viewer.click(viewer.world_rect(hall.tables["PR-01"]).center)
            viewer.draw()
            save(viewer.screen, next(shot))
            sg.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return paths


if __name__ == "__main__":
    from twin.cli import cli
    from twin.cli import main as cli_main
    from viz.cli import viz

    cli.add_command(viz)
    cli_main(["viz", "--screenshots", sys.argv[1] if len(sys.argv) > 1 else "docs"])
