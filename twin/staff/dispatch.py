"""The dispatcher: the one place that knows who is on duty and who can do what.

It implements ``twin.jobs.Service``: a machine files a ``JobSpec`` naming the roles
the job needs together (a role named twice needs two members of it: a hand pay two Board
inspectors must sign); the dispatcher seizes an idle on-duty member for every place at the
same instant (all or nothing) and fires the handle's ``assigned`` event with
``{place: member}``, a place being the role id, or ``<role>#2``, ``<role>#3``... for the
second and later members of one role. Nobody is ever seized while waiting for someone else.

Queue discipline
----------------
Waiting jobs are ordered by the priority of their kind (default ``hand_pay > hopper_fill >
repair > door_check``; kinds not listed come last), then by request order (FIFO within a
kind). Whenever anything changes (a request, a completion, a member on or off duty, an
operator's assignment) the dispatcher walks the waiting jobs in that order, counting the idle
members of every role:

- a job whose every place has an idle member left starts now, taking them;
- a job that cannot start *reserves* the idle members of every role it needs (up to as many
  as it needs of each), so no job behind it may take them.

So a later job starts before an earlier one only with members the earlier one does not need
(surplus members of other roles, or surplus members of a role beyond the earlier jobs'
needs). A multi-role job is never starved by later single-role jobs: every member of a role
it needs who becomes idle is held for it (or for a job ahead of it). Priorities between kinds
are strict: under sustained overload a low-priority kind may wait indefinitely.

Operator mode (per job kind) takes those jobs out of the automatic pass: they neither start
nor reserve until ``assign(job_id, {place: member})`` is called. ``assign`` never raises on bad
input; it returns the reason for a refusal (``None`` when accepted).

Duty
----
``keep_roster`` brings shifts on and off duty. At an instant where shifts change hands, every
member going off duty leaves before anyone comes on, and the waiting jobs are dispatched once
afterwards, so a handover neither loses nor duplicates a job. A member whose shift ends during
a job finishes it on overtime and then goes off duty (``ShiftEnded.overtime_s``); a member whose
next duty period begins before they leave simply stays on (no off/on pair). A round-the-clock
shift (start == end) comes on once and never goes off.
"""

from __future__ import annotations

import bisect
import heapq
from collections import Counter
from collections.abc import Generator, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import time
from typing import Any

import simpy

from twin.jobs import DOOR_CHECK, HAND_PAY, HOPPER_FILL, REPAIR, JobSpec
from twin.staff.records import (
    DutyMissed,
    JobCompleted,
    JobRequested,
    JobStarted,
    ShiftEnded,
    ShiftStarted,
)
from twin.staff.roles import DEFAULT_ROLES, Role, display_name
from twin.world import World

DEFAULT_PRIORITY: tuple[str, ...] = (HAND_PAY, HOPPER_FILL, REPAIR, DOOR_CHECK)


@dataclass(frozen=True, slots=True)
class Shift:
    """A shift's hours (local wall time; end <= start wraps midnight) and its members."""

    name: str
    start: time
    end: time
    members: tuple[str, ...]

    @property
    def round_the_clock(self) -> bool:
        return self.start == self.end


def slot_names(roles: Sequence[str]) -> tuple[str, ...]:
    """The names of a job's places, one per entry of ``roles``: a role's first place is the
    role id, its second ``<role>#2``, and so on (two inspectors: "inspector", "inspector#2")."""
    seen: dict[str, int] = {}
    out: list[str] = []
    for r in roles:
        seen[r] = seen.get(r, 0) + 1
        out.append(r if seen[r] == 1 else f"{r}#{seen[r]}")
    return tuple(out)


def _order(job: Job) -> tuple[int, int]:
    return job.order


def slot_role(slot: str) -> str:
    return slot.split("#", 1)[0]


@dataclass(eq=False)
class Job:
    """A filed job (the ``JobHandle`` the machine holds). ``members`` maps each of its
    places (``slot_names(spec.roles)``) to the member who fills it."""

    id: str
    spec: JobSpec
    assigned: simpy.Event
    order: tuple[int, int]  # (priority, request sequence)
    operator: bool
    requested_t: float
    members: dict[str, str] = field(default_factory=dict)
    started_t: float | None = None
    #: members each role needs (a role named twice needs two), derived from the spec
    need: dict[str, int] = field(init=False)

    def __post_init__(self) -> None:
        self.need = dict(Counter(self.spec.roles))


@dataclass(eq=False)
class Member:
    id: str
    role: str
    shift: str
    name: str
    on_duty: bool = False
    job: str | None = None
    shift_ended_t: float | None = None  # set while finishing a job on overtime
    #: the member's shift is on now (whether or not the member may work it)
    rostered: bool = False
    #: why the member may not work now (no licence in force, employment not begun or ended);
    #: None when they may (``bar``/``admit``)
    barred: str | None = None
    #: a role to take up once the job in hand is done (``set_role`` during a job)
    next_role: str | None = None


class Dispatcher:
    """Staffs jobs from the members on duty (see the module docstring for the rules)."""

    def __init__(
        self,
        world: World,
        roles: Iterable[Role] = DEFAULT_ROLES,
        *,
        priority: Sequence[str] = DEFAULT_PRIORITY,
        operator: Iterable[str] = (),
    ) -> None:
        self.world = world
        self.env = world.env
        self.roles: dict[str, Role] = {r.id: r for r in roles}
        self.priority = {kind: i for i, kind in enumerate(priority)}
        self.operator_kinds = frozenset(operator)
        self.members: dict[str, Member] = {}
        self._idle: dict[str, dict[str, None]] = {r: {} for r in self.roles}  # FIFO by idle time
        self._on: dict[str, set[str]] = {r: set() for r in self.roles}  # on duty, by role
        self._first: dict[str, str] = {}  # role -> the first of its members on duty, as asked
        self.waiting: list[Job] = []  # sorted by Job.order
        # the automatic jobs of ``waiting`` that need each role, in the same order: a pass
        # walks only the jobs that need a role with somebody idle (see _dispatch)
        self._waiting_for: dict[str, list[Job]] = {}
        self.open: dict[str, Job] = {}  # waiting or in service
        self._hours: dict[str, float] = {}  # a shift's length, hours (set by keep_roster)
        self._count = 0

    # -- people ----------------------------------------------------------------------------
    def enlist(self, member: str, role: str, shift: str) -> None:
        """Register a member of ``role`` on ``shift`` (not yet on duty)."""
        if role not in self.roles:
            raise ValueError(f"unknown role {role!r} (roles: {sorted(self.roles)})")
        self.members[member] = Member(member, role, shift, display_name(member))

    def on_duty(self, role: str) -> list[str]:
        """Members of ``role`` on duty now (overtime included), sorted by id."""
        return sorted(self._on.get(role, ()))

    def first_on_duty(self, role: str) -> str:
        """The first of ``on_duty(role)`` ("" when nobody of ``role`` is on duty)."""
        first = self._first.get(role)
        if first is None:  # (forgotten whenever someone of the role comes on or goes off)
            on = self._on.get(role)
            first = self._first[role] = min(on) if on else ""
        return first

    def idle(self, role: str) -> list[str]:
        """Idle members of ``role`` on duty, in the order they became idle."""
        return list(self._idle.get(role, ()))

    def come_on(self, member_id: str) -> None:
        m = self.members[member_id]
        m.rostered = True
        if m.barred is not None:
            self.world.bus.emit(
                DutyMissed, role=m.role, shift=m.shift, member=m.id, reason=m.barred,
                hours=self._hours.get(m.shift, 0.0),
            )  # fmt: skip
            return
        if m.on_duty:
            m.shift_ended_t = None  # the next duty period began during overtime: stay on
            return
        self._arrive(m)

    def _arrive(self, m: Member) -> None:
        m.on_duty = True
        self._on[m.role].add(m.id)
        self._first.pop(m.role, None)
        role = self.roles[m.role]
        self.world.bus.emit(
            ShiftStarted,
            role=m.role,
            shift=m.shift,
            member=m.id,
            name=m.name,
            employer=role.employer,
        )
        self._idle[m.role][m.id] = None

    def go_off(self, member_id: str) -> None:
        m = self.members[member_id]
        m.rostered = False
        if not m.on_duty or m.shift_ended_t is not None:
            return
        if m.job is not None:
            m.shift_ended_t = self.env.now  # finishes the job in hand on overtime
            return
        self._leave(m)

    def _leave(self, m: Member) -> None:
        overtime = 0.0 if m.shift_ended_t is None else self.env.now - m.shift_ended_t
        m.on_duty = False
        self._on[m.role].discard(m.id)
        self._first.pop(m.role, None)
        m.shift_ended_t = None
        self._idle[m.role].pop(m.id, None)
        self.world.bus.emit(
            ShiftEnded, role=m.role, shift=m.shift, member=m.id, overtime_s=overtime
        )

    # -- licences (the licensing department): who may work, and in which role -------------
    def enlisted(self, member: str, role: str, shift: str, *, barred: str) -> None:
        """Register a member who may not work yet (a new hire: ``barred`` says why)."""
        self.enlist(member, role, shift)
        self.members[member].barred = barred

    def bar(self, member_id: str, reason: str) -> None:
        """``member_id`` may not work from now (a licence suspended, cancelled or lapsed,
        employment ended): off duty at once if idle, else once the job in hand is done (that
        job was started while the licence was in force)."""
        m = self.members[member_id]
        m.barred = reason
        if m.on_duty and m.job is None:
            self._leave(m)

    def admit(self, member_id: str) -> None:
        """``member_id`` may work again (a licence issued or renewed, a suspension over):
        on duty now if their shift is on."""
        m = self.members[member_id]
        if m.barred is None:
            return
        m.barred = None
        if m.rostered and not m.on_duty:
            self._arrive(m)
            self._dispatch()

    def set_role(self, member_id: str, role: str) -> None:
        """``member_id`` works as ``role`` from now on (a variation of functions, temporary
        work in another grade, and back): on duty, they leave the old role and take up the
        new one at once if idle, else once the job in hand is done."""
        if role not in self.roles:
            raise ValueError(f"unknown role {role!r} (roles: {sorted(self.roles)})")
        m = self.members[member_id]
        if role == m.role:
            m.next_role = None
            return
        if not m.on_duty:
            m.role = role
            return
        if m.job is not None:
            m.next_role = role
            return
        self._leave(m)
        m.role = role
        self._arrive(m)
        self._dispatch()

    def keep_roster(self, shifts: Sequence[Shift]) -> Generator[simpy.events.Event, Any, None]:
        """Bring every shift on and off duty for the whole run (one process for all shifts)."""
        env = self.env
        clock = self.world.clock
        local = clock.at(env.now).time()
        for s in shifts:
            span = (s.end.hour * 60 + s.end.minute) - (s.start.hour * 60 + s.start.minute)
            self._hours[s.name] = (span % 1440 or 1440) / 60.0
        for s in shifts:
            if _within(s.start, s.end, local):
                for mid in s.members:
                    self.come_on(mid)
        self._dispatch()
        changing = [s for s in shifts if not s.round_the_clock]
        while changing:
            now = env.now
            ends = {id(s): clock.next_local(now, s.end) for s in changing}
            starts = {id(s): clock.next_local(now, s.start) for s in changing}
            at = min(min(ends.values()), min(starts.values()))
            yield env.timeout(at - now)
            for s in changing:  # everyone leaving goes before anyone arrives
                if ends[id(s)] == at:
                    for mid in s.members:
                        self.go_off(mid)
            for s in changing:
                if starts[id(s)] == at:
                    for mid in s.members:
                        self.come_on(mid)
            self._dispatch()

    # -- jobs (the Service protocol) -------------------------------------------------------------
    def request(self, spec: JobSpec) -> Job:
        """File a job; its ``assigned`` event fires with ``{place: member}`` when it starts
        (a role named twice has two places: "inspector" and "inspector#2")."""
        self._count += 1
        prio = self.priority.get(spec.kind, len(self.priority))
        operator = spec.kind in self.operator_kinds and bool(spec.roles)
        job = Job(
            id=f"JOB-{self._count:06d}",
            spec=spec,
            assigned=self.env.event(),
            order=(prio, self._count),
            operator=operator,
            requested_t=self.env.now,
        )
        self.open[job.id] = job
        bisect.insort(self.waiting, job, key=_order)
        if not operator:
            for r in job.need:
                bisect.insort(self._waiting_for.setdefault(r, []), job, key=_order)
        self.world.bus.emit(
            JobRequested,
            job_id=job.id,
            job_kind=spec.kind,
            machine=spec.machine,
            roles=spec.roles,
            mode="operator" if operator else "automatic",
        )
        if not spec.roles:
            self._start(job, {}, by="dispatcher")  # nobody needed (an injected violation)
        else:
            self._dispatch()
        return job

    def complete(self, handle: Any) -> None:
        """The job is done: its members are free (or go home, if their shift is over)."""
        job = self.open.pop(handle.id, None)
        if job is None or job.started_t is None:
            raise ValueError(f"{handle.id} is not a job in service")
        members = tuple(job.members[p] for p in slot_names(job.spec.roles))
        self.world.bus.emit(
            JobCompleted,
            job_id=job.id,
            job_kind=job.spec.kind,
            machine=job.spec.machine,
            members=members,
            requested_t=job.requested_t,
            started_t=job.started_t,
        )
        for mid in members:
            m = self.members[mid]
            m.job = None
            role, m.next_role = m.next_role, None
            if m.shift_ended_t is not None or m.barred is not None:
                self._leave(m)
                m.role = role or m.role
            elif role is not None:
                self._leave(m)
                m.role = role
                self._arrive(m)
            else:
                self._idle[m.role][m.id] = None
        self._dispatch()

    def assign(self, job_id: str, assignment: Mapping[str, str]) -> str | None:
        """An operator staffs a waiting job. Returns None if accepted, else the reason why not."""
        reason = self.refusal(job_id, assignment)
        if reason is not None:
            return reason
        job = self.open[job_id]
        self._start(job, {p: assignment[p] for p in slot_names(job.spec.roles)}, by="operator")
        self._dispatch()
        return None

    def refusal(self, job_id: str, assignment: Mapping[str, str]) -> str | None:
        """Why ``assign(job_id, assignment)`` would be refused now, or None if it would not."""
        job = self.open.get(job_id)
        if job is None:
            return f"{job_id}: no such open job"
        if job.started_t is not None:
            return f"{job_id}: already started"
        needed = set(slot_names(job.spec.roles))
        given = set(assignment)
        if given != needed:
            return f"{job_id}: needs roles {sorted(needed)}, given {sorted(given)}"
        if len(set(assignment.values())) != len(assignment):
            return f"{job_id}: one member named for two roles"
        for place in sorted(needed):
            role = slot_role(place)
            mid = assignment[place]
            m = self.members.get(mid)
            if m is None:
                return f"{job_id}: {mid} is not on the staff"
            if m.role != role:
                return f"{job_id}: {mid} has role {m.role}, not {role}"
            if m.barred is not None:
                return f"{job_id}: {mid} may not work: {m.barred}"
            if not m.on_duty or m.shift_ended_t is not None:
                return f"{job_id}: {mid} is not on duty"
            if m.job is not None:
                return f"{job_id}: {mid} is busy with {m.job}"
        return None

    def _dispatch(self) -> None:
        """Start every waiting job that can start under the queue discipline.

        The pass walks the waiting jobs in order, but only those that need a role with an
        idle member not yet taken or reserved: a job needing none of them neither starts nor
        reserves anybody, so skipping it changes nothing. The jobs are merged in order from
        the per-role lists of the roles still free; a role's list is dropped as soon as the
        role is not (a drop run of hundreds of jobs waiting for two inspectors is not walked
        on every completion)."""
        if not self.waiting:
            return
        # roles with somebody idle; a role leaves when its last idle member is taken or
        # reserved, and the pass stops when none is left
        free = {r: len(ids) for r, ids in self._idle.items() if ids}
        waiting_for = self._waiting_for
        heads = [(jobs[0].order, r, 0) for r in free if (jobs := waiting_for.get(r))]
        heapq.heapify(heads)
        starting: list[tuple[Job, dict[str, str]]] = []
        taken: dict[str, int] = {}
        last: Job | None = None
        while heads and free:
            _, role, i = heads[0]
            if role not in free:
                heapq.heappop(heads)  # its jobs matter now only through their other roles
                continue
            jobs = waiting_for[role]
            job = jobs[i]
            if i + 1 < len(jobs):
                heapq.heapreplace(heads, (jobs[i + 1].order, role, i + 1))
            else:
                heapq.heappop(heads)
            if job is last:
                continue  # the same job reached through a second role it needs
            last = job
            self._take_or_reserve(job, free, taken, starting)
        for job, picks in starting:
            self._start(job, picks, by="dispatcher")

    def _take_or_reserve(
        self,
        job: Job,
        free: dict[str, int],
        taken: dict[str, int],
        starting: list[tuple[Job, dict[str, str]]],
    ) -> None:
        """One step of a pass: ``job`` takes an idle member for each of its places (to start
        after the pass) if every role it needs has enough left in ``free``; otherwise it
        reserves them, so that nobody behind it takes them. ``free``: idle members per role
        not yet taken or reserved (a role leaves when none is left); ``taken``: members
        taken per role so far, in idle order."""
        need = job.need
        if all(free.get(r, 0) >= n for r, n in need.items()):
            picks = {}
            roles = job.spec.roles
            for place, r in zip(slot_names(roles), roles, strict=True):
                k = taken.get(r, 0)
                picks[place] = list(self._idle[r])[k]
                taken[r] = k + 1
                free[r] -= 1
                if not free[r]:
                    del free[r]
            starting.append((job, picks))
        else:
            for r, n in need.items():  # reserve: nobody behind this job takes them
                if free.get(r, 0) > n:
                    free[r] -= n
                else:
                    free.pop(r, None)

    def _start(self, job: Job, picks: dict[str, str], by: str) -> None:
        self.waiting.remove(job)
        if not job.operator:
            for r in job.need:
                self._waiting_for[r].remove(job)
        job.members = picks
        job.started_t = self.env.now
        for mid in picks.values():
            m = self.members[mid]
            m.job = job.id
            del self._idle[m.role][mid]
        members = tuple(picks[p] for p in slot_names(job.spec.roles))
        self.world.bus.emit(
            JobStarted,
            job_id=job.id,
            job_kind=job.spec.kind,
            machine=job.spec.machine,
            roles=job.spec.roles,
            members=members,
            requested_t=job.requested_t,
            by=by,
        )
        job.assigned.succeed(dict(picks))


def _within(start: time, end: time, now: time) -> bool:
    if start == end:
        return True
    if start < end:
        return start <= now < end
    return now >= start or now < end


__all__ = ["DEFAULT_PRIORITY", "Dispatcher", "Job", "Member", "Shift", "slot_names"]
