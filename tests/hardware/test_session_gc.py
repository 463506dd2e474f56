"""A hardware session freezes the built world for the collector while it runs, then not."""

from __future__ import annotations

import gc
from pathlib import Path

from twin import api
from twin.casino import Casino
from twin.hardware.session import Endpoint, HardwareSession

from .broker import TWIN_PASSWORD, TWIN_USER, Broker
from .floors import scenario


def test_the_world_is_frozen_while_the_session_runs(tmp_path: Path, broker: Broker) -> None:
    casino = Casino(
        api.prepare(scenario(tmp_path, seconds=5, bindings=(("A-001", "S-001", "mirror"),)))
    )
    assert casino.hardware is not None
    url = f"mqtt://{TWIN_USER}:{TWIN_PASSWORD}@{broker.host}:{broker.port}"
    before = gc.get_freeze_count()
    session = HardwareSession(casino.hardware, casino.inbox, Endpoint.parse(url)).start()
    try:
        assert gc.get_freeze_count() > before + 1000  # the casino's objects among them
    finally:
        session.stop()
    assert gc.get_freeze_count() == 0
    session.stop()  # twice: nothing more to unfreeze
    assert gc.get_freeze_count() == 0
