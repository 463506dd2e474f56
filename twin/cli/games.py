"""``twin par`` and ``twin table``: exact analysis of a PAR sheet and of a table game."""

from __future__ import annotations

import json
from pathlib import Path

import click


@click.command()
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


@click.command()
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
