"""Emulated SMIBs served by one shared network thread (:class:`NetLoop`), as in a bench:
the same sessions, wills, reconnections and events as with a paho thread each."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import pytest

from twin.hardware.emulator import SmibEmulator
from twin.hardware.netloop import NetLoop
from twin.hardware.records import SmibOffline, SmibOnline, SmibReconciled

from .broker import Broker
from .rig import Rig


@pytest.fixture
def net() -> Iterator[NetLoop]:
    loop = NetLoop()
    try:
        yield loop
    finally:
        loop.close()


def _started(rig: Rig, net: NetLoop, smib: str = "S-001") -> SmibEmulator:
    emu = rig.emulator(smib, start=False)
    emu.start(net)
    rig.until(f"{smib} online", lambda: rig.online(smib))
    return emu


def _wait(what: str, ok: Callable[[], bool], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not ok():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def test_three_smibs_on_one_thread_reconcile(rig: Rig, net: NetLoop) -> None:
    emus = [_started(rig, net, s) for s in ("S-001", "S-002", "S-003")]
    for emu in emus:
        emu.insert_bill(2000)
        emu.play(15)
        emu.cash_out()
        emu.send_meters()
    for s in ("S-001", "S-002", "S-003"):
        rig.until(f"{s} reconciled", lambda s=s: rig.of(SmibReconciled, s) != [])
        assert rig.eids(s) == [1, 2, 3]
    assert all(r.ok for r in rig.of(SmibReconciled))
    for emu in emus:
        emu.stop()
    rig.until("three offline", lambda: len(rig.of(SmibOffline)) == 3)
    assert {(r.smib, r.bd, r.state) for r in rig.of(SmibOffline)} == {
        ("S-001", 1, "offline"), ("S-002", 1, "offline"), ("S-003", 1, "offline")
    }  # fmt: skip


def test_a_killed_smib_sends_what_it_queued_then_its_will_fires(rig: Rig, net: NetLoop) -> None:
    emu = _started(rig, net)
    emu.insert_bill(1000)
    emu.play(5)  # queued in the loop's thread's round ...
    emu.die()  # ... and written before the power goes, as paho's loop_stop would
    rig.until("the will", lambda: rig.of(SmibOffline) != [])
    assert rig.eids() == [1, 2]
    (off,) = rig.of(SmibOffline)
    assert (off.smib, off.bd, off.state) == ("S-001", 1, "lost")


@pytest.mark.parametrize("kill", [False, True], ids=["graceful", "killed"])
def test_broker_restart_the_loop_reconnects(
    rig: Rig, broker: Broker, net: NetLoop, kill: bool
) -> None:
    emu = _started(rig, net)
    emu.insert_bill(2000)
    emu.play(10)
    rig.until("events 1, 2", lambda: rig.eids() == [1, 2])
    (broker.kill if kill else broker.stop)()
    emu.play(10)  # event 3, queued while the broker is down
    time.sleep(1.5)  # at least one reconnection refused
    broker.start()
    _wait("the SMIB's second session", lambda: emu.births >= 2)
    rig.until("the twin reconnected", lambda: rig.link.connects >= 2)
    emu.play(10)  # event 4
    emu.send_meters()
    rig.until("events 1..4", lambda: rig.eids() == [1, 2, 3, 4])
    rig.until("reconciled to eid 4", lambda: any(r.to_eid == 4 for r in rig.of(SmibReconciled)))
    assert all(r.ok for r in rig.of(SmibReconciled))
    assert [r.bd for r in rig.of(SmibOnline)][-1] == emu.memory.bd >= 2


def test_keepalive_gives_a_hung_broker_up(rig: Rig, broker: Broker, net: NetLoop) -> None:
    """The loop's keepalive (2 s for a SMIB) notices a broker that stopped answering and the
    SMIB comes back in a new session once it answers again."""
    emu = _started(rig, net)
    emu.insert_bill(1000)
    rig.until("event 1", lambda: rig.eids() == [1])
    broker.pause()
    try:
        time.sleep(6.0)  # the fault's duration, not a wait for a result
    finally:
        broker.resume()
    _wait("the SMIB's second session", lambda: emu.births >= 2)
    emu.play(5)
    emu.send_meters()
    rig.until("event 2", lambda: rig.eids() == [1, 2])
    rig.until("online", lambda: rig.link.session("S-001")["online"])
    assert rig.link.session("S-001")["bd"] == emu.memory.bd >= 2


def test_wrong_password_is_refused_through_the_loop(rig: Rig, net: NetLoop) -> None:
    emu = rig.emulator("S-002", start=False, password="wrong")
    emu.start(net)
    _wait("the refusal", lambda: emu.refused != [])
    assert "Not authorized" in emu.refused[0]
    assert not emu.client.is_connected()


def test_a_closed_loop_refuses_nothing_and_does_nothing(rig: Rig) -> None:
    """Stopping the twin's link twice (a bench's fixture after the bench stopped it) and
    asking anything of a closed loop is harmless, as paho's disconnect and loop_stop were."""
    rig.link.stop()
    rig.link.stop()
    loop = NetLoop()
    emu = rig.emulator("S-002", start=False)
    loop.close()
    loop.close()
    loop.add(emu.client)
    loop.call_at(0.0, lambda: None)
    loop.disconnect(emu.client)
    started = time.monotonic()
    loop.kill(emu.client)
    assert time.monotonic() - started < 1.0


def test_closing_the_loop_closes_the_sockets_of_the_smibs_it_still_serves(rig: Rig) -> None:
    """A loop closed while it still serves a SMIB (a bench's fixtures torn down loop first)
    cuts its connection, as a power cut: the broker sends the will, and no open socket is
    left to the collector (a ResourceWarning in whatever test collects it)."""
    loop = NetLoop()
    emu = _started(rig, loop, "S-003")
    sock = emu.client.socket()
    assert sock is not None and sock.fileno() >= 0
    loop.close()
    assert sock.fileno() == -1  # closed
    rig.until("its will", lambda: rig.of(SmibOffline) != [])
    (off,) = rig.of(SmibOffline)
    assert (off.smib, off.state) == ("S-003", "lost")
