"""``twin ledger`` (verify, export, retention) and ``twin state``: reading a run's ledger."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Literal

import click

from twin.errors import InputError


@click.group()
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


@click.command()
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
