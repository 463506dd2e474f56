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

import contextlib
import json
import logging
import random
import secrets
import socket
import threading
import time
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlparse

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from twin.hardware import protocol as p
from twin.hardware.book import (
    Birth,
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
from twin.hardware.records import SmibEvent, SmibEventsLost
from twin.inbox import Inbox
from twin.records import Record

log = logging.getLogger("twin.hardware.link")


def close_socket(client: mqtt.Client) -> None:
    """Close every socket a stopped client still holds (call it after ``loop_stop``).

    * The connection, if its network loop left it open: ``disconnect`` closes it only
      through a loop that is still running and connected (not while reconnecting to a
      broker that went away).
    * The pair of loopback sockets ``loop_start`` makes to wake its thread: paho closes
      them only in ``Client.__del__``. A client is usually in a reference cycle (its
      callbacks are bound methods of an object holding it), and the collector finalizes a
      cycle's objects in no set order: when a socket's finalizer runs before the client's
      ``__del__`` it warns "unclosed socket" (ResourceWarning), in whatever code happened to
      trigger the collection.
    """
    sock = client.socket()
    if isinstance(sock, socket.socket):
        with contextlib.suppress(OSError):
            sock.close()
    for name in ("_sockpairR", "_sockpairW"):  # paho 2.x: loop_start's wake-up pair
        pair = getattr(client, name, None)
        if isinstance(pair, socket.socket):
            with contextlib.suppress(OSError):
                pair.close()
            setattr(client, name, None)


@dataclass(frozen=True)
class Broker:
    """Where the broker is: ``mqtt://host[:port]`` or, over TLS, ``mqtts://host[:port]``
    with ``ca`` the certificate file of the authority that signed the broker's."""

    host: str
    port: int
    tls: bool = False
    ca: str | None = None

    @classmethod
    def parse(cls, url: str, ca: str | None = None) -> Broker:
        """The broker of ``url`` (port 1883, or 8883 over TLS); ValueError naming the fault."""
        u = urlparse(url)
        if u.scheme not in ("mqtt", "mqtts") or not u.hostname:
            raise ValueError(f"broker URL {url!r}: expected mqtt://host[:port] or mqtts://...")
        tls = u.scheme == "mqtts"
        return cls(u.hostname, u.port or (8883 if tls else 1883), tls, ca)

    def secure(self, client: mqtt.Client) -> None:
        """Turn on TLS for ``client`` when the broker wants it (the broker's name is checked)."""
        if self.tls:
            client.tls_set(ca_certs=self.ca)


@dataclass(frozen=True)
class LinkConfig:
    broker: Broker
    username: str
    password: str
    twin: str = "twin"
    reorder_window: float = 0.3  # seconds a gap may stay open before it is asked for
    request_interval: float = 1.0  # at most one request per SMIB per this many seconds
    jitter: float = 0.1  # up to this much random delay on top of the window
    command_ttl: float = 30.0  # a command expires after this many seconds
    keepalive: int = 5
    seed: int = 0


@dataclass
class _Session:
    """What the link knows of one SMIB (guarded by the link's lock)."""

    bd: int = 0  # the live session
    born: bool = False  # a birth of ``bd`` was seen
    online: bool = False
    next_seq: int = 0
    missing: set[int] = field(default_factory=set)  # seq numbers not seen yet
    contig: int | None = None  # last eid delivered (None until the first birth)
    known: int = 0  # highest eid any message mentioned
    held: dict[int, Event] = field(default_factory=dict)
    snapshots: list[tuple[int, Meters]] = field(default_factory=list)
    gap_since: float | None = None
    gap_wait: float = 0.0
    last_request: float = float("-inf")
    replays: dict[str, int] = field(default_factory=dict)  # cmd_id -> from_eid
    want_rebirth: bool = False
    last_seen: float | None = None  # time.monotonic() of its last valid message
    snapshots_seen: int = 0  # meters messages received


class SmibLink:
    """The twin's side of the MQTT link. Thread-safe; see the module docstring."""

    def __init__(
        self,
        inbox: Inbox,
        smibs: Iterable[str],
        config: LinkConfig,
        *,
        source: str = "smib",
        resume: Mapping[str, int] | None = None,
    ) -> None:
        """``resume``: the last eid applied of each SMIB by an earlier run (from its ledger,
        :func:`resume_points`); the link then asks for what came after it."""
        self.inbox = inbox
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
        self._sessions = {
            s: _Session(contig=resume.get(s), known=resume.get(s, 0)) for s in self.smibs
        }
        self._rng = random.Random(config.seed)
        self._cmd_no = 0
        # command ids are unique across runs: a SMIB remembers the ids it executed
        self._run = secrets.token_hex(4)
        self._sent: dict[str, dict[str, Any]] = {}  # money commands by cmd_id, as sent
        self._stop = threading.Event()
        self._keeper: threading.Thread | None = None
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
            s = self._sessions[where.smib]
            s.last_seen = time.monotonic()
            getattr(self, f"_on_{where.leaf}")(where.smib, topic, s, doc)

    # -- per topic (lock held) ---------------------------------------------------------------------

    def _on_status(self, smib: str, topic: str, s: _Session, doc: dict[str, Any]) -> None:
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

    def _on_birth(self, smib: str, topic: str, s: _Session, doc: dict[str, Any]) -> None:
        bd = doc["bd"]
        if bd < s.bd:
            self._reject(smib, topic, "stale", f"birth of session {bd}; session {s.bd} is live")
            return
        s.bd, s.born, s.online, s.want_rebirth = bd, True, True, False
        s.next_seq, s.missing = 1, set()
        last = doc["last_eid"]
        if s.contig is None:
            s.contig = last
        s.known = max(s.known, last)
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
        self._release(s)

    def _on_evt(self, smib: str, topic: str, s: _Session, doc: dict[str, Any]) -> None:
        self._sequence(s, doc)
        eid = doc["eid"]
        if (s.contig is not None and eid <= s.contig) or eid in s.held:
            self._reject(smib, topic, "duplicate", f"event {eid} already received")
            return
        s.known = max(s.known, eid)
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
        )
        self._release(s)

    def _on_meters(self, smib: str, topic: str, s: _Session, doc: dict[str, Any]) -> None:
        self._sequence(s, doc)
        as_of = doc["as_of_eid"]
        s.snapshots_seen += 1
        s.known = max(s.known, as_of)
        snap = Meters(
            smib, "meters", doc["epoch"], as_of, doc["digits"], tuple(sorted(doc["meters"].items()))
        )
        s.snapshots.append((as_of, snap))
        self._release(s)

    def _on_cmdres(self, smib: str, topic: str, s: _Session, doc: dict[str, Any]) -> None:
        self._sequence(s, doc)
        cmd_id, result = doc["cmd_id"], doc["result"]
        self._put(
            Result(smib, cmd_id, result, doc.get("reason", ""), canonical(doc.get("data", {})))
        )
        start = s.replays.pop(cmd_id, None)
        if start is None or result not in ("failed", "expired", "rejected"):
            return
        if result != "failed" or s.contig is None:
            return  # asked again after the interval
        first_held = doc.get("data", {}).get("first_held")
        if not isinstance(first_held, int):
            return
        upto = min([first_held - 1, *(e - 1 for e in s.held)]) if s.held else first_held - 1
        upto = min(upto, s.known)
        if upto > s.contig:
            self._put(Lost(smib, s.contig + 1, upto, doc.get("reason", "not replayable")))
            s.contig = upto
            self._release(s)

    # -- ordering --------------------------------------------------------------------------------

    def _sequence(self, s: _Session, doc: dict[str, Any]) -> None:
        """Track ``seq`` in the live session; a message of a session not born asks a rebirth."""
        bd, seq = doc["bd"], doc["seq"]
        if bd < s.bd:
            return  # re-sent from an earlier session: only its eid matters
        if bd > s.bd or not s.born:
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

    def _eid_gap(self, s: _Session) -> bool:
        return s.contig is not None and s.known > s.contig

    def _open_gap(self, s: _Session) -> None:
        if s.gap_since is None:
            s.gap_since = time.monotonic()
            s.gap_wait = self.config.reorder_window + self._rng.uniform(0, self.config.jitter)

    def _release(self, s: _Session) -> None:
        """Deliver held events and snapshots that the applied events have caught up with."""
        if s.contig is None:
            return
        while s.contig + 1 in s.held:
            s.contig += 1
            self._put(s.held.pop(s.contig))
            self.accepted += 1
        ready = sorted((a for a in s.snapshots if a[0] <= s.contig), key=lambda a: a[0])
        if ready:
            s.snapshots = [a for a in s.snapshots if a[0] > s.contig]
            for _, snap in ready:
                self._put(snap)
        if self._eid_gap(s):
            self._open_gap(s)
        self._maybe_close(s)

    def _maybe_close(self, s: _Session) -> None:
        """Close the gap window when nothing is missing any more."""
        if not s.missing and not self._eid_gap(s) and not s.want_rebirth:
            s.gap_since = None

    def _want_rebirth(self, s: _Session, why: str) -> None:
        if not s.want_rebirth:
            s.want_rebirth = True
            s.gap_since = s.gap_since or time.monotonic()
            s.gap_wait = self._rng.uniform(0, self.config.jitter)

    # -- housekeeping thread ---------------------------------------------------------------------

    def _housekeeping(self) -> None:
        while not self._stop.wait(0.05):
            try:
                self.tick(time.monotonic())
            except Exception:
                log.exception("twin link: housekeeping failed")

    def tick(self, now: float) -> None:
        """Ask for what is still missing after its reorder window."""
        with self._lock:
            for smib, s in sorted(self._sessions.items()):
                if s.gap_since is None or now - s.gap_since < s.gap_wait:
                    continue
                if now - s.last_request < self.config.request_interval:
                    continue
                s.last_request = now
                if s.want_rebirth:
                    self._send(smib, "rebirth", {}, "a session without its birth")
                    s.gap_since = now
                    continue
                if s.contig is None:
                    continue
                start = s.contig + 1
                cmd_id = self._send(
                    smib,
                    "replay_events",
                    {"from_eid": start},
                    f"gap: seq {sorted(s.missing)[:5]} eid {start}..{s.known}",
                )
                s.replays[cmd_id] = start
                s.missing.clear()
                s.gap_since = now if self._eid_gap(s) else None

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
            }


def resume_points(records: Iterable[Record]) -> dict[str, int]:
    """The last eid applied (or declared lost) of each SMIB in an earlier run's records."""
    out: dict[str, int] = {}
    for rec in records:
        if isinstance(rec, SmibEvent):
            out[rec.smib] = max(out.get(rec.smib, 0), rec.eid)
        elif isinstance(rec, SmibEventsLost):
            out[rec.smib] = max(out.get(rec.smib, 0), rec.to_eid)
    return out
