"""Tests of the hash-chained SQLite ledger: round trip, determinism, tampering, killed runs."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

import pytest

from twin.errors import InputError
from twin.ledger import (
    FORMAT_VERSION,
    GENESIS,
    Ledger,
    VerifyResult,
    chain_hash,
    format_result,
    read,
    verify,
)
from twin.records import Record, RecordBus, Sink, record

REPO = Path(__file__).resolve().parents[1]


@record("test_ledger_spin", roles=("machine", "player"))
class Spin(Record):
    """A slot game round, with the ~8 flat fields of a realistic record."""

    machine: str
    player: str
    bet: int
    win: int
    credits_before: int
    credits_after: int
    symbols: tuple[str, ...]
    bonus: bool


@record("test_ledger_tick")
class Tick(Record):
    """A minimal record (also written by the killed subprocess)."""

    n: int


def spins(n: int, *, win_of: int | None = None, win: int = 0) -> list[Spin]:
    """``n`` deterministic spins; the spin ``win_of`` gets ``win`` as its win."""
    out = []
    for i in range(n):
        credits = 100_000 - 50 * i
        out.append(
            Spin(
                seq=i,
                t=i * 2.5,
                machine=f"egm-{i % 7}",
                player=f"p-{i % 3}",
                bet=100,
                win=win if i == win_of else (i % 5) * 40,
                credits_before=credits,
                credits_after=credits - 100 + (i % 5) * 40,
                symbols=("7", "BAR", "CHERRY") if i % 2 else ("BAR", "BAR", "BELL"),
                bonus=i % 11 == 0,
            )
        )
    return out


def write(
    path: Path,
    recs: list[Spin] | list[Tick],
    *,
    batch_size: int = 4096,
    meta: dict[str, str] | None = None,
) -> str:
    """Write ``recs`` to a new closed ledger at ``path`` and return its head."""
    led = Ledger(path, batch_size=batch_size, meta=meta)
    for rec in recs:
        led.accept(rec)
    led.close()
    return led.head


@contextmanager
def raw(path: Path) -> Iterator[sqlite3.Connection]:
    """A plain sqlite3 connection for tampering; commits and closes on exit."""
    with closing(sqlite3.connect(path)) as conn:
        yield conn
        conn.commit()


def row(conn: sqlite3.Connection, seq: int) -> tuple[float, str, str, str]:
    found: tuple[float, str, str, str] | None = conn.execute(
        "SELECT t, kind, body, hash FROM records WHERE seq=?", (seq,)
    ).fetchone()
    assert found is not None
    return found


def shift_up(conn: sqlite3.Connection, from_seq: int) -> None:
    """Renumber rows seq >= from_seq to seq + 1 (two steps: seq is the primary key)."""
    conn.execute("UPDATE records SET seq = -(seq + 1) WHERE seq >= ?", (from_seq,))
    conn.execute("UPDATE records SET seq = -seq WHERE seq < 0")


def assert_tampered(result: VerifyResult, seq: int | None, *words: str) -> None:
    assert not result.ok, result
    assert result.head is None
    assert result.seq == seq, result
    assert result.problem is not None
    for word in words:
        assert word in result.problem, result.problem


N = 200


@pytest.fixture
def ledger(tmp_path: Path) -> Path:
    path = tmp_path / "run.ledger"
    write(path, spins(N), batch_size=32)
    return path


# -- writing and reading ----------------------------------------------------------------------


def test_round_trip(tmp_path: Path) -> None:
    recs = spins(1000)
    path = tmp_path / "run.ledger"
    head = write(path, recs, batch_size=64, meta={"scenario": "friday-night", "seed": "42"})
    assert list(read(path)) == recs
    result = verify(path)
    assert result == VerifyResult(True, 1000, head, None, None, True)
    with closing(sqlite3.connect(path)) as conn:
        meta = dict(conn.execute("SELECT key, value FROM meta"))
        columns = [c[1] for c in conn.execute("PRAGMA table_info(records)")]
    assert columns == ["seq", "t", "kind", "body", "hash"]
    assert meta["scenario"] == "friday-night"
    assert meta["seed"] == "42"
    assert meta["format_version"] == FORMAT_VERSION
    assert meta["created_by"].startswith("casino-twin ")
    assert (meta["closed"], meta["head"], meta["records"]) == ("true", head, "1000")
    # A closed ledger is a single self-contained file.
    assert not (tmp_path / "run.ledger-wal").exists()


def test_rows_are_canonical_json_chained_as_documented(ledger: Path) -> None:
    recs = spins(N)
    prev = hashlib.sha256(b"casino-twin-ledger/v1").hexdigest()
    assert prev == GENESIS
    with closing(sqlite3.connect(ledger)) as conn:
        rows = conn.execute("SELECT seq, t, kind, body, hash FROM records ORDER BY seq").fetchall()
    assert len(rows) == N
    for rec, (seq, t, kind, body, stored) in zip(recs, rows, strict=True):
        assert (seq, t, kind, body) == (rec.seq, rec.t, "test_ledger_spin", rec.to_json())
        prev = hashlib.sha256(bytes.fromhex(prev) + body.encode()).hexdigest()
        assert stored == prev
    assert verify(ledger).head == prev


def test_head_is_deterministic_and_sensitive_to_one_value(tmp_path: Path) -> None:
    a = write(tmp_path / "a.ledger", spins(500), batch_size=100)
    b = write(tmp_path / "b.ledger", spins(500), batch_size=7)
    c = write(tmp_path / "c.ledger", spins(500, win_of=321, win=41), batch_size=100)
    assert a == b
    assert a != c
    assert len(a) == 64
    assert int(a, 16) >= 0


def test_empty_ledger(tmp_path: Path) -> None:
    path = tmp_path / "empty.ledger"
    assert write(path, []) == GENESIS
    assert verify(path) == VerifyResult(True, 0, GENESIS, None, None, True)
    assert list(read(path)) == []


def test_ledger_is_a_sink_on_the_record_bus(tmp_path: Path) -> None:
    path = tmp_path / "bus.ledger"
    led = Ledger(path, batch_size=3)
    sink: Sink = led
    clock = iter(range(100))
    bus = RecordBus(lambda: float(next(clock)), [sink])
    emitted = [bus.emit(Tick, n=i) for i in range(10)]
    assert led.count == 10
    assert led.committed == 9
    bus.close()
    assert led.closed
    assert list(read(path)) == emitted
    assert verify(path).head == led.head


def test_ledger_may_start_at_a_later_seq(tmp_path: Path) -> None:
    path = tmp_path / "late.ledger"
    recs = [Tick(seq=i, t=float(i), n=i) for i in range(5, 25)]
    write(path, recs, batch_size=4)
    result = verify(path)
    assert result.ok
    assert result.rows == 20
    with raw(path) as conn:
        conn.execute("DELETE FROM records WHERE seq=5")
    assert_tampered(verify(path), 5, "row seq=5 is missing (deleted)")


def test_refuses_non_contiguous_seq_reserved_meta_and_closed(tmp_path: Path) -> None:
    led = Ledger(tmp_path / "x.ledger")
    led.accept(Tick(seq=0, t=0.0, n=0))
    with pytest.raises(ValueError, match="expected 1, got 2"):
        led.accept(Tick(seq=2, t=0.0, n=0))
    led.close()
    led.close()  # idempotent
    with pytest.raises(ValueError, match="closed"):
        led.accept(Tick(seq=1, t=0.0, n=0))
    with pytest.raises(ValueError, match="reserved"):
        Ledger(tmp_path / "y.ledger", meta={"head": "x"})
    with pytest.raises(ValueError, match="batch_size"):
        Ledger(tmp_path / "z.ledger", batch_size=0)


def test_context_manager(tmp_path: Path) -> None:
    ok_path = tmp_path / "ok.ledger"
    with Ledger(ok_path) as led:
        led.accept(Tick(seq=0, t=0.0, n=0))
    assert verify(ok_path).closed

    failed_path = tmp_path / "failed.ledger"
    with pytest.raises(RuntimeError), Ledger(failed_path) as led:
        led.accept(Tick(seq=0, t=0.0, n=0))
        raise RuntimeError("the run crashed")
    result = verify(failed_path)
    assert (result.ok, result.closed, result.rows) == (True, False, 1)


# -- refusing and rejecting files ------------------------------------------------------------


def test_refuses_to_overwrite_an_existing_ledger(ledger: Path) -> None:
    before = verify(ledger)
    with pytest.raises(InputError) as err:
        Ledger(ledger)
    assert str(ledger) in str(err.value)
    assert "an existing ledger" in str(err.value)
    assert err.value.exit_code == 2
    assert verify(ledger) == before


def test_refuses_to_overwrite_any_non_empty_file_but_reuses_an_empty_one(tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("keep me\n")
    with pytest.raises(InputError, match="existing file"):
        Ledger(text)
    assert text.read_text() == "keep me\n"
    empty = tmp_path / "touched.ledger"
    empty.touch()
    write(empty, spins(3))
    assert verify(empty).rows == 3


def test_unwritable_path_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="writable ledger path"):
        Ledger(tmp_path / "no" / "such" / "dir" / "run.ledger")
    with pytest.raises(InputError, match="a directory"):
        Ledger(tmp_path)


def test_not_a_ledger_is_an_input_error(tmp_path: Path) -> None:
    missing = tmp_path / "missing.ledger"
    text = tmp_path / "notes.ledger"
    text.write_text("this is not a database\n" * 10)
    other = tmp_path / "other.sqlite"
    with closing(sqlite3.connect(other)) as conn:
        conn.execute("CREATE TABLE t(x)")
        conn.commit()
    foreign = tmp_path / "foreign.sqlite"
    with closing(sqlite3.connect(foreign)) as conn:
        conn.execute("CREATE TABLE records(seq INTEGER PRIMARY KEY, body TEXT)")
        conn.execute("CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT)")
        conn.execute("INSERT INTO meta VALUES ('format', 'something-else')")
        conn.commit()
    for path in (missing, text, other, foreign, tmp_path):
        with pytest.raises(InputError) as err:
            verify(path)
        assert str(path) in str(err.value)
        with pytest.raises(InputError):
            read(path)


def test_read_of_an_unknown_kind_is_an_input_error(ledger: Path) -> None:
    with raw(ledger) as conn:
        conn.execute(
            "UPDATE records SET body = replace(body, 'test_ledger_spin', 'no_such_kind') "
            "WHERE seq=3"
        )
    with pytest.raises(InputError, match="row seq=3"):
        list(read(ledger))


# -- tampering -------------------------------------------------------------------------------


def test_changed_amount_is_named(ledger: Path) -> None:
    with raw(ledger) as conn:
        _, _, body, _ = row(conn, 57)
        doc = json.loads(body)
        assert '"win":80,' in body and doc["win"] == 80
        tampered = body.replace('"win":80,', '"win":8000,')
        conn.execute("UPDATE records SET body=? WHERE seq=57", (tampered,))
    result = verify(ledger)
    assert_tampered(result, 57, "row seq=57: body does not match its hash (changed)")
    message, code = format_result(result, ledger)
    assert code == 1
    assert "TAMPERED" in message and "seq=57" in message and str(ledger) in message
    assert "\n" not in message


def test_changed_last_row_is_named(ledger: Path) -> None:
    with raw(ledger) as conn:
        conn.execute(
            "UPDATE records SET body = replace(body, '\"bet\":100', '\"bet\":1') WHERE seq=?",
            (N - 1,),
        )
    assert_tampered(verify(ledger), N - 1, f"row seq={N - 1}: body does not match its hash")


def test_deleted_row_is_named(ledger: Path) -> None:
    with raw(ledger) as conn:
        conn.execute("DELETE FROM records WHERE seq=120")
    assert_tampered(verify(ledger), 120, "row seq=120 is missing (deleted)")


def test_deleted_rows_are_named(ledger: Path) -> None:
    with raw(ledger) as conn:
        conn.execute("DELETE FROM records WHERE seq BETWEEN 10 AND 12")
    assert_tampered(verify(ledger), 10, "rows seq=10..12 are missing (deleted)")


def test_deleted_first_row_is_named(ledger: Path) -> None:
    with raw(ledger) as conn:
        conn.execute("DELETE FROM records WHERE seq=0")
    assert_tampered(verify(ledger), 0, "row seq=0 is missing (deleted)")


def test_deleted_and_renumbered_row_is_detected(ledger: Path) -> None:
    with raw(ledger) as conn:
        conn.execute("DELETE FROM records WHERE seq=80")
        conn.execute("UPDATE records SET seq = seq - 1 WHERE seq > 80")
    result = verify(ledger)
    assert_tampered(result, 80)


def test_inserted_row_with_a_forged_chain_hash_is_named(ledger: Path) -> None:
    with raw(ledger) as conn:
        _, _, _, prev_hash = row(conn, 99)
        shift_up(conn, 100)
        forged = Spin(
            seq=100, t=249.0, machine="egm-0", player="p-9", bet=100,
            win=1_000_000, credits_before=0, credits_after=999_900, symbols=("7", "7", "7"),
            bonus=True,
        ).to_json()  # fmt: skip
        conn.execute(
            "INSERT INTO records VALUES (100, 249.0, 'test_ledger_spin', ?, ?)",
            (forged, chain_hash(prev_hash, forged)),
        )
    assert_tampered(verify(ledger), 100, "row seq=100 was inserted")


def test_inserted_row_with_a_junk_hash_is_named(ledger: Path) -> None:
    with raw(ledger) as conn:
        t, kind, body, _ = row(conn, 40)
        shift_up(conn, 41)
        conn.execute(
            "INSERT INTO records VALUES (41, ?, ?, ?, ?)",
            (t, kind, body.replace('"seq":40,', '"seq":41,'), "ab" * 32),
        )
    assert_tampered(verify(ledger), 41, "row seq=41 was inserted")


def test_row_appended_after_close_is_named(ledger: Path) -> None:
    with raw(ledger) as conn:
        _, _, _, last_hash = row(conn, N - 1)
        extra = Tick(seq=N, t=1e6, n=1).to_json()
        conn.execute(
            "INSERT INTO records VALUES (?, 1e6, 'test_ledger_tick', ?, ?)",
            (N, extra, chain_hash(last_hash, extra)),
        )
    assert_tampered(verify(ledger), N, f"row seq={N} was inserted after the ledger was closed")


def test_swapped_rows_are_named_as_reordered(ledger: Path) -> None:
    with raw(ledger) as conn:
        a = row(conn, 70)
        b = row(conn, 71)
        update = "UPDATE records SET t=?, kind=?, body=?, hash=? WHERE seq=?"
        conn.execute(update, (*b, 70))
        conn.execute(update, (*a, 71))
    assert_tampered(verify(ledger), 70, "row seq=70 is out of order", "reordered")


def test_truncated_closed_ledger_is_detected(ledger: Path) -> None:
    with raw(ledger) as conn:
        conn.execute("DELETE FROM records WHERE seq >= ?", (N - 3,))
    result = verify(ledger)
    assert_tampered(result, N - 4, f"rows after seq={N - 4} were removed")
    assert result.rows == N - 3


def test_fully_truncated_closed_ledger_is_detected(ledger: Path) -> None:
    with raw(ledger) as conn:
        conn.execute("DELETE FROM records")
    assert_tampered(verify(ledger), None, "all rows were removed")


def test_edited_hash_column_is_named(ledger: Path) -> None:
    with raw(ledger) as conn:
        conn.execute("UPDATE records SET hash=? WHERE seq=150", (hashlib.sha256(b"x").hexdigest(),))
    assert_tampered(verify(ledger), 150, "row seq=150: hash column changed")


def test_edited_hash_of_last_row_is_named(ledger: Path) -> None:
    with raw(ledger) as conn:
        conn.execute("UPDATE records SET hash='00' WHERE seq=?", (N - 1,))
    assert_tampered(verify(ledger), N - 1, f"row seq={N - 1}: hash column changed")


def test_unparsable_body_is_named(ledger: Path) -> None:
    with raw(ledger) as conn:
        conn.execute("UPDATE records SET body='{\"seq\": 33, oops' WHERE seq=33")
    assert_tampered(verify(ledger), 33, "row seq=33: body is not valid JSON")


def test_edited_t_column_is_named(ledger: Path) -> None:
    with raw(ledger) as conn:
        conn.execute("UPDATE records SET t = t + 1 WHERE seq=12")
    assert_tampered(verify(ledger), 12, "row seq=12: t column")


def rechain(conn: sqlite3.Connection) -> str:
    """Recompute every hash and the meta head, as a forger who knows the format would."""
    prev = GENESIS
    for seq, body in conn.execute("SELECT seq, body FROM records ORDER BY seq").fetchall():
        prev = chain_hash(prev, body)
        conn.execute("UPDATE records SET hash=? WHERE seq=?", (prev, seq))
    conn.execute("UPDATE meta SET value=? WHERE key='head'", (prev,))
    return prev


def test_body_whose_seq_differs_from_its_row_is_named(ledger: Path) -> None:
    with raw(ledger) as conn:
        conn.execute(
            "UPDATE records SET body = replace(body, '\"seq\":90,', '\"seq\":9,') WHERE seq=90"
        )
        rechain(conn)
    assert_tampered(verify(ledger), 90, "row seq=90: its body says seq=9")


def test_rewritten_ledger_is_only_caught_by_the_published_head(ledger: Path) -> None:
    published = verify(ledger).head
    assert published is not None
    with raw(ledger) as conn:
        conn.execute(
            "UPDATE records SET body = replace(body, '\"win\":0,', '\"win\":5000,') WHERE seq=25"
        )
        forged_head = rechain(conn)
    assert verify(ledger).ok  # self-consistent forgery...
    assert verify(ledger, expected_head=published.upper()).ok is False  # ...but not the head
    result = verify(ledger, expected_head=published)
    assert_tampered(result, N - 1, "does not match the expected head")
    assert forged_head in (result.problem or "")


# -- killed runs -----------------------------------------------------------------------------

KILLED_WRITER = textwrap.dedent(
    """
    import os, signal, sys
    from twin.ledger import Ledger
    from twin.records import Record, record

    @record("test_ledger_tick")
    class Tick(Record):
        n: int

    led = Ledger(sys.argv[1], batch_size=10, meta={"scenario": "killed"})
    for i in range(37):
        led.accept(Tick(seq=i, t=float(i), n=i))
    print(led.committed, led.count, flush=True)
    os.kill(os.getpid(), signal.SIGKILL)
    """
)


def test_killed_writer_leaves_a_ledger_that_verifies_up_to_its_last_batch(tmp_path: Path) -> None:
    path = tmp_path / "killed.ledger"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
    }
    proc = subprocess.run(
        [sys.executable, "-c", KILLED_WRITER, str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    assert proc.stdout.split() == ["30", "37"]

    result = verify(path)
    assert (result.ok, result.closed, result.rows, result.problem) == (True, False, 30, None)
    expected = [Tick(seq=i, t=float(i), n=i) for i in range(30)]
    assert result.head == write(tmp_path / "reference.ledger", expected)
    assert list(read(path)) == expected

    assert (result.status, result.complete) == ("incomplete", False)
    message, code = format_result(result, path)
    assert code == 3  # distinct from tampered (1): every row chains, but the run stopped early
    assert "\n" not in message
    assert "INCOMPLETE" in message and "never closed" in message
    assert "30 committed records verify" in message
    # A killed ledger is never mistaken for a new path.
    with pytest.raises(InputError):
        Ledger(path)


# -- messages --------------------------------------------------------------------------------


def test_format_result(ledger: Path) -> None:
    result = verify(ledger)
    message, code = format_result(result, ledger)
    assert code == 0
    assert (result.status, result.complete) == ("intact", True)
    assert message == f"{ledger}: OK - {N} records, chain intact, head {result.head}"
    bad = VerifyResult(False, 3, None, "row seq=1 is missing (deleted)", 1, True)
    assert bad.status == "tampered"
    assert format_result(bad, "x.ledger") == (
        "x.ledger: TAMPERED - row seq=1 is missing (deleted)",
        1,
    )
