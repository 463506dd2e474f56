"""The coat check's injection: the next coat is lost."""

from __future__ import annotations

from coatroom.model import CoatCheck
from twin.department import Venue
from twin.injections import InjectViolation, injection


@injection("coat_lost", "the next coat taken in is lost", needs=())
def _coat_lost(venue: Venue, inj: InjectViolation) -> None:
    desk = venue.find(CoatCheck)
    if desk is not None:
        desk.lose_next = True
