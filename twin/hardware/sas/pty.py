"""A pseudo-terminal pair standing in for a SAS serial cable (tests, ``twin sas serve --pty``).

The machine keeps the master end; the host opens the slave end by its path (``/dev/pts/N``),
or uses :attr:`PtyPair.host_fd` in the same process. Both ends are raw (8-bit clean: no echo,
no line editing, no CR/LF translation, no signals, no flow control). A pty has no parity, so
both ends write the marked stream of :mod:`twin.hardware.sas.line` (a wakeup byte ``b`` as
``FF 00 b``, a data ``FF`` as ``FF FF``).

The pair keeps the slave end open for as long as it lives, so that a host may open, close
and reopen the path while the machine reads on (a master whose slave has no open fd reads
EIO).
"""

from __future__ import annotations

import contextlib
import os
import tty
from dataclasses import dataclass

from twin.hardware.sas.line import FdWire


@dataclass
class PtyPair:
    """``machine_fd``: the master end; ``host_fd``/``host_path``: the slave end."""

    machine_fd: int
    host_fd: int
    host_path: str

    def machine_wire(self) -> FdWire:
        """The machine's end as a wire (writes marked replies; does not close the fd)."""
        return FdWire(self.machine_fd, marked_writes=True)

    def close(self) -> None:
        for fd in (self.machine_fd, self.host_fd):
            with contextlib.suppress(OSError):
                os.close(fd)

    def __enter__(self) -> PtyPair:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_pty() -> PtyPair:
    """A new pseudo-terminal pair, raw."""
    master, slave = os.openpty()
    try:
        tty.setraw(slave)
        path = os.ttyname(slave)
    except OSError:
        os.close(master)
        os.close(slave)
        raise
    return PtyPair(master, slave, path)


def open_host_end(path: str) -> int:
    """Open a pty's slave end by path for a host (read-write, not as a controlling terminal),
    raw; the caller closes the fd."""
    fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
    try:
        tty.setraw(fd)
    except OSError:
        os.close(fd)
        raise
    return fd
