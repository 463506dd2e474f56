"""The detection study of anti-money laundering (issue 11): which laundering strategies a
rule set stops, how fast, and at what cost in reports on honest patrons.

Replication ``i`` of an arm runs the scenario with seed ``root + i`` under that arm's rules
(today's, or a proposal's overrides); the same seeds serve every arm, so the launderers, the
honest patrons and the play are the same until the rules make them differ. Each run's
``aml`` KPI section (``twin.aml.kpis``) says, from the twin's truth, which launderers
acted and when each was first reported to the police. The study pools the replications:

* for each strategy, the share of launderers detected, with its exact (Clopper-Pearson)
  interval, and the median hours from a launderer's first act to the first police report
  (with the quartiles), over the launderers detected;
* the false-report rate: honest patrons reported to the police, over the honest patrons
  admitted, with its interval (a patron is counted once per replication).

Runs go to a pool of worker processes (``workers``; 0 runs them in this process).
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from statistics import median, quantiles
from typing import Any

from scipy import stats as sps

from twin.experiments.arms import Arm

ProgressFn = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class Job:
    scenario: str
    arm: str
    index: int
    seed: int
    settings: tuple[tuple[str, Any], ...]
    hours: float | None


def run_job(job: Job) -> tuple[Job, dict[str, Any], float]:
    """One replication: the run's ``aml`` KPI section (and the run's wall seconds)."""
    from twin.api import run

    began = time.perf_counter()
    result = run(job.scenario, seed=job.seed, hours=job.hours, overrides=list(job.settings),
                 chain=False, compliance=False)  # fmt: skip
    section = dict(result.kpis.sections.get("aml", {}))
    return job, section, time.perf_counter() - began


def proportion_interval(k: int, n: int, confidence: float) -> tuple[float, float]:
    """The exact (Clopper-Pearson) interval of a binomial share ``k / n``."""
    if n == 0:
        return (0.0, 1.0)
    a = (1.0 - confidence) / 2.0
    lo = float(sps.beta.ppf(a, k, n - k + 1)) if k > 0 else 0.0
    hi = float(sps.beta.ppf(1.0 - a, k + 1, n - k)) if k < n else 1.0
    return (lo, hi)


@dataclass(frozen=True, slots=True)
class StrategyRow:
    strategy: str
    launderers: int
    detected: int
    share: float
    ci: tuple[float, float]
    median_hours: float | None
    quartile_hours: tuple[float, float] | None


@dataclass(frozen=True, slots=True)
class ArmTable:
    arm: str
    rules: str
    title: str
    replications: int
    rows: tuple[StrategyRow, ...]
    honest_patrons: int
    false_reports: int
    false_share: float
    false_ci: tuple[float, float]
    identifications: int
    police_reports: int


@dataclass(frozen=True, slots=True)
class DetectionStudy:
    scenario: str
    hours: float | None
    seeds: tuple[int, ...]
    confidence: float
    arms: tuple[ArmTable, ...]
    wall_seconds: float
    run_seconds: float

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _table(arm: Arm, sections: Sequence[dict[str, Any]], confidence: float) -> ArmTable:
    pooled: dict[str, dict[str, Any]] = {}
    honest = false = ids = police = 0
    for s in sections:
        for name, r in s.get("strategies", {}).items():
            row = pooled.setdefault(name, {"launderers": 0, "detected": 0, "hours": []})
            row["launderers"] += r["launderers"]
            row["detected"] += r["detected"]
            row["hours"] += list(r["hours"])
        honest += int(s.get("honest_patrons", 0))
        false += int(s.get("false_reports", 0))
        ids += sum(int(v) for v in s.get("identifications", {}).values())
        police += int(s.get("police_reports", 0))
    rows = []
    for name, r in sorted(pooled.items()):
        n, k, hours = r["launderers"], r["detected"], sorted(r["hours"])
        quart: tuple[float, float] | None = None
        if len(hours) >= 2:
            q = quantiles(hours, n=4, method="inclusive")
            quart = (q[0], q[2])
        rows.append(StrategyRow(
            strategy=name, launderers=n, detected=k, share=k / n if n else 0.0,
            ci=proportion_interval(k, n, confidence),
            median_hours=median(hours) if hours else None, quartile_hours=quart,
        ))  # fmt: skip
    return ArmTable(
        arm=arm.label, rules=arm.describe(), title=arm.title if arm.title != arm.ruleset else "",
        replications=len(sections), rows=tuple(rows),
        honest_patrons=honest, false_reports=false,
        false_share=false / honest if honest else 0.0,
        false_ci=proportion_interval(false, honest, confidence), identifications=ids,
        police_reports=police,
    )  # fmt: skip


def detection_study(
    scenario: Path,
    arms: Sequence[Arm],
    *,
    replications: int,
    seed: int,
    hours: float | None,
    confidence: float = 0.95,
    workers: int | None = None,
    progress: ProgressFn | None = None,
) -> DetectionStudy:
    """Run ``replications`` seeds of every arm and pool them (see the module docstring)."""
    began = time.perf_counter()
    jobs = [
        Job(str(scenario), arm.label, i, seed + i, tuple(arm.settings()), hours)
        for i in range(replications)
        for arm in arms
    ]
    got: dict[tuple[str, int], dict[str, Any]] = {}
    run_seconds = 0.0
    n = (os.cpu_count() or 1) if workers is None else workers
    if n == 0:
        done = map(run_job, jobs)
        for job, section, wall in done:
            got[(job.arm, job.index)] = section
            run_seconds += wall
            if progress is not None:
                progress(f"{job.arm} seed {job.seed}: {len(got)}/{len(jobs)} runs")
    else:
        # a pool whose workers can be stopped: on a signal (or any error) the runs under
        # way are abandoned at once, not waited for (issue 33: Ctrl-C answers in a moment)
        pool = multiprocessing.Pool(min(n, len(jobs)), initializer=_worker_signals)
        try:
            for job, section, wall in pool.imap(run_job, jobs):
                got[(job.arm, job.index)] = section
                run_seconds += wall
                if progress is not None:
                    progress(f"{job.arm} seed {job.seed}: {len(got)}/{len(jobs)} runs")
            pool.close()
        except BaseException:
            pool.terminate()
            raise
        finally:
            pool.join()
    tables = tuple(
        _table(arm, [got[(arm.label, i)] for i in range(replications)], confidence) for arm in arms
    )
    return DetectionStudy(
        scenario=str(scenario), hours=hours,
        seeds=tuple(seed + i for i in range(replications)), confidence=confidence,
        arms=tables, wall_seconds=time.perf_counter() - began, run_seconds=run_seconds,
    )  # fmt: skip


def _worker_signals() -> None:
    """A worker leaves Ctrl-C to the study (which stops it) and dies quietly when stopped:
    the study says its one line, the workers none."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _pct(x: float) -> str:
    return f"{100.0 * x:.1f} %"


def render_text(study: DetectionStudy) -> str:
    """The detection table of each arm, as Markdown (pastes into a README as it is)."""
    c = round(study.confidence * 100)
    days = "" if study.hours is None else f"{study.hours / 24:g} days, "
    seeds = study.seeds
    out = [
        f"Detection study: {study.scenario}, {days}seeds {seeds[0]}-{seeds[-1]} "
        f"({len(seeds)} replications per arm), {c} % exact intervals; "
        f"{study.wall_seconds:.0f} s wall, {study.run_seconds:.0f} s of runs.",
    ]
    for t in study.arms:
        out += [
            "",
            f"**{t.arm}**: {t.rules}" + (f" ({t.title})" if t.title else ""),
            "",
            f"| strategy | launderers | detected | share detected ({c} % CI) "
            "| median hours to a police report (quartiles) |",
            "|---|---:|---:|---:|---:|",
        ]
        for r in t.rows:
            med = "—"
            if r.median_hours is not None:
                med = f"{r.median_hours:.1f}"
                if r.quartile_hours is not None:
                    med += f" ({r.quartile_hours[0]:.1f}–{r.quartile_hours[1]:.1f})"
            out.append(
                f"| {r.strategy.replace('_', ' ')} | {r.launderers} | {r.detected} | "
                f"{_pct(r.share)} [{_pct(r.ci[0])}, {_pct(r.ci[1])}] | {med} |"
            )
        out.append(
            f"| honest patrons (false reports) | {t.honest_patrons:,} | {t.false_reports} | "
            f"{100.0 * t.false_share:.3f} % [{100.0 * t.false_ci[0]:.3f} %, "
            f"{100.0 * t.false_ci[1]:.3f} %] | |"
        )
        out.append("")
        out.append(
            f"Identifications {t.identifications:,}; reports to the police {t.police_reports}."
        )
    return "\n".join(out) + "\n"


__all__ = [
    "ArmTable",
    "DetectionStudy",
    "StrategyRow",
    "detection_study",
    "proportion_interval",
    "render_text",
]
