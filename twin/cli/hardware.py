"""``twin smib``: SMIBs over MQTT (the hardware link; imported lazily, no MQTT here)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from twin.errors import InputError


@click.group()
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
    from twin.hardware.bench import bench_ids, run_bench
    from twin.hardware.emulator import Misbehaviour
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
    default_game = Path(__file__).parents[1] / "data" / "scenarios" / "games" / "classic-3reel.toml"
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
