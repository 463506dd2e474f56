"""Ledger tools: ``twin ledger verify`` exit codes, ``twin ledger export`` and ``twin state``.

The CLI runs as real subprocesses. The key test rebuilds every machine's meters at every
meter reading of a 30-hour run from the ledger alone and compares them with the reading.
"""

from __future__ import annotations

import csv
import json
import sqlite3
import subprocess
import sys
from collections import Counter
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from twin.ledger import Ledger, read_rows, verify
from twin.machines.events import MachineException
from twin.patrons.records import PatronArrived, PatronLeft
from twin.state import MACHINE_KINDS, MachineState, machine_of, replay

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "scenarios"


def twin(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "twin", *map(str, args)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def assert_input_error(p: subprocess.CompletedProcess[str], *words: str) -> None:
    """Exit 2 with exactly one line on stderr, no traceback, naming ``words``."""
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    assert "Traceback" not in p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr
    assert lines[0].startswith("twin: error: ")
    for word in words:
        assert word in lines[0], lines[0]


def bodies(path: Path) -> list[dict[str, Any]]:
    with closing(sqlite3.connect(path)) as conn:
        return [json.loads(b) for (b,) in conn.execute("SELECT body FROM records ORDER BY seq")]


def run(out: Path, scenario: str, hours: str) -> tuple[Path, dict[str, Any]]:
    p = twin("run", SCENARIOS / scenario, "--hours", hours, "--out", out, "--json")
    assert p.returncode == 0, p.stderr
    summary: dict[str, Any] = json.loads(p.stdout)
    return out / "ledger.sqlite", summary


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A one-hour run of the 4-machine floor."""
    path, _ = run(tmp_path_factory.mktemp("tiny"), "tiny.toml", "1")
    return path


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """30 hours of the 40-machine floor: readings at install, at 06:00 and at the end."""
    return run(tmp_path_factory.mktemp("small"), "small.toml", "30")


def unclosed_ledger(path: Path, n: int, meta: dict[str, str] | None = None) -> None:
    """A ledger whose writer stopped without closing it (the run was interrupted)."""
    with pytest.raises(RuntimeError), Ledger(path, batch_size=2, meta=meta) as led:
        for i in range(n):
            led.accept(
                MachineException(seq=i, t=float(i), machine="A-001", code=0x11 + i % 2, name="door")
            )
        raise RuntimeError("the run was killed")


# -- verify ----------------------------------------------------------------------------------


def test_unclosed_ledger_exits_3_saying_how_many_rows_verify(tmp_path: Path) -> None:
    path = tmp_path / "interrupted.sqlite"
    unclosed_ledger(path, 5)
    result = verify(path)
    assert (result.ok, result.closed, result.status, result.rows) == (
        True,
        False,
        "incomplete",
        5,
    )
    p = twin("ledger", "verify", path)
    assert p.returncode == 3, p
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and p.stdout == ""
    assert "INCOMPLETE" in lines[0] and "never closed" in lines[0]
    assert "5 committed records verify" in lines[0]
    # tampering still wins over incompleteness: exit 1
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("UPDATE records SET body = replace(body, 'door', 'DOOR') WHERE seq = 2")
        conn.commit()
    p = twin("ledger", "verify", path)
    assert p.returncode == 1 and "TAMPERED" in p.stderr and "seq=2" in p.stderr


def test_closed_ledger_still_exits_0(tiny: Path) -> None:
    p = twin("ledger", "verify", tiny)
    assert p.returncode == 0, p.stderr
    assert ": OK - " in p.stdout


@pytest.mark.parametrize("head", ["abc", "g" * 64, "a" * 63, "a" * 65, "", "0x" + "a" * 62])
def test_malformed_expect_head_is_an_input_error(tiny: Path, head: str) -> None:
    p = twin("ledger", "verify", tiny, "--expect-head", head)
    assert_input_error(p, "--expect-head", "64 hexadecimal characters", repr(head))


def test_well_formed_but_wrong_expect_head_is_tampering(tiny: Path) -> None:
    p = twin("ledger", "verify", tiny, "--expect-head", "ab" * 32)
    assert p.returncode == 1 and "does not match the expected head" in p.stderr


@pytest.mark.parametrize(
    "command",
    [
        ("ledger", "verify"),
        ("ledger", "export"),
        ("ledger", "export", "--format", "csv"),
        ("state", "--machine", "A-001", "--at", "1h"),
    ],
)
def test_not_a_ledger_is_one_line_and_exit_2(tmp_path: Path, command: tuple[str, ...]) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("not a database\n")
    other = tmp_path / "other.sqlite"
    with closing(sqlite3.connect(other)) as conn:
        conn.execute("CREATE TABLE t(x)")
        conn.commit()
    broken = tmp_path / "broken.sqlite"
    broken.write_bytes(b"SQLite format 3\x00" + b"\x07" * 200)
    for path in (tmp_path / "missing.sqlite", tmp_path, text, other, broken):
        before, after = command[:2], command[2:]
        if before[0] == "state":
            before, after = ("state",), command[1:]
        assert_input_error(twin(*before, path, *after), str(path))


# -- export ----------------------------------------------------------------------------------


def test_export_jsonl_is_every_stored_body_exactly(tiny: Path) -> None:
    p = twin("ledger", "export", tiny)
    assert p.returncode == 0, p.stderr
    with closing(sqlite3.connect(tiny)) as conn:
        stored = [b for (b,) in conn.execute("SELECT body FROM records ORDER BY seq")]
    assert p.stdout.splitlines() == stored
    assert len(stored) > 40 and "games_played" in p.stdout


def expected_header(docs: list[dict[str, Any]]) -> list[str]:
    seen = dict.fromkeys(["seq", "t", "kind"])
    for doc in docs:
        for key in doc:
            seen.setdefault(key)
    return list(seen)


def decode(cell: str, original: Any) -> Any:
    """The value a reader recovers from a cell, guided by the original's type."""
    if isinstance(original, str):
        return cell
    return None if cell == "" else json.loads(cell)


def test_export_csv_round_trips_exact_values(tiny: Path, tmp_path: Path) -> None:
    out = tmp_path / "records.csv"
    p = twin("ledger", "export", tiny, "--format", "csv", "--out", out)
    assert p.returncode == 0, p.stderr
    assert p.stdout == "" and f"to {out}" in p.stderr
    assert [f.name for f in tmp_path.iterdir()] == ["records.csv"]  # no temp file left
    docs = bodies(tiny)
    with out.open(newline="", encoding="utf-8") as fh:
        reader = csv.reader(fh)
        header = next(reader)
        rows = list(reader)
    assert header == expected_header(docs)
    assert len(rows) == len(docs)
    kinds_with_lists = set()
    for row, doc in zip(rows, docs, strict=True):
        assert len(row) == len(header)
        cells = dict(zip(header, row, strict=True))
        assert int(cells["seq"]) == doc["seq"]
        assert float(cells["t"]) == doc["t"]  # exact: floats are written as their repr
        for key, value in doc.items():
            assert decode(cells[key], value) == value, (doc["seq"], key)
            if isinstance(value, list):
                kinds_with_lists.add(doc["kind"])
        assert all(cells[k] == "" for k in header if k not in doc)
    # tuples (meter readings, certificates, entities) really went through as JSON
    assert {"meters_read", "machine_installed"} <= kinds_with_lists


def test_export_kind_filter(tiny: Path) -> None:
    p = twin("ledger", "export", tiny, "--kind", "games_played", "--kind", "bill_accepted")
    assert p.returncode == 0, p.stderr
    docs = [json.loads(line) for line in p.stdout.splitlines()]
    expected = [d for d in bodies(tiny) if d["kind"] in {"games_played", "bill_accepted"}]
    assert docs == expected
    assert {d["kind"] for d in docs} == {"games_played", "bill_accepted"}

    p = twin("ledger", "export", tiny, "--kind", "meters_read", "--format", "csv")
    assert p.returncode == 0, p.stderr
    rows = list(csv.reader(p.stdout.splitlines()))
    assert rows[0] == [
        "seq",
        "t",
        "kind",
        "machine",
        "meters",
        "hopper_level",
        "registration",
        "serial",
        "asset_number",
        "program_signature",
    ]
    assert {r[2] for r in rows[1:]} == {"meters_read"}
    assert len(rows) - 1 == sum(d["kind"] == "meters_read" for d in bodies(tiny))


def test_export_unknown_kind_names_the_kinds_present(tiny: Path, tmp_path: Path) -> None:
    out = tmp_path / "x.csv"
    p = twin("ledger", "export", tiny, "--kind", "games_played", "--kind", "spin", "--out", out)
    assert_input_error(p, "--kind", "'spin'", "games_played", "meters_read", "machine_installed")
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_export_refuses_to_overwrite_the_ledger(tiny: Path) -> None:
    before = tiny.read_bytes()
    p = twin("ledger", "export", tiny, "--out", tiny)
    assert_input_error(p, "--out", "the ledger itself")
    assert tiny.read_bytes() == before


# -- state -----------------------------------------------------------------------------------


def machine_docs(path: Path, machine: str) -> list[dict[str, Any]]:
    return [
        d
        for d in (json.loads(b) for _s, _t, _k, b in read_rows(path, kinds=MACHINE_KINDS))
        if machine_of(d) == machine
    ]


def test_state_at_every_meter_reading_equals_the_reading(
    small: tuple[Path, dict[str, Any]],
) -> None:
    path, summary = small
    docs = bodies(path)
    kinds = Counter(d["kind"] for d in docs)
    # the run exercised every accounting path the replay follows
    fills = [d for d in docs if d["kind"] == "hopper_filled" and d["reason"] != "new"]
    hand = Counter(d["reason"] for d in docs if d["kind"] == "hand_paid")
    exceptions = Counter(d["name"] for d in docs if d["kind"] == "machine_exception")
    assert fills and hand["credit_payout"] and hand["progressive"] and kinds["machine_locked"]
    assert kinds["short_pay_completed"] and kinds["coins_accepted"] and kinds["bill_accepted"]
    assert exceptions["slot_door_opened"] and exceptions["hopper_empty"]
    assert kinds["tilt_repaired"]
    assert any(d["to_drop"] for d in docs if d["kind"] == "coins_accepted")  # a full hopper

    machines = sorted(summary["machines"])
    readings = [d for d in docs if d["kind"] == "meters_read"]
    assert len(readings) == 3 * len(machines)  # install, 06:00 next day, end
    assert len({d["t"] for d in readings}) == 3
    for machine in machines:
        recs = machine_docs(path, machine)
        for r in (d for d in recs if d["kind"] == "meters_read"):
            st = replay(recs, machine, at=r["t"], upto_seq=r["seq"])
            assert st.meters == tuple(tuple(m) for m in r["meters"]), (machine, r["seq"])
            assert st.hopper_level == r["hopper_level"], (machine, r["seq"])
        final = replay(recs, machine)
        assert dict(final.meters) == summary["machines"][machine]["meters"], machine
        assert final.hopper_level == summary["machines"][machine]["hopper_level"], machine


def test_state_cli_matches_readings_at_three_times(small: tuple[Path, dict[str, Any]]) -> None:
    path, summary = small
    docs = bodies(path)
    busiest = Counter(machine_of(d) for d in docs if d["kind"] == "hopper_filled").most_common(1)
    machine = busiest[0][0]
    assert machine is not None
    readings = [d for d in docs if d["kind"] == "meters_read" and machine_of(d) == machine]
    assert len(readings) == 3
    for r in readings:
        p = twin(
            "state", path, "--machine", machine, "--at", repr(r["t"]), "--at-seq", str(r["seq"])
        )
        assert p.returncode == 0, p.stderr
        p = twin(
            "state",
            path,
            "--machine",
            machine,
            "--at",
            repr(r["t"]),
            "--at-seq",
            str(r["seq"]),
            "--json",
        )
        assert p.returncode == 0, p.stderr
        doc = json.loads(p.stdout)
        assert doc["meters"] == dict(r["meters"])
        assert doc["hopper_level"] == r["hopper_level"]
        assert doc["credits"] == dict(r["meters"])["current_credits"]
        assert doc["seq"] <= r["seq"] and doc["t"] == r["t"]
    p = twin("state", path, "--machine", machine, "--json")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["meters"] == summary["machines"][machine]["meters"]


def test_state_at_accepts_seconds_hours_and_local_datetimes(
    small: tuple[Path, dict[str, Any]],
) -> None:
    path, summary = small
    assert summary["start"] == "2026-03-02T10:00:00+01:00"
    outs = []
    for at in ("18000", "5h", "300m", "2026-03-02T15:00:00", "2026-03-02T14:00:00+00:00"):
        p = twin("state", path, "--machine", "B-001", "--at", at, "--json")
        assert p.returncode == 0, p.stderr
        outs.append(json.loads(p.stdout))
    assert all(o == outs[0] for o in outs)
    assert outs[0]["t"] == 18000.0 and outs[0]["local_time"] == "2026-03-02T15:00:00+01:00"
    text = twin("state", path, "--machine", "B-001", "--at", "5h")
    assert text.returncode == 0
    assert text.stdout.startswith("B-001 at t=18000s 2026-03-02T15:00:00+01:00 (after seq ")
    assert "total_coin_in" in text.stdout and "bills_500" in text.stdout


def test_state_at_t_includes_the_records_at_t(small: tuple[Path, dict[str, Any]]) -> None:
    path, _ = small
    recs = machine_docs(path, "B-003")
    plays = [d for d in recs if d["kind"] == "games_played"]
    assert len(plays) > 3
    for play in plays[:3]:
        same_t = [d for d in recs if d["t"] == play["t"]]
        st = replay(recs, "B-003", at=play["t"], upto_seq=play["seq"])
        assert st.credits == play["credits"] and st.seq == play["seq"]
        st = replay(recs, "B-003", at=play["t"])
        assert st.seq == same_t[-1]["seq"]
        before = replay(recs, "B-003", upto_seq=play["seq"] - 1)
        assert before.meter("games_played") + play["games"] == st.meter("games_played")


def test_state_follows_doors_tilts_hand_pays_and_short_pays(
    small: tuple[Path, dict[str, Any]],
) -> None:
    path, _ = small
    docs = bodies(path)

    def at(d: dict[str, Any]) -> MachineState:
        machine = machine_of(d)
        assert machine is not None
        return replay(machine_docs(path, machine), machine, upto_seq=d["seq"])

    pending = next(d for d in docs if d.get("name") == "handpay_pending")
    assert at(pending).down == ("hand_pay",) and not at(pending).up
    opened = next(d for d in docs if d.get("name") == "slot_door_opened")
    st = at(opened)
    assert "slot" in st.doors_open and "door:slot" in st.down
    assert "down (" in st.status and "door:slot" in st.status
    tilt = next(d for d in docs if d.get("name") == "general_tilt")
    assert "tilt:general_tilt" in at(tilt).down
    empty = next(d for d in docs if d.get("name") == "hopper_empty")
    st = at(empty)
    assert "hopper_empty" in st.down and st.hopper_level == 0 and st.hopper_owed > 0
    done = next(
        d
        for d in docs
        if d["kind"] == "short_pay_completed"
        and machine_of(d) == machine_of(empty)
        and d["seq"] > empty["seq"]
    )
    assert "hopper_empty" not in at(done).down and at(done).hopper_owed == 0


def test_state_input_errors(small: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    path, _ = small
    assert_input_error(twin("state", path, "--machine", "Z-999", "--at", "1h"), "Z-999", "A-001")
    assert_input_error(twin("state", path, "--machine", "A-001", "--at", "-5"), "--at", "'-5'")
    assert_input_error(twin("state", path, "--machine", "A-001", "--at", "-1h"), "--at")
    for bad in ("soon", "5x", "2026-13-02T10:00:00", "nan", "inf"):
        assert_input_error(twin("state", path, "--machine", "A-001", "--at", bad), "--at")
    assert_input_error(
        twin("state", path, "--machine", "A-001", "--at", "2026-03-01T10:00:00"), "--at"
    )
    bare = tmp_path / "no-clock.sqlite"  # a ledger written without start/timezone meta
    unclosed_ledger(bare, 3)
    assert_input_error(
        twin("state", bare, "--machine", "A-001", "--at", "2026-03-02T15:00:00"), "start"
    )


def test_machine_of_reads_the_machine_role() -> None:
    doc = {"kind": "hopper_paid", "machine": "A-001", "patron": "P000001", "coins": 3}
    assert machine_of(doc) == "A-001"
    assert machine_of({"kind": "patron_left", "patron": "P000002", "machine": ""}) is None
    rec = MachineException(seq=0, t=0.0, machine="A-002", staff="TEC-1", code=0x11, name="x")
    assert machine_of(rec) == "A-002"
    left = PatronLeft(seq=1, t=0.0, patron="P1", machine="A-002", reason="done", spent_cents=0)
    assert machine_of(left) == "A-002"
    arrived = PatronArrived(
        seq=2, t=0.0, patron="P1", segment="x", bankroll_cents=1, visit=1, residency=""
    )
    assert machine_of(arrived) is None


# -- issue 33 --------------------------------------------------------------------------------


def test_exporting_a_tampered_ledger_warns_and_still_exports(tiny: Path, tmp_path: Path) -> None:
    """It used to export in silence: now one warning line on stderr (the verify line), the
    records all the same (exit 0: an export is how one examines a tampered ledger)."""
    copy = tmp_path / "tampered.sqlite"
    copy.write_bytes(tiny.read_bytes())
    with closing(sqlite3.connect(copy)) as conn:
        conn.execute("UPDATE records SET body = replace(body, '\"t\":', '\"t\": ') WHERE seq = 5")
        conn.commit()
    p = twin("ledger", "export", copy)
    assert p.returncode == 0, p.stderr
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("twin: warning: ") and "TAMPERED" in lines[0]
    assert "seq=5" in lines[0] and "exported all the same" in lines[0]
    assert len(p.stdout.splitlines()) == len(bodies(tiny))
    clean = twin("ledger", "export", tiny)
    assert clean.returncode == 0 and clean.stderr == ""


@pytest.mark.parametrize("keep", [10, 100, 0.5], ids=["10 bytes", "the header", "half"])
def test_a_truncated_ledger_is_reported_as_truncated(
    tiny: Path, tmp_path: Path, keep: float
) -> None:
    """A ledger cut short (a copy that stopped) was "not an SQLite database" or "database
    disk image is malformed": now it is named truncated, for every command that reads it."""
    raw = tiny.read_bytes()
    cut = tmp_path / "cut.sqlite"
    cut.write_bytes(raw[: int(keep * len(raw)) if keep < 1 else int(keep)])
    for args in (("ledger", "verify", cut), ("ledger", "export", cut)):
        p = twin(*args)
        assert_input_error(p, str(cut), "truncated")
        assert "not an SQLite" not in p.stderr and "malformed" not in p.stderr
