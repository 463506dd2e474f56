"""Benchmark of rule-change studies over Dask worker processes (target P8 of issue 12).

Run as ``python bench/bench_study.py`` (``--quick`` for a smoke run, ``--reps N``,
``--replications N``, ``--hours H``, ``--workers 1,2``).

For ``scenarios/study.toml`` under ``scenarios/proposals/min-return-90.toml`` (both arms,
common random numbers, no early stopping), each repetition times, interleaved:

* ``in process``: ``twin.experiments.compare`` with ``workers=0``, the replications one after
  another in this process (a fresh process per repetition, so its caches start cold like a
  worker's);
* ``W workers``: the same study on a Dask local cluster of W worker processes, the cluster's
  start and stop included (what ``twin compare --workers W`` costs).

``speed-up(W)`` = time(1 worker) ÷ time(W workers), the median over repetitions; P8 asks for
≥ 0.8 × W. The script also reports the pieces of a model of the wall time on a cluster,

    T(W) ≈ start(W) + cold + ceil(2N / W) × c

with ``start`` the cluster's start and stop, ``cold`` what a worker's first replication costs
more than the others (its caches: the exact PAR analyses, the win laws), and ``c`` the median
time of one warm replication: from it, the speed-up W workers on more machines would give.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from _util import ROOT, environment

CHILD = r"""
import json, sys, time
sys.path.insert(0, {root!r})
from twin.experiments import Plan, compare, load_arm
t0 = time.perf_counter()
plan = Plan(scenario={scenario!r}, baseline=load_arm("malta-1998", "baseline"),
            proposed=load_arm({proposal!r}, "proposed"), replications={n}, root_seed=1,
            hours={hours}, min_replications={n})
r = compare(plan, workers={workers})
wall = time.perf_counter() - t0
obs = sorted([*r.baseline, *r.proposed], key=lambda o: (o.index, o.arm))
print(json.dumps({{"wall": wall, "replications": [o.wall_seconds for o in obs],
                   "heads": [o.ledger_sha256 for o in obs]}}))
"""


def timed(
    workers: int,
    n: int,
    hours: float,
    *,
    scenario: str = "study",
    proposal: str = "min-return-90",
    root: Path = ROOT,
) -> dict[str, object]:
    """One study in a fresh process: ``scenarios/<scenario>.toml`` under malta-1998 against
    ``scenarios/proposals/<proposal>.toml``, with the ``twin`` of checkout ``root``."""
    code = CHILD.format(
        root=str(root),
        scenario=str(ROOT / "scenarios" / f"{scenario}.toml"),
        proposal=str(ROOT / "scenarios" / "proposals" / f"{proposal}.toml"),
        n=n,
        hours=hours,
        workers=workers,
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root)},
    )
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="4 replications of 2 hours, 1 rep")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--replications", type=int, default=8, help="per arm")
    ap.add_argument("--hours", type=float, default=24.0)
    ap.add_argument("--workers", default="1,2", help="comma-separated worker counts")
    args = ap.parse_args()
    reps, n, hours = args.reps, args.replications, args.hours
    if args.quick:
        reps, n, hours = 1, 4, 2.0
    counts = [int(w) for w in args.workers.split(",")]
    print("bench_study: " + environment())
    print(f"scenario study, {n} replications per arm of {hours:g} h, {reps} repetition(s)")
    walls: dict[int, list[float]] = {w: [] for w in [0, *counts]}
    heads: set[tuple[str, ...]] = set()
    warm: list[float] = []
    cold: list[float] = []
    for rep in range(reps):
        for w in [0, *counts]:
            began = time.perf_counter()
            got = timed(w, n, hours)
            walls[w].append(float(got["wall"]))  # type: ignore[arg-type]
            heads.add(tuple(got["heads"]))  # type: ignore[arg-type]
            each = [float(x) for x in got["replications"]]  # type: ignore[union-attr]
            if w == 0:
                cold.append(each[0])
                warm.extend(each[1:])
            print(
                f"  rep {rep + 1}: {'in process' if w == 0 else f'{w} worker(s)'}: "
                f"{got['wall']:.1f} s (process {time.perf_counter() - began:.1f} s)",
                file=sys.stderr,
            )
    c = statistics.median(warm)
    cold_extra = statistics.median(cold) - c
    print()
    print("| run | median s | reps s | speed-up vs 1 worker | P8 target |")
    print("|---|---:|---|---:|---:|")
    base = statistics.median(walls[counts[0]]) if counts else 0.0
    for w in [0, *counts]:
        m = statistics.median(walls[w])
        name = "in process" if w == 0 else f"{w} worker(s)"
        sp = f"{base / m:.2f}" if w else "—"
        target = f"≥ {0.8 * w:.1f}" if w > 1 else "—"
        reps_s = ", ".join(f"{x:.1f}" for x in walls[w])
        print(f"| {name} | {m:.1f} | {reps_s} | {sp} | {target} |")
    print()
    start = {w: statistics.median(walls[w]) - cold_extra - -(-2 * n // w) * c for w in counts if w}
    print(f"one warm replication c = {c:.2f} s (median of {len(warm)}); a cold first one costs "
          f"{cold_extra:.2f} s more")  # fmt: skip
    for w, s in start.items():
        print(f"cluster start+stop and scheduling with {w} worker(s) ≈ {s:.1f} s")
    print(f"every run gave the same ledgers: {len(heads) == 1}")
    s_mean = statistics.mean(start.values()) if start else 0.0
    print("\nmodel: T(W) = start + cold + ceil(2N/W) c; predicted speed-up on a cluster "
          f"(N = {n} per arm):")  # fmt: skip
    t1 = s_mean + cold_extra + 2 * n * c
    for w in (2, 4, 8, 16, 32):
        tw = s_mean + cold_extra + -(-2 * n // w) * c
        print(f"  W = {w:>2}: {t1 / tw:.2f} ({t1 / tw / w:.0%} of W)")


if __name__ == "__main__":
    main()
