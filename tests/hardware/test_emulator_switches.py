"""The emulator's switches for issue 29 (keep, drop_eids, cmd_delay, regress, phantom) and
its truth log, on a real broker, watched by a plain MQTT client with the twin's rights."""

from __future__ import annotations

import json
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
from twin.hardware.bench import run_bench
from twin.hardware.emulator import Memory, Misbehaviour, SmibEmulator
from twin.hardware.link import Broker as Endpoint
from twin.hardware.link import close_socket
from twin.hardware.truth import read_truth

from .broker import Broker, smib_password, up_watcher, wait_until
from .rig import game


class Watch:
    """Every up-message of every SMIB (leaf, decoded payload, its size), and commands down."""

    def __init__(self, broker: Broker) -> None:
        self.got: list[tuple[str, dict[str, Any], int]] = []
        self._lock = threading.Lock()
        self.client = up_watcher(broker, self._on_message)

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        with self._lock:
            leaf = msg.topic.rsplit("/", 1)[-1]
            self.got.append((leaf, json.loads(msg.payload), len(msg.payload)))

    def of(self, leaf: str) -> list[dict[str, Any]]:
        with self._lock:
            return [doc for lf, doc, _n in self.got if lf == leaf]

    def until(self, what: str, ok: Callable[[], bool], timeout: float = 10.0) -> None:
        wait_until(what, ok, timeout)

    def command(self, smib: str, cmd_id: str, cmd: str, ttl: float = 30.0, **args: int) -> None:
        doc: dict[str, Any] = {
            "v": 1, "cmd_id": cmd_id, "cmd": cmd, "expires": time.time() + ttl,
        }  # fmt: skip
        if args:
            doc["args"] = args
        self.client.publish(p.down_topic(smib), json.dumps(doc), qos=1).wait_for_publish(5)

    def result(self, cmd_id: str) -> dict[str, Any]:
        self.until(f"the answer to {cmd_id}", lambda: any(
            r["cmd_id"] == cmd_id for r in self.of("cmdres")))  # fmt: skip
        found = [r for r in self.of("cmdres") if r["cmd_id"] == cmd_id]
        return {k: v for k, v in found[0].items() if k in ("cmd_id", "result", "reason", "data")}

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()
        close_socket(self.client)


@pytest.fixture
def watch(broker: Broker) -> Iterator[Watch]:
    w = Watch(broker)
    try:
        yield w
    finally:
        w.close()


@pytest.fixture
def emulator(broker: Broker, watch: Watch) -> Iterator[Callable[..., SmibEmulator]]:
    made: list[SmibEmulator] = []

    def make(misbehave: str = "", **kw: Any) -> SmibEmulator:
        emu = SmibEmulator(
            "S-001", Endpoint(broker.host, broker.port), smib_password("S-001"), game(),
            memory=Memory(), misbehave=Misbehaviour.parse(misbehave), **kw,
        )  # fmt: skip
        made.append(emu)
        emu.start()
        watch.until("the birth", lambda: len(watch.of("birth")) == 1)
        return emu

    yield make
    for emu in made:
        emu.stop()


def _events(emu: SmibEmulator, n: int) -> None:
    for _ in range(n):
        emu.insert_bill(500)


def _eids(watch: Watch) -> list[tuple[int, bool]]:
    return [(e["eid"], e.get("replay", False)) for e in watch.of("evt")]


def test_keep_holds_only_the_last_events(watch: Watch, emulator: Any) -> None:
    emu = emulator("keep=3")
    assert emu.keep_events == 3
    _events(emu, 5)
    watch.until("5 events", lambda: len(watch.of("evt")) == 5)
    watch.command("S-001", "r-1", "replay_events", from_eid=1)
    assert watch.result("r-1") == {
        "cmd_id": "r-1",
        "result": "failed",
        "reason": "events before 3 are no longer held",
        "data": {"first_held": 3, "replayed": 3},
    }
    watch.until("the replays", lambda: len(watch.of("evt")) == 8)
    assert _eids(watch)[5:] == [(3, True), (4, True), (5, True)]


def test_drop_eids_loses_only_their_first_sending(
    watch: Watch, emulator: Any, tmp_path: Path
) -> None:
    truth = tmp_path / "truth.jsonl"
    emu = emulator("drop_eids=2-3", truth=truth)
    _events(emu, 5)
    watch.until("events 1, 4 and 5", lambda: len(watch.of("evt")) == 3)
    assert _eids(watch) == [(1, False), (4, False), (5, False)]
    assert emu.dropped["evt"] == 2
    watch.command("S-001", "r-1", "replay_events", from_eid=2, to_eid=3)
    assert watch.result("r-1")["result"] == "completed"
    watch.until("the replays", lambda: len(watch.of("evt")) == 5)
    assert _eids(watch)[3:] == [(2, True), (3, True)]
    # the truth has every event the machine created, dropped or not, and no replay
    lines = read_truth(truth)
    assert [(x["kind"], x.get("eid"), x.get("phantom")) for x in lines] == [
        ("birth", None, None),
        *[("event", e, False) for e in range(1, 6)],
    ]
    assert [x["digest"] for x in lines[1:]] == [p.event_digest(e) for e in emu.memory.events]
    assert lines[0] == {"kind": "birth", "smib": "S-001", "bd": 1, "last_eid": 0}
    assert Misbehaviour.parse("drop_eids=7").drop_eids == (7, 7)


def test_cmd_delay_answers_late_and_expired(watch: Watch, emulator: Any) -> None:
    emulator("cmd_delay=0.6")
    sent = time.monotonic()
    watch.command("S-001", "c-1", "ping", ttl=0.3)  # expires during the delay
    watch.command("S-001", "c-2", "ping", ttl=30)
    watch.command("S-001", "c-3", "ping", ttl=0.3)
    assert watch.result("c-3")["result"] == "expired"
    assert time.monotonic() - sent >= 0.6
    assert [(r["cmd_id"], r["result"]) for r in watch.of("cmdres")] == [
        ("c-1", "expired"),
        ("c-2", "completed"),
        ("c-3", "expired"),
    ]


def test_cmd_delay_in_a_bench(broker: Broker, watch: Watch) -> None:
    """In a bench the late commands wait in the network loop, still in order."""
    stop = threading.Event()
    bench = threading.Thread(
        target=_bench, args=(broker, "cmd_delay=0.5", 0), kwargs={"stop": stop}
    )
    bench.start()
    try:
        watch.until("the birth", lambda: len(watch.of("birth")) == 1)
        sent = time.monotonic()
        watch.command("S-001", "c-1", "ping", ttl=0.2)
        watch.command("S-001", "c-2", "ping", ttl=30)
        assert watch.result("c-2")["result"] == "completed"
        assert time.monotonic() - sent >= 0.5
    finally:
        stop.set()
        bench.join(30)
    assert [(r["cmd_id"], r["result"]) for r in watch.of("cmdres")] == [
        ("c-1", "expired"),
        ("c-2", "completed"),
    ]


def test_a_slow_board_answers_what_it_got_before_it_goes(broker: Broker, watch: Watch) -> None:
    """``--events`` done, a board with ``cmd_delay`` lingers that long: a command it received
    before its last activity is answered before its clean ``offline``."""
    bench = threading.Thread(target=_bench, args=(broker, "cmd_delay=0.5", 3))
    bench.start()
    watch.until("the birth", lambda: len(watch.of("birth")) == 1)
    watch.command("S-001", "c-1", "ping")
    bench.join(30)
    watch.until("the goodbye", lambda: any(s["state"] == "offline" for s in watch.of("status")))
    leaves = [lf for lf, _d, _n in watch.got if lf in ("cmdres", "status")]
    assert leaves == ["status", "cmdres", "status"]
    assert watch.result("c-1")["result"] == "completed"


def test_a_payload_over_the_size_limit_is_never_sent(watch: Watch, emulator: Any) -> None:
    emu = emulator()
    emu.insert_bill(500, tag={"note": "x" * 9000})  # an evt of more than 8,192 bytes
    emu.insert_bill(500)
    watch.until("event 2", lambda: len(watch.of("evt")) == 1)
    assert _eids(watch) == [(2, False)]
    assert emu.too_large == {"evt": 1}


def test_rebirth_answer_carries_its_cmd_id(watch: Watch, emulator: Any) -> None:
    emulator()
    watch.command("S-001", "rb-1", "rebirth")
    watch.until("the second birth", lambda: len(watch.of("birth")) == 2)
    first, second = watch.of("birth")
    assert "cmd_id" not in first
    assert second["cmd_id"] == "rb-1"
    assert p.validate("birth", second) is None


def test_phantom_has_the_next_eid_then_the_real_event_reuses_it(
    watch: Watch, emulator: Any, tmp_path: Path
) -> None:
    truth = tmp_path / "truth.jsonl"
    emu = emulator(truth=truth)
    _events(emu, 1)
    forged = emu.phantom(300)
    _events(emu, 1)
    watch.until("three events", lambda: len(watch.of("evt")) == 3)
    evts = [(lf, doc, n) for lf, doc, n in watch.got if lf == "evt"]
    assert [(d["eid"], d["code"], d["name"]) for _lf, d, _n in evts] == [
        (1, 0x4F, "bill_accepted"),
        (2, 0x11, "slot_door_opened"),
        (2, 0x4F, "bill_accepted"),
    ]
    phantom, size = evts[1][1], evts[1][2]
    assert size == 300
    assert p.validate("evt", phantom) is None
    assert phantom["deltas"] == {} and set(phantom["data"]) == {"pad"}
    assert p.event_digest(phantom) == p.event_digest(forged)
    assert [e["eid"] for e in emu.memory.events] == [1, 2]  # never kept, never replayed
    assert [(x.get("eid"), x.get("phantom")) for x in read_truth(truth)[1:]] == [
        (1, False),
        (2, True),
        (2, False),
    ]
    assert read_truth(truth)[2]["digest"] == p.event_digest(phantom)


def _bench(broker: Broker, misbehave: str, events: int, **kw: Any) -> dict[str, dict[str, int]]:
    return run_bench(
        ["S-001"], Endpoint(broker.host, broker.port), "pw-{id}", game(),
        misbehave=misbehave, events=events, rate=100.0, **kw,
    )  # fmt: skip


def test_phantom_in_a_bench_has_phantom_bytes(broker: Broker, watch: Watch, tmp_path: Path) -> None:
    truth = tmp_path / "truth.jsonl"
    _bench(broker, "phantom_at=2", 3, truth=truth)
    watch.until("four events", lambda: len(watch.of("evt")) == 4)
    evts = [(d["eid"], d["code"], n) for lf, d, n in watch.got if lf == "evt"]
    assert [(eid, code) for eid, code, _n in evts] == [(1, 0x4F), (2, 0x7F), (3, 0x11), (3, 0x7F)]
    assert evts[2][2] == 2_000_000
    lines = read_truth(truth)
    assert [(x["kind"], x.get("eid"), x.get("phantom")) for x in lines] == [
        ("birth", None, None),
        ("event", 1, False),
        ("event", 2, False),
        ("event", 3, True),
        ("event", 3, False),
    ]


def test_a_phantom_too_large_for_the_broker_is_not_sent_again(tmp_path: Path) -> None:
    """A broker that caps packets cuts the SMIB off for its forged 2 MB event: the SMIB comes
    back (a new session) and goes on; the forgery, sent at QoS 0, is not sent again on every
    reconnection (at QoS 1 paho would, and the broker would cut it off for ever)."""
    capped = Broker(tmp_path, ("S-001",))
    with capped.conf.open("a") as f:
        f.write("max_packet_size 20000\n")
    capped.start()
    watch = Watch(capped)
    stop = threading.Event()
    bench = threading.Thread(
        target=_bench, args=(capped, "phantom_at=2", 0), kwargs={"stop": stop, "truth": None}
    )
    try:
        bench.start()
        watch.until("the next session", lambda: len(watch.of("birth")) == 2)
        watch.until("event 8", lambda: any(e["eid"] == 8 for e in watch.of("evt")))
    finally:
        stop.set()
        bench.join(30)
        watch.close()
        capped.kill()
    assert [b["bd"] for b in watch.of("birth")] == [1, 2]
    assert [(s["bd"], s["state"]) for s in watch.of("status")][:3] == [
        (1, "online"),
        (1, "lost"),
        (2, "online"),
    ]
    assert [e["code"] for e in watch.of("evt")].count(0x11) == 0
    assert {e["eid"] for e in watch.of("evt")} >= set(range(1, 9))


def test_regress_comes_back_from_a_backup(broker: Broker, watch: Watch, tmp_path: Path) -> None:
    """At activity 6 the board dies and comes back with its state as it was after activity
    3: bd 1 + 1, last_eid 3; then its eids go on from 4 again."""
    truth = tmp_path / "truth.jsonl"
    sent = _bench(broker, "regress_at=6,regress_to=3", 9, truth=truth, state_dir=tmp_path)
    watch.until("the second birth", lambda: len(watch.of("birth")) == 2)
    watch.until("every event", lambda: len(watch.of("evt")) == 9)
    assert [(b["bd"], b["last_eid"]) for b in watch.of("birth")] == [(1, 0), (2, 3)]
    assert [(e["bd"], e["eid"]) for e in watch.of("evt")] == [
        *[(1, e) for e in range(1, 7)],
        *[(2, e) for e in range(4, 7)],
    ]
    watch.until("the will and the goodbye", lambda: len(watch.of("status")) >= 4)
    assert [(s["bd"], s["state"]) for s in watch.of("status")] == [
        (1, "online"),
        (1, "lost"),
        (2, "online"),
        (2, "offline"),
    ]
    assert sent["S-001"]["evt"] == 9 and sent["S-001"]["birth"] == 2
    saved = Memory.load(tmp_path / "S-001.json")
    assert (saved.bd, saved.eid) == (2, 6)
    lines = read_truth(truth)
    assert [(x["kind"], x.get("bd"), x.get("eid")) for x in lines] == [
        ("birth", 1, None),
        *[("event", 1, e) for e in range(1, 7)],
        ("restore", 2, None),
        ("birth", 2, None),
        *[("event", 2, e) for e in range(4, 7)],
    ]
    assert lines[7] == {"kind": "restore", "smib": "S-001", "from_eid": 6, "to_eid": 3, "bd": 2}
    assert lines[8]["last_eid"] == 3


def test_misbehave_text_of_the_new_switches() -> None:
    m = Misbehaviour.parse("keep=3,drop_eids=60-61,cmd_delay=2.5,regress_at=40,phantom_at=5")
    assert (m.keep, m.drop_eids, m.cmd_delay, m.regress_at, m.backup_at) == (
        3, (60, 61), 2.5, 40, 20,
    )  # fmt: skip
    assert (m.phantom_at, m.phantom_bytes) == (5, 2_000_000)
    assert Misbehaviour.parse("regress_at=9,regress_to=2").backup_at == 2
    assert Misbehaviour.parse("phantom_at=1,phantom_bytes=300").phantom_bytes == 300
    errors = {
        "keep=0": "keep: expected a whole number >= 1, found '0'",
        "drop_eids=5-3": "drop_eids: expected A-B or A (event ids, 1 <= A <= B), found '5-3'",
        "drop_eids=x": "drop_eids: expected A-B or A (event ids, 1 <= A <= B), found 'x'",
        "cmd_delay=0": "cmd_delay: expected a number of seconds > 0, found '0'",
        "cmd_delay=soon": "cmd_delay: expected a number of seconds > 0, found 'soon'",
        "regress_at=1": "regress_at: expected a whole number >= 2, found '1'",
        "regress_at=4,regress_to=4": "regress_to: expected 1 <= M < regress_at (4), found '4'",
        "regress_to=2": "regress_to: expected with regress_at=N, found no regress_at",
        "phantom_bytes=9": "phantom_bytes: expected with phantom_at=N, found no phantom_at",
        "fly=1": "'fly=1': expected drop, duplicate, reorder, delay, reset_at, die_at, skew, "
        "short_credit, keep, drop_eids, cmd_delay, regress_at, regress_to, phantom_at or "
        "phantom_bytes=<value>",
    }
    for text, message in errors.items():
        with pytest.raises(ValueError) as info:
            Misbehaviour.parse(text)
        assert str(info.value) == message


def test_truth_that_cannot_be_written_is_exit_2_before_connecting(tmp_path: Path) -> None:
    where = tmp_path / "no-such-folder" / "truth.jsonl"
    proc = subprocess.run(
        [sys.executable, "-m", "twin", "smib", "emulate", "--id", "S-001", "--broker",
         "mqtt://127.0.0.1:1", "--truth", str(where)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert (proc.returncode, proc.stderr) == (
        2,
        f"twin: error: {where}: --truth: expected a file that can be written, "
        "found 'No such file or directory'\n",
    )
