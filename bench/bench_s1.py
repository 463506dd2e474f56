"""S1 of issue 31: the throughput of a rule-change study, in simulated casino-days per hour.

Run as ``python bench/bench_s1.py`` (``--replications N`` per arm, ``--days D``, ``--workers
W``, ``--reps R``, ``--root A,B`` to time other checkouts in the same run, ``--quick``).

Each repetition runs, for each checkout named by ``--root`` in turn (interleaved, so a
drifting machine moves them alike), ``twin.experiments.compare`` of ``scenarios/aml.toml``
under today's rules (``malta-1998``) against ``scenarios/proposals/aml-gaming-day.toml``, N
replications per arm of D days, common random numbers, no early stopping, on a Dask local
cluster of W worker processes (both cores: W = 2), in a fresh process (the cluster's start
and stop included, as ``twin compare --workers W`` costs). Throughput = 2 × N × D simulated
days ÷ wall hours, and ÷ core-seconds (W cores: performance.md's unit). S1 asks for the study
of 2 arms × 20 replications × 365 days on both cores to run at three times the throughput of
the start of issue 31: the ratio of the throughputs of two checkouts timed in the same run.
The full study (14,600 simulated days) is then estimated from the throughput measured.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from _util import ROOT, environment
from bench_study import timed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="2 replications of a day, 1 rep")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--replications", type=int, default=4, help="per arm")
    ap.add_argument("--days", type=float, default=7.0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--root", default=str(ROOT), help="checkouts to time, comma-separated")
    args = ap.parse_args()
    reps, n, days = args.reps, args.replications, args.days
    if args.quick:
        reps, n, days = 1, 2, 1.0
    roots = [Path(r).resolve() for r in args.root.split(",")]
    print("bench_s1: " + environment())
    print(
        f"scenarios/aml.toml, malta-1998 vs aml-gaming-day, {n} replications per arm of "
        f"{days:g} days, {args.workers} workers, {reps} repetition(s)"
    )
    walls: dict[Path, list[float]] = {r: [] for r in roots}
    heads: dict[Path, set[tuple[str, ...]]] = {r: set() for r in roots}
    for rep in range(reps):
        for root in roots:
            began = time.perf_counter()
            got = timed(
                args.workers, n, days * 24.0, scenario="aml", proposal="aml-gaming-day", root=root
            )
            walls[root].append(float(got["wall"]))  # type: ignore[arg-type]
            heads[root].add(tuple(got["heads"]))  # type: ignore[arg-type]
            print(
                f"  rep {rep + 1}: {root}: {got['wall']:.1f} s "
                f"(process {time.perf_counter() - began:.1f} s)",
                file=sys.stderr,
            )
    sim_days = 2 * n * days
    print()
    print(
        "| checkout | median s | reps s | sim-days / hour | sim-days / core-second "
        "| full S1 study (14,600 days) |"
    )
    print("|---|---:|---|---:|---:|---:|")
    rate: dict[Path, float] = {}
    for root in roots:
        m = statistics.median(walls[root])
        rate[root] = sim_days / (m / 3600.0)
        full_h = 14_600 / rate[root]
        reps_s = ", ".join(f"{x:.1f}" for x in walls[root])
        per_core = sim_days / (m * args.workers)
        print(
            f"| {root} | {m:.1f} | {reps_s} | {rate[root]:,.0f} | {per_core:.3f} | {full_h:.1f} h |"
        )
    if len(roots) > 1:
        first = roots[0]
        for root in roots[1:]:
            print(f"\nthroughput {root} ÷ {first}: {rate[root] / rate[first]:.2f} (S1: ≥ 3)")
    for root in roots:
        print(f"{root}: every repetition gave the same ledgers: {len(heads[root]) == 1}")


if __name__ == "__main__":
    main()
