"""The slot floor: which machines are free, and patrons waiting for one.

A patron takes a free, working machine in one of their zones, chosen at random from their
own stream; with none free they wait (first come, first served) up to their patience, then
leave.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from typing import Any

import numpy as np
import simpy

from twin.machines.machine import SlotMachine
from twin.monitor import LevelMonitor


class _Waiter:
    __slots__ = ("event", "patron", "zones")

    def __init__(self, event: simpy.Event, patron: str, zones: frozenset[str]) -> None:
        self.event = event
        self.patron = patron
        self.zones = zones


class SlotFloor:
    def __init__(self, env: simpy.Environment, machines: Sequence[SlotMachine]) -> None:
        self.env = env
        self.machines = {m.id: m for m in machines}
        self.zones = sorted({m.spec.zone for m in machines})
        self._free: dict[str, dict[str, SlotMachine]] = {z: {} for z in self.zones}
        for m in machines:
            self._free[m.spec.zone][m.id] = m
        self._waiters: list[_Waiter] = []
        self.occupied = LevelMonitor(lambda: env.now)
        self.queue = LevelMonitor(lambda: env.now)
        self.walkaways = 0

    def _candidates(self, zones: frozenset[str]) -> list[SlotMachine]:
        out: list[SlotMachine] = []
        for z in self.zones:
            if z in zones:
                out.extend(m for m in self._free[z].values() if m.available)
        return out

    def _take(self, m: SlotMachine, patron: str) -> SlotMachine:
        del self._free[m.spec.zone][m.id]
        m.patron = patron
        self.occupied.add(1)
        return m

    def find_machine(
        self, patron: str, zones: frozenset[str], patience: float, rng: np.random.Generator
    ) -> Generator[simpy.events.Event, Any, SlotMachine | None]:
        """A free machine for ``patron``, waiting up to ``patience`` seconds; None if none."""
        zones = zones or frozenset(self.zones)
        free = self._candidates(zones)
        if free:
            free.sort(key=lambda m: m.id)
            return self._take(free[int(rng.integers(len(free)))], patron)
        if patience <= 0:
            self.walkaways += 1
            return None
        waiter = _Waiter(self.env.event(), patron, zones)
        self._waiters.append(waiter)
        self.queue.add(1)
        yield waiter.event | self.env.timeout(patience)
        self.queue.add(-1)
        if waiter.event.triggered:  # handed a machine (perhaps at the very instant of giving up)
            handed = waiter.event.value
            assert isinstance(handed, SlotMachine)
            return handed
        self._waiters.remove(waiter)
        self.walkaways += 1
        return None

    def release(self, m: SlotMachine) -> None:
        """The patron left ``m``: give it to the first waiting patron who plays its zone."""
        m.patron = None
        self.occupied.add(-1)
        self._free[m.spec.zone][m.id] = m
        if m.available:
            for i, w in enumerate(self._waiters):
                if m.spec.zone in w.zones:
                    del self._waiters[i]
                    w.event.succeed(self._take(m, w.patron))
                    break
