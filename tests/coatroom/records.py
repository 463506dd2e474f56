"""The coat check's record kinds."""

from __future__ import annotations

from twin.records import Record, record


@record("coat_checked", roles=("ticket",))
class CoatChecked(Record):
    ticket: str
    fee_cents: int


@record("coat_lost", roles=("ticket",))
class CoatLost(Record):
    ticket: str
