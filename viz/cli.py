"""``twin viz``: the floor view, a ledger replay, or a drill.

``twin`` never imports this module: the command reaches ``twin`` through the ``twin.cli``
entry-point group declared in pyproject.toml (``viz = "viz.cli:viz"``), which twin's command
group looks up only when a command it does not define itself is asked for. ``python -m viz``
runs the same command without the entry point.
"""

from __future__ import annotations

from pathlib import Path

import click

from twin.errors import InputError


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise InputError("command line", "--size", "WIDTHxHEIGHT, e.g. 1280x800", text) from None
    if not (640 <= w <= 8000 and 480 <= h <= 8000):
        raise InputError("command line", "--size", "at least 640x480, at most 8000x8000", text)
    return w, h


@click.command("viz", short_help="Watch a run live, replay a ledger, or play a drill.")
@click.argument("scenario", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--ledger",
    "ledger_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Replay a finished run from its ledger alone (with a time bar).",
)
@click.option("--drill", help="Rehearse a drill: its name (see viz/drills/README.md) or file.")
@click.option("--seed", type=click.IntRange(min=0), help="Root seed (default: the scenario's).")
@click.option("--hours", type=click.FloatRange(min=0, min_open=True), help="Simulated hours.")
@click.option("--set", "assignments", multiple=True, metavar="KEY=VALUE", help="Scenario key.")
@click.option(
    "--speed",
    type=click.FloatRange(min=1, max=10_000),
    default=60.0,
    show_default=True,
    help="Simulated seconds per wall second (1 to 10000).",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    help="Where a live run's ledger (or a drill's attempt) is written (default: out/viz-...).",
)
@click.option("--size", default="1280x800", show_default=True, help="Window size WIDTHxHEIGHT.")
@click.option("--headless", is_flag=True, help="No window (SDL's dummy video driver).")
@click.option(
    "--frames", type=click.IntRange(min=1), help="Stop after this many frames (with --headless)."
)
@click.option(
    "--screenshot",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Save the last frame as a PNG.",
)
def viz(
    scenario: Path | None,
    ledger_path: Path | None,
    drill: str | None,
    seed: int | None,
    hours: float | None,
    assignments: tuple[str, ...],
    speed: float,
    out: Path | None,
    size: str,
    headless: bool,
    frames: int | None,
    screenshot: Path | None,
) -> None:
    """Watch SCENARIO live (default scenarios/default.toml), replay a --ledger, or --drill."""
    dims = _size(size)
    chosen = [
        n for n, v in (("SCENARIO", scenario), ("--ledger", ledger_path), ("--drill", drill)) if v
    ]
    if len(chosen) > 1:
        raise InputError("command line", " / ".join(chosen), "at most one of them", "several")
    if frames is not None and not headless:
        raise InputError("command line", "--frames", "--headless as well", "a window")
    from viz.app import Viewer, init_pygame, open_window
    from viz.sources import LiveSource, ReplaySource, Source

    source: Source
    title = ""
    drill_screen = None
    if ledger_path is not None:
        source = ReplaySource(ledger_path, factor=speed)
        title = f"replay of {ledger_path}"
    elif drill is not None:
        from viz.drill import DrillScreen, find_drill, start_attempt

        spec = find_drill(drill)
        attempt = start_attempt(spec, out=out)
        source = attempt.source
        drill_screen = DrillScreen(attempt)
        title = f"drill: {spec.title}"
    else:
        from viz.live import open_live

        source = open_live(
            scenario,
            seed=seed,
            hours=hours,
            overrides=assignments,
            factor=speed,
            out=out if out is not None else Path("out") / "viz-live",
        )
        assert isinstance(source, LiveSource)
        title = f"{source.casino.scenario.scenario.name}, seed {source.casino.scenario.seed}"
    init_pygame(headless)
    surface = None if headless else open_window(dims, f"twin viz - {title}")
    viewer = Viewer(source, dims, title=title)
    if drill_screen is not None:
        drill_screen.attach(viewer)
    if surface is not None:
        viewer.screen = surface  # draw straight onto the window
    if headless:
        for _ in range(frames or 1):
            viewer.frame(1 / 60)
        source.close()
    else:
        viewer.run()
    if screenshot is not None:
        viewer.screenshot(screenshot)
        click.echo(f"twin viz: wrote {screenshot}", err=True)
    if drill_screen is not None:
        # quitting before F still scores the attempt: the steps taken so far, from its ledger
        score = drill_screen.attempt.finish()
        click.echo(score.summary_text())
        click.echo(f"twin viz: score and ledger in {drill_screen.attempt.folder}", err=True)


__all__ = ["viz"]
