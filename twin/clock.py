"""One clock: simulation seconds <-> timezone-aware calendar datetimes.

Simulation time is float seconds from the scenario's start. Calendar arithmetic for
regulatory periods (months, years) uses ``dateutil.relativedelta`` on real dates, never
hand-rolled day counts. Elapsed seconds are physical (UTC) seconds, so a DST change shifts
the local wall time but never the simulation time.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from dateutil.relativedelta import relativedelta


@dataclass(frozen=True, slots=True)
class OpeningHours:
    """Daily opening hours in local time; ``close <= open`` means closing after midnight."""

    open: time
    close: time

    def is_open(self, local: time) -> bool:
        if self.open == self.close:
            return True
        if self.open < self.close:
            return self.open <= local < self.close
        return local >= self.open or local < self.close


class Clock:
    """Maps simulation seconds to calendar datetimes in the scenario's time zone."""

    def __init__(
        self,
        start: datetime,
        tz: str,
        gaming_day_start: time = time(6, 0),
        opening_hours: OpeningHours | None = None,
    ) -> None:
        self.zone = ZoneInfo(tz)
        if start.tzinfo is None:
            start = start.replace(tzinfo=self.zone)
        self.start = start.astimezone(self.zone)
        self._start_utc = self.start.astimezone(UTC)
        self.gaming_day_start = gaming_day_start
        self.opening_hours = opening_hours or OpeningHours(time(0, 0), time(0, 0))

    def at(self, t: float) -> datetime:
        """The local datetime at simulation time ``t``."""
        return (self._start_utc + timedelta(seconds=t)).astimezone(self.zone)

    def seconds(self, when: datetime) -> float:
        """Simulation seconds at ``when`` (naive datetimes are read as local time)."""
        if when.tzinfo is None:
            when = when.replace(tzinfo=self.zone)
        return (when.astimezone(UTC) - self._start_utc).total_seconds()

    def iso(self, t: float) -> str:
        return self.at(t).isoformat(timespec="seconds")

    def hour_of_day(self, t: float) -> int:
        return self.at(t).hour

    def gaming_day(self, t: float) -> date:
        """The gaming day that ``t`` belongs to: it starts at ``gaming_day_start`` local."""
        local = self.at(t)
        day = local.date()
        if local.time() < self.gaming_day_start:
            day = day - relativedelta(days=1)
        return day

    def is_open(self, t: float) -> bool:
        return self.opening_hours.is_open(self.at(t).time())

    def next_local(self, t: float, at: time) -> float:
        """Simulation time of the next local wall time ``at`` strictly after ``t``."""
        local = self.at(t)
        candidate = datetime.combine(local.date(), at, tzinfo=self.zone)
        while self.seconds(candidate) <= t:
            candidate = datetime.combine(
                candidate.date() + relativedelta(days=1), at, tzinfo=self.zone
            )
        return self.seconds(candidate)

    def add(self, t: float, delta: relativedelta) -> float:
        """Simulation time of the calendar instant ``delta`` after ``t`` (months, years...)."""
        return self.seconds(self.at(t) + delta)
