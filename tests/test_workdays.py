"""Working days (twin/workdays.py): Monday to Friday less Malta's public holidays (from the
``holidays`` library), deadlines at the end of the n-th working day after an event, and the
Board's office hours (09:00-17:00 local)."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest

from twin.workdays import (
    OFFICE_CLOSES,
    OFFICE_OPENS,
    add_working_days,
    deadline,
    is_working_day,
    next_office_time,
)

MT = "MT"
MALTA = ZoneInfo("Europe/Malta")


def local(y: int, mo: int, d: int, h: int = 0, mi: int = 0) -> datetime:
    return datetime(y, mo, d, h, mi, tzinfo=MALTA)


def test_the_office_keeps_nine_to_five() -> None:
    assert (time(9, 0), time(17, 0)) == (OFFICE_OPENS, OFFICE_CLOSES)


@pytest.mark.parametrize(
    ("day", "working"),
    [
        (date(2026, 3, 2), True),  # Monday
        (date(2026, 3, 6), True),  # Friday
        (date(2026, 3, 7), False),  # Saturday
        (date(2026, 3, 8), False),  # Sunday
        (date(2026, 3, 19), False),  # Thursday, St Joseph
        (date(2026, 3, 31), False),  # Tuesday, Freedom Day
        (date(2026, 4, 3), False),  # Good Friday
        (date(2026, 1, 1), False),  # New Year's Day
        (date(2026, 2, 10), False),  # St Paul's Shipwreck
        (date(2026, 5, 1), False),  # Worker's Day
        (date(2026, 6, 29), False),  # Sts Peter and Paul, a Monday
        (date(2026, 9, 8), False),  # Our Lady of Victories
        (date(2026, 9, 21), False),  # Independence Day
        (date(2026, 12, 8), False),  # the Immaculate Conception
        (date(2026, 12, 25), False),  # Christmas Day
        (date(2026, 3, 18), True),  # the day before St Joseph's
        (date(2026, 4, 6), True),  # Easter Monday is no public holiday in Malta
    ],
)
def test_working_days_of_malta_2026(day: date, working: bool) -> None:
    assert is_working_day(day, MT) is working


def test_a_year_of_malta_has_its_working_days() -> None:
    """2026 has 261 weekdays; 11 of Malta's 14 public holidays fall on one (Sette Giugno,
    the Assumption and Republic Day fall on a weekend)."""
    days = [date(2026, 1, 1) + timedelta(days=n) for n in range(365)]
    assert sum(d.weekday() < 5 for d in days) == 261
    assert sum(is_working_day(d, MT) for d in days) == 250


def test_another_country_keeps_its_own_holidays() -> None:
    """St Joseph's is Malta's holiday, not Germany's; German Unity Day (Friday 3 October
    2025) is Germany's, not Malta's."""
    assert is_working_day(date(2026, 3, 19), "DE")
    assert not is_working_day(date(2025, 10, 3), "DE")
    assert is_working_day(date(2025, 10, 3), MT)


@pytest.mark.parametrize(
    ("day", "n", "expected"),
    [
        (date(2026, 3, 2), 0, date(2026, 3, 2)),  # n = 0: the day itself
        (date(2026, 3, 7), 0, date(2026, 3, 7)),  # ... even a Saturday
        (date(2026, 3, 2), 1, date(2026, 3, 3)),  # Monday -> Tuesday
        (date(2026, 3, 2), 2, date(2026, 3, 4)),
        (date(2026, 3, 6), 1, date(2026, 3, 9)),  # Friday -> Monday
        (date(2026, 3, 6), 2, date(2026, 3, 10)),
        (date(2026, 3, 7), 1, date(2026, 3, 9)),  # Saturday -> Monday
        (date(2026, 3, 18), 1, date(2026, 3, 20)),  # Wednesday -> Friday (St Joseph's)
        (date(2026, 3, 18), 2, date(2026, 3, 23)),  # ... and the weekend
        (date(2026, 3, 30), 1, date(2026, 4, 1)),  # Monday -> Wednesday (Freedom Day)
        (date(2026, 3, 30), 3, date(2026, 4, 6)),  # ... Good Friday, the weekend
        (date(2026, 12, 24), 1, date(2026, 12, 28)),  # Christmas Eve -> Monday
        (date(2025, 12, 31), 1, date(2026, 1, 2)),  # across the year and New Year's Day
    ],
)
def test_add_working_days(day: date, n: int, expected: date) -> None:
    assert add_working_days(day, n, MT) == expected


@pytest.mark.parametrize(
    ("when", "n", "expected"),
    [
        # the end of the n-th working day after the event's date (local midnight after it)
        (local(2026, 3, 2, 19), 2, local(2026, 3, 5)),  # the test floor's manual request
        (local(2026, 3, 2, 19), 0, local(2026, 3, 3)),  # 0: the end of the event's own day
        (local(2026, 3, 6, 19), 1, local(2026, 3, 10)),  # Friday: the end of Monday
        (local(2026, 3, 6, 19), 2, local(2026, 3, 11)),
        (local(2026, 3, 18, 19), 1, local(2026, 3, 21)),  # St Joseph's skipped
        (local(2026, 3, 18, 19), 2, local(2026, 3, 24)),
        (local(2026, 3, 30, 10), 1, local(2026, 4, 2)),  # Freedom Day skipped
        (local(2026, 3, 30, 10), 3, local(2026, 4, 7)),  # ... and Good Friday
        (local(2026, 3, 27, 23, 59), 1, local(2026, 3, 31)),  # Friday late: Monday's end
    ],
)
def test_deadline(when: datetime, n: int, expected: datetime) -> None:
    due = deadline(when, n, MT)
    assert due == expected
    assert due.tzinfo is MALTA


def test_a_deadline_across_the_spring_clock_change_is_local_midnight() -> None:
    """Malta goes to summer time on Sunday 29 March 2026: the deadline is still local
    midnight, at UTC+2."""
    due = deadline(local(2026, 3, 27, 12), 1, MT)
    assert due.isoformat() == "2026-03-31T00:00:00+02:00"


@pytest.mark.parametrize(
    ("when", "expected"),
    [
        (local(2026, 3, 2, 10), local(2026, 3, 2, 10)),  # open: now
        (local(2026, 3, 2, 9), local(2026, 3, 2, 9)),  # at opening: now
        (local(2026, 3, 2, 8, 59), local(2026, 3, 2, 9)),  # before opening: today's
        (local(2026, 3, 2, 17), local(2026, 3, 3, 9)),  # at closing: tomorrow's
        (local(2026, 3, 2, 20), local(2026, 3, 3, 9)),  # the floor's manual request + 1 h
        (local(2026, 3, 6, 20), local(2026, 3, 9, 9)),  # Friday evening: Monday
        (local(2026, 3, 7, 11), local(2026, 3, 9, 9)),  # Saturday: Monday
        (local(2026, 3, 18, 20), local(2026, 3, 20, 9)),  # St Joseph's: Friday
        (local(2026, 3, 19, 10), local(2026, 3, 20, 9)),  # on St Joseph's itself
        (local(2026, 3, 30, 18), local(2026, 4, 1, 9)),  # Freedom Day: Wednesday
        (local(2026, 4, 2, 17, 30), local(2026, 4, 6, 9)),  # Good Friday, the weekend
    ],
)
def test_next_office_time(when: datetime, expected: datetime) -> None:
    assert next_office_time(when, MT) == expected
