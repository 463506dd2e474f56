"""The door's operator actions: identify an entrant, let them in or turn them away (a drill's
hook).

With ``[entrance] operator = ["identification"]`` every entrant of this casino waits at the
door (``entrant_waiting``) for the operator: :class:`CheckId` checks their identity document
against the Board's list, the self-exclusion list and the register (an ``id_checked``
record), :class:`AdmitEntrant` lets them into the gaming area, :class:`RefuseEntrant` turns
them away. An entrant let in unchecked, or whom the check found listed, is let in as ordered
and found by the controls (regs 20(1), 24(2), 45); a command about no one waiting is refused
with its reason.
"""

from __future__ import annotations

from twin.commands import Command, command
from twin.department import Venue
from twin.door.model import Door


def _refusal(venue: Venue, person: str, act: str) -> str | None:
    door = venue.find(Door)
    if door is None:
        return "this casino has no door ([entrance])"
    return door.refusal(person, act)


@command("check_id")
class CheckId(Command):
    """Check the identity document of ``person``, waiting at the door."""

    person: str

    def check(self, venue: Venue) -> str | None:
        return _refusal(venue, self.person, "check")

    def apply(self, venue: Venue) -> None:
        venue.need(Door).check_waiting(self.person)


@command("admit_entrant")
class AdmitEntrant(Command):
    """Let ``person``, waiting at the door, into the gaming area."""

    person: str

    def check(self, venue: Venue) -> str | None:
        return _refusal(venue, self.person, "admit")

    def apply(self, venue: Venue) -> None:
        venue.need(Door).decide(self.person, admit=True)


@command("refuse_entrant")
class RefuseEntrant(Command):
    """Turn ``person``, waiting at the door, away."""

    person: str

    def check(self, venue: Venue) -> str | None:
        return _refusal(venue, self.person, "refuse")

    def apply(self, venue: Venue) -> None:
        venue.need(Door).decide(self.person, admit=False)


__all__ = ["AdmitEntrant", "CheckId", "RefuseEntrant"]
