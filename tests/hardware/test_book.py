"""The book on its own: reconciliation arithmetic and the records' round trip."""

from __future__ import annotations

from twin.compliance.findings import Finding
from twin.hardware.book import Event, HardwareWorld, Meters, Registered
from twin.hardware.records import SmibMeters, SmibReconciled
from twin.records import MemorySink, from_json


def _world() -> tuple[HardwareWorld, MemorySink]:
    sink = MemorySink()
    reg = {"S-001": Registered("S-001", "A-001", "SN-1", "abc")}
    return HardwareWorld(reg, sinks=(sink,)), sink


def _snap(as_of: int, coin_in: int, epoch: int = 0) -> Meters:
    values = (("current_credits", 7), ("games_since_door_closed", 0), ("total_coin_in", coin_in))
    return Meters("S-001", "meters", epoch, as_of, 4, values)


def _evt(eid: int, coin_in: int) -> Event:
    return Event("S-001", eid, 1, 0x7F, "game_ended", 0, (("total_coin_in", coin_in),), "{}", False)


def test_deltas_are_taken_modulo_the_width() -> None:
    world, sink = _world()
    book = world.book
    book.meters(_snap(0, 9_990))
    book.event(_evt(1, 15))
    book.event(_evt(2, 10))
    book.meters(_snap(2, 15))  # 9_990 + 25 = 10_015: reads 15 on four digits
    (rec,) = sink.of(SmibReconciled)
    assert (rec.ok, rec.events, rec.from_eid, rec.to_eid) == (True, 2, 0, 2)
    assert sink.of(Finding) == []


def test_a_mismatch_names_each_meter_and_is_a_finding() -> None:
    world, sink = _world()
    book = world.book
    book.meters(_snap(0, 100))
    book.event(_evt(1, 10))
    book.meters(_snap(1, 130))
    (rec,) = sink.of(SmibReconciled)
    assert rec.mismatches == ("total_coin_in: meters moved 30, events say 10",)
    (f,) = sink.of(Finding)
    assert (f.control, f.severity, f.evidence) == ("HW.reconcile", "breach", (0, 2, 3))


def test_every_hardware_record_survives_the_ledger_round_trip() -> None:
    world, sink = _world()
    book = world.book
    book.meters(_snap(0, 100))
    book.event(_evt(1, 10))
    book.meters(_snap(1, 130))
    book.meters(_snap(1, 0, epoch=1))
    assert len({type(r) for r in sink.records}) == 5
    for rec in sink.records:
        assert from_json(rec.to_json()) == rec


def test_a_late_copy_of_a_snapshot_is_recorded_but_not_reconciled() -> None:
    world, sink = _world()
    book = world.book
    book.meters(_snap(0, 100))
    book.event(_evt(1, 10))
    book.meters(_snap(0, 100))  # a delayed duplicate of the first snapshot
    book.event(_evt(2, 10))
    book.meters(_snap(2, 120))
    assert [m.late for m in sink.of(SmibMeters)] == [False, True, False]
    (rec,) = sink.of(SmibReconciled)
    assert (rec.ok, rec.from_eid, rec.to_eid, rec.events) == (True, 0, 2, 2)
