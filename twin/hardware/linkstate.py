"""What the link keeps of each SMIB (guarded by the link's lock): its session, the one
request outstanding, and the messages held while the link suspects its counters went back."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from twin.hardware.book import Event, Meters


@dataclass
class Ask:
    """The one request outstanding for a SMIB: ``replay``, ``rebirth`` or ``verify`` (a
    rebirth that tells a stale copy from counters that went back)."""

    kind: str
    cmd_id: str
    deadline: float  # used up when unanswered by then (or, once completed, gap still open)
    completed: bool = False


@dataclass
class Suspect:
    """Messages that look like counters gone back (or a second event under one eid), held
    until the SMIB's answer to a rebirth says which they are."""

    why: str
    births: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    meters: list[dict[str, Any]] = field(default_factory=list)
    bds: set[int] = field(default_factory=set)  # older sessions whose messages are held


@dataclass
class Session:
    """What the link knows of one SMIB (guarded by the link's lock)."""

    bd: int = 0  # the live session
    born: bool = False  # a birth of ``bd`` was seen
    online: bool = False
    offline: bool = False  # its lost/offline status for the live session came: ask nothing
    next_seq: int = 0
    missing: set[int] = field(default_factory=set)  # seq numbers not seen yet
    series: int = 0  # +1 each time its counters went back
    contig: int | None = None  # last eid delivered or declared lost (None until a birth)
    known: int = 0  # highest eid any message of this series mentioned
    held: dict[int, Event] = field(default_factory=dict)
    snapshots: list[tuple[int, Meters]] = field(default_factory=list)
    digests: dict[int, str] = field(default_factory=dict)  # eid -> content digest
    lost: list[tuple[int, int]] = field(default_factory=list)  # ranges declared lost
    gap_since: float | None = None
    gap_wait: float = 0.0
    last_request: float = float("-inf")
    want_rebirth: bool = False
    suspect: Suspect | None = None
    ask: Ask | None = None
    attempts: int = 0  # requests sent for the present need
    next_try: float = float("-inf")
    ttl: float = 0.0
    last_answer: str = ""
    last_seen: float | None = None  # time.monotonic() of its last valid message
    snapshots_seen: int = 0  # meters messages received
    applied: int = 0  # events delivered in the run
    declared: int = 0  # events declared lost in the run


__all__ = ["Ask", "Session", "Suspect"]
