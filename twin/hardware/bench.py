"""A bench of SMIB emulators (``twin smib emulate``): ids, a simulated patron's play, and
the run that keeps every emulator of the bench busy until it is told to stop."""

from __future__ import annotations

import functools
import threading
import time
from pathlib import Path

import numpy as np

from twin.hardware.emulator import BILLS_CENTS, Memory, SmibEmulator, log
from twin.hardware.link import Broker
from twin.hardware.misbehaviour import Misbehaviour
from twin.hardware.netloop import NetLoop
from twin.hardware.truth import TruthLog
from twin.machines.par import Game

# -- a bench of emulators (``twin smib emulate``) ----------------------------------------------


def bench_ids(base: str, count: int) -> list[str]:
    """``base`` alone, or ``base-001`` .. ``base-<count>`` for a bench."""
    return [base] if count == 1 else [f"{base}-{i:03d}" for i in range(1, count + 1)]


def play_like_a_patron(emu: SmibEmulator, rng: np.random.Generator) -> None:
    """One activity of a simulated patron: a bill, a stretch of games or a cash out."""
    credits = emu.machine.credits
    if credits < 20:
        emu.insert_bill(int(rng.choice(BILLS_CENTS)))
    elif rng.random() < 0.1:
        emu.cash_out()
    else:
        emu.play(int(rng.integers(1, 21)))


def run_bench(
    ids: list[str],
    broker: Broker,
    password: str,
    game: Game,
    *,
    misbehave: str = "",
    events: int = 0,
    rate: float = 5.0,
    seed: int = 1,
    state_dir: Path | None = None,
    digits: int = 8,
    meters_every: int = 10,
    stop: threading.Event | None = None,
    connect_timeout: float = 30.0,
    serial: str = "",
    truth: Path | None = None,
) -> dict[str, dict[str, int]]:
    """Run emulated SMIBs until each sent ``events`` events (0: until ``stop`` is set).

    ``password`` and ``serial`` may hold ``{id}``. Each SMIB plays like a patron, ``rate``
    activities a second, sends its meters every ``meters_every`` events and at the end, then
    disconnects cleanly. Returns what each sent. Raises ConnectionError when one cannot connect.

    One :class:`~twin.hardware.netloop.NetLoop` thread plays every SMIB on its own schedule
    and moves every SMIB's MQTT traffic, so the bench costs the machine little besides the
    play itself.

    ``truth``: a :class:`~twin.hardware.truth.TruthLog` of what the SMIBs created, opened
    (created or truncated) before anything connects; InputError when it cannot be written.
    """
    stop = stop if stop is not None else threading.Event()
    log_file = TruthLog(truth) if truth is not None else None
    emus = []
    for i, smib in enumerate(ids):
        memory = Memory.load(state_dir / f"{smib}.json") if state_dir else Memory()
        emus.append(
            SmibEmulator(
                smib,
                broker,
                password.replace("{id}", smib),
                game,
                digits=digits,
                serial=serial.replace("{id}", smib),
                seed=seed * 100_003 + i,
                memory=memory,
                misbehave=Misbehaviour.parse(misbehave),
                truth=log_file,
            )
        )
    net = NetLoop()
    for emu in emus:
        emu.start(net)
    deadline = time.monotonic() + connect_timeout
    try:
        for emu in emus:
            while not emu.client.is_connected():
                if emu.refused or time.monotonic() > deadline:
                    why = emu.refused[0] if emu.refused else "no answer"
                    raise ConnectionError(f"SMIB {emu.smib}: cannot connect to the broker ({why})")
                time.sleep(0.05)
        _play_bench(emus, events, rate, seed, meters_every, stop, net, connect_timeout)
    finally:
        for emu in emus:
            emu.stop()
        net.close()
        if log_file is not None:
            log_file.close()
    return {e.smib: dict(e.sent) for e in emus}


def _play_bench(
    emus: list[SmibEmulator],
    events: int,
    rate: float,
    seed: int,
    meters_every: int,
    stop: threading.Event,
    net: NetLoop,
    connect_timeout: float = 30.0,
) -> None:
    """Each SMIB: an activity every ``1 / rate`` s (its own generator), its meters every
    ``meters_every`` events, the misbehaviour's reset, death, regress (the board replaced in
    ``emus`` by the one that comes back from the backup, on the same ``net``) and phantom; at
    the end (``events`` done, or ``stop``) what it held back and its meters (a board with a
    ``cmd_delay`` first answers the commands it received: it goes ``cmd_delay`` s later,
    unless ``stop``). Played in
    ``net``'s thread, each SMIB on its own schedule (their phases spread over a period); a
    SMIB more than a second behind its schedule (the machine is too busy) starts its
    schedule again rather than rush; one that came back plays once it is born again."""
    period = 1.0 / rate
    rngs = [np.random.default_rng([seed, i]) for i in range(len(emus))]
    done = [0] * len(emus)
    backups: dict[int, Memory] = {}
    reborn: dict[int, float] = {}  # SMIBs back from a backup: until when they may connect
    playing = set(range(len(emus)))
    finished = threading.Event()

    def close(i: int, *, die: bool = False, lingered: bool = False) -> None:
        if i not in playing:
            return
        delay = emus[i].misbehave.cmd_delay
        if delay and not die and not lingered:  # a slow board answers what it got, then goes
            net.call_at(time.monotonic() + delay + 0.1, functools.partial(close, i, lingered=True))
            return
        playing.discard(i)
        if not die:
            emus[i].flush_held()
            emus[i].send_meters()
        if not playing:
            finished.set()

    def activity(i: int, at: float) -> None:
        if i not in playing:
            return
        emu, m = emus[i], emus[i].misbehave
        if i in reborn:  # back from a backup: play once it is born again
            if emu.births == 0 and time.monotonic() < reborn[i]:
                net.call_at(time.monotonic() + 0.02, functools.partial(activity, i, at))
                return
            if emu.births == 0:
                log.error("SMIB %s: did not come back from its backup", emu.smib)
                close(i, die=True)
                return
            del reborn[i]
        try:
            play_like_a_patron(emu, rngs[i])
            done[i] += 1
            if done[i] == m.reset_at:
                emu.reset_meters()
            if done[i] == m.die_at:
                emu.die()
                close(i, die=True)
                return
            if done[i] == m.backup_at:
                backups[i] = emu.memory.backup()
            if done[i] == m.regress_at and i in backups:
                emu = emus[i] = emu.regress(backups.pop(i))
                emu.start(net)
                reborn[i] = time.monotonic() + connect_timeout  # says nothing before its birth
            if done[i] == m.phantom_at and i not in reborn:
                emu.phantom(m.phantom_bytes)
            if done[i] % meters_every == 0 and i not in reborn:
                emu.send_meters()
        except Exception:  # one SMIB's fault ends its play, not the bench
            log.exception("SMIB %s: its play failed", emu.smib)
            close(i, die=True)
            return
        if events and done[i] >= events:
            close(i)
            return
        nxt = at + period
        now = time.monotonic()
        nxt = nxt if nxt > now - 1.0 else now
        net.call_at(nxt, functools.partial(activity, i, nxt))

    def close_all() -> None:
        for i in sorted(playing):
            close(i, lingered=True)

    start = time.monotonic()
    for i in range(len(emus)):
        at = start + period * i / len(emus)
        net.call_at(at, functools.partial(activity, i, at))
    while not finished.wait(0.1):
        if stop.is_set():  # each that is still playing closes (in the loop's thread)
            net.call_at(0.0, close_all)
            finished.wait(30)
            break
