"""``twin account``: replay a premium-player deposit account, day by day."""

from __future__ import annotations

import json
from pathlib import Path

import click

from twin.errors import InputError


@click.command()
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
    from twin.accounts.replay import replay
    from twin.accounts.report import render_text
    from twin.accounts.timeline import load_timeline, parse_date
    from twin.compliance.ruleset import load_ruleset
    from twin.premium.params import account_rules

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
    result = replay(timeline, account_rules(rules), until)
    if as_json:
        click.echo(json.dumps(result.to_json(), indent=2))
    else:
        click.echo(render_text(result, dict(timeline.overrides)))
