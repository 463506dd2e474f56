"""The gaming machine's side of a SAS serial line, on real pseudo-terminal pairs (issue 30).

A tiny responder stands in for the protocol core: a general poll to address 1 is answered
``00``; long poll ``11`` (type R, two bytes) with fixed bytes; long poll ``72`` (a length
byte, then that many bytes, then a CRC) echoes its data; anything for another address is
silence.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from twin.hardware.sas.host import SasHost
from twin.hardware.sas.line import (
    INTER_BYTE_GAP,
    REPLY_DEADLINE,
    LineStats,
    SasLine,
    Unmarker,
    mark,
    open_serial,
    percentile,
    write_all,
)
from twin.hardware.sas.pty import PtyPair, open_pty
from twin.hardware.sas.serve import Patron, new_accounts, serve
from twin.machines.par import load_game

GAME = Path(__file__).parents[2] / "twin" / "data" / "scenarios" / "games" / "classic-3reel.toml"


def kermit(data: bytes) -> int:
    """CRC-16/KERMIT, as SAS computes it (check value of b"123456789": 0x2189)."""
    crc = 0
    for b in data:
        q = (crc ^ b) & 0o17
        crc = (crc >> 4) ^ (q * 0o10201)
        q = (crc ^ (b >> 4)) & 0o17
        crc = (crc >> 4) ^ (q * 0o10201)
    return crc


def with_crc(frame: bytes) -> bytes:
    return frame + kermit(frame).to_bytes(2, "little")


#: the reply to long poll 11 (total coin in 1234 credits, BCD), CRC included
METER_REPLY = with_crc(bytes([0x01, 0x11, 0x00, 0x00, 0x12, 0x34]))


class Tiny:
    """A responder that knows three polls (module docstring); ``delay``: seconds to think."""

    address = 1

    def __init__(self, delay: float = 0.0, boom: bool = False) -> None:
        self.delay = delay
        self.boom = boom
        self.polls: list[bytes] = []

    def poll_length(self, head: bytes) -> int | None:
        if head[0] & 0x80:
            return 1
        if len(head) < 2:
            return None
        if head[1] == 0x72:
            return None if len(head) < 3 else 3 + head[2] + 2
        return 2

    def answer(self, poll: bytes) -> bytes | None:
        self.polls.append(poll)
        if self.boom:
            raise RuntimeError("a bug")
        time.sleep(self.delay)
        if poll == bytes([0x81]):
            return b"\x00"
        if poll == bytes([0x01, 0x11]):
            return METER_REPLY
        if poll[:2] == bytes([0x01, 0x72]):
            return with_crc(poll[:-2])  # echo, with a fresh CRC
        return None


class Rig:
    """A line serving ``responder`` on the machine's end of a pty pair, in a thread."""

    def __init__(self, pair: PtyPair, responder: Tiny) -> None:
        self.pair = pair
        self.responder = responder
        self.line = SasLine(pair.machine_wire(), responder)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.line.run, args=(self.stop, 0.02), daemon=True)
        self.thread.start()

    @property
    def stats(self) -> LineStats:
        return self.line.stats

    def send(self, raw: bytes) -> None:
        """Bytes on the wire exactly as given (the host's end)."""
        os.write(self.pair.host_fd, raw)

    def recv(self, n: int, timeout: float = 2.0) -> bytes:
        """Exactly ``n`` bytes from the wire (the host's end), or what came before timeout."""
        got = b""
        end = time.monotonic() + timeout
        while len(got) < n and time.monotonic() < end:
            ready, _, _ = select.select([self.pair.host_fd], [], [], 0.05)
            if ready:
                got += os.read(self.pair.host_fd, n - len(got))
        return got

    def quiet(self, seconds: float = 0.1) -> bytes:
        """What the wire carries within ``seconds`` (b"": the machine stayed silent)."""
        ready, _, _ = select.select([self.pair.host_fd], [], [], seconds)
        return os.read(self.pair.host_fd, 4096) if ready else b""

    def until(self, what: str, cond: Callable[[], bool], timeout: float = 2.0) -> None:
        end = time.monotonic() + timeout
        while not cond():
            assert time.monotonic() < end, what
            time.sleep(0.005)


@pytest.fixture
def pair() -> Iterator[PtyPair]:
    with open_pty() as p:
        yield p


@contextmanager
def rig_on(pair: PtyPair, responder: Tiny | None = None) -> Iterator[Rig]:
    r = Rig(pair, responder or Tiny())
    try:
        yield r
    finally:
        r.stop.set()
        r.thread.join(2)


@pytest.fixture
def rig(pair: PtyPair) -> Iterator[Rig]:
    with rig_on(pair) as r:
        yield r


# -- the marked stream -------------------------------------------------------------------------


def test_kermit_is_the_crc_of_sas() -> None:
    assert kermit(b"123456789") == 0x2189


def test_marking_flags_the_wakeup_byte_and_doubles_ff() -> None:
    assert mark(b"\x81", wakeup=True) == b"\xff\x00\x81"
    assert mark(b"\x01\x72\xff\x02", wakeup=True) == b"\xff\x00\x01\x72\xff\xff\x02"
    assert mark(b"\xff\x01", wakeup=True) == b"\xff\x00\xff\x01"
    assert mark(b"\x01\xff\xff") == b"\x01\xff\xff\xff\xff"
    assert mark(b"") == b""


def test_unmarking_holds_across_reads_and_counts_stray_markers() -> None:
    u = Unmarker()
    stream = b"\x07\xff\x00\x01\x72\xff\xff\x02\xff\x00\xff"
    got = [pair for i in range(len(stream)) for pair in u.feed(stream[i : i + 1])]
    assert got == [(7, False), (1, True), (0x72, False), (0xFF, False), (2, False), (0xFF, True)]
    assert u.feed(b"\xff\x05\x06") == [(5, False), (6, False)]
    assert u.stray == 1


# -- framing through a pty ---------------------------------------------------------------------


def test_a_general_poll_is_framed_and_answered_exactly(rig: Rig) -> None:
    rig.send(b"\xff\x00\x81")
    assert rig.recv(1) == b"\x00"
    rig.until("stats", lambda: rig.stats.replies == 1)
    assert rig.responder.polls == [b"\x81"]
    assert (rig.stats.polls, rig.stats.noise, rig.stats.cut_short) == (1, 0, 0)


def test_a_long_poll_is_framed_by_its_length_and_its_reply_marked(rig: Rig) -> None:
    rig.send(b"\xff\x00\x01\x11")
    assert rig.recv(len(METER_REPLY)) == METER_REPLY  # no FF in it: the bytes as they are
    poll = with_crc(bytes([0x01, 0x72, 0x03, 0xFF, 0x00, 0x7F]))
    rig.send(mark(poll, wakeup=True))
    reply = with_crc(poll[:-2])
    assert b"\xff" in reply
    assert rig.recv(len(mark(reply))) == mark(reply)  # each FF doubled on the pty
    assert rig.responder.polls == [b"\x01\x11", poll]


def test_only_the_wakeup_byte_starts_a_poll(rig: Rig) -> None:
    """``81`` without the wakeup mark is a data byte: noise, never answered."""
    rig.send(b"\x81\x01\x11")
    assert rig.quiet() == b""
    rig.until("noise", lambda: rig.stats.noise == 3)
    rig.send(b"\xff\x00\x81")
    assert rig.recv(1) == b"\x00"
    assert rig.responder.polls == [b"\x81"]


def test_a_poll_for_another_address_is_silence(rig: Rig) -> None:
    rig.send(b"\xff\x00\x82")
    assert rig.quiet() == b""
    rig.until("silent", lambda: rig.stats.silent == 1)
    assert (rig.stats.polls, rig.stats.replies) == (1, 0)


def test_a_poll_cut_by_a_new_wakeup_byte_is_dropped_and_counted(rig: Rig) -> None:
    rig.send(b"\xff\x00\x01\xff\x00\x81")  # a long poll's address, then a general poll
    assert rig.recv(1) == b"\x00"
    rig.until("cut", lambda: rig.stats.cut_short == 1)
    assert (rig.stats.cut_bytes, rig.stats.polls) == (1, 1)
    assert rig.responder.polls == [b"\x81"]


def test_a_poll_cut_by_the_inter_byte_gap_is_dropped_and_its_tail_is_noise(rig: Rig) -> None:
    rig.send(b"\xff\x00\x01")
    time.sleep(INTER_BYTE_GAP * 10)
    rig.send(b"\x11")
    assert rig.quiet() == b""
    rig.until("cut and noise", lambda: (rig.stats.cut_short, rig.stats.noise) == (1, 1))
    assert (rig.stats.cut_bytes, rig.stats.polls, rig.responder.polls) == (1, 0, [])
    rig.send(b"\xff\x00\x01\x11")  # the line goes on
    assert rig.recv(len(METER_REPLY)) == METER_REPLY


def test_a_responder_that_raises_is_silence_and_the_line_goes_on(pair: PtyPair) -> None:
    with rig_on(pair, Tiny(boom=True)) as r:
        r.send(b"\xff\x00\x81\xff\x00\x81")
        assert r.quiet() == b""
        r.until("failed", lambda: r.stats.failed == 2)
        assert r.thread.is_alive()


def test_a_length_out_of_range_drops_the_poll_and_the_line_goes_on(pair: PtyPair) -> None:
    class NoLength(Tiny):
        def poll_length(self, head: bytes) -> int | None:
            return 0 if head[0] == 0x05 else super().poll_length(head)

    with rig_on(pair, NoLength()) as r:
        r.send(b"\xff\x00\x05\x11\xff\x00\x81")
        assert r.recv(1) == b"\x00"
        r.until("failed", lambda: (r.stats.failed, r.stats.noise) == (1, 1))
        assert r.responder.polls == [b"\x81"]


def test_a_slow_responder_is_late_and_measured(pair: PtyPair) -> None:
    with rig_on(pair, Tiny(delay=0.03)) as r:
        r.send(b"\xff\x00\x81")
        assert r.recv(1) == b"\x00"
        r.until("late", lambda: r.stats.late == 1)
        assert r.stats.max_time >= 0.03
        assert r.stats.summary()["max_ms"] >= 30


def test_reply_time_statistics(rig: Rig) -> None:
    for _ in range(20):
        rig.send(b"\xff\x00\x81")
        assert rig.recv(1) == b"\x00"
    rig.until("replies", lambda: rig.stats.replies == 20)
    s = rig.stats.summary()
    times = list(rig.stats.times)
    late = sum(t > REPLY_DEADLINE for t in times)  # 0 unless the machine is very busy
    assert (s["polls"], s["replies"], s["late"], s["deadline_ms"]) == (20, 20, late, 20.0)
    assert s["max_ms"] == round(max(times) * 1000, 3) and rig.stats.max_time == max(times)
    assert 0 < s["median_ms"] <= s["p99_ms"] <= s["max_ms"]
    assert s["median_ms"] < REPLY_DEADLINE * 1000
    lines = rig.stats.render().splitlines()
    assert lines[0].startswith(f"polls: polls 20, replies 20, silent 0, late {late}, noise 0,")
    assert lines[1].startswith("reply time: median ")
    assert lines[1].endswith(f"(deadline 20 ms, {late} late)")


def test_percentile_is_nearest_rank() -> None:
    values = [float(i) for i in range(1, 101)]
    assert (percentile(values, 0.5), percentile(values, 0.99), percentile([], 0.5)) == (
        50.0,
        99.0,
        None,
    )
    assert LineStats().render() == (
        "polls: polls 0, replies 0, silent 0, late 0, noise 0, cut_short 0, cut_bytes 0, "
        "failed 0, stray 0\nreply time: no replies\n"
    )


def test_a_write_waits_while_a_non_blocking_port_is_full(pair: PtyPair) -> None:
    """pyserial opens ports non-blocking: a reply larger than the kernel's buffer is written
    whole once the other end reads, never half (or an error)."""
    os.set_blocking(pair.machine_fd, False)
    data = bytes(range(256)) * 256  # 64 KiB: more than a pty buffers
    got = bytearray()

    def drain() -> None:
        time.sleep(0.1)
        while len(got) < len(data):
            got.extend(os.read(pair.host_fd, 65536))

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    write_all(pair.machine_fd, data)
    reader.join(10)
    assert bytes(got) == data


# -- the host ----------------------------------------------------------------------------------


def test_the_host_polls_through_the_pty_convention(rig: Rig) -> None:
    host = SasHost(rig.pair.host_fd, crc=kermit, timeout=0.5)
    assert host.general_poll(1) == 0x00
    assert host.long_poll(1, 0x11) == METER_REPLY
    data = bytes([0x03, 0xFF, 0x00, 0x7F])
    assert host.long_poll(1, 0x72, data) == with_crc(bytes([0x01, 0x72]) + data)
    assert rig.responder.polls[-1] == with_crc(bytes([0x01, 0x72]) + data)
    assert host.general_poll(2) is None
    s = host.summary()
    assert (s["polls"], s["silences"], s["bad_crc"], s["stale"]) == (4, 1, 0, 0)
    assert s["median_ms"] is not None


def test_the_host_opens_a_pty_by_path_and_drops_a_bad_crc(pair: PtyPair) -> None:
    class BadCrc(Tiny):
        def answer(self, poll: bytes) -> bytes | None:
            reply = super().answer(poll)
            return reply[:-1] + bytes([reply[-1] ^ 1]) if reply and len(reply) > 1 else reply

    with rig_on(pair, BadCrc()) as r:
        with SasHost(pair.host_path, crc=kermit, timeout=0.5) as host:
            assert host.pty
            assert host.long_poll(1, 0x11) is None
            assert (host.bad_crc, host.silences) == (1, 0)
            assert host.general_poll(1) == 0x00
        assert r.thread.is_alive()


def test_the_host_drops_a_late_reply_before_its_next_poll(pair: PtyPair) -> None:
    with rig_on(pair, Tiny(delay=0.15)):
        host = SasHost(pair.host_fd, crc=kermit, timeout=0.05)
        assert host.general_poll(1) is None  # the reply comes after the host gave up
        time.sleep(0.2)
        host.timeout = 0.5
        assert host.long_poll(1, 0x11) == METER_REPLY
        assert (host.silences, host.stale) == (1, 1)


# -- a real port's settings --------------------------------------------------------------------


def test_a_real_port_reads_with_space_parity_and_parmrk(pair: PtyPair) -> None:
    """pyserial opens the port at 19,200 baud, 8 data bits, space parity, 1 stop bit (here a
    pty's slave end, whose driver keeps the input flags but drops PARENB from its own) and
    the line sets the input flags that turn a wakeup byte into ``FF 00 b``."""
    import serial

    wire = open_serial(pair.host_path)
    try:
        ser = wire.owner
        assert (ser.baudrate, ser.bytesize, ser.parity, ser.stopbits) == (
            19_200,
            serial.EIGHTBITS,
            serial.PARITY_SPACE,
            serial.STOPBITS_ONE,
        )
        iflag, _, cflag, _, ispeed, _, _ = termios.tcgetattr(wire.fd)
        assert iflag & termios.INPCK and iflag & termios.PARMRK
        assert not iflag & (termios.IGNPAR | termios.ISTRIP)
        assert cflag & termios.CSIZE == termios.CS8 and not cflag & termios.PARODD
        assert ispeed == termios.B19200
        assert not wire.marked_writes
    finally:
        wire.close()


# -- serving a played machine ------------------------------------------------------------------


def test_serve_plays_the_machine_and_answers_polls(pair: PtyPair) -> None:
    accounts = new_accounts()
    lock = threading.RLock()
    events: list[str] = []
    patron = Patron(
        accounts, load_game(GAME), seed=3, lock=lock, on_event=lambda k, d: events.append(k)
    )
    stop = threading.Event()
    line, threads = serve(pair.machine_wire(), Tiny(), stop, patron=patron, rate=200)
    try:
        host = SasHost(pair.host_fd, crc=kermit, timeout=0.5)
        for _ in range(10):
            assert host.general_poll(1) == 0x00
        end = time.monotonic() + 5
        while patron.activities < 20:
            assert time.monotonic() < end
            time.sleep(0.01)
    finally:
        stop.set()
        for t in threads:
            t.join(2)
    assert line.stats.replies == 10
    assert len(events) == patron.activities >= 20
    assert events[0] == "bill_accepted"
    assert {"bill_accepted", "game_ended"} <= set(events)
    with lock:
        assert accounts.invariant_violations() == []
        assert accounts.readings()["total_coin_in"] > 0


# -- twin sas serve ----------------------------------------------------------------------------


def _twin(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "twin", *args], capture_output=True, text=True, timeout=60
    )


def test_sas_serve_bad_input_is_one_line_and_exit_2() -> None:
    cases = {
        (): "twin: error: --port/--pty: expected exactly one of --port PATH or --pty, "
        "found 'none'\n",
        ("--pty", "--port", "/dev/null"): "twin: error: --port/--pty: expected exactly one "
        "of --port PATH or --pty, found 'both'\n",
        ("--pty", "--address", "128"): "twin: error: sas serve: Invalid value for '--address': "
        "128 is not in the range 1<=x<=127.\n",
        ("--pty", "--game", "/nowhere.toml"): "twin: error: /nowhere.toml: expected a readable "
        "PAR sheet file, found 'No such file or directory'\n",
    }
    for args, message in cases.items():
        proc = _twin("sas", "serve", *args)
        assert (proc.returncode, proc.stderr) == (2, message), args
    proc = _twin("sas", "serve", "--port", "/nowhere/tty")
    assert proc.returncode == 2
    assert proc.stderr.startswith(
        "twin: error: /nowhere/tty: expected a serial port that can be opened, found "
    ), proc.stderr
    assert proc.stderr.count("\n") == 1


def test_sas_serve_on_a_pty_answers_a_host_and_prints_its_reply_times() -> None:
    """Needs the protocol core (``twin.hardware.sas.gaming``): a general poll to the
    machine's address is answered (``00`` when nothing is pending)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "twin", "sas", "serve", "--pty", "--address", "3",
         "--seconds", "4", "--rate", "50"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert first.startswith("pty: /dev/pts/") and first.endswith(", address 3\n"), first
        path = first.split()[1].rstrip(",")
        with SasHost(path, crc=kermit, timeout=0.5) as host:
            answers = [host.general_poll(3) for _ in range(10)]
            assert host.general_poll(4) is None
        assert all(isinstance(a, int) for a in answers), answers
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("activities: ") and int(lines[0].split()[1]) > 0
    assert lines[1].startswith("polls: polls 11, replies 10, silent 1, late ")
    assert lines[2].startswith("reply time: median ") and "(deadline 20 ms," in lines[2]


def test_sas_serve_stopped_by_ctrl_c_prints_its_statistics() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "twin", "sas", "serve", "--pty", "--rate", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        path = proc.stdout.readline().split()[1].rstrip(",")
        with SasHost(path, crc=kermit, timeout=0.5) as host:
            assert isinstance(host.general_poll(1), int)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert (proc.returncode, err) == (130, "twin: interrupted (SIGINT)\n")
    lines = out.splitlines()
    assert lines[0] == "activities: 0"
    assert lines[1].startswith("polls: polls 1, replies 1, silent 0,")
    assert lines[2].startswith("reply time: median ")
