"""P11: a SAS gaming machine's reply times on a pseudo-terminal, against the 20 ms deadline.

Run as ``python bench/bench_sas_timing.py`` (``--polls 2000 --interval 0.01 --rate 5``;
``--quick``: 200 polls). It starts ``twin sas serve --pty`` in a subprocess (this checkout's
twin: a machine played like a patron, ``--rate`` activities a second), opens the host's end
of the pty with :class:`twin.hardware.sas.host.SasHost` and sends ``--polls`` polls, one every
``--interval`` s, alternating a general poll and a meter long poll (``--meter-poll``, type R:
two bytes, the reply carries a CRC). Then it stops the machine (SIGINT) and reads the
statistics it prints.

Two views of the same polls:

* the host's: from the poll's last byte written to the reply's first byte read (the round
  trip through both pty ends and the machine), per kind of poll;
* the machine's (``SasLine``): from the read that brought a poll's last byte to the return
  of the write of its reply.

Both against the SAS reply deadline (20 ms after the poll's last byte). A poll not answered
within the host's timeout (``--timeout``, 0.2 s) is a silence and counted. One JSON line,
then the table.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import time
from datetime import datetime

import _util  # puts this checkout first on sys.path: before twin

from twin.hardware.sas.host import SasHost
from twin.hardware.sas.line import REPLY_DEADLINE, percentile

ROOT = _util.ROOT


def serve(rate: float, address: int) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, "-m", "twin", "sas", "serve", "--pty", "--address", str(address),
         "--rate", f"{rate:g}"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT,
    )  # fmt: skip


def ms(values: list[float], q: float) -> float | None:
    v = percentile(values, q)
    return None if v is None else round(v * 1000, 3)


def run(args: argparse.Namespace) -> dict[str, object]:
    proc = serve(args.rate, args.address)
    times: dict[str, list[float]] = {"general": [], "long": []}
    silences = {"general": 0, "long": 0}
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        if not first.startswith("pty: "):
            proc.kill()
            _, err = proc.communicate()
            sys.exit(f"bench: twin sas serve did not start: {first}{err}")
        path = first.split()[1].rstrip(",")
        with SasHost(path, timeout=args.timeout) as host:
            for i in range(args.polls):
                kind = "general" if i % 2 == 0 else "long"
                if kind == "general":
                    reply: object = host.general_poll(args.address)
                else:
                    reply = host.long_poll(args.address, args.meter_poll)
                if reply is None:  # silence, or a bad CRC (host.bad_crc)
                    silences[kind] += 1
                else:
                    times[kind].append(host.times[-1])
                time.sleep(args.interval)
            host_summary = host.summary()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    machine = parse_machine(out)
    allt = times["general"] + times["long"]
    return {
        "polls": args.polls,
        "interval_s": args.interval,
        "rate": args.rate,
        "deadline_ms": REPLY_DEADLINE * 1000,
        "host": {
            kind: {
                "replies": len(t),
                "silences": silences[kind],
                "median_ms": ms(t, 0.5),
                "p99_ms": ms(t, 0.99),
                "max_ms": round(max(t) * 1000, 3) if t else None,
                "late": sum(x > REPLY_DEADLINE for x in t),
            }
            for kind, t in times.items()
        },
        "host_all": {"median_ms": ms(allt, 0.5), "p99_ms": ms(allt, 0.99),
                     "bad_crc": host_summary["bad_crc"], "stale": host_summary["stale"]},
        "machine": machine,
        "load": os.getloadavg()[0],
    }  # fmt: skip


def parse_machine(out: str) -> dict[str, object]:
    """The statistics ``twin sas serve`` printed on exit (counts and reply times)."""
    got: dict[str, object] = {}
    for line in out.splitlines():
        if line.startswith("polls: "):
            for part in line.removeprefix("polls: ").split(", "):
                key, _, value = part.partition(" ")
                got[key] = int(value)
        m = re.match(r"reply time: median ([\d.]+) ms, p99 ([\d.]+) ms, max ([\d.]+) ms", line)
        if m:
            got.update(median_ms=float(m[1]), p99_ms=float(m[2]), max_ms=float(m[3]))
        if line.startswith("activities: "):
            got["activities"] = int(line.split()[1])
    return got


def report(res: dict[str, object], started: datetime) -> None:
    host = res["host"]
    machine = res["machine"]
    assert isinstance(host, dict) and isinstance(machine, dict)
    deadline = REPLY_DEADLINE * 1000
    rows = []
    for kind, h in host.items():
        rows.append([f"host: {kind} poll", str(h["replies"]), str(h["silences"]),
                     _f(h["median_ms"]), _f(h["p99_ms"]), _f(h["max_ms"]), str(h["late"]),
                     _verdict(h["p99_ms"], deadline)])  # fmt: skip
    rows.append(["machine: every poll", str(machine.get("replies", "")),
                 str(machine.get("silent", "")), _f(machine.get("median_ms")),
                 _f(machine.get("p99_ms")), _f(machine.get("max_ms")),
                 str(machine.get("late", "")),
                 _verdict(machine.get("p99_ms"), deadline)])  # fmt: skip
    title = (
        f"\nP11: SAS reply times on a pty, {res['polls']} polls every {res['interval_s']} s, "
        f"patron {res['rate']} activities/s, {started:%Y-%m-%d %H:%M %Z}, "
        f"load {res['load']:.1f}; {_util.environment()}"
    )
    headers = ["view", "replies", "silent", "p50 ms", "p99 ms", "max ms", "late", "p99 vs 20 ms"]
    print(_util.table(headers, rows, title))


def _f(v: object) -> str:
    return f"{v:.3f}" if isinstance(v, float) else ""


def _verdict(p99: object, deadline: float) -> str:
    if not isinstance(p99, float):
        return "no replies"
    return "within" if p99 <= deadline else "OVER"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    ap.add_argument("--polls", type=int, default=2000, help="polls to send (half general)")
    ap.add_argument("--interval", type=float, default=0.01, help="seconds between polls")
    ap.add_argument("--rate", type=float, default=5.0, help="patron activities a second")
    ap.add_argument("--address", type=int, default=1, help="the machine's SAS address")
    ap.add_argument("--meter-poll", type=lambda s: int(s, 0), default=0x11,
                    help="the type R meter long poll (default 0x11)")  # fmt: skip
    ap.add_argument("--timeout", type=float, default=0.2, help="host's wait for a reply (s)")
    ap.add_argument("--quick", action="store_true", help="200 polls")
    args = ap.parse_args()
    if args.quick:
        args.polls = 200
    started = datetime.now().astimezone()
    res = run(args)
    print(json.dumps(res), flush=True)
    report(res, started)


if __name__ == "__main__":
    main()
