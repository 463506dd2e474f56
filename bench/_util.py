"""Shared helpers of the benchmark scripts: repetitions, medians and the result table.

The scripts are run as ``python bench/<name>.py``; this module is imported from the script's
own directory (``sys.path[0]``), so it needs no package. Importing it puts the project root
(this checkout) first on ``sys.path``, so the scripts time the ``twin`` package next to them
even when another checkout is pip-installed in editable mode; import it before ``twin``.
"""

from __future__ import annotations

import platform
import statistics
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path[:1]:
    sys.path.insert(0, str(ROOT))


def median(values: Sequence[float]) -> float:
    return float(statistics.median(values))


def spread(values: Sequence[float]) -> str:
    """``min..max`` of the repetitions, for the reader to judge the noise."""
    return f"{fmt(min(values))}..{fmt(max(values))}"


def fmt(x: float) -> str:
    """A compact human figure: 1.23 M, 45.6 k, 789, 0.123."""
    a = abs(x)
    if a >= 1e6:
        return f"{x / 1e6:.2f} M"
    if a >= 1e4:
        return f"{x / 1e3:.1f} k"
    if a >= 100:
        return f"{x:.0f}"
    if a >= 1:
        return f"{x:.2f}"
    return f"{x:.3f}"


@dataclass(frozen=True, slots=True)
class Verdict:
    """One target figure: a measured ratio against its target (higher is better)."""

    figure: str  # "P1", "P2", ...
    what: str
    value: float
    target: float
    reps: Sequence[float] = ()

    @property
    def passed(self) -> bool:
        return self.value >= self.target

    def row(self) -> list[str]:
        return [
            self.figure,
            self.what,
            fmt(self.value),
            f">= {fmt(self.target)}",
            "PASS" if self.passed else "BELOW",
            spread(self.reps) if self.reps else "",
        ]


def table(
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    title: str = "",
    left: Sequence[int] = (0,),
) -> str:
    """A plain-text table: columns in ``left`` left-aligned, the others right-aligned."""
    widths = [len(h) for h in headers]
    for r in rows:
        widths = [max(w, len(c)) for w, c in zip(widths, r, strict=True)]

    def line(cells: Sequence[str]) -> str:
        out = [
            c.ljust(w) if i in left else c.rjust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ]
        return "  ".join(out).rstrip()

    parts = [title] if title else []
    parts += [line(headers), "  ".join("-" * w for w in widths)]
    parts += [line(r) for r in rows]
    return "\n".join(parts)


def verdict_table(verdicts: Sequence[Verdict]) -> str:
    headers = ["fig", "what", "median", "target", "verdict", "reps min..max"]
    rows = [v.row() for v in verdicts]
    return table(headers, rows, "Targets (ratios measured in this run)", left=(0, 1))


def environment() -> str:
    import numpy
    import simpy

    try:  # which kernels the twin next to the script uses (issue 31; older checkouts: none)
        from twin import speedups

        kernels = speedups.status()
    except ImportError:
        kernels = "pure Python (no twin.speedups)"
    return (
        f"python {platform.python_version()} ({sys.implementation.name}), "
        f"numpy {numpy.__version__}, simpy {simpy.__version__}, "
        f"{platform.machine()}, {_cpus()} CPUs; {kernels}"
    )


def _cpus() -> int:
    import os

    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1
