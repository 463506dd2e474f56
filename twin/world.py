"""The shared context every domain object is given: environment, clock, streams, records."""

from __future__ import annotations

from dataclasses import dataclass

import simpy
from simpy.events import NORMAL, EventPriority

from twin.clock import Clock
from twin.records import RecordBus
from twin.streams import Streams

#: Simulation time is kept on a grid of 1/64 s. Every delay is rounded to it, so all times
#: are dyadic rationals and their sums are exact in binary floating point: the batched and
#: per-spin engines then reach bit-identical timestamps by different sums.
TICKS_PER_SECOND = 64


def quantize(seconds: float) -> float:
    """Round a duration to the simulation time grid (never below one tick when positive)."""
    ticks = round(seconds * TICKS_PER_SECOND)
    if ticks <= 0 and seconds > 0:
        ticks = 1
    return ticks / TICKS_PER_SECOND


@dataclass
class World:
    env: simpy.Environment
    clock: Clock
    streams: Streams
    bus: RecordBus


#: Scheduling priority that loses every tie with ordinary events at the same instant.
LOW = EventPriority(NORMAL + 1)
#: Lower still: input from outside the model (the inbox) is applied after everything else
#: that happens at the same instant, live or replayed, so a replay orders it the same way.
LAST = EventPriority(NORMAL + 2)


class LateTimeout(simpy.events.Event):
    """A timeout that fires after every ordinary event scheduled for the same instant.

    Disruptions (faults, door checks) use it so that a stretch of play ending at exactly the
    same instant is always committed first, whichever engine scheduled it.
    """

    def __init__(self, env: simpy.Environment, delay: float, priority: EventPriority = LOW) -> None:
        if delay < 0:  # as simpy.Timeout: the clock never goes back
            raise ValueError(f"negative delay {delay}")
        super().__init__(env)
        self._ok = True
        self._value = None
        env.schedule(self, priority, delay)
