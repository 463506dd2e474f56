"""The ``twin`` command line: run a scenario, analyse a PAR sheet, replay a premium-player
deposit account, verify a ledger.

Exit codes: 0 success; 1 a check failed (a tampered ledger); 2 invalid input, reported as
one line on stderr that names the file or argument, the key, what was expected and what
was found — never a traceback for a user's mistake; 3 a ledger whose rows all verify but
that was never closed (an interrupted run).
"""

from __future__ import annotations

import json
import math
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, TypeVar

import click

from twin.errors import InputError

#: Entry-point group through which packages outside ``twin`` add commands (``viz``): ``twin``
#: names no such package, and a plugin is imported only when its command is asked for.
PLUGIN_GROUP = "twin.cli"


def plugins() -> dict[str, Any]:
    """The commands other installed packages declare in :data:`PLUGIN_GROUP` (by name)."""
    from importlib.metadata import entry_points

    return {ep.name: ep for ep in entry_points(group=PLUGIN_GROUP)}


class PluginGroup(click.Group):
    """twin's own commands, then those of plugins (loaded lazily, by name)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *plugins()})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        cmd = super().get_command(ctx, cmd_name)
        if cmd is not None:
            return cmd
        ep = plugins().get(cmd_name)
        if ep is None:
            return None
        loaded = ep.load()
        return loaded if isinstance(loaded, click.Command) else None


F = TypeVar("F", bound=Callable[..., Any])


class _FinitePositive(click.FloatRange):
    """A number above 0 that is finite (``--days nan`` used to reach the scenario as a
    ``--set`` the user never typed)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        got = super().convert(value, param, ctx)
        if not math.isfinite(got):
            self.fail(f"expected a finite number above 0, found {value!r}", param, ctx)
        return got


_POSITIVE = _FinitePositive(min=0, min_open=True)


def run_length(f: F) -> F:
    """``--seed``, ``--hours`` and ``--days``: the options of every command that runs."""
    for opt in (
        click.option("--days", type=_POSITIVE, help="Simulated days."),
        click.option("--hours", type=_POSITIVE, help="Simulated hours."),
        click.option(
            "--seed", type=click.IntRange(min=0), help="Root seed (default: the scenario's)."
        ),
    ):
        f = opt(f)
    return f


def study_options(what: str, workers: str) -> Callable[[F], F]:
    """``--confidence`` (of ``what``) and ``--workers`` (``workers``): every study's."""

    def wrap(f: F) -> F:
        f = click.option("--workers", type=click.IntRange(min=0), help=workers)(f)
        return click.option(
            "--confidence", type=click.FloatRange(min=0.5, max=1, max_open=True), default=0.95,
            show_default=True, help=f"Confidence of the {what}.",
        )(f)  # fmt: skip

    return wrap


@click.group(cls=PluginGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="casino-twin")
def cli() -> None:
    """Casino floor digital twin: a seeded SimPy model of a casino and its regulation."""


@cli.command()
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
    help="mqtt://[user:password@]host:port of the SMIBs the scenario's [[hardware]] binds "
    "(the run is then paced x1; a status line per SMIB on stderr).",
)
@click.option(
    "--hardware-ca",
    type=click.Path(exists=True, dir_okay=False),
    help="With an mqtts:// --hardware: the certificate of the broker's authority.",
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
        if pace not in (None, 1.0):
            raise InputError("command line", "--pace", "1 (or nothing) with --hardware", pace)
        pace = 1.0
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
                on_hardware_lines=_status_lines() if hardware_url is not None else None,
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
    _WRITTEN.append(out)
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


@cli.command()
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the analysis as JSON.")
def par(file: Path, as_json: bool) -> None:
    """Exact analysis of a PAR sheet (game file): return, hit frequency, volatility."""
    from twin import api
    from twin.machines.analysis import analyse
    from twin.machines.par import load_game
    from twin.machines.par_report import render_text, to_json_dict

    analysis = analyse(load_game(api.resolve(file, "games")))
    if as_json:
        click.echo(json.dumps(to_json_dict(analysis), indent=2))
    else:  # the text ends with its last line, not with a blank one
        click.echo(render_text(analysis).rstrip("\n"))


@cli.command()
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the analysis as JSON.")
@click.option(
    "--simulate",
    type=click.IntRange(min=2, max=100_000_000),
    default=None,
    metavar="N",
    help="Also play N rounds of every bet (wheel spun, cards dealt) and show the observed edge.",
)
@click.option("--seed", type=click.IntRange(min=0), default=0, help="Seed of --simulate (0).")
def table(file: Path, as_json: bool, simulate: int | None, seed: int) -> None:
    """Exact analysis of a table game file: every bet's payout, house edge and deviation."""
    from twin import api
    from twin.tables.analysis import analyse, render_text
    from twin.tables.games import load_table_game

    doc = analyse(load_table_game(api.resolve(file, "tables")), simulate or 0, seed)
    if as_json:
        click.echo(json.dumps(doc, indent=2))
    else:
        click.echo(render_text(doc))


@cli.command()
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the replay as JSON.")
@click.option(
    "--until",
    "until_text",
    metavar="DATE",
    help="Last day to replay, YYYY-MM-DD (default: the last event plus 13 months).",
)
def account(file: Path, as_json: bool, until_text: str | None) -> None:
    """Replay one premium-player deposit account (Singapore regs 2A, 2B, 3, 4) day by day.

    FILE is a JSON timeline (patron, residency, events, optional ruleset overrides) as in
    accounts.md; the status of every day, the periods and the findings are printed.
    """
    from twin.accounts.replay import AccountRules, replay
    from twin.accounts.report import render_text
    from twin.accounts.timeline import load_timeline, parse_date
    from twin.compliance.ruleset import load_ruleset

    timeline = load_timeline(file)
    rules = load_ruleset(
        "singapore-2010", timeline.overrides, source=str(file), key_prefix="overrides"
    )
    until = None
    if until_text is not None:
        until = parse_date(until_text)
        if until is None:
            raise InputError("command line", "--until", "an ISO date YYYY-MM-DD", until_text)
        if until < timeline.first_date:
            expected = f"a date on or after the first event ({timeline.first_date.isoformat()})"
            raise InputError("command line", "--until", expected, until_text)
    result = replay(timeline, AccountRules.from_params(rules.get), until)
    if as_json:
        click.echo(json.dumps(result.to_json(), indent=2))
    else:
        click.echo(render_text(result, dict(timeline.overrides)))


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print the coverage as JSON.")
@click.option(
    "--parts", is_flag=True, help="Under each implemented control, the parts checked and not."
)
@click.option(
    "--run",
    "run_dir",
    type=click.Path(path_type=Path),
    help="A run's folder (or its summary.json): each control's verdict in that run "
    "(breached, checked with N observations, not exercised and what it needed, not "
    "applicable, not implemented).",
)
def controls(as_json: bool, parts: bool, run_dir: Path | None) -> None:
    """Every catalogued control: implemented (in full or in part), out of scope (why), or not
    yet; with --run, what one run says of each."""
    from twin.compliance.catalog import controls_json, coverage, render_controls_text
    from twin.compliance.registry import registry
    from twin.hardware.findings import CATALOG as HARDWARE  # no MQTT: only what they say

    if run_dir is not None:
        _run_verdicts(run_dir, as_json)
        return
    rows = coverage(registry())
    if as_json:
        doc = controls_json(rows)
        doc["hardware"] = [
            {"id": h.id, "severity": h.severity, "title": h.title, "test": h.test} for h in HARDWARE
        ]
        doc["behaviour"] = behaviour_params()
        click.echo(json.dumps(doc, indent=2))
    else:
        *table, totals = render_controls_text(rows, parts=parts).rstrip("\n").split("\n")
        click.echo("\n".join(table).rstrip("\n"))
        click.echo("\nFindings of the hardware link (SMIBs; not controls of a regulation):")
        width = max(len(h.id) for h in HARDWARE)
        for h in HARDWARE:
            click.echo(f"  {h.id:<{width}}  {h.severity:<7}  {h.title}")
        click.echo(
            "\nRuleset parameters that change behaviour (the operation, not only the verdict;"
            " a rule-change study of any other parameter changes findings only):"
        )
        for b in behaviour_params():
            click.echo(f"  {b['ruleset']}  {b['param']} = {b['value']}  ({b['cite']})")
            click.echo(f"      {b['behaviour']}")
        click.echo(f"\n{totals}")  # last, so `twin controls | tail -1` is the totals


def _run_verdicts(run_dir: Path, as_json: bool) -> None:
    """``twin controls --run``: the verdicts a run's summary.json holds, one line each."""
    from twin.compliance.catalog import load_catalog
    from twin.compliance.verdicts import STATUS_WORDS, VERDICTS, totals_line

    path = run_dir / "summary.json" if run_dir.is_dir() else run_dir
    if not path.is_file():
        found = "no such folder" if not run_dir.exists() else "no summary.json in it"
        raise InputError(str(run_dir), "--run", "a run's folder or its summary.json", found)
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        c = doc["compliance"]
        verdicts: dict[str, dict[str, Any]] = c["verdicts"] if c else {}
    except (json.JSONDecodeError, KeyError, TypeError, UnicodeDecodeError):
        raise InputError(str(path), "compliance.verdicts", "a run summary with verdicts "
                         "(written by this version of twin run)", "none") from None  # fmt: skip
    if not verdicts:
        raise InputError(str(path), "compliance", "a run with compliance on", "compliance off")
    if as_json:
        click.echo(json.dumps({"ruleset": c["ruleset"], "verdict_counts": c["verdict_counts"],
                               "verdicts": verdicts}, indent=2))  # fmt: skip
        return
    titles = {k: v.title for k, v in load_catalog().controls.items()}
    width = max(len(k) for k in verdicts)
    for status in VERDICTS:
        rows = [(k, v) for k, v in verdicts.items() if v["status"] == status]
        if not rows:
            continue
        click.echo(f"{STATUS_WORDS[status]} ({len(rows)}):")
        for k, v in rows:
            detail = {
                "breached": f"{v['findings']} finding(s), {v['observations']:,} observation(s)",
                "checked": f"{v['observations']:,} observation(s)",
            }.get(status, v["why"])
            click.echo(f"  {k:<{width}}  {titles.get(k, '')}: {detail}")
    click.echo(
        f"{doc.get('scenario', '?')} (seed {doc.get('seed', '?')}, ruleset {c['ruleset']}): "
        f"{c['controls_catalogued']} catalogued controls: {totals_line(c['verdict_counts'])}"
    )


def behaviour_params() -> list[dict[str, Any]]:
    """Every ruleset parameter the simulated operation reads (issue 12), by ruleset."""
    from twin.compliance.ruleset import RULESETS, load_ruleset

    out: list[dict[str, Any]] = []
    for name in RULESETS:
        rs = load_ruleset(name)
        for key, p in rs.params.items():
            if p.behaviour:
                out.append(
                    {"ruleset": name, "param": key, "value": p.value, "cite": p.cite,
                     "controls": list(p.controls), "behaviour": p.behaviour}
                )  # fmt: skip
    return out


@cli.command()
@click.argument("scenario", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--baseline",
    metavar="RULESET_OR_FILE",
    help="Today's rules: a ruleset name or a proposal file (default: the scenario's ruleset).",
)
@click.option(
    "--proposed",
    metavar="RULESET_OR_FILE",
    required=True,
    help="The rules proposed: a ruleset name or a proposal file (see scenarios/proposals/).",
)
@click.option(
    "--replications",
    type=click.IntRange(min=2),
    default=10,
    show_default=True,
    help="Most replications per arm (fewer when the focus KPIs are precise enough).",
)
@click.option(
    "--min-replications",
    type=click.IntRange(min=2),
    help="Fewest replications before the study may stop early (default 5, or --replications "
    "when fewer).",
)
@click.option(
    "--focus",
    "focus_kpis",
    multiple=True,
    metavar="KPI",
    help="Stop early when this KPI's difference is precise enough (repeatable; default: the "
    "proposal's [proposal.focus]).",
)
@click.option(
    "--precision",
    type=click.FloatRange(min=0, max=1, min_open=True),
    help="Relative half-width at which the focus KPIs are precise enough (default: the "
    "proposal's, else 0.10).",
)
@run_length
@study_options(
    "paired intervals",
    "Worker processes of a local Dask cluster (default: one per core; 0: in this process).",
)
@click.option(
    "--scheduler",
    metavar="ADDRESS",
    help="A Dask scheduler to run on instead of a local cluster, e.g. tcp://10.0.0.5:8786.",
)
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Report folder (default: out/compare-<scenario>-<proposed>): compare.json, report.html.",
)
@click.option(
    "--independent",
    is_flag=True,
    help="Run the proposed arm on other seeds (no common random numbers), to measure what "
    "the pairing gains.",
)
@click.option(
    "--operators",
    type=click.Choice(["adapt", "keep"]),
    default="adapt",
    show_default=True,
    help="Under the proposal the operators adapt their procedures to the new law (the cost "
    "of the rule), or keep today's (the compliance gap on the day the rule changes: which "
    "controls find what).",
)
@click.option("--force", is_flag=True, help="Replace a study already in --out.")
@click.option("--json", "as_json", is_flag=True, help="Print compare.json to stdout.")
def compare(
    scenario: Path | None,
    baseline: str | None,
    proposed: str,
    replications: int,
    min_replications: int | None,
    focus_kpis: tuple[str, ...],
    precision: float | None,
    seed: int | None,
    hours: float | None,
    days: float | None,
    confidence: float,
    workers: int | None,
    scheduler: str | None,
    out_dir: Path | None,
    independent: bool,
    operators: str,
    force: bool,
    as_json: bool,
) -> None:
    """Run SCENARIO under two rulesets with common random numbers and compare them.

    Replication i of both arms shares every random stream (seed root + i), so each KPI's
    and each control's difference comes with a paired confidence interval. Replications run
    on Dask (a local cluster, or --scheduler); a failed one is retried once, then reported.
    Exit 0, 1 when a replication failed twice, 2 on invalid input.
    """
    from twin import api
    from twin.experiments.arms import Focus, check_on, kept_policies, load_arm
    from twin.experiments.compare import Plan
    from twin.experiments.compare import compare as run_study
    from twin.experiments.report import render_html, render_text, to_json
    from twin.outputs import RunFolder

    if hours is not None and days is not None:
        raise InputError("command line", "--hours/--days", "at most one of them", "both")
    if workers is not None and scheduler is not None:
        raise InputError("command line", "--workers/--scheduler", "at most one of them", "both")
    if min_replications is None:
        min_replications = min(5, replications)
    elif min_replications > replications:
        raise InputError("command line", "--min-replications",
                         f"at most --replications ({replications})", min_replications)  # fmt: skip
    path = (api.resolve(scenario) if scenario is not None else api.default_scenario()).resolve()
    if not path.is_file():
        raise InputError(path, "", "a scenario file", "no such file")
    sc = api.prepare(path)
    arm_b = load_arm(baseline if baseline is not None else sc.ruleset.name, "baseline")
    arm_p = load_arm(proposed, "proposed")
    span = days * 24.0 if days is not None else hours
    for arm in (arm_b, arm_p):  # both arms valid on this floor before anything runs
        check_on(path, arm, span)
    focus = arm_p.focus or arm_b.focus
    if focus_kpis:
        focus = Focus(tuple(focus_kpis), focus.relative_precision if focus else 0.10)
    if focus is not None and precision is not None:
        focus = Focus(focus.kpis, precision)
    if focus is not None:
        from twin.experiments.replication import KPIS

        for k in focus.kpis:
            if k not in KPIS and not k.startswith("findings."):
                where = "--focus" if focus_kpis else f"{arm_p.source}: proposal.focus.kpis"
                raise InputError(where, "", "a KPI (" + ", ".join(KPIS)
                                 + ", or findings.<control id>)", k)  # fmt: skip
    label = Path(arm_p.source).stem if arm_p.source != arm_p.ruleset else arm_p.ruleset
    out = out_dir or Path("out") / f"compare-{sc.scenario.name}-{label}"
    folder = RunFolder(out, replace=force, guard="compare.json")
    plan = Plan(
        scenario=str(path),
        baseline=arm_b,
        proposed=arm_p,
        replications=replications,
        root_seed=seed if seed is not None else sc.seed,
        hours=span,
        min_replications=min_replications,
        confidence=confidence,
        focus=focus,
        independent=independent,
        operators=operators,
        kept=tuple(kept_policies(path, arm_b, span)) if operators == "keep" else (),
    )

    def show(ev: dict[str, Any]) -> None:
        what = f"failed: {ev['failed']}" if "failed" in ev else f"{ev['wall_seconds']:.1f} s"
        line = (f"twin: {ev['arm']} replication {ev['index']} (seed {ev['seed']}) {what}; "
                f"{ev['pairs_done']} of at most {ev['of']} pairs")  # fmt: skip
        so = ev.get("so_far")
        if so is not None:
            line += f"; {so['kpi']} {so['difference']:+.3g} ± {so['half_width']:.3g} (n={so['n']})"
        click.echo(line, err=True)

    work = folder.open()
    try:
        result = run_study(plan, workers=workers, scheduler=scheduler, progress=show)
        doc = to_json(result)
        (work / "compare.json").write_text(json.dumps(doc, indent=2) + "\n")
        (work / "report.html").write_text(render_html(result), encoding="utf-8")
    except BaseException as exc:
        folder.interrupted(f"{type(exc).__name__}: {exc}")
        raise
    folder.commit()
    if as_json:
        click.echo(json.dumps(doc, indent=2))
    else:
        click.echo(render_text(result), nl=False)
        click.echo(f"twin: wrote {out}/compare.json and {out}/report.html", err=True)
    if result.failures:
        sys.exit(1)


@cli.command()
@click.argument("scenario", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--proposed",
    metavar="RULESET_OR_FILE",
    multiple=True,
    help="Rules proposed, to run beside today's: a ruleset name or a proposal file (see "
    "scenarios/proposals/aml-gaming-day.toml); repeatable.",
)
@click.option(
    "--replications",
    type=click.IntRange(min=1),
    default=10,
    show_default=True,
    help="Seeds per arm (root seed, root + 1, ...).",
)
@run_length
@study_options("exact intervals", "Worker processes (default: one per core; 0: in this process).")
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Report folder (default: out/aml-<scenario>[-<proposed>]): aml.json, aml.md.",
)
@click.option("--force", is_flag=True, help="Replace a study already in --out.")
@click.option("--json", "as_json", is_flag=True, help="Print aml.json to stdout.")
def aml(
    scenario: Path | None,
    proposed: tuple[str, ...],
    replications: int,
    seed: int | None,
    hours: float | None,
    days: float | None,
    confidence: float,
    workers: int | None,
    out_dir: Path | None,
    force: bool,
    as_json: bool,
) -> None:
    """Measure which money-laundering strategies the rules catch (Malta regs 45-51).

    Runs SCENARIO (default scenarios/aml.toml) on --replications seeds, under today's rules
    and, with --proposed (repeatable), under each proposal too (the same seeds). For each laundering
    strategy of the scenario's [[aml.launderers]]: the share of launderers reported to the
    police, with its exact interval, and the median hours from the first act to that report;
    and the share of honest patrons reported (false reports). Exit 2 on invalid input.
    """
    from twin import api
    from twin.experiments.aml_study import detection_study, render_text
    from twin.experiments.arms import check_on, load_arm
    from twin.outputs import RunFolder

    if hours is not None and days is not None:
        raise InputError("command line", "--hours/--days", "at most one of them", "both")
    default = Path(__file__).resolve().parent / "data" / "scenarios" / "aml.toml"
    path = (scenario if scenario is not None else default).resolve()
    if not path.is_file():
        raise InputError(path, "", "a scenario file", "no such file")
    sc = api.prepare(path)
    if sc.aml is None or not sc.aml.launderers:
        raise InputError(path, "aml.launderers", "an [aml] section with launderers",
                         "none")  # fmt: skip
    arms = [load_arm(sc.ruleset.name, "today")]
    for n, spec in enumerate(proposed, start=1):
        arms.append(load_arm(spec, "proposed" if len(proposed) == 1 else f"proposed {n}"))
    span = days * 24.0 if days is not None else hours
    for arm in arms:  # every arm valid on this floor before anything runs
        check_on(path, arm, span)
    label = "".join("-" + Path(a.source).stem for a in arms[1:])
    out = out_dir or Path("out") / f"aml-{sc.scenario.name}{label}"
    folder = RunFolder(out, replace=force, guard="aml.json")
    work = folder.open()
    try:
        study = detection_study(
            path, arms, replications=replications,
            seed=seed if seed is not None else sc.seed, hours=span, confidence=confidence,
            workers=workers, progress=lambda line: click.echo(f"twin: {line}", err=True),
        )  # fmt: skip
        doc = study.to_json()
        text = render_text(study)
        (work / "aml.json").write_text(json.dumps(doc, indent=2) + "\n")
        (work / "aml.md").write_text(text, encoding="utf-8")
    except BaseException as exc:
        folder.interrupted(f"{type(exc).__name__}: {exc}")
        raise
    folder.commit()
    if as_json:
        click.echo(json.dumps(doc, indent=2))
    else:
        click.echo(text, nl=False)
        click.echo(f"twin: wrote {out}/aml.json and {out}/aml.md", err=True)


@cli.command()
@click.argument("scenario", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--grid",
    "grid_file",
    required=True,
    metavar="FILE",
    help="The grid: [sweep] title, ruleset, and [sweep.grid] key = [values] (every combination).",
)
@click.option(
    "--kpi",
    "kpis",
    multiple=True,
    metavar="KPI",
    help="A KPI to tabulate (repeatable; default theo_win_cents, theo_hold_percent, findings).",
)
@click.option(
    "--replications",
    type=click.IntRange(min=2),
    default=5,
    show_default=True,
    help="Seeds per grid point (root seed, root + 1, ...), the same at every point.",
)
@run_length
@click.option(
    "--confidence",
    type=click.FloatRange(min=0.5, max=1, max_open=True),
    default=0.95,
    show_default=True,
    help="Confidence of each mean's interval and each paired difference's.",
)
@click.option("--workers", type=click.IntRange(min=0), help="Local Dask worker processes.")
@click.option("--scheduler", metavar="ADDRESS", help="A Dask scheduler instead.")
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Report folder (default out/sweep-<scenario>-<grid>): sweep.json, report.html.",
)
@click.option("--force", is_flag=True, help="Replace a sweep already in --out.")
@click.option("--json", "as_json", is_flag=True, help="Print sweep.json to stdout.")
def sweep(
    scenario: Path | None,
    grid_file: str,
    kpis: tuple[str, ...],
    replications: int,
    seed: int | None,
    hours: float | None,
    days: float | None,
    confidence: float,
    workers: int | None,
    scheduler: str | None,
    out_dir: Path | None,
    force: bool,
    as_json: bool,
) -> None:
    """Run SCENARIO at every point of a grid of ruleset values (common random numbers).

    Each point reports every KPI's mean with its interval and its paired difference from
    the first point. Exit 0, 1 when a replication failed twice, 2 on invalid input.
    """
    from twin import api
    from twin.experiments.arms import check_on
    from twin.experiments.replication import KPIS, Observation, Task
    from twin.experiments.sweep import load_grid, render_html, render_text, to_json
    from twin.experiments.sweep import sweep as run_sweep
    from twin.outputs import RunFolder

    if hours is not None and days is not None:
        raise InputError("command line", "--hours/--days", "at most one of them", "both")
    if workers is not None and scheduler is not None:
        raise InputError("command line", "--workers/--scheduler", "at most one of them", "both")
    for k in kpis:
        if k not in KPIS and not k.startswith("findings."):
            raise InputError("--kpi", "", "a KPI (" + ", ".join(KPIS)
                             + ", or findings.<control id>)", k)  # fmt: skip
    shown = kpis or ("theo_win_cents", "theo_hold_percent", "findings")
    path = (api.resolve(scenario) if scenario is not None else api.default_scenario()).resolve()
    if not path.is_file():
        raise InputError(path, "", "a scenario file", "no such file")
    sc = api.prepare(path)
    grid = load_grid(grid_file)
    span = days * 24.0 if days is not None else hours
    for arm in grid.points:
        check_on(path, arm, span)
    out = out_dir or Path("out") / f"sweep-{sc.scenario.name}-{Path(grid_file).stem}"
    folder = RunFolder(out, replace=force, guard="sweep.json")
    total = len(grid.points) * replications

    def show(task: Task, got: Observation | Any, done: int) -> None:
        what = (
            f"{got.wall_seconds:.1f} s" if isinstance(got, Observation) else f"failed: {got.error}"
        )
        click.echo(f"twin: [{task.arm}] replication {task.index} (seed {task.seed}) {what}; "
                   f"{done} of {total}", err=True)  # fmt: skip

    work = folder.open()
    try:
        result = run_sweep(str(path), grid, replications=replications,
                           root_seed=seed if seed is not None else sc.seed, hours=span,
                           confidence=confidence, workers=workers, scheduler=scheduler,
                           progress=show)  # fmt: skip
        doc = to_json(result)
        (work / "sweep.json").write_text(json.dumps(doc, indent=2) + "\n")
        (work / "report.html").write_text(render_html(result, shown), encoding="utf-8")
    except BaseException as exc:
        folder.interrupted(f"{type(exc).__name__}: {exc}")
        raise
    folder.commit()
    if as_json:
        click.echo(json.dumps(doc, indent=2))
    else:
        click.echo(render_text(result, shown), nl=False)
        click.echo(f"twin: wrote {out}/sweep.json and {out}/report.html", err=True)
    if result.failures:
        sys.exit(1)


@cli.group()
def ledger() -> None:
    """Inspect run ledgers."""


@ledger.command("verify")
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--expect-head", help="The ledger_sha256 a run reported; checked as well.")
def ledger_verify(path: Path, expect_head: str | None) -> None:
    """Check a ledger's hash chain; name the first changed, missing or moved row.

    Exit 0 intact, 1 tampered, 3 every row chains but the ledger was never closed (the
    run was interrupted), 2 not a ledger or a malformed --expect-head.
    """
    from twin.ledger import HEAD_PATTERN, format_result, is_head, verify

    if expect_head is not None and not is_head(expect_head):
        raise InputError("command line", "--expect-head", HEAD_PATTERN, expect_head)
    result = verify(path, expected_head=expect_head)
    message, code = format_result(result, path)
    click.echo(message, err=code != 0)
    sys.exit(code)


@ledger.command("export")
@click.argument("path", type=click.Path(path_type=Path))
@click.option(
    "--kind",
    "kinds",
    multiple=True,
    help="Export only this record kind (repeatable; default: every kind).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["jsonl", "csv"]),
    default="jsonl",
    show_default=True,
    help="JSON Lines (the stored bodies) or CSV (one column per field).",
)
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    help="Write to this file (complete or not at all) instead of stdout.",
)
def ledger_export(path: Path, kinds: tuple[str, ...], fmt: str, out: Path | None) -> None:
    """Export a ledger's records as JSON Lines or CSV (for spreadsheets, pandas).

    A ledger that does not verify (tampered, or never closed) is still exported, with a
    warning on stderr that says so.
    """
    from twin.ledger import format_result, verify
    from twin.ledger_export import export, write_out

    checked = verify(path)  # issue 33: exporting a tampered ledger must not pass silently
    if checked.status != "intact":
        message, _code = format_result(checked, path)
        click.echo(f"twin: warning: {message} (exported all the same)", err=True)
    chosen = list(kinds) if kinds else None
    form: Literal["jsonl", "csv"] = "csv" if fmt == "csv" else "jsonl"
    if out is not None:
        with write_out(out, refuse=path) as fh:
            n = export(path, fh, kinds=chosen, fmt=form)
        click.echo(f"twin: wrote {n} records to {out}", err=True)
        return
    try:
        export(path, sys.stdout, kinds=chosen, fmt=form)
        sys.stdout.flush()
    except BrokenPipeError:  # `twin ledger export ... | head`: the reader has enough
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        sys.exit(0)


@ledger.command("retention")
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--ruleset",
    "ruleset_name",
    default="malta-1998",
    show_default=True,
    help="The ruleset whose retention periods apply.",
)
@click.option(
    "--as-of", "as_of", metavar="YYYY-MM-DD", help="Say whether it may be destroyed then."
)
@click.option("--json", "as_json", is_flag=True, help="Print the classes as JSON.")
def ledger_retention(path: Path, ruleset_name: str, as_of: str | None, as_json: bool) -> None:
    """Until when a run's ledger must be kept: each class of books it holds (payment
    records, reg 37; accounts of gaming operations, reg 43) with its period."""
    from datetime import date

    from twin.compliance.ruleset import load_ruleset
    from twin.ledger_retention import render, retention

    day: date | None = None
    if as_of is not None:
        try:
            day = date.fromisoformat(as_of)
        except ValueError:
            raise InputError("command line", "--as-of", "a date YYYY-MM-DD", as_of) from None
    ruleset = load_ruleset(ruleset_name, {}, source="--ruleset")
    r = retention(path, ruleset)
    if as_json:
        click.echo(json.dumps(r.to_dict(day), indent=2))
    else:
        click.echo(render(r, day), nl=False)


def _parse_at(text: str, ledger_path: Path) -> float:
    """``--at``: seconds (``3600``), a unit (``90m``, ``5h``, ``2d``) or an ISO local datetime."""
    from datetime import datetime

    units = {"s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}
    raw = text.strip()
    number, factor = (raw[:-1], units[raw[-1]]) if raw[-1:] in units else (raw, 1.0)
    try:
        t = float(number) * factor
    except ValueError:
        t = None
    if t is None:
        try:
            when = datetime.fromisoformat(raw)
        except ValueError:
            raise InputError(
                "command line",
                "--at",
                "seconds (3600), hours (5h), minutes (90m), days (2d) or an ISO datetime",
                text,
            ) from None
        from twin.clock import Clock
        from twin.ledger import read_meta

        meta = read_meta(ledger_path)
        if "start" not in meta or "timezone" not in meta:
            raise InputError(
                ledger_path,
                "meta",
                "the run's start and timezone to read --at as a datetime (or give seconds)",
                "a ledger without them",
            )
        clock = Clock(datetime.fromisoformat(meta["start"]), meta["timezone"])
        t = clock.seconds(when)
    if not t >= 0 or t == float("inf"):
        raise InputError("command line", "--at", "a time at or after the run's start", text)
    return t


@cli.command()
@click.argument("path", metavar="LEDGER", type=click.Path(path_type=Path))
@click.option("--machine", "machine", required=True, help="Machine id, e.g. A-001.")
@click.option(
    "--at",
    "at_text",
    help="Simulation seconds (3600), 90m, 5h, 2d, or an ISO local datetime "
    "(2026-03-02T15:00:00). Default: the end of the ledger.",
)
@click.option(
    "--at-seq",
    type=click.IntRange(min=0),
    help="Only records up to this seq (a state between records written at the same time).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the state as JSON.")
def state(path: Path, machine: str, at_text: str | None, at_seq: int | None, as_json: bool) -> None:
    """A machine's meters, hopper, credits, doors and status at a moment, from LEDGER alone.

    The state after every record with t <= --at (and seq <= --at-seq).
    """
    from twin.ledger import read_meta, read_rows
    from twin.state import MACHINE_KINDS, ReplayError, machine_of, replay

    read_meta(path)  # a ledger, or one line and exit 2
    at = _parse_at(at_text, path) if at_text is not None else None
    installed = [
        machine_of(json.loads(body))
        for _s, _t, _k, body in read_rows(path, kinds=("machine_installed",))
    ]
    if machine not in installed:
        shown = ", ".join(m for m in installed[:5] if m is not None)
        more = f", ... ({len(installed)} machines)" if len(installed) > 5 else ""
        raise InputError(
            path, "--machine", f"a machine installed in the ledger ({shown}{more})", machine
        )
    rows = read_rows(
        path,
        kinds=MACHINE_KINDS,
        max_t=at,
        max_seq=at_seq,
        containing=json.dumps(machine, ensure_ascii=False),
    )
    try:
        st = replay((json.loads(body) for _s, _t, _k, body in rows), machine, at=at)
    except ReplayError as exc:
        click.echo(f"{path}: INCONSISTENT - {exc}", err=True)
        sys.exit(1)
    meta = read_meta(path)
    when = ""
    if "start" in meta and "timezone" in meta:
        from datetime import datetime

        from twin.clock import Clock

        when = Clock(datetime.fromisoformat(meta["start"]), meta["timezone"]).iso(st.t)
    if as_json:
        doc = st.to_json()
        doc["local_time"] = when or None
        click.echo(json.dumps(doc, indent=2))
        return
    after = f"after seq {st.seq}" if st.seq is not None else "no records yet"
    local = f" {when}" if when else ""
    click.echo(f"{machine} at t={st.t:g}s{local} ({after}): {st.status}")
    doors = ", ".join(st.doors_open) or "none"
    owed = f" ({st.hopper_owed} owed to a patron)" if st.hopper_owed else ""
    click.echo(f"  credits {st.credits}, hopper {st.hopper_level} coins{owed}, doors open: {doors}")
    width = max((len(name) for name, _ in st.meters), default=0)
    for name, value in st.meters:
        click.echo(f"  {name:<{width}}  {value}")


@cli.group()
def smib() -> None:
    """SMIBs (slot machine interface boards) over MQTT: the hardware link."""


@smib.command("emulate")
@click.option(
    "--id", "smib_id", required=True, help="SMIB id (= MQTT user); with --count, a prefix."
)
@click.option("--broker", "broker_url", required=True, help="mqtt://host[:port] or mqtts://...")
@click.option(
    "--ca",
    type=click.Path(exists=True, dir_okay=False),
    help="With mqtts://: the certificate of the authority that signed the broker's.",
)
@click.option(
    "--password",
    envvar="TWIN_SMIB_PASSWORD",
    default="",
    show_envvar=True,
    help="MQTT password; '{id}' in it is replaced by each SMIB's id.",
)
@click.option("--game", type=click.Path(dir_okay=False, path_type=Path), help="PAR sheet file.")
@click.option(
    "--misbehave", default="", help="e.g. drop=0.05,duplicate=0.02,reorder=0.02,delay=0.2"
)
@click.option("--count", type=click.IntRange(min=1), default=1, help="How many SMIBs (a bench).")
@click.option(
    "--events", type=click.IntRange(min=0), default=0, help="Events per SMIB, then stop (0: run)."
)
@click.option(
    "--rate", type=click.FloatRange(min=0, min_open=True), default=5.0, help="Events/s per SMIB."
)
@click.option(
    "--seed",
    type=click.IntRange(min=0),
    default=1,
    show_default=True,
    help="Seed of the emulated play (each SMIB's own stream derives from it).",
)
@click.option(
    "--state-dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Keep each SMIB's session number, event ids and events here (survives restarts).",
)
@click.option("--digits", type=click.IntRange(min=4, max=18), default=8, help="Meter width.")
@click.option(
    "--serial",
    default="",
    help="The machine's serial number ('{id}' is replaced by the SMIB id; default SN-<id>).",
)
def smib_emulate(
    smib_id: str,
    broker_url: str,
    ca: str | None,
    password: str,
    game: Path | None,
    misbehave: str,
    count: int,
    events: int,
    rate: float,
    seed: int,
    state_dir: Path | None,
    digits: int,
    serial: str,
) -> None:
    """Emulate SMIBs in front of the twin's machine model (docs/smib-protocol.md)."""
    # lazy: nothing of twin imports paho outside twin.hardware, and only this command needs it
    from twin.hardware.emulator import Misbehaviour, bench_ids, run_bench
    from twin.hardware.link import Broker
    from twin.machines.par import load_game

    try:
        broker = Broker.parse(broker_url, ca)
    except ValueError:
        raise InputError(
            "--broker", "", "mqtt://host[:port] or mqtts://host[:port]", broker_url
        ) from None
    try:
        Misbehaviour.parse(misbehave)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--misbehave") from None
    default_game = Path(__file__).with_name("data") / "scenarios" / "games" / "classic-3reel.toml"
    loaded = load_game(game if game is not None else default_game)
    if state_dir is not None:
        state_dir.mkdir(parents=True, exist_ok=True)
    ids = bench_ids(smib_id, count)
    try:
        sent = run_bench(
            ids,
            broker,
            password,
            loaded,
            misbehave=misbehave,
            events=events,
            rate=rate,
            seed=seed,
            state_dir=state_dir,
            digits=digits,
            serial=serial,
        )
    except ConnectionError as exc:
        click.echo(f"twin: error: {exc}", err=True)
        sys.exit(1)
    for smib_name, counts in sent.items():
        click.echo(f"{smib_name}: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))


#: the one line each command has in `twin --help` (click would cut its docstring with "...")
@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print the list as JSON.")
def scenarios(as_json: bool) -> None:
    """The scenarios, PAR sheets and table games shipped inside the package: each runs by its
    name from any folder (twin run singapore, twin par video-5reel, twin table
    punto-banco-8deck)."""
    import tomllib

    from twin import api

    doc: dict[str, list[dict[str, str]]] = {}
    for kind, title in (("", "scenarios"), ("games", "games"), ("tables", "tables")):
        rows = []
        for name, path in api.shipped(kind).items():
            data = tomllib.loads(path.read_text(encoding="utf-8"))
            about = data.get("scenario", data.get("game", data.get("meta", {})))
            text = str(about.get("description") or about.get("name") or "")
            rows.append({"name": name, "description": text, "path": str(path)})
        doc[title] = rows
    if as_json:
        click.echo(json.dumps(doc, indent=2))
        return
    for title, rows in doc.items():
        click.echo(f"{title}:")
        width = max((len(r["name"]) for r in rows), default=0)
        for r in rows:
            click.echo(f"  {r['name']:<{width}}  {r['description']}".rstrip())


SHORT_HELP = {
    "account": "Replay a premium-player deposit account, day by day.",
    "aml": "Measure which laundering strategies the rules catch.",
    "compare": "Compare two rulesets on the same seeds (paired).",
    "controls": "Every catalogued control and how it is covered.",
    "ledger": "Verify, export or date a run's ledger.",
    "par": "Exact analysis of a PAR sheet (game file).",
    "run": "Run a scenario: ledger, findings and summary.",
    "scenarios": "The shipped scenarios, PAR sheets and table games, by name.",
    "smib": "SMIBs over MQTT: the hardware link.",
    "state": "A machine's state at a moment, from a ledger.",
    "sweep": "Run a scenario at every point of a grid of rules.",
    "table": "Exact analysis of a table game file.",
    "ledger verify": "Check a ledger's hash chain.",
    "ledger export": "Export a ledger's records as JSON Lines or CSV.",
    "ledger retention": "Until when a run's ledger must be kept.",
    "smib emulate": "Emulate SMIBs in front of the machine model.",
}


def _short_help() -> None:
    for path, text in SHORT_HELP.items():
        group: Any = cli
        for name in path.split():
            group = group.commands[name]
        group.short_help = text


_short_help()


def main(argv: list[str] | None = None) -> Any:
    """Entry point: user mistakes become one line on stderr and exit code 2; SIGINT and
    SIGTERM one line and exit 130 or 143 (issue 33)."""
    from twin import signals

    restore = signals.install()
    try:
        return _main(argv)
    finally:
        if argv is None:  # the process's own command: Python's shutdown is not to be cut
            signals.quiet()
        else:  # called in-process (tests): the caller's handlers come back
            restore()


def _main(argv: list[str] | None) -> Any:
    from twin.signals import Interrupted, quiet, stopped_by

    try:
        return cli.main(args=argv, prog_name="twin", standalone_mode=False)
    except InputError as e:
        click.echo(f"twin: error: {e}", err=True)
        sys.exit(2)
    except click.exceptions.Abort:
        click.echo("twin: aborted", err=True)
        sys.exit(130)
    except click.ClickException as e:
        ctx: click.Context | None = getattr(e, "ctx", None)
        if type(e).__name__ == "NoArgsIsHelpError" and ctx is not None:  # `twin`, `twin ledger`
            click.echo(ctx.get_help())
            sys.exit(0)
        # `twin: error: run: ...`, not `twin: error: twin run: ...`
        sub = ctx.command_path.partition(" ")[2] if ctx is not None else ""
        where = f"{sub}: " if sub else ""
        click.echo(f"twin: error: {where}{e.format_message()}", err=True)
        sys.exit(e.exit_code)
    except (Interrupted, Exception) as e:
        stop = stopped_by(e)  # a stop, or what failed while a stop was being handled
        if stop is None:
            raise
        quiet()  # a second Ctrl-C must not cut this line short
        click.echo(f"twin: {_stopped(stop)}", err=True)
        sys.exit(stop.exit_code)


#: the folder of a run that is complete (a signal while its summary prints says so)
_WRITTEN: list[Path] = []


def _stopped(stop: Any) -> str:
    """The one line that says what a signal stopped and what it left."""
    what = f"interrupted ({stop.name})"
    if stop.out is None and _WRITTEN:
        return f"{what} after the run was complete: it is in {_WRITTEN[-1]}"
    if stop.out is None:
        return what
    if stop.complete:
        return f"{what} after the run was complete: it is in {stop.out}"
    return (f"{what}; the partial run is in {stop.out} (marked INCOMPLETE; its ledger was "
            "never closed)")  # fmt: skip
