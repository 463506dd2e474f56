"""The parts of the casino around the slot floor (issue 10): door, pit, cage, junkets.

Each part is a *department*: built by the assembly from its own scenario section before
t = 0 (its constructor validates what it needs, raising ``InputError`` for a user's
mistake), started when the floor opens, finished once at the end of the run (before the
compliance engine's end-of-run checks). A department emits records on the world's bus and
never reaches into another department except through the hooks of
``twin.patrons.venue.Hall`` that the assembly routes to it.
"""

from __future__ import annotations

from typing import Protocol


class Department(Protocol):
    """One part of the casino with processes of its own."""

    name: str

    def start(self) -> None:
        """Start the department's processes (called as the floor opens, at t = 0)."""
        ...

    def finish(self) -> None:
        """The end of the run: closing counts, month-end and year-end tasks due by now."""
        ...


__all__ = ["Department"]
