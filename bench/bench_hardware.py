"""P9: SMIB event -> ledger record and control verdict, with 100+ emulated SMIBs on loopback.

Run as ``python bench/bench_hardware.py`` (``--smibs 100 --rates 500,1000,2000,3000
--seconds 15 --reps 3``; ``--quick``: 500 msg/s for 5 s, once). It starts a Mosquitto on a
free loopback port and, for each aggregate rate (the repetitions interleaved):

* a twin: a casino whose floor has one machine per SMIB, each bound to it in mirror mode
  (``[[hardware]]``), paced x1, the compliance engine on, a hash-chained ledger on disk;
* a bench: ``twin smib emulate --count N --rate R/N`` in a subprocess (each SMIB plays like
  a patron: one event per activity, a meter snapshot every 10 events);

and measures, for every event, the time from the SMIB stamping it (``ts``, the emulator's
wall clock, same machine) to the moment its ``smib_event`` record and the machine records
derived from it (``bill_accepted``, ``games_played``, ...) have been through the compliance
engine and into the ledger (``SmibBook.latencies``). Nothing lost means: every event each
SMIB says it sent is in the ledger once, its eids contiguous. The saturation rate is the
first offered rate at which the twin applies fewer events per second than offered (less
than 95 %, medians) or the p99 passes 50 ms. Each rate also reports the CPU time each
process used per message (the twin's also per thread), the load average, and JSON lines.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime
from pathlib import Path

import _util  # noqa: F401  (puts this checkout first on sys.path)
import numpy as np

from twin.casino import Casino
from twin.departments import load_scenario
from twin.drivers import PacedDriver
from twin.hardware.mosquitto import TWIN_PASSWORD, TWIN_USER, Mosquitto
from twin.hardware.session import Endpoint, HardwareSession
from twin.ledger import Ledger

ROOT = Path(__file__).resolve().parent.parent
GAME = ROOT / "scenarios" / "games" / "classic-3reel.toml"
TARGET_P99_MS = 50.0


def floor_scenario(folder: Path, smibs: list[str], seconds: float) -> Path:
    src = (ROOT / "scenarios" / "suites" / "bench.toml").read_text()
    src = src.replace('"../games/classic-3reel.toml"', f'"{GAME}"')
    src = src.replace("count = 1\n", f"count = {len(smibs)}\n")
    src = src.replace("duration_hours = 24.0", f"duration_hours = {seconds / 3600!r}")
    src = src[: src.index("[[hardware]]")]
    for i, smib in enumerate(smibs, start=1):
        src += f'[[hardware]]\nmachine = "A-{i:03d}"\nsmib = "{smib}"\nmode = "mirror"\n'
    path = folder / "floor.toml"
    path.write_text(src)
    return path


def proc_cpu(pid: int | str) -> float:
    """CPU seconds (user + system) a running process has used so far (Linux ``/proc``)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def threads_cpu() -> dict[str, float]:
    """CPU seconds each live thread of this process has used so far, by thread name."""
    out: dict[str, float] = {}
    for th in threading.enumerate():
        if th.native_id is not None:
            name = "net" if th.name.startswith(("paho-mqtt", "smib-link-net")) else th.name
            out[name] = out.get(name, 0.0) + proc_cpu(f"{os.getpid()}/task/{th.native_id}")
    return out


def children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def one_rate(broker: Mosquitto, folder: Path, smibs: int, rate: float, seconds: float) -> dict:
    ids = [f"B-{i:03d}" for i in range(1, smibs + 1)]
    per_smib = rate / smibs / 1.1  # an event per activity, plus a snapshot every 10 events
    events = max(1, round(per_smib * seconds))
    run_seconds = seconds * 20 + 600.0  # an upper bound: the run stops once all is in
    casino = Casino(load_scenario(floor_scenario(folder, ids, run_seconds)))
    assert casino.hardware is not None
    ledger = Ledger(folder / f"ledger-{rate:g}.sqlite")
    casino.attach(ledger)
    casino.hardware.book.latencies = []
    url = f"mqtt://{TWIN_USER}:{TWIN_PASSWORD}@{broker.host}:{broker.port}"
    session = HardwareSession(casino.hardware, casino.inbox, Endpoint.parse(url)).start()
    sent: dict[str, int] = {}
    cpu: dict[str, float] = {}

    def bench() -> None:
        before = children_cpu()
        proc = subprocess.run(
            [sys.executable, "-m", "twin", "smib", "emulate", "--id", "B", "--count",
             str(smibs), "--broker", broker.url, "--password", "pw-{id}", "--events",
             str(events), "--rate", f"{per_smib:g}"],
            capture_output=True, text=True, timeout=seconds * 10 + 120,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )  # fmt: skip
        cpu["emulator"] = children_cpu() - before
        for line in proc.stdout.splitlines():
            m = re.match(r"(\S+): .*\bevt (\d+)", line)
            if m:
                sent[m.group(1)] = int(m.group(2))
        if proc.returncode != 0:
            print(proc.stderr, file=sys.stderr)

    assert broker.proc is not None
    broker_cpu0, twin_cpu0 = proc_cpu(broker.proc.pid), time.process_time()
    main_cpu0 = threads_cpu()["MainThread"]
    t = threading.Thread(target=bench)
    t.start()
    driver = PacedDriver(1.0)
    book = casino.hardware.book
    try:
        casino.start()
        # paced x1 in slices, until the bench has finished and every event it sent is in
        # (or 60 s after it finished: what is missing then is counted as lost)
        done_at: float | None = None
        while casino.env.now < casino.end:
            driver.drive(casino, min(casino.end, casino.env.now + 0.5))
            if t.is_alive():
                continue
            done_at = done_at or time.monotonic()
            if sum(book.applied.values()) >= sum(sent.values()):
                break
            if time.monotonic() - done_at > 60:
                break
        casino.finish()
        threads = threads_cpu()
        threads["MainThread"] -= main_cpu0
    finally:
        session.stop()
        ledger.close()
    t.join()
    cpu["twin"] = time.process_time() - twin_cpu0
    cpu["broker"] = proc_cpu(broker.proc.pid) - broker_cpu0
    lat = casino.hardware.book.latencies
    ms = np.array([(done - datetime.fromisoformat(ts).timestamp()) * 1000 for ts, done in lat])
    with sqlite3.connect(folder / f"ledger-{rate:g}.sqlite") as db:
        rows = db.execute("SELECT body FROM records WHERE kind = 'smib_event'").fetchall()
    eids: dict[str, list[int]] = {}
    for (body,) in rows:
        doc = json.loads(body)
        eids.setdefault(doc["smib"], []).append(doc["eid"])
    lost = sum(max(0, n - len(eids.get(s, []))) for s, n in sent.items())
    twice = sum(len(v) - len(set(v)) for v in eids.values())
    gaps = sum(1 for v in eids.values() if sorted(v) != list(range(1, len(v) + 1)))
    applied = len(lat)
    # from the first event stamped to the last one through the sinks
    first = min((datetime.fromisoformat(ts).timestamp() for ts, _ in lat), default=0.0)
    span = max((done for _, done in lat), default=0.0) - first
    return {
        "offered_msgs_s": rate,
        "smibs": smibs,
        "events": applied,
        "sent_events": sum(sent.values()),
        "seconds": round(span, 1),
        "achieved_events_s": round(applied / span, 1) if span else 0.0,
        "p50_ms": round(float(np.percentile(ms, 50)), 2) if len(ms) else None,
        "p99_ms": round(float(np.percentile(ms, 99)), 2) if len(ms) else None,
        "max_ms": round(float(ms.max()), 1) if len(ms) else None,
        "lost": lost,
        "twice": twice,
        "gaps": gaps,
        "rejected": dict(session.link.rejected),
        # CPU seconds of each process over the rate (the twin's includes its setup and the
        # wait for the last events), and per message sent (events and snapshots)
        "cpu_s": {k: round(v, 2) for k, v in cpu.items()},
        "cpu_us_per_msg": {k: round(v / (applied * 1.1) * 1e6) if applied else None
                           for k, v in cpu.items()},
        # the twin's threads: MainThread = the simulation, net = the MQTT network thread
        "twin_threads_cpu_s": {k: round(v, 2) for k, v in threads.items()
                               if k in ("MainThread", "net", "smib-link")},
        "load": round(os.getloadavg()[0], 1),
    }  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--smibs", type=int, default=100)
    ap.add_argument("--rates", default="500,1000,2000,3000", help="aggregate messages/s")
    ap.add_argument("--seconds", type=float, default=15.0, help="bench time per rate")
    ap.add_argument("--reps", type=int, default=1, help="repetitions (rates interleaved)")
    ap.add_argument("--quick", action="store_true", help="one rate (500 msg/s), 5 s, once")
    args = ap.parse_args()
    rates = [500.0] if args.quick else [float(r) for r in args.rates.split(",")]
    seconds = 5.0 if args.quick else args.seconds
    reps = 1 if args.quick else args.reps
    started = datetime.now().astimezone()
    loads = [os.getloadavg()[0]]
    results: dict[float, list[dict]] = {rate: [] for rate in rates}
    with tempfile.TemporaryDirectory(prefix="bench-hw-") as tmp:
        folder = Path(tmp)
        ids = tuple(f"B-{i:03d}" for i in range(1, args.smibs + 1))
        broker = Mosquitto(folder, ids)
        broker.start()
        try:
            for rep in range(1, reps + 1):
                for rate in rates:
                    print(f"rate {rate:g} msg/s, repetition {rep}/{reps}", file=sys.stderr)
                    sub = folder / f"r{rate:g}-{rep}"
                    sub.mkdir()
                    res = one_rate(broker, sub, args.smibs, rate, seconds)
                    res["rep"] = rep
                    results[rate].append(res)
                    loads.append(res["load"])
                    print(json.dumps(res), flush=True)
        finally:
            broker.kill()
    report(results, args.smibs, started, loads)


def report(results: dict[float, list[dict]], smibs: int, started: datetime, loads: list) -> None:
    """The curve: medians over the repetitions (and their range), the verdict per rate and
    the saturation rate."""

    def med(rs: list[dict], key: str) -> float:
        return float(np.median([r[key] if r[key] is not None else np.inf for r in rs]))

    def rng(rs: list[dict], key: str) -> str:
        v = [r[key] for r in rs if r[key] is not None]
        return f"{min(v):g}..{max(v):g}" if len(v) > 1 else ""

    print(f"\nP9: {smibs} emulated SMIBs on loopback, {os.cpu_count()} cores, "
          f"{started:%Y-%m-%d %H:%M %Z}, load average {min(loads):.1f}..{max(loads):.1f}; "
          f"medians of {max(len(v) for v in results.values())} repetition(s) [range]")  # fmt: skip
    head = ("offered msg/s", "offered ev/s", "applied ev/s", "p50 ms", "p99 ms", "p99 range",
            "max ms", "lost", "twice", "CPU µs/msg twin+emulator+broker", "verdict")  # fmt: skip
    print(" | ".join(head))
    saturation = None
    for rate, rs in results.items():
        offered = rate / 1.1
        applied = med(rs, "achieved_events_s")
        p99 = med(rs, "p99_ms")
        lost = sum(r["lost"] for r in rs)
        twice = sum(r["twice"] for r in rs)
        cpu = {k: float(np.median([r["cpu_us_per_msg"][k] or 0 for r in rs]))
               for k in ("twin", "emulator", "broker")}  # fmt: skip
        ok = lost == 0 and twice == 0 and p99 <= TARGET_P99_MS
        keeps_up = applied >= 0.95 * offered
        if saturation is None and not (keeps_up and p99 <= TARGET_P99_MS):
            saturation = rate
        print(" | ".join([f"{rate:g}", f"{offered:.0f}", f"{applied:.0f}",
                          f"{med(rs, 'p50_ms'):.1f}", f"{p99:.1f}", rng(rs, "p99_ms"),
                          f"{med(rs, 'max_ms'):.0f}", str(lost), str(twice),
                          "+".join(f"{v:.0f}" for v in cpu.values()),
                          "ok" if ok else "over"]))  # fmt: skip
    if saturation is None:
        print(f"saturation: above {max(results):g} msg/s (the highest rate tried)")
    else:
        print(f"saturation: at {saturation:g} msg/s the twin applies fewer events than offered "
              f"or its p99 passes {TARGET_P99_MS:g} ms")  # fmt: skip


if __name__ == "__main__":
    main()
