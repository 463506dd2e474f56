"""``twin sas``: the twin's machines as SAS gaming machines on serial lines (imported lazily:
nothing of pyserial or the SAS package here)."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

import click

from twin.cli.options import sas_address
from twin.errors import InputError

if TYPE_CHECKING:
    from twin.hardware.sas.line import FdWire, SasLine
    from twin.hardware.sas.pty import PtyPair
    from twin.machines.par import Game


@click.group()
def sas() -> None:
    """SAS gaming machines on a serial line."""


@sas.command("serve")
@click.option(
    "--port",
    help="Serial port of the line (e.g. /dev/ttyUSB0): 19,200 baud, wakeup bit as parity.",
)
@click.option(
    "--pty",
    "use_pty",
    is_flag=True,
    help="Serve on a new pseudo-terminal pair and print the host's end (a path).",
)
@sas_address
@click.option("--game", type=click.Path(dir_okay=False, path_type=Path), help="PAR sheet file.")
@click.option(
    "--seed",
    type=click.IntRange(min=0),
    default=1,
    show_default=True,
    help="Seed of the simulated patron's play.",
)
@click.option(
    "--rate",
    type=click.FloatRange(min=0),
    default=5.0,
    show_default=True,
    help="Patron activities a second (a bill, a stretch of games, a cash out); 0: no play.",
)
@click.option(
    "--seconds",
    type=click.FloatRange(min=0),
    default=0.0,
    help="Serve this long, then print the statistics and exit (0: until interrupted).",
)
def sas_serve(
    port: str | None,
    use_pty: bool,
    address: int,
    game: Path | None,
    seed: int,
    rate: float,
    seconds: float,
) -> None:
    """Serve a twin machine, played like a patron, as a SAS gaming machine on a serial line
    or a pseudo-terminal. On exit (Ctrl-C, or --seconds) print the polls it saw and its
    reply times (median, p99, max) against the 20 ms deadline."""
    if (port is None) == (not use_pty):
        raise InputError(
            "--port/--pty", "", "exactly one of --port PATH or --pty", "both" if port else "none"
        )
    from twin.hardware.sas.line import open_serial
    from twin.hardware.sas.pty import open_pty
    from twin.machines.par import load_game

    default_game = Path(__file__).parents[1] / "data" / "scenarios" / "games" / "classic-3reel.toml"
    loaded = load_game(game if game is not None else default_game)
    pair: PtyPair | None = None
    wire: FdWire
    if port is not None:
        try:
            wire = open_serial(port)
        except Exception as exc:  # OSError, serial.SerialException
            raise InputError(port, "", "a serial port that can be opened", str(exc)) from None
    else:
        pair = open_pty()
        wire = pair.machine_wire()
    try:
        _serve(wire, pair, port, address, loaded, seed, rate, seconds)
    finally:
        wire.close()
        if pair is not None:
            pair.close()


def _serve(
    wire: FdWire,
    pair: PtyPair | None,
    port: str | None,
    address: int,
    game: Game,
    seed: int,
    rate: float,
    seconds: float,
) -> None:
    from twin.hardware.sas import serve as s

    accounts = s.new_accounts()
    lock = threading.RLock()
    machine, hook = s.make_machine(accounts, address=address, game=game, lock=lock)
    patron = s.Patron(accounts, game, seed=seed, lock=lock, on_event=hook)
    # the line thread gets the interpreter back within 0.5 ms of a poll's arrival while the
    # patron plays (Python's default switch interval, 5 ms, is a quarter of the deadline)
    sys.setswitchinterval(0.0005)
    stop = threading.Event()
    started: tuple[SasLine, list[threading.Thread]] | None = None
    try:
        started = s.serve(wire, machine, stop, patron=patron, rate=rate)
        # said once the machine answers: a host may poll as soon as it reads this line
        if pair is not None:
            click.echo(f"pty: {pair.host_path}, address {address}")
        else:
            click.echo(f"port: {port} (19200 baud, space parity, PARMRK), address {address}")
        sys.stdout.flush()
        end = time.monotonic() + seconds if seconds else None
        while not stop.wait(0.1):
            if end is not None and time.monotonic() >= end:
                break
    finally:
        if started is not None:
            line, threads = started
            stats = s.finish(stop, threads, line)
            click.echo(f"activities: {patron.activities}")
            click.echo(stats.render(), nl=False)
            sys.stdout.flush()
