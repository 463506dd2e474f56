"""Memory and ledger size over long runs (target P7 of shared/design/performance.md).

Run as ``python bench/bench_memory.py`` (default: 7, 30 and 90 days of the default
scenario; ``--days 7,30,365`` for a year, ``--scenario large``, ``--quick`` for 1 and 2
days).

Each run is a fresh subprocess (``--child DAYS``) that builds the scenario for ``DAYS``
simulated days with a real ``Ledger`` in a temporary directory and every control of the
compliance engine, runs it, closes the ledger and reports its own peak resident set size
(``resource.getrusage(RUSAGE_SELF).ru_maxrss``), the ledger's size on disk, the record
count, and the wall time of the run. A fresh process per run keeps one run's peak from
hiding another's.

P7: peak RSS <= 2 GB for a simulated year and flat in the run length (the table shows the
peak of each length, so growth shows); the ledger's bytes per simulated day are reported.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _util import ROOT, environment, fmt, table

P7_RSS_LIMIT = 2 * 1024**3
DAYS = (7, 30, 90)
QUICK_DAYS = (1, 2)


def child(days: float, scenario_name: str, process: bool) -> dict[str, float]:
    """Run ``days`` simulated days in this process (``process``: its checks and ledger in a
    sink process, ``twin run``'s default on two cores); the figures of the run."""
    from twin.casino import Casino
    from twin.departments import load_scenario
    from twin.ledger import Ledger
    from twin.sinkproc import SinkProcess

    scenario = load_scenario(ROOT / "scenarios" / f"{scenario_name}.toml")
    scenario = scenario.with_overrides(duration_hours=24.0 * days)
    with tempfile.TemporaryDirectory(prefix="bench-memory-") as tmp:
        path = Path(tmp) / "run.ledger"
        meta = {"scenario": scenario.scenario.name}
        ledger: Ledger | SinkProcess
        if process:
            casino = Casino(scenario, attach_checks=False)
            ledger = SinkProcess.attached(casino, ledger=path, meta=meta)
        else:
            ledger = Ledger(path, meta=meta)
            casino = Casino(scenario, sinks=[ledger])
        t0 = time.perf_counter()
        out = casino.run()
        ledger.close()
        wall = time.perf_counter() - t0
        size = path.stat().st_size
    # ru_maxrss is in KiB on Linux (bytes on macOS)
    scale = 1 if sys.platform == "darwin" else 1024
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale
    # the sink process (joined): its own peak, shared pages of the fork counted again
    sinks = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * scale if process else 0
    return {
        "days": days,
        "peak_rss": float(peak),
        "sink_rss": float(sinks),
        "ledger_bytes": float(size),
        "records": float(out.records),
        "wall": wall,
        "sim": out.sim_seconds,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--days", default=None, help="comma-separated run lengths in days")
    ap.add_argument("--scenario", default="default", help="scenario name under scenarios/")
    ap.add_argument("--quick", action="store_true", help="1 and 2 days")
    ap.add_argument(
        "--sinks", choices=["process", "inline"], default="process",
        help="checks and ledger in a sink process (twin run's default) or inline",
    )  # fmt: skip
    ap.add_argument("--child", type=float, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child is not None:
        print(json.dumps(child(args.child, args.scenario, args.sinks == "process")))
        return 0
    if args.days:
        plan = [float(d) for d in args.days.split(",")]
    else:
        plan = [float(d) for d in (QUICK_DAYS if args.quick else DAYS)]
    print(f"bench_memory: {environment()}; scenario {args.scenario}")
    rows = []
    results = []
    for days in plan:
        print(f"running {days:g} days ...", file=sys.stderr, flush=True)
        proc = subprocess.run(
            [
                sys.executable,
                __file__,
                "--child",
                str(days),
                "--scenario",
                args.scenario,
                "--sinks",
                args.sinks,
            ],
            check=True,
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONHASHSEED": "0"},
        )
        r = json.loads(proc.stdout.strip().splitlines()[-1])
        results.append(r)
        print(
            f"  {days:g} days: peak RSS {r['peak_rss'] / 2**20:.0f} MiB (sink process "
            f"{r['sink_rss'] / 2**20:.0f} MiB), ledger "
            f"{r['ledger_bytes'] / 2**20:.1f} MiB, {r['wall']:.0f} s",
            file=sys.stderr,
            flush=True,
        )
        rows.append(
            [
                f"{days:g}",
                f"{int(r['records']):,}",
                f"{r['peak_rss'] / 2**20:.0f}",
                f"{r['sink_rss'] / 2**20:.0f}",
                f"{(r['peak_rss'] + r['sink_rss']) / 2**20:.0f}",
                f"{r['ledger_bytes'] / 2**20:.1f}",
                f"{r['ledger_bytes'] / days / 1e6:.2f}",
                f"{r['ledger_bytes'] / r['records']:.0f}",
                f"{r['wall']:.1f}",
                fmt(r["sim"] / r["wall"]),
            ]
        )
    headers = [
        "days",
        "records",
        "peak RSS MiB",
        "sink process MiB",
        "both MiB",
        "ledger MiB",
        "ledger MB/day",
        "bytes/record",
        "wall s",
        "sim/wall",
    ]
    print()
    title = f"{args.scenario}: one subprocess per run, ledger on disk, sinks {args.sinks}"
    print(table(headers, rows, title))
    # both processes' peaks added (an upper bound: the fork's shared pages count twice)
    worst = max(r["peak_rss"] + r["sink_rss"] for r in results)
    first, last = results[0], results[-1]
    growth = (last["peak_rss"] + last["sink_rss"]) / (first["peak_rss"] + first["sink_rss"])
    print()
    print(
        f"P7: peak RSS {worst / 2**20:.0f} MiB (limit {P7_RSS_LIMIT / 2**20:.0f} MiB): "
        f"{'PASS' if worst <= P7_RSS_LIMIT else 'BELOW'}; "
        f"x{growth:.2f} from {first['days']:g} to {last['days']:g} days "
        f"(x{last['days'] / first['days']:.0f} the length)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
