"""The findings of the hardware link and of hardware-backed machines (``HW.*``).

They are not controls of a regulation's catalogue (``twin controls`` lists them apart): they
say what the twin could not confirm about a real machine's data, or that the data and the
machine disagree. Each names its severity and the test that proves it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from twin.world import World

T = "tests/hardware/"


@dataclass(frozen=True, slots=True)
class HardwareFinding:
    id: str
    severity: str  # breach or warning
    title: str
    test: str


CATALOG: tuple[HardwareFinding, ...] = (
    HardwareFinding(
        "HW.reconcile",
        "breach",
        "between two meter snapshots of one epoch the meters moved other than the events say",
        T + "test_faults.py::test_meters_moved_without_events_is_a_finding",
    ),
    HardwareFinding(
        "HW.meter_reset",
        "warning",
        "the meters started a new epoch (RAM clear): the play across it cannot be reconciled",
        T + "test_faults.py::test_meter_reset_epoch",
    ),
    HardwareFinding(
        "HW.events_lost",
        "warning",
        "events the SMIB could not replay (the meters still carry their money)",
        T + "test_faults.py::test_lost_messages_that_cannot_be_replayed",
    ),
    HardwareFinding(
        "HW.event_conflict",
        "breach",
        "a SMIB sent an event id again with other content: the first stands, the second is refused",
        T + "test_no_silent_loss.py::test_one_eid_two_contents_is_a_conflict",
    ),
    HardwareFinding(
        "HW.counters_reset",
        "warning",
        "a SMIB's session number or event ids went back (a state restored from a backup, a "
        "board replaced): a new eid series starts and its events are applied",
        T + "test_no_silent_loss.py::test_regressed_counters_start_a_new_series",
    ),
    HardwareFinding(
        "HW.queue_overflow",
        "warning",
        "the machine's exception queue overflowed (SAS 0x70) in an interval that does not "
        "reconcile",
        T + "test_faults.py::test_exception_queue_overflow",
    ),
    HardwareFinding(
        "HW.identity",
        "breach",
        "a SMIB's birth reports a serial or programme signature other than the registry's "
        "(reg 28(3))",
        T + "test_faults.py::test_identity_mismatch",
    ),
    HardwareFinding(
        "HW.drive",
        "breach",
        "drive mode: what the machine reports is not what the bench command implies (credits, "
        "games, wager, a win above the PAR sheet's largest, the credit meter, the cash-out), "
        "or a command was never answered",
        T + "test_machines.py::test_drive_reports_that_the_commands_do_not_imply_are_found",
    ),
    HardwareFinding(
        "HW.par",
        "warning",
        "drive mode: the machine's return over the run is more than 4 standard deviations "
        "from its PAR sheet's",
        T + "test_machines.py::test_drive_reports_that_the_commands_do_not_imply_are_found",
    ),
    HardwareFinding(
        "HW.sas_lost",
        "breach",
        "SAS loop: an exception the machine raised never reached the host: never read over "
        "SAS (the SMIB did not poll it), or read over SAS and never reported over MQTT",
        T + "test_sas_loop.py::test_an_exception_the_smib_forgets_is_lost_on_its_report",
    ),
    HardwareFinding(
        "HW.sas_misreported",
        "breach",
        "SAS loop: the host got an exception the machine never raised, or with other data "
        "(a bill's value, a hand pay's amount)",
        T + "test_sas_loop.py::test_a_bill_reported_with_another_value_is_misreported",
    ),
    HardwareFinding(
        "HW.sas_meters",
        "breach",
        "SAS loop: a meter the host holds was never the machine's at any moment (the SMIB "
        "misread or misreported it)",
        T + "test_sas_loop.py::test_a_misread_meter_is_found",
    ),
    HardwareFinding(
        "HW.sas_late",
        "warning",
        "SAS loop: an exception reached the host later than the binding's max_delay_s after "
        "the machine raised it (the SAS read's share and the MQTT report's share given)",
        T + "test_sas_loop.py::test_a_late_report_is_late_with_its_shares",
    ),
    HardwareFinding(
        "HW.sas_queue_overflow",
        "breach",
        "SAS loop: the machine's exception queue overflowed; exceptions were lost on the "
        "machine's side before the SMIB read them",
        T + "test_sas_loop.py::test_queue_overflow_loses_exceptions_on_the_machine_side",
    ),
    HardwareFinding(
        "HW.sas_link_lost",
        "warning",
        "SAS loop: the SMIB reported its SAS line silent (the machine stopped answering)",
        T + "test_sas_loop.py::test_a_silent_machine_is_reported_by_the_smib",
    ),
    HardwareFinding(
        "HW.sas_line",
        "warning",
        "SAS loop: the machine's end of the line saw polls with a bad CRC (noise), or answered "
        "more than 1 % of polls after the 20 ms deadline (a slow machine)",
        T + "test_sas_loop.py::test_line_noise_and_a_slow_machine_are_line_findings",
    ),
)


def emit(
    world: World,
    subjects: tuple[str, ...],
    control: str,
    message: str,
    evidence: tuple[int, ...],
    *,
    warning: bool = False,
) -> None:
    """A hardware finding about ``subjects`` (a machine and its SMIB), now."""
    from twin.compliance.findings import Finding, Severity

    world.bus.emit(
        Finding,
        subjects=subjects,
        control=control,
        severity=str(Severity.WARNING if warning else Severity.BREACH),
        at=world.clock.iso(world.env.now),
        message=message,
        evidence=evidence,
        found_t=world.env.now,
    )


__all__ = ["CATALOG", "HardwareFinding", "emit"]
