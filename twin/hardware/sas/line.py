"""The gaming machine's side of a SAS serial line: bytes, wakeup flags, polls and reply times.

**The line.** SAS runs at 19,200 baud; each character is 1 start bit, 8 data bits, a 9th
"wakeup" bit and 1 stop bit (11 bits, :data:`BYTE_TIME` = 0.573 ms). The host sets the
wakeup bit on the first byte of each poll (the address byte of a long poll, ``0x80 |
address`` for a general poll) and on no other byte; the machine never sets it. Timing
(:data:`REPLY_DEADLINE`, :data:`INTER_BYTE_GAP`): the machine answers within 20 ms of the
poll's last byte, and no two bytes of one message are more than 5 ms apart (a machine drops
a poll whose bytes stop for longer). Sources: the SAS document as quoted by saspy's README
(thomas-pythonas/saspy: "19.2 KBaud in a wakeup mode ... one start bit, eight data bits, a
ninth wakeup bit, and one stop bit"; its host writes the address byte under mark parity and
the rest under space parity) and the gaming-machine side of Aristocrat's SAS client
(``SasPerformanceTiming``: "inter-bytes delay threshold regulated in the SAS spec (must be
5 ms)", "milliseconds GM has to reply a poll after the entire message is received": 20).

**The marked stream.** What :class:`SasLine` reads is one byte stream in which wakeup bytes
are marked the way Linux termios ``PARMRK`` marks a character with a parity error: a wakeup
byte ``b`` is the three bytes ``FF 00 b``; a data byte ``FF`` is ``FF FF``; any other byte is
itself (:func:`mark`, :class:`Unmarker`).

* **Real port** (:func:`open_serial`): 19,200 baud, 8 data bits, **space** parity (``PARENB |
  CMSPAR``, ``PARODD`` clear), 1 stop bit, input ``INPCK | PARMRK`` on, ``IGNPAR`` and
  ``ISTRIP`` off. The 9th bit travels as the parity bit: under space parity a byte whose
  9th bit is set (the host's wakeup byte, sent under mark parity) is a parity error, which
  the kernel delivers as ``FF 00 b``, and a clean ``FF`` as ``FF FF``: the marked stream
  itself. Replies are written as plain bytes under space parity (wakeup clear). A framing
  error or a break also comes marked (``FF 00 b``, ``FF 00 00``): a wakeup byte that starts
  no poll the responder knows, dropped and counted like any noise.
* **Pseudo-terminal** (:mod:`twin.hardware.sas.pty`, no parity at all): both ends write the
  marked stream on the wire. The host writes a poll as ``FF 00 <first byte>`` then its
  other bytes with each ``FF`` doubled; the machine writes its replies with each ``FF``
  doubled (:func:`mark` without a wakeup byte) and the host decodes them with
  :class:`Unmarker`. So a machine and a host on a pty pair agree byte for byte, and the
  machine's reader is the same code on both.

**Framing.** A wakeup byte starts a poll; the responder's ``poll_length`` says how long it
is once enough of it is known; when that many bytes are in, ``answer`` gives the reply (or
silence) and it is written. Bytes outside a poll (no wakeup byte before them) are noise; a
poll that a new wakeup byte interrupts, or whose bytes stop for more than
:data:`INTER_BYTE_GAP`, is cut short; both are dropped and counted, never raised. The line
does not look inside polls beyond ``poll_length``.

**Reply time** (:class:`LineStats`): from the moment the read that brought a poll's last byte
returned to the moment the write of the reply returned (the whole reply is handed to the
kernel in one write, so its first byte is on its way by then): an upper bound of what the
machine adds, not counting the time the poll's bytes waited in the kernel before the read.
The host's own view (poll written to first reply byte read) is :class:`~.host.SasHost`'s.
"""

from __future__ import annotations

import errno
import math
import os
import select
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

#: the line's speed (bits per second)
BAUD = 19_200
#: one character on the line: start + 8 data + wakeup + stop = 11 bits
BYTE_TIME = 11 / BAUD
#: the machine answers a poll within this time of its last byte (seconds)
REPLY_DEADLINE = 0.020
#: the most time between two bytes of one message (seconds); a longer gap cuts a poll short
INTER_BYTE_GAP = 0.005
#: the marker byte of the marked stream (termios PARMRK)
MARK = 0xFF
#: the longest poll the line accepts from ``poll_length`` (a length byte's 255 + header)
MAX_POLL = 1024
#: how many reply times the statistics keep (the most recent; the maximum is over all)
KEEP_TIMES = 100_000


class Responder(Protocol):
    """What answers polls behind a line (``twin.hardware.sas.gaming.SasGamingMachine``)."""

    def poll_length(self, head: bytes) -> int | None:
        """The whole length of the poll that starts with ``head`` (``head[0]`` carried the
        wakeup bit), or None while more bytes are needed."""
        ...

    def answer(self, poll: bytes) -> bytes | None:
        """The reply to one complete poll; None is silence."""
        ...


class Wire(Protocol):
    """One end of a line: reads the marked stream, writes replies."""

    def read(self, timeout: float) -> bytes:
        """What arrived (marked stream), waiting up to ``timeout`` s; b"" when nothing did."""
        ...

    def write(self, data: bytes) -> None:
        """Send ``data`` (a reply: no wakeup bit) whole."""
        ...

    def close(self) -> None: ...


def mark(data: bytes, *, wakeup: bool = False) -> bytes:
    """``data`` as the marked stream: its first byte flagged as a wakeup byte when
    ``wakeup`` (``FF 00 b``), every other ``FF`` doubled."""
    if not data:
        return b""
    body = data.replace(b"\xff", b"\xff\xff")
    if wakeup:
        first = b"\xff\x00" + data[:1]
        return first + body[2:] if data[0] == MARK else first + body[1:]
    return body


class Unmarker:
    """Decodes the marked stream into ``(byte, wakeup)`` pairs, across reads.

    ``stray`` counts ``FF`` followed by neither ``00`` nor ``FF`` (which a PARMRK reader
    never delivers): the ``FF`` is dropped and the byte after it taken as a plain byte."""

    def __init__(self) -> None:
        self._state = 0  # 0: plain; 1: after FF; 2: after FF 00
        self.stray = 0

    def feed(self, data: bytes) -> list[tuple[int, bool]]:
        out: list[tuple[int, bool]] = []
        state = self._state
        for b in data:
            if state == 0:
                if b == MARK:
                    state = 1
                else:
                    out.append((b, False))
            elif state == 1:
                if b == MARK:
                    out.append((MARK, False))
                    state = 0
                elif b == 0:
                    state = 2
                else:
                    self.stray += 1
                    out.append((b, False))
                    state = 0
            else:
                out.append((b, True))
                state = 0
        self._state = state
        return out


# -- wires -------------------------------------------------------------------------------------


class FdWire:
    """A wire on a file descriptor (a pty's end, or a serial port's fd).

    ``marked_writes``: write replies as the marked stream (a pty, where no UART parity
    exists); a real port writes plain bytes. ``owner``: an object closed with the wire (the
    pyserial ``Serial`` behind the fd), else ``close_fd`` says whether to close ``fd``."""

    def __init__(
        self, fd: int, *, marked_writes: bool, close_fd: bool = False, owner: Any = None
    ) -> None:
        self.fd = fd
        self.marked_writes = marked_writes
        self._close_fd = close_fd
        self.owner = owner
        self._closed = False

    def read(self, timeout: float) -> bytes:
        try:
            ready, _, _ = select.select([self.fd], [], [], max(0.0, timeout))
        except (OSError, ValueError):  # closed under us
            return b""
        if not ready:
            return b""
        try:
            return os.read(self.fd, 4096)
        except OSError as exc:
            if exc.errno not in (errno.EIO, errno.EAGAIN, errno.EBADF):
                raise
            time.sleep(max(0.0, timeout))  # a pty whose other end is closed: nothing to read
            return b""

    def write(self, data: bytes) -> None:
        write_all(self.fd, mark(data) if self.marked_writes else data)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self.owner is not None:
            self.owner.close()
        elif self._close_fd:
            os.close(self.fd)


def write_all(fd: int, data: bytes) -> None:
    """Write all of ``data`` to ``fd``, waiting while a non-blocking fd's buffer is full
    (pyserial opens ports non-blocking)."""
    out = memoryview(data)
    while out:
        try:
            n = os.write(fd, out)
        except BlockingIOError:
            select.select([], [fd], [], 0.05)
            continue
        out = out[n:]


def sas_port(port: str) -> Any:
    """``port`` opened as SAS wants it, for either end: 19,200 baud, 8 data bits, space
    parity, 1 stop bit, non-blocking (a ``serial.Serial``; pyserial is imported only here,
    when a real port is used)."""
    import serial

    return serial.Serial(
        port,
        baudrate=BAUD,
        bytesize=serial.EIGHTBITS,
        parity=serial.PARITY_SPACE,
        stopbits=serial.STOPBITS_ONE,
        timeout=0,
    )


def open_serial(port: str) -> FdWire:
    """A real serial port as the machine's end: space parity with PARMRK marking (module
    docstring). OSError/``serial.SerialException`` when it cannot be opened."""
    import termios

    ser = sas_port(port)
    try:
        set_parmrk(ser.fileno())
    except termios.error:
        ser.close()
        raise
    return FdWire(ser.fileno(), marked_writes=False, owner=ser)


def set_parmrk(fd: int) -> None:
    """Input of ``fd``: parity checked (``INPCK``), errors marked ``FF 00 b`` (``PARMRK``),
    not ignored (``IGNPAR`` off), 8 bits kept (``ISTRIP`` off). pyserial clears ``INPCK``
    and ``PARMRK`` whenever it configures a port, so this comes after it."""
    import termios

    attrs = termios.tcgetattr(fd)
    attrs[0] |= termios.INPCK | termios.PARMRK
    attrs[0] &= ~(termios.IGNPAR | termios.ISTRIP)
    termios.tcsetattr(fd, termios.TCSANOW, attrs)


# -- statistics --------------------------------------------------------------------------------


@dataclass
class LineStats:
    """What a line saw. Counts: ``polls`` complete polls framed; ``replies`` written;
    ``silent`` polls the responder left unanswered; ``late`` replies written after
    :data:`REPLY_DEADLINE`; ``noise`` bytes outside any poll; ``cut_short`` polls dropped
    unfinished (a new wakeup byte, or a gap over :data:`INTER_BYTE_GAP`) and ``cut_bytes``
    their bytes; ``failed`` polls the responder raised on or gave a length outside
    1..:data:`MAX_POLL` (dropped: silence); ``stray`` marker bytes that marked nothing.
    ``times``: the last :data:`KEEP_TIMES` reply times (s); ``max_time`` over all."""

    polls: int = 0
    replies: int = 0
    silent: int = 0
    late: int = 0
    noise: int = 0
    cut_short: int = 0
    cut_bytes: int = 0
    failed: int = 0
    stray: int = 0
    times: deque[float] = field(default_factory=lambda: deque(maxlen=KEEP_TIMES))
    max_time: float = 0.0

    def add_time(self, seconds: float) -> None:
        self.times.append(seconds)
        self.max_time = max(self.max_time, seconds)
        if seconds > REPLY_DEADLINE:
            self.late += 1

    def percentile(self, q: float) -> float | None:
        """The ``q`` quantile (nearest rank) of the kept reply times; None without any."""
        return percentile(list(self.times), q)

    def summary(self) -> dict[str, Any]:
        """Counts and reply times in milliseconds (median, p99, max; None without replies)."""
        ms = {
            "median_ms": self.percentile(0.5),
            "p99_ms": self.percentile(0.99),
            "max_ms": self.max_time if self.replies else None,
        }
        out: dict[str, Any] = {
            k: getattr(self, k)
            for k in (
                "polls", "replies", "silent", "late", "noise", "cut_short", "cut_bytes",
                "failed", "stray",
            )
        }  # fmt: skip
        out.update({k: None if v is None else round(v * 1000, 3) for k, v in ms.items()})
        out["deadline_ms"] = REPLY_DEADLINE * 1000
        return out

    def render(self) -> str:
        """Two lines: the counts, then the reply times against the deadline."""
        s = self.summary()
        counts = ", ".join(f"{k} {s[k]}" for k in list(s)[:9])
        if s["median_ms"] is None:
            return f"polls: {counts}\nreply time: no replies\n"
        return (
            f"polls: {counts}\n"
            f"reply time: median {s['median_ms']:.3f} ms, p99 {s['p99_ms']:.3f} ms, "
            f"max {s['max_ms']:.3f} ms (deadline {s['deadline_ms']:.0f} ms, "
            f"{s['late']} late)\n"
        )


def percentile(values: list[float], q: float) -> float | None:
    """Nearest-rank quantile ``q`` (0..1] of ``values``; None when empty."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


# -- the line ----------------------------------------------------------------------------------


class SasLine:
    """The machine's end of a SAS line: frames polls for ``responder`` and writes its replies.

    :meth:`run` loops until ``stop`` is set (:meth:`step` is one read); :attr:`stats` holds
    what it saw. ``clock``: the time source (``time.perf_counter``)."""

    def __init__(
        self,
        wire: Wire,
        responder: Responder,
        *,
        gap: float = INTER_BYTE_GAP,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.wire = wire
        self.responder = responder
        self.gap = gap
        self.clock = clock
        self.stats = LineStats()
        self._unmarker = Unmarker()
        self._buf = bytearray()
        self._need: int | None = None
        self._last = 0.0  # when the read that brought the poll's latest byte returned

    def run(self, stop: threading.Event, idle: float = 0.1) -> LineStats:
        """Serve until ``stop`` is set (seen at least every ``idle`` s); returns the stats."""
        while not stop.is_set():
            self.step(idle)
        return self.stats

    def step(self, idle: float = 0.1) -> None:
        """One read: up to ``idle`` s between polls, or until the inter-byte gap of the poll
        being read runs out (then it is cut short: nothing arrived for longer than the gap)."""
        wait = idle
        if self._buf:
            wait = min(idle, self._last + self.gap - self.clock())
        data = self.wire.read(wait)
        now = self.clock()
        if not data:
            # nothing is waiting now, so nothing came since the poll's latest byte was read
            if self._buf and now - self._last >= self.gap:
                self._cut()
            return
        # A chunk's bytes may have waited in the kernel while the line was busy: their
        # arrival is not known, so no gap is charged between them (only a read that waited
        # out the gap and got nothing cuts a poll short, above).
        for b, wakeup in self._unmarker.feed(data):
            self._byte(b, wakeup, now)
        self.stats.stray = self._unmarker.stray

    def _cut(self) -> None:
        self.stats.cut_short += 1
        self.stats.cut_bytes += len(self._buf)
        self._buf.clear()
        self._need = None

    def _byte(self, b: int, wakeup: bool, now: float) -> None:
        if wakeup:
            if self._buf:
                self._cut()
            self._buf.append(b)
        elif self._buf:
            self._buf.append(b)
        else:
            self.stats.noise += 1
            return
        self._last = now
        if self._need is None:
            try:
                need = self.responder.poll_length(bytes(self._buf))
            except Exception:
                need = -1
            if need is not None and not 1 <= need <= MAX_POLL:
                self.stats.failed += 1
                self._buf.clear()
                return
            self._need = need
        if self._need is not None and len(self._buf) >= self._need:
            poll = bytes(self._buf)
            self._buf.clear()
            self._need = None
            self._answer(poll, now)

    def _answer(self, poll: bytes, received: float) -> None:
        self.stats.polls += 1
        try:
            reply = self.responder.answer(poll)
        except Exception:
            self.stats.failed += 1
            return
        if not reply:
            self.stats.silent += 1
            return
        self.wire.write(reply)
        self.stats.replies += 1
        self.stats.add_time(self.clock() - received)
