"""The MQTT client side both ends share: where the broker is, the link's settings, and
closing what a stopped paho client still holds."""

from __future__ import annotations

import contextlib
import socket
from dataclasses import dataclass
from urllib.parse import urlparse

import paho.mqtt.client as mqtt


def close_socket(client: mqtt.Client) -> None:
    """Close every socket a stopped client still holds (call it after ``loop_stop``).

    * The connection, if its network loop left it open: ``disconnect`` closes it only
      through a loop that is still running and connected (not while reconnecting to a
      broker that went away).
    * The pair of loopback sockets ``loop_start`` makes to wake its thread: paho closes
      them only in ``Client.__del__``. A client is usually in a reference cycle (its
      callbacks are bound methods of an object holding it), and the collector finalizes a
      cycle's objects in no set order: when a socket's finalizer runs before the client's
      ``__del__`` it warns "unclosed socket" (ResourceWarning), in whatever code happened to
      trigger the collection.
    """
    sock = client.socket()
    if isinstance(sock, socket.socket):
        with contextlib.suppress(OSError):
            sock.close()
    for name in ("_sockpairR", "_sockpairW"):  # paho 2.x: loop_start's wake-up pair
        pair = getattr(client, name, None)
        if isinstance(pair, socket.socket):
            with contextlib.suppress(OSError):
                pair.close()
            setattr(client, name, None)


@dataclass(frozen=True)
class Broker:
    """Where the broker is: ``mqtt://host[:port]`` or, over TLS, ``mqtts://host[:port]``
    with ``ca`` the certificate file of the authority that signed the broker's."""

    host: str
    port: int
    tls: bool = False
    ca: str | None = None

    @classmethod
    def parse(cls, url: str, ca: str | None = None) -> Broker:
        """The broker of ``url`` (port 1883, or 8883 over TLS); ValueError naming the fault."""
        u = urlparse(url)
        if u.scheme not in ("mqtt", "mqtts") or not u.hostname:
            raise ValueError(f"broker URL {url!r}: expected mqtt://host[:port] or mqtts://...")
        tls = u.scheme == "mqtts"
        return cls(u.hostname, u.port or (8883 if tls else 1883), tls, ca)

    def secure(self, client: mqtt.Client) -> None:
        """Turn on TLS for ``client`` when the broker wants it (the broker's name is checked)."""
        if self.tls:
            client.tls_set(ca_certs=self.ca)


@dataclass(frozen=True)
class LinkConfig:
    broker: Broker
    username: str
    password: str
    twin: str = "twin"
    reorder_window: float = 0.3  # seconds a gap may stay open before it is asked for
    request_interval: float = 1.0  # backoff base: at most one request per SMIB this often
    jitter: float = 0.1  # up to this much random delay on top of the window and backoff
    command_ttl: float = 30.0  # a command sent through :meth:`SmibLink.command` expires
    request_ttl: float = 5.0  # the link's own requests (replay, rebirth) expire after this
    request_attempts: int = 5  # a need is asked this many times, then given up (declared)
    digest_window: int = 4_096  # the last eids whose content digest is kept per SMIB
    keepalive: int = 5
    seed: int = 0


__all__ = ["Broker", "LinkConfig", "close_socket"]
