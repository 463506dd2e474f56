"""The slot floor's operator actions: commands a person (the viewer's drills, a test rig)
sends into the world.

Each is a :class:`twin.commands.Command`: checked against the world's state when it arrives
(a refusal is recorded with its reason, never raised) and applied through the same named
methods the model itself uses.
"""

from __future__ import annotations

from pathlib import Path

from twin.commands import Command, command
from twin.department import Venue
from twin.machines.sas import Door
from twin.slots.model import Slots

DOORS = {d.name.lower(): d for d in Door}


def _door_holder(venue: Venue, machine: str, door: str) -> tuple[str | None, str | None]:
    """``(problem, holder)``: why the machine or door cannot be named (else None), and who
    holds the door open (None while it is closed)."""
    if machine not in venue.need(Slots).machine_ids:
        return f"no machine {machine!r} on the floor", None
    if door not in DOORS:
        return f"no door {door!r} (doors: {', '.join(DOORS)})", None
    return None, venue.need(Slots).machine(machine).door_holder(DOORS[door])


@command("open_door")
class OpenDoor(Command):
    """Open a machine's door (play stops at once; the game in progress completes)."""

    machine: str
    door: str = "slot"
    by: str = "operator"

    def check(self, venue: Venue) -> str | None:
        problem, holder = _door_holder(venue, self.machine, self.door)
        if problem is not None:
            return problem
        if holder is not None:
            return f"the {self.door} door of {self.machine} is already open (by {holder})"
        if not self.by:
            return "by: who opens the door must be named"
        return None

    def apply(self, venue: Venue) -> None:
        venue.need(Slots).machine(self.machine).open_door(DOORS[self.door], self.by)


@command("close_door")
class CloseDoor(Command):
    """Close a machine's door that an operator opened."""

    machine: str
    door: str = "slot"
    by: str = "operator"

    def check(self, venue: Venue) -> str | None:
        problem, holder = _door_holder(venue, self.machine, self.door)
        if problem is not None:
            return problem
        if holder is None:
            return f"the {self.door} door of {self.machine} is not open"
        if holder != self.by:
            return f"the {self.door} door of {self.machine} was opened by {holder}, not {self.by}"
        return None

    def apply(self, venue: Venue) -> None:
        venue.need(Slots).machine(self.machine).close_door(DOORS[self.door], self.by)


@command("convert_program")
class ConvertProgram(Command):
    """Convert ``machine`` to the approved program of the game file ``game``, under the
    Board's written approval ``approval`` (an operator's conversion without one is item
    11(a)'s breach: the lifecycle department's works ask the Board first)."""

    machine: str
    game: Path
    approval: str = ""

    def check(self, venue: Venue) -> str | None:
        if self.machine not in venue.need(Slots).machine_ids:
            return f"no machine {self.machine!r} on the floor"
        game = venue.need(Slots).approved_game(Path(self.game))
        if game is None:
            return f"{self.game} is not a program the Board approved for this floor"
        if game.signature == venue.need(Slots).machine(self.machine).game.signature:
            return f"{self.machine} already runs {game.id}"
        return None

    def apply(self, venue: Venue) -> None:
        game = venue.need(Slots).approved_game(Path(self.game))
        assert game is not None
        slots = venue.need(Slots)
        venue.env.process(slots.convert(slots.machine(self.machine), game, self.approval))


@command("remove_machine")
class RemoveMachine(Command):
    """Take ``machine`` out of operation (First Schedule item 20(c)): once its patron has
    left it is emptied, read, recorded as removed and disconnected. ``returning``: the
    licensee keeps it (repair, storage); ``False``: it leaves the licensee's ownership."""

    machine: str
    reason: str = "repair"
    returning: bool = True

    def check(self, venue: Venue) -> str | None:
        if self.machine not in venue.need(Slots).machine_ids:
            return f"no machine {self.machine!r} on the floor"
        if not self.reason.strip():
            return "reason: why the machine is taken out must be given"
        m = venue.need(Slots).machine(self.machine)
        if m.withdrawn is not None or not m.present:
            return f"{self.machine} is already out of operation"
        return None

    def apply(self, venue: Venue) -> None:
        venue.need(Slots).take_out(
            venue.need(Slots).machine(self.machine), self.reason, self.returning
        )


@command("return_machine")
class ReturnMachine(Command):
    """Place ``machine`` back into operation after a removal (once the removal is done)."""

    machine: str

    def check(self, venue: Venue) -> str | None:
        if self.machine not in venue.need(Slots).machine_ids:
            return f"no machine {self.machine!r} on the floor"
        if self.machine in venue.need(Slots).sold:
            return f"{self.machine} left the licensee's ownership; it cannot be placed back"
        m = venue.need(Slots).machine(self.machine)
        if m.withdrawn is None and m.present:
            return f"{self.machine} is in operation"
        if self.machine not in venue.need(Slots).removals_open:
            return f"{self.machine} was not taken out by a recorded removal"
        return None

    def apply(self, venue: Venue) -> None:
        venue.need(Slots).put_back(self.machine)


__all__ = [
    "DOORS",
    "CloseDoor",
    "ConvertProgram",
    "OpenDoor",
    "RemoveMachine",
    "ReturnMachine",
]
