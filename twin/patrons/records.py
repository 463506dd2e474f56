"""Records of patrons' visits."""

from __future__ import annotations

from twin.records import Record, record


@record("patron_arrived", roles=("patron",))
class PatronArrived(Record):
    """A member of the population came in for their ``visit``-th time (1, 2, 3...). The
    person's age is not here: what the casino knows of it is the age on the document its door
    checks (``id_checked``)."""

    patron: str
    segment: str
    bankroll_cents: int
    visit: int
    residency: str


@record("session_started", roles=("patron", "machine"))
class SessionStarted(Record):
    patron: str
    machine: str
    bet_units: int
    pace_seconds: float
    planned_end_t: float


@record("patron_left", roles=("patron", "machine"))
class PatronLeft(Record):
    patron: str
    machine: str  # "" when the patron never got a machine
    reason: str
    spent_cents: int
