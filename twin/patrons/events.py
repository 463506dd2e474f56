"""Records of patrons' visits."""

from __future__ import annotations

from twin.records import Record, record


@record("patron_arrived")
class PatronArrived(Record):
    segment: str
    bankroll_cents: int


@record("session_started")
class SessionStarted(Record):
    bet_units: int
    pace_seconds: float
    planned_end_t: float


@record("patron_left")
class PatronLeft(Record):
    reason: str
    spent_cents: int
