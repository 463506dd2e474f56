"""The ledger inserts a batch with multi-row statements: the same rows as one per row."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from twin.ledger import Ledger, read, verify
from twin.records import Record, record


@record("test_ledger_insert_row")
class Row(Record):
    n: int
    text: str
    values: tuple[int, ...]


def _rows(n: int) -> list[Row]:
    return [Row(seq=i, t=i * 0.25, n=i, text=f"r{i} é", values=(i, -i, 2**70)) for i in range(n)]


def _write(path: Path, recs: list[Row], per: int, batch: int) -> str:
    led = Ledger(path, batch_size=batch)
    led._rows_per_insert = per  # the statement size under test
    for rec in recs:
        led.accept(rec)
    led.close()
    return led.head


@pytest.mark.parametrize(("per", "batch"), [(7, 32), (1000, 32), (3, 3), (1000, 4096)])
def test_multi_row_inserts_write_the_rows_one_per_row_inserts_write(
    tmp_path: Path, per: int, batch: int
) -> None:
    recs = _rows(100)
    head_one = _write(tmp_path / "one.ledger", recs, per=1, batch=batch)
    head = _write(tmp_path / "many.ledger", recs, per=per, batch=batch)
    assert head == head_one
    assert list(read(tmp_path / "many.ledger")) == recs
    assert verify(tmp_path / "many.ledger", expected_head=head).ok
    query = "SELECT seq, t, kind, body, hash FROM records ORDER BY seq"
    with (
        closing(sqlite3.connect(tmp_path / "one.ledger")) as a,
        closing(sqlite3.connect(tmp_path / "many.ledger")) as b,
    ):
        assert a.execute(query).fetchall() == b.execute(query).fetchall()


def test_a_statement_stays_within_sqlite_s_parameter_limit(tmp_path: Path) -> None:
    led = Ledger(tmp_path / "x.ledger")
    limit = led._conn.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER)
    assert 1 <= led._rows_per_insert * 5 <= limit
    led.close()
