"""A link that is never connected: a test hands it messages, moves its clock and pumps the
world (the link's rules, message by message, with exact timings)."""

from __future__ import annotations

import json
import time
from typing import Any

from twin.hardware import protocol as p
from twin.hardware.book import HardwareWorld, Registered
from twin.hardware.link import Broker, LinkConfig, SmibLink
from twin.hardware.records import SmibEvent, SmibRequest
from twin.records import MemorySink, R


class Offline:
    """``now``: the link's clock (starts at the real monotonic time; tests move it)."""

    def __init__(self, **config: Any) -> None:
        reg = {"S-001": Registered("S-001", "A-001", "SN-1", "abc")}
        self.sink = MemorySink()
        self.world = HardwareWorld(reg, sinks=(self.sink,))
        self.now = time.monotonic()
        self.link = SmibLink(
            self.world.inbox,
            reg,
            LinkConfig(Broker("127.0.0.1", 1), "twin", "pw", jitter=0.0, **config),
            clock=lambda: self.now,
        )
        self.seq = 0

    def send(self, leaf: str, **body: object) -> None:
        doc = {"v": 1, "smib": "S-001", "ts": "t", **body}
        self.link.receive(p.up_topic("S-001", leaf), p.encode(doc))
        self.world.pump()

    def birth(self, bd: int, last_eid: int = 0, *, cmd_id: str = "", games: int = 0) -> None:
        ident = {"serial": "SN-1", "program": "abc", "denom_cents": 25, "paytable": "x"}
        extra = {"cmd_id": cmd_id} if cmd_id else {}
        self.send(
            "birth", bd=bd, seq=0, identity=ident, epoch=0, digits=8,
            meters={"games_played": games}, last_eid=last_eid, **extra,
        )  # fmt: skip
        self.seq = 0

    def evt(self, bd: int, seq: int, eid: int, **body: object) -> None:
        fields: dict[str, object] = {"code": 0x7F, "epoch": 0, "deltas": {"games_played": 1}}
        self.send("evt", bd=bd, seq=seq, eid=eid, **{**fields, **body})

    def result(self, bd: int, seq: int, cmd_id: str, result: str, **extra: object) -> None:
        self.send("cmdres", bd=bd, seq=seq, cmd_id=cmd_id, result=result, **extra)

    def tick(self, dt: float = 0.0) -> None:
        """Move the clock ``dt`` seconds, let the link act, deliver what it queued."""
        self.now += dt
        self.link.tick(self.now)
        self.world.pump()

    def requests(self) -> list[tuple[str, dict[str, Any]]]:
        return [(r.cmd, json.loads(r.args)) for r in self.sink.of(SmibRequest)]

    def last_request(self) -> SmibRequest:
        return self.sink.of(SmibRequest)[-1]

    def of(self, cls: type[R]) -> list[R]:
        return self.sink.of(cls)

    def eids(self) -> list[int]:
        return [e.eid for e in self.sink.of(SmibEvent)]
