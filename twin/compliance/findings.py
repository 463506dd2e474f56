"""Findings: a control that was not met, with the records that prove it."""

from __future__ import annotations

from enum import StrEnum

from twin.records import Record, record


class Severity(StrEnum):
    """How serious a finding is; ``breach`` is a violation of the text itself."""

    BREACH = "breach"
    WARNING = "warning"  # a statistical alarm or a condition that needs investigating


@record("finding", roles=("subjects",))
class Finding(Record):
    """A control not met. ``evidence`` holds the sequence numbers of the proving records.

    ``subjects``: the entities the finding is about (machines, staff, patrons), in the order
    the checker names them. ``found_t``: when the check found it (simulation seconds; ``at``
    the same as local calendar time); ``t``, as for every record, when it entered the record:
    the record bus numbers a checker's findings at its batch boundaries, a minute or more
    later (:class:`twin.records.RecordBus`), so that no record goes back in time.
    """

    subjects: tuple[str, ...]
    control: str
    severity: str
    at: str  # calendar time (ISO 8601, local)
    message: str
    evidence: tuple[int, ...]
    found_t: float = -1.0  # -1: not recorded (a ledger written before issue 31)
