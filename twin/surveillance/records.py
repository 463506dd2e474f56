"""The records of the closed-circuit camera and audio system (Malta reg 27): the cameras, the
recordings they make and recycle, the cases that hold recordings as evidence, and the
requests of the police and the Board for a recording.

Entities by role: ``camera`` (``entrance``, ``cage``, ``bank-A``, ``table-RL-1``...),
``recording`` (``<camera>/<local start, YYYYMMDD-HHMM>``: ``bank-A/20260302-1000``), ``case``
(``SC-0001``) and ``request`` (a request's id, ``REQ01``).
"""

from __future__ import annotations

from twin.records import Record, record


@record("camera_installed", roles=("camera",))
class CameraInstalled(Record):
    """``camera`` records the video and audio of ``area`` from the start of the run, one
    recording every ``segment_hours`` (segments aligned to local midnight)."""

    camera: str
    area: str
    segment_hours: int


@record("recording_made", roles=("recording", "camera"))
class RecordingMade(Record):
    """``camera`` completed ``recording`` (its record's ``t``): what happened from ``start``
    to ``end`` (local ISO times) on the local ``date``; ``start_t`` the simulation time of
    its start."""

    recording: str
    camera: str
    date: str
    start: str
    end: str
    start_t: float


@record("recording_recycled", roles=("recording", "camera"))
class RecordingRecycled(Record):
    """``recording`` was erased and its medium reused, at the daily retention pass."""

    recording: str
    camera: str


@record("case_opened", roles=("case", "cameras", "recordings"))
class CaseOpened(Record):
    """A case (an investigation, proceedings) that needs the recordings of an activity.

    ``cause``: "aml", "pit", "door" (opened by the record ``evidence_kind``, seqs
    ``evidence``), "incident" or "police" (a scenario's case, ``evidence_kind`` "scenario");
    ``incident_t`` when the activity happened; ``cameras`` whose recordings covering it are
    held (``recordings``: their ids, made or still being made); ``until``: the local date
    the case is expected to close."""

    case: str
    cause: str
    evidence_kind: str
    evidence: tuple[int, ...]
    incident_t: float
    cameras: tuple[str, ...]
    recordings: tuple[str, ...]
    until: str


@record("recording_held", roles=("recording", "camera", "case"))
class RecordingHeld(Record):
    """``recording`` is held as evidence of ``case`` (when the case opens, or when a
    recording the case needs is completed)."""

    recording: str
    camera: str
    case: str


@record("case_closed", roles=("case", "recordings"))
class CaseClosed(Record):
    """``case`` is over: its hold on ``recordings`` is released."""

    case: str
    recordings: tuple[str, ...]


@record("recording_requested", roles=("request", "camera"))
class RecordingRequested(Record):
    """``by`` ("police", "board") asks for ``camera``'s recordings of the local ``date``."""

    request: str
    by: str
    camera: str
    date: str


@record("recording_produced", roles=("request", "camera", "recordings"))
class RecordingProduced(Record):
    """The licensee produced ``recordings`` (``camera``'s, of ``date``) for ``request``."""

    request: str
    camera: str
    date: str
    recordings: tuple[str, ...]


@record("recording_request_refused", roles=("request", "camera"))
class RecordingRequestRefused(Record):
    """The licensee could not produce ``camera``'s recordings of ``date``: ``reason``
    "recycled after its period" or "not recorded" (none was made of that date)."""

    request: str
    camera: str
    date: str
    reason: str


__all__ = [
    "CameraInstalled",
    "CaseClosed",
    "CaseOpened",
    "RecordingHeld",
    "RecordingMade",
    "RecordingProduced",
    "RecordingRecycled",
    "RecordingRequestRefused",
    "RecordingRequested",
]
