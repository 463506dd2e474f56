"""The ``[surveillance]`` section: the closed-circuit camera and audio system and its
recordings (Malta reg 27).

::

    [surveillance]
    segment_hours = 24           # one recording per camera per segment (a divisor of 24),
                                 # segments aligned to local midnight
    retention_time = "06:00"     # the daily retention pass (local time)
    case_days_aml = 30           # how long a case stays open, by what opened it
    case_days_pit = 14
    case_days_door = 7
    case_days_incident = 14

    [[surveillance.cases]]       # an incident the licensee or the police investigate
    at_hours = 20                # the case opens (hours from the start)
    incident_hours = 18          # when it happened (default: at_hours)
    cameras = ["table-RL-1"]     # default: every camera
    cause = "incident"           # "incident" or "police"
    days = 14                    # default: case_days_incident

    [[surveillance.requests]]    # the police or the Board ask for a recording
    at_hours = 30
    camera = "bank-A"
    date = 2026-03-02            # the local date recorded (before the request's own date)
    by = "police"                # "police" or "board"

The cameras are derived from the scenario, one per area of the run (:func:`cameras`):
``entrance`` (with ``[entrance]``), ``cage`` (with ``[cage]``), ``bank-<id>`` for each slot
bank, ``table-<id>`` for each table and ``cardroom-<id>`` for each card room area (with
``[tables]``), and ``junket-room`` (with ``[junkets]``). Each camera's recording stands for its
video and audio together.

Validated with the same one-line, key-path errors as every scenario section.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import Annotated, Any, ClassVar, Literal
from zoneinfo import ZoneInfo

from pydantic import Field, model_validator

from twin.dists import expect, invalid
from twin.scenario import (
    HHMM,
    Ident,
    NonNegativeFloat,
    PositiveInt,
    _check_unique,
    _Model,
    _one_of,
)

#: the segment lengths a day divides into (segments aligned to local midnight)
SEGMENT_HOURS = (1, 2, 3, 4, 6, 8, 12, 24)


class CaseConfig(_Model):
    """``[[surveillance.cases]]``: an incident under investigation, opened at ``at_hours``
    for ``days`` (default ``case_days_incident``): the recordings of ``cameras`` (default
    all) covering ``incident_hours`` (default ``at_hours``) are held as evidence."""

    id: Ident | None = None
    at_hours: NonNegativeFloat
    incident_hours: NonNegativeFloat | None = None
    cameras: tuple[Ident, ...] = Field(default=(), strict=False)
    cause: Literal["incident", "police"] = "incident"
    days: PositiveInt | None = None

    @model_validator(mode="after")
    def _check(self) -> CaseConfig:
        if self.incident_hours is not None and self.incident_hours > self.at_hours:
            raise invalid(f"a time at or before at_hours ({self.at_hours})",
                          key="incident_hours", found=self.incident_hours)  # fmt: skip
        _check_unique(list(self.cameras), "cameras", "", "camera")
        return self


class RequestConfig(_Model):
    """``[[surveillance.requests]]``: ``by`` (the police, the Board) asks at ``at_hours`` for
    ``camera``'s recordings of the local ``date``."""

    id: Ident | None = None
    at_hours: NonNegativeFloat
    camera: Ident
    date: date
    by: Literal["police", "board"] = "police"


class SurveillanceConfig(_Model):
    """The ``[surveillance]`` table."""

    department: ClassVar[str] = "surveillance"

    segment_hours: Annotated[
        int, expect("a divisor of 24 (1, 2, 3, 4, 6, 8, 12 or 24)", lambda v: v in SEGMENT_HOURS)
    ] = 24
    retention_time: HHMM = time(6, 0)
    case_days_aml: PositiveInt = 30
    case_days_pit: PositiveInt = 14
    case_days_door: PositiveInt = 7
    case_days_incident: PositiveInt = 14
    cases: tuple[CaseConfig, ...] = Field(default=(), strict=False)
    requests: tuple[RequestConfig, ...] = Field(default=(), strict=False)

    @model_validator(mode="before")
    @classmethod
    def _number(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        out = dict(data)
        for key, prefix in (("cases", "INC"), ("requests", "REQ")):
            if isinstance(out.get(key), list):
                out[key] = [
                    {**x, "id": x.get("id", f"{prefix}{n:02d}")} if isinstance(x, dict) else x
                    for n, x in enumerate(out[key], start=1)
                ]
        return out

    @model_validator(mode="after")
    def _check(self) -> SurveillanceConfig:
        _check_unique([c.id or "" for c in self.cases], "cases", "id", "case id")
        _check_unique([r.id or "" for r in self.requests], "requests", "id", "request id")
        return self

    def boundaries(self) -> tuple[time, ...]:
        """The local times a recording ends and the next begins."""
        return tuple(time(h) for h in range(0, 24, self.segment_hours))


def cameras(sc: Any) -> dict[str, str]:
    """The run's cameras (id -> the area it covers), derived from its sections in a fixed
    order: the entrance, the cage, each slot bank, each table, each card room area, the
    junket room."""
    out: dict[str, str] = {}
    if getattr(sc, "entrance", None) is not None:
        out["entrance"] = "the entrance"
    if getattr(sc, "cage", None) is not None:
        out["cage"] = "the cage"
    for bank in sc.floor.banks:
        out[f"bank-{bank.id}"] = f"slot bank {bank.id} ({bank.zone})"
    tables = getattr(sc, "tables", None)
    if tables is not None:
        for t in tables.tables:
            out[f"table-{t.id}"] = f"table {t.id}"
        for a in tables.card_room:
            out[f"cardroom-{a.id}"] = f"card room area {a.id}"
    if getattr(sc, "junkets", None) is not None:
        out["junket-room"] = "the junket room"
    return out


def check(sc: Any) -> None:
    """What ``[surveillance]`` asks of the others: cameras of the run, and requests for a
    date before the request's own local date."""
    sv: SurveillanceConfig | None = getattr(sc, "surveillance", None)
    if sv is None:
        return
    known = list(cameras(sc))
    for i, c in enumerate(sv.cases):
        for j, cam in enumerate(c.cameras):
            if cam not in known:
                raise invalid(_one_of(known, "a camera"),
                              key=f"surveillance.cases[{i}].cameras[{j}]", found=cam)  # fmt: skip
    info = sc.scenario
    start: datetime = info.start_datetime
    zone = ZoneInfo(info.timezone)
    for i, r in enumerate(sv.requests):
        if r.camera not in known:
            raise invalid(_one_of(known, "a camera"), key=f"surveillance.requests[{i}].camera",
                          found=r.camera)  # fmt: skip
        asked = (start.astimezone(ZoneInfo("UTC")) + timedelta(hours=r.at_hours)).astimezone(zone)
        if r.date >= asked.date():
            raise invalid(f"a date before the request's own ({asked.date().isoformat()})",
                          key=f"surveillance.requests[{i}].date", found=r.date)  # fmt: skip


__all__ = ["SEGMENT_HOURS", "CaseConfig", "RequestConfig", "SurveillanceConfig", "cameras",
           "check"]  # fmt: skip
