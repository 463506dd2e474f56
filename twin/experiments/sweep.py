"""A parameter sweep: the same scenario at every point of a grid of ruleset values.

A grid file::

    [sweep]
    title = "Minimum return from 85 % to 92 %"
    ruleset = "malta-1998"

    [sweep.grid]                 # every combination of the values is a point
    min_rtp = [0.85, 0.87, 0.90, 0.92]

Replication ``i`` of every point runs on the seed ``root_seed + i`` (common random numbers
across the whole grid). Each point reports every KPI's mean with its interval, and its paired
difference from the first point (the reference) with its interval. Replications run on Dask
like a comparison's; a failure is retried once, then reported.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StringConstraints
from scipy import stats

from twin.compliance.ruleset import RULESETS, load_ruleset
from twin.errors import InputError
from twin.experiments.arms import Arm
from twin.experiments.compare import Failure, Replicate, kpi_names, run_all
from twin.experiments.replication import Observation, Task, replicate
from twin.experiments.stats import Difference, paired
from twin.scenario import load_toml_model

_Text = Annotated[str, StringConstraints(min_length=1)]
_Value = bool | int | float | str


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True, allow_inf_nan=False)


class _Sweep(_Model):
    title: _Text
    ruleset: _Text
    question: str = ""
    grid: dict[str, Annotated[list[_Value], Field(min_length=1)]] = Field(min_length=1)


class _SweepFile(_Model):
    sweep: _Sweep


@dataclass(frozen=True, slots=True)
class Grid:
    title: str
    question: str
    ruleset: str
    keys: tuple[str, ...]
    points: tuple[Arm, ...]
    source: str


#: most points a grid may have (a typo in a list should not start a week of runs)
MAX_POINTS = 200


def load_grid(path: str | Path) -> Grid:
    """A grid file, every point validated against the ruleset before anything runs."""
    p = Path(path)
    if not p.exists():
        raise InputError("--grid", "", "a grid file", str(path))
    s = load_toml_model(p, _SweepFile).sweep
    if s.ruleset not in RULESETS:
        raise InputError(p, "sweep.ruleset", "one of " + ", ".join(RULESETS), s.ruleset)
    keys = tuple(s.grid)
    combos = list(itertools.product(*(s.grid[k] for k in keys)))
    if len(combos) > MAX_POINTS:
        raise InputError(p, "sweep.grid", f"at most {MAX_POINTS} points", len(combos))
    points: list[Arm] = []
    for combo in combos:
        values = dict(zip(keys, combo, strict=True))
        rs = load_ruleset(s.ruleset, values, source=str(p), key_prefix="sweep.grid")
        overrides = {k: rs.get(k) for k in keys}
        label = ", ".join(f"{k}={overrides[k]}" for k in keys)
        if any(a.label == label for a in points):
            raise InputError(p, "sweep.grid", "distinct values in each list", label)
        points.append(Arm(label=label, ruleset=s.ruleset, overrides=overrides,
                          title=label, source=str(p)))  # fmt: skip
    return Grid(s.title, s.question, s.ruleset, keys, tuple(points), str(p))


@dataclass(frozen=True, slots=True)
class Level:
    """One KPI at one point: its mean with an interval."""

    kpi: str
    n: int
    mean: float
    low: float
    high: float


@dataclass(frozen=True, slots=True)
class PointResult:
    arm: Arm
    observations: tuple[Observation, ...]
    levels: tuple[Level, ...]
    #: paired differences from the first point (empty for the first point itself)
    differences: tuple[Difference, ...]


@dataclass(frozen=True, slots=True)
class SweepResult:
    grid: Grid
    scenario: str
    replications: int
    root_seed: int
    hours: float | None
    confidence: float
    points: tuple[PointResult, ...]
    failures: tuple[Failure, ...]
    executor: str


def _level(kpi: str, xs: list[float], confidence: float) -> Level:
    vals = [x for x in xs if math.isfinite(x)]
    n = len(vals)
    if n == 0:
        return Level(kpi, 0, math.nan, math.nan, math.nan)
    m = math.fsum(vals) / n
    if n < 2:
        return Level(kpi, n, m, -math.inf, math.inf)
    sd = math.sqrt(math.fsum((x - m) ** 2 for x in vals) / (n - 1))
    hw = float(stats.t.ppf(0.5 + confidence / 2.0, n - 1)) * sd / math.sqrt(n)
    return Level(kpi, n, m, m - hw, m + hw)


def sweep(
    scenario: str,
    grid: Grid,
    *,
    replications: int,
    root_seed: int,
    hours: float | None = None,
    confidence: float = 0.95,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: Callable[[Task, Observation | Failure, int], None] | None = None,
    fn: Replicate = replicate,
) -> SweepResult:
    tasks = [
        Task(scenario, arm.label, i, root_seed + i, tuple(arm.settings()), hours)
        for i in range(replications)
        for arm in grid.points
    ]
    got, executor = run_all(tasks, workers=workers, scheduler=scheduler, progress=progress, fn=fn)
    failures = tuple(r for r in got.values() if isinstance(r, Failure))
    failures = tuple(sorted(failures, key=lambda f: (f.index, f.arm)))
    # a replication index is used only where every point has it, so every point and every
    # difference rests on the same seeds
    whole = [
        i for i in range(replications)
        if all(isinstance(got[(a.label, i)], Observation) for a in grid.points)
    ]  # fmt: skip
    obs = {
        a.label: [got[(a.label, i)] for i in whole] for a in grid.points
    }  # fmt: skip
    names = kpi_names([o for os_ in obs.values() for o in os_ if isinstance(o, Observation)])
    ref = grid.points[0]
    points: list[PointResult] = []
    nan = math.nan
    for arm in grid.points:
        mine = [o for o in obs[arm.label] if isinstance(o, Observation)]
        base = [o for o in obs[ref.label] if isinstance(o, Observation)]
        levels = tuple(_level(k, [o.values.get(k, nan) for o in mine], confidence) for k in names)
        diffs: tuple[Difference, ...] = ()
        if arm is not ref:
            diffs = tuple(
                paired(
                    k,
                    [o.values.get(k, nan) for o in base],
                    [o.values.get(k, nan) for o in mine],
                    confidence,
                )
                for k in names
            )
        points.append(PointResult(arm, tuple(mine), levels, diffs))
    return SweepResult(grid, scenario, replications, root_seed, hours, confidence,
                       tuple(points), failures, executor)  # fmt: skip


def _currency(r: SweepResult) -> str:
    for p in r.points:
        for o in p.observations:
            return o.currency
    return "EUR"


def _hours(r: SweepResult) -> float | None:
    if r.hours is not None:
        return r.hours
    for p in r.points:
        for o in p.observations:
            if math.isfinite(o.sim_seconds):
                return o.sim_seconds / 3600.0
    return None


def render_text(r: SweepResult, kpis: tuple[str, ...]) -> str:
    """The sweep's table: each KPI by its display name and unit (issue 32), its mean and
    interval at each point, and its paired difference from the first point."""
    from twin.experiments.answer import length_words
    from twin.experiments.words import label, shown

    cur = _currency(r)
    last = r.root_seed + r.replications - 1
    lines = [
        f"Sweep of {r.scenario}: {r.grid.title}",
        f"  {len(r.grid.points)} points × {r.replications} replications of "
        f"{length_words(_hours(r))} each (root seed {r.root_seed}: seeds {r.root_seed}–{last}, "
        f"common random numbers), on {r.executor}",
        f"  means with {r.confidence * 100:g} % intervals; Δ: paired difference from the first "
        "point",
        "",
    ]

    def cell(k: str, v: float, lo: float, hi: float, signed: bool) -> str:
        return (f"{shown(k, v, cur, signed=signed)} [{shown(k, lo, cur, signed=signed)}, "
                f"{shown(k, hi, cur, signed=signed)}]")  # fmt: skip

    names = [label(k).heading(cur) for k in kpis]
    header = ["point", *names, *(f"Δ {n}" for n in names)]
    table = [header]
    for p in r.points:
        lv = {lv.kpi: lv for lv in p.levels}
        df = {d.kpi: d for d in p.differences}
        row = [p.arm.label]
        for k in kpis:
            x = lv.get(k)
            row.append("—" if x is None else cell(k, x.mean, x.low, x.high, False))
        for k in kpis:
            d = df.get(k)
            row.append("ref" if d is None else cell(k, d.difference, d.low, d.high, True))
        table.append(row)
    widths = [max(len(t[i]) for t in table) for i in range(len(header))]
    for t in table:
        cells = (
            c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(t, widths, strict=True))
        )
        lines.append("  ".join(cells).rstrip())
    for f in r.failures:
        lines.append(f"FAILED (twice): {f.arm} replication {f.index} (seed {f.seed}): {f.error}")
    return "\n".join(lines) + "\n"


def to_json(r: SweepResult) -> dict[str, Any]:
    def fin(v: float) -> float | None:
        return v if math.isfinite(v) else None

    return {
        "scenario": r.scenario,
        "title": r.grid.title,
        "question": r.grid.question,
        "ruleset": r.grid.ruleset,
        "grid": list(r.grid.keys),
        "replications": r.replications,
        "root_seed": r.root_seed,
        "hours": r.hours,
        "confidence": r.confidence,
        "executor": r.executor,
        "failures": [
            {"arm": f.arm, "index": f.index, "seed": f.seed, "error": f.error} for f in r.failures
        ],
        "points": [
            {
                "label": p.arm.label,
                "overrides": dict(p.arm.overrides),
                "levels": {
                    lv.kpi: {
                        "n": lv.n,
                        "mean": fin(lv.mean),
                        "low": fin(lv.low),
                        "high": fin(lv.high),
                    }
                    for lv in p.levels
                },
                "differences": {d.kpi: d.to_dict() for d in p.differences},
                "ledgers": [o.ledger_sha256 for o in p.observations],
            }
            for p in r.points
        ],
    }


def render_html(r: SweepResult, kpis: tuple[str, ...]) -> str:
    """One self-contained page: the table and, per KPI, its mean and interval at every point."""
    import html

    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    from twin.experiments.report import page_head, png
    from twin.experiments.words import label

    e = html.escape
    cur = _currency(r)
    parts = page_head(r.grid.title, "sweep", r.grid.question)
    parts.append(f"<pre>{e(render_text(r, kpis))}</pre>")
    labels = [p.arm.label for p in r.points]
    for k in kpis:
        lv = [next((x for x in p.levels if x.kpi == k), None) for p in r.points]
        if not any(x is not None and math.isfinite(x.mean) for x in lv):
            continue
        fig, ax = plt.subplots(figsize=(7.5, 3.2))
        xs = list(range(len(labels)))
        lab = label(k)
        f = {"money": 0.01, "seconds": 1 / 60.0, "share": 100.0}.get(lab.unit, 1.0)
        means = [x.mean * f if x else math.nan for x in lv]
        lows = [(x.mean - x.low) * f if x and math.isfinite(x.low) else 0.0 for x in lv]
        highs = [(x.high - x.mean) * f if x and math.isfinite(x.high) else 0.0 for x in lv]
        ax.errorbar(xs, means, yerr=[lows, highs], fmt="o-", color="#0072B2", capsize=4)
        ax.set_xticks(xs, labels, rotation=20, ha="right")
        ax.set_ylabel(lab.heading(cur))
        ax.grid(alpha=0.3)
        h = lab.heading(cur)
        parts.append(f"<h2>{e(h)}</h2><img alt='{e(h)}' src='data:image/png;base64,{png(fig)}'>")
        plt.close(fig)
    parts.append("</body></html>\n")
    return "".join(parts)


__all__ = ["Grid", "Level", "PointResult", "SweepResult", "load_grid", "render_html", "render_text",
           "sweep",
           "to_json"]  # fmt: skip
