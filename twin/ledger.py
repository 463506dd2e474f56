"""The ledger: an append-only, hash-chained SQLite file with one row per record.

Each row stores a record's canonical JSON (``Record.to_json()``) and a SHA-256 hash that
chains it to the row before it::

    hash_n = sha256(bytes.fromhex(hash_{n-1}) + body_n.encode("utf-8"))

with ``hash_{-1} = sha256(b"casino-twin-ledger/v1")`` (the genesis hash). The hash of the
last row, :attr:`Ledger.head`, is the run's ``ledger_sha256``: publishing it pins the whole
history, since changing, removing, adding or reordering any row changes it.

Rows are buffered and committed in batches (one transaction per batch, WAL journal), so a
process killed midway leaves a ledger that verifies up to its last committed batch; only a
closed ledger carries ``closed='true'``, its ``head`` and its ``records`` count in ``meta``.

:func:`verify` walks a ledger, recomputes the chain and names the first row that was changed,
deleted, inserted or reordered; :func:`format_result` turns the outcome into the one-line
message and exit code of ``twin ledger verify``; :func:`read` restores the records;
:func:`read_meta` and :func:`read_rows` give the meta table and the raw rows (for tools that
must read any ledger, whatever record classes are registered).
"""

from __future__ import annotations

import functools
import hashlib
import json
import sqlite3
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Final, Literal

from twin import __version__
from twin.errors import InputError
from twin.records import Record, from_json
from twin.signals import deferred

__all__ = [
    "EXIT_INCOMPLETE",
    "EXIT_TAMPERED",
    "FORMAT",
    "FORMAT_VERSION",
    "GENESIS",
    "HEAD_PATTERN",
    "HashChain",
    "Ledger",
    "VerifyResult",
    "chain_hash",
    "format_result",
    "is_head",
    "open_ledger",
    "read",
    "read_meta",
    "read_rows",
    "verify",
]

FORMAT: Final = "casino-twin-ledger"
FORMAT_VERSION: Final = "1"
GENESIS: Final = hashlib.sha256(b"casino-twin-ledger/v1").hexdigest()
"""The previous hash of the first row (hex)."""
HEAD_PATTERN: Final = "64 hexadecimal characters (a ledger_sha256)"
"""What a head (``ledger_sha256``) looks like, for messages."""
EXIT_TAMPERED: Final = 1
EXIT_INCOMPLETE: Final = 3

_RESERVED_META: Final = frozenset(
    {"format", "format_version", "created_by", "hash", "closed", "head", "records", "first_seq"}
)

_SCHEMA: Final = (
    "CREATE TABLE records("
    "seq INTEGER PRIMARY KEY, t REAL NOT NULL, kind TEXT NOT NULL, "
    "body TEXT NOT NULL, hash TEXT NOT NULL)",
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT)",
)
_INSERT: Final = "INSERT INTO records(seq, t, kind, body, hash) VALUES (?, ?, ?, ?, ?)"
_COLUMNS: Final = 5
_SET_META: Final = "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)"

_sha256 = hashlib.sha256
_Row = tuple[int, float, str, str, str]


@functools.cache
def _insert_sql(rows: int) -> str:
    """``_INSERT`` for ``rows`` rows in one statement."""
    return _INSERT + ", (?, ?, ?, ?, ?)" * (rows - 1)


def chain_hash(prev_hex: str, body: str) -> str:
    """The hash of a row whose body is ``body`` following a row whose hash is ``prev_hex``."""
    return _sha256(bytes.fromhex(prev_hex) + body.encode()).hexdigest()


class Ledger:
    """A record sink that appends every record to a new hash-chained SQLite ledger.

    ``meta`` adds free-form ``key -> value`` strings to the ledger's ``meta`` table (scenario
    name, seed, ...). Records must arrive with contiguous ``seq`` numbers (as numbered by
    :class:`twin.records.RecordBus`); the first record's seq need not be 0.

    Used as a context manager, the ledger is closed (finalised) on a normal exit; when the
    block raises, the committed rows and the buffer are kept but the ledger is not marked
    closed, since the run did not complete.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        batch_size: int = 4096,
        meta: Mapping[str, str] | None = None,
    ) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {batch_size}")
        extra = dict(meta or {})
        clash = sorted(_RESERVED_META.intersection(extra))
        if clash:
            raise ValueError(f"ledger meta keys {clash} are reserved")
        self.path = Path(path)
        _refuse_existing(self.path)
        try:
            conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=True)
        except sqlite3.Error as exc:
            raise InputError(self.path, "", "a writable ledger path", str(exc)) from None
        self._conn = conn
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("BEGIN")
            for statement in _SCHEMA:
                conn.execute(statement)
            base = {
                "format": FORMAT,
                "format_version": FORMAT_VERSION,
                "created_by": f"casino-twin {__version__}",
                "hash": "sha256",
                "closed": "false",
            }
            conn.executemany(_SET_META, [*base.items(), *extra.items()])
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            conn.close()
            raise InputError(self.path, "", "a writable ledger path", str(exc)) from None
        self._batch_size = batch_size
        # rows per INSERT statement: as many as SQLite takes parameters for (see flush)
        self._rows_per_insert = max(
            1, min(1000, conn.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER) // _COLUMNS)
        )
        self._buf: list[_Row] = []
        self._prev = bytes.fromhex(GENESIS)
        self._next_seq: int | None = None
        self._first_seq: int | None = None
        self._first_written = False
        self._committed = 0
        self._closed = False

    # -- Sink -----------------------------------------------------------------------------

    def accept(self, rec: Record) -> None:
        """Append one record (buffered; committed when the batch is full)."""
        if rec.seq != self._next_seq:
            self._start_or_refuse(rec)
        body = rec.to_json()
        digest = _sha256(self._prev + body.encode()).digest()
        self._prev = digest
        self._next_seq = rec.seq + 1
        buf = self._buf
        buf.append((rec.seq, rec.t, rec.kind, body, digest.hex()))
        if len(buf) >= self._batch_size:
            self.flush()

    def close(self) -> None:
        """Flush, finalise (``closed``, ``head``, ``records`` in meta) and close the file.

        Closing twice is a no-op. The closed ledger is checkpointed back to a single file.
        """
        if self._closed:
            return
        self.flush()
        conn = self._conn
        conn.execute("BEGIN")
        conn.executemany(
            _SET_META,
            [("closed", "true"), ("head", self.head), ("records", str(self._committed))],
        )
        conn.execute("COMMIT")
        conn.execute("PRAGMA journal_mode=DELETE")
        conn.close()
        self._closed = True
        self._next_seq = None  # routes any later accept() to the refusal in the slow path

    # -- the rest of the API ---------------------------------------------------------------

    def flush(self) -> None:
        """Commit the buffered rows in one transaction."""
        buf = self._buf
        if not buf:
            return
        if self._closed:
            raise ValueError(f"ledger {self.path} is closed")
        conn = self._conn
        with deferred():  # a signal waits for the commit and its bookkeeping (issue 33)
            conn.execute("BEGIN")
            try:
                self._insert(buf)
                if not self._first_written:
                    conn.execute(_SET_META, ("first_seq", str(self._first_seq)))
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
            self._first_written = True
            self._committed += len(buf)
            buf.clear()

    def _recover(self) -> None:
        """After a failure: end any open transaction and drop from the buffer the rows the
        file already holds (a stop that came after a COMMIT but before its bookkeeping),
        so that what is left can still be committed."""
        conn = self._conn
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        last, rows = conn.execute("SELECT MAX(seq), COUNT(*) FROM records").fetchone()
        if last is not None:
            self._buf[:] = [row for row in self._buf if row[0] > last]
            self._committed = int(rows)
            self._first_written = True

    def _insert(self, rows: list[_Row]) -> None:
        """Insert ``rows`` with a few multi-row INSERT statements rather than one statement
        per row (``executemany``): the same rows, but the sqlite3 module releases and takes
        back the GIL around every statement, and with another busy thread in the process
        (the hardware link's network thread) each take-back can wait a switch interval, so
        per-row statements made a 4,096-row commit take ~0.8 s instead of ~15 ms."""
        conn = self._conn
        per = self._rows_per_insert
        for k in range(0, len(rows), per):
            part = rows[k : k + per]
            conn.execute(_insert_sql(len(part)), [v for row in part for v in row])

    @property
    def head(self) -> str:
        """The hash (hex) of the latest appended row: the run's ``ledger_sha256``.

        For a ledger without rows this is :data:`GENESIS`.
        """
        return self._prev.hex()

    @property
    def count(self) -> int:
        """Records appended so far (committed or still buffered)."""
        return self._committed + len(self._buf)

    @property
    def committed(self) -> int:
        """Records committed to the file so far."""
        return self._committed

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` has run."""
        return self._closed

    def __enter__(self) -> Ledger:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc_type is None:
            self.close()
        elif not self._closed:
            try:
                with deferred(raise_pending=False):  # already stopping: finish the cleanup
                    self._recover()
                    self.flush()
            finally:
                self._conn.close()
                self._closed = True
                self._next_seq = None

    def _start_or_refuse(self, rec: Record) -> None:
        """Slow path of :meth:`accept`: the first record, or a refusal."""
        if self._closed:
            raise ValueError(f"ledger {self.path} is closed")
        if self._next_seq is not None:
            raise ValueError(
                f"ledger {self.path} expects contiguous seq numbers: "
                f"expected {self._next_seq}, got {rec.seq}"
            )
        self._first_seq = rec.seq


def _refuse_existing(path: Path) -> None:
    if path.is_dir():
        raise InputError(path, "", "a new ledger path", "a directory")
    if path.exists() and path.stat().st_size > 0:
        found = "an existing ledger" if _looks_like_sqlite(path) else "an existing file"
        raise InputError(path, "", "a new ledger path", found)
    wal = path.with_name(path.name + "-wal")
    if wal.exists() and wal.stat().st_size > 0:
        raise InputError(path, "", "a new ledger path", f"a leftover write-ahead log {wal}")


def _looks_like_sqlite(path: Path) -> bool:
    try:
        with path.open("rb") as fh:
            return fh.read(16) == b"SQLite format 3\x00"
    except OSError as exc:
        raise InputError(path, "", "a readable file", exc.strerror or str(exc)) from None


def is_head(text: str) -> bool:
    """Whether ``text`` looks like a ledger head: 64 hexadecimal characters (any case)."""
    return len(text) == 64 and all(c in "0123456789abcdefABCDEF" for c in text)


# -- verification ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class VerifyResult:
    """The outcome of :func:`verify`.

    ``rows`` is the number of rows in the file; ``head`` the recomputed head (hex) when the
    chain is intact, else None; ``problem`` and ``seq`` name the first bad row; ``closed``
    tells whether the writer finalised the ledger (False after a killed run).

    ``ok`` means that every row present chains; :attr:`status` separates a complete ledger
    (``"intact"``) from one whose rows all chain but that was never closed
    (``"incomplete"``: the run was interrupted, so rows may be missing at the end and no
    head was recorded to check them against), and from ``"tampered"``.
    """

    ok: bool
    rows: int
    head: str | None
    problem: str | None
    seq: int | None
    closed: bool

    @property
    def status(self) -> Literal["intact", "incomplete", "tampered"]:
        if not self.ok:
            return "tampered"
        return "intact" if self.closed else "incomplete"

    @property
    def complete(self) -> bool:
        """Whether the ledger verifies *and* was closed by its writer."""
        return self.status == "intact"


def verify(path: str | Path, *, expected_head: str | None = None) -> VerifyResult:
    """Walk the ledger at ``path`` in seq order, recompute its hash chain and check its meta.

    Returns the first problem found, naming its row. ``expected_head`` (a published
    ``ledger_sha256``) additionally catches a ledger rewritten from scratch, hashes and meta
    included. Raises :class:`InputError` when ``path`` is missing or is not a ledger.
    """
    path = Path(path)
    conn = _open_ledger(path)
    try:
        return _verify(conn, expected_head)
    except sqlite3.DatabaseError as exc:
        raise InputError(path, "", "a readable ledger", str(exc)) from None
    finally:
        conn.close()


def _verify(conn: sqlite3.Connection, expected_head: str | None) -> VerifyResult:
    meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
    rows = int(conn.execute("SELECT COUNT(*) FROM records").fetchone()[0])
    closed = meta.get("closed") == "true"

    def bad(problem: str, seq: int | None) -> VerifyResult:
        return VerifyResult(False, rows, None, problem, seq, closed)

    try:
        expected = int(meta.get("first_seq", "0"))
    except ValueError:
        return bad(f"meta first_seq is not a number: {meta['first_seq']!r}", None)
    prev = GENESIS
    prev_prev: str | None = None
    prev_seq: int | None = None
    last_seq: int | None = None
    cursor = conn.execute("SELECT seq, t, kind, body, hash FROM records ORDER BY rowid")
    for seq, t, kind, body, stored in cursor:
        if not isinstance(body, str) or not isinstance(stored, str):
            return bad(f"row seq={seq}: body or hash is not text (changed)", seq)
        if prev_seq is not None and seq <= prev_seq:
            return bad(f"row seq={seq} is out of order after seq={prev_seq} (reordered)", seq)
        if seq > expected:
            gap = f"seq={expected}" if seq == expected + 1 else f"seq={expected}..{seq - 1}"
            what = "row" if seq == expected + 1 else "rows"
            verb = "is" if seq == expected + 1 else "are"
            return bad(f"{what} {gap} {verb} missing (deleted)", expected)
        computed = _sha256(bytes.fromhex(prev) + body.encode()).hexdigest()
        if computed != stored:
            why, culprit = _diagnose(
                conn, seq, body, stored, computed, prev, prev_prev, prev_seq, meta
            )
            return bad(why, culprit)
        mismatch = _check_body(seq, t, kind, body)
        if mismatch is not None:
            return bad(mismatch, seq)
        prev_prev = prev
        prev = stored
        prev_seq = last_seq = seq
        expected = seq + 1

    if closed:
        try:
            recorded = int(meta.get("records", ""))
        except ValueError:
            return bad(f"meta records is not a number: {meta.get('records')!r}", None)
        meta_head = meta.get("head")
        if rows > recorded:
            first_extra = int(meta.get("first_seq", "0")) + recorded
            return bad(
                f"row seq={first_extra} was inserted after the ledger was closed", first_extra
            )
        if rows < recorded:
            if last_seq is None:
                return bad("all rows were removed (truncated)", None)
            return bad(f"rows after seq={last_seq} were removed (truncated)", last_seq)
        if meta_head != prev:
            return bad("head does not match the head recorded at close", last_seq)
    if expected_head is not None and expected_head.lower() != prev:
        return bad(f"head {prev} does not match the expected head {expected_head}", last_seq)
    return VerifyResult(True, rows, prev, None, None, closed)


def _links(prev_hex: str | None, body: str, stored: str) -> bool:
    """Whether a row with ``body``/``stored`` hash chains from a row whose hash is ``prev_hex``."""
    if prev_hex is None:
        return False
    try:
        return chain_hash(prev_hex, body) == stored
    except ValueError:  # a hash column that is not hex
        return False


def _diagnose(
    conn: sqlite3.Connection,
    seq: int,
    body: str,
    stored: str,
    computed: str,
    prev: str,
    prev_prev: str | None,
    prev_seq: int | None,
    meta: Mapping[str, str],
) -> tuple[str, int | None]:
    """Explain why the row ``seq`` does not chain from the row before it.

    Returns the message and the seq of the culprit row: ``seq`` itself, or ``prev_seq``
    when the row before it was inserted.
    """
    try:
        json.loads(body)
    except ValueError:
        return f"row seq={seq}: body is not valid JSON (changed)", seq
    if prev_seq is not None and _links(prev_prev, body, stored):
        return f"row seq={prev_seq} was inserted", prev_seq
    if _links(GENESIS, body, stored):
        return f"row seq={seq} is out of order: it chains as the first row (reordered)", seq
    for other_seq, other_hash in conn.execute("SELECT seq, hash FROM records ORDER BY rowid"):
        if other_seq != seq and isinstance(other_hash, str) and _links(other_hash, body, stored):
            return (
                f"row seq={seq} is out of order: it chains after seq={other_seq} (reordered)",
                seq,
            )
    nxt = conn.execute(
        "SELECT body, hash FROM records WHERE rowid > ? ORDER BY rowid LIMIT 1", (seq,)
    ).fetchone()
    if nxt is not None and isinstance(nxt[0], str) and isinstance(nxt[1], str):
        nbody, nhash = nxt
        if _links(stored, nbody, nhash):
            return f"row seq={seq}: body does not match its hash (changed)", seq
        if _links(prev, nbody, nhash):
            return f"row seq={seq} was inserted", seq
        if _links(computed, nbody, nhash):
            return f"row seq={seq}: hash column changed (its body is intact)", seq
        return f"row seq={seq}: body and hash do not match the chain (changed)", seq
    if nxt is None and meta.get("closed") == "true":
        head = meta.get("head")
        if head == computed:
            return f"row seq={seq}: hash column changed (its body is intact)", seq
        if head == prev:
            return f"row seq={seq} was inserted after the ledger was closed", seq
    return f"row seq={seq}: body does not match its hash (changed)", seq


def _check_body(seq: int, t: object, kind: object, body: str) -> str | None:
    """Check that a row whose hash is consistent agrees with its own body."""
    try:
        doc: Any = json.loads(body)
    except ValueError:
        return f"row seq={seq}: body is not valid JSON"
    if not isinstance(doc, dict):
        return f"row seq={seq}: body is not a JSON object"
    if doc.get("seq") != seq:
        return f"row seq={seq}: its body says seq={doc.get('seq')!r} (renumbered or rewritten)"
    if doc.get("kind") != kind:
        return f"row seq={seq}: kind column {kind!r} does not match its body (changed)"
    if doc.get("t") != t:
        return f"row seq={seq}: t column {t!r} does not match its body (changed)"
    return None


def open_ledger(path: str | Path) -> sqlite3.Connection:
    """Open an existing ledger read-only (for tools), or raise InputError naming the path."""
    return _open_ledger(Path(path))


def _open_ledger(path: Path) -> sqlite3.Connection:
    """Open an existing ledger read-only, or raise InputError naming the path."""
    if not path.exists():
        raise InputError(path, "", "a ledger file", "no such file")
    if not path.is_file():
        raise InputError(path, "", "a ledger file", "not a file")
    cut = _truncation(path)
    if cut is not None:
        raise InputError(path, "", "a complete casino-twin ledger", _Said(cut))
    if not _looks_like_sqlite(path):
        raise InputError(path, "", "a casino-twin ledger (SQLite)", "not an SQLite database")
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise InputError(path, "", "a readable ledger", str(exc)) from None
    try:
        tables = {
            name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
        }
        if not {"records", "meta"} <= tables:
            raise InputError(
                path, "", "a casino-twin ledger", "an SQLite database without the ledger tables"
            )
        row = conn.execute("SELECT value FROM meta WHERE key='format_version'").fetchone()
        fmt = conn.execute("SELECT value FROM meta WHERE key='format'").fetchone()
        if fmt is None or fmt[0] != FORMAT:
            raise InputError(path, "meta.format", f"{FORMAT!r}", None if fmt is None else fmt[0])
        if row is None or row[0] != FORMAT_VERSION:
            raise InputError(
                path,
                "meta.format_version",
                f"{FORMAT_VERSION!r}",
                None if row is None else row[0],
            )
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise InputError(path, "", "a casino-twin ledger (SQLite)", str(exc)) from None
    except InputError:
        conn.close()
        raise
    return conn


class _Said(str):
    """A found value shown as it is (not quoted) in an InputError."""

    def __repr__(self) -> str:
        return str(self)


_MAGIC: Final = b"SQLite format 3\x00"


def _truncation(path: Path) -> str | None:
    """How ``path`` is cut short, if it is an SQLite file that was truncated (a copy that
    stopped, a full disk): shorter than its header, or than the size its header records."""
    try:
        size = path.stat().st_size
        with path.open("rb") as fh:
            head = fh.read(100)
    except OSError as exc:
        raise InputError(path, "", "a readable file", exc.strerror or str(exc)) from None
    if 0 < len(head) < 100 and (_MAGIC.startswith(head) or head.startswith(_MAGIC)):
        return f"a truncated file ({size} bytes: not even a whole SQLite header)"
    if len(head) < 100 or not head.startswith(_MAGIC):
        return None
    page = int.from_bytes(head[16:18], "big")
    page = 65536 if page == 1 else page
    pages = int.from_bytes(head[28:32], "big")
    valid = head[24:28] == head[92:96]  # the recorded size is only kept up to date then
    if valid and pages and size < page * pages:
        return f"a truncated file ({size} of its {page * pages} bytes)"
    return None


def format_result(result: VerifyResult, path: str | Path) -> tuple[str, int]:
    """The one-line message of ``twin ledger verify`` and its exit code.

    0 intact and closed; 1 (:data:`EXIT_TAMPERED`) tampered; 3 (:data:`EXIT_INCOMPLETE`)
    every row chains but the ledger was never closed (the run was interrupted).
    """
    if result.status == "tampered":
        return f"{path}: TAMPERED - {result.problem}", EXIT_TAMPERED
    noun = "record" if result.rows == 1 else "records"
    if result.status == "intact":
        return f"{path}: OK - {result.rows} {noun}, chain intact, head {result.head}", 0
    verb = "verifies" if result.rows == 1 else "verify"
    return (
        f"{path}: INCOMPLETE - never closed (the run stopped early): {result.rows} committed "
        f"{noun} {verb}, chain intact up to head {result.head}",
        EXIT_INCOMPLETE,
    )


def read(path: str | Path) -> Iterator[Record]:
    """Restore the ledger's records in seq order (their kinds must be registered).

    The file is checked to be a ledger before this returns; the records are read lazily.
    Does not verify the chain: call :func:`verify` for that.
    """
    path = Path(path)
    conn = _open_ledger(path)
    return _read(conn, path)


def _read(conn: sqlite3.Connection, path: Path) -> Iterator[Record]:
    try:
        for seq, body in conn.execute("SELECT seq, body FROM records ORDER BY seq"):
            try:
                yield from_json(body)
            except KeyError as exc:
                raise InputError(
                    path, f"row seq={seq}", "a registered record kind or field", str(exc)
                ) from None
    finally:
        conn.close()


class HashChain:
    """A sink that only computes the ledger's hash chain: a run's ``ledger_sha256`` without
    writing a file (the head equals that of a :class:`Ledger` given the same records)."""

    def __init__(self) -> None:
        self._prev = bytes.fromhex(GENESIS)
        self.count = 0

    def accept(self, rec: Record) -> None:
        self._prev = _sha256(self._prev + rec.to_json().encode()).digest()
        self.count += 1

    def close(self) -> None:
        pass

    @property
    def head(self) -> str:
        return self._prev.hex()


def read_meta(path: str | Path) -> dict[str, str]:
    """The ledger's ``meta`` table (raises :class:`InputError` when ``path`` is not a ledger)."""
    path = Path(path)
    conn = _open_ledger(path)
    try:
        return {str(k): str(v) for k, v in conn.execute("SELECT key, value FROM meta")}
    except sqlite3.DatabaseError as exc:
        raise InputError(path, "", "a readable ledger", str(exc)) from None
    finally:
        conn.close()


RawRow = tuple[int, float, str, str]
"""``(seq, t, kind, body)`` of one ledger row: ``body`` is the record's canonical JSON."""


def read_rows(
    path: str | Path,
    *,
    kinds: Collection[str] | None = None,
    max_t: float | None = None,
    max_seq: int | None = None,
    containing: str | None = None,
) -> Iterator[RawRow]:
    """Stream the raw rows ``(seq, t, kind, body)`` in seq order, in constant memory.

    Filters (all optional, combined): ``kinds`` keeps those kinds, ``max_t`` rows with
    ``t <= max_t``, ``max_seq`` rows with ``seq <= max_seq``, ``containing`` rows whose body
    contains that text (a cheap pre-filter; callers check the parsed body). Works on any
    ledger: record kinds need not be registered. The file is checked to be a ledger before
    this returns. Does not verify the chain: call :func:`verify` for that.
    """
    path = Path(path)
    conn = _open_ledger(path)
    where: list[str] = []
    args: list[Any] = []
    if kinds is not None:
        kind_list = sorted(set(kinds))
        where.append(f"kind IN ({', '.join('?' * len(kind_list))})")
        args.extend(kind_list)
    if max_t is not None:
        where.append("t <= ?")
        args.append(max_t)
    if max_seq is not None:
        where.append("seq <= ?")
        args.append(max_seq)
    if containing is not None:
        where.append("instr(body, ?) > 0")
        args.append(containing)
    sql = "SELECT seq, t, kind, body FROM records"
    if where:
        sql += " WHERE " + " AND ".join(where)
    sql += " ORDER BY seq"
    try:
        cursor = conn.execute(sql, args)
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise InputError(path, "", "a readable ledger", str(exc)) from None
    return _stream(conn, cursor, path)


def _stream(conn: sqlite3.Connection, cursor: sqlite3.Cursor, path: Path) -> Iterator[RawRow]:
    try:
        for seq, t, kind, body in cursor:
            yield int(seq), float(t), str(kind), str(body)
    except sqlite3.DatabaseError as exc:
        raise InputError(path, "", "a readable ledger", str(exc)) from None
    finally:
        conn.close()
