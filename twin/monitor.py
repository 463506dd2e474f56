"""Time-weighted monitors: occupancy, queue lengths, busy staff, hopper levels."""

from __future__ import annotations

from collections.abc import Callable


class LevelMonitor:
    """Integrates a piecewise-constant level over simulation time."""

    __slots__ = ("_area", "_last", "_level", "_now", "_start", "peak")

    def __init__(self, now: Callable[[], float], level: float = 0.0) -> None:
        self._now = now
        self._start = now()
        self._last = self._start
        self._level = level
        self._area = 0.0
        self.peak = level

    @property
    def level(self) -> float:
        return self._level

    def set(self, level: float) -> None:
        t = self._now()
        self._area += self._level * (t - self._last)
        self._last = t
        self._level = level
        if level > self.peak:
            self.peak = level

    def add(self, delta: float) -> None:
        self.set(self._level + delta)

    def area(self) -> float:
        """The integral of the level from the start to now."""
        return self._area + self._level * (self._now() - self._last)

    def mean(self) -> float:
        span = self._now() - self._start
        return self.area() / span if span > 0 else self._level
