"""Every fault of the contract that is built, each a test against a real Mosquitto.

The broker is started by the test (tests/hardware/broker.py): a free port, its own config,
password and ACL files. Waits poll with generous deadlines; nothing here depends on timing
except that the reorder window (0.3 s) is shorter than those deadlines.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from twin.compliance.findings import Finding
from twin.hardware import protocol as p
from twin.hardware.emulator import Memory, SmibEmulator
from twin.hardware.link import SmibLink, close_socket
from twin.hardware.records import (
    SmibCommandResult,
    SmibEvent,
    SmibEventsLost,
    SmibMessageRejected,
    SmibMeterReset,
    SmibMeters,
    SmibOffline,
    SmibOnline,
    SmibReconciled,
    SmibRequest,
)

from .broker import TWIN_PASSWORD, TWIN_USER, Broker, smib_password, wait_until
from .rig import Rig


def _rejected(rig: Rig, reason: str) -> list[SmibMessageRejected]:
    return [r for r in rig.of(SmibMessageRejected) if r.reason == reason]


def _reconciled(rig: Rig, n: int) -> list[SmibReconciled]:
    rig.until(f"{n} reconciliations", lambda: len(rig.of(SmibReconciled)) >= n)
    return rig.of(SmibReconciled)


def _play(emu: SmibEmulator, rounds: int = 3) -> None:
    emu.insert_bill(2000)
    for _ in range(rounds):
        emu.play(10)


# -- delivery --------------------------------------------------------------------------------


def test_duplicate_delivery(rig: Rig) -> None:
    emu = rig.emulator()
    emu.misbehave.duplicate_next["evt"] = 2
    _play(emu, 2)  # events 1 (twice), 2 (twice), 3
    emu.send_meters()
    (rec,) = _reconciled(rig, 1)
    assert rig.eids() == [1, 2, 3]
    assert [r.detail for r in _rejected(rig, "duplicate")] == [
        "event 1 already received",
        "event 2 already received",
    ]
    assert rig.link.rejected == {"duplicate": 2}
    assert (rec.ok, rec.events) == (True, 3)


@pytest.fixture
def patient_rig(broker: Broker) -> Iterator[Rig]:
    """A rig whose reorder window (5 s) no adjacent pair of messages can outlast."""
    r = Rig(broker, reorder_window=5.0).start()
    try:
        yield r
    finally:
        r.close()


def test_out_of_order_delivery(patient_rig: Rig) -> None:
    rig = patient_rig
    emu = rig.emulator()
    emu.misbehave.hold_next["evt"] = 1
    _play(emu, 3)  # event 1 is held back and sent after event 2: 2, 1, 3, 4
    emu.send_meters()
    (rec,) = _reconciled(rig, 1)
    assert rig.eids() == [1, 2, 3, 4]  # applied in eid order
    assert rig.of(SmibRequest) == []  # the window closed the gap: nothing was asked again
    assert rig.link.rejected == {}
    assert rec.ok


def test_lost_messages_gap_replay(rig: Rig) -> None:
    emu = rig.emulator()
    emu.misbehave.drop_next["evt"] = 2
    _play(emu, 3)  # events 1 and 2 never arrive; 3 and 4 do (seq gap and eid gap)
    rig.until("events 1..4", lambda: rig.eids() == [1, 2, 3, 4])
    (req,) = rig.of(SmibRequest)  # the gap only: 3 and 4 are not asked for again
    assert (req.cmd, json.loads(req.args)) == ("replay_events", {"from_eid": 1, "to_eid": 2})
    replayed = {e.eid: e.replay for e in rig.of(SmibEvent)}
    assert replayed == {1: True, 2: True, 3: False, 4: False}
    emu.send_meters()
    (rec,) = _reconciled(rig, 1)
    assert (rec.ok, rec.events) == (True, 4)
    assert emu.dropped == {"evt": 2}


def test_lost_last_message_found_by_the_next_snapshot(rig: Rig) -> None:
    emu = rig.emulator()
    emu.misbehave.drop_next["evt"] = 1
    emu.insert_bill(1000)  # event 1 is lost and nothing follows it ...
    emu.send_meters()  # ... until a snapshot says it reflects event 1
    (rec,) = _reconciled(rig, 1)
    assert rig.eids() == [1]
    assert rec.ok
    assert [r.cmd for r in rig.of(SmibRequest)] == ["replay_events"]


def test_lost_messages_that_cannot_be_replayed(rig: Rig) -> None:
    emu = rig.emulator(keep_events=2)
    emu.misbehave.drop_next["evt"] = 3
    _play(emu, 4)  # 5 events: 1..3 lost, and the SMIB holds only 4 and 5
    rig.until("the lost range", lambda: rig.of(SmibEventsLost) != [])
    rig.until("events 4 and 5", lambda: rig.eids() == [4, 5])
    (lost,) = rig.of(SmibEventsLost)
    assert (lost.from_eid, lost.to_eid) == (1, 3)
    assert "no longer held" in lost.reason
    emu.send_meters()
    (rec,) = _reconciled(rig, 1)
    assert not rec.ok
    assert rec.mismatches == ("events 1..3 lost: the interval cannot be reconciled",)
    findings = rig.of(Finding)
    assert [f.control for f in findings] == ["HW.events_lost"]  # not also a mismatch


def test_reorder_window_then_rebirth_for_a_session_without_birth(broker: Broker) -> None:
    """The twin comes up after the SMIB: a message of an unknown session asks a rebirth."""
    emu = SmibEmulator(
        "S-001",
        Rig(broker).endpoint,
        smib_password("S-001"),
        Rig(broker).game,
        memory=Memory(),
    )
    emu.start()
    wait_until("the SMIB connected", emu.client.is_connected)
    emu.insert_bill(1000)  # event 1, before the twin listens
    rig = Rig(broker).start()
    try:
        emu.play(5)  # event 2: a session the twin saw no birth of
        rig.until("a rebirth", lambda: rig.online("S-001"))
        assert [r.cmd for r in rig.of(SmibRequest)][:1] == ["rebirth"]
        (online,) = rig.of(SmibOnline)
        assert (online.bd, online.last_eid) == (1, 2)  # the birth says what came before
        emu.play(5)
        rig.until("event 3", lambda: rig.eids() == [3])
    finally:
        emu.client.disconnect()
        emu.client.loop_stop()
        close_socket(emu.client)
        rig.close()


# -- sessions and wills ----------------------------------------------------------------------


def test_smib_killed_will_fires(rig: Rig) -> None:
    emu = rig.emulator()
    emu.insert_bill(1000)
    rig.until("event 1", lambda: rig.eids() == [1])
    emu.die()
    rig.until("the will", lambda: rig.of(SmibOffline) != [])
    (off,) = rig.of(SmibOffline)
    assert (off.smib, off.bd, off.state) == ("S-001", 1, "lost")
    assert rig.link.session("S-001")["online"] is False


def test_clean_shutdown_says_offline(rig: Rig) -> None:
    emu = rig.emulator()
    emu.stop()
    rig.until("offline", lambda: rig.of(SmibOffline) != [])
    assert [(r.bd, r.state) for r in rig.of(SmibOffline)] == [(1, "offline")]


def test_stale_lost_after_new_birth(rig: Rig) -> None:
    memory = Memory()
    first = rig.emulator(memory=memory)
    first.insert_bill(1000)
    rig.until("event 1", lambda: rig.eids() == [1])
    first.die()
    second = rig.emulator(memory=memory, start=False)
    second.start()  # session 2
    rig.until("session 2", lambda: rig.link.session("S-001")["bd"] == 2)
    rig.until("online", lambda: rig.link.session("S-001")["online"])
    # the old session's will, delivered late (it raced the new birth)
    stale = {"v": 1, "smib": "S-001", "bd": 1, "state": "lost"}
    second.send_bytes(p.up_topic("S-001", "status"), p.encode(stale))
    rig.until("the stale will refused", lambda: _rejected(rig, "stale") != [])
    second.insert_bill(1000)
    rig.until("event 2", lambda: rig.eids() == [1, 2])
    assert rig.link.session("S-001")["online"] is True
    births = [r.bd for r in rig.of(SmibOnline)]
    assert births == [1, 2]
    # an offline record of session 1 may come from the real will (before the new birth),
    # never one that marks session 2 offline
    assert all(r.bd == 1 for r in rig.of(SmibOffline))
    last_birth = rig.of(SmibOnline)[-1].seq
    assert all(r.seq < last_birth for r in rig.of(SmibOffline))


def test_twin_restart_resumes_from_its_records(broker: Broker) -> None:
    """The twin stops; the SMIB plays on; a new twin that resumes from the first one's
    records asks for a rebirth and replays what it missed: every event once overall."""
    from twin.hardware.link import resume_points

    first = Rig(broker).start()
    emu = first.emulator()
    _play(emu, 1)
    first.until("events 1, 2", lambda: first.eids() == [1, 2])
    first.link.stop()  # the twin only: the SMIB stays up
    emu.play(5)
    emu.play(5)  # events 3, 4: nobody listens
    # ... and they have left: a QoS 1 message sent after them is acknowledged by the broker
    # (one connection, in order), so the second twin cannot get them live (on a loaded
    # machine the SMIB's network thread sent them after the second twin had subscribed)
    sync = emu.client.publish(p.up_topic("S-001", "status"), emu._status("online"), 1, True)
    sync.wait_for_publish(timeout=10)
    assert sync.is_published()
    second = Rig(broker)
    second.link = SmibLink(
        second.world.inbox,
        second.registry,
        second.link.config,
        resume=resume_points(first.sink.records),
    )
    second.start()
    try:
        second.until("events 3, 4", lambda: second.eids() == [3, 4])
        assert [r.cmd for r in second.of(SmibRequest)] == ["rebirth", "replay_events"]
        emu.send_meters()
        (rec,) = _reconciled(second, 1)
        assert (rec.from_eid, rec.to_eid, rec.ok) == (4, 4, True)
    finally:
        emu.client.disconnect()
        emu.client.loop_stop()
        close_socket(emu.client)
        second.close()


# -- bad messages ----------------------------------------------------------------------------


def test_malformed_json(rig: Rig) -> None:
    emu = rig.emulator()
    emu.send_bytes(p.up_topic("S-001", "evt"), b'{"v": 1, "smib": ')
    emu.send_bytes(p.up_topic("S-001", "evt"), b"\xff\xfe")
    emu.insert_bill(1000)  # the link keeps running
    rig.until("event 1", lambda: rig.eids() == [1])
    bad = _rejected(rig, "invalid_json")
    assert len(bad) == 2
    assert bad[0].smib == "S-001" and bad[0].topic == "csn/v1/smib/S-001/up/evt"
    assert rig.link.rejected == {"invalid_json": 2}


def test_schema_violation(rig: Rig) -> None:
    emu = rig.emulator()
    good = {"v": 1, "smib": "S-001", "bd": 1, "seq": 90, "ts": "x", "code": 17, "epoch": 0}
    emu.send_bytes(p.up_topic("S-001", "evt"), p.encode({**good, "deltas": {}}))  # no eid
    emu.send_bytes(p.up_topic("S-001", "evt"), p.encode({**good, "eid": 1, "deltas": {"x": -1}}))
    emu.insert_bill(1000)
    rig.until("event 1", lambda: rig.eids() == [1])
    details = [r.detail for r in _rejected(rig, "schema")]
    assert details == [
        "evt schema: (payload): 'eid' is a required property",
        "evt schema: deltas/x: -1 is less than the minimum of 0",
    ]


def test_unknown_smib(rig: Rig) -> None:
    stranger = rig.emulator("X-999", start=False)
    stranger.start()
    rig.until("X-999 refused", lambda: _rejected(rig, "unknown_smib") != [])
    rej = _rejected(rig, "unknown_smib")[0]
    assert (rej.smib, rej.detail) == ("X-999", "'X-999' is not registered")
    assert rig.of(SmibOnline) == []


def test_topic_payload_id_mismatch(rig: Rig) -> None:
    emu = rig.emulator()
    body = {"v": 1, "smib": "S-002", "bd": 1, "state": "lost"}
    emu.send_bytes(p.up_topic("S-001", "status"), p.encode(body))
    rig.until("the mismatch refused", lambda: _rejected(rig, "id_mismatch") != [])
    (rej,) = _rejected(rig, "id_mismatch")
    assert (rej.smib, rej.detail) == ("S-001", "payload smib 'S-002' on this topic")
    assert rig.of(SmibOffline) == []


def test_wrong_credentials(rig: Rig) -> None:
    emu = rig.emulator("S-002", password="not-the-password", start=False)
    emu.start()
    wait_until("the refusal", lambda: emu.refused != [])
    assert emu.refused[0] == "Not authorized"
    assert not emu.client.is_connected()
    rig.settle(0.3)
    assert rig.of(SmibOnline) == []


def test_acl_violation(rig: Rig) -> None:
    """A SMIB can neither write another SMIB's up-topics nor read its down-topics."""
    emu = rig.emulator("S-001")
    forged = {"v": 1, "smib": "S-002", "bd": 7, "state": "lost"}
    emu.send_bytes(p.up_topic("S-002", "status"), p.encode(forged))  # denied by the broker
    emu.insert_bill(1000)  # sent after it on the same connection
    rig.until("event 1", lambda: rig.eids() == [1])
    rig.settle(0.2)
    assert [r for r in rig.sink.records if r.entity("smib") == "S-002"] == []
    # reading: S-001 subscribes to S-002's commands; the broker never delivers them
    got: list[str] = []
    spy = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="S-001-spy")
    spy.username_pw_set("S-001", smib_password("S-001"))
    spy.on_message = lambda c, u, m: got.append(m.topic)
    subscribed = threading.Event()
    spy.on_subscribe = lambda c, u, mid, codes, props: subscribed.set()
    spy.connect(rig.broker.host, rig.broker.port)
    spy.loop_start()
    try:
        spy.subscribe([(p.down_topic("S-002"), 1), (p.down_topic("S-001"), 1)])
        assert subscribed.wait(20)
        for smib in ("S-002", "S-001"):
            body = {"v": 1, "cmd_id": f"spy-{smib}", "cmd": "ping", "expires": time.time() + 60}
            rig.link.client.publish(p.down_topic(smib), p.encode(body), qos=1)
        wait_until("its own command", lambda: p.down_topic("S-001") in got)
        assert got == [p.down_topic("S-001")]
    finally:
        spy.disconnect()
        spy.loop_stop()
        close_socket(spy)


# -- the broker ------------------------------------------------------------------------------


@pytest.mark.parametrize("kill", [False, True], ids=["graceful", "killed"])
def test_broker_restart(rig: Rig, broker: Broker, kill: bool) -> None:
    emu = rig.emulator()
    _play(emu, 2)  # events 1..3
    rig.until("events 1..3", lambda: rig.eids() == [1, 2, 3])
    (broker.kill if kill else broker.stop)()
    emu.play(10)  # event 4, queued in the SMIB while the broker is down
    broker.start()
    wait_until("the SMIB's second session", lambda: emu.births >= 2)
    rig.until("the twin reconnected", lambda: rig.link.connects >= 2)
    emu.play(10)  # event 5
    emu.send_meters()
    rig.until("events 1..5", lambda: rig.eids() == [1, 2, 3, 4, 5])
    recs = _reconciled(rig, 2)  # (the session 2 birth, then the snapshot)
    assert all(r.ok for r in recs), [r.mismatches for r in recs]
    assert rig.link.session("S-001")["bd"] == 2


def test_broker_paused(rig: Rig, broker: Broker) -> None:
    emu = rig.emulator()
    broker.pause()
    try:
        _play(emu, 2)  # sent into a hung broker
    finally:
        broker.resume()
    emu.send_meters()
    rig.until("events 1..3", lambda: rig.eids() == [1, 2, 3])
    (rec,) = _reconciled(rig, 1)
    assert rec.ok


def test_broker_hung_past_keepalive(rig: Rig, broker: Broker) -> None:
    """The broker hangs for 7 s: the SMIB (keepalive 2 s) gives it up and reconnects once it
    answers again; its old session's will may race its new birth. Nothing is lost or counted
    twice, and the SMIB ends online in its new session."""
    emu = rig.emulator()
    _play(emu, 1)
    rig.until("events 1, 2", lambda: rig.eids() == [1, 2])
    broker.pause()
    try:
        emu.play(5)
        time.sleep(7.0)  # the fault's duration, not a wait for a result
    finally:
        broker.resume()
    emu.play(5)
    emu.send_meters()
    rig.until("events 1..4", lambda: rig.eids() == [1, 2, 3, 4])
    rig.until("online", lambda: rig.link.session("S-001")["online"])
    rig.until("a reconciliation to eid 4", lambda: any(
        r.to_eid == 4 for r in rig.of(SmibReconciled)))  # fmt: skip
    assert all(r.ok for r in rig.of(SmibReconciled))
    assert emu.births >= 2  # the SMIB gave the hung broker up and came back in a new session
    assert rig.link.session("S-001")["bd"] == emu.memory.bd


# -- meters ----------------------------------------------------------------------------------


def test_meter_rollover(rig: Rig) -> None:
    emu = rig.emulator(start=False, digits=4)
    emu.preset_meters({"total_coin_in": 9_990, "games_played": 9_995, "total_drop": 9_999})
    emu.start()
    rig.until("online", lambda: rig.online("S-001"))
    emu.insert_bill(1000)
    emu.play(20)
    emu.send_meters()
    (rec,) = _reconciled(rig, 1)
    birth, after = rig.of(SmibMeters)
    coin_in = dict(zip(after.meters, after.values, strict=True))["total_coin_in"]
    assert dict(zip(birth.meters, birth.values, strict=True))["total_coin_in"] == 9_990
    assert coin_in < 9_990  # rolled over at 10 ** 4
    assert (rec.ok, rec.mismatches) == (True, ())


def test_meter_reset_epoch(rig: Rig) -> None:
    emu = rig.emulator()
    _play(emu, 1)
    emu.reset_meters()  # RAM clear: epoch 1, every meter to zero
    _play(emu, 1)
    emu.send_meters()
    rig.until("the reset", lambda: rig.of(SmibMeterReset) != [])
    (rec,) = _reconciled(rig, 1)  # within epoch 1: the reset's snapshot -> the last one
    (reset,) = rig.of(SmibMeterReset)
    assert (reset.old_epoch, reset.new_epoch) == (0, 1)
    assert (rec.epoch, rec.from_eid, rec.to_eid, rec.ok) == (1, 3, 5, True)
    assert [f.control for f in rig.of(Finding)] == ["HW.meter_reset"]


def test_meters_moved_without_events_is_a_finding(rig: Rig) -> None:
    emu = rig.emulator()
    _play(emu, 1)
    emu.skew_meter("total_coin_out", 40)  # money out with no event behind it
    emu.send_meters()
    (rec,) = _reconciled(rig, 1)
    assert not rec.ok
    assert rec.mismatches == (
        "total_coin_out: meters moved {}, events say {}".format(*_coin_out(rig)),
    )
    (finding,) = rig.of(Finding)
    assert (finding.control, finding.severity, finding.subjects) == (
        "HW.reconcile",
        "breach",
        ("S-001",),
    )
    assert finding.evidence == (*rec.evidence, rec.seq)


def _coin_out(rig: Rig) -> tuple[int, int]:
    said = sum(
        dict(zip(e.meters, e.deltas, strict=True)).get("total_coin_out", 0)
        for e in rig.of(SmibEvent)
    )
    return said + 40, said


def test_exception_queue_overflow(rig: Rig) -> None:
    """Events lost inside the machine (SAS 0x70): the meters still count the games, the
    interval does not reconcile, and the finding says why (a warning, not a breach)."""
    emu = rig.emulator()
    emu.insert_bill(2000)
    emu.overflow_queue(10)
    emu.send_meters()
    (rec,) = _reconciled(rig, 1)
    assert not rec.ok
    assert any(m.startswith("games_played: meters moved 10, events say 0") for m in rec.mismatches)
    (finding,) = rig.of(Finding)
    assert (finding.control, finding.severity) == ("HW.queue_overflow", "warning")
    assert "SAS 0x70, eid 2" in finding.message


def test_identity_mismatch(rig: Rig) -> None:
    rig.emulator("S-002", serial="SN-SWAPPED", program="f" * 64)
    rig.until("the finding", lambda: rig.of(Finding) != [])
    (finding,) = rig.of(Finding)
    assert finding.control == "HW.identity"
    assert finding.message == (
        "SMIB S-002 on machine A-002 reports serial 'SN-SWAPPED' (registered 'SN-S-002') and "
        f"programme '{'f' * 64}' (certified '{rig.game.signature}'): only the registered "
        "machine running its certified programme may operate (reg 28(3))"
    )


# -- commands --------------------------------------------------------------------------------


def _command(rig: Rig, smib: str, cmd_id: str, cmd: str, expires: float) -> None:
    body = {"v": 1, "cmd_id": cmd_id, "cmd": cmd, "expires": expires}
    rig.link.client.publish(p.down_topic(smib), p.encode(body), qos=1)


def test_command_expired(rig: Rig) -> None:
    rig.emulator()
    _command(rig, "S-001", "old-1", "ping", time.time() - 1)
    rig.until("the answer", lambda: rig.of(SmibCommandResult) != [])
    (res,) = rig.of(SmibCommandResult)
    assert (res.cmd_id, res.result) == ("old-1", "expired")


def test_command_ack_lost_resent_command_runs_once(rig: Rig) -> None:
    emu = rig.emulator()
    for _ in range(2):  # the twin did not see the first answer and sends it again
        _command(rig, "S-001", "m-1", "read_meters", time.time() + 60)
    rig.until("two answers", lambda: len(rig.of(SmibCommandResult)) == 2)
    assert [r.result for r in rig.of(SmibCommandResult)] == ["completed", "duplicate"]
    assert [m.source for m in rig.of(SmibMeters)] == ["birth", "meters"]  # read once
    assert emu.sent["meters"] == 1


def test_tools_reject_bad_misbehave_text() -> None:
    from twin.hardware.emulator import Misbehaviour

    assert Misbehaviour.parse("drop=0.1, delay=0.5").drop == 0.1
    with pytest.raises(ValueError, match=r"^'fly=1': expected drop, duplicate"):
        Misbehaviour.parse("fly=1")
    with pytest.raises(ValueError, match=r"^drop: expected 0..1, found 2"):
        Misbehaviour.parse("drop=2")
    assert Misbehaviour.parse("reset_at=5,die_at=9").die_at == 9
    with pytest.raises(ValueError, match=r"^die_at: expected a whole number >= 1, found '0'"):
        Misbehaviour.parse("die_at=0")


def test_emulator_keeps_bd_and_eid_across_restarts(tmp_path: Path, broker: Broker) -> None:
    rig = Rig(broker).start()
    try:
        state = tmp_path / "S-001.json"
        first = rig.emulator(memory=Memory.load(state))
        first.insert_bill(1000)
        rig.until("event 1", lambda: rig.eids() == [1])
        first.die()
        second = rig.emulator(memory=Memory.load(state), start=False)
        second.start()
        rig.until("session 2", lambda: rig.link.session("S-001")["bd"] == 2)
        second.insert_bill(1000)
        rig.until("event 2", lambda: rig.eids() == [1, 2])
        assert json.loads(state.read_text())["bd"] == 2
        assert [e.bd for e in rig.of(SmibEvent)] == [1, 2]
    finally:
        rig.close()


def test_twin_status_and_its_will(broker: Broker) -> None:
    seen: list[dict[str, str]] = []
    watcher = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="watch")
    watcher.username_pw_set(TWIN_USER, TWIN_PASSWORD)
    watcher.on_message = lambda c, u, m: seen.append(json.loads(m.payload))
    watcher.connect(broker.host, broker.port)
    watcher.subscribe(p.twin_status_topic("twin"), qos=1)
    watcher.loop_start()
    try:
        rig = Rig(broker).start()
        wait_until("online", lambda: any(s["state"] == "online" for s in seen))
        rig.link.client.loop_stop()  # the twin dies without a goodbye
        sock = rig.link.client.socket()
        assert sock is not None
        sock.close()  # type: ignore[union-attr]
        rig.link._stop.set()
        wait_until("its will", lambda: seen[-1]["state"] == "offline")
        assert seen[-1] == {"v": 1, "twin": "twin", "state": "offline"}
    finally:
        watcher.disconnect()
        watcher.loop_stop()
        close_socket(watcher)


def test_command_lost_is_asked_again(rig: Rig) -> None:
    emu = rig.emulator()
    emu.misbehave.drop_next["evt"] = 1
    emu.misbehave.drop_next["cmd"] = 1  # the first replay request never arrives
    emu.insert_bill(1000)
    emu.play(5)  # event 2 shows event 1 missing
    rig.until("events 1 and 2", lambda: rig.eids() == [1, 2])
    requests = rig.of(SmibRequest)
    assert [json.loads(r.args) for r in requests] == [{"from_eid": 1, "to_eid": 1}] * 2
    assert emu.dropped == {"evt": 1, "cmd": 1}


def test_reconnect_storm(broker: Broker) -> None:
    """Twelve SMIBs lose the broker at once (kill -9) and all come back together."""
    smibs = tuple(f"R-{i:03d}" for i in range(1, 13))
    rig = Rig(broker, smibs=smibs).start()
    try:
        emus = [rig.emulator(s) for s in smibs]
        for emu in emus:
            _play(emu, 1)
        rig.until("2 events each", lambda: all(rig.eids(s) == [1, 2] for s in smibs))
        broker.kill()
        for emu in emus:
            emu.play(5)  # event 3, queued while the broker is gone
        broker.start()
        wait_until("every SMIB back", lambda: all(e.births >= 2 for e in emus))
        for emu in emus:
            emu.play(5)  # event 4
            emu.send_meters()
        rig.until("4 events each", lambda: all(rig.eids(s) == [1, 2, 3, 4] for s in smibs))
        rig.until("a reconciliation each", lambda: {r.smib for r in rig.of(SmibReconciled)}
                  == set(smibs))  # fmt: skip
        assert all(r.ok for r in rig.of(SmibReconciled))
        assert rig.link.rejected.keys() <= {"duplicate", "stale"}
    finally:
        rig.close()


def test_every_accepted_event_is_in_the_ledger_exactly_once(tmp_path: Path, broker: Broker) -> None:
    """A SMIB that drops, duplicates, reorders and delays (seeded): the ledger still holds
    events 1..60 once each, in order, and every reconciliation is ok."""
    from twin.hardware.emulator import Misbehaviour
    from twin.ledger import Ledger, read, verify

    ledger = Ledger(tmp_path / "hw.sqlite")
    rig = Rig(broker, sinks=(ledger,)).start()
    try:
        mis = Misbehaviour(drop=0.1, duplicate=0.1, reorder=0.1, delay=0.05)
        emu = rig.emulator(misbehave=mis, seed=7)
        emu.insert_bill(5000)
        while emu.memory.eid < 60:
            emu.play(3) or emu.insert_bill(5000)
            if emu.memory.eid % 10 == 0:
                emu.send_meters()
        emu.flush_held()
        emu.misbehave = Misbehaviour()
        emu.send_meters()
        rig.until("events 1..60", lambda: rig.eids() == list(range(1, 61)))
        rig.until("the last snapshot", lambda: any(
            r.to_eid == 60 for r in rig.of(SmibReconciled)))  # fmt: skip
    finally:
        rig.close()
        ledger.close()
    assert verify(tmp_path / "hw.sqlite").status == "intact"
    eids = [r.eid for r in read(tmp_path / "hw.sqlite") if isinstance(r, SmibEvent)]
    assert eids == list(range(1, 61))
    recs = [r for r in read(tmp_path / "hw.sqlite") if isinstance(r, SmibReconciled)]
    assert recs and all(r.ok for r in recs)
    assert emu.dropped["evt"] > 0 and rig.link.rejected["duplicate"] > 0


# -- money command across a disconnect ----------------------------------------------------------


def _answer(rig: Rig, cmd_id: str) -> SmibCommandResult:
    rig.until(f"the answer to {cmd_id}", lambda: any(r.cmd_id == cmd_id for r in _answers(rig)))
    return [r for r in _answers(rig) if r.cmd_id == cmd_id][-1]


def _answers(rig: Rig) -> list[SmibCommandResult]:
    return rig.of(SmibCommandResult, "S-001")


def test_money_command_across_a_disconnect(rig: Rig, broker: Broker, tmp_path: Path) -> None:
    """A credit-in sent, then the broker or the SMIB drops: interrogated under its own cmd_id
    (the very same message), it is applied exactly once, or expires; never twice."""
    state = tmp_path / "S-001.json"
    emu = rig.emulator(memory=Memory(path=state))
    link = rig.link
    credits = [emu.machine.credits]

    # 1. applied, its acknowledgement lost, then the broker is killed and restarted
    emu.misbehave.drop_next["cmdres"] = 1
    first = link.command("S-001", "credit_in", {"cents": 2000}, "a patron's bill")
    rig.until("the credit's event", lambda: rig.eids() == [1])
    assert not any(r.cmd_id == first for r in _answers(rig))  # the ack never came
    broker.restart(kill=True)
    wait_until("the SMIB's second session", lambda: emu.births >= 2)
    rig.until("the twin reconnected", lambda: link.connects >= 2)
    link.command("S-001", "credit_in", {"cents": 2000}, "interrogate", cmd_id=first)
    got = _answer(rig, first)
    assert got.result == "duplicate"  # it ran before: the answer is its first result
    credits.append(emu.machine.credits)

    # 2. the command is lost on its way in, the SMIB loses power and restarts on its state
    emu.misbehave.drop_next["cmd"] = 1
    second = link.command("S-001", "credit_in", {"cents": 1000}, "another bill")
    wait_until("the SMIB lost it", lambda: emu.dropped["cmd"] == 1)
    emu.die()
    emu = rig.emulator(memory=Memory.load(state))
    wait_until("the restarted SMIB's birth", lambda: emu.births >= 1)
    link.command("S-001", "credit_in", {"cents": 1000}, "interrogate", cmd_id=second)
    assert _answer(rig, second).result == "completed"  # never ran: it runs now, once
    rig.until("its event", lambda: rig.eids() == [1, 2])
    link.command("S-001", "credit_in", {"cents": 1000}, "interrogate", cmd_id=second)
    answers = ["completed", "duplicate"]
    rig.until(
        "the second answer",
        lambda: [r.result for r in _answers(rig) if r.cmd_id == second] == answers,
    )
    credits.append(emu.machine.credits)

    # 3. sent while the SMIB is down; it comes back after the command's expiry
    emu.die()
    third = link.command("S-001", "credit_in", {"cents": 5000}, "a bill", ttl=1.0)
    time.sleep(1.5)
    emu = rig.emulator(memory=Memory.load(state))
    wait_until("the restarted SMIB's birth", lambda: emu.births >= 1)
    link.command("S-001", "credit_in", {"cents": 5000}, "interrogate", cmd_id=third)
    assert _answer(rig, third).result == "expired"  # too late: never applied
    credits.append(emu.machine.credits)

    rig.settle(0.5)
    assert rig.eids() == [1, 2]  # two credits applied, each once
    assert credits == [0, 80, 120, 120]
    bills = [e for e in rig.of(SmibEvent, "S-001") if e.name == "bill_accepted"]
    assert [json.loads(e.data)["cents"] for e in bills] == [2000, 1000]
