"""What patrons need of the place they visit: a floor with machines, and closing time.

Patrons depend on these protocols, never on ``twin.casino`` (the assembly passes itself in,
or anything else that has these members: a test venue, a bare floor).
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any, Protocol

import numpy as np
import simpy

from twin.machines.protocol import Machine


class Floor(Protocol):
    """Seats patrons at free machines and takes the machines back."""

    def find_machine(
        self, patron: str, zones: frozenset[str], patience: float, rng: np.random.Generator
    ) -> Generator[simpy.events.Event, Any, Machine | None]:
        """A free machine in ``zones`` (any zone if empty), waiting up to ``patience`` s."""
        ...

    def release(self, m: Machine) -> None:
        """The patron has left ``m``."""
        ...


class Venue(Protocol):
    """The casino as its patrons see it."""

    @property
    def floor(self) -> Floor: ...

    def closing_after(self, t: float) -> float:
        """Simulation time of the next closing after ``t`` (infinity if it never closes)."""
        ...


__all__ = ["Floor", "Venue"]
