"""The link end to end against a real Mosquitto: birth, events, snapshots, reconciliation."""

from __future__ import annotations

import contextlib
import gc
import os
import time
from pathlib import Path

from twin.hardware.records import (
    SmibMessageRejected,
    SmibMeters,
    SmibOffline,
    SmibOnline,
    SmibReconciled,
    SmibRequest,
)

from .broker import Broker as Mosquitto
from .offline import Offline
from .rig import Rig


def test_birth_events_and_a_snapshot_reconcile(rig: Rig) -> None:
    emu = rig.emulator("S-001")
    emu.insert_bill(2000)
    emu.play(20)
    emu.cash_out()
    emu.send_meters()
    rig.until("the snapshot", lambda: len(rig.of(SmibReconciled)) == 1)
    (online,) = rig.of(SmibOnline)
    assert (online.smib, online.bd, online.serial, online.last_eid) == ("S-001", 1, "SN-S-001", 0)
    assert rig.eids() == [1, 2, 3]
    (rec,) = rig.of(SmibReconciled)
    assert (rec.ok, rec.from_eid, rec.to_eid, rec.events, rec.mismatches) == (True, 0, 3, 3, ())
    assert [m.source for m in rig.of(SmibMeters)] == ["birth", "meters"]


# -- the link's rules, message by message (no broker: messages handed to receive()) --------


def test_events_wait_for_their_predecessor_and_duplicates_are_refused() -> None:
    o = Offline()
    o.birth(1)
    o.evt(1, 2, 2)
    assert o.eids() == []  # held: event 1 is missing
    o.evt(1, 1, 1)
    o.evt(1, 1, 1)
    assert o.eids() == [1, 2]
    assert [r.reason for r in o.sink.of(SmibMessageRejected)] == ["duplicate"]


def test_a_gap_is_asked_for_only_after_its_window() -> None:
    o = Offline()
    o.birth(1)
    o.evt(1, 3, 3)  # seq 1, 2 and eid 1, 2 missing
    now = time.monotonic()
    o.link.tick(now)  # inside the window (0.3 s + jitter): nothing asked
    assert o.link.requests == {}
    o.link.tick(now + 0.41)
    assert o.link.requests == {"replay_events": 1}
    o.link.tick(now + 0.9)  # rate limit: one request a second
    assert o.link.requests == {"replay_events": 1}
    o.world.pump()
    (req,) = o.sink.of(SmibRequest)
    assert (req.cmd, req.args) == ("replay_events", '{"from_eid":1,"to_eid":2}')


def test_a_gap_filled_inside_its_window_asks_nothing() -> None:
    o = Offline()
    o.birth(1)
    o.evt(1, 2, 2)
    o.evt(1, 1, 1)
    o.link.tick(time.monotonic() + 60)
    assert o.link.requests == {}
    assert o.eids() == [1, 2]


def test_stale_lost_never_marks_a_live_smib_offline() -> None:
    o = Offline()
    o.birth(1)
    o.birth(2)
    o.send("status", bd=1, state="lost")
    assert o.sink.of(SmibOffline) == []
    assert o.link.session("S-001")["online"] is True
    o.send("status", bd=2, state="lost")
    assert [(r.bd, r.state) for r in o.sink.of(SmibOffline)] == [(2, "lost")]


def test_a_message_of_a_session_without_birth_asks_a_rebirth() -> None:
    o = Offline()
    o.birth(1)
    o.evt(2, 5, 1)  # session 2: its birth was lost
    o.link.tick(time.monotonic() + 0.2)
    assert o.link.requests == {"rebirth": 1}


def test_on_message_never_raises() -> None:
    o = Offline()

    def broken(topic: str, payload: bytes) -> None:
        raise KeyError("boom")

    o.link.receive = broken  # type: ignore[method-assign]
    msg = type("M", (), {"topic": "csn/v1/smib/S-001/up/evt", "payload": b"{}"})()
    o.link.on_message(o.link.client, None, msg)  # type: ignore[arg-type]
    o.world.pump()
    assert o.link.rejected == {"internal": 1}
    (rej,) = o.sink.of(SmibMessageRejected)
    assert rej.detail == "KeyError: 'boom'"


def test_a_topic_outside_the_layout_is_refused() -> None:
    o = Offline()
    o.link.receive("csn/v1/smib/S-001/down/cmd", b"{}")
    o.link.receive("csn/v1/smib/S-001/up/nonsense", b"{}")
    o.world.pump()
    assert o.link.rejected == {"topic": 2}


# -- what a stopped client leaves ------------------------------------------------------------


def _open_sockets() -> set[str]:
    """This process's open sockets (fd and inode)."""
    found = set()
    for fd in Path("/proc/self/fd").iterdir():
        with contextlib.suppress(OSError):
            target = os.readlink(fd)
            if target.startswith("socket:"):
                found.add(f"{fd.name}={target}")
    return found


def test_stopped_clients_hold_no_socket(broker: Mosquitto) -> None:
    """The link's stop(), an emulator's stop() and its die() leave no socket open, with every
    object still referenced (so no collection closes anything for them): not the connection,
    and not the pair of loopback sockets paho's loop_start makes to wake its thread, which
    paho closes only in Client.__del__. Left to a reference cycle, those were finalized in no
    set order and warned "unclosed socket" in whatever later test ran a collection."""
    gc.collect()
    before = _open_sockets()
    rig = Rig(broker).start()
    quiet = rig.emulator("S-001")
    dead = rig.emulator("S-002")
    assert len(_open_sockets() - before) >= 9  # 3 clients: a connection and a pair each
    quiet.stop()
    dead.die()
    rig.link.stop()
    assert _open_sockets() == before
    assert all(c is not None for c in (quiet.client, dead.client, rig.link.client))
