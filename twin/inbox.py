"""The inbox: the only way into the world while it runs.

Any thread may :meth:`Inbox.put` a command (an operator's action in the viewer, a message from
the hardware link); only the simulation thread touches SimPy. The clock driver calls
:meth:`Inbox.poll` between steps; when commands are waiting, it rings a bell that one SimPy
process (:meth:`Inbox.deliver`) answers by handing every waiting command, in arrival order,
to the world's handler. Each command is numbered per source (1, 2, ...) under a lock, so the
order of each source's commands is kept.

Commands known in advance (the scenario's ``[[inject]]`` entries, a replayed ledger) are
:meth:`Inbox.schedule`-d at a simulation time. Live or scheduled, a command is applied with
the lowest priority of its instant (after every other event at the same time), so a replay
that schedules each command at the time the ledger says it was applied reproduces the run.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import simpy

from twin.world import LAST, LateTimeout


@dataclass(frozen=True, slots=True)
class Envelope:
    """A command with where it came from and its place among that source's commands."""

    source: str
    number: int
    command: Any


Handler = Callable[[Envelope], None]


class WrongThread(RuntimeError):
    """SimPy was about to be touched from a thread other than the simulation thread."""


class Inbox:
    """Thread-safe entry of commands, delivered inside the simulation by one process."""

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[Envelope] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._numbers: dict[str, int] = {}
        #: Set whenever a command is put; a paced driver sleeps on it.
        self.wake = threading.Event()
        self._env: simpy.Environment | None = None
        self._handler: Handler | None = None
        self._thread: int | None = None
        self._bell: simpy.Event | None = None
        self._rung = False
        self.delivered = 0

    # -- any thread --------------------------------------------------------------------------

    def put(self, command: Any, *, source: str = "operator") -> Envelope:
        """Queue ``command`` from ``source``; safe from any thread. Returns its envelope."""
        with self._lock:
            number = self._numbers.get(source, 0) + 1
            self._numbers[source] = number
            envelope = Envelope(source, number, command)
            self._queue.put(envelope)
        self.wake.set()
        return envelope

    def pending(self) -> bool:
        """Whether commands are waiting to be delivered."""
        return not self._queue.empty()

    # -- the simulation thread -----------------------------------------------------------------

    @property
    def sim_thread(self) -> int | None:
        """The ident of the thread that runs the simulation (set by :meth:`attach`)."""
        return self._thread

    def attach(self, env: simpy.Environment, handler: Handler) -> None:
        """Start delivering into ``env``; the calling thread becomes the simulation thread."""
        if self._env is not None:
            raise RuntimeError("the inbox is already attached to a world")
        self._env = env
        self._handler = handler
        self._thread = threading.get_ident()
        self._bell = env.event()
        env.process(self.deliver())

    def check_thread(self) -> None:
        if threading.get_ident() != self._thread:
            raise WrongThread("SimPy may only be touched from the simulation thread")

    def schedule(self, at: float, command: Any, *, source: str) -> Envelope:
        """Deliver ``command`` at simulation time ``at`` (not before now)."""
        env = self._require()
        envelope = self._number(command, source)
        env.process(self.deliver_at(max(at, env.now), envelope))
        return envelope

    def deliver_now(self, command: Any, *, source: str) -> Envelope:
        """Deliver ``command`` at once, from the simulation thread (before the floor opens)."""
        self._require()
        self.check_thread()
        envelope = self._number(command, source)
        self._hand_over(envelope)
        return envelope

    def _number(self, command: Any, source: str) -> Envelope:
        with self._lock:
            number = self._numbers.get(source, 0) + 1
            self._numbers[source] = number
        return Envelope(source, number, command)

    def poll(self, at: float | None = None) -> bool:
        """Ring the bell if commands wait: they are delivered at ``at`` (default: now).

        Called by the clock driver between steps. Returns whether the bell was rung.
        """
        env = self._require()
        self.wake.clear()
        if self._rung or self._queue.empty() or self._bell is None:
            return False
        when = env.now if at is None else max(at, env.now)
        bell = self._bell
        bell._ok = True
        bell._value = None
        env.schedule(bell, LAST, when - env.now)
        self._rung = True
        return True

    def deliver(self) -> simpy.events.ProcessGenerator:
        """The one process that hands waiting commands to the world, in arrival order."""
        env = self._require()
        while True:
            assert self._bell is not None
            yield self._bell
            self._bell = env.event()
            self._rung = False
            self.check_thread()
            while True:
                try:
                    envelope = self._queue.get_nowait()
                except queue.Empty:
                    break
                self._hand_over(envelope)

    def deliver_pending(self) -> int:
        """Hand every waiting command over now (the run is ending); how many there were."""
        self._require()
        self.check_thread()
        n = 0
        while True:
            try:
                envelope = self._queue.get_nowait()
            except queue.Empty:
                return n
            self._hand_over(envelope)
            n += 1

    def deliver_at(self, at: float, envelope: Envelope) -> simpy.events.ProcessGenerator:
        """Deliver one scheduled command at ``at``, after everything else at that instant."""
        env = self._require()
        yield LateTimeout(env, at - env.now, LAST)
        self.check_thread()
        self._hand_over(envelope)

    def _hand_over(self, envelope: Envelope) -> None:
        assert self._handler is not None
        self.delivered += 1
        self._handler(envelope)

    def _require(self) -> simpy.Environment:
        if self._env is None:
            raise RuntimeError("the inbox is not attached to a world yet")
        return self._env


__all__ = ["Envelope", "Handler", "Inbox", "WrongThread"]
