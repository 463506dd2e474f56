"""Issue 31: where findings are numbered (the record bus's batch boundaries), the checks' time
taken from the record stream, and the checks and the ledger in a sink process."""

from __future__ import annotations

import subprocess
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO

from twin import api, ledger
from twin.clock import Clock
from twin.compliance.context import CheckContext
from twin.compliance.ruleset import load_ruleset
from twin.errors import InputError
from twin.machines.facts import FloorFacts
from twin.patrons.records import PatronArrived
from twin.records import BOUNDARY_SECONDS, LAG, Draft, MemorySink, RecordBus
from twin.sinkproc import SinkProcess, SinkProcessError


class _Producer:
    """Makes one draft per record it sees, named after the record's seq."""

    def __init__(self) -> None:
        self.drafts: list[Draft] = []
        self.held: list[list[Draft]] = []
        self.cuts: list[float] = []
        self.lags: list[int] = []

    def accept(self, rec: Any) -> None:
        if rec.kind == "patron_arrived" and not rec.patron.startswith("F"):
            self.drafts.append((PatronArrived, _arrival(f"F{rec.seq}", rec.t)))

    def close(self) -> None:
        pass

    def boundary(self, t: float, lag: int) -> list[Draft]:
        self.cuts.append(t)
        self.lags.append(lag)
        self.held.append(self.drafts)
        self.drafts = []
        return self.held.pop(0) if len(self.held) > lag else []

    def finish(self, end: float) -> list[Draft]:
        out = [d for batch in self.held for d in batch] + self.drafts
        self.held, self.drafts = [], []
        return out


def _arrival(patron: str, t: float | None = None) -> dict[str, Any]:
    fields: dict[str, Any] = dict(
        patron=patron, segment="local", bankroll_cents=100, visit=1, residency="local"
    )
    if t is not None:
        fields["t"] = t
    return fields


def _bus(lag: int | None = None) -> tuple[RecordBus, list[float], MemorySink, _Producer]:
    """A bus on a clock the test sets (``lag``: a live run's), a sink, and the test producer
    (a sink too)."""
    now = [0.0]
    bus = RecordBus(lambda: now[0])
    if lag is not None:
        bus.cut_every(BOUNDARY_SECONDS, lag=lag)
    sink, producer = MemorySink(), _Producer()
    bus.attach(sink)
    bus.attach(producer)
    bus.attach_producer(producer)
    return bus, now, sink, producer


def test_a_producers_records_are_numbered_one_batch_late_at_a_minutes_first_record() -> None:
    bus, now, sink, producer = _bus(lag=1)  # a live run's (a viewer, a drill)
    for t, who in ((0.0, "A"), (10.0, "B"), (59.5, "C"), (61.0, "D"), (61.0, "E"), (200.0, "G")):
        now[0] = t
        bus.emit(PatronArrived, **_arrival(who))
    bus.finish_producers(300.0)
    got = [(r.seq, r.t, r.patron) for r in sink.of(PatronArrived)]  # type: ignore[attr-defined]
    assert producer.cuts == [61.0, 200.0]  # the first record of a minute with records
    assert producer.lags == [1, 1]
    assert got == [
        (0, 0.0, "A"), (1, 10.0, "B"), (2, 59.5, "C"),
        (3, 61.0, "D"), (4, 61.0, "E"),
        # at the cut before G: the drafts of the batch before the last (A, B, C's), at its time
        (5, 200.0, "F0"), (6, 200.0, "F1"), (7, 200.0, "F2"),
        (8, 200.0, "G"),
        # at the end: everything left, in order
        (9, 300.0, "F3"), (10, 300.0, "F4"), (11, 300.0, "F8"),
    ]  # fmt: skip


def test_a_runs_producers_records_are_numbered_an_hour_of_batches_late() -> None:
    """Every run but a live one: ``LAG`` (60) batches late, so a sink process that checks a
    slow stretch is seldom waited for; what is left is numbered at the end."""
    assert LAG == 60
    bus, now, sink, producer = _bus()
    for minute in range(LAG + 3):  # one record a minute: a batch each
        now[0] = 60.0 * minute + 1.0
        bus.emit(PatronArrived, **_arrival(f"A{minute}"))
    bus.finish_producers(10_000.0)
    got = [(r.seq, r.t, r.patron) for r in sink.of(PatronArrived)]  # type: ignore[attr-defined]
    assert set(producer.lags) == {LAG} and len(producer.cuts) == LAG + 2
    # A0..A60, then at the cut before A61 the drafts of the batch LAG cuts before: A0's
    assert got[LAG + 1] == (LAG + 1, 60.0 * (LAG + 1) + 1.0, "F0")
    assert got[LAG + 2] == (LAG + 2, 60.0 * (LAG + 1) + 1.0, f"A{LAG + 1}")
    assert got[LAG + 3] == (LAG + 3, 60.0 * (LAG + 2) + 1.0, "F1")
    assert got[LAG + 4][2] == f"A{LAG + 2}"
    # the end: the drafts of the LAG + 1 batches not yet numbered, in order, at the end's time
    seq = {p: q for q, _, p in got}  # a draft is named after the seq of its arrival
    assert got[LAG + 5 :] == [
        (LAG + 5 + k, 10_000.0, f"F{seq[f'A{k + 2}']}") for k in range(LAG + 1)
    ]  # fmt: skip
    assert len(got) == 2 * (LAG + 3)


def test_a_live_run_cuts_with_a_lag_of_at_least_one_before_its_first_record() -> None:
    bus = RecordBus(lambda: 0.0)
    with pytest.raises(ValueError, match="0 batches late"):
        bus.cut_every(60.0, lag=0)
    bus.emit(PatronArrived, **_arrival("A"))
    with pytest.raises(RuntimeError, match="from the first record on"):
        bus.cut_every(60.0, lag=1)


def test_a_producer_is_attached_before_the_first_record() -> None:
    bus = RecordBus(lambda: 0.0)
    bus.emit(PatronArrived, **_arrival("A"))
    with pytest.raises(RuntimeError, match="before the first record"):
        bus.attach_producer(_Producer())


def test_a_deadline_fires_after_every_record_at_its_time_in_the_order_set() -> None:
    ctx = CheckContext(
        load_ruleset("malta-1998"), Clock(datetime(2026, 3, 2, 10), "Europe/Malta"), FloorFacts()
    )
    fired: list[tuple[str, float]] = []
    ctx.move_to(100.0)
    ctx.after(0.0, lambda: fired.append(("now", ctx.now)))
    ctx.after(50.0, lambda: fired.append(("b", ctx.now)))
    ctx.after(50.0, lambda: fired.append(("c", ctx.now)))

    def first() -> None:
        fired.append(("a", ctx.now))
        ctx.after(5.0, lambda: fired.append(("chained", ctx.now)))

    ctx.after(20.0, first)
    assert not ctx.due_before(100.0)  # a record at the same instant comes first
    ctx.run_timers(100.0)
    assert fired == []
    ctx.run_timers(150.0)  # a record at 150 comes before the timers set for 150
    assert fired == [("now", 100.0), ("a", 120.0), ("chained", 125.0)]
    assert ctx.now == 150.0
    ctx.run_timers(150.5)
    assert fired[3:] == [("b", 150.0), ("c", 150.0)]
    with pytest.raises(ValueError, match="back in time"):
        ctx.after(-1.0, lambda: None)


def test_the_boards_facts_log_their_changes_in_order_for_a_copy() -> None:
    facts = FloorFacts(register={"R1": "s1", "R5": "s5"})
    log = facts.log_changes()
    facts.register["R2"] = "s2"
    facts.approved_links["L"] = (100, 5)
    facts.register["R1"] = "s3"
    assert facts.register.pop("R5", None) == "s5"  # a machine deleted from the register
    assert facts.register.pop("R9", None) is None  # nothing there: nothing logged
    del facts.register["R2"]
    assert log == [("register", "R2", "s2", False), ("approved_links", "L", (100, 5), False),
                   ("register", "R1", "s3", False), ("register", "R5", None, True),
                   ("register", "R2", None, True)]  # fmt: skip
    copy = FloorFacts(register={"R1": "s1", "R5": "s5"})
    for change in log:
        copy.apply(change)
    assert copy.register == facts.register == {"R1": "s3"}
    assert copy.approved_links == {"L": (100, 5)}
    with pytest.raises(KeyError):
        facts.register.pop("R9")
    with pytest.raises(TypeError, match="register is logged"):
        facts.register.update({"R9": "x"})
    with pytest.raises(TypeError, match="logged"):
        facts.register.setdefault("R9", "x")


@pytest.mark.slow  # two runs of 50 simulated hours of the default floor (~20 s)
def test_a_machine_deleted_from_the_register_reaches_the_sink_process() -> None:
    """Found on a month of the default floor: the Board deletes a sold machine from its
    register (``pop``, 48 hours after the notice); the sink process's copy follows, and the
    run is the same."""
    from twin.lifecycle.records import BoardDecided

    sc = api.prepare(REPO / "scenarios" / "default.toml", seed=1, hours=50,
                     overrides=["lifecycle.works[7].at_hours=1.0"])  # fmt: skip
    sink = MemorySink()
    far = api.run(sc, sink_process=True, sinks=[sink])
    assert [d.machine for d in sink.of(BoardDecided) if d.decision == "deleted"] == ["A-R02"]
    inline = api.run(sc)
    assert far.ledger_sha256 == inline.ledger_sha256
    assert far.compliance is not None and inline.compliance is not None
    assert far.compliance.verdicts == inline.compliance.verdicts


def test_a_ledger_written_by_a_sink_process_verifies_and_equals_the_inline_one(
    tmp_path: Path,
) -> None:
    a = api.run(REPO / "scenarios" / "small.toml", seed=3, hours=6, out=tmp_path / "a")
    b = api.run(
        REPO / "scenarios" / "small.toml", seed=3, hours=6, out=tmp_path / "b", sink_process=True
    )
    assert a.ledger_sha256 == b.ledger_sha256 and a.records == b.records
    rows_a = list(ledger.read_rows(tmp_path / "a" / "ledger.sqlite"))
    rows_b = list(ledger.read_rows(tmp_path / "b" / "ledger.sqlite"))
    assert rows_a == rows_b
    assert ledger.verify(tmp_path / "b" / "ledger.sqlite").ok
    assert (tmp_path / "a" / "findings.json").read_text() == (
        tmp_path / "b" / "findings.json"
    ).read_text()


def test_a_program_changed_during_the_run_reaches_the_sink_process() -> None:
    """The default day converts and registers programs (its lifecycle): the checks in the
    sink process read the Board's facts as they were when each record was made."""
    sc = api.prepare(REPO / "scenarios" / "study.toml", seed=1)
    inline = api.run(sc)
    far = api.run(sc, sink_process=True)
    assert inline.compliance is not None and far.compliance is not None
    assert far.compliance.verdicts == inline.compliance.verdicts
    assert far.ledger_sha256 == inline.ledger_sha256


def test_a_ledger_the_sink_process_cannot_open_is_the_users_mistake(tmp_path: Path) -> None:
    taken = tmp_path / "ledger.sqlite"
    taken.write_text("mine")
    with pytest.raises(InputError, match="ledger"):
        SinkProcess(None, None, ledger=taken)
    assert taken.read_text() == "mine"


def test_twin_run_uses_a_sink_process_and_says_the_same(tmp_path: Path) -> None:
    """`twin run` on two cores checks and writes in a second process by default; --sinks
    inline gives the same summary and ledger."""
    outs = []
    for mode in ("auto", "inline"):
        out = tmp_path / mode
        proc = subprocess.run(
            [sys.executable, "-m", "twin", "run", str(REPO / "scenarios" / "tiny.toml"),
             "--out", str(out), "--sinks", mode, "--no-progress"],
            capture_output=True, text=True, cwd=tmp_path,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        outs.append(ledger.read_meta(out / "ledger.sqlite")["head"])
    assert outs[0] == outs[1]
    bad = subprocess.run(
        [sys.executable, "-m", "twin", "run", "--sinks", "elsewhere"],
        capture_output=True, text=True, cwd=tmp_path,
    )  # fmt: skip
    assert bad.returncode == 2 and "--sinks" in bad.stderr


def test_every_record_of_a_day_is_rebuilt_in_the_sink_process_as_it_was_made() -> None:
    """The sink process's records are the run's: rebuilt slot by slot, equal field for field,
    the same ledger text, still frozen."""
    from dataclasses import FrozenInstanceError

    from twin.sinkproc import _Decoder, _Encoder

    sink = MemorySink()
    api.run(REPO / "scenarios" / "study.toml", seed=2, hours=4, sinks=[sink])
    encode, decode = _Encoder(), _Decoder()
    kinds_seen = set()
    for rec in sink.records:
        again = decode(*encode(rec))
        assert type(again) is type(rec) and again == rec
        assert again.to_json() == rec.to_json()
        kinds_seen.add(rec.kind)
    assert len(kinds_seen) >= 30
    with pytest.raises(FrozenInstanceError):
        again.t = 0.0  # type: ignore[misc]


def test_a_run_with_hardware_cuts_its_batches_every_second() -> None:
    """A live link's findings within seconds: the batches of a hardware run are a simulated
    second long (chosen before the first record, since the ledger depends on it)."""
    bus, now, sink, producer = _bus()
    bus.cut_every(1.0)
    for t, who in ((0.0, "A"), (0.5, "B"), (1.25, "C"), (2.0, "D")):
        now[0] = t
        bus.emit(PatronArrived, **_arrival(who))
    assert producer.cuts == [1.25, 2.0]
    assert [r.patron for r in sink.of(PatronArrived)] == ["A", "B", "C", "F0", "F1", "D"]  # type: ignore[attr-defined]
    with pytest.raises(RuntimeError, match="from the first record on"):
        bus.cut_every(60.0)
    with pytest.raises(ValueError, match="batches of 0"):
        RecordBus(lambda: 0.0).cut_every(0.0)


class _Failing:
    """An engine whose check fails in the sink process (a checker's bug)."""

    def accept(self, rec: Any) -> None:
        raise ZeroDivisionError(f"a checker failed on {rec.kind}")


def test_a_failure_in_the_sink_process_stops_the_run_with_its_traceback() -> None:
    far = SinkProcess(_Failing(), None)  # type: ignore[arg-type]
    far.accept(PatronArrived(seq=0, t=0.0, **_arrival("A")))
    far.boundary(60.0, 1)  # the batch goes; its answer is not needed yet
    failed = r"(?s)the sink process failed:.*ZeroDivisionError: a checker failed on patron_arrived"
    with pytest.raises(SinkProcessError, match=failed):
        far.boundary(120.0, 1)
    far._proc.join(timeout=10)
    assert far._proc.exitcode is not None  # the child is gone
    far.abort()  # a stopping run's cleanup is harmless after it


def test_a_run_that_exits_without_closing_its_sink_process_ends_and_keeps_its_ledger(
    tmp_path: Path,
) -> None:
    """A program that fails after starting a sink process exits (multiprocessing terminates
    its daemonic child at exit; the child commits and ends): no hang, the ledger kept."""
    path = tmp_path / "ledger.sqlite"
    script = f"""
import sys
from twin.patrons.records import PatronArrived
from twin.sinkproc import SinkProcess
far = SinkProcess(None, None, ledger={str(path)!r})
for i in range(3):
    far.accept(PatronArrived(seq=i, t=float(i), patron=f"P{{i}}", segment="local",
                             bankroll_cents=100, visit=1, residency="local"))
far.boundary(60.0, 1)
far.flush()
sys.exit(3)
"""
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60, cwd=REPO)  # fmt: skip
    assert proc.returncode == 3, proc.stderr
    result = ledger.verify(path)
    assert result.rows == 3 and not result.closed


def test_the_run_is_frozen_for_the_collector_while_its_sink_process_lives(tmp_path: Path) -> None:
    """A pass of the garbage collector would touch every object the fork shares: what the run
    built is frozen at the fork and unfrozen when the sink process ends (closed, aborted or
    failed), so a process that runs again collects as before."""
    import gc

    assert gc.get_freeze_count() == 0
    for end in ("close", "abort"):
        far = SinkProcess(None, None, ledger=tmp_path / f"{end}.sqlite")
        assert gc.get_freeze_count() > 0
        far.accept(PatronArrived(seq=0, t=0.0, **_arrival("A")))
        getattr(far, end)()
        assert gc.get_freeze_count() == 0
    far = SinkProcess(_Failing(), None)  # type: ignore[arg-type]
    far.accept(PatronArrived(seq=0, t=0.0, **_arrival("A")))
    far.boundary(60.0, 1)
    with pytest.raises(SinkProcessError):
        far.boundary(120.0, 1)
    assert gc.get_freeze_count() == 0
