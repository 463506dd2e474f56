"""The clock: simulation seconds <-> Europe/Malta wall time, across DST, gaming days, hours.

Malta (CET/CEST) springs forward on 2026-03-29 at 02:00 CET (-> 03:00 CEST) and falls back
on 2026-10-25 at 03:00 CEST (-> 02:00 CET). Simulation seconds are physical seconds.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
from dateutil.relativedelta import relativedelta

from twin.clock import Clock, OpeningHours

MALTA = "Europe/Malta"
TZ = ZoneInfo(MALTA)
H = 3600.0
DAY = 24 * H


def _clock(start: datetime, **kw: object) -> Clock:
    return Clock(start, MALTA, **kw)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------
# Mapping seconds <-> wall time
# ---------------------------------------------------------------------------------------------


def test_naive_start_is_local_and_aware_start_is_converted() -> None:
    local = _clock(datetime(2026, 3, 2, 10, 0))
    assert local.at(0) == datetime(2026, 3, 2, 10, 0, tzinfo=TZ)
    assert local.iso(0) == "2026-03-02T10:00:00+01:00"
    utc = _clock(datetime(2026, 3, 2, 9, 0, tzinfo=UTC))
    assert utc.iso(0) == "2026-03-02T10:00:00+01:00"
    assert utc.seconds(datetime(2026, 3, 2, 11, 0)) == H


def test_spring_forward_day_has_23_hours() -> None:
    clock = _clock(datetime(2026, 3, 28, 12, 0))  # CET, 11:00 UTC
    assert clock.iso(DAY) == "2026-03-29T13:00:00+02:00"  # 24 physical hours later
    assert clock.seconds(datetime(2026, 3, 29, 12, 0)) == 23 * H
    # the last CET instant and the first CEST instant are one second apart
    jump = clock.seconds(datetime(2026, 3, 29, 1, 0, tzinfo=UTC))
    assert jump == 14 * H
    assert clock.iso(jump - 1) == "2026-03-29T01:59:59+01:00"
    assert clock.iso(jump) == "2026-03-29T03:00:00+02:00"
    assert clock.hour_of_day(jump - 1) == 1
    assert clock.hour_of_day(jump) == 3


def test_fall_back_day_has_25_hours() -> None:
    clock = _clock(datetime(2026, 10, 24, 12, 0))  # CEST, 10:00 UTC
    assert clock.iso(DAY) == "2026-10-25T11:00:00+01:00"
    assert clock.seconds(datetime(2026, 10, 25, 12, 0)) == 25 * H
    # 02:30 happens twice: first in CEST (fold 0), an hour later in CET (fold 1)
    first = clock.seconds(datetime(2026, 10, 25, 2, 30))
    second = clock.seconds(datetime(2026, 10, 25, 2, 30, fold=1))
    assert second - first == H
    assert first == 14.5 * H
    assert clock.iso(first) == "2026-10-25T02:30:00+02:00"
    assert clock.iso(second) == "2026-10-25T02:30:00+01:00"
    assert clock.hour_of_day(first) == clock.hour_of_day(second) == 2


def test_at_and_seconds_round_trip_through_both_changes() -> None:
    clock = _clock(datetime(2026, 3, 1, 0, 0))
    for t in [0.0, 1.5, 28 * DAY - 1, 28 * DAY, 28 * DAY + 7 * H, 238 * DAY + 0.015625]:
        assert clock.seconds(clock.at(t)) == t
    # every simulated second maps to a distinct instant: no hour lost or repeated
    assert clock.seconds(clock.at(237 * DAY)) - clock.seconds(clock.at(236 * DAY)) == DAY


# ---------------------------------------------------------------------------------------------
# Gaming day
# ---------------------------------------------------------------------------------------------


def test_gaming_day_starts_at_six_local() -> None:
    clock = _clock(datetime(2026, 3, 2, 10, 0))
    five_59 = clock.seconds(datetime(2026, 3, 3, 5, 59, 59))
    six = clock.seconds(datetime(2026, 3, 3, 6, 0))
    assert clock.gaming_day(five_59) == date(2026, 3, 2)
    assert clock.gaming_day(six) == date(2026, 3, 3)
    assert clock.gaming_day(clock.seconds(datetime(2026, 3, 2, 23, 0))) == date(2026, 3, 2)
    # the first of the month at 03:00 still belongs to the last day of the previous month
    assert clock.gaming_day(clock.seconds(datetime(2026, 4, 1, 3, 0))) == date(2026, 3, 31)


def test_gaming_day_start_is_configurable() -> None:
    clock = _clock(datetime(2026, 3, 2, 10, 0), gaming_day_start=time(4, 0))
    assert clock.gaming_day(clock.seconds(datetime(2026, 3, 3, 3, 59))) == date(2026, 3, 2)
    assert clock.gaming_day(clock.seconds(datetime(2026, 3, 3, 4, 0))) == date(2026, 3, 3)


@pytest.mark.parametrize(
    ("start", "hours"),
    [(datetime(2026, 3, 27, 10, 0), 23), (datetime(2026, 10, 23, 10, 0), 25)],
)
def test_gaming_days_across_dst_last_23_and_25_hours(start: datetime, hours: int) -> None:
    clock = _clock(start)
    begin = clock.next_local(0, time(6, 0))  # the next morning
    end = clock.next_local(begin, time(6, 0))
    assert end - begin == hours * H
    assert clock.gaming_day(begin) == start.date() + timedelta(days=1)
    assert clock.gaming_day(end - 1) == start.date() + timedelta(days=1)
    assert clock.gaming_day(end) == start.date() + timedelta(days=2)


# ---------------------------------------------------------------------------------------------
# Opening hours
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("local", "is_open"),
    [
        (time(9, 59), False),
        (time(10, 0), True),
        (time(18, 0), True),
        (time(23, 59, 59), True),
        (time(0, 0), True),
        (time(3, 59, 59), True),
        (time(4, 0), False),
        (time(6, 0), False),
    ],
)
def test_opening_hours_across_midnight(local: time, is_open: bool) -> None:
    assert OpeningHours(time(10, 0), time(4, 0)).is_open(local) is is_open


def test_opening_hours_same_day_and_always_open() -> None:
    day = OpeningHours(time(9, 0), time(17, 0))
    assert [day.is_open(time(h)) for h in (8, 9, 16, 17)] == [False, True, True, False]
    always = OpeningHours(time(0, 0), time(0, 0))
    assert all(always.is_open(time(h, m)) for h in range(24) for m in (0, 59))


def test_clock_is_open_uses_local_time_across_dst() -> None:
    clock = _clock(datetime(2026, 3, 28, 12, 0), opening_hours=OpeningHours(time(10), time(4)))
    assert clock.is_open(0)
    # 03:30 CEST on the spring-forward night is after 03:00 (02:xx never happens): open
    assert clock.is_open(clock.seconds(datetime(2026, 3, 29, 3, 30)))
    assert not clock.is_open(clock.seconds(datetime(2026, 3, 29, 4, 0)))
    assert not clock.is_open(clock.seconds(datetime(2026, 3, 29, 9, 59)))
    assert clock.is_open(clock.seconds(datetime(2026, 3, 29, 10, 0)))
    assert Clock(datetime(2026, 3, 2), MALTA).is_open(12345.0)  # default: always open


# ---------------------------------------------------------------------------------------------
# next_local and calendar arithmetic
# ---------------------------------------------------------------------------------------------


def test_next_local_is_strictly_after() -> None:
    clock = _clock(datetime(2026, 3, 2, 10, 0))
    assert clock.next_local(0, time(4, 0)) == 18 * H  # closing at 04:00 the next morning
    assert clock.next_local(0, time(10, 0)) == DAY  # not t itself
    assert clock.next_local(0, time(10, 0, 1)) == 1.0
    assert clock.next_local(DAY - 1, time(10, 0)) == DAY


def test_next_local_across_the_dst_changes() -> None:
    spring = _clock(datetime(2026, 3, 28, 12, 0))
    assert spring.next_local(0, time(4, 0)) == 15 * H  # 04:00 CEST is 02:00 UTC
    assert spring.iso(spring.next_local(0, time(4, 0))) == "2026-03-29T04:00:00+02:00"
    assert spring.next_local(0, time(12, 0)) == 23 * H
    fall = _clock(datetime(2026, 10, 24, 12, 0))
    assert fall.next_local(0, time(4, 0)) == 17 * H  # 04:00 CET is 03:00 UTC
    assert fall.next_local(0, time(12, 0)) == 25 * H
    assert fall.iso(fall.next_local(0, time(12, 0))) == "2026-10-25T12:00:00+01:00"


@pytest.mark.parametrize(
    ("start", "delta", "want"),
    [
        (datetime(2026, 1, 31, 10, 0), relativedelta(months=1), "2026-02-28T10:00:00+01:00"),
        (datetime(2028, 1, 31, 10, 0), relativedelta(months=1), "2028-02-29T10:00:00+01:00"),
        (datetime(2026, 3, 31, 10, 0), relativedelta(months=1), "2026-04-30T10:00:00+02:00"),
        (datetime(2028, 2, 29, 10, 0), relativedelta(years=1), "2029-02-28T10:00:00+01:00"),
        (datetime(2026, 12, 15, 6, 0), relativedelta(months=1), "2027-01-15T06:00:00+01:00"),
        (datetime(2026, 10, 24, 12, 0), relativedelta(days=1), "2026-10-25T12:00:00+01:00"),
    ],
)
def test_add_calendar_periods(start: datetime, delta: relativedelta, want: str) -> None:
    clock = _clock(start)
    assert clock.iso(clock.add(0, delta)) == want


def test_add_a_month_across_spring_forward_is_an_hour_short() -> None:
    clock = _clock(datetime(2026, 3, 15, 12, 0))
    t = clock.add(0, relativedelta(months=1))
    assert clock.iso(t) == "2026-04-15T12:00:00+02:00"
    assert t == 31 * DAY - H
    # and from a later simulation time, relative to that time's wall clock
    t2 = clock.add(t, relativedelta(months=6))
    assert clock.iso(t2) == "2026-10-15T12:00:00+02:00"
    assert clock.iso(clock.add(t2, relativedelta(months=1))) == "2026-11-15T12:00:00+01:00"
