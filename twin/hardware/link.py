"""The twin's MQTT client: validates every SMIB message and queues typed commands.

paho-mqtt 2.x (``CallbackAPIVersion.VERSION2``). paho's network thread runs
:meth:`SmibLink.on_message`, which never touches SimPy and never raises (an exception there
would end the network thread and auto-reconnect with it): it checks the message (JSON,
schema, topic id == payload ``smib``, registered SMIB), keeps each SMIB's session (``bd``,
``seq``) and event order (``eid``), and puts :mod:`twin.hardware.book` commands into the
inbox. A housekeeping thread closes reorder windows: a gap still open after the window is
asked for again (``replay_events``, or ``rebirth`` for a session the link saw no birth of).
"""

from __future__ import annotations

import json
import logging
import random
import secrets
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from twin.hardware import protocol as p
from twin.hardware.book import (
    Birth,
    Closed,
    Conflict,
    CountersReset,
    Event,
    LinkCommand,
    Lost,
    Meters,
    Rejected,
    Request,
    Result,
    Status,
    canonical,
)
from twin.hardware.client import Broker as Broker  # re-exported: the link's public names
from twin.hardware.client import LinkConfig as LinkConfig
from twin.hardware.client import close_socket as close_socket
from twin.hardware.linkstate import Ask, Session, Suspect
from twin.hardware.records import SmibCountersReset, SmibEvent, SmibEventsLost
from twin.inbox import Inbox
from twin.records import Record

log = logging.getLogger("twin.hardware.link")


#: the longest backoff between two attempts, and the most a request's ttl grows (x base)
MAX_BACKOFF = 30.0
MAX_TTL_FACTOR = 16


class SmibLink:
    """The twin's side of the MQTT link. Thread-safe; see the module docstring."""

    def __init__(
        self,
        inbox: Inbox,
        smibs: Iterable[str],
        config: LinkConfig,
        *,
        source: str = "smib",
        resume: Mapping[str, tuple[int, int]] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """``resume``: each SMIB's (series, last eid applied or declared lost) in an earlier
        run (from its ledger, :func:`resume_points`); the link then asks for what came after."""
        self.inbox = inbox
        self._clock = clock  # the link's timers: gaps, requests, backoff (tests set one)
        self.smibs = frozenset(smibs)
        self.config = config
        self.source = source
        self.rejected: Counter[str] = Counter()
        self.accepted = 0
        self.requests: Counter[str] = Counter()
        self.connects = 0
        #: why connecting failed (a refused socket, bad credentials), newest last
        self.refused: list[str] = []
        self._lock = threading.Lock()
        resume = resume or {}
        self._sessions = {s: Session(ttl=config.request_ttl) for s in self.smibs}
        for smib, (series, eid) in resume.items():
            if smib in self._sessions:
                sess = self._sessions[smib]
                sess.series, sess.contig, sess.known = series, eid, eid
        self._rng = random.Random(config.seed)
        self._cmd_no = 0
        # command ids are unique across runs: a SMIB remembers the ids it executed
        self._run = secrets.token_hex(4)
        self._sent: dict[str, dict[str, Any]] = {}  # money commands by cmd_id, as sent
        self._stop = threading.Event()
        self._keeper: threading.Thread | None = None
        self._finished = False
        c = mqtt.Client(
            CallbackAPIVersion.VERSION2,
            client_id=f"twin-{config.twin}",
            clean_session=True,
            protocol=mqtt.MQTTv311,
        )
        c.username_pw_set(config.username, config.password)
        c.will_set(self._status_topic, self._status("offline"), qos=1, retain=True)
        c.reconnect_delay_set(1, 2)
        config.broker.secure(c)
        c.on_connect = self.on_connect
        c.on_connect_fail = self._on_connect_fail
        c.on_message = self.on_message
        self.client = c

    # -- lifecycle -------------------------------------------------------------------------------

    @property
    def _status_topic(self) -> str:
        return p.twin_status_topic(self.config.twin)

    def _status(self, state: str) -> bytes:
        return p.encode({"v": p.VERSION, "twin": self.config.twin, "state": state})

    def start(self) -> None:
        self.client.connect_async(
            self.config.broker.host, self.config.broker.port, keepalive=self.config.keepalive
        )
        self.client.loop_start()
        self._keeper = threading.Thread(target=self._housekeeping, name="smib-link", daemon=True)
        self._keeper.start()

    def stop(self) -> None:
        """Say offline, disconnect cleanly, end both threads."""
        self._stop.set()
        if self._keeper is not None:
            self._keeper.join(timeout=10)
        if self.client.is_connected():
            info = self.client.publish(self._status_topic, self._status("offline"), 1, True)
            info.wait_for_publish(timeout=5)
        self.client.disconnect()
        self.client.loop_stop()
        close_socket(self.client)

    def on_connect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any
    ) -> None:
        if reason.is_failure:
            log.warning("twin link: connection refused: %s", reason)
            self.refused.append(str(reason))
            return
        self.connects += 1
        client.subscribe(p.UP_FILTER, qos=1)
        client.publish(self._status_topic, self._status("online"), qos=1, retain=True)

    def _on_connect_fail(self, client: mqtt.Client, userdata: Any) -> None:
        self.refused.append("no broker answers")

    def finish(self) -> None:
        """The run's end: every gap still open is declared lost, what waited behind it is
        delivered, and each SMIB gets its ``smib_closed`` record (the run's last word: every
        event up to its ``last_eid`` applied or declared lost). Later messages are refused."""
        with self._lock:
            if self._finished:
                return
            for smib, s in sorted(self._sessions.items()):
                if s.suspect is not None:
                    self._settle_suspect(smib, s, regressed=False, why="the run ended first")
                where = "; the SMIB was offline" if s.offline else ""
                self._declare_gaps(smib, s, f"the run ended before they arrived{where}")
                self._put(
                    Closed(
                        smib,
                        s.series,
                        s.contig or 0,
                        s.born and not s.offline,
                        s.applied,
                        s.declared,
                    )
                )
            self._finished = True

    # -- paho's thread -----------------------------------------------------------------------------

    def on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        """Never raises: an exception here would end paho's network thread."""
        try:
            self.receive(msg.topic, msg.payload)
        except Exception as exc:  # a bug of ours must not take the link down
            log.exception("twin link: internal error on %s", msg.topic)
            self._reject("", msg.topic, "internal", f"{type(exc).__name__}: {exc}")

    def receive(self, topic: str, payload: bytes | bytearray) -> None:
        """Check one message and act on it (any thread; serialised by the lock)."""
        where = p.parse_up_topic(topic)
        if where is None:
            self._reject("", topic, "topic", "not csn/v1/smib/{smib}/up/{leaf}")
            return
        limit = p.MAX_BYTES[where.leaf]
        if len(payload) > limit:
            self._reject(
                where.smib,
                topic,
                "too_large",
                f"{len(payload):,} bytes; at most {limit:,} on {where.leaf}",
            )
            return
        try:
            doc = json.loads(payload.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            self._reject(where.smib, topic, "invalid_json", str(exc))
            return
        err = p.validate(where.leaf, doc)
        if err is not None:
            self._reject(where.smib, topic, "schema", err)
            return
        if doc["smib"] != where.smib:
            self._reject(
                where.smib, topic, "id_mismatch", f"payload smib {doc['smib']!r} on this topic"
            )
            return
        if where.smib not in self.smibs:
            self._reject(where.smib, topic, "unknown_smib", f"{where.smib!r} is not registered")
            return
        with self._lock:
            if self._finished:
                self._reject(where.smib, topic, "after_run", "the run has ended")
                return
            s = self._sessions[where.smib]
            s.last_seen = time.monotonic()
            getattr(self, f"_on_{where.leaf}")(where.smib, topic, s, doc)

    # -- per topic (lock held) ---------------------------------------------------------------------

    def _on_status(self, smib: str, topic: str, s: Session, doc: dict[str, Any]) -> None:
        bd, state = doc["bd"], doc["state"]
        if bd < s.bd:
            self._reject(smib, topic, "stale", f"{state} of session {bd}; session {s.bd} is live")
            return
        if state == "online":
            if bd > s.bd or not s.born:
                self._want_rebirth(s, f"online in session {bd} without its birth")
            return
        if s.online or bd > s.bd:
            if bd > s.bd:
                s.bd, s.born = bd, False
            s.online = False
            self._put(Status(smib, bd, state))
        s.offline = True
        if s.ask is not None and s.ask.kind != "verify":
            s.ask = None  # asked of a SMIB that went away: not held against it
            s.attempts = max(0, s.attempts - 1)

    def _on_birth(self, smib: str, topic: str, s: Session, doc: dict[str, Any]) -> None:
        bd, last = doc["bd"], doc["last_eid"]
        ask = s.ask
        answer = ask is not None and ask.kind == "verify" and doc.get("cmd_id") == ask.cmd_id
        regressed = s.contig is not None and (bd < s.bd or last < s.contig)
        if answer:
            s.ask, s.attempts, s.ttl = None, 0, self.config.request_ttl
            if regressed:
                self._reset_counters(smib, s, doc)  # the answer is the new series' birth
                return
            self._settle_suspect(smib, s, regressed=False, why="its rebirth is not behind")
        elif regressed:
            self._suspect(s, f"birth of session {bd} at eid {last}").births.append(doc)
            s.suspect.bds.add(bd)  # type: ignore[union-attr]
            return
        self._birth(smib, s, doc)

    def _birth(self, smib: str, s: Session, doc: dict[str, Any]) -> None:
        bd, last = doc["bd"], doc["last_eid"]
        s.bd, s.born, s.online, s.offline, s.want_rebirth = bd, True, True, False, False
        s.next_seq, s.missing = 1, set()
        if s.ask is not None and s.ask.kind == "rebirth":
            s.ask, s.attempts, s.ttl = None, 0, self.config.request_ttl
        if s.contig is None:
            s.contig = last
        s.known = max(s.known, last)
        s.next_try = float("-inf")  # requests resume after a birth
        ident = doc["identity"]
        self._put(
            Birth(
                smib,
                bd,
                ident["serial"],
                ident["program"],
                ident["denom_cents"],
                ident["paytable"],
                last,
            )
        )
        snap = Meters(
            smib, "birth", doc["epoch"], last, doc["digits"], tuple(sorted(doc["meters"].items()))
        )
        s.snapshots.append((last, snap))
        self._release(smib, s)

    def _on_evt(self, smib: str, topic: str, s: Session, doc: dict[str, Any]) -> None:
        if s.suspect is not None and doc["bd"] in s.suspect.bds:
            s.suspect.events.append(doc)
            return
        self._sequence(s, doc)
        eid, digest = doc["eid"], p.event_digest(doc)
        first = s.digests.get(eid)
        if first == digest:
            self._reject(smib, topic, "duplicate", f"event {eid} already received")
            return
        if first is not None:  # another event under a taken eid: a reset, or a conflict
            sus = self._suspect(s, f"event {eid} again with other content")
            sus.events.append(doc)
            if doc["bd"] < s.bd:
                sus.bds.add(doc["bd"])
            return
        if s.contig is not None and eid <= s.contig:
            if any(lo <= eid <= hi for lo, hi in s.lost):
                self._reject(smib, topic, "late", f"event {eid} came after it was declared lost")
            else:
                self._reject(smib, topic, "duplicate", f"event {eid} already received")
            return
        s.known = max(s.known, eid)
        s.digests[eid] = digest
        s.held[eid] = Event(
            smib,
            eid,
            doc["bd"],
            doc["code"],
            doc.get("name", ""),
            doc["epoch"],
            tuple(sorted(doc["deltas"].items())),
            canonical(doc.get("data", {})),
            bool(doc.get("replay", False)),
            doc["ts"],
            time.monotonic(),
            s.series,
            digest,
        )
        self._release(smib, s)

    def _on_meters(self, smib: str, topic: str, s: Session, doc: dict[str, Any]) -> None:
        if s.suspect is not None and doc["bd"] in s.suspect.bds:
            s.suspect.meters.append(doc)
            return
        self._sequence(s, doc)
        as_of = doc["as_of_eid"]
        s.snapshots_seen += 1
        s.known = max(s.known, as_of)
        snap = Meters(
            smib, "meters", doc["epoch"], as_of, doc["digits"], tuple(sorted(doc["meters"].items()))
        )
        s.snapshots.append((as_of, snap))
        self._release(smib, s)

    def _on_cmdres(self, smib: str, topic: str, s: Session, doc: dict[str, Any]) -> None:
        self._sequence(s, doc)
        cmd_id, result = doc["cmd_id"], doc["result"]
        data = doc.get("data", {})
        self._put(Result(smib, cmd_id, result, doc.get("reason", ""), canonical(data)))
        ask = s.ask
        if ask is None or ask.cmd_id != cmd_id or result == "accepted":
            return  # not the request outstanding (an earlier attempt's, a bench command's)
        now = self._clock()
        s.last_answer = f"{result}" + (f" ({doc['reason']})" if doc.get("reason") else "")
        if result == "completed":
            ask.completed = True  # what it sends may still be on its way
            ask.deadline = now + self.config.reorder_window + 0.5
            return
        s.ask = None
        s.next_try = now + self._backoff(s)
        if result == "expired":
            s.ttl = min(s.ttl * 2, self.config.request_ttl * MAX_TTL_FACTOR)
        first_held = data.get("first_held")
        if ask.kind == "replay" and result == "failed" and isinstance(first_held, int):
            # the SMIB says it no longer holds what comes before: no retry brings those back
            if s.contig is not None and min(first_held - 1, self._gap_end(s)) > s.contig:
                self._declare_lost(
                    smib,
                    s,
                    min(first_held - 1, self._gap_end(s)),
                    doc.get("reason", "") or "no longer held",
                )
            s.attempts, s.next_try = 0, now

    # -- ordering --------------------------------------------------------------------------------

    def _sequence(self, s: Session, doc: dict[str, Any]) -> None:
        """Track ``seq`` in the live session; a message of a session not born asks a rebirth."""
        bd, seq = doc["bd"], doc["seq"]
        if bd < s.bd:
            return  # re-sent from an earlier session: only its eid matters
        if bd > s.bd or not s.born:
            s.offline = False  # it speaks: it is there
            self._want_rebirth(s, f"message of session {bd} without its birth")
            return
        if seq == s.next_seq:
            s.next_seq += 1
        elif seq > s.next_seq:
            s.missing.update(range(s.next_seq, seq))
            s.next_seq = seq + 1
            self._open_gap(s)
        else:
            s.missing.discard(seq)
        self._maybe_close(s)

    def _eid_gap(self, s: Session) -> bool:
        return s.contig is not None and s.known > s.contig

    def _gap_end(self, s: Session) -> int:
        """The last eid of the open gap: the one before the first held event, or the highest
        eid any message mentioned."""
        return min(s.held) - 1 if s.held else s.known

    def _open_gap(self, s: Session) -> None:
        if s.gap_since is None:
            s.gap_since = self._clock()
            s.gap_wait = self.config.reorder_window + self._rng.uniform(0, self.config.jitter)

    def _release(self, smib: str, s: Session) -> None:
        """Deliver held events and snapshots that the applied events have caught up with."""
        if s.contig is None:
            return
        while s.contig + 1 in s.held:
            s.contig += 1
            self._put(s.held.pop(s.contig))
            self.accepted += 1
            s.applied += 1
        window = self.config.digest_window
        if len(s.digests) > window + window // 4:  # ~100 B an eid: kept bounded per SMIB
            floor = s.contig - window
            s.digests = {e: d for e, d in s.digests.items() if e > floor}
            s.lost = [r for r in s.lost if r[1] > floor]
        ready = sorted((a for a in s.snapshots if a[0] <= s.contig), key=lambda a: a[0])
        if ready:
            s.snapshots = [a for a in s.snapshots if a[0] > s.contig]
            for _, snap in ready:
                self._put(snap)
        if self._eid_gap(s):
            self._open_gap(s)
        self._maybe_close(s)

    def _maybe_close(self, s: Session) -> None:
        """Close the gap window when nothing is missing any more."""
        if not s.missing and not self._eid_gap(s) and not s.want_rebirth:
            s.gap_since = None
            if s.ask is not None and s.ask.kind == "replay":
                s.ask = None
            if s.suspect is None and s.ask is None:
                s.attempts, s.ttl = 0, self.config.request_ttl

    def _want_rebirth(self, s: Session, why: str) -> None:
        if not s.want_rebirth:
            s.want_rebirth = True
            s.gap_since = s.gap_since or self._clock()
            s.gap_wait = self._rng.uniform(0, self.config.jitter)

    def _declare_lost(self, smib: str, s: Session, upto: int, reason: str) -> None:
        """Events ``contig + 1 .. upto`` will not be applied: a record and a finding, then
        the SMIB goes on from the next event."""
        assert s.contig is not None
        lo = s.contig + 1
        for eid in range(lo, upto + 1):
            s.held.pop(eid, None)
        self._put(Lost(smib, lo, upto, reason, s.series))
        s.lost.append((lo, upto))
        s.declared += upto - lo + 1
        s.contig = upto
        s.known = max(s.known, upto)
        self._release(smib, s)

    def _declare_gaps(self, smib: str, s: Session, reason: str) -> None:
        """Declare every gap still open lost, delivering what was held after each."""
        while s.contig is not None and s.known > s.contig:
            self._declare_lost(smib, s, self._gap_end(s), reason)

    # -- counters gone back ------------------------------------------------------------------------

    def _suspect(self, s: Session, why: str) -> Suspect:
        if s.suspect is None:
            s.suspect = Suspect(why)
            if s.ask is not None and s.ask.kind != "verify":
                s.ask = None  # the verification goes first
            s.attempts, s.next_try, s.ttl = 0, float("-inf"), self.config.request_ttl
        return s.suspect

    def _reset_counters(self, smib: str, s: Session, answer: dict[str, Any]) -> None:
        """The SMIB's answer confirms its counters went back: a new eid series starts after the
        first regressed birth (or before the first event held back), and what was held back
        is applied in it."""
        sus = s.suspect or Suspect("its birth is behind")
        starts = [b["last_eid"] for b in sus.births] or [
            min([answer["last_eid"], *(e["eid"] - 1 for e in sus.events)])
        ]
        start = starts[0]
        old_eid = s.contig if s.contig is not None else 0
        self._declare_gaps(smib, s, "the SMIB's counters went back first")
        old_eid = s.contig if s.contig is not None else 0
        what = []
        if answer["bd"] < s.bd:
            what.append(f"session {s.bd} -> {answer['bd']} ({s.bd - answer['bd']} back)")
        if start < old_eid:
            what.append(f"event id {old_eid} -> {start} ({old_eid - start} back)")
        self._put(
            CountersReset(
                smib,
                s.series,
                s.series + 1,
                s.bd,
                answer["bd"],
                old_eid,
                start,
                f"{sus.why}; confirmed by its rebirth: {', '.join(what) or 'went back'}",
            )
        )
        s.series += 1
        s.contig, s.known = start, start
        s.held, s.snapshots, s.digests, s.lost = {}, [], {}, []
        s.suspect = None
        self._birth(smib, s, answer)
        for b in sus.births[:1]:  # the series' first reading: its events reconcile from it
            if b["last_eid"] == answer["last_eid"]:
                break  # the answer's own reading is that one
            meters = tuple(sorted(b["meters"].items()))
            snap = Meters(smib, "birth", b["epoch"], start, b["digits"], meters)
            s.snapshots.append((start, snap))
        self._release(smib, s)
        for doc in sus.events:
            self._on_evt(smib, p.up_topic(smib, "evt"), s, doc)
        for doc in sus.meters:
            self._on_meters(smib, p.up_topic(smib, "meters"), s, doc)

    def _settle_suspect(self, smib: str, s: Session, *, regressed: bool, why: str) -> None:
        """The counters did not go back: the births held were stale copies, an event under a
        taken eid is a conflict (the first stands), the rest goes through as usual."""
        sus, s.suspect = s.suspect, None
        if sus is None:
            return
        for doc in sus.births:
            self._reject(
                smib,
                p.up_topic(smib, "birth"),
                "stale",
                f"birth of session {doc['bd']} at eid {doc['last_eid']}: {why}",
            )
        for doc in sus.events:
            eid, digest = doc["eid"], p.event_digest(doc)
            first = s.digests.get(eid)
            if first is not None and first != digest:
                self._put(
                    Conflict(
                        smib,
                        s.series,
                        eid,
                        doc["bd"],
                        first,
                        digest,
                        s.contig is not None and eid <= s.contig,
                        doc["code"],
                        doc.get("name", ""),
                    )
                )
            else:
                self._on_evt(smib, p.up_topic(smib, "evt"), s, doc)
        for doc in sus.meters:
            self._on_meters(smib, p.up_topic(smib, "meters"), s, doc)

    # -- housekeeping thread ---------------------------------------------------------------------

    def _housekeeping(self) -> None:
        while not self._stop.wait(0.05):
            try:
                self.tick(self._clock())
            except Exception:
                log.exception("twin link: housekeeping failed")

    def _backoff(self, s: Session) -> float:
        base = self.config.request_interval * 2.0 ** max(0, s.attempts - 1)
        return min(base, MAX_BACKOFF) + self._rng.uniform(0, self.config.jitter)

    def _need(self, s: Session, now: float) -> str | None:
        """What the link must ask of a SMIB now: ``verify``, ``rebirth``, ``replay`` or
        nothing."""
        if s.suspect is not None:
            return "verify"
        if s.offline or s.gap_since is None or now - s.gap_since < s.gap_wait:
            return None
        if s.want_rebirth:
            return "rebirth"
        return "replay" if s.contig is not None else None

    def tick(self, now: float) -> None:
        """Ask for what is still missing after its reorder window; retry what went
        unanswered with backoff; give up (and say so) after ``request_attempts``."""
        with self._lock:
            if self._finished:
                return
            for smib, s in sorted(self._sessions.items()):
                ask = s.ask
                if ask is not None:
                    if now < ask.deadline:
                        continue
                    if not ask.completed:  # unanswered: perhaps a slow SMIB
                        s.ttl = min(s.ttl * 2, self.config.request_ttl * MAX_TTL_FACTOR)
                        s.last_answer = "no answer"
                    elif ask.kind == "replay":
                        s.last_answer = "completed, but the gap is still open"
                    else:
                        s.last_answer = "completed, but no birth answered it"
                    s.ask = None
                    s.next_try = now + self._backoff(s)
                need = self._need(s, now)
                if need is None or now < s.next_try:
                    continue
                if now - s.last_request < self.config.request_interval:
                    continue
                if s.attempts >= self.config.request_attempts:
                    self._give_up(smib, s, need)
                    continue
                self._ask(smib, s, need, now)

    def _ask(self, smib: str, s: Session, need: str, now: float) -> None:
        s.attempts += 1
        s.last_request = now
        tries = f" (attempt {s.attempts} of {self.config.request_attempts})"
        if need == "replay":
            assert s.contig is not None
            args: dict[str, Any] = {"from_eid": s.contig + 1}
            if s.held:
                args["to_eid"] = self._gap_end(s)
            why = f"gap: seq {sorted(s.missing)[:5]} eid {s.contig + 1}..{s.known}{tries}"
            s.missing.clear()
        else:
            args = {}
            why = (
                s.suspect.why + ": are its counters behind?"
                if need == "verify" and s.suspect
                else "a session without its birth"
            ) + tries
        cmd = "replay_events" if need == "replay" else "rebirth"
        cmd_id = self._send(smib, cmd, args, why, ttl=s.ttl)
        s.ask = Ask(need, cmd_id, now + s.ttl + 0.5)
        if need == "replay" and not self._eid_gap(s) and not s.missing:
            s.gap_since = None  # a seq gap only: the tail asked for once

    def _give_up(self, smib: str, s: Session, need: str) -> None:
        tries = f"asked {s.attempts} times, last: {s.last_answer or 'no answer'}"
        s.attempts, s.ttl = 0, self.config.request_ttl
        if need == "verify":
            self._settle_suspect(smib, s, regressed=False, why=f"no rebirth came ({tries})")
        elif need == "rebirth":
            s.want_rebirth = False
            self._maybe_close(s)
        else:
            if s.contig is not None and self._gap_end(s) > s.contig:
                self._declare_lost(smib, s, self._gap_end(s), f"replay {tries}")
            s.missing.clear()
            self._maybe_close(s)

    def command(
        self,
        smib: str,
        cmd: str,
        args: Mapping[str, Any],
        why: str,
        *,
        cmd_id: str | None = None,
        ttl: float | None = None,
    ) -> str:
        """Send ``cmd`` to ``smib`` (any thread); its cmd_id. It expires after ``ttl``
        seconds (default ``command_ttl``). ``cmd_id``: send an earlier command again, the
        very same message, expiry included (a money command is interrogated this way after
        a disconnect: the SMIB answers ``duplicate`` if it executed it, ``expired`` if it
        arrives too late, and never executes it twice)."""
        with self._lock:
            return self._send(smib, cmd, dict(args), why, cmd_id=cmd_id, ttl=ttl)

    def _send(
        self,
        smib: str,
        cmd: str,
        args: dict[str, Any],
        why: str,
        *,
        cmd_id: str | None = None,
        ttl: float | None = None,
    ) -> str:
        sent = self._sent.get(cmd_id) if cmd_id is not None else None
        if cmd_id is None:
            self._cmd_no += 1
            cmd_id = f"{self.config.twin}-{self._run}-{self._cmd_no}"
        body: dict[str, Any] = {
            "v": p.VERSION,
            "cmd_id": cmd_id,
            "cmd": cmd,
            "expires": time.time() + (self.config.command_ttl if ttl is None else ttl),
        }
        if args:
            body["args"] = args
        if sent is not None:
            body = sent  # the same command again
        elif cmd in p.MONEY_COMMANDS:
            self._sent[cmd_id] = body
            while len(self._sent) > 10_000:  # the oldest are long expired
                del self._sent[next(iter(self._sent))]
        self.client.publish(p.down_topic(smib), p.encode(body), qos=1)
        self.requests[cmd] += 1
        self._put(Request(smib, cmd_id, cmd, canonical(args), why))
        return cmd_id

    # -- out -------------------------------------------------------------------------------------

    def _put(self, cmd: LinkCommand) -> None:
        self.inbox.put(cmd, source=self.source)

    def _reject(self, smib: str, topic: str, reason: str, detail: str) -> None:
        self.rejected[reason] += 1
        log.warning("twin link: rejected %s (%s): %s", topic, reason, detail)
        self._put(Rejected(smib, topic, reason, detail[:300]))

    def session(self, smib: str) -> dict[str, Any]:
        """A copy of what the link knows of ``smib`` (for tests and the live line)."""
        with self._lock:
            s = self._sessions[smib]
            return {
                "bd": s.bd,
                "online": s.online,
                "contig": s.contig,
                "known": s.known,
                "held": sorted(s.held),
                "missing": sorted(s.missing),
                "last_seen": s.last_seen,
                "snapshots_seen": s.snapshots_seen,
                "series": s.series,
                "offline": s.offline,
                "attempts": s.attempts,
                "ttl": s.ttl,
                "asking": s.ask.kind if s.ask is not None else None,
                "suspect": s.suspect is not None,
            }


def resume_points(records: Iterable[Record]) -> dict[str, tuple[int, int]]:
    """Each SMIB's (series, last eid applied or declared lost) in an earlier run's records:
    the latest series, and the highest eid in it."""
    out: dict[str, tuple[int, int]] = {}
    for rec in records:
        if isinstance(rec, SmibEvent):
            point = (rec.series, rec.eid)
        elif isinstance(rec, SmibEventsLost):
            point = (rec.series, rec.to_eid)
        elif isinstance(rec, SmibCountersReset):
            point = (rec.series, rec.last_eid)
        else:
            continue
        out[rec.smib] = max(out.get(rec.smib, point), point)
    return out
