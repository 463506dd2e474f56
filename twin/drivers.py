"""Clock drivers: three ways to move one model through simulated time.

- :class:`FastDriver`: as fast as possible (batch runs, experiments).
- :class:`PacedDriver`: a factor of the wall clock (×0.1 to ×100,000), for the viewer and
  hardware in the loop; pause, resume and change speed from any thread while it runs; when
  the model cannot keep up it reports its lag instead of silently drifting.
- :class:`StepDriver`: to the next event, or to a given time, or in N equal pieces (tests,
  drills).

A driver only decides *when* the world advances; the model is the same, so a scenario and
seed give the same ledger under every driver. Between steps a driver polls the world's inbox,
so commands from other threads enter at the current simulation time.
"""

from __future__ import annotations

import gc
import threading
import time as wall
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Protocol

import simpy

from twin.inbox import Inbox
from twin.world import TICKS_PER_SECOND

MIN_FACTOR = 0.1
MAX_FACTOR = 100_000.0


class Drivable(Protocol):
    """What a driver moves: a started world with an environment and an inbox."""

    @property
    def env(self) -> simpy.Environment: ...

    @property
    def inbox(self) -> Inbox: ...

    def advance(self, until: float) -> None:
        """Process every event before ``until``; the clock then reads ``until``."""
        ...


class Driver(Protocol):
    def drive(self, world: Drivable, until: float) -> None:
        """Move ``world`` to simulation time ``until``."""
        ...


Progress = Callable[[float], None]


# Young objects collected per 20,000 allocations instead of Python's 700 while the model runs:
# a simulation allocates short-lived events, records and tuples at a high rate, almost none of
# them in reference cycles, and each collection also walks the survivors (measured: 6-10 % of a
# default day). Older generations keep their usual thresholds; the setting is restored after.
# ``Casino.advance`` and ``finish`` run under it; the fast driver around its whole loop, since
# restoring Python's threshold after each of its one-minute advances collects every time.
YOUNG_THRESHOLD = 20_000


@contextmanager
def fewer_collections() -> Iterator[None]:
    """Young objects collected per ``YOUNG_THRESHOLD`` allocations inside the block."""
    young, middle, old = gc.get_threshold()
    if young == 0 or young >= YOUNG_THRESHOLD:  # collection off, or already relaxed
        yield
        return
    gc.set_threshold(YOUNG_THRESHOLD, middle, old)
    try:
        yield
    finally:
        gc.set_threshold(young, middle, old)


class FastDriver:
    """As fast as possible, polling the inbox every ``poll_seconds`` of simulated time."""

    def __init__(self, progress: Progress | None = None, poll_seconds: float = 60.0) -> None:
        if poll_seconds <= 0:
            raise ValueError("poll_seconds must be positive")
        self.progress = progress
        self.poll_seconds = poll_seconds

    def drive(self, world: Drivable, until: float) -> None:
        env = world.env
        inbox = world.inbox
        shown = wall.perf_counter()
        with fewer_collections():
            while env.now < until:
                inbox.poll()
                world.advance(min(until, env.now + self.poll_seconds))
                if self.progress is not None:
                    now = wall.perf_counter()
                    if now - shown >= 0.1 or env.now >= until:
                        shown = now
                        self.progress(env.now)


class StepDriver:
    """Step-wise: :meth:`step` to the next event, :meth:`to` a time, or ``pieces`` equal
    advances when used as a driver."""

    def __init__(self, pieces: int = 1) -> None:
        if pieces < 1:
            raise ValueError("pieces must be at least 1")
        self.pieces = pieces

    def drive(self, world: Drivable, until: float) -> None:
        start = world.env.now
        span = until - start
        for i in range(1, self.pieces + 1):
            self.to(world, until if i == self.pieces else start + span * i / self.pieces)

    @staticmethod
    def to(world: Drivable, t: float) -> None:
        """Advance to simulation time ``t`` (events at ``t`` itself are left for later)."""
        if t > world.env.now:
            world.inbox.poll()
            world.advance(t)

    @staticmethod
    def step(world: Drivable) -> float | None:
        """Process the next event (and any command waiting); its time, or None if none."""
        env = world.env
        world.inbox.poll()
        if env.peek() == float("inf"):
            return None
        env.step()
        return float(env.now)


@dataclass(frozen=True, slots=True)
class PacedStatus:
    """What a paced run reports: where it is, at what speed, and how far behind it runs."""

    sim_time: float
    factor: float
    paused: bool
    lag_seconds: float  # wall seconds the model is behind its schedule now (0 if on time)
    max_lag_seconds: float
    done: bool


class PacedDriver:
    """Simulated time advances at ``factor`` × the wall clock.

    ``pause``, ``resume``, ``set_factor`` and ``status`` may be called from any thread.
    When the model falls more than ``lag_report_seconds`` behind its schedule, ``on_lag`` is
    called with the status (at most once a second); the driver keeps its schedule and catches
    up when it can rather than drifting silently.
    """

    def __init__(
        self,
        factor: float = 1.0,
        *,
        on_lag: Callable[[PacedStatus], None] | None = None,
        lag_report_seconds: float = 0.5,
        tick_seconds: float = 0.02,
    ) -> None:
        check_factor(factor)
        self._lock = threading.Lock()
        self._factor = float(factor)
        self._paused = False
        self._changed = threading.Event()
        self.on_lag = on_lag
        self.lag_report_seconds = lag_report_seconds
        self.tick_seconds = tick_seconds
        self._sim_time = 0.0
        self._lag = 0.0
        self._max_lag = 0.0
        self._done = False
        self._anchor: tuple[float, float] | None = None  # (wall, sim) of the schedule

    # -- controls (any thread) ---------------------------------------------------------------

    def pause(self) -> None:
        with self._lock:
            self._paused = True
        self._changed.set()

    def resume(self) -> None:
        with self._lock:
            self._paused = False
        self._changed.set()

    def set_factor(self, factor: float) -> None:
        check_factor(factor)
        with self._lock:
            self._factor = float(factor)
        self._changed.set()

    def status(self) -> PacedStatus:
        with self._lock:
            return PacedStatus(
                self._sim_time, self._factor, self._paused, self._lag, self._max_lag, self._done
            )

    # -- the run (the simulation thread) -------------------------------------------------------

    def drive(self, world: Drivable, until: float) -> None:
        env = world.env
        inbox = world.inbox
        factor, paused = self._controls()
        anchor_wall, anchor_sim = wall.monotonic(), float(env.now)
        reported = 0.0
        while env.now < until:
            self._changed.clear()
            now_factor, now_paused = self._controls()
            if (now_factor, now_paused) != (factor, paused):
                # re-anchor at where the schedule stands now, so speed changes and pauses
                # neither jump nor count as lag
                anchor_sim = self._scheduled_sim(anchor_wall, anchor_sim, factor, paused, env)
                anchor_wall = wall.monotonic()
                factor, paused = now_factor, now_paused
            if paused:
                if inbox.pending():
                    inbox.poll()
                    world.advance(_after(env.now))
                self._publish(env.now, 0.0)
                _wait_any(self._changed, inbox.wake, self.tick_seconds * 5)
                continue
            nxt = min(float(env.peek()), until)
            due = anchor_wall + (nxt - anchor_sim) / factor
            ahead = due - wall.monotonic()
            if ahead > 0:
                self._publish(env.now, 0.0)
                woke = _wait_any(self._changed, inbox.wake, min(ahead, self.tick_seconds))
                if woke and inbox.pending():
                    # a command arrives "now": at the simulated instant the wall clock shows
                    at = self._scheduled_sim(anchor_wall, anchor_sim, factor, False, env)
                    at = min(_grid_up(at), nxt) if nxt > env.now else env.now
                    inbox.poll(at)
                    world.advance(_after(at) if at < until else until)
                continue
            lag = -ahead
            self._publish(env.now, lag)
            if lag > self.lag_report_seconds and self.on_lag is not None:
                now = wall.monotonic()
                if now - reported >= 1.0:
                    reported = now
                    self.on_lag(self.status())
            # process everything the wall clock says is due (at least the next instant)
            target = self._scheduled_sim(anchor_wall, anchor_sim, factor, False, env)
            inbox.poll()
            world.advance(min(until, max(_after(nxt), _grid_up(target))))
        with self._lock:
            self._sim_time = float(env.now)
            self._done = True

    def _controls(self) -> tuple[float, bool]:
        with self._lock:
            return self._factor, self._paused

    @staticmethod
    def _scheduled_sim(
        anchor_wall: float,
        anchor_sim: float,
        factor: float,
        paused: bool,
        env: simpy.Environment,
    ) -> float:
        """The simulated time the schedule shows now (never behind the model's clock)."""
        if paused:
            return max(anchor_sim, float(env.now))
        return max(anchor_sim + (wall.monotonic() - anchor_wall) * factor, float(env.now))

    def _publish(self, sim_time: float, lag: float) -> None:
        with self._lock:
            self._sim_time = float(sim_time)
            self._lag = lag
            self._max_lag = max(self._max_lag, lag)


def check_factor(factor: float) -> None:
    if not MIN_FACTOR <= factor <= MAX_FACTOR:
        raise ValueError(f"a pace factor from {MIN_FACTOR:g} to {MAX_FACTOR:,.0f}, got {factor!r}")


_TICK = 1.0 / TICKS_PER_SECOND


def _grid_up(t: float) -> float:
    """``t`` rounded up to the simulation time grid."""
    ticks = -(-t * TICKS_PER_SECOND // 1)
    return float(ticks) / TICKS_PER_SECOND


def _after(t: float) -> float:
    """The first grid instant after ``t``: advancing there processes every event at ``t``."""
    return _grid_up(t) + _TICK if _grid_up(t) == t else _grid_up(t)


def _wait_any(a: threading.Event, b: threading.Event, timeout: float) -> bool:
    """Sleep until either event is set or ``timeout`` passes; whether one was set."""
    deadline = wall.monotonic() + timeout
    while True:
        if a.is_set() or b.is_set():
            return True
        left = deadline - wall.monotonic()
        if left <= 0:
            return False
        b.wait(min(left, 0.005))


__all__ = [
    "MAX_FACTOR",
    "MIN_FACTOR",
    "Drivable",
    "Driver",
    "FastDriver",
    "PacedDriver",
    "PacedStatus",
    "StepDriver",
    "check_factor",
]
