"""Issue 29: every event a SMIB sent is applied once or declared lost, by rule.

The link's rules message by message on a link whose clock the test moves (exact timings,
no broker): bounded retries with backoff, ``failed`` with and without ``first_held``,
``expired`` and unanswered requests (the expiry grows), requests paused while a SMIB is
offline, one eid one content, regressed counters, size limits, the run's end. The same cases
on a real Mosquitto with emulated SMIBs are in ``test_no_silent_loss_broker.py``.
"""

from __future__ import annotations

from twin.compliance.findings import Finding
from twin.hardware import protocol as p
from twin.hardware.link import resume_points
from twin.hardware.records import (
    SmibClosed,
    SmibCountersReset,
    SmibEvent,
    SmibEventConflict,
    SmibEventsLost,
    SmibMessageRejected,
    SmibMeters,
    SmibOnline,
)

from .offline import Offline

GAP = 0.31  # past the reorder window (0.3 s, no jitter)


def _gap(o: Offline) -> None:
    """Session 1 born at eid 0; events 1 and 3 arrive, 2 does not (seq 2 neither)."""
    o.birth(1)
    o.evt(1, 1, 1)
    o.evt(1, 3, 3)


def _rejected(o: Offline, reason: str) -> list[str]:
    return [r.detail for r in o.of(SmibMessageRejected) if r.reason == reason]


def test_a_failed_replay_is_retried_with_backoff_then_the_gap_is_declared_lost() -> None:
    o = Offline()
    _gap(o)
    o.tick(GAP)
    assert o.requests() == [("replay_events", {"from_eid": 2, "to_eid": 2})]
    seq = 4
    for attempt, backoff in enumerate((1.0, 2.0, 4.0, 8.0, 16.0), start=1):
        req = o.last_request()
        assert req.why.endswith(f"(attempt {attempt} of 5)")
        o.result(1, seq, req.cmd_id, "failed", reason="cannot read the log")
        seq += 1
        o.tick(backoff - 0.01)
        assert len(o.requests()) == attempt  # not before its backoff
        o.tick(0.02)
    assert len(o.requests()) == 5  # bounded: the sixth turn gives up
    (lost,) = o.of(SmibEventsLost)
    assert (lost.from_eid, lost.to_eid, lost.series) == (2, 2, 0)
    assert lost.reason == "replay asked 5 times, last: failed (cannot read the log)"
    assert o.eids() == [1, 3]  # the SMIB goes on from the next event
    assert [f.control for f in o.of(Finding)] == ["HW.events_lost"]
    o.tick(600)
    assert len(o.requests()) == 5
    o.evt(1, seq, 2, replay=True)  # too late: declared lost, never applied
    assert _rejected(o, "late") == ["event 2 came after it was declared lost"]
    assert o.eids() == [1, 3]


def test_failed_with_first_held_declares_what_the_smib_no_longer_holds_at_once() -> None:
    o = Offline()
    o.birth(1)
    o.evt(1, 1, 1)
    o.evt(1, 5, 5)  # 2, 3, 4 missing
    o.tick(GAP)
    req = o.last_request()
    assert o.requests() == [("replay_events", {"from_eid": 2, "to_eid": 4})]
    o.result(1, 6, req.cmd_id, "failed", reason="events before 4 are no longer held",
             data={"first_held": 4, "replayed": 1})  # fmt: skip
    (lost,) = o.of(SmibEventsLost)
    assert (lost.from_eid, lost.to_eid) == (2, 3)
    assert lost.reason == "events before 4 are no longer held"
    o.evt(1, 7, 4, replay=True)  # what it still held comes
    assert o.eids() == [1, 4, 5]
    o.tick(60)
    assert len(o.requests()) == 1  # nothing left to ask


def test_expired_and_unanswered_requests_are_retried_with_a_longer_expiry() -> None:
    o = Offline(request_ttl=1.0)
    _gap(o)
    o.tick(GAP)
    assert o.link.session("S-001")["ttl"] == 1.0
    o.result(1, 4, o.last_request().cmd_id, "expired", reason="received after it expired")
    assert o.link.session("S-001")["ttl"] == 2.0  # a slow SMIB: the next expires later
    o.tick(1.0)
    assert len(o.requests()) == 2
    o.tick(2.49)  # unanswered, but not yet past its expiry (2 s) and grace (0.5 s)
    assert o.link.session("S-001")["asking"] == "replay"
    o.tick(0.02)
    assert o.link.session("S-001")["asking"] is None
    assert o.link.session("S-001")["ttl"] == 4.0
    o.tick(2.0)  # backoff after the second attempt
    assert len(o.requests()) == 3
    o.evt(1, 5, 2, replay=True)  # the answer comes in the end
    assert o.eids() == [1, 2, 3]
    assert o.link.session("S-001")["attempts"] == 0
    assert o.link.session("S-001")["ttl"] == 1.0


def test_a_completed_replay_that_leaves_the_gap_open_counts_as_an_attempt() -> None:
    o = Offline()
    _gap(o)
    o.tick(GAP)
    seq = 4
    for _ in range(5):
        o.result(1, seq, o.last_request().cmd_id, "completed", data={"replayed": 1})
        seq += 1
        o.tick(0.81)  # what it replayed never comes (reorder window + 0.5 s): used up
        o.tick(20)  # past the backoff: asked again, or given up
    (lost,) = o.of(SmibEventsLost)
    assert lost.reason == "replay asked 5 times, last: completed, but the gap is still open"
    assert len(o.requests()) == 5


def test_requests_stop_while_a_smib_is_offline_and_resume_after_its_birth() -> None:
    o = Offline()
    _gap(o)
    o.tick(GAP)
    assert len(o.requests()) == 1
    o.send("status", bd=1, state="lost")  # its will: the request will not be answered
    assert o.link.session("S-001")["offline"] is True
    assert o.link.session("S-001")["attempts"] == 0  # not held against it
    for _ in range(20):
        o.tick(30)
    assert len(o.requests()) == 1
    o.birth(2, last_eid=3)  # back: 2 is still missing
    o.tick(0.0)
    assert o.requests()[1] == ("replay_events", {"from_eid": 2, "to_eid": 2})
    assert o.last_request().why.endswith("(attempt 1 of 5)")


def test_one_eid_two_contents_is_a_conflict() -> None:
    o = Offline()
    o.birth(1)
    o.evt(1, 1, 1)
    o.evt(1, 2, 2, code=0x11, name="slot_door_opened", deltas={})  # a phantom takes eid 2
    o.evt(1, 3, 2)  # the real event 2
    phantom = p.event_digest({"eid": 2, "code": 0x11, "name": "slot_door_opened", "epoch": 0,
                              "deltas": {}})  # fmt: skip
    real = p.event_digest({"eid": 2, "code": 0x7F, "epoch": 0, "deltas": {"games_played": 1}})
    assert o.link.session("S-001")["suspect"] is True
    o.tick(0.0)  # is it a board whose counters went back? ask for a rebirth
    req = o.last_request()
    assert (req.cmd, req.why) == (
        "rebirth",
        "event 2 again with other content: are its counters behind? (attempt 1 of 5)",
    )
    o.birth(1, last_eid=2, cmd_id=req.cmd_id)  # no: the same session, not behind
    (c,) = o.of(SmibEventConflict)
    assert (c.eid, c.series, c.bd, c.first_digest, c.second_digest, c.applied) == (
        2, 0, 1, phantom, real, True,
    )  # fmt: skip
    assert [(e.eid, e.digest) for e in o.of(SmibEvent)][1] == (2, phantom)
    (f,) = [f for f in o.of(Finding) if f.control == "HW.event_conflict"]
    assert f.severity == "breach"
    assert f"digest {real}" in f.message and f"(digest {phantom}) stands" in f.message
    o.evt(1, 1, 3)
    assert o.eids() == [1, 2, 3]
    assert o.of(SmibCountersReset) == []


def test_regressed_counters_start_a_new_series() -> None:
    o = Offline()
    o.birth(10)
    for eid in range(1, 6):
        o.evt(10, eid, eid)
    o.send("status", bd=10, state="lost")  # the board dies ...
    o.birth(4, last_eid=2)  # ... and one restored from a backup comes back: bd and eid behind
    o.evt(4, 1, 3, code=0x4F, deltas={"bill_credits": 20})  # its event 3 is not the old 3
    assert o.eids() == [1, 2, 3, 4, 5]
    assert o.of(SmibOnline)[-1].bd == 10  # nothing taken yet
    o.tick(0.0)
    req = o.last_request()
    assert req.cmd == "rebirth"
    o.birth(4, last_eid=3, cmd_id=req.cmd_id)  # still behind: confirmed
    (r,) = o.of(SmibCountersReset)
    assert (r.old_series, r.series, r.old_bd, r.bd, r.old_eid, r.last_eid) == (0, 1, 10, 4, 5, 2)
    assert r.why == (
        "birth of session 4 at eid 2; confirmed by its rebirth: session 10 -> 4 (6 back), "
        "event id 5 -> 2 (3 back)"
    )
    assert [(e.series, e.eid, e.bd) for e in o.of(SmibEvent)][5:] == [(1, 3, 4)]
    assert [(b.bd, b.last_eid) for b in o.of(SmibOnline)] == [(10, 0), (4, 3)]  # once each
    readings = [(m.source, m.as_of_eid) for m in o.of(SmibMeters)]
    assert readings == [("birth", 0), ("birth", 2), ("birth", 3)]  # the series from eid 2
    o.evt(4, 1, 4)
    assert [(e.series, e.eid) for e in o.of(SmibEvent)][5:] == [(1, 3), (1, 4)]
    (f,) = [f for f in o.of(Finding) if f.control == "HW.counters_reset"]
    assert "series 1, from eid 3" in f.message
    assert o.link.session("S-001")["series"] == 1
    assert resume_points(o.sink.records) == {"S-001": (1, 4)}


def test_a_delayed_copy_of_a_birth_is_stale_not_a_reset() -> None:
    o = Offline()
    o.birth(1)
    o.evt(1, 1, 1)
    o.evt(1, 2, 2)
    o.birth(1, last_eid=0)  # a copy of the first birth, delivered late
    o.tick(0.0)
    o.birth(1, last_eid=2, cmd_id=o.last_request().cmd_id)
    assert _rejected(o, "stale") == ["birth of session 1 at eid 0: its rebirth is not behind"]
    assert o.of(SmibCountersReset) == []
    o.evt(1, 1, 3)
    assert o.eids() == [1, 2, 3]


def test_a_suspect_the_smib_never_answers_is_settled_after_its_attempts() -> None:
    o = Offline(request_ttl=1.0)
    o.birth(1)
    o.evt(1, 1, 1)
    o.evt(1, 2, 1, code=0x11, deltas={})
    for _ in range(12):
        o.tick(40)
    assert [c for c, _ in o.requests()] == ["rebirth"] * 5
    (c,) = o.of(SmibEventConflict)
    assert c.eid == 1


def test_a_payload_over_its_topic_limit_is_refused_before_it_is_parsed() -> None:
    o = Offline()
    o.birth(1)
    o.link.receive(p.up_topic("S-001", "evt"), b"{" + b" " * 9_000 + b"}")
    o.world.pump()
    assert _rejected(o, "too_large") == ["9,002 bytes; at most 8,192 on evt"]
    assert p.MAX_BYTES == {
        "status": 512, "birth": 16_384, "evt": 8_192, "meters": 16_384, "cmdres": 16_384,
    }  # fmt: skip


def test_the_run_s_end_declares_every_open_gap_and_closes_each_smib() -> None:
    o = Offline()
    _gap(o)
    o.link.finish()
    o.world.pump()
    (lost,) = o.of(SmibEventsLost)
    assert (lost.from_eid, lost.to_eid, lost.reason) == (2, 2, "the run ended before they arrived")
    assert o.eids() == [1, 3]
    (closed,) = o.of(SmibClosed)
    assert (closed.series, closed.last_eid, closed.online, closed.applied, closed.lost) == (
        0, 3, True, 2, 1,
    )  # fmt: skip
    o.evt(1, 4, 4)
    assert _rejected(o, "after_run") == ["the run has ended"]
    assert o.eids() == [1, 3]


def test_an_offline_smib_s_gap_is_declared_at_the_run_s_end_with_the_reason() -> None:
    o = Offline()
    _gap(o)
    o.send("status", bd=1, state="lost")
    o.link.finish()
    o.world.pump()
    (lost,) = o.of(SmibEventsLost)
    assert lost.reason == "the run ended before they arrived; the SMIB was offline"
    assert o.of(SmibClosed)[0].online is False


def test_digests_are_kept_for_the_last_eids_only_older_ones_are_just_old() -> None:
    o = Offline(digest_window=4)
    o.birth(1)
    for eid in range(1, 11):
        o.evt(1, eid, eid)
    assert len(o.link._sessions["S-001"].digests) <= 5  # bounded: 4 + 4 // 4
    o.evt(1, 11, 2, code=0x11, deltas={})  # too old to compare: only old
    assert _rejected(o, "duplicate") == ["event 2 already received"]
    assert o.link.session("S-001")["suspect"] is False
    o.evt(1, 12, 9, code=0x11, deltas={})  # recent: another content is a suspect
    assert o.link.session("S-001")["suspect"] is True
