"""Fixtures of the hardware tests: a real Mosquitto per test (never skipped)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest

from .broker import Broker
from .rig import Rig

#: SMIB users the broker knows; the twin registers the first three (X-999 is a valid MQTT
#: user that the twin's registry does not know; R-001..R-012 are the reconnect storm's;
#: SAS-001..SAS-004 the SAS loop's).
SMIBS = (
    "S-001", "S-002", "S-003", "X-999",
    *(f"R-{i:03d}" for i in range(1, 13)),
    *(f"SAS-{i:03d}" for i in range(1, 5)),  # the SAS loop's SMIBs (test_sas_closed_loop.py)
)  # fmt: skip


@pytest.fixture(autouse=True)
def _no_socket_left_open() -> Iterator[None]:
    """After each hardware test, a collection: a socket the test left open in a reference
    cycle warns here, and fails this test (warnings are errors), not whatever later test
    happens to run the next collection.

    The source of the "unclosed socket" warnings of earlier sessions was paho's wake-up
    pair (two loopback sockets ``loop_start`` makes, closed by paho only in
    ``Client.__del__``, which a cycle may finalize after the sockets themselves);
    ``twin.hardware.link.close_socket`` now closes them with the connection, and
    ``test_link.py::test_stopped_clients_hold_no_socket`` holds every stop path to it.
    """
    yield
    gc.collect()


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    b = Broker(tmp_path, SMIBS)
    b.start()
    try:
        yield b
    finally:
        b.kill()


@pytest.fixture
def rig(broker: Broker) -> Iterator[Rig]:
    r = Rig(broker).start()
    try:
        yield r
    finally:
        r.close()


@pytest.fixture
def tls_broker(tmp_path: Path) -> Iterator[Broker]:
    """A broker with a plain listener and a TLS listener (a throwaway CA signed its cert)."""
    b = Broker(tmp_path, SMIBS, tls=True)
    b.start()
    try:
        yield b
    finally:
        b.kill()
