"""Records of staff on and off duty."""

from __future__ import annotations

from twin.records import Record, record


@record("shift_started")
class ShiftStarted(Record):
    role: str
    shift: str


@record("shift_ended")
class ShiftEnded(Record):
    role: str
    shift: str
