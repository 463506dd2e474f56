"""``twin smib``: SMIBs over MQTT (the hardware link; imported lazily, no MQTT here)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from twin.cli.options import broker_ca, sas_address, smib_password
from twin.errors import InputError


@click.group()
def smib() -> None:
    """SMIBs (slot machine interface boards) over MQTT: the hardware link."""


#: ``--misbehave``'s help (the keys of :class:`twin.hardware.misbehaviour.Misbehaviour`; kept
#: here so that ``--help`` imports nothing of paho)
MISBEHAVE_HELP = (
    "Comma-separated switches: drop, duplicate, reorder=P (probability per message); "
    "delay=S (most seconds a message waits); reset_at=N (meters cleared after activity N); "
    "die_at=N (power cut after activity N); skew=N (coin-in counts N more per stretch, "
    "unsaid); short_credit=N (N credits less per bill); keep=N (only the last N events held "
    "for replay); drop_eids=A-B or A (the first sending of those events lost); cmd_delay=S "
    "(every command handled S seconds after it arrives); regress_at=N[,regress_to=M] (at "
    "activity N the board loses power and comes back from a backup taken after activity M, "
    "default N // 2: its bd and eids go back); phantom_at=N[,phantom_bytes=B] (after "
    "activity N a forged slot_door_opened event of about B bytes, default 2000000, under the "
    "next eid). E.g. drop=0.05,duplicate=0.02,reorder=0.02,delay=0.2"
)


@smib.command("emulate")
@click.option(
    "--id", "smib_id", required=True, help="SMIB id (= MQTT user); with --count, a prefix."
)
@click.option("--broker", "broker_url", required=True, help="mqtt://host[:port] or mqtts://...")
@broker_ca
@smib_password
@click.option("--game", type=click.Path(dir_okay=False, path_type=Path), help="PAR sheet file.")
@click.option("--misbehave", default="", help=MISBEHAVE_HELP)
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
@click.option(
    "--truth",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write what the SMIBs really created here (JSON Lines: events, births, restores), "
    "for `twin smib compare`.",
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
    truth: Path | None,
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
            truth=truth,
        )
    except ConnectionError as exc:
        click.echo(f"twin: error: {exc}", err=True)
        sys.exit(1)
    for smib_name, counts in sent.items():
        click.echo(f"{smib_name}: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))


@smib.command("compare", short_help="Check a ledger against what emulated SMIBs sent.")
@click.argument("ledger_path", metavar="LEDGER", type=click.Path(path_type=Path))
@click.option(
    "--truth",
    "truth_path",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The truth file `twin smib emulate --truth` wrote.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the comparison as one JSON object.")
def smib_compare(ledger_path: Path, truth_path: Path, as_json: bool) -> None:
    """Check a run's ledger against what emulated SMIBs really sent: every event applied
    exactly once or declared (lost, a conflict), nothing applied that was never sent.

    LEDGER: a run folder, an .incomplete one, or a ledger file. Exit 0 when nothing is
    missing, doubled or undeclared, 1 when something is, 2 for bad input.
    """
    from twin.hardware.truth import compare_files

    result = compare_files(ledger_path, truth_path)
    if as_json:
        click.echo(json.dumps(result.to_json(), sort_keys=True))
    else:
        click.echo(result.render(), nl=False)
    sys.exit(0 if result.ok else 1)


@smib.command("bridge")
@click.option(
    "--sas",
    "port",
    required=True,
    help="The SAS line: a serial port (e.g. /dev/ttyUSB0) or a pty's path (/dev/pts/N, as "
    "`twin sas serve --pty` prints).",
)
@click.option(
    "--broker",
    "broker_url",
    required=True,
    help="mqtt[s]://[user[:password]@]host[:port]; the password may instead come from --password.",
)
@click.option("--smib", "smib_id", required=True, help="SMIB id (= MQTT user and client id).")
@sas_address
@click.option(
    "--state",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Keep the session number, event ids, events and last meters here (survives "
    "restarts; a restart reports what the meters did meanwhile).",
)
@click.option(
    "--interval",
    type=click.FloatRange(min=0.001),
    default=0.04,
    show_default=True,
    help="Seconds between general polls.",
)
@click.option(
    "--meter-interval",
    type=click.FloatRange(min=0.001),
    default=0.25,
    show_default=True,
    help="Seconds between meter reads while the machine reports no exception.",
)
@broker_ca
@smib_password
@click.option(
    "--seconds",
    type=click.FloatRange(min=0),
    default=0.0,
    help="Run this long, then stop cleanly (0: until SIGINT or SIGTERM).",
)
def smib_bridge(
    port: str,
    broker_url: str,
    smib_id: str,
    address: int,
    state: Path | None,
    interval: float,
    meter_interval: float,
    ca: str | None,
    password: str,
    seconds: float,
) -> None:
    """Be the SMIB of a SAS gaming machine: poll it on a serial line and speak the MQTT
    contract of docs/smib-protocol.md ("The reference SMIB"). On exit print one line: polls,
    silences, bad CRC, events."""
    import os
    import time
    from urllib.parse import unquote, urlparse

    from twin.hardware.board import Memory
    from twin.hardware.link import Broker
    from twin.hardware.sas.bridge import SasBridge

    try:
        broker = Broker.parse(broker_url, ca)
    except ValueError:
        raise InputError(
            "--broker", "", "mqtt://host[:port] or mqtts://host[:port]", broker_url
        ) from None
    url = urlparse(broker_url)
    password = unquote(url.password) if url.password else password.replace("{id}", smib_id)
    try:
        memory = Memory.load(state) if state is not None else Memory()
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise InputError(
            str(state), "", "a bridge state file (JSON: bd, eid, epoch, events, machine)", exc
        ) from None
    try:
        bridge = SasBridge(
            smib_id, broker, password, port, address=address, memory=memory,
            interval=interval, meter_interval=meter_interval,
        )  # fmt: skip
    except OSError as exc:  # pyserial's SerialException too
        found = os.strerror(exc.errno) if isinstance(exc.errno, int) else str(exc)
        raise InputError(port, "", "a SAS port that can be opened", found) from None
    try:
        bridge.start()
        deadline = time.monotonic() + 15
        while not bridge.born.is_set():  # connected, ROM checked and birth sent
            if bridge.refused or time.monotonic() > deadline:
                why = bridge.refused[0] if bridge.refused else "no answer"
                raise ConnectionError(f"SMIB {smib_id}: cannot connect to the broker ({why})")
            time.sleep(0.05)
        i = bridge.identity
        click.echo(
            f"SMIB {smib_id}: SAS address {address} on {port}: serial {i.serial}, "
            f"program {i.program}, denomination {i.denom_cents} cents, paytable {i.paytable}"
        )
        sys.stdout.flush()  # said once connected: a watcher may wait for this line
        end = time.monotonic() + seconds if seconds else None
        while end is None or time.monotonic() < end:
            time.sleep(0.05)
    except ConnectionError as exc:
        click.echo(f"twin: error: {exc}", err=True)
        sys.exit(1)
    finally:
        bridge.stop()
        s = bridge.stats()
        click.echo(
            f"SMIB {smib_id}: polls {s['polls']}, silences {s['silences']}, "
            f"bad CRC {s['bad_crc']}, events {s['events']}"
        )
        sys.stdout.flush()
