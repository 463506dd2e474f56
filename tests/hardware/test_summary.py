"""``summary.json`` of a run with hardware counts the hardware findings (``HW.*``) per control."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from twin import api
from twin.hardware.emulator import Memory, SmibEmulator
from twin.hardware.findings import CATALOG
from twin.hardware.link import Broker as Endpoint
from twin.hardware.machine import SAS_ONLY
from twin.machines.par import load_game

from .broker import TWIN_PASSWORD, TWIN_USER, Broker, smib_password
from .floors import GAME, scenario
from .rig import PlayWhenOnline


def test_summary_counts_hardware_findings_per_control(tmp_path: Path, broker: Broker) -> None:
    """S-001 reports a serial the registry does not know (HW.identity) and a coin-in meter
    that moved without an event (HW.reconcile): both are counted under their control in
    summary.json, the other hardware findings a mirror floor checks are listed with 0, the
    drive-only ones are not (no machine is in drive mode), and the counts add up."""
    path = scenario(tmp_path, seconds=6, bindings=(("A-001", "S-001", "mirror"),))
    emu = SmibEmulator("S-001", Endpoint(broker.host, broker.port), smib_password("S-001"),
                       load_game(GAME), serial="SN-NOT-REGISTERED", memory=Memory())  # fmt: skip
    emu.start()

    def play() -> None:
        emu.insert_bill(2000)
        emu.play(10)
        emu.skew_meter("total_coin_in", 7)
        emu.send_meters()

    player = PlayWhenOnline("S-001", play)
    url = f"mqtt://{TWIN_USER}:{TWIN_PASSWORD}@{broker.host}:{broker.port}"
    try:
        result = api.run(path, hardware=url, out=tmp_path / "out", sinks=[player])
    finally:
        if player.started:
            player.thread.join()
        emu.stop()
    player.join()
    found = Counter(f["control"] for f in result.findings)
    assert found["HW.identity"] == 1 and found["HW.reconcile"] == 1
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    c = summary["compliance"]
    by_control = c["by_control"]
    hw = {k: v for k, v in by_control.items() if k.startswith("HW.")}
    assert hw == {
        "HW.reconcile": 1,
        "HW.meter_reset": 0,
        "HW.events_lost": 0,
        "HW.event_conflict": 0,
        "HW.counters_reset": 0,
        "HW.queue_overflow": 0,
        "HW.identity": 1,
    }
    # neither the drive checks nor the SAS loop's: no machine drives, none is on a SAS line
    assert set(hw) == {f.id for f in CATALOG} - {"HW.drive", "HW.par"} - SAS_ONLY
    assert sum(by_control.values()) == c["findings"] == len(result.findings)
    assert by_control == {**by_control, **found}  # every finding's control, counted right
    # the catalogued controls' verdicts are the catalogue's (HW.* are not among them), and
    # "checked" counts only those that observed something (issue 25)
    assert set(c["verdicts"]) == set(by_control) - set(hw) | {
        k for k, v in c["verdicts"].items() if v["status"] == "not_implemented"
    }
    assert sum(c["verdict_counts"].values()) == c["controls_catalogued"]
    assert c["controls_checked"] == c["verdict_counts"]["breached"] + c["verdict_counts"]["checked"]
