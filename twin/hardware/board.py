"""The MQTT side of a SMIB (``docs/smib-protocol.md``), whatever machine is behind it.

:class:`SmibBoard` is what every SMIB of the twin shares: its non-volatile :class:`Memory`
(session number ``bd``, event ids, epoch, the events it can still replay, the machine's last
meters, the money commands done), the connection (``bd`` + 1 and the will before each
connect, birth and ``status`` on connect, ``offline`` on a clean stop), the up-messages
(stamped ``v smib bd seq ts``, never over :data:`~twin.hardware.protocol.MAX_BYTES`, through
the :class:`~twin.hardware.misbehaviour.Misbehaviour` switches) and the commands (``rebirth``,
``read_meters``, ``ping``, ``enable``/``disable``, ``replay_events``; idempotent by ``cmd_id``,
``expired`` after ``expires``; a command the board has no handler for is ``rejected``).

A subclass provides the machine: :attr:`SmibBoard.identity`, :attr:`SmibBoard.digits`,
:meth:`SmibBoard._meter_values` and :meth:`SmibBoard._set_play`, and reports what the machine
did with :meth:`SmibBoard._emit`. The subclasses: :class:`twin.hardware.emulator.SmibEmulator`
(the twin's machine model) and :class:`twin.hardware.sas.bridge.SasBridge` (a SAS machine).
"""

from __future__ import annotations

import contextlib
import copy
import json
import logging
import os
import socket
import threading
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from twin.hardware import protocol as p
from twin.hardware.client import Broker, close_socket
from twin.hardware.misbehaviour import LateQueue, Misbehaviour
from twin.hardware.netloop import NetLoop
from twin.hardware.truth import TruthLog

log = logging.getLogger("twin.hardware.board")


@dataclass
class Memory:
    """What a SMIB keeps across reboots (non-volatile): session, event ids, epoch, events."""

    bd: int = 0
    eid: int = 0
    epoch: int = 0
    events: list[dict[str, Any]] = field(default_factory=list)
    path: Path | None = None
    #: the machine's own non-volatile meters (raw), bill counts and hopper level: a SMIB
    #: restart does not clear the machine
    machine: dict[str, int] = field(default_factory=dict)
    #: results of the money commands executed (by cmd_id): a command sent again after a
    #: restart is answered ``duplicate``, never executed twice
    done: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: SAS exceptions read from the machine (so gone from its queue) whose event is not made
    #: yet: a SMIB that restarts makes them first (the reference SMIB, issue 30)
    pending: list[int] = field(default_factory=list)

    def backup(self) -> Memory:
        """A copy of the non-volatile state as it stands (a backup of the board; no path)."""
        return copy.deepcopy(replace(self, path=None))

    @classmethod
    def load(cls, path: Path) -> Memory:
        if not path.exists():
            return cls(path=path)
        doc = json.loads(path.read_text(encoding="utf-8"))
        return cls(
            doc["bd"],
            doc["eid"],
            doc["epoch"],
            doc["events"],
            path,
            doc["machine"],
            doc.get("done", {}),
            doc.get("pending", []),
        )

    def save(self) -> None:
        if self.path is None:
            return
        tmp = self.path.with_suffix(".tmp")
        doc = {
            "bd": self.bd,
            "eid": self.eid,
            "epoch": self.epoch,
            "events": self.events,
            "machine": self.machine,
            "done": self.done,
            "pending": self.pending,
        }
        tmp.write_text(json.dumps(doc), encoding="utf-8")
        os.replace(tmp, self.path)


@dataclass(frozen=True)
class Identity:
    serial: str
    program: str
    denom_cents: int
    paytable: str


class SmibBoard:
    """One SMIB's MQTT side (module docstring); thread-safe: one reentrant lock (``_lock``)
    around the memory, the sequence numbers and the machine's use."""

    identity: Identity
    digits: int

    def __init__(
        self,
        smib: str,
        broker: Broker,
        password: str,
        *,
        memory: Memory | None = None,
        keep_events: int = 10_000,
        misbehave: Misbehaviour | None = None,
        keepalive: int = 2,
        truth: TruthLog | Path | None = None,
        seed: int = 0,
    ) -> None:
        self.smib = smib
        self.broker = broker
        self._password = password
        self._own_truth = isinstance(truth, Path)
        self.truth = TruthLog(truth) if isinstance(truth, Path) else truth
        self.memory = memory if memory is not None else Memory()
        self.misbehave = misbehave if misbehave is not None else Misbehaviour()
        self.keep_events = self.misbehave.keep or keep_events
        self._mis_rng = np.random.default_rng([seed, 1])
        self.seq = 0
        self.sent: Counter[str] = Counter()
        self.dropped: Counter[str] = Counter()
        self.too_large: Counter[str] = Counter()  # payloads over the size limit, never sent
        self.births = 0
        self.refused: list[str] = []
        self.dead = False
        self.results: dict[str, dict[str, Any]] = dict(self.memory.done)
        self._held: list[tuple[str, bytes]] = []
        self._lock = threading.RLock()
        self._late = LateQueue(f"smib-{smib}-late", self._handle)  # commands for cmd_delay
        c = mqtt.Client(
            CallbackAPIVersion.VERSION2, client_id=smib, clean_session=True, protocol=mqtt.MQTTv311
        )
        c.username_pw_set(smib, password)
        c.reconnect_delay_set(1, 2)
        c.max_queued_messages_set(100_000)
        broker.secure(c)
        c.on_pre_connect = self._on_pre_connect
        c.on_connect_fail = self._on_connect_fail
        c.on_connect = self._on_connect
        c.on_message = self._on_message
        self.client = c
        self._keepalive = keepalive
        self._net: NetLoop | None = None

    # -- what the machine behind provides ------------------------------------------------------

    def _meter_values(self) -> dict[str, int]:
        """Every meter by name as the machine reads now (birth, meters)."""
        raise NotImplementedError

    def _snapshot_values(self) -> dict[str, int]:
        """The meters of a ``meters`` message (by default :meth:`_meter_values`)."""
        return self._meter_values()

    def _set_play(self, enabled: bool) -> str | None:
        """Enable or disable play; None when done, else why not (``failed``)."""
        raise NotImplementedError

    # -- connection --------------------------------------------------------------------------

    def start(self, net: NetLoop | None = None) -> None:
        """Connect: with a network thread of its own (paho's ``loop_start``), or served by
        ``net`` with other emulators (a bench)."""
        self.client.connect_async(self.broker.host, self.broker.port, keepalive=self._keepalive)
        self._net = net
        if net is None:
            self.client.loop_start()
        else:
            net.add(self.client)

    def stop(self) -> None:
        """A clean shutdown: ``offline`` on the status topic, then DISCONNECT (not after
        :meth:`die`: a dead board says nothing)."""
        self._late.close()
        if self._own_truth and self.truth is not None:
            self.truth.close()
        if self.dead:
            return
        with self._lock:
            info = self.client.publish(
                p.up_topic(self.smib, "status"), self._status("offline"), 1, True
            )
        if self.client.is_connected():
            info.wait_for_publish(timeout=5)
        if self._net is not None:
            self._net.disconnect(self.client)
            return
        self.client.disconnect()
        self.client.loop_stop()
        close_socket(self.client)

    def die(self) -> None:
        """Power cut: the network thread stops and the socket closes with no DISCONNECT."""
        self.dead = True
        self._late.close()
        if self._net is not None:
            self._net.kill(self.client)
            return
        self.client.loop_stop()
        sock = self.client.socket()
        if isinstance(sock, socket.socket):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        close_socket(self.client)

    def _status(self, state: str) -> bytes:
        return p.encode({"v": p.VERSION, "smib": self.smib, "bd": self.memory.bd, "state": state})

    def _on_pre_connect(self, client: mqtt.Client, userdata: Any) -> None:
        with self._lock:
            self.memory.bd += 1
            self.memory.save()
            client.will_set(p.up_topic(self.smib, "status"), self._status("lost"), 1, True)

    def _on_connect_fail(self, client: mqtt.Client, userdata: Any) -> None:
        self.refused.append("connection failed")

    def _on_connect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any
    ) -> None:
        if reason.is_failure:
            log.info("SMIB %s: connection refused: %s", self.smib, reason)
            self.refused.append(str(reason))
            return
        client.subscribe(p.down_topic(self.smib), qos=1)
        with self._lock:
            self.birth()
            client.publish(p.up_topic(self.smib, "status"), self._status("online"), 1, True)

    # -- what it sends ---------------------------------------------------------------------------

    def birth(self, cmd_id: str | None = None) -> None:
        """seq 0 of a session: identity, every meter, epoch and the last event id (and, in
        answer to a ``rebirth``, that command's ``cmd_id``)."""
        with self._lock:
            self.seq = 0
            self.births += 1
            body: dict[str, Any] = {
                "identity": {
                    "serial": self.identity.serial,
                    "program": self.identity.program,
                    "denom_cents": self.identity.denom_cents,
                    "paytable": self.identity.paytable,
                },
                "epoch": self.memory.epoch,
                "digits": self.digits,
                "meters": self._meter_values(),
                "last_eid": self.memory.eid,
            }
            if cmd_id is not None:
                body["cmd_id"] = cmd_id
            if self.truth is not None:
                self.truth.birth(self.smib, self.memory.bd, self.memory.eid)
            self._publish("birth", body)

    def send_meters(self, cmd_id: str | None = None) -> None:
        with self._lock:
            body: dict[str, Any] = {
                "epoch": self.memory.epoch,
                "digits": self.digits,
                "meters": self._snapshot_values(),
                "as_of_eid": self.memory.eid,
            }
            if cmd_id is not None:
                body["cmd_id"] = cmd_id
            self._publish("meters", body)

    def _stamp(self, body: dict[str, Any]) -> dict[str, Any]:
        """(v, smib, bd, seq, ts) and ``body``; the next seq."""
        out = {
            "v": p.VERSION,
            "smib": self.smib,
            "bd": self.memory.bd,
            "seq": self.seq,
            "ts": datetime.now(UTC).isoformat(timespec="microseconds"),
            **body,
        }
        self.seq += 1
        return out

    def _publish(
        self, leaf: str, body: dict[str, Any], *, raw: bool = False, lose: bool = False
    ) -> None:
        """Stamp (v, smib, bd, seq, ts) and send, through the misbehaviour switches
        (``lose``: lost on the wire whatever they say); never a payload over the protocol's
        size limit (``protocol.MAX_BYTES``: a broker's cap would cut the SMIB off)."""
        if not raw:
            body = self._stamp(body)
        payload = p.encode(body)
        if len(payload) > p.MAX_BYTES.get(leaf, len(payload)):
            log.error("SMIB %s: a %d-byte %s not sent (too large)", self.smib, len(payload), leaf)
            self.too_large[leaf] += 1
            return
        self.send_bytes(p.up_topic(self.smib, leaf), payload, leaf=leaf, lose=lose)

    def send_bytes(
        self, topic: str, payload: bytes, *, leaf: str = "", qos: int = 1, lose: bool = False
    ) -> None:
        """Publish raw bytes on any topic (tests use it for malformed messages)."""
        m = self.misbehave
        copies, hold = (0, False) if lose else m.fate(leaf, self._mis_rng)
        if copies == 0:
            self.dropped[leaf] += 1
            return
        if hold:
            self._held.extend([(topic, payload)] * copies)
            return
        out = [(topic, payload)] * copies + self._held
        self._held = []
        if m.delay:
            wait = float(self._mis_rng.uniform(0, m.delay))
            timer = threading.Timer(wait, self._send_all, (out,))
            timer.daemon = True
            timer.start()
        else:
            self._send_all(out)

    def _send_all(self, messages: list[tuple[str, bytes]]) -> None:
        for topic, payload in messages:
            self.client.publish(topic, payload, qos=1)
            self.sent[topic.rsplit("/", 1)[-1]] += 1

    def flush_held(self) -> None:
        with self._lock:
            out, self._held = self._held, []
            self._send_all(out)

    def _emit(
        self,
        code: int,
        name: str,
        deltas: dict[str, int],
        data: dict[str, Any],
        machine: dict[str, int],
        *,
        send: bool = True,
    ) -> dict[str, Any]:
        """The next event (eid + 1): kept for replay and, with ``machine`` (what the memory
        keeps of the machine after it), saved before it is sent (``send`` False: kept, not
        sent; the caller sends it later)."""
        self.memory.eid += 1
        evt = {
            "eid": self.memory.eid,
            "code": code,
            "name": name,
            "epoch": self.memory.epoch,
            "deltas": deltas,
            "data": data,
        }
        self.memory.events.append(evt)
        if len(self.memory.events) > self.keep_events:
            del self.memory.events[: len(self.memory.events) - self.keep_events]
        self.memory.machine = machine
        self.memory.save()
        if self.truth is not None:
            self.truth.event(self.smib, self.memory.bd, evt)
        if send:
            self._publish("evt", dict(evt), lose=self.misbehave.drops_eid(self.memory.eid))
        return evt

    # -- commands ---------------------------------------------------------------------------------

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        with self._lock:
            if self.misbehave.drop_next["cmd"] > 0:  # a command lost on its way in
                self.misbehave.drop_next["cmd"] -= 1
                self.dropped["cmd"] += 1
                return
        if self.misbehave.cmd_delay > 0:  # a slow board: handled later, in order
            self._late.put(bytes(msg.payload), self.misbehave.cmd_delay, self._net)
            return
        self._handle(bytes(msg.payload))

    def _handle(self, payload: bytes) -> None:
        if self.dead:  # a command due after the power went: nobody handles it
            return
        try:
            self.command(payload)
        except Exception:
            log.exception("SMIB %s: command failed", self.smib)

    def command(self, payload: bytes) -> None:
        try:
            doc = json.loads(payload.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            self._result("?", "rejected", f"not JSON: {exc}")
            return
        err = p.validate("cmd", doc)
        if err is not None:
            cmd_id = doc.get("cmd_id") if isinstance(doc, dict) else None
            self._result(cmd_id if isinstance(cmd_id, str) and cmd_id else "?", "rejected", err)
            return
        cmd_id = doc["cmd_id"]
        with self._lock:
            if cmd_id in self.results:
                first = self.results[cmd_id]
                self._result(cmd_id, "duplicate", f"already {first['result']}", first.get("data"))
                return
            if doc["expires"] < time.time():
                self._result(cmd_id, "expired", "received after it expired", remember=True)
                return
            handler = getattr(self, f"_cmd_{doc['cmd']}", None)
            if handler is None:  # a bench command to a board without a bench machine
                why = f"{doc['cmd']} is not supported by this SMIB"
                self._result(cmd_id, "rejected", why)
                return
            handler(cmd_id, doc.get("args", {}))

    def _result(
        self,
        cmd_id: str,
        result: str,
        reason: str = "",
        data: dict[str, Any] | None = None,
        *,
        remember: bool = True,
    ) -> None:
        with self._lock:
            body: dict[str, Any] = {"cmd_id": cmd_id, "result": result}
            if reason:
                body["reason"] = reason[:200]
            if data:
                body["data"] = data
            if remember and cmd_id != "?" and result != "duplicate":
                self.results[cmd_id] = body
            self._publish("cmdres", body)

    def _cmd_rebirth(self, cmd_id: str, args: dict[str, int]) -> None:
        self._result(cmd_id, "completed")
        self.birth(cmd_id=cmd_id)

    def _cmd_read_meters(self, cmd_id: str, args: dict[str, int]) -> None:
        self.send_meters(cmd_id)
        self._result(cmd_id, "completed")

    def _cmd_ping(self, cmd_id: str, args: dict[str, int]) -> None:
        self._result(cmd_id, "completed")

    def _cmd_enable(self, cmd_id: str, args: dict[str, int]) -> None:
        self._play_result(cmd_id, self._set_play(True))

    def _cmd_disable(self, cmd_id: str, args: dict[str, int]) -> None:
        self._play_result(cmd_id, self._set_play(False))

    def _play_result(self, cmd_id: str, why: str | None) -> None:
        if why is None:
            self._result(cmd_id, "completed")
        else:
            self._result(cmd_id, "failed", why)

    def _cmd_replay_events(self, cmd_id: str, args: dict[str, int]) -> None:
        start = args["from_eid"]
        end = args.get("to_eid", self.memory.eid)
        events = self.memory.events
        first_held = events[0]["eid"] if events else self.memory.eid + 1
        sent = 0
        for evt in events:
            if start <= evt["eid"] <= end:
                self._publish("evt", {**evt, "replay": True})
                sent += 1
        if start < first_held:
            self._result(
                cmd_id,
                "failed",
                f"events before {first_held} are no longer held",
                {"first_held": first_held, "replayed": sent},
            )
        else:
            self._result(cmd_id, "completed", data={"replayed": sent})
