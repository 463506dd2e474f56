"""The ledger and the compliance checks in a second process (issue 31).

A run's records are made by the simulation; writing them to the ledger (canonical JSON,
SHA-256 chain, SQLite) and checking them against the controls need nothing back from it but
the findings. :class:`SinkProcess` forks a process that holds a copy of the built compliance
engine and opens the ledger, and feeds it the records in the batches the record bus cuts
(:mod:`twin.records`, ``BOUNDARY_SECONDS``): while the child checks and writes batch *k*, the
simulation makes batch *k + 1*, so a run uses two cores.

The findings land where they would in process: the bus numbers a producer's drafts ``LAG``
batches late (an hour of batches), and the sink process answers each batch with the drafts the
engine made for it, which the bus waits for only when it needs them (``LAG`` batches later: a
slow stretch of checking, such as the first batch's installs, is caught up before then). The
ledger is therefore the same, head for head, in either place (a test). What the checks read
besides the records, the Board's facts (a program approved or registered during the run), goes
with the batch in the order it changed (:meth:`twin.machines.facts.FloorFacts.log_changes`).

The child ignores SIGINT (Ctrl-C reaches the whole process group: the run's process decides).
On an interrupted run the child commits what it has and leaves the ledger unclosed
(INCOMPLETE, as in process); if the run's process dies, the child sees its pipe close and
does the same; on SIGTERM, sent to it alone (multiprocessing terminates a run's daemonic
children when the run exits without closing its sink process), it commits and ends.

Forking needs a process with no other threads that touch the model; the run's API uses a sink
process only for runs with no hardware link, no viewer and no driver of its own
(``twin.api.run``, ``sink_process``).
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import os
import signal
import time
import traceback
from collections import deque
from collections.abc import Callable, Mapping
from multiprocessing.connection import Connection
from operator import attrgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from twin.compliance.engine import ComplianceEngine
from twin.errors import InputError
from twin.ledger import HashChain, Ledger
from twin.machines.facts import FactChange, FloorFacts
from twin.records import Draft, Record, kinds

if TYPE_CHECKING:
    from twin.casino import Casino

__all__ = ["SinkProcess", "SinkProcessError", "available"]

_FACT = ""  # the kind of an item that is a change of the Board's facts


class SinkProcessError(RuntimeError):
    """The sink process failed (its traceback in the message) or went away."""


def available() -> bool:
    """Whether this platform can fork a sink process."""
    return "fork" in multiprocessing.get_all_start_methods()


_Item = tuple[str, tuple[Any, ...]]


class _Encoder:
    """A record as (kind, its fields' values in declaration order): C-speed to build and to
    pickle; the child rebuilds the same record (:class:`_Decoder`)."""

    def __init__(self) -> None:
        self._get: dict[type[Record], tuple[str, Callable[[Record], tuple[Any, ...]]]] = {}

    def __call__(self, rec: Record) -> _Item:
        cls = type(rec)
        got = self._get.get(cls)
        if got is None:
            names = _field_names(cls)
            got = self._get[cls] = (cls.kind, attrgetter(*names))
        kind, get = got
        return kind, get(rec)


class _Decoder:
    """Rebuilds a record from (kind, values): the very object the run made (the records have
    no ``__post_init__``; each slot is set directly, as the frozen dataclass's ``__init__``
    would: a function per class, made once, ~0.5 µs a record against ~2 µs by keywords)."""

    def __init__(self) -> None:
        self._cls = kinds()
        self._make: dict[str, Callable[[tuple[Any, ...]], Record]] = {}

    def __call__(self, kind: str, values: tuple[Any, ...]) -> Record:
        make = self._make.get(kind)
        if make is None:
            make = self._make[kind] = _maker(self._cls[kind])
        return make(values)


def _maker(cls: type[Record]) -> Callable[[tuple[Any, ...]], Record]:
    names = _field_names(cls)
    scope: dict[str, Any] = {"_new": object.__new__, "_cls": cls}
    lines = ["def make(v):", "    r = _new(_cls)"]
    for i, name in enumerate(names):
        scope[f"_s{i}"] = getattr(cls, name).__set__  # the slot's member descriptor
        lines.append(f"    _s{i}(r, v[{i}])")
    lines.append("    return r")
    exec("\n".join(lines), scope)
    make: Callable[[tuple[Any, ...]], Record] = scope["make"]
    return make


def _field_names(cls: type[Record]) -> tuple[str, ...]:
    import dataclasses

    return tuple(f.name for f in dataclasses.fields(cls))


class SinkProcess:
    """The run's side of the sink process: a sink and a producer on the record bus.

    ``engine``: the compliance engine as built (the child checks with its copy; findings are
    collected here as the bus numbers them, and :meth:`finish` gives this engine what the
    child's checkers saw, for the verdicts). ``ledger``: the ledger file to write (with
    ``meta``), or None for the head alone (``chain``) or neither.
    """

    def __init__(
        self,
        engine: ComplianceEngine | None,
        facts: FloorFacts | None,
        *,
        ledger: Path | None = None,
        meta: Mapping[str, str] | None = None,
        chain: bool = False,
    ) -> None:
        if not available():  # pragma: no cover - Linux forks
            raise RuntimeError("this platform cannot fork a sink process")
        self.engine = engine
        self._log: list[FactChange] = facts.log_changes() if facts is not None else []
        ctx = multiprocessing.get_context("fork")
        # two one-way pipes, each with room for the largest batches: the run hands a batch
        # over without waiting for the child to be done with the one before
        their_in, our_out = ctx.Pipe(duplex=False)
        our_in, their_out = ctx.Pipe(duplex=False)
        for conn in (our_out, our_in):
            _widen(conn)
        self._conn = _Duplex(our_in, our_out)
        self._proc = ctx.Process(
            target=_serve,
            args=(_Duplex(their_in, their_out), engine, facts, ledger, dict(meta or {}), chain),
            name="twin-sinks",
            daemon=True,
        )
        # what the run built is left out of the garbage collector's passes from here on, in
        # both processes: a pass would touch every object's header, copying each page the fork
        # shares (hundreds of MB, at the first full pass in each) and taking its time
        self._froze = gc.get_freeze_count() == 0
        gc.freeze()
        self._proc.start()
        their_in.close()
        their_out.close()
        self._items: list[_Item] = []
        self._encode = _Encoder()
        self._sent = 0  # batches sent
        self._read = 0  # batches whose drafts came back
        self._ready: deque[list[Draft]] = deque()  # ... and that the bus has not taken yet
        self.head: str | None = None
        self.records = 0
        self.busy_seconds = 0.0  # the child's time on records (checks and ledger)
        self.wait_seconds = 0.0  # the run's time waiting for the child's answers
        self._closed = False
        ready = self._recv()  # the ledger opened, or the user's mistake named
        if ready != "ready":
            self._end()
            self._proc.join()
            raise InputError(*ready[1:])

    @classmethod
    def attached(
        cls,
        casino: Casino,
        *,
        ledger: Path | None = None,
        meta: Mapping[str, str] | None = None,
        chain: bool = False,
    ) -> SinkProcess:
        """The sink process of ``casino`` (built with ``attach_checks=False``, not started):
        its compliance engine and the Board's facts, attached to its bus as a sink and the
        producer of its findings."""
        eng = casino.compliance
        far = cls(eng, casino.facts if eng is not None else None, ledger=ledger, meta=meta,
                  chain=chain)  # fmt: skip
        casino.attach(far)
        casino.bus.attach_producer(far)
        return far

    # -- Sink ---------------------------------------------------------------------------------

    def accept(self, rec: Record) -> None:
        items = self._items
        log = self._log
        if log:  # the Board's facts changed before this record
            items.extend((_FACT, change) for change in log)
            log.clear()
        items.append(self._encode(rec))
        if rec.kind == "finding" and self.engine is not None:
            self.engine.findings.append(rec)  # type: ignore[arg-type]

    def close(self) -> None:
        """Send what is left; the ledger is closed (its head and count read) and the child
        ends."""
        if self._closed:
            return
        self._end()
        self.head, self.records, self.busy_seconds = self._ask(("close", self._take()))
        self._proc.join()

    # -- Producer -----------------------------------------------------------------------------

    def boundary(self, t: float, lag: int) -> list[Draft]:
        self._send(("batch", t, self._take()))
        self._sent += 1
        if self._sent <= lag:
            return []
        if not self._ready:
            self._read_one()
        return self._ready.popleft()

    def finish(self, end: float) -> list[Draft]:
        self._send(("finish", end, self._take()))
        self._sent += 1
        while self._read < self._sent:
            self._read_one()
        out = [d for drafts in self._ready for d in drafts]
        self._ready.clear()
        outcome = self._recv()  # what the checkers saw, for the verdicts
        if self.engine is not None and outcome is not None:
            self.engine.absorb(outcome)
        return out

    # -- the rest -----------------------------------------------------------------------------

    def flush(self) -> str | None:
        """Every record so far committed to the ledger file; the head so far (None when
        there is neither a ledger nor a chain)."""
        self.head, self.records = self._ask(("flush", self._take()))
        return self.head

    def abort(self) -> None:
        """The run stopped early: the child commits what it has, leaves the ledger unclosed
        and ends."""
        if self._closed:
            return
        self._end()
        try:
            self._conn.send(("abort", self._take()))
            self._conn.recv()
        except (OSError, EOFError):
            pass
        self._proc.join(timeout=30)
        if self._proc.is_alive():  # pragma: no cover - a child that hangs
            self._proc.kill()

    def _end(self) -> None:
        """No more batches: the objects frozen at the fork go back to the collector."""
        self._closed = True
        if self._froze:
            self._froze = False
            gc.unfreeze()

    def _take(self) -> list[_Item]:
        log = self._log
        if log:
            self._items.extend((_FACT, change) for change in log)
            log.clear()
        items, self._items = self._items, []
        return items

    def _send(self, msg: tuple[Any, ...]) -> None:
        try:
            self._conn.send(msg)
        except OSError as exc:
            raise self._gone(exc) from None

    def _recv(self) -> Any:
        t0 = time.perf_counter()
        try:
            reply = self._conn.recv()
        except (OSError, EOFError) as exc:
            raise self._gone(exc) from None
        self.wait_seconds += time.perf_counter() - t0
        if isinstance(reply, tuple) and reply and reply[0] == "error":
            self._end()
            raise SinkProcessError(f"the sink process failed:\n{reply[1]}")
        return reply

    def _read_one(self) -> None:
        self._ready.append(self._recv())
        self._read += 1

    def _ask(self, msg: tuple[Any, ...]) -> Any:
        self._send(msg)
        while self._read < self._sent:  # answers of batches the bus has not asked for yet
            self._read_one()
        return self._recv()

    def _gone(self, exc: BaseException) -> SinkProcessError:
        self._end()
        self._proc.join(timeout=5)
        return SinkProcessError(
            f"the sink process ended (exit code {self._proc.exitcode}): {exc!r}"
        )


class _Duplex:
    """Two one-way connections as one: what is sent goes out on one, what is read comes in on
    the other."""

    def __init__(self, incoming: Connection, outgoing: Connection) -> None:
        self.incoming = incoming
        self.outgoing = outgoing

    def send(self, obj: Any) -> None:
        self.outgoing.send(obj)

    def recv(self) -> Any:
        return self.incoming.recv()

    def close(self) -> None:
        self.incoming.close()
        self.outgoing.close()


#: the most a pipe may hold here (Linux's default cap for an unprivileged process)
_PIPE_BYTES = 1 << 20


def _widen(conn: Connection) -> None:
    """Let ``conn``'s pipe hold up to ``_PIPE_BYTES`` (where the platform allows)."""
    with contextlib.suppress(AttributeError, OSError):
        import fcntl

        fcntl.fcntl(conn.fileno(), fcntl.F_SETPIPE_SZ, _PIPE_BYTES)


class _Stopped(Exception):
    """SIGTERM in the sink process."""


def _stop(signum: int, frame: object) -> None:
    raise _Stopped(f"signal {signum}")


def _serve(
    conn: _Duplex,
    engine: ComplianceEngine | None,
    facts: FloorFacts | None,
    ledger_path: Path | None,
    meta: dict[str, str],
    chain: bool,
) -> None:
    """The sink process: records in, the engine's drafts out, the ledger written."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the group: the run decides
    signal.signal(signal.SIGTERM, _stop)  # sent to the child alone (a run that exits without
    # closing it: multiprocessing terminates its daemonic children at exit): commit and end
    ledger: Ledger | None = None
    try:
        try:
            ledger = Ledger(ledger_path, meta=meta) if ledger_path is not None else None
        except InputError as exc:
            conn.send(("input", exc.source, exc.key, exc.expected, str(exc.found)))
            return
        conn.send("ready")
        hasher = HashChain() if ledger is None and chain else None
        sink = ledger if ledger is not None else hasher
        decode = _Decoder()
        accepts = [s.accept for s in (engine, sink) if s is not None]
        spent = 0.0

        def feed(items: list[_Item]) -> None:
            nonlocal spent
            for kind, values in items:
                if kind == _FACT:
                    assert facts is not None
                    facts.apply(values)
                    continue
                rec = decode(kind, values)
                for accept in accepts:
                    accept(rec)

        while True:
            try:
                msg = conn.recv()
            except (EOFError, OSError):  # the run's process went away
                if ledger is not None:
                    ledger.flush()
                return
            op = msg[0]
            t0 = time.perf_counter()
            if op == "batch":
                feed(msg[2])
                conn.send(engine.cut(msg[1]) if engine is not None else [])
            elif op == "finish":
                feed(msg[2])
                # the run only waits now: the end-of-run audit in a fork, on the other core
                conn.send(engine.finish(msg[1], apart=True) if engine is not None else [])
                conn.send(engine.outcome() if engine is not None else None)
            elif op in ("flush", "close"):
                feed(msg[1])
                if ledger is not None:
                    ledger.close() if op == "close" else ledger.flush()
                head = ledger.head if ledger is not None else hasher.head if hasher else None
                count = ledger.count if ledger is not None else hasher.count if hasher else 0
                if op == "flush":
                    conn.send((head, count))
                else:
                    spent += time.perf_counter() - t0
                    conn.send((head, count, spent))
                    return
            elif op == "abort":
                feed(msg[1])
                if ledger is not None:
                    ledger.flush()
                conn.send("aborted")
                return
            spent += time.perf_counter() - t0
    except BaseException:  # the run's process reports it
        with contextlib.suppress(OSError):
            conn.send(("error", traceback.format_exc()))
        if ledger is not None:
            with contextlib.suppress(Exception):  # the first error is the one reported
                ledger.flush()
    finally:
        conn.close()
        os._exit(0)  # no atexit handlers or finalizers of the parent's objects
