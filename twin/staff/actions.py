"""The staff's operator action: send named people to a waiting job (operator dispatch)."""

from __future__ import annotations

from twin.commands import Command, command
from twin.department import Venue
from twin.staff.dispatch import Dispatcher


@command("assign_job")
class AssignJob(Command):
    """An operator sends named people to a waiting job (job kinds in operator mode)."""

    job_id: str
    members: dict[str, str]  # role -> member id

    def check(self, venue: Venue) -> str | None:
        return venue.need(Dispatcher).refusal(self.job_id, self.members)

    def apply(self, venue: Venue) -> None:
        refused = venue.need(Dispatcher).assign(self.job_id, self.members)
        assert refused is None, refused


__all__ = ["AssignJob"]
