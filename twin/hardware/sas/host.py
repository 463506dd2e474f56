"""A minimal SAS host: polls one gaming machine on a line (tests, the bench, later the bridge).

:class:`SasHost` writes a poll with its first byte flagged as the wakeup byte and reads the
reply: the first byte within ``timeout``, then bytes until the line is quiet for
``gap`` (:data:`~.line.INTER_BYTE_GAP`) or ``expect`` bytes are in. On a pseudo-terminal both
directions are the marked stream of :mod:`twin.hardware.sas.line`; on a real port the host
sends the wakeup byte under **mark** parity and the rest under **space** parity (pyserial
switches the port's parity between them, after the first byte has left: ``tcdrain``) and
reads replies as plain bytes (parity not checked).

CRC: long polls and multi-byte replies end with the CRC-16 of SAS (CRC-16/KERMIT: polynomial
0x1021 reflected, initial value 0, low byte first). The function is ``crc`` when given, else
``twin.hardware.sas.crc.crc16``, imported when first needed.
"""

from __future__ import annotations

import importlib
import os
import time
from collections import deque
from collections.abc import Callable
from typing import Any, cast

from twin.hardware.sas.line import (
    INTER_BYTE_GAP,
    KEEP_TIMES,
    Unmarker,
    mark,
    percentile,
    sas_port,
    write_all,
)


class SasHost:
    """Polls gaming machines on one line.

    ``port``: a pty's slave path or fd (the pty convention), or a serial port's path (mark
    and space parity; ``pty`` forces either; by default a path under ``/dev/pts/`` is a pty).
    Counts: ``polls`` sent, ``silences`` (no reply within ``timeout``), ``bad_crc`` (a
    reply whose CRC is wrong, or two bytes long), ``stale`` (bytes found waiting before a
    poll: a late reply to an earlier one, dropped). ``times``: for each reply, from the
    poll's last byte written to the reply's first byte read (s)."""

    def __init__(
        self,
        port: str | int,
        *,
        pty: bool | None = None,
        timeout: float = 0.2,
        gap: float = INTER_BYTE_GAP,
        crc: Callable[[bytes], int] | None = None,
    ) -> None:
        self.timeout = timeout
        self.gap = gap
        self._crc = crc
        self._serial: Any = None
        self._own_fd = False
        if isinstance(port, int):
            self.pty = True if pty is None else pty
            self.fd = port
        else:
            self.pty = port.startswith("/dev/pts/") if pty is None else pty
            if self.pty:
                from twin.hardware.sas.pty import open_host_end

                self.fd = open_host_end(port)
                self._own_fd = True
            else:
                self._serial = sas_port(port)
                self.fd = self._serial.fileno()
        self._unmarker = Unmarker()
        self.polls = 0
        self.silences = 0
        self.bad_crc = 0
        self.stale = 0
        self.times: deque[float] = deque(maxlen=KEEP_TIMES)

    # -- polls ---------------------------------------------------------------------------------

    def general_poll(self, address: int) -> int | None:
        """The machine's answer to a general poll (an exception code), or None (silence)."""
        reply = self.send(bytes([0x80 | address]), expect=1)
        return reply[0] if reply else None

    def long_poll(
        self,
        address: int,
        command: int,
        data: bytes = b"",
        *,
        crc: bool | None = None,
        expect: int | None = None,
    ) -> bytes | None:
        """Send ``address, command, data`` (+ its CRC) and return the reply as received,
        CRC included and checked; a one-byte reply (ACK: the address; NACK: ``0x80 |
        address``) as it is. None: silence or a bad CRC (counted).

        ``crc``: whether the poll carries a CRC; by default it does when it has ``data``
        (a type R poll is two bytes without one; a type S poll without data, such as
        01 or 02, needs ``crc=True``)."""
        frame = bytes([address, command]) + data
        if crc if crc is not None else bool(data):
            frame += self.crc16(frame).to_bytes(2, "little")
        reply = self.send(frame, expect=expect)
        if reply is None or len(reply) == 1:
            return reply
        if len(reply) < 3 or self.crc16(reply[:-2]) != int.from_bytes(reply[-2:], "little"):
            self.bad_crc += 1
            return None
        return reply

    def crc16(self, data: bytes) -> int:
        if self._crc is None:
            module = importlib.import_module("twin.hardware.sas.crc")
            self._crc = cast(Callable[[bytes], int], module.crc16)
        return self._crc(data)

    # -- bytes ---------------------------------------------------------------------------------

    def send(self, poll: bytes, *, expect: int | None = None) -> bytes | None:
        """Write ``poll`` (its first byte the wakeup byte) and read the reply; None when
        nothing came within ``timeout``."""
        self._drain()
        self._write(poll)
        sent = time.perf_counter()
        self.polls += 1
        reply = self._read(expect)
        if reply is None:
            self.silences += 1
            return None
        self.times.append(reply[1] - sent)
        return reply[0]

    def _write(self, poll: bytes) -> None:
        if self._serial is not None:
            import serial

            self._serial.parity = serial.PARITY_MARK
            self._serial.write(poll[:1])
            self._serial.flush()  # tcdrain: the wakeup byte is out before parity changes
            self._serial.parity = serial.PARITY_SPACE
            if len(poll) > 1:
                self._serial.write(poll[1:])
                self._serial.flush()
            return
        write_all(self.fd, mark(poll, wakeup=True))

    def flush(self, quiet: float) -> int:
        """Drop what arrives until the line has been quiet for ``quiet`` seconds (late
        replies to polls that timed out); how many bytes were dropped (counted in ``stale``)."""
        dropped = 0
        while chunk := self._raw_read(quiet):
            dropped += len(self._decode(chunk))
        self.stale += dropped
        return dropped

    def _drain(self) -> None:
        """Drop what is waiting (a late reply to an earlier poll), counted in ``stale``."""
        while chunk := self._raw_read(0.0):
            self.stale += len(self._decode(chunk))

    def _read(self, expect: int | None) -> tuple[bytes, float] | None:
        got = bytearray()
        first = 0.0
        deadline = time.perf_counter() + self.timeout
        while expect is None or len(got) < expect:
            now = time.perf_counter()
            wait = deadline - now if not got else self.gap
            if wait <= 0:
                break
            chunk = self._raw_read(wait)
            if not chunk:
                if got:
                    break  # quiet for the inter-byte gap: the reply is over
                continue
            if not got:
                first = time.perf_counter()
            got += self._decode(chunk)
        return (bytes(got), first) if got else None

    def _decode(self, chunk: bytes) -> bytes:
        if not self.pty:
            return chunk
        return bytes(b for b, _ in self._unmarker.feed(chunk))

    def _raw_read(self, timeout: float) -> bytes:
        import select

        ready, _, _ = select.select([self.fd], [], [], max(0.0, timeout))
        return os.read(self.fd, 4096) if ready else b""

    # -- statistics ----------------------------------------------------------------------------

    def summary(self) -> dict[str, Any]:
        """Counts, and round-trip times in ms (median, p99, max; None without replies)."""
        times = list(self.times)
        med, p99 = percentile(times, 0.5), percentile(times, 0.99)
        top = max(self.times) if self.times else None
        return {
            "polls": self.polls,
            "silences": self.silences,
            "bad_crc": self.bad_crc,
            "stale": self.stale,
            **{
                k: None if v is None else round(v * 1000, 3)
                for k, v in (("median_ms", med), ("p99_ms", p99), ("max_ms", top))
            },
        }

    def close(self) -> None:
        if self._serial is not None:
            self._serial.close()
        elif self._own_fd:
            os.close(self.fd)

    def __enter__(self) -> SasHost:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
