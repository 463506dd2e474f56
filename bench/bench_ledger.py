"""Benchmark of ledger appends (target P6: >= 100k records/s with the hash chain).

Run as ``python bench/bench_ledger.py``. For 50k and 200k realistic records (8 payload fields)
it times, 5 times each and reports the median of:

* ``ledger``   - ``Ledger.accept`` for every record + ``close()``: JSON, SHA-256 chain, SQLite;
* ``baseline`` - bare SQLite: the same table, pragmas and batch size, ``executemany`` of
  pre-built rows (no JSON, no hashing), committed per batch.

Records are built before the clock starts, as the simulation hands them over ready-made.
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

import _util  # noqa: F401  (puts this checkout first on sys.path)

from twin.ledger import GENESIS, Ledger, chain_hash
from twin.records import Record, record

TARGET = 100_000.0
BATCH = 4096


@record("bench_ledger_spin", roles=("machine", "player"))
class Spin(Record):
    """A slot round as a machine would report it: eight flat payload fields."""

    machine: str
    player: str
    bet: int
    win: int
    credits_before: int
    credits_after: int
    symbols: tuple[str, ...]
    bonus: bool


def make_records(n: int) -> list[Spin]:
    """``n`` varied spins, numbered from 0."""
    out = []
    credits = 1_000_000
    for i in range(n):
        win = (i * 7919 % 13) * 25 if i % 3 == 0 else 0
        out.append(
            Spin(
                seq=i,
                t=i * 3.7,
                machine=f"egm-{i % 480:04d}",
                player=f"patron-{i % 2311:05d}",
                bet=100,
                win=win,
                credits_before=credits,
                credits_after=credits - 100 + win,
                symbols=("7", "BAR", "CHERRY") if i % 2 else ("BELL", "BAR", "BAR"),
                bonus=i % 97 == 0,
            )
        )
        credits = credits - 100 + win
    return out


def time_ledger(records: list[Spin], path: Path) -> float:
    """Seconds to append ``records`` to a new ledger and close it."""
    start = time.perf_counter()
    led = Ledger(path, batch_size=BATCH, meta={"scenario": "bench"})
    accept = led.accept
    for rec in records:
        accept(rec)
    led.close()
    return time.perf_counter() - start


def time_baseline(rows: list[tuple[int, float, str, str, str]], path: Path) -> float:
    """Seconds for bare SQLite to store the same rows (pre-built: no JSON, no hashing)."""
    start = time.perf_counter()
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute(
        "CREATE TABLE records(seq INTEGER PRIMARY KEY, t REAL NOT NULL, kind TEXT NOT NULL, "
        "body TEXT NOT NULL, hash TEXT NOT NULL)"
    )
    insert = "INSERT INTO records(seq, t, kind, body, hash) VALUES (?, ?, ?, ?, ?)"
    for lo in range(0, len(rows), BATCH):
        conn.execute("BEGIN")
        conn.executemany(insert, rows[lo : lo + BATCH])
        conn.execute("COMMIT")
    conn.execute("PRAGMA journal_mode=DELETE")
    conn.close()
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[50_000, 200_000])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)

    print(f"python {sys.version.split()[0]}, sqlite {sqlite3.sqlite_version}, batch {BATCH}")
    header = (
        f"{'records':>9} | {'ledger rec/s':>13} | {'baseline rec/s':>15} | "
        f"{'ledger/baseline':>15} | {'us/rec':>7} | P6 (>= {TARGET:,.0f}/s)"
    )
    print(header)
    print("-" * len(header))
    all_ok = True
    with tempfile.TemporaryDirectory(prefix="bench-ledger-") as tmp:
        for size in args.sizes:
            records = make_records(size)
            prev = GENESIS
            rows = []
            for rec in records:
                body = rec.to_json()
                prev = chain_hash(prev, body)
                rows.append((rec.seq, rec.t, rec.kind, body, prev))
            ledger_s: list[float] = []
            base_s: list[float] = []
            for rep in range(args.repeats):
                ledger_s.append(time_ledger(records, Path(tmp) / f"l-{size}-{rep}.ledger"))
                base_s.append(time_baseline(rows, Path(tmp) / f"b-{size}-{rep}.sqlite"))
            ledger_rate = size / statistics.median(ledger_s)
            base_rate = size / statistics.median(base_s)
            ok = ledger_rate >= TARGET
            all_ok &= ok
            print(
                f"{size:>9,} | {ledger_rate:>13,.0f} | {base_rate:>15,.0f} | "
                f"{ledger_rate / base_rate:>15.2f} | {1e6 / ledger_rate:>7.2f} | "
                f"{'PASS' if ok else 'FAIL'}"
            )
    print(
        "ledger = Ledger.accept x N + close (JSON + SHA-256 chain + SQLite); baseline = bare "
        "executemany of pre-built rows; medians of",
        args.repeats,
        "runs",
    )
    return 0 if all_ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
