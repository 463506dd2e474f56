"""A real Mosquitto for the hardware tests, started by the test itself (see
:mod:`twin.hardware.mosquitto`: a free port, its own configuration, password and ACL files)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from twin.hardware import protocol as p
from twin.hardware.mosquitto import (
    MOSQUITTO,
    TWIN_PASSWORD,
    TWIN_USER,
    free_port,
    smib_password,
    wait_until,
)
from twin.hardware.mosquitto import Mosquitto as Broker


def up_watcher(broker: Broker, on_message: Callable[..., Any]) -> mqtt.Client:
    """A client of the twin's user that receives every SMIB's up-messages (``on_message``),
    connected and subscribed when it returns."""
    c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="watch", protocol=mqtt.MQTTv311)
    c.username_pw_set(TWIN_USER, TWIN_PASSWORD)
    subscribed = threading.Event()
    c.on_connect = lambda cl, *a: cl.subscribe(p.UP_FILTER, qos=1)
    c.on_subscribe = lambda *a: subscribed.set()
    c.on_message = on_message
    c.connect(broker.host, broker.port)
    c.loop_start()
    assert subscribed.wait(10), "the watcher could not subscribe"
    return c


__all__ = [
    "MOSQUITTO",
    "TWIN_PASSWORD",
    "TWIN_USER",
    "Broker",
    "free_port",
    "smib_password",
    "up_watcher",
    "wait_until",
]
