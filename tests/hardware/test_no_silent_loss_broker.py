"""Issue 29's four cases on a real Mosquitto, with emulated SMIBs: every event applied once
or declared lost with a finding, no SMIB stalls, replay requests bounded."""

from __future__ import annotations

import copy
from datetime import UTC, datetime

from twin.compliance.findings import Finding
from twin.hardware import protocol as p
from twin.hardware.emulator import Memory, SmibEmulator
from twin.hardware.records import (
    SmibCountersReset,
    SmibEvent,
    SmibEventConflict,
    SmibEventsLost,
    SmibMessageRejected,
    SmibReconciled,
    SmibRequest,
)

from .broker import Broker
from .rig import Rig


def _series_eids(rig: Rig, series: int) -> list[int]:
    return [e.eid for e in rig.of(SmibEvent) if e.series == series]


def _play(emu: SmibEmulator, events: int) -> None:
    """``events`` events: a bill, then stretches of games."""
    emu.insert_bill(5000)
    for _ in range(events - 1):
        emu.play(3)


def test_a_replay_the_smib_can_no_longer_answer_is_declared_and_play_goes_on(rig: Rig) -> None:
    emu = rig.emulator(keep_events=3)  # a replay store of 3
    _play(emu, 4)
    rig.until("events 1..4", lambda: rig.eids() == [1, 2, 3, 4])
    emu.misbehave.drop_next["evt"] = 2  # events 5 and 6 never arrive
    for _ in range(8):
        emu.play(3)  # 5..12: by the time the twin asks, the SMIB holds 10..12 only
    rig.until("the gap declared", lambda: rig.of(SmibEventsLost) != [])
    rig.until("events after the gap", lambda: rig.eids()[-1:] == [12])
    (lost,) = rig.of(SmibEventsLost)
    assert (lost.from_eid, lost.to_eid, lost.reason) == (
        5, 6, "events before 10 are no longer held",
    )  # fmt: skip
    assert rig.eids() == [1, 2, 3, 4, *range(7, 13)]
    emu.play(3)  # no stall: the next event is applied at once
    rig.until("event 13", lambda: rig.eids()[-1:] == [13])
    rig.settle(2.0)
    replays = [r for r in rig.of(SmibRequest) if r.cmd == "replay_events"]
    assert [r.args for r in replays] == ['{"from_eid":5,"to_eid":6}']  # one, bounded
    emu.send_meters()
    rig.until("a reconciliation", lambda: rig.of(SmibReconciled) != [])
    assert [f.control for f in rig.of(Finding)] == ["HW.events_lost"]


def test_a_smib_whose_counters_went_back_starts_a_new_series(rig: Rig) -> None:
    memory = Memory()
    first = rig.emulator(memory=memory)
    _play(first, 3)
    rig.until("events 1..3", lambda: rig.eids() == [1, 2, 3])
    backup = copy.deepcopy(memory)  # its state file, saved now ...
    for _ in range(3):
        first.play(3)
    rig.until("events 4..6", lambda: rig.eids() == [1, 2, 3, 4, 5, 6])
    first.die()  # ... and restored into a board that replaces it
    second = rig.emulator(memory=backup, start=False)
    second.start()
    rig.until("the reset", lambda: rig.of(SmibCountersReset) != [])
    (reset,) = rig.of(SmibCountersReset)
    assert (reset.old_series, reset.series, reset.old_eid, reset.last_eid) == (0, 1, 6, 3)
    assert "event id 6 -> 3 (3 back)" in reset.why
    second.insert_bill(1000)
    second.play(5)
    rig.until("its events 4, 5", lambda: _series_eids(rig, 1) == [4, 5])
    assert _series_eids(rig, 0) == [1, 2, 3, 4, 5, 6]
    second.send_meters()
    rig.until("a reconciliation", lambda: rig.of(SmibReconciled) != [])
    (rec,) = rig.of(SmibReconciled)
    assert (rec.ok, rec.from_eid, rec.to_eid, rec.events) == (True, 3, 5, 2)
    assert [f.control for f in rig.of(Finding)] == ["HW.counters_reset"]


def _phantom(emu: SmibEmulator, pad: int) -> None:
    """A schema-valid event that takes the SMIB's next eid (its own eid does not move)."""
    doc = {
        "v": 1, "smib": emu.smib, "bd": emu.memory.bd, "seq": emu.seq,
        "ts": datetime.now(UTC).isoformat(), "eid": emu.memory.eid + 1, "code": 0x11,
        "name": "slot_door_opened", "epoch": emu.memory.epoch, "deltas": {},
        "data": {"pad": "x" * pad},
    }  # fmt: skip
    emu.seq += 1
    emu.send_bytes(p.up_topic(emu.smib, "evt"), p.encode(doc), leaf="evt")


def test_a_2_mb_phantom_is_refused_and_the_real_event_applied(rig: Rig) -> None:
    emu = rig.emulator()
    emu.insert_bill(1000)
    rig.until("event 1", lambda: rig.eids() == [1])
    _phantom(emu, 2_000_000)
    real = emu.play(5)
    assert real is not None
    rig.until("event 2", lambda: rig.eids() == [1, 2])
    (rej,) = [r for r in rig.of(SmibMessageRejected) if r.reason == "too_large"]
    assert rej.detail.endswith("bytes; at most 8,192 on evt")
    assert rig.of(SmibEvent)[1].digest == p.event_digest(real)
    assert rig.of(SmibEventConflict) == []


def test_a_small_phantom_stands_and_the_real_event_is_a_conflict(rig: Rig) -> None:
    emu = rig.emulator()
    emu.insert_bill(1000)
    rig.until("event 1", lambda: rig.eids() == [1])
    _phantom(emu, 10)
    rig.until("the phantom", lambda: rig.eids() == [1, 2])
    real = emu.play(5)
    assert real is not None
    rig.until("the conflict", lambda: rig.of(SmibEventConflict) != [])
    (c,) = rig.of(SmibEventConflict)
    assert (c.eid, c.second_digest, c.applied) == (2, p.event_digest(real), True)
    assert c.first_digest == rig.of(SmibEvent)[1].digest
    emu.play(5)
    rig.until("event 3", lambda: rig.eids() == [1, 2, 3])
    emu.send_meters()
    rig.until("a reconciliation", lambda: rig.of(SmibReconciled) != [])
    # the refused event's money is in the meters: reconciliation says so
    assert sorted(f.control for f in rig.of(Finding)) == ["HW.event_conflict", "HW.reconcile"]


def test_replays_that_are_never_answered_are_asked_5_times_then_declared(broker: Broker) -> None:
    rig = Rig(broker, request_interval=0.1, request_ttl=0.1).start()
    try:
        emu = rig.emulator()
        emu.insert_bill(1000)
        rig.until("event 1", lambda: rig.eids() == [1])
        emu.misbehave.drop_next["evt"] = 1
        emu.misbehave.drop_next["cmd"] = 99  # every command is lost on its way in
        emu.play(5)
        emu.play(5)  # event 3 shows 2 missing
        rig.until("the gap declared", lambda: rig.of(SmibEventsLost) != [], timeout=30)
        (lost,) = rig.of(SmibEventsLost)
        assert (lost.from_eid, lost.to_eid) == (2, 2)
        assert lost.reason == "replay asked 5 times, last: no answer"
        assert rig.eids() == [1, 3]
        emu.play(5)
        rig.until("event 4", lambda: rig.eids() == [1, 3, 4])  # it goes on
        rig.settle(1.0)
        assert [r.cmd for r in rig.of(SmibRequest)] == ["replay_events"] * 5
        assert emu.dropped["cmd"] == 5
    finally:
        rig.close()
