"""Export a ledger's records as JSON Lines or CSV, for spreadsheets and pandas.

Works on the raw JSON bodies, so it reads any ledger whatever record classes exist, and
streams: memory stays constant however many rows the ledger holds.

* JSON Lines: each row's body exactly as stored (the canonical JSON the chain hashes).
* CSV: a header ``seq,t,kind`` followed by the union of the other body keys of the exported
  kinds, in first-seen order; a row leaves the columns of other kinds' keys empty. Strings
  are written as they are, lists and objects as compact JSON, numbers and booleans as JSON
  scalars (``true``/``false``), null as an empty cell. ``pandas.read_csv`` reads the file.
  The header needs a first pass over the exported rows (their keys only, in SQLite when its
  JSON functions are available).
"""

from __future__ import annotations

import csv
import json
import os
import sqlite3
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any, Final, Literal, TextIO

from twin.errors import InputError
from twin.ledger import open_ledger, read_rows

__all__ = ["FIXED_COLUMNS", "Format", "cell", "columns", "export", "kinds_present", "write_out"]

Format = Literal["jsonl", "csv"]
FIXED_COLUMNS: Final = ("seq", "t", "kind")
_US: Final = "\x1f"  # joins keys in SQL (never in a JSON key written by the twin)


def kinds_present(path: str | Path) -> list[str]:
    """The record kinds in the ledger, in the order they first appear."""
    path = Path(path)
    with closing(open_ledger(path)) as conn:
        try:
            rows = conn.execute(
                "SELECT kind FROM records GROUP BY kind ORDER BY MIN(seq)"
            ).fetchall()
        except sqlite3.DatabaseError as exc:
            raise InputError(path, "", "a readable ledger", str(exc)) from None
    return [str(kind) for (kind,) in rows]


def _check_kinds(path: Path, kinds: Sequence[str]) -> None:
    """Every asked-for kind must have a row in the ledger (else: exit 2 naming those present)."""
    with closing(open_ledger(path)) as conn:
        missing = [
            k
            for k in dict.fromkeys(kinds)
            if conn.execute("SELECT 1 FROM records WHERE kind = ? LIMIT 1", (k,)).fetchone() is None
        ]
    if missing:
        present = ", ".join(kinds_present(path)) or "none: the ledger has no rows"
        raise InputError(
            path,
            "--kind",
            f"a kind present in the ledger ({present})",
            missing[0] if len(missing) == 1 else missing,
        )


def columns(path: str | Path, kinds: Sequence[str] | None = None) -> list[str]:
    """The CSV header: ``seq, t, kind`` and every other body key, in first-seen order."""
    path = Path(path)
    seen: dict[str, None] = dict.fromkeys(FIXED_COLUMNS)
    for keys in _key_lists(path, kinds):
        for key in keys:
            seen.setdefault(key)
    return list(seen)


def _key_lists(path: Path, kinds: Sequence[str] | None) -> Iterator[list[str]]:
    """Each distinct list of body keys, in the order of the first row that has it."""
    where, args = "", list(dict.fromkeys(kinds or ()))
    if kinds is not None:
        where = f" WHERE kind IN ({', '.join('?' * len(args))})"
    sql = (
        "SELECT ks FROM (SELECT seq, (SELECT group_concat(key, char(31)) FROM "
        f"(SELECT key FROM json_each(body) ORDER BY id)) AS ks FROM records{where}) "
        "GROUP BY ks ORDER BY MIN(seq)"
    )
    with closing(open_ledger(path)) as conn:
        try:
            found = conn.execute(sql, args).fetchall()
        except sqlite3.OperationalError:  # no JSON functions (or a body that is not JSON)
            found = None
        except sqlite3.DatabaseError as exc:
            raise InputError(path, "", "a readable ledger", str(exc)) from None
    if found is not None:
        for (ks,) in found:
            yield [] if ks is None else str(ks).split(_US)
        return
    for seq, _t, _kind, body in read_rows(path, kinds=kinds):  # slow path, same result
        yield list(_parse(path, seq, body))


def _parse(path: Path, seq: int, body: str) -> dict[str, Any]:
    try:
        doc = json.loads(body)
    except ValueError:
        doc = None
    if not isinstance(doc, dict):
        raise InputError(path, f"row seq={seq}", "a JSON object body", body)
    return doc


_COMPACT: Final = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


def cell(value: Any) -> str:
    """A CSV cell: strings as they are, null empty, anything else as compact JSON."""
    kind = type(value)
    if kind is str:
        return str(value)
    if kind is int:
        return str(value)
    if value is None:
        return ""
    if value is True:
        return "true"
    if value is False:
        return "false"
    return _COMPACT.encode(value)


def export(
    path: str | Path,
    out: TextIO,
    *,
    kinds: Sequence[str] | None = None,
    fmt: Format = "jsonl",
) -> int:
    """Write the ledger's rows (of ``kinds``, default all) to ``out``; returns the row count.

    Raises :class:`InputError` when ``path`` is not a ledger or a kind is not in it.
    """
    path = Path(path)
    if kinds is not None:
        _check_kinds(path, kinds)
    n = 0
    if fmt == "jsonl":
        for _seq, _t, _kind, body in read_rows(path, kinds=kinds):
            out.write(body)
            out.write("\n")
            n += 1
        return n
    header = columns(path, kinds)
    index = {key: i for i, key in enumerate(header)}
    blank = [""] * len(header)
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    for seq, _t, _kind, body in read_rows(path, kinds=kinds):
        row = blank.copy()
        for key, value in _parse(path, seq, body).items():
            try:
                row[index[key]] = cell(value)
            except KeyError:  # the ledger changed between the two passes
                raise InputError(
                    path, f"row seq={seq}", f"only the columns {header}", key
                ) from None
        writer.writerow(row)
        n += 1
    return n


@contextmanager
def write_out(target: Path, *, refuse: Path | None = None) -> Iterator[TextIO]:
    """A text file that appears at ``target`` only once it is complete (temp file + rename).

    ``refuse``: a path that must not be overwritten (the ledger being read).
    """
    if refuse is not None and target.exists() and target.resolve() == refuse.resolve():
        raise InputError(target, "--out", "a file other than the ledger", "the ledger itself")
    if target.is_dir():
        raise InputError(target, "--out", "a file path", "a directory")
    parent = target.parent
    if not parent.is_dir():
        raise InputError(target, "--out", "a path in an existing folder", "no such folder")
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=parent)
    except OSError as exc:
        raise InputError(target, "--out", "a writable path", exc.strerror or str(exc)) from None
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            yield fh
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
