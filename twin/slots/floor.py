"""The slot floor: which machines are free, and patrons waiting for one.

A patron takes a free, working machine in one of their zones, chosen at random from their
own stream; with none free they wait (first come, first served) up to their patience, then
leave.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from typing import Any, cast

import numpy as np
import simpy

from twin.machines.protocol import Machine
from twin.monitor import LevelMonitor


class _Waiter:
    __slots__ = ("event", "patron", "zones")

    def __init__(self, event: simpy.Event, patron: str, zones: frozenset[str]) -> None:
        self.event = event
        self.patron = patron
        self.zones = zones


class _FreeMachines:
    """Free machines of one zone: O(1) add, remove and uniform pick (swap-remove list)."""

    __slots__ = ("_at", "items")

    def __init__(self) -> None:
        self.items: list[Machine] = []
        self._at: dict[str, int] = {}

    def __len__(self) -> int:
        return len(self.items)

    def add(self, m: Machine) -> None:
        self._at[m.id] = len(self.items)
        self.items.append(m)

    def remove(self, m: Machine) -> None:
        i = self._at.pop(m.id)
        last = self.items.pop()
        if last is not m:
            self.items[i] = last
            self._at[last.id] = i


class SlotFloor:
    def __init__(self, env: simpy.Environment, machines: Sequence[Machine]) -> None:
        self.env = env
        self.machines = {m.id: m for m in machines}
        self.zones = sorted({m.spec.zone for m in machines})
        self._free: dict[str, _FreeMachines] = {z: _FreeMachines() for z in self.zones}
        for m in machines:
            self._free[m.spec.zone].add(m)
        self._waiters: list[_Waiter] = []
        # the free machines of each set of zones asked for, in the floor's zone order (made
        # anew when a zone is added)
        self._pools: dict[frozenset[str], list[_FreeMachines]] = {}
        self.occupied = LevelMonitor(lambda: env.now)
        self.queue = LevelMonitor(lambda: env.now)
        self.walkaways = 0

    def add(self, m: Machine) -> None:
        """A machine joins the floor (a replacement, a move), free."""
        self.machines[m.id] = m
        if m.spec.zone not in self._free:
            self._free[m.spec.zone] = _FreeMachines()
            self.zones = sorted(self._free)
            self._pools.clear()
        self._free[m.spec.zone].add(m)

    def drop(self, m: Machine) -> None:
        """A machine leaves the floor (free: its patron gone); patrons no longer find it."""
        self.machines.pop(m.id, None)
        if m.patron is None and m.id in self._free[m.spec.zone]._at:
            self._free[m.spec.zone].remove(m)

    def _pick(self, zones: frozenset[str], rng: np.random.Generator) -> Machine | None:
        """A free, working machine in ``zones``, uniformly at random; None if there is none.

        Draws among all free machines of the zones and redraws when one is down (exactly
        uniform over the working ones); after a few misses it falls back to a full scan.
        """
        pools = self._pools.get(zones)
        if pools is None:
            pools = self._pools[zones] = [self._free[z] for z in self.zones if z in zones]
        total = 0
        for p in pools:
            total += len(p.items)
        if total == 0:
            return None
        for _ in range(8):
            i = int(rng.integers(total))
            for p in pools:
                items = p.items
                if i < len(items):
                    m = items[i]
                    break
                i -= len(items)
            if m.available:
                return m
        working = [m for p in pools for m in p.items if m.available]
        return working[int(rng.integers(len(working)))] if working else None

    def _take(self, m: Machine, patron: str) -> Machine:
        self._free[m.spec.zone].remove(m)
        m.patron = patron
        self.occupied.add(1)
        return m

    def find_machine(
        self, patron: str, zones: frozenset[str], patience: float, rng: np.random.Generator
    ) -> Generator[simpy.events.Event, Any, Machine | None]:
        """A free machine for ``patron``, waiting up to ``patience`` seconds; None if none."""
        zones = zones or frozenset(self.zones)
        found = self._pick(zones, rng)
        if found is not None:
            return self._take(found, patron)
        if patience <= 0:
            self.walkaways += 1
            return None
        waiter = _Waiter(self.env.event(), patron, zones)
        self._waiters.append(waiter)
        self.queue.add(1)
        yield waiter.event | self.env.timeout(patience)
        self.queue.add(-1)
        if waiter.event.triggered:  # handed a machine (perhaps at the very instant of giving up)
            return cast("Machine", waiter.event.value)
        self._waiters.remove(waiter)
        self.walkaways += 1
        return None

    def release(self, m: Machine) -> None:
        """The patron left ``m``: give it to the first waiting patron who plays its zone."""
        m.patron = None
        self.occupied.add(-1)
        self._free[m.spec.zone].add(m)
        if m.available:
            for i, w in enumerate(self._waiters):
                if m.spec.zone in w.zones:
                    del self._waiters[i]
                    w.event.succeed(self._take(m, w.patron))
                    break
