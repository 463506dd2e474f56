"""Benchmark of the floor view, headless or in a window (target P10 of
shared/design/performance.md).

Run as ``python bench/bench_viz.py`` (``--quick`` for a smoke run, ``--reps N``,
``--seconds S`` per timing, ``--no-large``, ``--modes x60,x2000`` for some modes only,
``--warm-hours H``). ``--window`` draws into a real window instead (it needs a display: under
``xvfb-run -s "-screen 0 1280x800x24"`` on a machine without one) and paces the frames exactly
as ``twin viz``'s window loop does (``Viewer.run``: events read, the frame drawn onto the
window, ``display.flip()``, ``Clock.tick(60)``, so at most 60 frames a second); headless, as
``twin viz --headless`` does, frames are not capped.

For ``scenarios/default.toml`` (600 machines) and ``scenarios/large.toml`` (2,500), the live
view is built exactly as ``twin viz`` builds it (``viz.live.open_live``: the casino, its
compliance engine and a ledger on disk, the viewer's record model), run to 2 simulated hours
(so the floor is busy), and drawn off-screen (SDL's dummy video driver, real pygame
surfaces) at 1280x800 with the floor fitted to the window. Per repetition, for ``--seconds``
of wall time each:

* ``draw only``: paused; the floor layer is kept between frames (only machines whose state
  changed are redrawn), the panels, ticker and legend are drawn every frame;
* ``pan``: paused, the view moved by a pixel every frame, so the whole floor is redrawn every
  frame (the worst case: dragging or zooming);
* ``x60``: the default speed of ``twin viz``: each frame advances the world by the wall time
  of the frame before × 60 (the step driver, within the viewer's budget: what the last
  drawing left of 1/60 s), then draws;
* ``x2,000`` and ``x10,000``: the same at a fast-forward and at the top speed (the budget
  aims at 30 frames a second from x1,000 up); ``sim speed`` is the simulated seconds the world
  actually advanced per wall second while drawing, ``of asked`` its share of the speed asked
  (the viewer drops behind, and says so, when the model cannot keep up);
* ``model alone``: for reference, a second copy of the same world (same scenario and seed),
  brought to the same simulated moment and advanced for the same wall time with no drawing
  (its ledger and the viewer's record model still attached): the ceiling of ``sim speed``.

``fps`` = frames ÷ wall seconds; ``p90 ms`` = the 90th percentile of the frame times (the
slow frames a viewer notices). P10 = fps at x60 (target >= 60 at 600 machines, >= 30 at
2,500; in a window the frames are capped at 60, so P10 is met there at 600 machines only when
no frame is dropped); each figure is the median of the repetitions.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import _util  # noqa: F401  (this checkout first on sys.path)
import pygame
from _util import ROOT, Verdict, environment, fmt, median, spread, table, verdict_table

from twin.drivers import StepDriver
from viz.app import Viewer, init_pygame, open_window
from viz.live import open_live
from viz.sources import LiveSource

SIZE = (1280, 800)
WARM_HOURS = 2.0
#: the modes timed, in this order; the speed each asks (None: paused)
MODES: dict[str, float | None] = {
    "draw only": None,
    "pan": None,
    "x60": 60.0,
    "x2,000": 2000.0,
    "x10,000": 10_000.0,
}


def timed(
    viewer: Viewer,
    source: LiveSource,
    factor: float | None,
    seconds: float,
    pan: bool = False,
    window: bool = False,
) -> dict[str, float]:
    """Frames for ``seconds`` of wall time; fps, p90 frame ms, simulated seconds per wall s.
    ``window``: each frame as ``Viewer.run`` makes it (events, flip, at most 60 a second)."""
    if factor is None:
        source.paused = True
    else:
        source.paused = False
        source.factor = factor
    display = pygame.display.get_surface() if window else None
    clock = pygame.time.Clock()
    frames: list[float] = []
    t_sim0 = source.t
    start = last = time.perf_counter()
    dt = 1 / 60
    while last - start < seconds:
        if pan:
            viewer.pan = (
                viewer.pan[0] + (1 if len(frames) % 2 else -1) / viewer.zoom,
                viewer.pan[1],
            )
        if display is not None:
            for ev in pygame.event.get():
                viewer.handle(ev)
            viewer.frame(min(dt, 0.25))
            if display is not viewer.screen:
                display.blit(viewer.screen, (0, 0))
            pygame.display.flip()
            clock.tick(60)
        else:
            viewer.frame(dt)
        now = time.perf_counter()
        dt = now - last
        frames.append(dt)
        last = now
    wall = last - start
    ordered = sorted(frames)
    return {
        "fps": len(frames) / wall,
        "p90_ms": 1000 * ordered[int(0.9 * (len(ordered) - 1))],
        "sim_speed": (source.t - t_sim0) / wall,
        "lag_s": source.lag_seconds,
    }


def one_rep(
    scenario: Path,
    seconds: float,
    work: Path,
    modes: list[str],
    window: bool = False,
    warm_hours: float = WARM_HOURS,
) -> dict[str, dict[str, float]]:
    src = open_live(scenario, out=work / "drawn", factor=60.0)
    viewer = Viewer(src, SIZE)
    if window:
        viewer.screen = pygame.display.get_surface()  # drawn straight onto it, as twin viz
    src.seek(warm_hours * 3600)
    out: dict[str, dict[str, float]] = {}
    for mode in modes:
        if mode == "model alone":
            continue
        out[mode] = timed(viewer, src, MODES[mode], seconds, pan=mode == "pan", window=window)
    if "model alone" in modes:
        # the same world (same scenario and seed) from the drawn one's simulated moment,
        # advanced alone for the same wall time (the ceiling of the drawn speed)
        alone = open_live(scenario, out=work / "alone", factor=60.0)
        alone.seek(src.t)
        t0, start = alone.t, time.perf_counter()
        while time.perf_counter() - start < seconds:
            StepDriver.to(alone.casino, alone.t + 30.0)
        wall = time.perf_counter() - start
        out["model alone"] = {"fps": 0.0, "p90_ms": 0.0, "sim_speed": (alone.t - t0) / wall}
        alone.close()
    src.close()
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="1 repetition of 2 s per timing")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=6.0, help="wall seconds per timing")
    ap.add_argument("--no-large", action="store_true", help="skip the 2,500-machine floor")
    ap.add_argument("--window", action="store_true", help="a real window (needs a display)")
    ap.add_argument(
        "--modes",
        default="draw-only,pan,x60,x2000,x10000,model-alone",
        help="comma-separated, of: draw-only, pan, x60, x2000, x10000, model-alone",
    )
    ap.add_argument("--warm-hours", type=float, default=WARM_HOURS, help="timed from here")
    args = ap.parse_args(argv)
    names = {m.replace(",", "").replace(" ", "-"): m for m in [*MODES, "model alone"]}
    given = [m.strip() for m in args.modes.split(",") if m.strip()]
    wrong = [m for m in given if m not in names]
    if wrong or not given:
        print(
            f"bench_viz: --modes: expected some of {', '.join(names)}, found {args.modes!r}",
            file=sys.stderr,
        )
        return 2
    modes = [names[m] for m in given]
    reps = 1 if args.quick else args.reps
    seconds = 2.0 if args.quick else args.seconds
    if args.window:
        try:
            init_pygame(headless=False)
            open_window(SIZE, "bench_viz")
        except pygame.error as exc:
            print(f"bench_viz: --window: expected a display, found {exc}", file=sys.stderr)
            return 2
        driver = pygame.display.get_driver()
    else:
        init_pygame(headless=True)
        driver = "dummy"
    cases = [("default", 600, 60.0)]
    if not args.no_large:
        cases.append(("large", 2500, 30.0))
    print(environment())
    print(f"SDL video driver: {driver}")
    rows: list[list[str]] = []
    verdicts: list[Verdict] = []
    for name, machines, target in cases:
        results: list[dict[str, dict[str, float]]] = []
        for r in range(reps):
            print(f"{name}: repetition {r + 1}/{reps}", file=sys.stderr)
            with tempfile.TemporaryDirectory() as tmp:
                results.append(
                    one_rep(
                        ROOT / "scenarios" / f"{name}.toml",
                        seconds,
                        Path(tmp),
                        modes,
                        window=args.window,
                        warm_hours=args.warm_hours,
                    )
                )
        for mode in modes:
            fps = [res[mode]["fps"] for res in results]
            p90 = [res[mode]["p90_ms"] for res in results]
            speed = [res[mode]["sim_speed"] for res in results]
            drawn = mode != "model alone"
            asked = MODES.get(mode)
            moved = mode not in ("draw only", "pan")
            rows.append(
                [
                    f"{name} ({machines:,})",
                    mode,
                    fmt(median(fps)) if drawn else "-",
                    spread(fps) if drawn else "",
                    fmt(median(p90)) if drawn else "-",
                    fmt(median(speed)) if moved else "-",
                    spread(speed) if moved else "",
                    f"{100 * median(speed) / asked:.0f} %" if asked else "",
                ]
            )
        if "x60" in modes:
            x60 = [res["x60"]["fps"] for res in results]
            verdicts.append(
                Verdict("P10", f"fps at x60, {machines:,} machines", median(x60), target, x60)
            )
    where = "in a window" if args.window else "headless"
    print()
    print(
        table(
            [
                "floor",
                "mode",
                "fps",
                "reps min..max",
                "p90 ms",
                "sim speed",
                "reps min..max",
                "of asked",
            ],
            rows,
            f"The viewer {where} at {SIZE[0]}x{SIZE[1]}, floor fitted, from "
            f"{args.warm_hours:g} simulated hours ({seconds:g} s a timing)",
            left=(0, 1),
        )
    )
    if verdicts:
        print()
        print(verdict_table(verdicts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
