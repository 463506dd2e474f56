"""The surveillance department's KPIs, from records alone: recordings made, recycled and
held as evidence, cases opened, closed and still open, and requests answered and refused.
Every key is reported (0 when none), so two arms of a study always compare the same keys."""

from __future__ import annotations

from typing import Any

from twin.records import Record
from twin.surveillance.records import (
    CameraInstalled,
    CaseClosed,
    CaseOpened,
    RecordingHeld,
    RecordingMade,
    RecordingProduced,
    RecordingRecycled,
    RecordingRequestRefused,
)


class SurveillanceKpis:
    """The KPI section "surveillance"."""

    name = "surveillance"
    reads: tuple[type[Record], ...] = (
        CameraInstalled,
        RecordingMade,
        RecordingRecycled,
        RecordingHeld,
        CaseOpened,
        CaseClosed,
        RecordingProduced,
        RecordingRequestRefused,
    )

    def __init__(self) -> None:
        self.cameras = 0
        self.made = 0
        self.recycled = 0
        self.held: set[str] = set()
        self.opened = 0
        self.closed = 0
        self.answered = 0
        self.refused = 0

    def accept(self, rec: Record) -> None:
        if isinstance(rec, CameraInstalled):
            self.cameras += 1
        elif isinstance(rec, RecordingMade):
            self.made += 1
        elif isinstance(rec, RecordingRecycled):
            self.recycled += 1
        elif isinstance(rec, RecordingHeld):
            self.held.add(rec.recording)
        elif isinstance(rec, CaseOpened):
            self.opened += 1
        elif isinstance(rec, CaseClosed):
            self.closed += 1
        elif isinstance(rec, RecordingProduced):
            self.answered += 1
        elif isinstance(rec, RecordingRequestRefused):
            self.refused += 1

    def report(self, end: float) -> dict[str, Any]:
        if not self.cameras:
            return {}  # no [surveillance] in the scenario
        return {
            "cameras": self.cameras,
            "recordings_made": self.made,
            "recordings_recycled": self.recycled,
            "recordings_held_as_evidence": len(self.held),
            "cases_opened": self.opened,
            "cases_closed": self.closed,
            "cases_open": self.opened - self.closed,
            "requests_answered": self.answered,
            "requests_refused": self.refused,
        }
