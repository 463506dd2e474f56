"""Who is on duty when: exact timelines of shift patterns, handovers and overtime.

Each test builds a dispatcher on a bare world (no machines) whose clock starts at a stated
local time in Europe/Malta, runs it, and compares the duty and job records with a timeline
derived by hand: (sim seconds, record kind, member or job).
"""

from __future__ import annotations

from collections.abc import Generator
from datetime import datetime, time
from typing import Any

import simpy

from twin.clock import Clock
from twin.jobs import JobSpec
from twin.records import MemorySink, RecordBus
from twin.staff.dispatch import Dispatcher, Shift
from twin.streams import Streams
from twin.world import World

H = 3600.0


def staffed(
    start: datetime, shifts: list[tuple[str, str, str, dict[str, int]]]
) -> tuple[simpy.Environment, Dispatcher, MemorySink]:
    """A dispatcher with the default roles and ``shifts`` = (name, "HH:MM", "HH:MM", crew)."""
    env = simpy.Environment()
    sink = MemorySink()
    world = World(
        env=env,
        clock=Clock(start, "Europe/Malta"),
        streams=Streams(1),
        bus=RecordBus(lambda: env.now, [sink]),
    )
    staff = Dispatcher(world)
    prefixes = {"attendant": "ATT", "technician": "TEC", "inspector": "INS"}
    built = []
    for name, a, b, crew in shifts:
        members = []
        for role, n in crew.items():
            for i in range(1, n + 1):
                mid = f"{prefixes[role]}-{name}-{i:02d}"
                staff.enlist(mid, role, name)
                members.append(mid)
        hh = [time(int(x[:2]), int(x[3:])) for x in (a, b)]
        built.append(Shift(name, hh[0], hh[1], tuple(members)))
    env.process(staff.keep_roster(built))
    return env, staff, sink


def job(
    env: simpy.Environment,
    staff: Dispatcher,
    at: float,
    roles: tuple[str, ...],
    seconds: float,
    kind: str = "hand_pay",
) -> Generator[simpy.events.Event, Any, None]:
    yield env.timeout(at - env.now)
    handle = staff.request(JobSpec(kind, "M1", roles))
    yield handle.assigned
    yield env.timeout(seconds)
    staff.complete(handle)


def duty(sink: MemorySink) -> list[tuple[float, str, str]]:
    return [
        (r.t, r.kind, r.member)  # type: ignore[attr-defined]
        for r in sink.records
        if r.kind in ("shift_started", "shift_ended")
    ]


def jobs(sink: MemorySink) -> list[tuple[float, str, str, tuple[str, ...]]]:
    return [
        (r.t, r.kind, r.job_id, getattr(r, "members", ()))  # type: ignore[attr-defined]
        for r in sink.records
        if r.kind in ("job_started", "job_completed")
    ]


def test_overlapping_shifts_and_a_shift_across_midnight() -> None:
    """Start Mon 10:00 (CET). early 06-14, mid 12-20 (overlaps early), night 22-06 (wraps).

    early is on at t = 0 (10:00 is inside 06-14); at 06:00 the night leaves before the early
    arrives (leavers first at a handover instant)."""
    env, _, sink = staffed(
        datetime(2026, 3, 2, 10, 0),
        [
            ("early", "06:00", "14:00", {"attendant": 1}),
            ("mid", "12:00", "20:00", {"attendant": 1}),
            ("night", "22:00", "06:00", {"attendant": 1}),
        ],
    )
    env.run(until=29 * H)
    assert duty(sink) == [
        (0.0, "shift_started", "ATT-early-01"),
        (2 * H, "shift_started", "ATT-mid-01"),
        (4 * H, "shift_ended", "ATT-early-01"),
        (10 * H, "shift_ended", "ATT-mid-01"),
        (12 * H, "shift_started", "ATT-night-01"),
        (20 * H, "shift_ended", "ATT-night-01"),
        (20 * H, "shift_started", "ATT-early-01"),
        (26 * H, "shift_started", "ATT-mid-01"),  # Tue 12:00
        (28 * H, "shift_ended", "ATT-early-01"),  # Tue 14:00
    ]


def test_night_shift_over_the_spring_dst_change_is_seven_hours() -> None:
    """Malta, 2026-03-29: 02:00 CET -> 03:00 CEST. Start Sat 28 Mar 12:00 CET (11:00 UTC).

    Night 22:00 CET (21:00 UTC, t = 10 h) -> 06:00 CEST (04:00 UTC, t = 17 h): 7 h on duty.
    The next night 22:00 CEST (20:00 UTC, t = 33 h) -> 06:00 CEST (t = 41 h): 8 h."""
    env, _, sink = staffed(
        datetime(2026, 3, 28, 12, 0), [("night", "22:00", "06:00", {"inspector": 1})]
    )
    env.run(until=48 * H)
    assert duty(sink) == [
        (10 * H, "shift_started", "INS-night-01"),
        (17 * H, "shift_ended", "INS-night-01"),
        (33 * H, "shift_started", "INS-night-01"),
        (41 * H, "shift_ended", "INS-night-01"),
    ]


def test_night_shift_over_the_autumn_dst_change_is_nine_hours() -> None:
    """Malta, 2026-10-25: 03:00 CEST -> 02:00 CET. Start Sat 24 Oct 12:00 CEST (10:00 UTC).

    Night 22:00 CEST (20:00 UTC, t = 10 h) -> 06:00 CET (05:00 UTC, t = 19 h): 9 h on duty;
    a day shift 06:00-14:00 CET follows with no gap (t = 19 h -> 27 h)."""
    env, _, sink = staffed(
        datetime(2026, 10, 24, 12, 0),
        [
            ("night", "22:00", "06:00", {"inspector": 1}),
            ("day", "06:00", "14:00", {"inspector": 1}),
        ],
    )
    env.run(until=30 * H)
    assert duty(sink) == [
        (0.0, "shift_started", "INS-day-01"),
        (2 * H, "shift_ended", "INS-day-01"),
        (10 * H, "shift_started", "INS-night-01"),
        (19 * H, "shift_ended", "INS-night-01"),
        (19 * H, "shift_started", "INS-day-01"),
        (27 * H, "shift_ended", "INS-day-01"),
    ]


def test_round_the_clock_shift_is_on_duty_throughout_with_no_off_on_pairs() -> None:
    """start == end is round the clock: on at t = 0, never off (over three days and a DST
    change, whose 23-hour day would otherwise end a 24-hour period an hour early)."""
    env, _, sink = staffed(
        datetime(2026, 3, 27, 10, 0), [("all", "06:00", "06:00", {"attendant": 1, "inspector": 1})]
    )
    env.run(until=72 * H)
    assert duty(sink) == [
        (0.0, "shift_started", "ATT-all-01"),
        (0.0, "shift_started", "INS-all-01"),
    ]


def test_round_the_clock_handover_with_a_busy_member() -> None:
    """One inspector round the clock from Mon 10:00. Job 1 at 05:00 (t = 19 h) takes 2 h,
    spanning the 06:00 turn of the day; job 2 arrives at 06:00 and must wait for job 1:
    it starts at 07:00 (t = 21 h). Nobody goes off, nothing is lost or done twice."""
    env, staff, sink = staffed(
        datetime(2026, 3, 2, 10, 0), [("all", "06:00", "06:00", {"inspector": 1})]
    )
    env.process(job(env, staff, 19 * H, ("inspector",), 2 * H))
    env.process(job(env, staff, 20 * H, ("inspector",), 1 * H))
    env.run(until=30 * H)
    assert duty(sink) == [(0.0, "shift_started", "INS-all-01")]
    assert jobs(sink) == [
        (19 * H, "job_started", "JOB-000001", ("INS-all-01",)),
        (21 * H, "job_completed", "JOB-000001", ("INS-all-01",)),
        (21 * H, "job_started", "JOB-000002", ("INS-all-01",)),
        (22 * H, "job_completed", "JOB-000002", ("INS-all-01",)),
    ]
    assert staff.open == {}


def test_shift_change_with_a_busy_member_finishes_on_overtime() -> None:
    """day 06-14, evening 14-22, one inspector each; start 10:00.

    Job 1 at 13:00 (t = 3 h) takes 2 h: the day inspector finishes it at 15:00 on an hour of
    overtime, then goes off duty (shift_ended at t = 5 h, not at 14:00). Job 2 (13:30) waits
    for the evening inspector (14:00, t = 4 h) and takes 2 h. Job 3 (14:30) must not go to the
    day inspector finishing at 15:00 (off duty by then): it starts at 16:00 (t = 6 h)."""
    env, staff, sink = staffed(
        datetime(2026, 3, 2, 10, 0),
        [
            ("day", "06:00", "14:00", {"inspector": 1}),
            ("evening", "14:00", "22:00", {"inspector": 1}),
        ],
    )
    env.process(job(env, staff, 3 * H, ("inspector",), 2 * H))
    env.process(job(env, staff, 3.5 * H, ("inspector",), 2 * H))
    env.process(job(env, staff, 4.5 * H, ("inspector",), 1 * H))
    env.run(until=8 * H)
    assert duty(sink) == [
        (0.0, "shift_started", "INS-day-01"),
        (4 * H, "shift_started", "INS-evening-01"),
        (5 * H, "shift_ended", "INS-day-01"),
    ]
    ended = [r for r in sink.records if r.kind == "shift_ended"]
    assert ended[0].overtime_s == 1 * H  # type: ignore[attr-defined]
    assert jobs(sink) == [
        (3 * H, "job_started", "JOB-000001", ("INS-day-01",)),
        (4 * H, "job_started", "JOB-000002", ("INS-evening-01",)),
        (5 * H, "job_completed", "JOB-000001", ("INS-day-01",)),
        (6 * H, "job_completed", "JOB-000002", ("INS-evening-01",)),
        (6 * H, "job_started", "JOB-000003", ("INS-evening-01",)),
        (7 * H, "job_completed", "JOB-000003", ("INS-evening-01",)),
    ]


def test_overtime_into_the_next_duty_period_stays_on_without_an_off_on_pair() -> None:
    """A shift 07:00-06:00 (23 h, an hour's gap). A 3 h job from 04:30 (t = 18.5 h) runs
    past 06:00 and past 07:00 when the next period begins: the member simply stays on."""
    env, staff, sink = staffed(
        datetime(2026, 3, 2, 10, 0), [("long", "07:00", "06:00", {"technician": 1})]
    )
    env.process(job(env, staff, 18.5 * H, ("technician",), 3 * H, kind="repair"))
    env.run(until=45 * H)
    assert duty(sink) == [
        (0.0, "shift_started", "TEC-long-01"),
        (44 * H, "shift_ended", "TEC-long-01"),  # Wed 06:00: the second period's end
    ]
    assert [r.overtime_s for r in sink.records if r.kind == "shift_ended"] == [0.0]  # type: ignore[attr-defined]
    assert staff.idle("technician") == []
