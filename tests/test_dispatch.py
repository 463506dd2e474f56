"""The dispatcher: all-or-nothing seizure, the queue discipline, and operator assignment."""

from __future__ import annotations

from collections.abc import Generator
from datetime import datetime, time
from typing import Any

import pytest
import simpy

from twin.clock import Clock
from twin.jobs import JobSpec
from twin.records import MemorySink, RecordBus
from twin.staff.dispatch import Dispatcher, Shift, slot_names
from twin.staff.roles import DEFAULT_ROLES, Role, display_name
from twin.streams import Streams
from twin.world import World, quantize

CASHIER = Role("cashier", "CSH", "Cashier")


class CheckedDispatcher(Dispatcher):
    """After every dispatch pass, the first automatic job still waiting cannot start: some
    role it needs has no idle member (so nobody idles while the head of the queue waits)."""

    def _dispatch(self) -> None:
        super()._dispatch()
        head = next((j for j in self.waiting if not j.operator), None)
        if head is not None:
            roles = head.spec.roles
            assert not all(len(self.idle(r)) >= roles.count(r) for r in roles), head


def world() -> tuple[World, MemorySink]:
    env = simpy.Environment()
    sink = MemorySink()
    w = World(
        env=env,
        clock=Clock(datetime(2026, 3, 2, 10, 0), "Europe/Malta"),
        streams=Streams(7),
        bus=RecordBus(lambda: env.now, [sink]),
    )
    return w, sink


def crew(staff: Dispatcher, counts: dict[str, int], name: str = "all") -> Shift:
    members = []
    for role, n in counts.items():
        prefix = staff.roles[role].prefix
        for i in range(1, n + 1):
            mid = f"{prefix}-{name}-{i:02d}"
            staff.enlist(mid, role, name)
            members.append(mid)
    return Shift(name, time(6), time(6), tuple(members))


def run_job(
    env: simpy.Environment,
    staff: Dispatcher,
    at: float,
    spec: JobSpec,
    seconds: float,
    log: list[tuple[str, float, float, dict[str, str]]] | None = None,
) -> Generator[simpy.events.Event, Any, None]:
    yield env.timeout(at - env.now)
    handle = staff.request(spec)
    got = yield handle.assigned
    started = env.now
    yield env.timeout(seconds)
    staff.complete(handle)
    if log is not None:
        log.append((handle.id, started, env.now, got))


def test_display_names_are_deterministic_and_use_no_stream() -> None:
    assert display_name("ATT-day-01") == display_name("ATT-day-01")
    names = {display_name(f"ATT-day-{i:02d}") for i in range(1, 30)}
    assert len(names) > 10
    w, sink = world()
    staff = Dispatcher(w)
    staff.enlist("INS-all-01", "inspector", "all")
    w.env.process(staff.keep_roster([Shift("all", time(6), time(6), ("INS-all-01",))]))
    w.env.run(until=1)
    (rec,) = sink.records
    assert rec.payload() == {
        "role": "inspector",
        "shift": "all",
        "member": "INS-all-01",
        "name": display_name("INS-all-01"),
        "employer": "board",
    }


def test_a_job_seizes_every_role_at_once_never_one_then_waits() -> None:
    """One attendant, one inspector. Job A needs the inspector only (0-100 s). Job B needs
    attendant + inspector (requested at 10 s): the attendant is idle, but B takes nobody until
    the inspector is free at 100 s; then both at once. Job C needs the attendant only (20 s):
    it would delay B, so it waits (the attendant is reserved for B) and starts at 150 s."""
    w, sink = world()
    env = w.env
    staff = CheckedDispatcher(w)
    env.process(staff.keep_roster([crew(staff, {"attendant": 1, "inspector": 1})]))
    log: list[tuple[str, float, float, dict[str, str]]] = []
    env.process(run_job(env, staff, 0, JobSpec("x", "M1", ("inspector",)), 100, log))
    env.process(run_job(env, staff, 10, JobSpec("x", "M2", ("attendant", "inspector")), 50, log))
    env.process(run_job(env, staff, 20, JobSpec("x", "M3", ("attendant",)), 5, log))
    env.run(until=1000)
    assert log == [
        ("JOB-000001", 0.0, 100.0, {"inspector": "INS-all-01"}),
        ("JOB-000002", 100.0, 150.0, {"attendant": "ATT-all-01", "inspector": "INS-all-01"}),
        ("JOB-000003", 150.0, 155.0, {"attendant": "ATT-all-01"}),
    ]
    started = [r for r in sink.records if r.kind == "job_started"]
    assert [r.members for r in started] == [  # type: ignore[attr-defined]
        ("INS-all-01",),
        ("ATT-all-01", "INS-all-01"),
        ("ATT-all-01",),
    ]


def test_a_later_job_may_use_surplus_members_an_earlier_job_does_not_need() -> None:
    """Two attendants, one inspector busy until 100 s. Job B (attendant + inspector) waits
    and reserves one attendant; job C (attendant only) takes the other at once."""
    w, _ = world()
    env = w.env
    staff = CheckedDispatcher(w)
    env.process(staff.keep_roster([crew(staff, {"attendant": 2, "inspector": 1})]))
    log: list[tuple[str, float, float, dict[str, str]]] = []
    env.process(run_job(env, staff, 0, JobSpec("x", "M1", ("inspector",)), 100, log))
    env.process(run_job(env, staff, 10, JobSpec("x", "M2", ("attendant", "inspector")), 50, log))
    env.process(run_job(env, staff, 20, JobSpec("x", "M3", ("attendant",)), 5, log))
    env.run(until=1000)
    assert sorted((j, s) for j, s, _, _ in log) == [
        ("JOB-000001", 0.0),
        ("JOB-000002", 100.0),
        ("JOB-000003", 20.0),
    ]


def test_priority_between_kinds_then_fifo_within_a_kind() -> None:
    """One technician busy until 60 s; a door check (t=1), a repair (t=2), another door
    check (t=3), another repair (t=4) wait. Repairs go first (FIFO), then the door checks."""
    w, _ = world()
    env = w.env
    staff = CheckedDispatcher(w)
    env.process(staff.keep_roster([crew(staff, {"technician": 1})]))
    log: list[tuple[str, float, float, dict[str, str]]] = []
    tec = ("technician",)
    env.process(run_job(env, staff, 0, JobSpec("repair", "M0", tec), 60, log))
    for at, kind in ((1, "door_check"), (2, "repair"), (3, "door_check"), (4, "repair")):
        env.process(run_job(env, staff, at, JobSpec(kind, f"M{at}", tec), 10, log))
    env.run(until=1000)
    assert [(j, s) for j, s, _, _ in log] == [
        ("JOB-000001", 0.0),
        ("JOB-000003", 60.0),
        ("JOB-000005", 70.0),
        ("JOB-000002", 80.0),
        ("JOB-000004", 90.0),
    ]


def test_a_job_mix_needing_different_role_sets_never_holds_idle_and_never_deadlocks() -> None:
    """Poisson jobs needing {attendant, inspector}, {technician}, {attendant} and
    {inspector, cashier}, two of each role, for 8 h; then the queue drains. Every job
    completes; no member is ever in two jobs at once; every job's members were seized at
    the same instant (job_started) and the head of the queue never waits while all the
    roles it needs have idle members (CheckedDispatcher)."""
    w, sink = world()
    env = w.env
    staff = CheckedDispatcher(w, (*DEFAULT_ROLES, CASHIER))
    env.process(
        staff.keep_roster(
            [crew(staff, {"attendant": 2, "technician": 2, "inspector": 2, "cashier": 2})]
        )
    )
    mix = (
        ("hand_pay", ("attendant", "inspector")),
        ("repair", ("technician",)),
        ("hopper_fill", ("attendant",)),
        ("count", ("inspector", "cashier")),
    )
    rng = w.streams.stream("test", "mix")
    t = 0.0
    n = 0
    while True:
        t += quantize(rng.exponential(120.0))
        if t > 8 * 3600:
            break
        kind, roles = mix[int(rng.integers(len(mix)))]
        seconds = quantize(rng.exponential(300.0))
        env.process(run_job(env, staff, t, JobSpec(kind, f"M{n}", roles), seconds))
        n += 1
    env.run()
    kinds = [r.kind for r in sink.records]
    assert kinds.count("job_requested") == n
    assert kinds.count("job_started") == n
    assert kinds.count("job_completed") == n
    assert staff.open == {} and staff.waiting == []
    busy: dict[str, str] = {}
    for r in sink.records:
        if r.kind == "job_started":
            assert len(r.members) == len(r.roles)  # type: ignore[attr-defined]
            for mid in r.members:  # type: ignore[attr-defined]
                assert mid not in busy, (mid, busy[mid], r)
                busy[mid] = r.job_id  # type: ignore[attr-defined]
        elif r.kind == "job_completed":
            for mid in r.members:  # type: ignore[attr-defined]
                assert busy.pop(mid) == r.job_id  # type: ignore[attr-defined]
    assert busy == {}


class WalkingDispatcher(Dispatcher):
    """The queue discipline as the module docstring states it: walk every waiting job in
    order (the reference for the indexed pass of ``Dispatcher._dispatch``; each job's step,
    take or reserve, is the dispatcher's own)."""

    def _dispatch(self) -> None:
        free = {r: len(ids) for r, ids in self._idle.items() if ids}
        starting: list[tuple[Any, dict[str, str]]] = []
        taken: dict[str, int] = {}
        for job in self.waiting:
            if not free:
                break
            if job.operator or free.keys().isdisjoint(job.need):
                continue
            self._take_or_reserve(job, free, taken, starting)
        for job, picks in starting:
            self._start(job, picks, by="dispatcher")


def _busy_day(cls: type[Dispatcher], seed: int) -> list[tuple[str, float, dict[str, Any]]]:
    """Jobs of six role sets (a role named twice among them), bursts of a drop run of 40
    jobs, operator jobs assigned later, shifts changing hands; every record of the day."""
    w, sink = world()
    env = w.env
    staff = cls(w, (*DEFAULT_ROLES, CASHIER), operator=("count",))
    day = crew(staff, {"attendant": 3, "technician": 2, "inspector": 2, "cashier": 1}, "day")
    night = crew(staff, {"attendant": 1, "inspector": 1, "cashier": 1}, "night")
    env.process(
        staff.keep_roster(
            [
                Shift("day", time(10), time(18), day.members),
                Shift("night", time(17), time(10), night.members),
            ]
        )
    )
    mix = (
        ("hand_pay", ("inspector", "attendant", "inspector")),
        ("repair", ("technician",)),
        ("hopper_fill", ("attendant",)),
        ("drop_collection", ("attendant", "inspector")),
        ("count", ("inspector", "cashier")),
        ("door_check", ("technician", "attendant")),
    )
    rng = Streams(seed).stream("test", "mix")

    def assign_later(job_id: str) -> Generator[simpy.events.Event, Any, None]:
        while job_id in staff.open and staff.open[job_id].started_t is None:
            yield env.timeout(600)
            job = staff.open[job_id]
            picks = {}
            for place in slot_names(job.spec.roles):
                idle = [m for m in staff.idle(place.split("#")[0]) if m not in picks.values()]
                if not idle:
                    break
                picks[place] = idle[0]
            else:
                staff.assign(job_id, picks)

    def operator_job(at: float, spec: JobSpec) -> Generator[simpy.events.Event, Any, None]:
        yield env.timeout(at - env.now)
        handle = staff.request(spec)
        env.process(assign_later(handle.id))
        yield handle.assigned
        yield env.timeout(300)
        staff.complete(handle)

    t = 0.0
    n = 0
    while t < 14 * 3600:
        t += quantize(rng.exponential(90.0))
        kind, roles = mix[int(rng.integers(len(mix)))]
        burst = 40 if kind == "drop_collection" and rng.random() < 0.1 else 1
        for _ in range(burst):
            spec = JobSpec(kind, f"M{n}", roles)
            if kind == "count":
                env.process(operator_job(t, spec))
            else:
                env.process(run_job(env, staff, t, spec, quantize(rng.exponential(400.0))))
            n += 1
    env.run(until=30 * 3600)
    return [(r.kind, r.t, r.payload()) for r in sink.records]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_indexed_pass_starts_what_walking_the_whole_queue_starts(seed: int) -> None:
    """The dispatcher walks only the waiting jobs that need a role with somebody idle; on a
    busy day of overlapping role sets, drop runs, operator jobs and shift changes, every
    record (who starts which job, when) equals that of walking every waiting job."""
    got = _busy_day(Dispatcher, seed)
    assert got == _busy_day(WalkingDispatcher, seed)
    kinds = [k for k, _, _ in got]
    assert kinds.count("job_started") > 300
    assert kinds.count("job_requested") > kinds.count("job_started")  # some still queue


def test_a_job_needing_no_role_starts_at_once() -> None:
    w, _ = world()
    staff = Dispatcher(w)
    handle = staff.request(JobSpec("hand_pay", "M1", ()))
    assert handle.assigned.triggered and handle.assigned.value == {}


def test_a_job_naming_a_role_twice_needs_two_members_of_it() -> None:
    """A hand pay two inspectors must sign: ("attendant", "inspector", "inspector"). Two
    inspectors, one busy until 100 s with job A: the hand pay B (at 10 s) takes nobody until
    both are idle, then all three at once, the second inspector in the place "inspector#2".
    Meanwhile B reserves the idle inspector, so a later hopper fill C (attendant + inspector,
    lower priority) waits for B to finish."""
    w, sink = world()
    env = w.env
    staff = CheckedDispatcher(w)
    env.process(staff.keep_roster([crew(staff, {"attendant": 2, "inspector": 2})]))
    log: list[tuple[str, float, float, dict[str, str]]] = []
    env.process(run_job(env, staff, 0, JobSpec("repair", "M1", ("inspector",)), 100, log))
    two = ("attendant", "inspector", "inspector")
    env.process(run_job(env, staff, 10, JobSpec("hand_pay", "M2", two), 50, log))
    fill = ("attendant", "inspector")
    env.process(run_job(env, staff, 20, JobSpec("hopper_fill", "M3", fill), 5, log))
    env.run(until=1000)
    assert log == [
        ("JOB-000001", 0.0, 100.0, {"inspector": "INS-all-01"}),
        ("JOB-000002", 100.0, 150.0, {"attendant": "ATT-all-01", "inspector": "INS-all-02",
                                      "inspector#2": "INS-all-01"}),
        ("JOB-000003", 150.0, 155.0, {"attendant": "ATT-all-02", "inspector": "INS-all-02"}),
    ]  # fmt: skip
    started = [r for r in sink.records if r.kind == "job_started"]
    assert started[1].roles == two  # type: ignore[attr-defined]
    assert started[1].members == ("ATT-all-01", "INS-all-02", "INS-all-01")  # type: ignore[attr-defined]
    done = [r for r in sink.records if r.kind == "job_completed"]
    assert done[1].members == ("ATT-all-01", "INS-all-02", "INS-all-01")  # type: ignore[attr-defined]


def test_a_job_needing_more_members_of_a_role_than_exist_waits_and_holds_them() -> None:
    """One inspector on the floor: a two-inspector hand pay never starts, and it holds the
    inspector, so the fill behind it never starts either (no job jumps the head of the queue
    with a member the head needs)."""
    w, _ = world()
    env = w.env
    staff = Dispatcher(w)
    env.process(staff.keep_roster([crew(staff, {"attendant": 2, "inspector": 1})]))
    env.run(until=1)
    hp = staff.request(JobSpec("hand_pay", "M1", ("attendant", "inspector", "inspector")))
    fill = staff.request(JobSpec("hopper_fill", "M2", ("attendant", "inspector")))
    env.run(until=100)
    assert not hp.assigned.triggered and not fill.assigned.triggered


def test_an_operator_staffs_the_second_place_of_a_role_by_its_name() -> None:
    w, sink = world()
    staff = Dispatcher(w, operator=("hand_pay",))
    w.env.process(staff.keep_roster([crew(staff, {"attendant": 1, "inspector": 2})]))
    w.env.run(until=1)
    hp = staff.request(JobSpec("hand_pay", "M1", ("attendant", "inspector", "inspector")))
    assert staff.assign(hp.id, {"attendant": "ATT-all-01", "inspector": "INS-all-01"}) == (
        "JOB-000001: needs roles ['attendant', 'inspector', 'inspector#2'], given "
        "['attendant', 'inspector']"
    )
    same = {"attendant": "ATT-all-01", "inspector": "INS-all-01", "inspector#2": "INS-all-01"}
    assert staff.assign(hp.id, same) == "JOB-000001: one member named for two roles"
    wrong = {"attendant": "INS-all-02", "inspector": "INS-all-01", "inspector#2": "ATT-all-01"}
    assert staff.assign(hp.id, wrong) == "JOB-000001: INS-all-02 has role inspector, not attendant"
    wrong = {"attendant": "ATT-all-01", "inspector": "INS-all-01", "inspector#2": "ATT-all-02"}
    assert staff.assign(hp.id, wrong) == "JOB-000001: ATT-all-02 is not on the staff"
    assert not sink.records[-1].kind.startswith("job_started")
    ok = {"attendant": "ATT-all-01", "inspector": "INS-all-01", "inspector#2": "INS-all-02"}
    assert staff.assign(hp.id, ok) is None
    w.env.run(until=2)
    assert hp.assigned.value == ok


def operator_floor() -> tuple[World, MemorySink, Dispatcher]:
    w, sink = world()
    staff = Dispatcher(w, operator=("hand_pay",))
    day = crew(staff, {"attendant": 2, "inspector": 1})
    staff.enlist("INS-night-01", "inspector", "night")
    night = Shift("night", time(22), time(6), ("INS-night-01",))
    w.env.process(staff.keep_roster([day, night]))
    w.env.run(until=1)
    return w, sink, staff


def test_operator_mode_jobs_wait_for_an_assignment() -> None:
    w, sink, staff = operator_floor()
    env = w.env
    hp = staff.request(JobSpec("hand_pay", "M1", ("attendant", "inspector")))
    fill = staff.request(JobSpec("hopper_fill", "M2", ("attendant",)))
    env.run(until=100)
    assert not hp.assigned.triggered  # operator mode: nobody is sent
    assert fill.assigned.value == {"attendant": "ATT-all-01"}  # automatic kind
    assert staff.assign(hp.id, {"attendant": "ATT-all-02", "inspector": "INS-all-01"}) is None
    env.run(until=101)
    assert hp.assigned.value == {"attendant": "ATT-all-02", "inspector": "INS-all-01"}
    started = [r for r in sink.records if r.kind == "job_started"]
    assert [r.by for r in started] == ["dispatcher", "operator"]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("job", "assignment", "reason"),
    [
        ("JOB-999999", {"attendant": "ATT-all-02"}, "JOB-999999: no such open job"),
        (
            "hp",
            {"attendant": "ATT-all-02"},
            "JOB-000001: needs roles ['attendant', 'inspector'], given ['attendant']",
        ),
        (
            "hp",
            {"attendant": "ATT-all-02", "inspector": "ATT-all-02"},
            "JOB-000001: one member named for two roles",
        ),
        (
            "hp",
            {"attendant": "INS-all-01", "inspector": "ATT-all-02"},
            "JOB-000001: INS-all-01 has role inspector, not attendant",
        ),
        (
            "hp",
            {"attendant": "ATT-all-02", "inspector": "INS-night-01"},
            "JOB-000001: INS-night-01 is not on duty",
        ),
        (
            "hp",
            {"attendant": "ATT-all-02", "inspector": "NOBODY"},
            "JOB-000001: NOBODY is not on the staff",
        ),
        (
            "hp",
            {"attendant": "ATT-all-01", "inspector": "INS-all-01"},
            "JOB-000001: ATT-all-01 is busy with JOB-000002",
        ),
        ("done", {"attendant": "ATT-all-02"}, "JOB-000002: already started"),
    ],
)
def test_operator_assignments_are_refused_with_a_reason(
    job: str, assignment: dict[str, str], reason: str
) -> None:
    """``assign`` never raises on bad input: it says why, and nothing changes. The hand pay
    (JOB-000001) is in operator mode; the fill (JOB-000002) was dispatched automatically to
    ATT-all-01; INS-night-01 is off duty at 10:00."""
    _, sink, staff = operator_floor()
    hp = staff.request(JobSpec("hand_pay", "M1", ("attendant", "inspector")))
    fill = staff.request(JobSpec("hopper_fill", "M2", ("attendant",)))
    assert fill.assigned.value == {"attendant": "ATT-all-01"}
    before = len(sink.records)
    jid = {"hp": hp.id, "done": fill.id}.get(job, job)
    assert staff.assign(jid, assignment) == reason
    assert len(sink.records) == before
    assert not hp.assigned.triggered


def test_machines_do_not_import_staff() -> None:
    """The seam: machines speak ``twin.jobs``; only the assembly knows staff."""
    from conftest import REPO
    from test_architecture import imported_names

    for path in sorted((REPO / "twin" / "machines").rglob("*.py")):
        for line, name in imported_names(path):
            assert not name.startswith("twin.staff"), f"{path}:{line} imports {name}"


# -- licences (issue 28): who may work, in which role ----------------------------------------


def _duty(sink: MemorySink) -> list[tuple[str, float, str, str]]:
    return [(r.kind, r.t, r.member, r.role) for r in sink.records  # type: ignore[attr-defined]
            if r.kind in ("shift_started", "shift_ended", "duty_missed")]  # fmt: skip


def test_a_barred_member_leaves_at_once_and_comes_back_when_admitted() -> None:
    """Two attendants; ATT-all-01 is barred at 50 s (idle): off duty at once; a job at 60 s
    takes ATT-all-02; admitted at 200 s, ATT-all-01 is on duty again (the shift is on)."""
    w, sink = world()
    env = w.env
    staff = CheckedDispatcher(w)
    env.process(staff.keep_roster([crew(staff, {"attendant": 2})]))
    log: list[tuple[str, float, float, dict[str, str]]] = []

    def licence() -> Generator[simpy.events.Event, Any, None]:
        yield env.timeout(50)
        staff.bar("ATT-all-01", "licence suspended")
        yield env.timeout(150)
        staff.admit("ATT-all-01")

    env.process(licence())
    env.process(run_job(env, staff, 60, JobSpec("x", "M1", ("attendant",)), 10, log))
    env.run(until=300)
    assert _duty(sink) == [
        ("shift_started", 0.0, "ATT-all-01", "attendant"),
        ("shift_started", 0.0, "ATT-all-02", "attendant"),
        ("shift_ended", 50.0, "ATT-all-01", "attendant"),
        ("shift_started", 200.0, "ATT-all-01", "attendant"),
    ]
    assert log == [("JOB-000001", 60.0, 70.0, {"attendant": "ATT-all-02"})]
    assert staff.refusal("JOB-000001", {"attendant": "ATT-all-01"}) is not None


def test_a_member_barred_during_a_job_finishes_it_then_leaves() -> None:
    w, sink = world()
    env = w.env
    staff = CheckedDispatcher(w)
    env.process(staff.keep_roster([crew(staff, {"attendant": 1})]))
    log: list[tuple[str, float, float, dict[str, str]]] = []
    env.process(run_job(env, staff, 0, JobSpec("x", "M1", ("attendant",)), 100, log))
    env.process(run_job(env, staff, 10, JobSpec("x", "M2", ("attendant",)), 5, log))

    def bar() -> Generator[simpy.events.Event, Any, None]:
        yield env.timeout(30)
        staff.bar("ATT-all-01", "no licence in force")

    env.process(bar())
    env.run(until=500)
    assert log == [("JOB-000001", 0.0, 100.0, {"attendant": "ATT-all-01"})]
    assert _duty(sink)[-1] == ("shift_ended", 100.0, "ATT-all-01", "attendant")
    assert [j.id for j in staff.waiting] == ["JOB-000002"]  # the floor waits
    reason = staff.refusal("JOB-000002", {"attendant": "ATT-all-01"})
    assert reason == "JOB-000002: ATT-all-01 may not work: no licence in force"


def test_a_member_changes_role_when_idle_or_once_the_job_in_hand_is_done() -> None:
    """ATT-all-01 covers a technician from 50 s (idle: at once) and goes back at 120 s, in a
    job then: back once it is done (at 150 s); the technicians' job at 60 s takes them."""
    w, sink = world()
    env = w.env
    staff = CheckedDispatcher(w)
    env.process(staff.keep_roster([crew(staff, {"attendant": 1})]))
    log: list[tuple[str, float, float, dict[str, str]]] = []

    def cover() -> Generator[simpy.events.Event, Any, None]:
        yield env.timeout(50)
        staff.set_role("ATT-all-01", "technician")
        yield env.timeout(70)
        staff.set_role("ATT-all-01", "attendant")

    env.process(cover())
    env.process(run_job(env, staff, 60, JobSpec("x", "M1", ("technician",)), 90, log))
    env.run(until=500)
    assert log == [("JOB-000001", 60.0, 150.0, {"technician": "ATT-all-01"})]
    assert _duty(sink) == [
        ("shift_started", 0.0, "ATT-all-01", "attendant"),
        ("shift_ended", 50.0, "ATT-all-01", "attendant"),
        ("shift_started", 50.0, "ATT-all-01", "technician"),
        ("shift_ended", 150.0, "ATT-all-01", "technician"),
        ("shift_started", 150.0, "ATT-all-01", "attendant"),
    ]


def test_a_member_who_may_not_work_misses_the_duty_with_the_reason() -> None:
    """A hire on the roster before employment starts: each time their shift comes on, a
    duty missed with the reason and the shift's length; admitted, they come on duty."""
    w, sink = world()
    env = w.env
    staff = Dispatcher(w)
    staff.enlisted("ATT-day-01", "attendant", "day", barred="employment not begun")
    shift = Shift("day", time(6), time(14), ("ATT-day-01",))
    env.process(staff.keep_roster([shift]))

    def employ() -> Generator[simpy.events.Event, Any, None]:
        yield env.timeout(30 * 3600)  # Tuesday 16:00: the shift is off
        staff.admit("ATT-day-01")

    env.process(employ())
    env.run(until=53 * 3600)
    got = [(r.kind, r.t, r.payload().get("reason"), r.payload().get("hours")) for r in sink.records]
    assert got == [  # Monday 10:00 (the shift is on), Tuesday 06:00, then Wednesday at work
        ("duty_missed", 0.0, "employment not begun", 8.0),
        ("duty_missed", 72000.0, "employment not begun", 8.0),
        ("shift_started", 158400.0, None, None),
        ("shift_ended", 187200.0, None, None),
    ]
