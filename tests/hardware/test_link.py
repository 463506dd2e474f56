"""The link end to end against a real Mosquitto: birth, events, snapshots, reconciliation."""

from __future__ import annotations

from twin.hardware.records import SmibMeters, SmibOnline, SmibReconciled

from .rig import Rig


def test_birth_events_and_a_snapshot_reconcile(rig: Rig) -> None:
    emu = rig.emulator("S-001")
    emu.insert_bill(2000)
    emu.play(20)
    emu.cash_out()
    emu.send_meters()
    rig.until("the snapshot", lambda: len(rig.of(SmibReconciled)) == 1)
    (online,) = rig.of(SmibOnline)
    assert (online.smib, online.bd, online.serial, online.last_eid) == ("S-001", 1, "SN-S-001", 0)
    assert rig.eids() == [1, 2, 3]
    (rec,) = rig.of(SmibReconciled)
    assert (rec.ok, rec.from_eid, rec.to_eid, rec.events, rec.mismatches) == (True, 0, 3, 3, ())
    assert [m.source for m in rig.of(SmibMeters)] == ["birth", "meters"]
