"""The twin's end of its ``[[sas]]`` lines during a run (issue 30).

For each binding: the port (a new pseudo-terminal pair for ``port = "pty"``, else the serial
device, 19,200 baud with the wakeup bit as parity), a thread serving the machine's view on it
(:class:`twin.hardware.loop.SasView`), the faults the binding asks for on the machine's side
(:class:`FaultyMachine`), and, for ``smib_kind = "reference"``, the reference SMIB
(``twin smib bridge``) as a subprocess on the other end, reporting to the run's broker as the
binding's SMIB. Its MQTT password is ``TWIN_SMIB_PASSWORD`` ('{id}' in it is replaced by the
SMIB's id). The subprocess's output goes to a log file; if it dies, the error says so.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from twin.errors import InputError
from twin.hardware.loop import SasLoop
from twin.hardware.sas.line import FdWire, SasLine, open_serial
from twin.hardware.sas.pty import PtyPair, open_pty

#: The environment variable holding the reference SMIBs' MQTT password ('{id}': the SMIB id).
PASSWORD_ENV = "TWIN_SMIB_PASSWORD"


def check(bindings: list[Any], source: str) -> None:
    """What a run with ``[[sas]]`` needs before t = 0 (InputError naming it): the reference
    SMIBs' password, and serial devices that exist."""
    if any(b.smib_kind == "reference" for b in bindings) and not os.environ.get(PASSWORD_ENV):
        raise InputError(
            "environment", PASSWORD_ENV,
            "the reference SMIBs' MQTT password ('{id}' in it is replaced by each SMIB's id)",
            "nothing",
        )  # fmt: skip
    for i, b in enumerate(bindings):
        for key, port in (("port", b.port), ("smib_port", b.smib_port)):
            if port not in (None, "pty") and not os.path.exists(port):
                raise InputError(source, f"sas[{i}].{key}", "a serial device that exists", port)


class FaultyMachine:
    """A responder in front of a gaming machine, with the binding's faults: line noise (a
    damaged CRC on a poll, which the machine ignores and counts, or on a reply, which the
    SMIB must refuse), a slow machine (every reply late), a silent one (no reply at all in a
    window of simulated time)."""

    def __init__(self, machine: Any, faults: Any, now: Callable[[], float], seed: int = 0) -> None:
        self.machine = machine
        self.faults = faults
        self.now = now
        self.rng = np.random.default_rng(seed)
        self.damaged_polls = 0
        self.damaged_replies = 0
        self.silenced = 0

    def poll_length(self, head: bytes) -> int | None:
        length: int | None = self.machine.poll_length(head)
        return length

    def answer(self, poll: bytes) -> bytes | None:
        f = self.faults
        if f.silent_for_s > 0 and f.silent_at_s <= self.now() < f.silent_at_s + f.silent_for_s:
            self.silenced += 1
            return None
        if f.noise > 0 and len(poll) > 3 and self.rng.random() < f.noise:
            # a bit of the poll's CRC damaged on the way: the machine must ignore it
            self.damaged_polls += 1
            poll = poll[:-1] + bytes([poll[-1] ^ 0x01])
        reply: bytes | None = self.machine.answer(poll)
        if reply is not None and len(reply) >= 3 and f.noise > 0 and self.rng.random() < f.noise:
            self.damaged_replies += 1
            reply = reply[:-1] + bytes([reply[-1] ^ 0x01])
        if f.reply_delay_ms:
            time.sleep(f.reply_delay_ms / 1000)
        return reply


@dataclass
class _Line:
    binding: Any
    loop: SasLoop
    wire: FdWire
    line: SasLine
    thread: threading.Thread
    host_port: str
    pty: PtyPair | None = None
    bridge: subprocess.Popen[bytes] | None = None
    log: Path | None = None
    restarts: int = 0
    restarted: bool = False
    stop: threading.Event = field(default_factory=threading.Event)


class Station:
    """See the module docstring. ``start`` and ``stop`` from the simulation thread."""

    def __init__(
        self,
        loops: Mapping[str, SasLoop],
        bindings: list[Any],
        *,
        broker_url: str,
        ca: str | None,
        now: Callable[[], float],
        python: str = sys.executable,
        source: str = "<scenario>",
    ) -> None:
        self.source = source
        self.loops = dict(loops)
        self.bindings = bindings
        self.broker_url = broker_url
        self.ca = ca
        self.now = now
        self.python = python
        self.lines: dict[str, _Line] = {}
        self.workdir = Path(tempfile.mkdtemp(prefix="twin-sas-"))
        self._stop = threading.Event()
        self._watch: threading.Thread | None = None

    def start(self) -> Station:
        """Open every port, serve it, and start the reference SMIBs; InputError naming the
        ``[[sas]]`` entry whose port cannot be opened (nothing is left running)."""
        check(self.bindings, self.source)
        try:
            for n, b in enumerate(self.bindings):
                try:
                    self.lines[b.smib] = self._serve(b, n)
                except OSError as exc:
                    raise InputError(
                        self.source, f"sas[{n}].port", "a serial port the twin can open",
                        f"{b.port} ({exc.strerror or exc})",
                    ) from None  # fmt: skip
            for ln in self.lines.values():
                if ln.binding.smib_kind == "reference":
                    self._start_bridge(ln)
        except BaseException:
            self.stop()
            raise
        if any(b.faults.smib_restart_at_s > 0 for b in self.bindings):
            self._watch = threading.Thread(target=self._restarts, name="sas-restarts", daemon=True)
            self._watch.start()
        return self

    def _serve(self, b: Any, n: int) -> _Line:
        loop = self.loops[b.smib]
        pty: PtyPair | None = None
        if b.port == "pty":
            pty = open_pty()
            wire, host_port = pty.machine_wire(), pty.host_path
        else:
            wire, host_port = open_serial(b.port), b.smib_port or b.port
        faulty = FaultyMachine(loop.view.machine, b.faults, self.now, seed=n)
        line = SasLine(wire, faulty)
        loop.line_stats = line.stats.summary
        ln = _Line(b, loop, wire, line, threading.Thread(), host_port, pty)
        ln.thread = threading.Thread(
            target=line.run, args=(ln.stop,), name=f"sas-{b.machine}", daemon=True
        )
        ln.thread.start()
        return ln

    def _start_bridge(self, ln: _Line) -> None:
        b = ln.binding
        env = dict(os.environ)  # its password: TWIN_SMIB_PASSWORD, as `twin smib bridge` reads it
        args = [
            self.python, "-m", "twin", "smib", "bridge", "--sas", ln.host_port,
            "--broker", self.broker_url, "--smib", b.smib, "--address", str(b.address),
            "--state", str(self.workdir / f"{b.smib}.json"),
        ]  # fmt: skip
        if self.ca:
            args += ["--ca", self.ca]
        ln.log = self.workdir / f"{b.smib}.log"
        with ln.log.open("ab") as log:
            ln.bridge = subprocess.Popen(
                args, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=env
            )

    def dead_bridge(self) -> str | None:
        """What a reference SMIB that exited said (None: all are running)."""
        for ln in self.lines.values():
            p = ln.bridge
            if p is not None and p.poll() is not None and not ln.restarted:
                tail = ln.log.read_text(errors="replace")[-600:] if ln.log else ""
                return (
                    f"the reference SMIB {ln.binding.smib} exited with code {p.returncode}: "
                    f"{tail.strip() or '(no output)'}"
                )
        return None

    def _restarts(self) -> None:
        """The faults' SMIB restarts: killed (a power cut: its will fires) at the simulated
        time asked, started again ``smib_down_s`` wall seconds later, on its state file."""
        pending = {s: ln for s, ln in self.lines.items() if ln.binding.faults.smib_restart_at_s}
        while pending and not self._stop.wait(0.02):
            for smib, ln in list(pending.items()):
                f = ln.binding.faults
                if self.now() < f.smib_restart_at_s or ln.bridge is None:
                    continue
                ln.restarted = True
                ln.bridge.kill()
                ln.bridge.wait()
                if self._stop.wait(f.smib_down_s):
                    return
                self._start_bridge(ln)
                ln.restarts += 1
                ln.restarted = False
                del pending[smib]

    def drain(self, timeout: float) -> bool:
        """Wait (up to ``timeout`` s) until the SMIBs have read every exception the machines
        raised; True when they have."""
        deadline = time.monotonic() + timeout
        while any(ln.loop.view.waiting() for ln in self.lines.values()):
            if time.monotonic() > deadline:
                return False
            time.sleep(0.02)
        return True

    def stop(self) -> None:
        """Stop the reference SMIBs (SIGTERM, then SIGKILL), the lines and their ports."""
        self._stop.set()
        if self._watch is not None:
            self._watch.join(timeout=10)
        for ln in self.lines.values():
            p = ln.bridge
            if p is not None and p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        for ln in self.lines.values():
            ln.stop.set()
            ln.thread.join(timeout=5)
            with contextlib.suppress(OSError):
                ln.wire.close()
            if ln.pty is not None:
                ln.pty.close()
        for f in sorted(self.workdir.glob("*")):
            with contextlib.suppress(OSError):
                f.unlink()
        with contextlib.suppress(OSError):
            self.workdir.rmdir()


__all__ = ["PASSWORD_ENV", "FaultyMachine", "Station", "check"]
