"""The coat check's process and KPIs."""

from __future__ import annotations

from typing import Any

import simpy

from coatroom.records import CoatChecked, CoatLost
from coatroom.section import CoatCheckConfig
from twin.records import Record
from twin.world import World


class CoatCheck:
    name = "coat_check"

    def __init__(self, world: World, config: CoatCheckConfig) -> None:
        self.world = world
        self.config = config
        self.lose_next = False

    def start(self) -> None:
        self.world.env.process(self.take_coats())

    def take_coats(self) -> simpy.events.ProcessGenerator:
        n = 0
        while True:
            yield self.world.env.timeout(self.config.every_minutes * 60.0)
            n += 1
            ticket = f"C{n:03d}"
            self.world.bus.emit(CoatChecked, ticket=ticket, fee_cents=self.config.fee_cents)
            if self.lose_next:
                self.lose_next = False
                self.world.bus.emit(CoatLost, ticket=ticket)

    def finish(self) -> None:
        pass


class CoatKpis:
    name = "coat_check"
    reads: tuple[type[Record], ...] = (CoatChecked, CoatLost)

    def __init__(self) -> None:
        self.coats = 0
        self.fees = 0
        self.lost = 0

    def accept(self, rec: Record) -> None:
        if isinstance(rec, CoatChecked):
            self.coats += 1
            self.fees += rec.fee_cents
        elif isinstance(rec, CoatLost):
            self.lost += 1

    def report(self, end: float) -> dict[str, Any]:
        return {"coats": self.coats, "fees_cents": self.fees, "lost": self.lost}
