"""A real Mosquitto for the hardware tests, started by the test itself (see
:mod:`twin.hardware.mosquitto`: a free port, its own configuration, password and ACL files)."""

from __future__ import annotations

from twin.hardware.mosquitto import (
    MOSQUITTO,
    TWIN_PASSWORD,
    TWIN_USER,
    free_port,
    smib_password,
    wait_until,
)
from twin.hardware.mosquitto import Mosquitto as Broker

__all__ = [
    "MOSQUITTO",
    "TWIN_PASSWORD",
    "TWIN_USER",
    "Broker",
    "free_port",
    "smib_password",
    "wait_until",
]
