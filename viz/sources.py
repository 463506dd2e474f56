"""Where the viewer's picture comes from, and how it moves through time.

- :class:`LiveSource`: a scenario run live. The viewer drives the clock with the step driver
  (:meth:`twin.drivers.StepDriver.to`), pacing it itself frame by frame at the chosen factor
  (×1 to ×10,000) within a wall-time budget per frame, so drawing and simulating share the one
  main thread (pygame's) and the snapshot is never read while SimPy runs. When the model cannot
  keep up, the lag is shown rather than the schedule silently drifting: how far simulated
  time is behind where the asked speed would have it (:attr:`LiveSource.behind_seconds`, in
  simulated seconds, not capped by the run's end), and the speed achieved over the last few
  wall seconds (:attr:`LiveSource.achieved`). Operator actions go into the casino's inbox and
  land in the ledger.
- :class:`ReplaySource`: a finished run's ledger, played or jumped through with a time bar.
"""

from __future__ import annotations

import time as wall
from collections import deque
from pathlib import Path
from typing import Any, Protocol

from twin.drivers import StepDriver
from twin.inbox import Envelope
from viz.model import FloorModel, LedgerReplay

SPEEDS = (1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0, 2000.0, 5000.0, 10000.0)
STEP_SECONDS = 60.0
#: Simulated seconds per advance: small enough that a frame's budget is respected.
CHUNK_SECONDS = 30.0
#: wall seconds over which the achieved speed is measured
SPEED_WINDOW = 2.0
#: below this share of the asked speed (over :data:`SPEED_WINDOW`, while behind), the run
#: "cannot keep up"
KEEP_UP_SHARE = 0.95


class Source(Protocol):
    model: FloorModel
    paused: bool
    factor: float
    lag_seconds: float
    live: bool

    @property
    def t(self) -> float: ...

    @property
    def end(self) -> float: ...

    def tick(self, wall_dt: float, budget: float) -> None: ...

    def step(self) -> None: ...

    def seek(self, t: float) -> None: ...

    def put(self, command: Any) -> Envelope | None: ...

    def close(self) -> None: ...


class Pace:
    """The schedule of a paced run, from the frames' wall times alone (a test drives it with
    given wall times): where the asked speed would have simulated time (``scheduled``), how
    far the run is behind it (``behind``, simulated seconds), and the speed achieved over the
    last :data:`SPEED_WINDOW` wall seconds."""

    def __init__(self, t: float = 0.0) -> None:
        self.scheduled = t
        self.behind = 0.0
        #: (wall seconds of the frame, simulated seconds it advanced), recent frames
        self.frames: deque[tuple[float, float]] = deque()
        self.window_wall = 0.0
        self.window_sim = 0.0

    def reset(self, t: float) -> None:
        """Paused, resumed or re-speeded: the schedule starts again from ``t``."""
        self.scheduled = t
        self.behind = 0.0
        self.frames.clear()
        self.window_wall = self.window_sim = 0.0

    def target(self, t: float, wall_dt: float, factor: float) -> float:
        """A frame of ``wall_dt`` wall seconds at ``factor``: the new scheduled time."""
        self.scheduled = max(self.scheduled, t) + wall_dt * factor
        return self.scheduled

    def record(self, wall_dt: float, advanced: float, t: float, end: float) -> None:
        """The frame advanced ``advanced`` simulated seconds to ``t`` (the run ends at
        ``end``)."""
        self.frames.append((wall_dt, advanced))
        self.window_wall += wall_dt
        self.window_sim += advanced
        while len(self.frames) > 1 and self.window_wall - self.frames[0][0] >= SPEED_WINDOW:
            w, a = self.frames.popleft()
            self.window_wall -= w
            self.window_sim -= a
        if t >= end:
            self.scheduled = t
        self.behind = max(0.0, self.scheduled - t)

    @property
    def achieved(self) -> float | None:
        """Simulated seconds per wall second over the window (None before any frame)."""
        if self.window_wall <= 0:
            return None
        return self.window_sim / self.window_wall


class LiveSource:
    """A casino run live (see the module docstring)."""

    live = True

    def __init__(self, casino: Any, model: FloorModel, factor: float = 60.0, ledger: Any = None):
        self.casino = casino
        self.model = model
        self.paused = False
        self.factor = factor
        self.lag_seconds = 0.0
        self.ledger = ledger
        self.finished = False
        self.speed = 2000.0  # simulated seconds per wall second, as recently measured
        casino.attach(model)
        casino.start()
        StepDriver.to(casino, _after(0.0))  # the floor opens (machines installed) at t = 0
        self.pace = Pace(self.t)
        self._paced = (self.paused, self.factor)
        #: what the records write only when it ends, read from the live world (see
        #: :meth:`viz.model.FloorModel.observe`)
        model.observe(casino)

    @property
    def t(self) -> float:
        return float(self.casino.env.now)

    @property
    def end(self) -> float:
        return float(self.casino.end)

    @property
    def behind_seconds(self) -> float:
        """Simulated seconds behind where the asked speed would have the run."""
        return self.pace.behind

    @property
    def achieved(self) -> float | None:
        """The speed achieved over the last few wall seconds (None before a frame)."""
        return self.pace.achieved

    @property
    def keeping_up(self) -> bool:
        """False when the run is behind and its achieved speed is short of the asked one."""
        got = self.pace.achieved
        return not (self.pace.behind > 0 and got is not None and got < KEEP_UP_SHARE * self.factor)

    def tick(self, wall_dt: float, budget: float) -> None:
        """Advance towards where ``wall_dt`` × factor more of simulated time would have the
        run (the schedule, which keeps what earlier frames could not catch up), spending at
        most ``budget`` wall seconds; what is left over is the lag (caught up on later
        frames). Pausing or changing the speed starts the schedule again from now."""
        if (self.paused, self.factor) != self._paced:
            self._paced = (self.paused, self.factor)
            self.pace.reset(self.t)
        if self.paused or self.finished:
            self.lag_seconds = 0.0
            return
        t0 = self.t
        target = self.pace.target(t0, wall_dt, self.factor)
        self._advance(min(self.end, target), budget)
        self.pace.record(wall_dt, self.t - t0, self.t, self.end)
        self.lag_seconds = self.pace.behind / self.factor
        self.model.observe(self.casino)
        if self.t >= self.end:
            self._finish()

    def _advance(self, target: float, budget: float) -> None:
        """Advance towards ``target`` in pieces sized by the model's recent speed, so the last
        piece does not overrun the budget by much."""
        now = wall.perf_counter()
        deadline = now + budget
        while self.t < target and now < deadline:
            piece = min(CHUNK_SECONDS, max(1.0, 0.8 * self.speed * (deadline - now)))
            t0 = self.t
            StepDriver.to(self.casino, min(target, t0 + piece))
            after = wall.perf_counter()
            if after > now:
                self.speed = 0.7 * self.speed + 0.3 * (self.t - t0) / (after - now)
            now = after

    def step(self) -> None:
        """Pause and move one simulated minute on."""
        self.paused = True
        if not self.finished:
            StepDriver.to(self.casino, min(self.end, self.t + STEP_SECONDS))
            self.model.observe(self.casino)
            if self.t >= self.end:
                self._finish()

    def seek(self, t: float) -> None:
        """A live run only moves forward: seeking ahead runs the world there."""
        if t > self.t and not self.finished:
            StepDriver.to(self.casino, min(self.end, t))
            self.model.observe(self.casino)
            self.pace.reset(self.t)

    def put(self, command: Any) -> Envelope | None:
        envelope: Envelope = self.casino.inbox.put(command, source="operator")
        if self.paused:  # a paused world still takes the command, at the current instant
            self.casino.inbox.poll()
            self.casino.advance(_after(self.t))
            self.model.observe(self.casino)
        return envelope

    def _finish(self) -> None:
        if not self.finished:
            self.finished = True
            self.casino.finish()
            if self.ledger is not None:
                self.ledger.close()

    def close(self) -> None:
        """Quitting: the run ends here (end-of-run checks at the current time, ledger closed)."""
        self._finish()


def _after(t: float) -> float:
    from twin.world import TICKS_PER_SECOND

    return (int(t * TICKS_PER_SECOND) + 1) / TICKS_PER_SECOND


class ReplaySource:
    """A finished run's ledger (see the module docstring)."""

    live = False

    def __init__(self, path: Path, factor: float = 600.0) -> None:
        self.replay = LedgerReplay(path)
        self.model = self.replay.seek(0.0)
        self.paused = True
        self.factor = factor
        self.lag_seconds = 0.0
        self._t = 0.0

    @property
    def t(self) -> float:
        return self._t

    @property
    def end(self) -> float:
        return self.replay.end

    def tick(self, wall_dt: float, budget: float) -> None:
        if not self.paused and self._t < self.end:
            self.seek(self._t + wall_dt * self.factor)

    def step(self) -> None:
        self.paused = True
        self.seek(self._t + STEP_SECONDS)

    def seek(self, t: float) -> None:
        self._t = max(0.0, min(t, self.end))
        self.model = self.replay.seek(self._t)

    def put(self, command: Any) -> Envelope | None:
        return None  # a finished run takes no commands

    def close(self) -> None:
        pass
