"""What patrons need of the place they visit: a floor with machines, and closing time.

Patrons depend on these protocols, never on ``twin.casino`` (the assembly passes itself in,
or anything else that has these members: a test venue, a bare floor).
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

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


class Visitor(Protocol):
    """What the rest of the casino (door, cage, tables) sees of a patron on a visit."""

    @property
    def id(self) -> str: ...

    @property
    def visit_number(self) -> int: ...

    @property
    def rng(self) -> np.random.Generator:
        """The visit's own stream: ``(member id, "visit:<n>")``."""
        ...


class Venue(Protocol):
    """The casino as its patrons see it."""

    @property
    def floor(self) -> Floor: ...

    def closing_after(self, t: float) -> float:
        """Simulation time of the next closing after ``t`` (infinity if it never closes)."""
        ...


@runtime_checkable
class Hall(Protocol):
    """The parts of the casino around the slot floor a visit passes through (issue 10).

    A venue may also be a hall (``twin.casino.Casino`` is). Each hook is a SimPy process
    generator; one that has nothing to do must not yield, so a floor without a door, cage or
    pit keeps its exact timeline.
    """

    def admit(self, visitor: Visitor) -> Generator[simpy.events.Event, Any, bool]:
        """The door: identify the visitor; False when refused (the visit ends there)."""
        ...

    def before_play(self, visitor: Visitor) -> Generator[simpy.events.Event, Any, None]:
        """The cage before play (cheque or card buy-ins, chips)."""
        ...

    def play_elsewhere(self, visitor: Visitor) -> Generator[simpy.events.Event, Any, bool]:
        """Play away from the slot floor (a table, the card room); True when it did."""
        ...

    def after_play(self, visitor: Visitor) -> Generator[simpy.events.Event, Any, None]:
        """The cage after play (chips redeemed)."""
        ...


@dataclass(frozen=True)
class Host:
    """The casino as its patrons' host (the assembly provides it to the departments): the
    venue they see and the hall their visits pass through."""

    venue: Venue
    hall: Hall


__all__ = ["Floor", "Hall", "Host", "Venue", "Visitor"]
