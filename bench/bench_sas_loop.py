"""P12: the SAS loop closed: machines on pty lines, the reference SMIBs, a real Mosquitto.

Run as ``python bench/bench_sas_loop.py`` (``--runs 3 --pace 60``; ``--quick``: one run of
15 simulated minutes). Each run is ``scenarios/sas.toml`` (four machines, an hour of play)
paced ``--pace`` times the wall clock, against a Mosquitto started on a free port, each
machine behind the reference SMIB (``twin smib bridge``, a subprocess). Per run and line,
from its ``sas_line_closed`` record: the machine's reply times (median, p99, late replies
against SAS's 20 ms deadline), the exceptions raised, read by the SMIB, dropped and
reported, and how long an exception took from the machine to the host's book (median, p99).
Then the medians over runs, and the run's HW findings (there should be none). One JSON line,
then the table.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

import _util  # puts this checkout first on sys.path: before twin

from twin import api
from twin.drivers import PacedDriver
from twin.hardware.mosquitto import TWIN_PASSWORD, TWIN_USER, Mosquitto
from twin.hardware.records import SasLineClosed
from twin.records import MemorySink

ROOT = _util.ROOT
SMIBS = tuple(f"SAS-{i:03d}" for i in range(1, 5))


def one(broker: Mosquitto, pace: float, hours: float) -> dict[str, object]:
    sink = MemorySink()
    url = f"mqtt://{TWIN_USER}:{TWIN_PASSWORD}@{broker.host}:{broker.port}"
    t0 = time.monotonic()
    result = api.run(
        ROOT / "scenarios" / "sas.toml", hours=hours, hardware=url, driver=PacedDriver(pace),
        sinks=[sink],
    )  # fmt: skip
    wall = time.monotonic() - t0
    lines = [r for r in sink.records if isinstance(r, SasLineClosed)]
    hw = [f["control"] for f in result.findings if f["control"].startswith("HW.")]
    return {
        "wall_s": round(wall, 1),
        "hw_findings": hw,
        "lines": [
            {k: getattr(c, k) for k in (
                "machine", "polls", "replies", "late", "median_us", "p99_us", "raised",
                "delivered", "dropped", "reported", "to_host_p50_us", "to_host_p99_us")}
            for c in lines
        ],
    }  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--pace", type=float, default=60.0)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    runs, hours = (1, 0.25) if args.quick else (args.runs, 1.0)
    os.environ.setdefault("TWIN_SMIB_PASSWORD", "pw-{id}")  # the broker's (smib_password)
    out = []
    with tempfile.TemporaryDirectory(prefix="twin-bench-sas-") as folder:
        broker = Mosquitto(Path(folder), SMIBS)
        broker.start()
        try:
            for _ in range(runs):
                out.append(one(broker, args.pace, hours))
        finally:
            broker.kill()
    lines = [ln for r in out for ln in r["lines"]]  # type: ignore[attr-defined]

    def med(key: str) -> float:
        return statistics.median(ln[key] for ln in lines) / 1000  # ms

    summary = {
        "bench": "P12 sas loop",
        "runs": runs,
        "pace": args.pace,
        "sim_hours": hours,
        "reply_median_ms": med("median_us"),
        "reply_p99_ms": med("p99_us"),
        "reply_p99_max_ms": max(ln["p99_us"] for ln in lines) / 1000,
        "late": sum(ln["late"] for ln in lines),
        "polls": sum(ln["polls"] for ln in lines),
        "raised": sum(ln["raised"] for ln in lines),
        "reported": sum(ln["reported"] for ln in lines),
        "dropped": sum(ln["dropped"] for ln in lines),
        "to_host_median_ms": med("to_host_p50_us"),
        "to_host_p99_ms": med("to_host_p99_us"),
        "hw_findings": sorted({f for r in out for f in r["hw_findings"]}),  # type: ignore[attr-defined]
        "wall_s": [r["wall_s"] for r in out],
    }
    print(json.dumps(summary))
    head = ("run", "machine", "polls", "late", "reply p50/p99 ms", "raised", "read", "drop",
            "host", "to host p50/p99 ms")  # fmt: skip
    print(
        " ".join(f"{h:>{w}}" for h, w in zip(head, (3, 7, 6, 4, 17, 6, 4, 4, 4, 19), strict=True))
    )
    for i, r in enumerate(out, 1):
        for ln in r["lines"]:  # type: ignore[attr-defined]
            print(
                f"{i:>3} {ln['machine']:>7} {ln['polls']:>6} {ln['late']:>4} "
                f"{ln['median_us'] / 1000:>8.3f}/{ln['p99_us'] / 1000:<8.3f} {ln['raised']:>6} "
                f"{ln['delivered']:>4} {ln['dropped']:>4} {ln['reported']:>4} "
                f"{ln['to_host_p50_us'] / 1000:>9.1f}/{ln['to_host_p99_us'] / 1000:<9.1f}"
            )


if __name__ == "__main__":
    main()
