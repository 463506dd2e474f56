"""The SAS loop's end-to-end checks (twin.hardware.loop), on exact traffic: a [[sas]] machine
of a simulated hour, read between steps by an in-process SMIB (tests/hardware/sasloop.py)
that can forget, misreport, misread or be late. Each fault gives exactly its finding."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from twin.hardware.loop import CASH_OUT
from twin.hardware.records import SasLineClosed, SmibEvent

from .sasloop import LoopRun, sas_scenario

HOUR = 3600.0


def _floor(tmp_path: Path, faults: str = "") -> Path:
    return sas_scenario(tmp_path, seconds=HOUR, quick_patrons=True, arrivals=120, faults=faults)


def _controls(findings: list) -> Counter[str]:
    return Counter(f.control for f in findings)


def test_a_clean_loop_reconciles_every_exception_and_meter(tmp_path: Path) -> None:
    run = LoopRun(_floor(tmp_path))
    run.run()
    assert run.hw_findings() == []
    closed = [r for r in run.sink.records if isinstance(r, SasLineClosed)]
    assert len(closed) == 1
    c = closed[0]
    raised = run.view.raised
    assert c.raised == len(raised) > 15  # bills, cash outs, hand pays, doors... in an hour
    assert c.reported == c.delivered == c.raised and c.dropped == 0
    codes = {r.code for r in raised}
    assert CASH_OUT in codes and codes & {0x47, 0x48, 0x49, 0x4A, 0x4B}
    # the host's meters ended as the machine's
    assert run.view.versions[-1] == {
        k: v for k, v in run.smib.last.items() if k in run.view.versions[-1]
    }


def test_an_exception_the_smib_forgets_is_lost_on_its_report(tmp_path: Path) -> None:
    run = LoopRun(_floor(tmp_path), forget=frozenset({CASH_OUT}))
    run.run()
    found = run.hw_findings()
    assert _controls(found) == {"HW.sas_lost": 1}
    cash_outs = [r for r in run.view.raised if r.code == CASH_OUT]
    assert f"{len(cash_outs)} exception(s)" in found[0].message
    assert "read by the SMIB over SAS but never reported over MQTT" in found[0].message
    assert found[0].evidence[0] == cash_outs[0].evidence  # the cashed_out record


def test_what_waited_in_the_queue_is_read_at_the_close(tmp_path: Path) -> None:
    run = LoopRun(_floor(tmp_path))
    run.run(until=HOUR - 600)
    run.casino.advance(HOUR - 1)  # ten minutes nobody polls
    assert 0 < run.view.waiting() < 20
    hw = run.hw_findings()  # the closing read takes what waited
    assert hw == []


def test_exceptions_left_in_the_queue_are_never_read_over_sas(tmp_path: Path) -> None:
    run = LoopRun(_floor(tmp_path))
    run.run(until=HOUR - 600)
    run.casino.advance(HOUR - 1)
    unread = run.view.waiting()
    assert 0 < unread < 20
    run.casino.finish()  # no closing read: the SMIB never polls them
    hw = [f for f in run.sink.records if getattr(f, "control", "").startswith("HW.")]
    assert _controls(hw) == {"HW.sas_lost": 1, "HW.sas_meters": 1}
    lost = next(f for f in hw if f.control == "HW.sas_lost")
    assert f"{unread} exception(s)" in lost.message
    assert "never read over SAS (the SMIB did not poll them)" in lost.message
    meters = next(f for f in hw if f.control == "HW.sas_meters")
    assert "did not report the machine's last changes" in meters.message


def test_a_bill_reported_with_another_value_is_misreported(tmp_path: Path) -> None:
    run = LoopRun(_floor(tmp_path), misdata={"cents": 100})
    run.run()
    found = run.hw_findings()
    assert _controls(found) == {"HW.sas_misreported": 1}
    bills = [r for r in run.view.raised if "cents" in r.data]
    assert f"reported {len(bills)} exception(s)" in found[0].message
    assert f"cents 100 (the machine: {bills[0].data['cents']})" in found[0].message
    events = {r.seq: r for r in run.sink.records if isinstance(r, SmibEvent)}
    assert all(events[s].code in (0x47, 0x48, 0x49, 0x4A, 0x4B, 0x4C) for s in found[0].evidence)


def test_a_misread_meter_is_found(tmp_path: Path) -> None:
    run = LoopRun(_floor(tmp_path), misread={"total_coin_in": 7})
    run.run()
    found = run.hw_findings()
    assert _controls(found) == {"HW.sas_meters": 1}
    assert found[0].message.startswith("meter total_coin_in of machine A-001")
    assert "the SMIB misread or misreported it" in found[0].message


def test_a_late_report_is_late_with_its_shares(tmp_path: Path) -> None:
    run = LoopRun(_floor(tmp_path), delay=6.0)
    run.run()
    found = run.hw_findings()
    assert _controls(found) == {"HW.sas_late": 1}
    assert found[0].severity == "warning"
    assert "more than 5 s after they were raised" in found[0].message
    assert "reported over MQTT 6." in found[0].message


def test_queue_overflow_loses_exceptions_on_the_machine_side(tmp_path: Path) -> None:
    run = LoopRun(_floor(tmp_path, "storm_at_s = 601.0\nstorm = 25"))
    run.run()
    found = run.hw_findings()
    assert _controls(found) == {"HW.sas_queue_overflow": 1}
    dropped = [r for r in run.view.raised if r.dropped]
    assert len(dropped) >= 5  # 25 tilts into a queue of 20 (more if others waited)
    assert f"{len(dropped)} exception(s) were lost on the machine's side" in found[0].message
    reported = [r for r in run.view.raised if r.code == 0x70]
    assert reported and reported[0].reported is not None  # the SMIB told the host (0x70)


def test_a_silent_machine_is_reported_by_the_smib(tmp_path: Path) -> None:
    run = LoopRun(_floor(tmp_path))
    run.run(until=1200)
    run.smib.link_lost()
    run.run()
    found = run.hw_findings()
    assert _controls(found) == {"HW.sas_link_lost": 1}
    assert found[0].severity == "warning"


def test_a_tampered_program_answers_another_rom_signature(tmp_path: Path) -> None:
    run = LoopRun(_floor(tmp_path, 'tampered_program = "00ff00ff"'))
    run.run(until=600)
    found = run.hw_findings()
    assert _controls(found) == {"HW.identity": 1}
    assert "ROM signature" in found[0].message and "seed 0x1234" in found[0].message


@pytest.mark.parametrize(
    ("faults", "key", "expected"),
    [
        ("noise = 0.9", "sas[0].faults.noise", "less than or equal to 0.5"),
        ('tampered_program = "abc"', "sas[0].faults.tampered_program", "a program image in hex"),
    ],
)
def test_bad_faults_are_refused_before_t0(
    tmp_path: Path, faults: str, key: str, expected: str
) -> None:
    from twin import api
    from twin.errors import InputError

    with pytest.raises(InputError) as err:
        api.prepare(_floor(tmp_path, faults))
    assert key in str(err.value) and expected in str(err.value)


@pytest.mark.parametrize(
    ("faults", "said"),
    [
        ("noise = 0.3", "poll(s) with a bad CRC (ignored, as SAS wants)"),
        ("reply_delay_ms = 30", "replies after the 20 ms deadline"),
    ],
)
def test_line_noise_and_a_slow_machine_are_line_findings(
    tmp_path: Path, faults: str, said: str
) -> None:
    """The machine's end of a real line (a pty pair) with the binding's faults, polled by a
    SAS host: what that end saw is the line's finding, and nothing else is."""
    import threading

    from twin.hardware.sas.host import SasHost
    from twin.hardware.sas.line import SasLine
    from twin.hardware.sas.pty import open_pty
    from twin.hardware.sas.station import FaultyMachine

    run = LoopRun(_floor(tmp_path, faults))
    b = run.floor.sas[0]
    stop = threading.Event()
    with open_pty() as pair:
        faulty = FaultyMachine(run.view.machine, b.faults, lambda: run.casino.env.now)
        line = SasLine(pair.machine_wire(), faulty)
        run.floor.loops["SAS-001"].line_stats = line.stats.summary
        t = threading.Thread(target=line.run, args=(stop,), daemon=True)
        t.start()
        try:
            with SasHost(pair.host_fd, pty=True, timeout=0.1) as host:
                for _ in range(40):  # 6F: selected meters (coin in, games played), with a CRC
                    host.long_poll(1, 0x6F, bytes([0x06, 0x00, 0x00, 0x00, 0x00, 0x05, 0x00]))
        finally:
            stop.set()
            t.join(timeout=5)
    run.run(until=600)
    found = run.hw_findings()
    assert _controls(found) == {"HW.sas_line": 1}
    assert said in found[0].message
    closed = next(r for r in run.sink.records if isinstance(r, SasLineClosed))
    assert closed.seq in found[0].evidence
    if "noise" in faults:
        assert closed.bad_crc == faulty.damaged_polls > 0
    else:
        assert closed.late == closed.replies == 40


def test_a_burst_the_queue_cannot_take_is_held_not_lost(tmp_path: Path) -> None:
    """The simulation feeds a whole bankroll of bills in one instant; the twin's machine
    holds what its 20-deep queue cannot take and raises it as the SMIB reads: 25 bills and a
    cash out, all read in order, none dropped (the storm fault is what overflows it)."""
    run = LoopRun(_floor(tmp_path))
    run.run(until=60)
    for _ in range(25):
        run.view.raise_code(0x4B, {"cents": 5000})
    run.view.raise_code(CASH_OUT)
    assert run.view.machine.exceptions.waiting() == [0x4B] * 20
    assert run.view.waiting() == 26
    assert run.smib.poll_all() == 26
    burst = run.view.raised[-26:]
    assert [r.code for r in burst] == [0x4B] * 25 + [CASH_OUT]
    assert all(r.reported is not None and not r.dropped for r in burst)
    run.run(until=600)
    assert run.hw_findings() == []
