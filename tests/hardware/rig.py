"""A twin (link + book in a minimal world) and emulated SMIBs in front of a real broker."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from twin.hardware.book import HardwareWorld, Registered
from twin.hardware.emulator import Memory, SmibEmulator
from twin.hardware.link import Broker as Endpoint
from twin.hardware.link import LinkConfig, SmibLink, close_socket
from twin.hardware.records import SmibEvent, SmibMeters
from twin.machines.par import Game, load_game
from twin.records import MemorySink, R, Record, Sink

from .broker import TWIN_PASSWORD, TWIN_USER, Broker, smib_password

GAME_FILE = Path(__file__).resolve().parents[2] / "twin/data/scenarios/games/classic-3reel.toml"
REGISTERED = ("S-001", "S-002", "S-003")


def game() -> Game:
    return load_game(GAME_FILE)


class Rig:
    def __init__(
        self,
        broker: Broker,
        *,
        reorder_window: float = 0.3,
        smibs: tuple[str, ...] = REGISTERED,
        sinks: tuple[Sink, ...] = (),
        **config: Any,
    ) -> None:
        """``config``: LinkConfig settings besides the rig's (a shorter expiry, say)."""
        self.broker = broker
        self.game = game()
        self.registry = {
            s: Registered(s, f"A-{s[-3:]}", f"SN-{s}", self.game.signature) for s in smibs
        }
        self.sink = MemorySink()
        self.world = HardwareWorld(self.registry, sinks=(self.sink, *sinks))
        self.endpoint = Endpoint(broker.host, broker.port)
        self.link = SmibLink(
            self.world.inbox,
            self.registry,
            LinkConfig(
                self.endpoint,
                TWIN_USER,
                TWIN_PASSWORD,
                **{
                    "reorder_window": reorder_window,
                    "request_interval": 0.5,
                    "request_ttl": 1.0,
                    **config,
                },
            ),
        )
        self.emulators: list[SmibEmulator] = []

    def start(self) -> Rig:
        self.link.start()
        self.until("the twin connected", lambda: self.link.connects >= 1)
        return self

    def emulator(self, smib: str = "S-001", *, start: bool = True, **kw: Any) -> SmibEmulator:
        kw.setdefault("password", smib_password(smib))
        kw.setdefault("memory", Memory())
        emu = SmibEmulator(smib, self.endpoint, game=self.game, **kw)
        self.emulators.append(emu)
        if start:
            emu.start()
            self.until(f"{smib} online", lambda: self.online(smib))
        return emu

    def until(self, what: str, ok: Callable[[], bool], timeout: float = 30.0) -> None:
        """Pump the world until ``ok()``; fail naming ``what`` after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            self.world.pump()
            if ok():
                return
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out after {timeout} s waiting for {what}")
            time.sleep(0.02)

    def settle(self, seconds: float = 0.5) -> None:
        """Pump for a while (to show that nothing more arrives)."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.world.pump()
            time.sleep(0.02)

    def of(self, cls: type[R], smib: str | None = None) -> list[R]:
        return [r for r in self.sink.of(cls) if smib is None or r.entity("smib") == smib]

    def eids(self, smib: str = "S-001") -> list[int]:
        return [e.eid for e in self.of(SmibEvent, smib)]

    def online(self, smib: str) -> bool:
        from twin.hardware.records import SmibOnline

        return any(r.smib == smib for r in self.sink.of(SmibOnline))

    def close(self) -> None:
        for emu in self.emulators:
            try:
                emu.client.disconnect()
                emu.client.loop_stop()
                close_socket(emu.client)
            except Exception:
                pass
        self.link.stop()


class PlayWhenOnline:
    """A sink that starts ``play`` on a thread of its own once the twin holds the birth
    meters of SMIB ``smib``: play before then is history to the twin (at or before the
    birth's last event, in its baseline meters), not activity it mirrors. (A fixed delay
    after starting the run raced the twin's start-up, which takes longer on a busy machine:
    the tests run two at a time.)"""

    def __init__(self, smib: str, play: Callable[[], None]) -> None:
        self.smib = smib
        self.thread = threading.Thread(target=play, name=f"play-{smib}")
        self.started = False

    def accept(self, rec: Record) -> None:
        if (
            not self.started
            and isinstance(rec, SmibMeters)
            and rec.smib == self.smib
            and rec.source == "birth"
        ):
            self.started = True
            self.thread.start()

    def close(self) -> None:
        pass

    def join(self) -> None:
        """Wait for the play to end (after the run: it must have started)."""
        assert self.started, f"the twin never had {self.smib}'s birth meters"
        self.thread.join()
