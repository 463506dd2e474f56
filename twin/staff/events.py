"""Records of staff on and off duty."""

from __future__ import annotations

from twin.records import Record, record


@record("shift_started", roles=("member",))
class ShiftStarted(Record):
    member: str
    role: str
    shift: str


@record("shift_ended", roles=("member",))
class ShiftEnded(Record):
    member: str
    role: str
    shift: str
