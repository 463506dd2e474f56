"""Staff KPIs from records alone: job waits per kind and utilisation per role.

``StaffKpis`` is a sink: it reads ``shift_started``/``shift_ended`` and the ``job_*`` records
(so a ledger alone can rebuild the figures) and ``report(end_t)`` returns a typed result.

Per job kind: the queue wait (request -> start), the service time (start -> completion) and
the time to completion (request -> completion), each as p50, p95 and max. Jobs still open at
``end_t`` are right-censored at ``end_t`` (they have waited at least that long), and the
percentiles are Kaplan-Meier estimates (``scipy.stats.ecdf`` on ``CensoredData``); a
percentile the censoring leaves unknown is ``None``. Leaving open jobs out would read low
exactly when staff are short.

Per role: utilisation = busy member-seconds / on-duty member-seconds, where a member is on
duty from ``shift_started`` to ``shift_ended`` (overtime to finish a job included) and busy
from ``job_started`` to ``job_completed``; overtime counts as both.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np
from scipy.stats import CensoredData, ecdf

from twin.records import Record
from twin.staff.records import JobCompleted, JobRequested, JobStarted, ShiftEnded, ShiftStarted


@dataclass(frozen=True, slots=True)
class Spread:
    """Percentiles of a duration in seconds; ``open`` observations were right-censored.

    ``max`` is the largest value seen; if ``max_open`` it is a lower bound (a job still open).
    """

    done: int
    open: int
    p50: float | None
    p95: float | None
    max: float | None
    max_open: bool


@dataclass(frozen=True, slots=True)
class JobKindKpis:
    requested: int
    completed: int
    open_waiting: int  # not yet started at the end
    open_in_service: int  # started, not completed at the end
    queue_wait: Spread  # request -> start
    service: Spread  # start -> completion
    to_completion: Spread  # request -> completion


@dataclass(frozen=True, slots=True)
class RoleKpis:
    members: int
    duty_s: float
    busy_s: float
    overtime_s: float
    utilisation: float | None


@dataclass(frozen=True, slots=True)
class StaffReport:
    end_t: float
    jobs: dict[str, JobKindKpis]
    roles: dict[str, RoleKpis]

    def jobs_dict(self) -> dict[str, dict[str, object]]:
        return {k: asdict(v) for k, v in self.jobs.items()}

    def roles_dict(self) -> dict[str, dict[str, object]]:
        return {k: asdict(v) for k, v in self.roles.items()}


def spread(done: Sequence[float], censored: Sequence[float]) -> Spread:
    """p50/p95/max of ``done`` durations with ``censored`` ones known only to be at least so."""
    if not done and not censored:
        return Spread(0, 0, None, None, None, False)
    top_done = max(done, default=-1.0)
    top_open = max(censored, default=-1.0)
    top = max(top_done, top_open)
    p50 = p95 = None
    if done:
        if censored:
            cdf = ecdf(CensoredData(uncensored=done, right=censored)).cdf
        else:
            cdf = ecdf(np.asarray(done, dtype=float)).cdf
        q, f = cdf.quantiles, cdf.probabilities
        p50, p95 = _quantile(q, f, 0.5), _quantile(q, f, 0.95)
    return Spread(len(done), len(censored), p50, p95, round(top, 3), top_open > top_done)


def _quantile(q: np.ndarray, f: np.ndarray, p: float) -> float | None:
    """The smallest value whose estimated CDF reaches ``p`` (None if it never does)."""
    hit = np.nonzero(f >= p - 1e-12)[0]
    return round(float(q[hit[0]]), 3) if hit.size else None


class StaffKpis:
    """A sink that keeps what the staff KPIs need (see the module docstring)."""

    def __init__(self) -> None:
        self.role_of: dict[str, str] = {}
        self._on_since: dict[str, float] = {}
        self._duty: dict[str, float] = {}
        self._busy: dict[str, float] = {}
        self._overtime: dict[str, float] = {}
        self._requested: dict[str, tuple[str, float]] = {}  # open jobs: id -> (kind, t)
        self._started: dict[str, tuple[float, tuple[str, ...]]] = {}  # id -> (t, roles)
        # every duration, for exact percentiles: packed doubles (8 bytes each, not a list's 32)
        self._kinds: dict[str, dict[str, array[float]]] = {}
        self._counts: dict[str, list[int]] = {}  # kind -> [requested, completed]

    def accept(self, rec: Record) -> None:
        if isinstance(rec, ShiftStarted):
            self.role_of[rec.member] = rec.role
            self._on_since[rec.member] = rec.t
            self._duty.setdefault(rec.role, 0.0)
        elif isinstance(rec, ShiftEnded):
            since = self._on_since.pop(rec.member, rec.t)
            self._duty[rec.role] = self._duty.get(rec.role, 0.0) + rec.t - since
            self._overtime[rec.role] = self._overtime.get(rec.role, 0.0) + rec.overtime_s
        elif isinstance(rec, JobRequested):
            self._requested[rec.job_id] = (rec.job_kind, rec.t)
            self._counts.setdefault(rec.job_kind, [0, 0])[0] += 1
            self._lists(rec.job_kind)
        elif isinstance(rec, JobStarted):
            self._started[rec.job_id] = (rec.t, rec.roles)
            self._lists(rec.job_kind)["queue_wait"].append(rec.t - rec.requested_t)
        elif isinstance(rec, JobCompleted):
            self._requested.pop(rec.job_id, None)
            _, roles = self._started.pop(rec.job_id, (rec.started_t, ()))
            lists = self._lists(rec.job_kind)
            lists["service"].append(rec.t - rec.started_t)
            lists["to_completion"].append(rec.t - rec.requested_t)
            self._counts.setdefault(rec.job_kind, [0, 0])[1] += 1
            for role in roles:
                self._busy[role] = self._busy.get(role, 0.0) + rec.t - rec.started_t

    def _lists(self, kind: str) -> dict[str, array[float]]:
        got = self._kinds.get(kind)
        if got is None:
            got = self._kinds[kind] = {
                "queue_wait": array("d"),
                "service": array("d"),
                "to_completion": array("d"),
            }
        return got

    def close(self) -> None:
        pass

    def report(self, end_t: float) -> StaffReport:
        """The KPIs as of ``end_t`` (open jobs and duty stretches are cut there)."""
        jobs: dict[str, JobKindKpis] = {}
        for kind in sorted(self._kinds):
            lists = self._kinds[kind]
            open_ = [(jid, t) for jid, (k, t) in self._requested.items() if k == kind]
            waiting = [end_t - t for jid, t in open_ if jid not in self._started]
            in_service = [end_t - self._started[jid][0] for jid, _ in open_ if jid in self._started]
            requested, completed = self._counts.get(kind, [0, 0])
            jobs[kind] = JobKindKpis(
                requested=requested,
                completed=completed,
                open_waiting=len(waiting),
                open_in_service=len(in_service),
                queue_wait=spread(lists["queue_wait"], waiting),
                service=spread(lists["service"], in_service),
                to_completion=spread(lists["to_completion"], [end_t - t for _, t in open_]),
            )
        duty = dict(self._duty)
        for member, since in self._on_since.items():
            role = self.role_of[member]
            duty[role] = duty.get(role, 0.0) + end_t - since
        busy = dict(self._busy)
        for t0, roles in self._started.values():
            for role in roles:
                busy[role] = busy.get(role, 0.0) + end_t - t0
        members: dict[str, int] = {}
        for role in self.role_of.values():
            members[role] = members.get(role, 0) + 1
        by_role: dict[str, RoleKpis] = {}
        for role in sorted(set(duty) | set(busy)):
            d, b = duty.get(role, 0.0), busy.get(role, 0.0)
            by_role[role] = RoleKpis(
                members=members.get(role, 0),
                duty_s=round(d, 3),
                busy_s=round(b, 3),
                overtime_s=round(self._overtime.get(role, 0.0), 3),
                utilisation=round(b / d, 4) if d > 0 else None,
            )
        return StaffReport(end_t, jobs, by_role)


__all__ = ["JobKindKpis", "RoleKpis", "Spread", "StaffKpis", "StaffReport", "spread"]
