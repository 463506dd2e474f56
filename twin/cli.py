"""The ``twin`` command line: run a scenario, analyse a PAR sheet, verify a ledger.

Exit codes: 0 success; 1 a check failed (a tampered ledger); 2 invalid input, reported as
one line on stderr that names the file or argument, the key, what was expected and what
was found — never a traceback for a user's mistake.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from twin.errors import InputError


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="casino-twin")
def cli() -> None:
    """Casino floor digital twin: a seeded SimPy model of a casino and its regulation."""


@cli.command()
@click.argument("scenario", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--seed", type=click.IntRange(min=0), help="Root seed (default: the scenario's).")
@click.option("--hours", type=click.FloatRange(min=0, min_open=True), help="Simulated hours.")
@click.option("--days", type=click.FloatRange(min=0, min_open=True), help="Simulated days.")
@click.option(
    "--set",
    "assignments",
    multiple=True,
    metavar="KEY=VALUE",
    help="Change a scenario key by its path, e.g. --set staff.shifts[0].end=06:00 (repeatable).",
)
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Output folder (default: out/<scenario>-seed<seed>, replaced on each run).",
)
@click.option("--force", is_flag=True, help="Replace a run already in --out.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary JSON to stdout.")
@click.option(
    "--engine",
    type=click.Choice(["batched", "per_spin"]),
    default="batched",
    show_default=True,
    help="Slot engine (per_spin is the slow reference).",
)
@click.option(
    "--pace",
    type=click.FloatRange(min=0.1, max=100_000),
    help="Run paced at this factor of the wall clock (0.1 to 100000) instead of flat out.",
)
@click.option(
    "--progress/--no-progress",
    default=None,
    help="Progress bar on stderr (default: when stderr is a terminal).",
)
@click.option("--strict", is_flag=True, help="Exit 1 when any control has a finding.")
def run(
    scenario: Path | None,
    seed: int | None,
    hours: float | None,
    days: float | None,
    assignments: tuple[str, ...],
    out_dir: Path | None,
    force: bool,
    as_json: bool,
    engine: str,
    pace: float | None,
    progress: bool | None,
    strict: bool,
) -> None:
    """Run SCENARIO (default scenarios/default.toml); write a ledger, findings and a summary.

    Every implemented regulatory control is checked against the run; findings are written
    to findings.json (and to the ledger), and counted per control in summary.json. The
    folder appears only when the run is complete; until then (or after an interruption) it
    is <out>.incomplete, with a file INCOMPLETE saying so.
    """
    from tqdm import tqdm

    from twin import api
    from twin.drivers import Driver, FastDriver, PacedDriver, PacedStatus
    from twin.summary import render_summary

    if hours is not None and days is not None:
        raise InputError("command line", "--hours/--days", "at most one of them", "both")
    duration = hours if hours is not None else (days * 24 if days is not None else None)
    sc = api.prepare(scenario, seed=seed, hours=duration, overrides=assignments)
    out = out_dir if out_dir is not None else Path("out") / f"{sc.scenario.name}-seed{sc.seed}"
    show = progress if progress is not None else sys.stderr.isatty()
    total_h = round(sc.duration_seconds / 3600, 2)
    with tqdm(
        total=total_h,
        unit="h",
        disable=not show,
        file=sys.stderr,
        desc=f"{sc.scenario.name}",
        bar_format="{l_bar}{bar}| {n:.1f}/{total:.1f} sim-h [{elapsed}<{remaining}]",
    ) as bar:

        def advance(now: float) -> None:
            bar.n = round(now / 3600, 2)
            bar.refresh()

        def lagging(status: PacedStatus) -> None:
            click.echo(
                f"twin: paced x{status.factor:g}: the model is {status.lag_seconds:.1f} s "
                "behind the wall clock",
                err=True,
            )

        driver: Driver = (
            PacedDriver(pace, on_lag=lagging)
            if pace is not None
            else FastDriver(advance if show else None)
        )
        try:
            result = api.run(
                sc,
                driver=driver,
                engine="per_spin" if engine == "per_spin" else "batched",
                out=out,
                replace=force or out_dir is None,
            )
        except KeyboardInterrupt:
            click.echo(
                f"twin: interrupted; the partial run is in {out}.incomplete "
                "(marked INCOMPLETE; its ledger was never closed)",
                err=True,
            )
            sys.exit(130)
    summary = result.summary()
    if as_json:
        click.echo(json.dumps(summary, indent=2))
    else:
        click.echo(render_summary(summary))
        click.echo(f"  wrote {out / 'ledger.sqlite'}, {out / 'findings.json'} and "
                   f"{out / 'summary.json'}")  # fmt: skip
    if strict and result.findings:
        click.echo(f"twin: {len(result.findings)} finding(s) (--strict)", err=True)
        sys.exit(1)


@cli.command()
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the analysis as JSON.")
def par(file: Path, as_json: bool) -> None:
    """Exact analysis of a PAR sheet (game file): return, hit frequency, volatility."""
    from twin.machines.analysis import analyse
    from twin.machines.par import load_game
    from twin.machines.par_report import render_text, to_json_dict

    analysis = analyse(load_game(file))
    if as_json:
        click.echo(json.dumps(to_json_dict(analysis), indent=2))
    else:
        click.echo(render_text(analysis))


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print the coverage as JSON.")
def controls(as_json: bool) -> None:
    """Every catalogued control: implemented, out of scope (why), or not yet."""
    from twin.compliance.catalog import controls_json, coverage, render_controls_text
    from twin.compliance.registry import registry

    rows = coverage(registry())
    if as_json:
        click.echo(json.dumps(controls_json(rows), indent=2))
    else:
        click.echo(render_controls_text(rows))


@cli.group()
def ledger() -> None:
    """Inspect run ledgers."""


@ledger.command("verify")
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--expect-head", help="The ledger_sha256 a run reported; checked as well.")
def ledger_verify(path: Path, expect_head: str | None) -> None:
    """Check a ledger's hash chain; name the first changed, missing or moved row."""
    from twin.ledger import format_result, verify

    result = verify(path, expected_head=expect_head)
    message, code = format_result(result, path)
    click.echo(message, err=code != 0)
    sys.exit(code)


def main(argv: list[str] | None = None) -> Any:
    """Entry point: user mistakes become one line on stderr and exit code 2."""
    try:
        return cli.main(args=argv, prog_name="twin", standalone_mode=False)
    except InputError as e:
        click.echo(f"twin: error: {e}", err=True)
        sys.exit(2)
    except click.exceptions.Abort:
        click.echo("twin: aborted", err=True)
        sys.exit(130)
    except click.ClickException as e:
        where = f"{e.ctx.command_path}: " if getattr(e, "ctx", None) else ""  # type: ignore[attr-defined]
        click.echo(f"twin: error: {where}{e.format_message()}", err=True)
        sys.exit(e.exit_code)
