"""Staff pools: named people of one role who work shifts and are dispatched to jobs.

A pool is a SimPy ``FilterStore`` of the members on duty and idle. A job takes a member
(waiting in FIFO order when none is free) and gives them back; a member whose shift ended
during a job goes home instead of back into the pool. Busy and on-duty head counts are
time-weighted, so utilisation is busy time over on-duty time.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from dataclasses import dataclass
from datetime import time
from typing import Any

import simpy

from twin.monitor import LevelMonitor
from twin.staff.events import ShiftEnded, ShiftStarted
from twin.world import World


@dataclass(frozen=True, slots=True)
class Shift:
    name: str
    start: time
    end: time
    members: tuple[str, ...]


class StaffPool:
    """The people of one role (attendants, technicians, Board inspectors)."""

    def __init__(self, world: World, role: str) -> None:
        self.world = world
        self.role = role
        env = world.env
        self.store: simpy.FilterStore = simpy.FilterStore(env)
        self.on_duty: set[str] = set()
        self._busy: set[str] = set()
        self.busy = LevelMonitor(lambda: env.now)
        self.duty = LevelMonitor(lambda: env.now)

    def request(self) -> simpy.events.Event:
        """An event that yields an idle member on duty."""
        return self.store.get()

    def taken(self, member: str) -> None:
        self._busy.add(member)
        self.busy.add(1)

    def release(self, member: str) -> None:
        if member in self._busy:  # not already sent home by the end of the shift
            self._busy.discard(member)
            self.busy.add(-1)
        if member in self.on_duty:
            self.store.put(member)

    def come_on(self, member: str, shift: str) -> None:
        self.on_duty.add(member)
        self.duty.add(1)
        self.store.put(member)
        self.world.bus.emit(ShiftStarted, member=member, role=self.role, shift=shift)

    def go_off(self, member: str, shift: str) -> None:
        if member not in self.on_duty:
            return
        self.on_duty.discard(member)
        self.duty.add(-1)
        if member in self._busy:  # finishes the job in hand, on overtime
            self._busy.discard(member)
            self.busy.add(-1)
        if member in self.store.items:
            self.store.items.remove(member)
        self.world.bus.emit(ShiftEnded, member=member, role=self.role, shift=shift)

    def utilisation(self) -> float:
        duty = self.duty.area()
        return self.busy.area() / duty if duty > 0 else 0.0

    def work_shift(self, shift: Shift) -> Generator[simpy.events.Event, Any, None]:
        """Bring the shift's members on duty at its start and send them home at its end."""
        clock = self.world.clock
        env = self.world.env
        start_now = _within(shift.start, shift.end, clock.at(env.now).time())
        if start_now:
            for m in shift.members:
                self.come_on(m, shift.name)
        while True:
            if start_now:
                yield env.timeout(clock.next_local(env.now, shift.end) - env.now)
                for m in shift.members:
                    self.go_off(m, shift.name)
            yield env.timeout(clock.next_local(env.now, shift.start) - env.now)
            for m in shift.members:
                self.come_on(m, shift.name)
            start_now = True


def _within(start: time, end: time, now: time) -> bool:
    if start == end:
        return True
    if start < end:
        return start <= now < end
    return now >= start or now < end


def roster(role_prefix: str, shift: str, count: int) -> Sequence[str]:
    return tuple(f"{role_prefix}-{shift}-{n:02d}" for n in range(1, count + 1))
