"""One network thread for many paho clients (a bench of emulated SMIBs).

``client.loop_start()`` gives every client a thread of its own that wakes through a socket
pair for each message it sends; a bench of 100 SMIBs then runs 100 such threads that fight
over the GIL, and the emulator, not the twin, is what limits the rate a bench can offer.
:class:`NetLoop` does the same work for all of them in one thread, through paho's
external-loop interface (``loop_read``, ``loop_write``, ``loop_misc`` and the socket
callbacks): one ``select`` over every client's socket, the writes of every client that
queued something since the last round (one wake-up for however many messages), keepalive
pings, and the reconnection of a client whose connection dropped after 1 s, then 2 s (as
``reconnect_delay_set(1, 2)`` does in paho's own loop). Every write of a client happens in
this thread, so its packets go out whole and in order, as with paho's thread. Work can be
scheduled into the thread too (:meth:`NetLoop.call_at`): a bench plays its machines there,
so that what they send needs no wake-up and no other thread at all.

The MQTT traffic is the same as with ``loop_start``: same connections, credentials, wills,
QoS and packets; only the threads that move it differ.
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import logging
import select
import selectors
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import paho.mqtt.client as mqtt

log = logging.getLogger("twin.hardware.netloop")

#: seconds between keepalive checks of every client (paho's own loop checks after each select)
MISC_EVERY = 0.25
#: reconnection delays: the first, and every later one (``reconnect_delay_set(1, 2)``)
FIRST_DELAY, LATER_DELAY = 1.0, 2.0


@dataclass(eq=False)
class _Client:
    client: mqtt.Client
    sock: Any = None  # the socket registered in the selector
    writing: bool = False  # registered for EVENT_WRITE (its socket was full)
    leaving: bool = False  # asked to disconnect or killed: never reconnected
    delay: float | None = None  # the last reconnection delay (None: none since connected)
    closed: threading.Event = field(default_factory=threading.Event)


class NetLoop:
    """See the module docstring. :meth:`add` clients after ``connect_async``; thread-safe."""

    def __init__(self, name: str = "smib-netloop") -> None:
        self._sel = selectors.DefaultSelector()
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._wake_w.setblocking(False)
        self._sel.register(self._wake_r, selectors.EVENT_READ, None)
        self._lock = threading.Lock()
        self._woken = False
        self._want: set[_Client] = set()  # clients with something queued to write
        self._jobs: list[Callable[[], None]] = []  # run in the loop thread
        self._clients: dict[mqtt.Client, _Client] = {}
        self._pending: dict[_Client, float] = {}  # (re)connections due, by monotonic time
        self._timers: list[tuple[float, int, Callable[[], None]]] = []  # a heap
        self._timer_no = itertools.count()
        self._stop = False
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    # -- any thread ------------------------------------------------------------------------------

    def add(self, client: mqtt.Client) -> None:
        """Serve ``client`` (``connect_async`` already called): it connects from this loop."""
        c = _Client(client)
        client.on_socket_open = self._on_open
        client.on_socket_close = self._on_close
        client.on_socket_register_write = self._on_register_write
        client.on_socket_unregister_write = self._on_unregister_write

        def job() -> None:
            self._clients[client] = c
            self._pending[c] = 0.0  # connect at once

        self._call(job)

    def disconnect(self, client: mqtt.Client, timeout: float = 5.0) -> None:
        """A clean DISCONNECT, written by the loop; returns once the socket is closed (or
        after ``timeout``). The client is not reconnected."""
        c = self._clients.get(client)
        if c is None or self._stop:
            return
        c.leaving = True
        client.disconnect()  # queues DISCONNECT; the loop writes it and closes the socket
        if c.sock is None:
            c.closed.set()
        self._wake()
        c.closed.wait(timeout)

        def job() -> None:
            self._clients.pop(client, None)

        self._call(job)

    def kill(self, client: mqtt.Client, drain: float = 10.0) -> None:
        """Cut the connection with no DISCONNECT (a power cut: the broker sends the will),
        once what the client has queued is written and acknowledged (up to ``drain``
        seconds), as paho's ``loop_stop`` lets its thread finish before the socket is cut."""
        if self._stop:
            return
        done = threading.Event()

        def job() -> None:
            c = self._clients.pop(client, None)
            if c is not None:
                c.leaving = True
                self._drain(c, time.monotonic() + drain)
                sock = c.sock
                self._forget(c)
                if isinstance(sock, socket.socket):
                    with contextlib.suppress(OSError):
                        sock.shutdown(socket.SHUT_RDWR)
                    sock.close()
            done.set()

        self._call(job)
        done.wait(10)

    def call_at(self, when: float, fn: Callable[[], None]) -> None:
        """Run ``fn()`` in the loop thread at ``time.monotonic()`` ``when`` (or as soon as
        it can after); calls due at the same time run in the order they were made."""

        def job() -> None:
            heapq.heappush(self._timers, (when, next(self._timer_no), fn))

        self._call(job)

    def close(self) -> None:
        """End the thread; the sockets of clients still served are closed with no
        DISCONNECT (as a power cut: the broker sends their wills), so none is left to the
        collector. Closing twice is a no-op, and so is anything asked of a closed loop."""
        with self._lock:
            if self._stop:
                return
            self._stop = True
            with contextlib.suppress(BlockingIOError):
                self._wake_w.send(b"x")
        self._thread.join(timeout=10)
        if not self._thread.is_alive():  # the loop's state is ours now
            for c in list(self._clients.values()):
                sock = c.sock
                if isinstance(sock, socket.socket):
                    with contextlib.suppress(OSError):
                        sock.shutdown(socket.SHUT_RDWR)
                    sock.close()
        self._sel.close()
        self._wake_r.close()
        self._wake_w.close()

    def _call(self, job: Callable[[], None]) -> None:
        if self._stop:
            return
        if threading.current_thread() is self._thread:
            job()
            return
        with self._lock:
            self._jobs.append(job)
        self._wake()

    def _wake(self) -> None:
        with self._lock:
            if self._woken or self._stop:
                return
            self._woken = True
            with contextlib.suppress(BlockingIOError):
                self._wake_w.send(b"x")

    # -- paho's socket callbacks (the loop thread, except register_write) -------------------------

    def _on_open(self, client: mqtt.Client, userdata: Any, sock: Any) -> None:
        c = self._clients.get(client)
        if c is not None:
            c.sock = sock
            c.writing = False
            c.closed.clear()
            self._sel.register(sock, selectors.EVENT_READ, c)

    def _on_close(self, client: mqtt.Client, userdata: Any, sock: Any) -> None:
        c = self._clients.get(client)
        if c is not None and c.sock is sock:
            self._forget(c)

    def _on_register_write(self, client: mqtt.Client, userdata: Any, sock: Any) -> None:
        """A client queued a packet (any thread): the loop writes it in its next round."""
        c = self._clients.get(client)
        if c is None:
            return
        with self._lock:
            self._want.add(c)
        if threading.current_thread() is not self._thread:
            self._wake()

    def _on_unregister_write(self, client: mqtt.Client, userdata: Any, sock: Any) -> None:
        pass  # the loop looks at want_write() after each write itself

    # -- the loop thread -------------------------------------------------------------------------

    def _drain(self, c: _Client, until: float) -> None:
        """Serve ``c`` alone until nothing it sent waits to be written or acknowledged."""
        client = c.client
        while c.sock is not None and time.monotonic() < until:
            unacked = len(getattr(client, "_out_messages", ()))  # paho's loop looks at it too
            if not client.want_write() and not unacked:
                return
            if client.want_write():
                client.loop_write()
            if c.sock is not None and select.select([c.sock], [], [], 0.05)[0]:
                client.loop_read()

    def _forget(self, c: _Client) -> None:
        """Its socket is closed (or failed to open): unregister it; reconnect it later unless
        it is leaving, after 1 s, then 2 s, as paho's loop would."""
        if c.sock is not None:
            with contextlib.suppress(KeyError, ValueError):
                self._sel.unregister(c.sock)
            c.sock = None
        c.writing = False
        c.closed.set()
        if c.leaving or c in self._pending:
            return
        if c.client.is_connected():  # paho closes the socket before it changes the state
            c.delay = None
        c.delay = FIRST_DELAY if c.delay is None else min(c.delay * 2, LATER_DELAY)
        self._pending[c] = time.monotonic() + c.delay

    def _connect(self, c: _Client) -> None:
        try:
            c.client.reconnect()
        except OSError:
            failed = c.client.on_connect_fail  # as paho's loop does
            if failed is not None:
                failed(c.client, c.client.user_data_get())
            self._forget(c)

    def _run(self) -> None:
        next_misc = time.monotonic()
        while not self._stop:
            try:
                next_misc = self._round(next_misc)
            except Exception:  # a bug of ours must not end every SMIB's connection
                log.exception("network loop: a round failed")
                time.sleep(0.05)

    def _round(self, next_misc: float) -> float:
        now = time.monotonic()
        with self._lock:
            jobs, self._jobs = self._jobs, []
        for job in jobs:
            job()
        wake_at = next_misc
        for c, due in list(self._pending.items()):
            if c.leaving:
                del self._pending[c]
            elif due <= now:
                del self._pending[c]
                self._connect(c)
            else:
                wake_at = min(wake_at, due)
        if self._timers:
            wake_at = min(wake_at, self._timers[0][0])
        for key, mask in self._sel.select(max(0.0, min(wake_at - now, 0.5))):
            c = key.data
            if c is None:
                with contextlib.suppress(BlockingIOError):
                    self._wake_r.recv(4096)
                continue
            if mask & selectors.EVENT_READ and c.sock is not None:
                c.client.loop_read()
            if mask & selectors.EVENT_WRITE:
                with self._lock:
                    self._want.add(c)
        now = time.monotonic()
        while self._timers and self._timers[0][0] <= now:
            _, _, fn = heapq.heappop(self._timers)
            try:
                fn()
            except Exception:
                log.exception("network loop: a scheduled call failed")
        with self._lock:
            want, self._want = self._want, set()
            self._woken = False
        for c in want:
            if c.sock is None:
                continue
            c.client.loop_write()
            full = c.client.want_write() and c.sock is not None
            if full != c.writing and c.sock is not None:  # wait until the socket takes more
                events = selectors.EVENT_READ | (selectors.EVENT_WRITE if full else 0)
                self._sel.modify(c.sock, events, c)
                c.writing = full
        now = time.monotonic()
        if now >= next_misc:
            for c in list(self._clients.values()):
                if c.sock is not None:
                    c.client.loop_misc()
            next_misc = now + MISC_EVERY
        return next_misc


__all__ = ["NetLoop"]
