"""``twin run``: run a scenario; what a run must not let pass silently (``--strict``)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import click

from twin.cli.options import run_length
from twin.errors import InputError


@click.command()
@click.argument("scenario", required=False, type=click.Path(dir_okay=False, path_type=Path))
@run_length
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
    type=click.Path(file_okay=False),
    help="Output folder (default: out/<scenario>-seed<seed>, replaced on each run); a new or "
    "empty folder, or an earlier run's.",
)
@click.option(
    "--force",
    is_flag=True,
    help="Replace an earlier run in --out (never a folder of yours, nor files you added).",
)
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
    help="Progress bar on stderr (default: when stderr is a terminal; otherwise a line every "
    "15 s with the rate and the time left, unless --no-progress).",
)
@click.option(
    "--strict",
    is_flag=True,
    help="Exit 1 when any control has a finding, when no control was checked, or when an "
    "injection never took effect.",
)
@click.option(
    "--hardware",
    "hardware_url",
    metavar="URL",
    help="mqtt://[user:password@]host:port of the SMIBs the scenario's [[hardware]] and "
    "[[sas]] bind (the run is then paced x1, or at --pace with only [[sas]]; a status line "
    "per SMIB on stderr).",
)
@click.option(
    "--hardware-ca",
    type=click.Path(exists=True, dir_okay=False),
    help="With an mqtts:// --hardware: the certificate of the broker's authority.",
)
@click.option(
    "--resume",
    "hardware_resume",
    type=click.Path(exists=True, path_type=Path),
    help="With --hardware: the folder (or ledger.sqlite) of an earlier run of the twin; each "
    "SMIB is asked for what came after the last event that run applied or declared lost.",
)
@click.option(
    "--sinks",
    type=click.Choice(["auto", "process", "inline"]),
    default="auto",
    show_default=True,
    help="Where the compliance checks and the ledger run: in a second process, so the run "
    "uses two cores (the same ledger), or inline; auto: a second process when this machine "
    "has two cores or more and the run has no --hardware.",
)
@click.option(
    "--ignore-size-estimate",
    is_flag=True,
    help="Run even when the estimate of the run's memory or ledger exceeds this machine's "
    "memory or the free disk space (it is refused otherwise, before anything is written).",
)
def run(
    scenario: Path | None,
    seed: int | None,
    hours: float | None,
    days: float | None,
    assignments: tuple[str, ...],
    out_dir: str | None,
    force: bool,
    as_json: bool,
    engine: str,
    pace: float | None,
    progress: bool | None,
    strict: bool,
    hardware_url: str | None,
    hardware_ca: str | None,
    hardware_resume: Path | None,
    sinks: str,
    ignore_size_estimate: bool,
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
    from twin.outputs import check_out
    from twin.summary import render_summary

    if hours is not None and days is not None:
        raise InputError("command line", "--hours/--days", "at most one of them", "both")
    if out_dir is not None:
        check_out(out_dir)  # `--out ""`, `.`, `..`: refused as typed, before anything runs
    duration = hours if hours is not None else (days * 24 if days is not None else None)
    sc = api.prepare(scenario, seed=seed, hours=duration, overrides=assignments)
    out = (
        Path(out_dir) if out_dir is not None else Path("out") / f"{sc.scenario.name}-seed{sc.seed}"
    )
    if not ignore_size_estimate:  # what cannot fit this machine is refused before t = 0
        from twin.sizes import check_fits

        check_fits(sc, out, str(sc.source_path or scenario or "the scenario"))
    tty = sys.stderr.isatty()
    show = progress if progress is not None else tty
    # without a terminal (a CI log, a service) and unless --no-progress: a line every
    # PROGRESS_EVERY seconds of wall time, with the rate and the time left (issue 33)
    lines = progress is None and not tty
    if hardware_url is not None:  # issue 8: the status lines take the terminal, not a bar
        show = lines = False
        # the machines of [[sas]] are the twin's own: a run of only those may be paced
        if getattr(sc, "hardware", ()) and pace not in (None, 1.0):
            raise InputError(
                "command line", "--pace", "1 (or nothing) with --hardware and [[hardware]]", pace
            )
        pace = 1.0 if pace is None else pace
    if sinks == "process" and hardware_url is not None:
        raise InputError("command line", "--sinks", "auto or inline with --hardware", sinks)
    sink_process = sinks == "process" or (
        sinks == "auto" and hardware_url is None and (os.cpu_count() or 1) >= 2
    )
    total_h = round(sc.duration_seconds / 3600, 2)
    with tqdm(
        total=total_h,
        unit="h",
        disable=not show,
        file=sys.stderr,
        desc=f"{sc.scenario.name}",
        bar_format="{l_bar}{bar}| {n:.1f}/{total:.1f} sim-h [{elapsed}<{remaining}]",
    ) as bar:
        import time

        began, said, every = time.monotonic(), [time.monotonic()], progress_every()

        def advance(now: float) -> None:
            bar.n = round(now / 3600, 2)
            bar.refresh()

        def advance_lines(now: float) -> None:
            wall = time.monotonic()
            if wall - said[0] < every or now <= 0:
                return
            said[0] = wall
            spent = wall - began
            left = spent * (sc.duration_seconds - now) / now
            click.echo(
                f"twin: {sc.scenario.name}: {now / 3600:.1f} of {total_h:g} sim-h "
                f"({now / sc.duration_seconds:.0%}) in {spent:.0f} s, x{now / spent:,.0f} real "
                f"time, about {left:.0f} s left",
                err=True,
            )

        def lagging(status: PacedStatus) -> None:
            click.echo(
                f"twin: paced x{status.factor:g}: the model is {status.lag_seconds:.1f} s "
                "behind the wall clock",
                err=True,
            )

        driver: Driver = (
            PacedDriver(pace, on_lag=lagging)
            if pace is not None
            else FastDriver(advance if show else advance_lines if lines else None)
        )
        try:
            result = api.run(
                sc,
                driver=driver,
                engine="per_spin" if engine == "per_spin" else "batched",
                out=out,
                replace=force or out_dir is None,
                hardware=hardware_url,
                hardware_ca=hardware_ca,
                hardware_resume=hardware_resume,
                on_hardware_lines=_status_lines() if hardware_url is not None else None,
                sink_process=sink_process,
                on_committed=WRITTEN.append,  # a stop from then on finds the run complete
            )
        except ConnectionError as exc:
            click.echo(f"twin: error: {exc}", err=True)
            sys.exit(1)
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
    for warning in run_warnings(summary):
        click.echo(f"twin: {warning}", err=True)
    if strict:
        failures = strict_failures(summary)
        if failures:
            click.echo(f"twin: --strict: {'; '.join(failures)}", err=True)
            sys.exit(1)
        idle = strict_not_exercised(summary)
        if idle:
            click.echo(f"twin: --strict: passed; {idle}", err=True)


def _status_lines() -> Any:
    """Each SMIB's status line on stderr: rewritten in place on a terminal, else every 2 s."""
    tty = sys.stderr.isatty()
    state = {"shown": 0, "last": 0.0}

    def show(lines: list[str]) -> None:
        import time

        if tty:
            up = f"\x1b[{state['shown']}F" if state["shown"] else ""
            sys.stderr.write(up + "".join(f"\x1b[2K{line}\n" for line in lines))
            sys.stderr.flush()
            state["shown"] = len(lines)
            return
        now = time.monotonic()
        if now - state["last"] >= 2.0:
            state["last"] = now
            for line in lines:
                click.echo(f"twin: {line}", err=True)

    return show


#: seconds of wall time between two progress lines of a run without a terminal (the
#: environment's TWIN_PROGRESS_SECONDS, when set, for a log's own cadence)
PROGRESS_EVERY = 15.0


def progress_every() -> float:
    text = os.environ.get("TWIN_PROGRESS_SECONDS", "")
    try:
        every = float(text) if text else PROGRESS_EVERY
    except ValueError:
        raise InputError("environment", "TWIN_PROGRESS_SECONDS", "a number of seconds",
                         text) from None  # fmt: skip
    if not every > 0:
        raise InputError("environment", "TWIN_PROGRESS_SECONDS", "a number above 0", text)
    return every


def run_warnings(summary: dict[str, Any]) -> list[str]:
    """What a run must not let pass silently: no control checked, an idle injection."""
    out: list[str] = []
    c = summary.get("compliance")
    if c is None:
        out.append("compliance was off: this run checked no control")
    elif c["controls_implemented"] == 0:
        out.append(
            f"ruleset {c['ruleset']}: none of its {c['controls_catalogued']} catalogued controls "
            "is implemented yet, so this run checked nothing (see `twin controls`)"
        )
    elif c["controls_checked"] == 0:
        out.append(
            f"ruleset {c['ruleset']}: none of its {c['controls_implemented']} implemented "
            "controls was exercised (what they needed never happened), so this run checked "
            "nothing (see `twin controls --run`)"
        )
    for section in summary.get("kpis", {}).get("sections", {}).values():  # issue 10
        out.extend(section.get("warnings", ()))
    for i in summary.get("injections", []):
        if i["status"] != "applied":
            out.append(
                f"injection {i['kind']} on {i['machine'] or i.get('target') or 'the floor'} "
                f"({i['source']} #{i['number']}) "
                f"{i['status']}: {i['reason']}"
            )
    return out


def strict_failures(summary: dict[str, Any]) -> list[str]:
    """Why ``--strict`` fails a run (empty: it passes)."""
    c = summary.get("compliance")
    out: list[str] = []
    if c is None or c["controls_checked"] == 0:
        out.append("no control was checked")
    elif c["findings"]:
        breached = c.get("verdict_counts", {}).get("breached")
        out.append(
            f"{c['findings']} finding(s)"
            + (f" ({breached} control(s) breached)" if breached else "")
            + (f"; {quiet}" if (quiet := strict_not_exercised(summary)) else "")
        )
    idle = sum(1 for i in summary.get("injections", []) if i["status"] != "applied")
    if idle:
        out.append(f"{idle} injection(s) did not take effect")
    return out


def strict_not_exercised(summary: dict[str, Any]) -> str:
    """What ``--strict`` says of the controls a run did not exercise ("" when none): they do
    not fail it, since nothing they needed happened, but a clean run must not hide them."""
    c = summary.get("compliance") or {}
    n = c.get("verdict_counts", {}).get("not_exercised", 0)
    if not n:
        return ""
    return f"{n} control(s) not exercised (what they needed never happened)"


#: the folder of a run that is complete (a signal while its summary prints says so)
WRITTEN: list[Path] = []
