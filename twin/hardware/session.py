"""A run's connection to its SMIBs: the link, the live status lines, the closing meters.

:func:`connect` is what ``twin.api.run(hardware=URL)`` calls for a scenario with
``[[hardware]]`` bindings: it starts a :class:`~twin.hardware.link.SmibLink` that puts every
message into the casino's inbox, makes it the floor's sender of commands, and (with
``on_lines``) reports each SMIB's state every ``every`` seconds from a thread of its own:
online, age of its last message, lag (link to ledger), reconciliation.
"""

from __future__ import annotations

import gc
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlparse

from twin.hardware.link import Broker, LinkConfig, SmibLink, resume_points
from twin.hardware.machine import HardwareFloor
from twin.inbox import Inbox

if TYPE_CHECKING:
    from twin.hardware.sas.station import Station

Lines = Callable[[list[str]], None]


@dataclass(frozen=True)
class Endpoint:
    """``mqtt[s]://[user[:password]@]host[:port]``; the user and password may instead come
    from ``TWIN_MQTT_USER`` / ``TWIN_MQTT_PASSWORD`` (default user ``twin``)."""

    broker: Broker
    user: str
    password: str

    @classmethod
    def parse(cls, url: str, ca: str | None = None) -> Endpoint:
        """ValueError naming what was expected and what was found."""
        broker = Broker.parse(url, ca)
        u = urlparse(url)
        user = unquote(u.username) if u.username else os.environ.get("TWIN_MQTT_USER", "twin")
        pw = unquote(u.password) if u.password else os.environ.get("TWIN_MQTT_PASSWORD", "")
        return cls(broker, user, pw)


class HardwareSession:
    """See the module docstring. ``start`` / ``stop`` from the simulation thread."""

    def __init__(
        self,
        floor: HardwareFloor,
        inbox: Inbox,
        endpoint: Endpoint,
        *,
        on_lines: Lines | None = None,
        every: float = 1.0,
        twin: str = "twin",
        closing_seconds: float = 5.0,
        resume: dict[str, tuple[int, int]] | None = None,
        birth_seconds: float = 30.0,
        source: str = "<scenario>",
    ) -> None:
        self.source = source  # the scenario file, for errors naming a [[sas]] entry
        self.floor = floor
        self.inbox = inbox
        self.endpoint = endpoint
        self.link = SmibLink(
            inbox,
            floor.smibs,
            LinkConfig(endpoint.broker, endpoint.user, endpoint.password, twin=twin),
            resume=resume,
        )
        self.on_lines = on_lines
        self.every = every
        self.closing_seconds = closing_seconds
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._frozen = False
        self.station: Station | None = None  # the [[sas]] lines (issue 30)
        self.birth_seconds = birth_seconds
        floor.sender = self.link
        floor.on_closing = self.closing

    def start(self, timeout: float = 15.0) -> HardwareSession:
        """Connect; ConnectionError naming the broker when it cannot."""
        self.link.start()
        deadline = time.monotonic() + timeout
        while self.link.connects == 0:
            if self.link.refused or time.monotonic() > deadline:
                self.link.stop()
                b = self.endpoint.broker
                why = self.link.refused[0] if self.link.refused else f"no answer in {timeout:g} s"
                raise ConnectionError(
                    f"cannot connect to the MQTT broker at {b.host}:{b.port} as "
                    f"{self.endpoint.user!r} ({why})"
                )
            time.sleep(0.02)
        if self.floor.loops:
            self._start_station()
        if self.on_lines is not None:
            self._thread = threading.Thread(target=self._report, name="smib-status", daemon=True)
            self._thread.start()
        # the world is built: collect once and freeze what is alive (floor, games, compliance
        # tables), so that the collector's full passes during the paced run look only at
        # what the run creates; a full pass over everything stopped both threads for
        # ~70 ms a few times a minute at 2,000 messages/s, growing with the heap
        gc.collect()
        gc.freeze()
        self._frozen = True
        return self

    def _start_station(self) -> None:
        """Serve the [[sas]] lines and wait (up to ``birth_seconds``) until each line's SMIB
        is online: ConnectionError naming the one that is not (and what a reference SMIB that
        exited said)."""
        from twin.hardware.sas.station import Station

        b = self.endpoint.broker
        url = f"{'mqtts' if b.tls else 'mqtt'}://{b.host}:{b.port}"
        try:
            self.station = Station(
                self.floor.loops, self.floor.sas, broker_url=url, ca=b.ca,
                now=lambda: float(self.floor.world.env.now), source=self.source,
            ).start()  # fmt: skip
        except BaseException:
            self.link.stop()
            raise
        deadline = time.monotonic() + self.birth_seconds
        waiting = [x.smib for x in self.floor.sas]
        while waiting:
            dead = self.station.dead_bridge()
            if dead is not None or time.monotonic() > deadline:
                self.station.stop()
                self.link.stop()
                raise ConnectionError(
                    dead
                    or f"SMIB(s) {', '.join(waiting)} not online after "
                    f"{self.birth_seconds:g} s (is a SMIB polling each [[sas]] port?)"
                )
            waiting = [s for s in waiting if not self.link.session(s)["online"]]
            time.sleep(0.05)

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self.link.stop()
        if self.station is not None:  # after the link: their goodbyes are nobody's business
            self.station.stop()
        if self._frozen:  # what was frozen is collectable again
            self._frozen = False
            gc.unfreeze()

    def closing(self) -> None:
        """Ask every online SMIB for its meters and wait (up to ``closing_seconds``) for them:
        the run's last reading of each hardware machine."""
        if self.station is not None:  # every exception the machines raised is read first
            self.station.drain(self.closing_seconds)
        asked: dict[str, int] = {}
        for smib in self.floor.smibs:
            s = self.link.session(smib)
            if s["online"]:
                asked[smib] = s["snapshots_seen"]
                self.link.command(smib, "read_meters", {}, "closing meter reading")
        deadline = time.monotonic() + self.closing_seconds
        while asked and time.monotonic() < deadline:
            asked = {k: v for k, v in asked.items() if self.link.session(k)["snapshots_seen"] <= v}
            time.sleep(0.02)
        # the run's last word on each SMIB: what is still missing is declared lost, not left
        # in the link (smib_closed: every event up to its last_eid applied or declared)
        self.link.finish()

    def lines(self) -> list[str]:
        """One line per SMIB: online, last message, lag, reconciliation."""
        out = []
        now = time.monotonic()
        bound: list[tuple[str, str, str]] = [
            (b.smib, b.machine, b.mode) for b in self.floor.bindings
        ]
        bound += [(b.smib, b.machine, "sas") for b in self.floor.sas]
        for smib, machine, mode in bound:
            s = self.link.session(smib)
            st = self.floor.book.stats[smib]
            seen = s["last_seen"]
            age = "never" if seen is None else f"{now - seen:.1f} s ago"
            # what is not (yet) applied shows: held behind a gap, declared lost, refused
            gaps = [
                f"held {len(s['held'])} behind a gap" if s["held"] else "",
                f"asking ({s['asking']}, attempt {s['attempts']})" if s["asking"] else "",
                f"lost {st.lost}" if st.lost else "",
                f"conflicts {st.conflicts}" if st.conflicts else "",
                f"series {st.series}" if st.series else "",
            ]
            out.append(
                f"SMIB {smib} ({machine}, {mode}): "
                f"{'online' if s['online'] else 'OFFLINE'}, last message {age}, "
                f"lag {st.lag * 1000:.0f} ms (max {st.max_lag * 1000:.0f} ms), "
                f"events {st.events}, "
                + "".join(f"{g}, " for g in gaps if g)
                + f"reconciliation {st.reconciliation}"
                + self._loop(smib)
            )
        return out

    def _loop(self, smib: str) -> str:
        """A [[sas]] line's exceptions: raised by the machine, read by the SMIB over SAS,
        reported to the host (and lost to a full queue, when any were)."""
        loop = self.floor.loops.get(smib)
        if loop is None:
            return ""
        raised, read, dropped, host = loop.view.counts()
        return f", SAS exceptions raised {raised}, read {read}, at the host {host}" + (
            f", dropped {dropped}" if dropped else ""
        )

    def _report(self) -> None:
        assert self.on_lines is not None
        while not self._stop.wait(self.every):
            self.on_lines(self.lines())
        self.on_lines(self.lines())


def connect(
    floor: HardwareFloor,
    inbox: Inbox,
    url: str,
    *,
    ca: str | None = None,
    on_lines: Lines | None = None,
    every: float = 1.0,
    resume: dict[str, tuple[int, int]] | None = None,
    source: str = "<scenario>",
) -> HardwareSession:
    """Start the link of ``floor`` to the broker at ``url`` (see :class:`Endpoint`);
    ``resume``: :func:`resume_from` an earlier run of the twin; ``source``: the scenario
    file (errors about its ``[[sas]]`` entries name it)."""
    return HardwareSession(
        floor, inbox, Endpoint.parse(url, ca), on_lines=on_lines, every=every, resume=resume,
        source=source,
    ).start()  # fmt: skip


def resume_from(path: str | Path) -> dict[str, tuple[int, int]]:
    """Each SMIB's (series, last eid applied or declared lost) in the ledger of an earlier
    run: ``path`` is its folder (complete, or ``<out>.incomplete`` after a crash) or its
    ``ledger.sqlite``. InputError naming the path when it is neither."""
    from twin.errors import InputError
    from twin.ledger import read
    from twin.outputs import LEDGER

    where = Path(path)
    ledger = where / LEDGER if where.is_dir() else where
    if not ledger.is_file():
        raise InputError(
            "--resume", "", f"a run folder holding {LEDGER}, or a ledger file", str(path)
        )
    return resume_points(read(ledger))


__all__ = ["Endpoint", "HardwareSession", "connect", "resume_from"]
