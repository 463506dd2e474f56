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
    metavar="FILE.png",
    type=click.Path(path_type=Path),
    help="Save the last frame as a PNG (written whole or not at all).",
)
@click.option(
    "--at",
    "at_text",
    metavar="WHEN",
    help="Start at this simulated time: HH:MM[:SS] (the first time the run's clock reads it), "
    "a local date and time (2026-03-02T22:00) or hours since the start (3.5h). With "
    "--headless, the screenshot shows exactly this moment.",
)
@click.option(
    "--screenshots",
    "docs_folder",
    metavar="FOLDER",
    type=click.Path(path_type=Path),
    help="Make every screenshot of the README in this folder (e.g. docs) and stop.",
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
    at_text: str | None,
    docs_folder: Path | None,
) -> None:
    """Watch SCENARIO live (default scenarios/default.toml), replay a --ledger, or --drill.

    \b
    A screenshot of a chosen moment, headless:
      twin viz --headless --at 22:00 --screenshot floor.png
    Every screenshot of the README:
      twin viz --screenshots docs
    """
    from viz import screenshots

    if docs_folder is not None:
        _alone(click.get_current_context())
        for path in screenshots.main(docs_folder):
            click.echo(path)
        return
    dims = _size(size)
    at = screenshots.parse_at(at_text) if at_text is not None else None
    if screenshot is not None:
        screenshots.check_png_path(screenshot)  # before the run, not after it
    chosen = [
        n for n, v in (("SCENARIO", scenario), ("--ledger", ledger_path), ("--drill", drill)) if v
    ]
    if len(chosen) > 1:
        raise InputError("command line", " / ".join(chosen), "at most one of them", "several")
    if frames is not None and not headless:
        raise InputError("command line", "--frames", "--headless as well", "a window")
    if at is not None and drill is not None:
        raise InputError("command line", "--at", "a scenario or a --ledger", "--drill")
    from viz.app import Viewer, init_pygame, open_window
    from viz.sources import LiveSource, ReplaySource, Source

    source: Source
    at_seconds: float | None = None
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
        from twin import api
        from viz.live import open_live

        if at is not None:  # refused before the run is built (and its ledger started)
            sc = api.prepare(scenario, seed=seed, hours=hours, overrides=assignments)
            at_seconds = at.seconds(sc.clock(), sc.duration_seconds)
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
    if at is not None:
        if at_seconds is None:
            at_seconds = at.seconds(source.model.clock, source.end)
        screenshots.seek_to(source, at_seconds)
    init_pygame(headless)
    surface = None if headless else open_window(dims, f"twin viz - {title}")
    viewer = Viewer(source, dims, title=title)
    if drill_screen is not None:
        drill_screen.attach(viewer)
    if surface is not None:
        viewer.screen = surface  # draw straight onto the window
    if headless:
        if at is not None and frames is None:
            viewer.draw()  # the moment asked for, exactly
        for _ in range(frames or (0 if at is not None else 1)):
            viewer.frame(1 / 60)
        source.close()
    else:
        viewer.run()
    if screenshot is not None:
        screenshots.write_png(viewer.screen, screenshot)
        click.echo(f"twin viz: wrote {screenshot}", err=True)
    if drill_screen is not None:
        # quitting before F still scores the attempt: the steps taken so far, from its ledger
        score = drill_screen.attempt.finish()
        click.echo(score.summary_text())
        click.echo(f"twin viz: score and ledger in {drill_screen.attempt.folder}", err=True)


def _alone(ctx: click.Context) -> None:
    """``--screenshots`` makes the README's screenshots by itself (headless, at their sizes
    and times): any other option or argument given is refused, not silently ignored."""
    from click.core import ParameterSource

    for param in ctx.command.params:
        name = param.name or ""
        if name in ("docs_folder", "headless"):
            continue
        if ctx.get_parameter_source(name) not in (ParameterSource.DEFAULT, None):
            shown = param.opts[0] if isinstance(param, click.Option) else name.upper()
            raise InputError("command line", "--screenshots", "no other option", shown)


__all__ = ["viz"]
