"""A rule-change study: the same scenario under two arms, replicated, with paired intervals.

Replication ``i`` (0-based) of both arms runs with the seed ``root_seed + i`` (common random
numbers). Replications run on Dask distributed: a local cluster of ``workers`` processes, or
the cluster behind a scheduler address; ``workers=0`` runs them in this process, in order.

**Early stopping** never depends on the order in which results arrive: after every
replication index ``k`` whose pairs (and all before it) are in, the rule is evaluated on
replications ``0..k-1`` only; the first ``k ≥ min_replications`` at which every focus KPI's
half-width is within the relative precision *of its difference* ends the study (for a
difference under 1 % of the KPI's level, within the relative precision of 1 % of the level:
:func:`twin.experiments.stats.precision`), and only those ``k`` pairs are
used (any later ones a fast cluster already computed are counted, not used). So the answer
is the same with 1 worker, 2 workers or a cluster (a test).

**Failures**: a replication that raises is retried once (Dask's ``retries=1``; the same in
process); if it fails again, its index is reported with the error and left out of the
intervals, never silently dropped.
"""

from __future__ import annotations

import math
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol

from twin.experiments.arms import Arm, Focus
from twin.experiments.replication import KPIS, Observation, Task, replicate
from twin.experiments.stats import Difference, Precision, paired, precise_enough, precision

Replicate = Callable[[Task], Observation]

#: how far the proposed arm's seeds move with ``independent`` (far beyond any study's length)
INDEPENDENT_OFFSET = 1_000_000


@dataclass(frozen=True, slots=True)
class Plan:
    scenario: str
    baseline: Arm
    proposed: Arm
    replications: int
    root_seed: int
    hours: float | None = None
    min_replications: int = 5
    confidence: float = 0.95
    focus: Focus | None = None
    #: run the proposed arm on other seeds (``root_seed + INDEPENDENT_OFFSET + i``): no common
    #: random numbers, to measure what the pairing gains
    independent: bool = False
    #: issue 34: "adapt", the operators follow the proposed law (the cost of the rule); or
    #: "keep", they keep today's procedures (the compliance gap on the day the rule changes):
    #: ``kept`` holds the settings that pin them, laid over the proposed arm's
    operators: str = "adapt"
    kept: tuple[tuple[str, Any], ...] = ()

    def seed(self, arm: Arm, index: int) -> int:
        shift = INDEPENDENT_OFFSET if self.independent and arm is self.proposed else 0
        return self.root_seed + shift + index

    def task(self, arm: Arm, index: int) -> Task:
        return Task(
            scenario=self.scenario,
            arm=arm.label,
            index=index,
            seed=self.seed(arm, index),
            settings=tuple(arm.settings())
            + (self.kept if arm is self.proposed and self.operators == "keep" else ()),
            hours=self.hours,
        )


@dataclass(frozen=True, slots=True)
class Failure:
    arm: str
    index: int
    seed: int
    error: str


@dataclass(frozen=True, slots=True)
class StudyResult:
    plan: Plan
    #: replications used (the pairs behind every interval, failed ones aside)
    used: int
    stopped: str
    baseline: tuple[Observation, ...]
    proposed: tuple[Observation, ...]
    failures: tuple[Failure, ...]
    differences: tuple[Difference, ...]
    computed_not_used: int
    executor: str
    wall_seconds: float
    extra: dict[str, Any] = field(default_factory=dict)

    def difference(self, kpi: str) -> Difference:
        for d in self.differences:
            if d.kpi == kpi:
                return d
        raise KeyError(kpi)


class _Pool(Protocol):
    slots: int
    name: str

    def submit(self, task: Task) -> None: ...

    def next_done(self) -> tuple[Task, Observation | Failure]: ...

    def cancel_all(self) -> None: ...


class _InProcess:
    """Runs each task when its result is asked for, in submission order (retried once)."""

    slots = 1
    name = "in process"

    def __init__(self, fn: Replicate) -> None:
        self.fn = fn
        self.queue: list[Task] = []

    def submit(self, task: Task) -> None:
        self.queue.append(task)

    def next_done(self) -> tuple[Task, Observation | Failure]:
        task = self.queue.pop(0)
        error = ""
        for _ in range(2):
            try:
                return task, self.fn(task)
            except Exception:
                error = traceback.format_exc(limit=3).strip().splitlines()[-1]
        return task, Failure(task.arm, task.index, task.seed, error)

    def cancel_all(self) -> None:
        self.queue.clear()


class _Dask:
    """Tasks on a Dask distributed client; results as they complete."""

    def __init__(self, client: Any, fn: Replicate, name: str) -> None:
        from distributed import as_completed

        self.client = client
        self.fn = fn
        self.name = name
        self.slots = max(1, sum(client.nthreads().values()))
        self.tasks: dict[str, Task] = {}
        self.done = as_completed()

    def submit(self, task: Task) -> None:
        key = f"twin-{task.arm}-{task.index}-{task.seed}-{time.monotonic_ns()}"
        fut = self.client.submit(self.fn, task, key=key, retries=1, pure=False)
        self.tasks[fut.key] = task
        self.done.add(fut)

    def next_done(self) -> tuple[Task, Observation | Failure]:
        fut = next(self.done)
        task = self.tasks.pop(fut.key)
        if fut.status == "finished":
            return task, fut.result()
        exc = fut.exception()
        return task, Failure(task.arm, task.index, task.seed, f"{type(exc).__name__}: {exc}")

    def cancel_all(self) -> None:
        futures = list(self.done.futures)
        if futures:
            self.client.cancel(futures)
        self.done.clear()
        self.tasks.clear()


@contextmanager
def _pool(workers: int | None, scheduler: str | None, fn: Replicate) -> Iterator[_Pool]:
    if scheduler is not None:
        from distributed import Client

        with Client(scheduler, timeout="20s") as client:
            yield _Dask(client, fn, f"Dask scheduler {scheduler}")
        return
    if workers == 0:
        yield _InProcess(fn)
        return
    import logging

    from distributed import Client, LocalCluster

    n = workers if workers is not None else _cpu_count()
    with (
        LocalCluster(
            n_workers=n,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            # no dashboard, and the scheduler's own HTTP server on a free port, not on 8787
            # (two studies at once: "Port 8787 is already in use" on the user's terminal)
            scheduler_kwargs={"dashboard": False, "dashboard_address": ":0"},
            silence_logs=logging.CRITICAL,  # a worker whose scheduler went first (a study
            # stopped) logs its failed heartbeat at ERROR: noise; a task's own error comes back
            # with its future
        ) as cluster,
        Client(cluster) as client,
    ):
        yield _Dask(client, fn, f"Dask local cluster, {n} worker process(es)")


def _cpu_count() -> int:
    import os

    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


ProgressFn = Callable[[dict[str, Any]], None]


def compare(
    plan: Plan,
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: ProgressFn | None = None,
    fn: Replicate = replicate,
) -> StudyResult:
    """Run ``plan`` and return the paired comparison (see the module's docstring)."""
    began = time.perf_counter()
    arms = (plan.baseline, plan.proposed)
    results: dict[int, dict[str, Observation | Failure]] = {}
    stop_at: int | None = None
    checked = 0  # prefix length already evaluated by the stopping rule
    submitted = 0
    inflight = 0
    with _pool(workers, scheduler, fn) as pool:
        depth = max(2, 2 * pool.slots)
        while True:
            while stop_at is None and submitted < plan.replications and inflight < depth:
                for arm in arms:
                    pool.submit(plan.task(arm, submitted))
                    inflight += 1
                submitted += 1
            if inflight == 0:
                break
            task, got = pool.next_done()
            inflight -= 1
            results.setdefault(task.index, {})[task.arm] = got
            if progress is not None:
                progress(_event(task, got, results, plan))
            while stop_at is None and len(results.get(checked, {})) == 2:
                checked += 1
                if _may_stop(plan, results, checked):
                    stop_at = checked
            if stop_at is not None:
                pool.cancel_all()
                break
            if checked == plan.replications:
                break
        executor = pool.name
    used = stop_at if stop_at is not None else checked
    computed = sum(1 for i, r in results.items() if i >= used and len(r) == 2)
    return _result(plan, results, used, stop_at, computed, executor, time.perf_counter() - began)


def _may_stop(plan: Plan, results: dict[int, dict[str, Observation | Failure]], k: int) -> bool:
    if plan.focus is None or k < plan.min_replications:
        return False
    for kpi in plan.focus.kpis:
        d = _difference(plan, results, k, kpi)
        if not precise_enough(d, plan.focus.relative_precision):
            return False
    return True


def _pairs(
    plan: Plan, results: dict[int, dict[str, Observation | Failure]], k: int
) -> list[tuple[Observation, Observation]]:
    out = []
    for i in range(k):
        b = results[i][plan.baseline.label]
        p = results[i][plan.proposed.label]
        if isinstance(b, Observation) and isinstance(p, Observation):
            out.append((b, p))
    return out


def _difference(
    plan: Plan, results: dict[int, dict[str, Observation | Failure]], k: int, kpi: str
) -> Difference:
    pairs = _pairs(plan, results, k)
    nan = math.nan
    base = [b.values.get(kpi, nan) for b, _ in pairs]
    prop = [p.values.get(kpi, nan) for _, p in pairs]
    return paired(kpi, base, prop, plan.confidence)


def kpi_names(observations: Sequence[Observation]) -> list[str]:
    """The study's KPIs in report order: the fixed ones, then each control's finding count."""
    seen: set[str] = set()
    for o in observations:
        seen.update(o.values)
    fixed = [k for k in KPIS if k in seen]
    return fixed + sorted(k for k in seen if k not in KPIS)


def _result(
    plan: Plan,
    results: dict[int, dict[str, Observation | Failure]],
    used: int,
    stop_at: int | None,
    computed: int,
    executor: str,
    wall: float,
) -> StudyResult:
    pairs = _pairs(plan, results, used)
    failures = tuple(
        r
        for i in sorted(results)
        if i < used
        for r in results[i].values()
        if isinstance(r, Failure)
    )
    names = kpi_names([o for pair in pairs for o in pair])
    diffs = tuple(_difference(plan, results, used, k) for k in names)
    stopped = stopping_note(plan, diffs, used, stop_at)
    return StudyResult(
        plan=plan,
        used=used,
        stopped=stopped,
        baseline=tuple(b for b, _ in pairs),
        proposed=tuple(p for _, p in pairs),
        failures=failures,
        differences=diffs,
        computed_not_used=computed,
        executor=executor,
        wall_seconds=wall,
    )


def _ratio_words(p: Precision) -> str:
    if p.ratio == 0.0:
        return "exact (the same difference in every replication)"
    if not math.isfinite(p.ratio):
        return "without an interval" if p.n < 2 else "±∞"
    if p.floor:
        return f"±{_p(p.ratio)} of 1 % of its level (a difference under 1 % of the level)"
    return f"±{_p(p.ratio)} of the difference"


def _p(share: float) -> str:
    return f"{share * 100:.0f} %"


def stopping_note(plan: Plan, diffs: Sequence[Difference], used: int, stop_at: int | None) -> str:
    """Why the study stopped where it did, true to the rule of :func:`precise_enough`: the
    interval's half-width against the difference (or 1 % of the level for a difference
    about zero); at the cap, how far each focus KPI is from the precision asked."""
    from twin.experiments.words import label

    if plan.focus is None:
        return f"the {plan.replications} replications asked for (no focus KPI, no stopping rule)"
    rp = plan.focus.relative_precision
    by = {d.kpi: d for d in diffs}
    nan = math.nan
    precs = [
        precision(by.get(k) or paired(k, [nan], [nan], plan.confidence), rp)
        for k in plan.focus.kpis
    ]
    each = "; ".join(f"the {label(p.kpi).noun} {_ratio_words(p)}" for p in precs)
    if stop_at is not None:
        return (
            f"precision reached after {stop_at} replications: every focus KPI's interval is "
            f"within ±{_p(rp)} of its difference ({each})"
        )
    short = [p for p in precs if not p.reached]
    if not short:
        return (
            f"all {used} replications run; every focus KPI's interval is within ±{_p(rp)} of "
            f"its difference ({each})"
        )
    wide = "; ".join(
        f"the {label(p.kpi).noun} has no interval (fewer than 2 pairs)"
        if p.n < 2
        else f"the {label(p.kpi).noun}'s interval is {_ratio_words(p)}, wider than the "
        f"±{_p(rp)} asked"
        for p in short
    )
    cap = plan.replications
    ran = "" if used == cap else f" ({used} of them used: failures left out)"
    return (
        f"stopped at the cap of {cap} replications{ran} without reaching the precision asked: "
        f"{wide}"
    )


def _event(
    task: Task,
    got: Observation | Failure,
    results: dict[int, dict[str, Observation | Failure]],
    plan: Plan,
) -> dict[str, Any]:
    pairs = sum(1 for r in results.values() if len(r) == 2)
    ev: dict[str, Any] = {
        "arm": task.arm,
        "index": task.index,
        "seed": task.seed,
        "pairs_done": pairs,
        "of": plan.replications,
    }
    if isinstance(got, Failure):
        ev["failed"] = got.error
    else:
        ev["wall_seconds"] = round(got.wall_seconds, 2)
        # the focus (or the first KPI) so far, over the complete pairs in index order
        kpi = plan.focus.kpis[0] if plan.focus is not None else "hold_percent"
        k = 0
        while len(results.get(k, {})) == 2:
            k += 1
        if k >= 2:
            d = _difference(plan, results, k, kpi)
            ev["so_far"] = {"kpi": kpi, "n": d.n, "difference": d.difference,
                            "half_width": d.half_width}  # fmt: skip
    return ev


def run_all(
    tasks: Sequence[Task],
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: Callable[[Task, Observation | Failure, int], None] | None = None,
    fn: Replicate = replicate,
) -> tuple[dict[tuple[str, int], Observation | Failure], str]:
    """Every task, none stopped early (a sweep): results by (arm, index), and the executor."""
    out: dict[tuple[str, int], Observation | Failure] = {}
    with _pool(workers, scheduler, fn) as pool:
        queue = list(tasks)
        inflight = 0
        depth = max(2, 2 * pool.slots)
        while queue or inflight:
            while queue and inflight < depth:
                pool.submit(queue.pop(0))
                inflight += 1
            task, got = pool.next_done()
            inflight -= 1
            out[(task.arm, task.index)] = got
            if progress is not None:
                progress(task, got, len(out))
        executor = pool.name
    return out, executor


__all__ = ["Failure", "Plan", "StudyResult", "compare", "kpi_names", "run_all", "stopping_note"]
