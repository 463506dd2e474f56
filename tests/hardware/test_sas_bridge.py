"""The reference SMIB (``twin smib bridge``): a SAS gaming machine served on a real pty pair,
a :class:`~twin.hardware.sas.bridge.SasBridge` polling it and a real Mosquitto between the
bridge and a watcher that reads what a twin would (issue 30)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest

from twin.hardware import protocol as p
from twin.hardware.board import Memory
from twin.hardware.client import Broker as Endpoint
from twin.hardware.client import close_socket
from twin.hardware.protocol import NOT_CUMULATIVE
from twin.hardware.sas.bridge import (
    METERS,
    BridgeFaults,
    SasBridge,
    parse_rom_program,
    rom_program,
)
from twin.hardware.sas.crc import crc16
from twin.hardware.sas.gaming import SasGamingMachine
from twin.hardware.sas.line import SasLine
from twin.hardware.sas.pty import PtyPair, open_pty
from twin.hardware.sas.serve import Patron, new_accounts, serve
from twin.machines.sas import ExceptionCode

from .broker import Broker, smib_password, up_watcher, wait_until
from .rig import game

SMIB = "S-001"
REPO = Path(__file__).resolve().parents[2]
BILL_CODES = {500: 0x48, 1000: 0x49, 2000: 0x4A, 5000: 0x4B}


class Machine:
    """A SAS gaming machine (the twin's accounts) served on a pty pair, played by direct
    calls under the lock it shares with the line."""

    def __init__(self, *, rom_on_general_poll: bool = True, rom_delay_s: float = 0.0) -> None:
        self.pair: PtyPair = open_pty()
        self.rom_delay_s = rom_delay_s  # the machine takes this long to answer long poll 21
        self.accounts = new_accounts()
        self.lock = threading.RLock()
        self.game = game()
        self.sas = SasGamingMachine.for_game(
            self.accounts, self.game, address=1, serial="LAB-7", lock=self.lock,
            rom_signature_on_general_poll=rom_on_general_poll,
        )  # fmt: skip
        self.raised: list[int] = []  # every exception raised, in order
        self._serve()

    def _serve(self) -> None:
        self.stop = threading.Event()
        self.line, self.threads = serve(self.pair.machine_wire(), self, self.stop)

    def poll_length(self, head: bytes) -> int | None:
        length: int | None = self.sas.poll_length(head)
        return length

    def answer(self, poll: bytes) -> bytes | None:
        if self.rom_delay_s and len(poll) > 1 and poll[1] == 0x21:
            time.sleep(self.rom_delay_s)
        reply: bytes | None = self.sas.answer(poll)
        return reply

    def pause(self) -> SasLine:
        """The machine stops answering (its line thread ends)."""
        self.stop.set()
        for t in self.threads:
            t.join(timeout=5)
        return self.line

    def resume(self) -> None:
        self._serve()

    def bill(self, cents: int) -> None:
        with self.lock:
            self.accounts.insert_bill(cents)
            self.sas.bill_accepted(cents)
            self.raised.append(BILL_CODES[cents])

    def play(self, games: int, wagered: int, won: int, games_won: int) -> None:
        with self.lock:
            self.accounts.record_play(games, wagered, won, games_won)

    def handpay(self, credits: int) -> None:
        with self.lock:
            self.sas.handpay_pending(credits)
            self.raised.append(int(ExceptionCode.HANDPAY_PENDING))

    def handpay_reset(self) -> None:
        with self.lock:
            self.sas.handpay_reset()
            self.raised.append(int(ExceptionCode.HANDPAY_RESET))

    def door(self) -> None:
        with self.lock:
            for code in (ExceptionCode.SLOT_DOOR_OPENED, ExceptionCode.SLOT_DOOR_CLOSED):
                self.sas.raise_exception(int(code))
                self.raised.append(int(code))

    def readings(self) -> dict[str, int]:
        """What the bridge should report: the accounts' readings, and every other bill meter
        the machine answers (0)."""
        with self.lock:
            out = {name: 0 for name in METERS.values()}
            out.update(self.accounts.readings())
            return out

    def close(self) -> None:
        self.pause()
        self.pair.close()


class Watch:
    """The twin's side of the broker: every up-message of the SMIB, and commands down."""

    def __init__(self, broker: Broker) -> None:
        self.got: list[tuple[str, dict[str, Any]]] = []
        self.invalid: list[str] = []  # messages their schema refuses
        self._lock = threading.Lock()
        self.client = up_watcher(broker, self._on_message)

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        doc = json.loads(msg.payload)
        leaf = msg.topic.rsplit("/", 1)[-1]
        err = p.validate(leaf, doc)
        with self._lock:
            if err is not None:
                self.invalid.append(f"{leaf}: {err}")
            self.got.append((leaf, doc))

    def of(self, leaf: str) -> list[dict[str, Any]]:
        with self._lock:
            return [doc for lf, doc in self.got if lf == leaf]

    def events(self) -> list[dict[str, Any]]:
        """Each event once (by eid), in eid order."""
        return sorted({e["eid"]: e for e in self.of("evt")}.values(), key=lambda e: e["eid"])

    def codes(self) -> list[int]:
        return [e["code"] for e in self.events()]

    def until(self, what: str, ok: Callable[[], bool], timeout: float = 5.0) -> None:
        wait_until(what, ok, timeout)

    def command(self, cmd_id: str, cmd: str, **args: int) -> dict[str, Any]:
        doc: dict[str, Any] = {"v": 1, "cmd_id": cmd_id, "cmd": cmd, "expires": time.time() + 30}
        if args:
            doc["args"] = args
        self.client.publish(p.down_topic(SMIB), json.dumps(doc), qos=1).wait_for_publish(5)
        self.until(f"the answer to {cmd_id}", lambda: any(
            r["cmd_id"] == cmd_id for r in self.of("cmdres")))  # fmt: skip
        found = [r for r in self.of("cmdres") if r["cmd_id"] == cmd_id]
        return {k: v for k, v in found[0].items() if k in ("cmd_id", "result", "reason")}

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()
        close_socket(self.client)


@pytest.fixture
def machine() -> Iterator[Machine]:
    m = Machine()
    try:
        yield m
    finally:
        m.close()


@pytest.fixture
def watch(broker: Broker) -> Iterator[Watch]:
    w = Watch(broker)
    try:
        yield w
    finally:
        w.close()
    assert w.invalid == []


def bridge_for(broker: Broker, machine: Machine, **kwargs: Any) -> SasBridge:
    kwargs.setdefault("interval", 0.01)
    kwargs.setdefault("meter_interval", 0.05)
    b = SasBridge(
        SMIB, Endpoint(broker.host, broker.port), smib_password(SMIB), machine.pair.host_path,
        **kwargs,
    )  # fmt: skip
    b.start()
    return b


def cumulative(meters: dict[str, int]) -> dict[str, int]:
    return {k: v for k, v in meters.items() if k not in NOT_CUMULATIVE}


def summed(birth: dict[str, int], events: list[dict[str, Any]]) -> dict[str, int]:
    """Birth meters plus every event's deltas, cumulative meters only."""
    out = cumulative(birth)
    for e in events:
        for k, d in e["deltas"].items():
            if k in out:
                out[k] += d
    return out


def settle(watch: Watch, bridge: SasBridge, machine: Machine, cmd_id: str) -> dict[str, Any]:
    """The meters a ``read_meters`` answers once the machine's exceptions are all read."""
    watch.until("the machine's exceptions all read", lambda: not machine.sas.exceptions.waiting())
    assert watch.command(cmd_id, "read_meters")["result"] == "completed"
    return next(m for m in watch.of("meters") if m.get("cmd_id") == cmd_id)


def test_rom_program_round_trips() -> None:
    assert rom_program(0x00AB, 0xBEEF) == "sas-rom-crc16:00ab:beef"
    assert parse_rom_program("sas-rom-crc16:00ab:beef") == (0xAB, 0xBEEF)
    for text in ("sas-rom-crc16:00ab:none", "abc", "sas-rom-crc16:00AB:beef", ""):
        assert parse_rom_program(text) is None


@pytest.mark.parametrize("rom_on_general_poll", [True, False])
def test_birth_identity_read_over_sas(
    broker: Broker, watch: Watch, rom_on_general_poll: bool
) -> None:
    machine = Machine(rom_on_general_poll=rom_on_general_poll)
    bridge = bridge_for(broker, machine, rom_seed=0x1234)
    try:
        watch.until("a birth", lambda: bool(watch.of("birth")))
        birth = watch.of("birth")[0]
        assert birth["identity"]["serial"] == "LAB-7"
        assert birth["identity"]["paytable"] == machine.game.id[:6]
        assert birth["identity"]["denom_cents"] == 25
        assert birth["digits"] == 8
        assert birth["last_eid"] == 0
        assert birth["meters"] == machine.readings()
        seed, signature = parse_rom_program(birth["identity"]["program"]) or (-1, -1)
        assert seed == 0x1234
        assert signature == crc16(bytes.fromhex(machine.game.signature), 0x1234)
        # a rebirth checks the ROM again, and the loop goes on (no stray reply left behind)
        assert watch.command("c-1", "rebirth")["result"] == "completed"
        watch.until("the second birth", lambda: len(watch.of("birth")) == 2)
        machine.bill(1000)
        watch.until("the bill", lambda: watch.codes() == [0x49])
        assert bridge.host.stale == 0
    finally:
        bridge.stop()
        machine.close()
    assert bridge.sas_version == "602"


def test_every_exception_arrives_once_and_the_deltas_add_up(
    broker: Broker, watch: Watch, machine: Machine
) -> None:
    bridge = bridge_for(broker, machine)
    try:
        watch.until("a birth", lambda: bool(watch.of("birth")))
        birth = watch.of("birth")[0]
        machine.bill(2000)
        watch.until("the bill", lambda: 0x4A in watch.codes())
        machine.play(10, 10, 4, 2)  # 10 games, 10 credits in, 4 won
        watch.until("a stretch of games", lambda: 0x7F in watch.codes())
        machine.bill(500)
        machine.bill(5000)
        machine.door()
        machine.handpay(300)
        watch.until("the hand pay", lambda: 0x51 in watch.codes())
        machine.play(5, 5, 0, 0)
        machine.handpay_reset()
        final = settle(watch, bridge, machine, "c-final")
    finally:
        bridge.stop()
    events = watch.events()
    assert [e["eid"] for e in events] == list(range(1, len(events) + 1))
    exceptions = [e["code"] for e in events if e["code"] not in (0x7F, 0xE2)]
    assert sorted(exceptions) == sorted(machine.raised)  # priority ones (51, 52) come first
    by_code = {e["code"]: e for e in events}
    assert by_code[0x4A]["name"] == "bill_accepted"
    assert by_code[0x4A]["data"] == {"cents": 2000, "credits": 80}
    assert by_code[0x4A]["deltas"] == {
        "bill_credits": 80, "total_drop": 80, "bills_2000": 1, "current_credits": 80
    }  # fmt: skip
    assert [e["data"]["cents"] for e in events if e["name"] == "bill_accepted"] == [
        2000, 500, 5000
    ]  # fmt: skip
    assert by_code[0x51]["name"] == "handpay_pending"
    assert by_code[0x51]["data"] == {"credits": 300, "level": 0x40, "cancelled": False}
    # an event's deltas are the increments since the read before it: the jackpot goes with
    # whichever event's read first sees it (exceptions still queued were read before 52)
    assert sum(e["deltas"].get("total_jackpot", 0) for e in events) == 300
    assert by_code[0x11]["name"] == "slot_door_opened"
    games = [e for e in events if e["code"] == 0x7F]
    assert games and games[0]["data"] == {
        "games": 10, "wagered": 10, "won": 4, "games_won": 2, "credits": 74
    }  # fmt: skip
    assert sum(e["deltas"].get("games_played", 0) for e in events) == 15
    assert final["meters"] == machine.readings()
    assert final["as_of_eid"] == events[-1]["eid"]
    assert summed(birth["meters"], events) == cumulative(final["meters"])
    stats = bridge.stats()
    assert stats["events"] == len(events)
    assert stats["polls"] > 0 and stats["bad_crc"] == 0


def test_enable_and_disable_reach_the_machine(
    broker: Broker, watch: Watch, machine: Machine
) -> None:
    bridge = bridge_for(broker, machine)
    try:
        watch.until("a birth", lambda: bool(watch.of("birth")))
        assert watch.command("c-off", "disable") == {"cmd_id": "c-off", "result": "completed"}
        assert machine.sas.play_enabled is False
        assert watch.command("c-on", "enable") == {"cmd_id": "c-on", "result": "completed"}
        assert machine.sas.play_enabled is True
        assert watch.command("c-play", "play", games=3) == {
            "cmd_id": "c-play", "result": "rejected",
            "reason": "play is not supported by this SMIB",
        }  # fmt: skip
        assert watch.command("c-ping", "ping")["result"] == "completed"
        machine.pause()
        assert watch.command("c-off2", "disable") == {
            "cmd_id": "c-off2", "result": "failed",
            "reason": "no answer from the machine to SAS long poll 01",
        }  # fmt: skip
    finally:
        bridge.stop()


def test_restart_with_a_state_file_loses_and_doubles_nothing(
    broker: Broker, watch: Watch, machine: Machine, tmp_path: Path
) -> None:
    state = tmp_path / "bridge.json"
    bridge = bridge_for(broker, machine, memory=Memory.load(state))
    watch.until("a birth", lambda: bool(watch.of("birth")))
    first_birth = watch.of("birth")[0]
    machine.bill(1000)
    watch.until("the bill", lambda: len(watch.events()) == 1)
    machine.play(4, 4, 0, 0)
    watch.until("the games", lambda: len(watch.events()) == 2)
    bridge.stop()
    # the machine goes on while the bridge is down
    machine.play(6, 6, 10, 3)
    machine.bill(500)
    bridge = bridge_for(broker, machine, memory=Memory.load(state))
    try:
        watch.until("the second birth", lambda: len(watch.of("birth")) == 2)
        second = watch.of("birth")[1]
        assert second["bd"] == first_birth["bd"] + 1
        machine.bill(2000)
        final = settle(watch, bridge, machine, "c-final")
    finally:
        bridge.stop()
    events = watch.events()
    assert [e["eid"] for e in events] == list(range(1, len(events) + 1))
    codes = [e["code"] for e in events]
    # the catch-up (games played while down, then the bill the machine still queues) comes
    # before the new session's birth
    assert codes[:3] == [0x49, 0x7F, 0x7F]
    assert second["last_eid"] == 3
    assert events[2]["deltas"]["games_played"] == 6
    assert sorted(c for c in codes if c not in (0x7F, 0xE2)) == sorted(machine.raised)
    assert final["meters"] == machine.readings()
    assert summed(first_birth["meters"], events) == cumulative(final["meters"])
    assert json.loads(state.read_text())["eid"] == len(events)


def test_a_silent_machine_is_lost_then_restored(
    broker: Broker, watch: Watch, machine: Machine
) -> None:
    bridge = bridge_for(broker, machine, reply_timeout=0.03, silence_limit=5)
    try:
        watch.until("a birth", lambda: bool(watch.of("birth")))
        machine.pause()
        watch.until("the link lost", lambda: watch.codes() == [0xE0])
        time.sleep(0.2)
        machine.resume()
        machine.bill(500)
        watch.until("the link back, and the bill", lambda: watch.codes() == [0xE0, 0xE1, 0x48])
    finally:
        bridge.stop()
    lost, back, _bill = watch.events()
    assert (lost["name"], lost["data"], lost["deltas"]) == (
        "sas_link_lost", {"silent_polls": 5}, {}
    )  # fmt: skip
    assert back["name"] == "sas_link_restored"
    assert back["data"]["silent_polls"] >= 5
    assert bridge.stats()["silences"] >= back["data"]["silent_polls"]


def test_forgotten_codes_are_not_reported_and_misread_meters_are(
    broker: Broker, watch: Watch, machine: Machine
) -> None:
    faults = BridgeFaults(forget_codes=frozenset({0x11}), misread={"total_coin_in": 7})
    bridge = bridge_for(broker, machine, faults=faults)
    try:
        watch.until("a birth", lambda: bool(watch.of("birth")))
        machine.door()
        watch.until("the door closing", lambda: 0x12 in watch.codes())
        final = settle(watch, bridge, machine, "c-final")
    finally:
        bridge.stop()
    assert watch.codes() == [0x12]
    assert bridge.stats()["forgotten"] == 1
    assert final["meters"]["total_coin_in"] == machine.readings()["total_coin_in"] + 7


def test_a_queue_overflow_is_an_event_like_the_others(
    broker: Broker, watch: Watch, machine: Machine
) -> None:
    bridge = bridge_for(broker, machine)
    try:
        watch.until("a birth", lambda: bool(watch.of("birth")))
        with machine.lock:  # 25 exceptions at once: 5 are lost in the machine's queue of 20
            for _ in range(25):
                machine.sas.raise_exception(int(ExceptionCode.GENERAL_TILT))
        watch.until("21 events", lambda: len(watch.events()) == 21)
        time.sleep(0.1)
    finally:
        bridge.stop()
    events = watch.events()
    assert [e["code"] for e in events] == [0x70] + [0x20] * 20
    assert [e["name"] for e in events[:2]] == ["exception_queue_overflow", "general_tilt"]


def test_a_patron_playing_against_the_bridge(
    broker: Broker, watch: Watch, machine: Machine
) -> None:
    """A patron acts 100 times a second (a real one: about once every 3 s); every bill is
    one event with its value, nothing is lost: the deltas add up to the final meters."""
    bills: list[int] = []

    def on_event(kind: str, data: dict[str, int]) -> None:
        machine.sas.on_activity(kind, data)
        if kind == "bill_accepted":
            bills.append(data["cents"])

    patron = Patron(machine.accounts, machine.game, seed=7, lock=machine.lock, on_event=on_event)
    bridge = bridge_for(broker, machine, meter_interval=0.02)
    try:
        watch.until("a birth", lambda: bool(watch.of("birth")))
        birth = watch.of("birth")[0]
        end = time.monotonic() + 1.5
        while time.monotonic() < end:
            patron.act()
            time.sleep(0.01)
        final = settle(watch, bridge, machine, "c-final")
    finally:
        bridge.stop()
    events = watch.events()
    assert [e["eid"] for e in events] == list(range(1, len(events) + 1))
    assert len(bills) > 3
    assert [e["data"]["cents"] for e in events if e["name"] == "bill_accepted"] == bills
    assert {e["code"] for e in events} <= {*BILL_CODES.values(), 0x7F, 0xE2}
    assert final["meters"] == machine.readings()
    assert summed(birth["meters"], events) == cumulative(final["meters"])


def _twin(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "twin", *args],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO), **(env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_cli_bridges_a_machine_until_terminated(
    broker: Broker, watch: Watch, machine: Machine, tmp_path: Path
) -> None:
    state = tmp_path / "state.json"
    proc = _twin(
        "smib", "bridge", "--sas", machine.pair.host_path, "--broker", broker.url,
        "--smib", SMIB, "--state", str(state), "--interval", "0.01",
        env={"TWIN_SMIB_PASSWORD": "pw-{id}"},
    )  # fmt: skip
    try:
        watch.until("a birth", lambda: bool(watch.of("birth")), timeout=20)
        machine.bill(1000)
        watch.until("the bill", lambda: watch.codes() == [0x49], timeout=10)
        machine.play(3, 3, 0, 0)
        watch.until("the games", lambda: watch.codes() == [0x49, 0x7F], timeout=10)
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=20)
    assert proc.returncode == 143, err
    assert err == "twin: interrupted (SIGTERM)\n"
    line = out.splitlines()[-1]
    assert line.startswith(f"SMIB {SMIB}: polls ") and line.endswith(", events 2")
    assert json.loads(state.read_text())["eid"] == 2
    watch.until("offline", lambda: any(s["state"] == "offline" for s in watch.of("status")))


def test_cli_wrong_password_exits_1_after_reading_the_machine(
    broker: Broker, machine: Machine
) -> None:
    url = broker.url.replace("mqtt://", f"mqtt://{SMIB}:wrong@")
    proc = _twin("smib", "bridge", "--sas", machine.pair.host_path, "--broker", url,
                 "--smib", SMIB, "--seconds", "1")  # fmt: skip
    out, err = proc.communicate(timeout=60)
    assert (proc.returncode, err) == (
        1, f"twin: error: SMIB {SMIB}: cannot connect to the broker (Not authorized)\n"
    )  # fmt: skip
    assert out.startswith(f"SMIB {SMIB}: polls ")


def test_cli_a_machine_that_does_not_answer_exits_1(broker: Broker) -> None:
    with open_pty() as pair:  # nobody serves the machine's end
        proc = _twin("smib", "bridge", "--sas", pair.host_path, "--broker", broker.url,
                     "--smib", SMIB, "--address", "3")  # fmt: skip
        out, err = proc.communicate(timeout=60)
    assert (proc.returncode, err) == (
        1, f"twin: error: SAS address 3 on {pair.host_path}: no answer to long polls 54, 1F "
        "and 6F\n",
    )  # fmt: skip
    assert out == f"SMIB {SMIB}: polls 9, silences 9, bad CRC 0, events 0\n"


def test_cli_runs_for_seconds(broker: Broker, machine: Machine) -> None:
    url = broker.url.replace("mqtt://", f"mqtt://{SMIB}:{smib_password(SMIB)}@")
    proc = _twin("smib", "bridge", "--sas", machine.pair.host_path, "--broker", url,
                 "--smib", SMIB, "--seconds", "0.5")  # fmt: skip
    out, err = proc.communicate(timeout=60)
    assert (proc.returncode, err) == (0, "")
    first, last = out.splitlines()
    assert first.startswith(f"SMIB {SMIB}: SAS address 1 on {machine.pair.host_path}: serial "
                            "LAB-7, program sas-rom-crc16:")  # fmt: skip
    assert first.endswith(f"denomination 25 cents, paytable {machine.game.id[:6]}")
    assert last.startswith(f"SMIB {SMIB}: polls ") and last.endswith(", events 0")


def test_cli_says_the_program_once_its_rom_is_checked(broker: Broker) -> None:
    """The identity line waits for the ROM check that comes with the birth: a machine slow
    to answer long poll 21 (80 ms, well under the host's timeout) still shows its program,
    never "unread" (the line used to be said as soon as the broker took the connection)."""
    m = Machine(rom_delay_s=0.08)
    try:
        url = broker.url.replace("mqtt://", f"mqtt://{SMIB}:{smib_password(SMIB)}@")
        proc = _twin("smib", "bridge", "--sas", m.pair.host_path, "--broker", url,
                     "--smib", SMIB, "--seconds", "0.1")  # fmt: skip
        out, err = proc.communicate(timeout=60)
    finally:
        m.close()
    assert (proc.returncode, err) == (0, "")
    first = out.splitlines()[0]
    assert "serial LAB-7, program sas-rom-crc16:" in first, first
    assert ":none," not in first, first


def test_cli_bad_input_is_one_line_and_exit_2(tmp_path: Path) -> None:
    base = ("smib", "bridge", "--smib", SMIB)
    cases = {
        ("--broker", "mqtt://h"): "twin: error: smib bridge: Missing option '--sas'.\n",
        ("--sas", "/dev/pts/1", "--broker", "http://h"): "twin: error: --broker: expected "
        "mqtt://host[:port] or mqtts://host[:port], found 'http://h'\n",
        ("--sas", "/dev/pts/1", "--broker", "mqtt://h", "--address", "200"): "twin: error: "
        "smib bridge: Invalid value for '--address': 200 is not in the range 1<=x<=127.\n",
        ("--sas", str(tmp_path / "nope"), "--broker", "mqtt://h"): f"twin: error: "
        f"{tmp_path / 'nope'}: expected a SAS port that can be opened, found "
        "'No such file or directory'\n",
    }
    for args, message in cases.items():
        proc = _twin(*base, *args)
        _out, err = proc.communicate(timeout=60)
        assert (proc.returncode, err) == (2, message)


def test_an_exception_read_just_before_a_power_cut_is_reported_after_it(
    broker: Broker, watch: Watch, machine: Machine, tmp_path: Path
) -> None:
    """The bridge reads a bill's exception and loses power before its event is made. The
    machine counts it delivered as soon as the next poll comes (the restarted bridge's first
    identity poll is that implied ACK), so only the state file can still make it: it does,
    once."""
    state = tmp_path / "bridge.json"
    bridge = bridge_for(broker, machine, memory=Memory.load(state))
    watch.until("a birth", lambda: bool(watch.of("birth")))
    read = threading.Event()
    keep = bridge._pend

    def power_cut(code: int) -> None:  # the cut falls once it is kept, before its follow-up
        keep(code)
        bridge._stop.set()
        read.set()
        raise RuntimeError("power cut")  # nothing more of this cycle runs

    bridge._pend = power_cut  # type: ignore[method-assign]
    machine.bill(1000)
    assert read.wait(10)
    bridge.die()
    assert json.loads(state.read_text())["pending"] == [0x49]
    assert watch.events() == []
    bridge = bridge_for(broker, machine, memory=Memory.load(state))
    try:
        watch.until("the bill after the restart", lambda: watch.codes() == [0x49], timeout=10)
        time.sleep(0.3)  # and nothing more: the machine does not send it again
        assert watch.codes() == [0x49]
        assert watch.events()[0]["data"]["cents"] == 1000
    finally:
        bridge.stop()
    assert json.loads(state.read_text())["pending"] == []


def test_a_queue_of_exceptions_is_drained_without_waiting_between_them(
    broker: Broker, watch: Watch, machine: Machine
) -> None:
    """After an exception the next general poll goes at once: eight bills queued while the
    poll interval is a second are all read well before eight intervals have passed."""
    bridge = bridge_for(broker, machine, interval=1.0, meter_interval=5.0)
    try:
        watch.until("a birth", lambda: bool(watch.of("birth")))
        for _ in range(8):
            machine.bill(500)
        t0 = time.monotonic()
        watch.until("eight bills", lambda: watch.codes() == [0x48] * 8, timeout=6.5)
        assert time.monotonic() - t0 < 4.0  # 8 intervals would be 8 s (one poll each)
    finally:
        bridge.stop()
