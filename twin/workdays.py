"""Working days: the calendar the Board's office keeps (kernel).

"Immediately" and "on request" deadlines of the regulations are read as working days of the
jurisdiction: Monday to Friday, less its public holidays, from the ``holidays`` library (no
hand-kept list). A deadline of ``n`` working days after an event falls at the end of the
``n``-th working day after the event's date (the event's own day excluded), local time.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from functools import cache

import holidays

from twin.rules import Rule

#: the Board's office hours (local); work reaching it outside them is handled at the next opening
OFFICE_OPENS = time(9, 0)
OFFICE_CLOSES = time(17, 0)
#: whose working days "immediately" and "on request" are counted in (``holidays`` country code)
WORKDAY_COUNTRY = Rule[str](
    "working_days_country", "text", "the country whose working days deadlines count",
    default="MT",
)  # fmt: skip


@cache
def _holidays(country: str, year: int) -> holidays.HolidayBase:
    return holidays.country_holidays(country, years=year)


def is_working_day(day: date, country: str) -> bool:
    """Whether ``day`` is a working day (not a weekend, not a public holiday of ``country``)."""
    return day.weekday() < 5 and day not in _holidays(country, day.year)


def add_working_days(day: date, n: int, country: str) -> date:
    """The ``n``-th working day after ``day`` (``day`` itself excluded; n = 0: ``day``)."""
    out = day
    while n > 0:
        out += timedelta(days=1)
        if is_working_day(out, country):
            n -= 1
    return out


def deadline(when: datetime, n: int, country: str) -> datetime:
    """The last instant of ``n`` working days after ``when`` (the end of that day, local):
    with n = 0, the end of ``when``'s own day."""
    last = add_working_days(when.date(), n, country)
    return datetime.combine(last + timedelta(days=1), time(0, 0), tzinfo=when.tzinfo)


def next_office_time(when: datetime, country: str) -> datetime:
    """``when`` if the office is open then, else its next opening (local)."""
    day = when.date()
    if is_working_day(day, country) and OFFICE_OPENS <= when.time() < OFFICE_CLOSES:
        return when
    if is_working_day(day, country) and when.time() < OFFICE_OPENS:
        return datetime.combine(day, OFFICE_OPENS, tzinfo=when.tzinfo)
    nxt = add_working_days(day, 1, country)
    return datetime.combine(nxt, OFFICE_OPENS, tzinfo=when.tzinfo)


__all__ = [
    "OFFICE_CLOSES",
    "OFFICE_OPENS",
    "WORKDAY_COUNTRY",
    "add_working_days",
    "deadline",
    "is_working_day",
    "next_office_time",
]
