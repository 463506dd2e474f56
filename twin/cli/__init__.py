"""The ``twin`` command line: run a scenario, analyse a PAR sheet, replay a premium-player
deposit account, verify a ledger.

Exit codes: 0 success; 1 a check failed (a tampered ledger); 2 invalid input, reported as
one line on stderr that names the file or argument, the key, what was expected and what
was found — never a traceback for a user's mistake; 3 a ledger whose rows all verify but
that was never closed (an interrupted run).

One module per command group: :mod:`.running` (``run``), :mod:`.studies` (``compare``, ``aml``,
``sweep``), :mod:`.games` (``par``, ``table``), :mod:`.accounts` (``account``), :mod:`.catalog`
(``controls``, ``scenarios``), :mod:`.ledgers` (``ledger``, ``state``) and :mod:`.hardware`
(``smib``); :mod:`.options` holds the options they share. This module is the group, its
plugins and :func:`main`.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from twin.cli.accounts import account
from twin.cli.catalog import controls, scenarios
from twin.cli.games import par, table
from twin.cli.hardware import smib
from twin.cli.ledgers import ledger, state
from twin.cli.running import WRITTEN, run
from twin.cli.sas import sas
from twin.cli.studies import aml, compare, sweep
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


@click.group(cls=PluginGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="casino-twin")
def cli() -> None:
    """Casino floor digital twin: a seeded SimPy model of a casino and its regulation."""


for _command in (
    run, par, table, account, controls, scenarios, compare, aml, sweep, ledger, state, smib, sas
):  # fmt: skip
    cli.add_command(_command)

#: the one line each command has in `twin --help` (click would cut its docstring with "...")
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
    "smib bridge": "Be the SMIB of a SAS gaming machine (SAS to MQTT).",
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
        try:
            return _main(argv)
        finally:
            if argv is None:  # the process's own command: Python's shutdown is not to be cut
                signals.quiet()
            else:  # called in-process (tests): the caller's handlers come back
                restore()
    except signals.Interrupted as stop:  # it came as the command returned: still one line
        if argv is None:
            signals.quiet()
        click.echo(f"twin: {stop_line(stop)}", err=True)
        sys.exit(stop.exit_code)


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
        click.echo(f"twin: {stop_line(stop)}", err=True)
        sys.exit(stop.exit_code)


def stop_line(stop: Any) -> str:
    """The one line that says what a signal stopped and what it left (also for a signal
    that comes as the command returns, caught by ``python -m twin`` itself)."""
    what = f"interrupted ({stop.name})"
    if stop.out is None and WRITTEN:
        return f"{what} after the run was complete: it is in {WRITTEN[-1]}"
    if stop.out is None:
        return what
    if stop.complete:
        return f"{what} after the run was complete: it is in {stop.out}"
    return (f"{what}; the partial run is in {stop.out} (marked INCOMPLETE; its ledger was "
            "never closed)")  # fmt: skip
