"""Commands: typed input that enters the world through the inbox while it runs."""

from __future__ import annotations

from twin.records import Record, record


@record("command_accepted", roles=("source",))
class CommandAccepted(Record):
    """A command from outside the model, applied at ``t``."""

    source: str
    number: int  # the command's place among its source's commands (1, 2, ...)
    command: str
    args: str  # the command's arguments, canonical JSON


@record("command_rejected", roles=("source",))
class CommandRejected(Record):
    """A command from outside the model that was refused, and why."""

    source: str
    number: int
    command: str
    args: str
    reason: str
