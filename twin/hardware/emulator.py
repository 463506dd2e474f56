"""A SMIB emulator: the twin's machine model behind a SMIB that speaks the link protocol.

The machine is :class:`twin.machines.accounting.SlotAccounts` (SAS meters, credit meter,
hopper, doors) played by :class:`twin.machines.engine.PerSpinEngine` on a PAR sheet (or, for a
game without free spins, by the batched engine on a tape of the same generator: the same
games, drawn from the same uniforms in the same order, at about half the cost). Each
activity (a bill, a stretch of games, a cash out, a door, a meter reset) is one event with
a persistent ``eid`` and the meter increments it caused; ``bd``, ``eid``, ``epoch`` and the
events it can still replay survive a restart when the emulator is given a state file.

It answers ``down/cmd`` (``rebirth``, ``replay_events``, ``read_meters``, ``ping``,
``enable``/``disable``; idempotent by ``cmd_id``; ``expired`` after ``expires``) and can
misbehave on purpose (:mod:`twin.hardware.misbehaviour`): drop, duplicate, hold back or delay
messages, reset its meters, die (the broker publishes its will), hold few events, handle
commands late, come back from a backup, forge an event. Its truth log
(:mod:`twin.hardware.truth`) says what it created. A bench of them: :mod:`twin.hardware.bench`.
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
from twin.hardware.link import Broker, close_socket
from twin.hardware.misbehaviour import LateQueue
from twin.hardware.misbehaviour import Misbehaviour as Misbehaviour  # re-exported
from twin.hardware.netloop import NetLoop
from twin.hardware.truth import TruthLog
from twin.machines.accounting import SlotAccounts
from twin.machines.engine import (
    BatchedEngine,
    PerSpinEngine,
    PlayRequest,
    PlayResult,
    Stop,
    UniformTape,
)
from twin.machines.par import Game
from twin.machines.sas import Door, ExceptionCode, MeterCode

log = logging.getLogger("twin.hardware.emulator")

#: Real-time event codes the emulator reports besides the SAS general exceptions.
BILL_ACCEPTED = 0x4F
CASH_OUT = 0x66
METERS_RESET = 0x7A
GAME_ENDED = 0x7F
QUEUE_OVERFLOW = 0x70
#: Codes of the emulator's own (twin-defined) real-time events for bench activities.
COINS_ACCEPTED = 0x4E
HOPPER_FILLED = 0x6B
BILLS_CENTS = (500, 1000, 2000, 5000)
#: the name of each meter in messages and state files
_METER_NAMES = {code: code.name.lower() for code in MeterCode}


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
        }
        tmp.write_text(json.dumps(doc), encoding="utf-8")
        os.replace(tmp, self.path)


@dataclass(frozen=True)
class Identity:
    serial: str
    program: str
    denom_cents: int
    paytable: str


class SmibEmulator:
    """One emulated SMIB and its machine; thread-safe (activities from any thread)."""

    def __init__(
        self,
        smib: str,
        broker: Broker,
        password: str,
        game: Game,
        *,
        serial: str = "",
        program: str | None = None,
        denom_cents: int = 25,
        digits: int = 8,
        seed: int = 0,
        memory: Memory | None = None,
        keep_events: int = 10_000,
        misbehave: Misbehaviour | None = None,
        keepalive: int = 2,
        truth: TruthLog | Path | None = None,
    ) -> None:
        self.smib = smib
        self.broker = broker
        self.game = game
        self._password = password
        self._seed = seed
        self._own_truth = isinstance(truth, Path)
        self.truth = TruthLog(truth) if isinstance(truth, Path) else truth
        self.identity = Identity(
            serial or f"SN-{smib}", program or game.signature, denom_cents, game.id
        )
        self.digits = digits
        self.memory = memory if memory is not None else Memory()
        self.misbehave = misbehave if misbehave is not None else Misbehaviour()
        self.keep_events = self.misbehave.keep or keep_events
        self.rng = np.random.default_rng(seed)
        self._mis_rng = np.random.default_rng([seed, 1])
        self.engine = PerSpinEngine(game)
        # without free spins the feature stream is never drawn, so the batched engine on a
        # tape of the generator plays exactly the per-spin engine's games (the engines'
        # contract, tests/test_engine.py); a feature would interleave the draws differently
        self._batched = BatchedEngine(game) if not game.has_free_spins else None
        self._tape = UniformTape(self.rng, block=1024)
        self.machine = self._new_machine()
        self._restore(self.memory.machine)
        self.enabled = True
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

    def _new_machine(self) -> SlotAccounts:
        return SlotAccounts(
            denomination_cents=self.identity.denom_cents,
            hopper_capacity=2_000,
            hopper_level=1_000,
            meter_digits=self.digits,
            bill_denominations_cents=BILLS_CENTS,
        )

    def _restore(self, saved: dict[str, int]) -> None:
        """Put back the machine's meters, bills and hopper as the state file kept them."""
        m = self.machine
        for name, value in saved.items():
            if name == "hopper_level":
                m.hopper_level = value
            elif name.startswith("bills_"):
                m.bills[int(name.removeprefix("bills_"))] = value
            else:
                m.meters[MeterCode[name.upper()]] = value

    def _keep(self, raw: dict[str, int] | None = None) -> None:
        """Keep the machine's meters (``raw``: :meth:`_raw` as it stands) in the memory."""
        raw = self._raw() if raw is None else raw
        self.memory.machine = {**raw, "hopper_level": self.machine.hopper_level}
        self.memory.save()

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

    def restored(self, memory: Memory) -> SmibEmulator:
        """The same board (id, credentials, machine, switches, truth log) on ``memory``, not
        started: a board whose state was restored from a backup."""
        i = self.identity
        emu = SmibEmulator(
            self.smib, self.broker, self._password, self.game, serial=i.serial,
            program=i.program, denom_cents=i.denom_cents, digits=self.digits, seed=self._seed,
            memory=memory, keep_events=self.keep_events, misbehave=self.misbehave,
            keepalive=self._keepalive, truth=self.truth,
        )  # fmt: skip
        emu._own_truth, self._own_truth = self._own_truth, False
        emu.sent.update(self.sent)
        emu.dropped.update(self.dropped)
        return emu

    def regress(self, backup: Memory) -> SmibEmulator:
        """The board loses power (no clean disconnect: the will fires), its non-volatile
        state is replaced by ``backup`` (and saved to its state file, if it has one): the
        board that comes back, to be started (its bd is ``backup.bd + 1``, its next event
        ``backup.eid + 1``)."""
        with self._lock:
            from_eid = self.memory.eid
            self.die()
            memory = backup.backup()
            memory.path = self.memory.path
            memory.save()
            if self.truth is not None:
                self.truth.restore(self.smib, from_eid, memory.eid, memory.bd + 1)
        return self.restored(memory)

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

    def _meter_values(self) -> dict[str, int]:
        return self.machine.readings()

    def _raw(self) -> dict[str, int]:
        out = {_METER_NAMES[code]: v for code, v in self.machine.meters.items()}
        out.update({f"bills_{c}": n for c, n in self.machine.bills.items()})
        return out

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
                "meters": self._meter_values(),
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

    def _event(
        self, code: int, name: str, before: dict[str, int], data: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        after = self._raw()
        deltas = {k: v - before.get(k, 0) for k, v in after.items() if v != before.get(k, 0)}
        deltas = {k: v for k, v in deltas.items() if v > 0}
        self.memory.eid += 1
        evt = {
            "eid": self.memory.eid,
            "code": code,
            "name": name,
            "epoch": self.memory.epoch,
            "deltas": deltas,
            "data": data or {},
        }
        self.memory.events.append(evt)
        if len(self.memory.events) > self.keep_events:
            del self.memory.events[: len(self.memory.events) - self.keep_events]
        self._keep(after)
        if self.truth is not None:
            self.truth.event(self.smib, self.memory.bd, evt)
        self._publish("evt", dict(evt), lose=self.misbehave.drops_eid(self.memory.eid))
        return evt

    def phantom(self, nbytes: int) -> dict[str, Any]:
        """A forged, schema-valid ``slot_door_opened`` event under the next eid, its payload
        about ``nbytes`` bytes (padded in ``data.pad``; never less than the event needs). The
        SMIB's eid does not move (its next real event reuses this eid) and the forgery is
        not kept for replay."""
        with self._lock:
            code = ExceptionCode.SLOT_DOOR_OPENED
            evt: dict[str, Any] = {
                "eid": self.memory.eid + 1,
                "code": int(code),
                "name": code.name.lower(),
                "epoch": self.memory.epoch,
                "deltas": {},
                "data": {"pad": ""},
            }
            body = self._stamp(evt)
            pad = max(0, nbytes - len(p.encode(body)))
            evt["data"] = body["data"] = {"pad": "x" * pad}
            if self.truth is not None:
                self.truth.event(self.smib, self.memory.bd, evt, phantom=True)
            # QoS 0: once; a broker cuts a SMIB off for a packet this large, and paho resends QoS 1
            self.client.publish(p.up_topic(self.smib, "evt"), p.encode(body), qos=0)
            self.sent["evt"] += 1
            return evt

    # -- the machine's activities ----------------------------------------------------------------

    def insert_bill(self, cents: int, *, tag: dict[str, Any] | None = None) -> dict[str, Any]:
        with self._lock:
            before = self._raw()
            credits = self.machine.insert_bill(cents)
            short = min(self.misbehave.short_credit, credits)
            if short:  # the credit meter gets less than the bill is worth
                self.machine.tamper_meter(MeterCode.CURRENT_CREDITS, -short)
                credits -= short
            data = {"cents": cents, "credits": credits, **(tag or {})}
            return self._event(BILL_ACCEPTED, "bill_accepted", before, data)

    def insert_coins(self, coins: int, *, tag: dict[str, Any] | None = None) -> dict[str, Any]:
        with self._lock:
            before = self._raw()
            got = self.machine.insert_coins(coins)
            data = {"coins": coins, "to_hopper": got.to_hopper, "to_drop": got.to_drop}
            return self._event(COINS_ACCEPTED, "coins_accepted", before, {**data, **(tag or {})})

    def play(
        self, games: int, bet_units: int = 1, *, tag: dict[str, Any] | None = None
    ) -> dict[str, Any] | None:
        """Up to ``games`` games (fewer when the credits run out); one ``game_ended`` event."""
        with self._lock:
            if not self.enabled or not self.machine.play_enabled:
                return None
            req = PlayRequest(credits=self.machine.credits, bet_units=bet_units, max_games=games)
            r = self._stretch(req)
            if r.games == 0:
                return None
            return self.record_games(
                r.games, r.wagered, r.won, r.games_won, r.lock_win if r.stop in (
                    Stop.JACKPOT, Stop.PROGRESSIVE) else 0, tag=tag
            )  # fmt: skip

    def _stretch(self, req: PlayRequest) -> PlayResult:
        """A stretch of games on the machine's generator (every draw of it comes here)."""
        if self._batched is not None:
            return self._batched.play(req, self._tape, self._tape)
        return self.engine.play(req, self.rng, self.rng)

    def record_games(
        self,
        games: int,
        wagered: int,
        won: int,
        games_won: int,
        jackpot: int = 0,
        *,
        tag: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """A stretch of games whose outcome is given (a bench replaying recorded play)."""
        with self._lock:
            before = self._raw()
            self.machine.record_play(games, wagered, won, games_won)
            if jackpot > 0:
                self.machine.record_jackpot(jackpot)
            data = {
                "games": games,
                "wagered": wagered,
                "won": won,
                "games_won": games_won,
                "credits": self.machine.credits,
                **(tag or {}),
            }
            evt = self._event(GAME_ENDED, "game_ended", before, data)
            if self.misbehave.skew:  # the coin-in meter counts more than the games it says
                self.machine.tamper_meter(MeterCode.TOTAL_COIN_IN, self.misbehave.skew)
            return evt

    def cash_out(
        self, *, hopper_limit: int | None = None, tag: dict[str, Any] | None = None
    ) -> dict[str, Any] | None:
        """The credits paid by the hopper (up to ``hopper_limit``), the rest by hand."""
        with self._lock:
            credits = self.machine.credits
            if credits <= 0:
                return None
            before = self._raw()
            want = credits if hopper_limit is None else min(credits, hopper_limit)
            paid = self.machine.pay_from_hopper(want) if want > 0 else 0
            if paid < credits:
                self.machine.pay_by_hand(credits - paid)
            data = {"credits": credits, "hopper": paid, **(tag or {})}
            return self._event(CASH_OUT, "cash_out", before, data)

    def open_door(
        self, door: Door = Door.SLOT, *, tag: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        with self._lock:
            before = self._raw()
            self.machine.open_door(door)
            code = door.opened_code
            return self._event(int(code), code.name.lower(), before, dict(tag or {}))

    def close_door(
        self, door: Door = Door.SLOT, *, tag: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        with self._lock:
            before = self._raw()
            self.machine.close_door(door)
            code = door.closed_code
            return self._event(int(code), code.name.lower(), before, dict(tag or {}))

    def power_loss(self, *, tag: dict[str, Any] | None = None) -> dict[str, Any]:
        """AC power lost and applied again: games since power reset go to zero."""
        with self._lock:
            before = self._raw()
            self.machine.power_reset()
            code = ExceptionCode.AC_POWER_LOST
            self._event(int(code), code.name.lower(), before, dict(tag or {}))
            code = ExceptionCode.AC_POWER_APPLIED
            return self._event(int(code), code.name.lower(), self._raw(), dict(tag or {}))

    def fill_hopper(self, coins: int, *, tag: dict[str, Any] | None = None) -> dict[str, Any]:
        with self._lock:
            before = self._raw()
            coins = min(coins, self.machine.hopper_capacity - self.machine.hopper_level)
            if coins > 0:
                self.machine.fill_hopper(coins)
            data = {"coins": coins, "hopper_level": self.machine.hopper_level, **(tag or {})}
            return self._event(HOPPER_FILLED, "hopper_filled", before, data)

    def tilt(self, code: ExceptionCode = ExceptionCode.GENERAL_TILT) -> dict[str, Any]:
        with self._lock:
            return self._event(int(code), code.name.lower(), self._raw())

    def skew_meter(self, meter: str, delta: int) -> None:
        """A meter moved with no event behind it (reconciliation must catch it)."""
        with self._lock:
            self.machine.tamper_meter(MeterCode[meter.upper()], delta)

    def preset_meters(self, values: dict[str, int]) -> None:
        """Start the meters at these raw values (a machine near its rollover)."""
        with self._lock:
            for name, value in values.items():
                self.machine.meters[MeterCode[name.upper()]] = value

    def overflow_queue(self, games: int) -> dict[str, Any] | None:
        """Games whose events the machine's full exception queue dropped (the meters still
        count them), then the SAS 0x70 exception that says so."""
        with self._lock:
            req = PlayRequest(credits=self.machine.credits, bet_units=1, max_games=games)
            r = self._stretch(req)
            if r.games:
                self.machine.record_play(r.games, r.wagered, r.won, r.games_won)
            return self._event(QUEUE_OVERFLOW, "exception_queue_overflow", self._raw())

    def reset_meters(self) -> dict[str, Any]:
        """RAM clear: every meter to zero in a new epoch (``meters_reset`` event, then meters)."""
        with self._lock:
            self.memory.epoch += 1
            self.machine = self._new_machine()
            evt = self._event(METERS_RESET, "meters_reset", self._raw())
            self.send_meters()
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
            getattr(self, f"_cmd_{doc['cmd']}")(cmd_id, doc.get("args", {}))

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
        self.enabled = True
        self._result(cmd_id, "completed")

    def _cmd_disable(self, cmd_id: str, args: dict[str, int]) -> None:
        self.enabled = False
        self._result(cmd_id, "completed")

    # -- bench commands: the machine of a test bench acts (drive mode, procedure suites) -------

    def _bench(self, cmd_id: str, evt: dict[str, Any] | None, why: str) -> None:
        """Answer a bench command: ``completed`` with the event it caused, or ``rejected``."""
        if evt is None:
            self._result(cmd_id, "rejected", why)
            return
        body = {"eid": evt["eid"]}
        self.memory.done[cmd_id] = {"cmd_id": cmd_id, "result": "completed", "data": body}
        self._keep()
        self._result(cmd_id, "completed", data=body)

    @staticmethod
    def _tag(cmd_id: str, args: dict[str, Any]) -> dict[str, Any]:
        tag: dict[str, Any] = {"cmd_id": cmd_id}
        for key in ("staff", "witness"):
            if args.get(key):
                tag[key] = args[key]
        return tag

    def _cmd_credit_in(self, cmd_id: str, args: dict[str, Any]) -> None:
        tag = self._tag(cmd_id, args)
        if not self.enabled:
            self._bench(cmd_id, None, "disabled")
        elif "cents" in args:
            if args["cents"] not in self.machine.bill_denominations_cents:
                self._bench(cmd_id, None, f"bill {args['cents']} not accepted")
            else:
                self._bench(cmd_id, self.insert_bill(args["cents"], tag=tag), "")
        else:
            self._bench(cmd_id, self.insert_coins(args["coins"], tag=tag), "")

    def _cmd_play(self, cmd_id: str, args: dict[str, Any]) -> None:
        evt = self.play(args["games"], args.get("bet_units", 1), tag=self._tag(cmd_id, args))
        self._bench(cmd_id, evt, "cannot play (disabled, a door open, or no credits)")

    def _cmd_cash_out(self, cmd_id: str, args: dict[str, Any]) -> None:
        evt = self.cash_out(hopper_limit=args.get("limit"), tag=self._tag(cmd_id, args))
        self._bench(cmd_id, evt, "no credits")

    def _cmd_open_door(self, cmd_id: str, args: dict[str, Any]) -> None:
        door = Door[args["door"].upper()]
        self._bench(cmd_id, self.open_door(door, tag=self._tag(cmd_id, args)), "")

    def _cmd_close_door(self, cmd_id: str, args: dict[str, Any]) -> None:
        door = Door[args["door"].upper()]
        self._bench(cmd_id, self.close_door(door, tag=self._tag(cmd_id, args)), "")

    def _cmd_power_loss(self, cmd_id: str, args: dict[str, Any]) -> None:
        self._bench(cmd_id, self.power_loss(tag=self._tag(cmd_id, args)), "")

    def _cmd_fill_hopper(self, cmd_id: str, args: dict[str, Any]) -> None:
        self._bench(cmd_id, self.fill_hopper(args["coins"], tag=self._tag(cmd_id, args)), "")

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
